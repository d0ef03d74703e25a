//! The engine's options, in one table: `hello` lists it, `setoption` checks
//! a value against it, and a test holds protocol/README.md's table to it.
//! What an option does once set is the session's business; its name, type,
//! range, default and help live here only.

use serde_json::Value;

use crate::engine::{DEEP_TABLE_MB, DEFAULT_HASH_MB, Engine};
use crate::protocol::messages::OptionInfo;

/// The most threads `setoption threads` takes.
pub const MAX_THREADS: i64 = 256;
/// The largest table `setoption hash_mb` takes, in MiB.
pub const MAX_HASH_MB: i64 = 16 * 1024;

/// The values an option takes, and the [`OptionValue`] each makes.
#[derive(Clone, Copy, Debug)]
pub enum OptionType {
    /// A whole number from `min` to `max`.
    Int {
        /// The smallest.
        min: i64,
        /// The largest.
        max: i64,
        /// The value it makes.
        value: fn(usize) -> OptionValue,
    },
    /// `true` or `false`.
    Bool(fn(bool) -> OptionValue),
    /// An agent spec, `NAME[:key=value,...]`.
    Agent,
}

/// One option of the engine.
#[derive(Clone, Copy, Debug)]
pub struct EngineOption {
    /// Its name for `setoption`.
    pub name: &'static str,
    /// The values it takes.
    pub kind: OptionType,
    /// Its value at start.
    pub default: fn() -> Value,
    /// What it does, as `hello` says it.
    pub help: fn() -> String,
}

/// Every option, in the order `hello` lists them.
pub const OPTIONS: [EngineOption; 5] = [
    EngineOption {
        name: "hash_mb",
        kind: OptionType::Int {
            min: 1,
            max: MAX_HASH_MB,
            value: OptionValue::HashMb,
        },
        default: || DEFAULT_HASH_MB.into(),
        help: || {
            format!(
                "transposition table size in MiB; the engine's tables take a quarter \
                 more and {DEEP_TABLE_MB} MiB in all (the default takes {} MiB); setting \
                 it clears them",
                Engine::table_mebibytes(DEFAULT_HASH_MB)
            )
        },
    },
    EngineOption {
        name: "agent",
        kind: OptionType::Agent,
        default: || "solver".into(),
        help: || {
            format!(
                "which player answers go: NAME or NAME:key=value,...; {}",
                Engine::agent_help().replace('\n', "; ")
            )
        },
    },
    EngineOption {
        name: "threads",
        kind: OptionType::Int {
            min: 1,
            max: MAX_THREADS,
            value: OptionValue::Threads,
        },
        default: || 1.into(),
        help: || {
            format!(
                "threads for the solver's proofs, sharing its table; each thread past \
                 the first also keeps a {DEEP_TABLE_MB} MiB table of its own"
            )
        },
    },
    EngineOption {
        name: "book",
        kind: OptionType::Bool(OptionValue::Book),
        default: || true.into(),
        help: || {
            "answer from the opening book (exact scores of early positions) \
             where it has the position"
                .into()
        },
    },
    EngineOption {
        name: "info",
        kind: OptionType::Bool(OptionValue::Info),
        default: || true.into(),
        help: || "send info replies during go".into(),
    },
];

/// A value `setoption` took, checked against its option's type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionValue {
    /// `hash_mb`.
    HashMb(usize),
    /// `threads`.
    Threads(usize),
    /// `book`.
    Book(bool),
    /// `info`.
    Info(bool),
    /// `agent`: the spec, not yet checked against the agents.
    Agent(String),
}

/// A `setoption` the engine cannot take.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OptionError {
    /// No option of that name.
    #[error("unknown option '{name}'; options: {list}", list = names().join(", "))]
    Unknown {
        /// The name given.
        name: String,
    },
    /// A value the option does not take.
    #[error("option '{name}': expected {expected}, found {found}")]
    Value {
        /// The option.
        name: &'static str,
        /// What it takes, in words.
        expected: String,
        /// The value given, as JSON.
        found: Value,
    },
}

/// The options' names, in order.
pub fn names() -> Vec<&'static str> {
    OPTIONS.iter().map(|o| o.name).collect()
}

/// What `hello` says of every option.
pub fn infos() -> Vec<OptionInfo> {
    OPTIONS
        .iter()
        .map(|o| {
            let (kind, min, max, choices) = match o.kind {
                OptionType::Int { min, max, .. } => ("int", Some(min), Some(max), None),
                OptionType::Bool(_) => ("bool", None, None, None),
                OptionType::Agent => ("string", None, None, Some(Engine::agent_names())),
            };
            OptionInfo {
                name: o.name.into(),
                kind: kind.into(),
                default: (o.default)(),
                min,
                max,
                choices,
                help: (o.help)(),
            }
        })
        .collect()
}

/// Checks `value` for the option `name`.
pub fn parse(name: &str, value: &Value) -> Result<OptionValue, OptionError> {
    let Some(option) = OPTIONS.iter().find(|o| o.name == name) else {
        return Err(OptionError::Unknown {
            name: name.to_string(),
        });
    };
    let wrong = |expected: String| OptionError::Value {
        name: option.name,
        expected,
        found: value.clone(),
    };
    match option.kind {
        OptionType::Int {
            min,
            max,
            value: make,
        } => value
            .as_i64()
            .filter(|n| (min..=max).contains(n))
            .map(|n| make(n as usize))
            .ok_or_else(|| wrong(format!("an integer from {min} to {max}"))),
        OptionType::Bool(make) => value
            .as_bool()
            .map(make)
            .ok_or_else(|| wrong("true or false".into())),
        OptionType::Agent => value
            .as_str()
            .map(|spec| OptionValue::Agent(spec.to_string()))
            .ok_or_else(|| wrong("a string such as \"alphabeta:depth=4\"".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rows of protocol/README.md's options table: name, type,
    /// default, values.
    fn documented() -> Vec<[String; 4]> {
        let text = include_str!("../../protocol/README.md");
        let table = text
            .split("### Options (`setoption`)")
            .nth(1)
            .expect("an options section");
        table
            .lines()
            .skip_while(|l| !l.starts_with("| name"))
            .skip(2)
            .take_while(|l| l.starts_with('|'))
            .map(|l| {
                let cells: Vec<String> = l
                    .trim_matches('|')
                    .split(" | ")
                    .map(|c| c.trim().trim_matches('`').to_string())
                    .collect();
                [0, 1, 2, 3].map(|i| cells[i].clone())
            })
            .collect()
    }

    #[test]
    fn the_protocol_s_table_is_this_one() {
        let rows = documented();
        let mut documented: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
        let mut ours = names();
        documented.sort_unstable();
        ours.sort_unstable();
        assert_eq!(documented, ours, "the documented options are the engine's");
        for info in infos() {
            let row = rows.iter().find(|r| r[0] == info.name).unwrap();
            assert_eq!(row[1], info.kind, "{}'s type", info.name);
            let default = match &info.default {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            assert_eq!(row[2], default, "{}'s default", info.name);
            if let (Some(min), Some(max)) = (info.min, info.max) {
                let range = format!("{min} to {max}");
                assert!(
                    row[3].starts_with(&range),
                    "{}: {} / {range}",
                    info.name,
                    row[3]
                );
            }
        }
    }

    #[test]
    fn values_are_checked_against_the_table() {
        assert_eq!(parse("threads", &2.into()), Ok(OptionValue::Threads(2)));
        assert_eq!(parse("book", &false.into()), Ok(OptionValue::Book(false)));
        assert_eq!(
            parse("hash_mb", &0.into()).unwrap_err().to_string(),
            "option 'hash_mb': expected an integer from 1 to 16384, found 0"
        );
        assert_eq!(
            parse("info", &"yes".into()).unwrap_err().to_string(),
            "option 'info': expected true or false, found \"yes\""
        );
        assert_eq!(
            parse("hashmb", &1.into()).unwrap_err().to_string(),
            "unknown option 'hashmb'; options: hash_mb, agent, threads, book, info"
        );
    }
}
