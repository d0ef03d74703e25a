//! Engine specifications:
//! `name=X,cmd=PATH,arg=A,movetime=MS,depth=D,nodes=N,tc=SECONDS+INC,margin=MS,option.NAME=V`.
//!
//! A value holding commas goes in single or double quotes:
//! `option.agent='alphabeta:depth=4,eval=local'`.

use std::str::FromStr;

use serde_json::Value;

/// How to run one engine and what limits to give it.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineSpec {
    /// The spec as it was given (it identifies the engine in a run's
    /// fingerprint).
    pub text: String,
    /// Display name.
    pub name: String,
    /// The program; `self` runs this arena binary as an engine.
    pub cmd: String,
    /// Arguments, in order.
    pub args: Vec<String>,
    /// Time per move in milliseconds.
    pub movetime_ms: Option<u64>,
    /// Depth per move.
    pub depth: Option<u64>,
    /// Nodes per move.
    pub nodes: Option<u64>,
    /// A game clock: milliseconds per game and increment per move.
    pub clock: Option<(u64, u64)>,
    /// Time allowed beyond the movetime or the clock for process and pipe
    /// overhead, in milliseconds; the match's `--time-margin` if absent.
    pub margin_ms: Option<u64>,
    /// Options sent with `setoption` after start.
    pub options: Vec<(String, Value)>,
    /// Runs the engine apart from the arena (another user, limits); set by
    /// the grader, never by the spec's text.
    pub sandbox: Option<crate::sandbox::Sandbox>,
    /// The engine's own folder (`dir=`): under `--isolate` it is copied
    /// for the engine alone, closed to the other engines, and the engine
    /// runs in the copy, its `cmd` and `arg`s inside the folder pointing
    /// into the copy.
    pub dir: Option<std::path::PathBuf>,
}

impl EngineSpec {
    /// Whether the player behind it numbers columns from 0, as Python
    /// students write them: a course policy or a Kaggle agent served by
    /// the bridge (`connect4-policy`, `connect4-kaggle`, or `python -m
    /// c4bridge...`). Its moves travel in the protocol's columns from 1,
    /// but what the student reads speaks of the columns their code returned.
    pub fn counts_columns_from_zero(&self) -> bool {
        let program = std::path::Path::new(&self.cmd)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        matches!(program.as_str(), "connect4-policy" | "connect4-kaggle")
            || self
                .args
                .windows(2)
                .any(|w| w[0] == "-m" && w[1].starts_with("c4bridge"))
    }

    /// The program and arguments to start; `cmd=self` is this binary in its
    /// engine mode.
    pub fn command(&self) -> std::io::Result<(String, Vec<String>)> {
        if self.cmd == "self" {
            let me = std::env::current_exe()?;
            Ok((me.display().to_string(), vec!["engine".to_string()]))
        } else {
            Ok((self.cmd.clone(), self.args.clone()))
        }
    }
}

impl EngineSpec {
    /// The program and its arguments as one line, for messages.
    pub fn command_line(&self) -> String {
        std::iter::once(self.cmd.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A hint for a `cmd` that holds a space (a program and its arguments
    /// in one value): empty otherwise.
    pub fn cmd_hint(&self) -> String {
        match self.cmd.split_once(char::is_whitespace) {
            Some((program, rest)) if !std::path::Path::new(&self.cmd).exists() => format!(
                " (hint: cmd '{}' holds a space; the arena runs no shell, so give the program \
                 in cmd= and each argument in its own arg=: cmd={program},arg={})",
                self.cmd,
                rest.split_whitespace().collect::<Vec<_>>().join(",arg=")
            ),
            _ => String::new(),
        }
    }
}

/// The largest `go` depth the protocol allows.
pub const MAX_DEPTH: u64 = 1000;

/// The keys a spec may use.
const KEYS: &str = "name, cmd, arg, dir, movetime, depth, nodes, tc, margin, option.NAME";

/// What is wrong with an engine spec; each message quotes the part at fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// A part without `=`.
    #[error("'{0}': expected KEY=VALUE (keys: {KEYS})")]
    NotKeyValue(String),
    /// A limit that is not a positive integer.
    #[error("'{key}={value}': expected a positive integer")]
    NotPositive {
        /// The key.
        key: String,
        /// The value given.
        value: String,
    },
    /// A depth beyond the protocol's largest.
    #[error("'depth={0}': the protocol allows depths from 1 to {MAX_DEPTH}")]
    DepthTooLarge(u64),
    /// A margin that is not a whole number of milliseconds.
    #[error("'margin={0}': expected milliseconds (an integer)")]
    BadMargin(String),
    /// A clock that does not parse.
    #[error("'tc={0}': expected SECONDS or SECONDS+INCREMENT, such as tc=10+0.1")]
    BadClock(String),
    /// A key the spec does not know.
    #[error("unknown key '{0}' (keys: {KEYS})")]
    UnknownKey(String),
    /// A key the spec does not know, right after an option whose value
    /// looks cut at a comma: the value needed quotes.
    #[error(
        "unknown key '{key}': if '{part}' belongs to {option}'s value, quote the value, as in \
         {option}='{value},{part}' (in a shell, put the whole spec in double quotes)"
    )]
    UnquotedOption {
        /// The unknown key.
        key: String,
        /// The whole part that holds it.
        part: String,
        /// The option before it, as `option.NAME`.
        option: String,
        /// The option's value as it was cut.
        value: String,
    },
    /// No `cmd=`.
    #[error("'{0}': cmd is missing")]
    MissingCmd(String),
    /// Both a clock and a move time.
    #[error("'{0}': give tc or movetime, not both")]
    ClockAndMovetime(String),
    /// A quote opened and never closed.
    #[error("'{spec}': a {quote} quote is not closed")]
    OpenQuote {
        /// The whole spec.
        spec: String,
        /// The quote character.
        quote: char,
    },
}

impl FromStr for EngineSpec {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<Self, SpecError> {
        let mut spec = EngineSpec {
            text: s.to_string(),
            name: String::new(),
            cmd: String::new(),
            args: Vec::new(),
            movetime_ms: None,
            depth: None,
            nodes: None,
            clock: None,
            margin_ms: None,
            options: Vec::new(),
            sandbox: None,
            dir: None,
        };
        // The last option with an unquoted `:` or `=` in its value, which
        // a comma may have cut short.
        let mut cut_option: Option<(String, String)> = None;
        for part in split_outside_quotes(s)?
            .iter()
            .filter(|p| !p.trim().is_empty())
        {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| SpecError::NotKeyValue(part.clone()))?;
            let (key, value) = (key.trim(), unquote(value.trim()));
            if let Some(name) = key.strip_prefix("option.") {
                let v = serde_json::from_str(value)
                    .unwrap_or_else(|_| Value::String(value.to_string()));
                spec.options.push((name.to_string(), v));
                cut_option = value
                    .contains([':', '='])
                    .then(|| (key.to_string(), value.to_string()));
                continue;
            }
            spec.set(key, value)
                .map_err(|e| match (e, cut_option.take()) {
                    (SpecError::UnknownKey(key), Some((option, value))) => {
                        SpecError::UnquotedOption {
                            key,
                            part: part.trim().to_string(),
                            option,
                            value,
                        }
                    }
                    (e, _) => e,
                })?;
            cut_option = None;
        }
        spec.finish()
    }
}

impl EngineSpec {
    /// Sets the field `key` (not an option) to `value`.
    fn set(&mut self, key: &str, value: &str) -> Result<(), SpecError> {
        let number = |v: &str| -> Result<u64, SpecError> {
            v.parse::<u64>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| SpecError::NotPositive {
                    key: key.to_string(),
                    value: v.to_string(),
                })
        };
        match key {
            "name" => self.name = value.to_string(),
            "cmd" => self.cmd = value.to_string(),
            "arg" => self.args.push(value.to_string()),
            "dir" => self.dir = Some(std::path::PathBuf::from(value)),
            "movetime" => self.movetime_ms = Some(number(value)?),
            "depth" => {
                let depth = number(value)?;
                if depth > MAX_DEPTH {
                    return Err(SpecError::DepthTooLarge(depth));
                }
                self.depth = Some(depth);
            }
            "nodes" => self.nodes = Some(number(value)?),
            "tc" => self.clock = Some(parse_tc(value)?),
            "margin" => {
                let margin = value.parse();
                self.margin_ms = Some(margin.map_err(|_| SpecError::BadMargin(value.to_string()))?);
            }
            other => return Err(SpecError::UnknownKey(other.to_string())),
        }
        Ok(())
    }

    /// Checks the spec as a whole and fills in its defaults: a command is
    /// needed, one kind of clock at most, 100 ms a move when no limit is
    /// given, and the program's file name when no name is.
    fn finish(mut self) -> Result<EngineSpec, SpecError> {
        if self.cmd.is_empty() {
            return Err(SpecError::MissingCmd(self.text));
        }
        if self.clock.is_some() && self.movetime_ms.is_some() {
            return Err(SpecError::ClockAndMovetime(self.text));
        }
        if self.movetime_ms.is_none()
            && self.depth.is_none()
            && self.nodes.is_none()
            && self.clock.is_none()
        {
            self.movetime_ms = Some(100);
        }
        if self.name.is_empty() {
            self.name = self.cmd.rsplit('/').next().unwrap_or(&self.cmd).to_string();
        }
        Ok(self)
    }
}

/// `SECONDS[+INCREMENT]` (decimals allowed) as milliseconds.
fn parse_tc(value: &str) -> Result<(u64, u64), SpecError> {
    let bad = || SpecError::BadClock(value.to_string());
    let ms = |t: &str| -> Result<u64, SpecError> {
        let secs: f64 = t.trim().parse().map_err(|_| bad())?;
        if (0.0..1e7).contains(&secs) {
            Ok((secs * 1000.0).round() as u64)
        } else {
            Err(bad())
        }
    };
    let (base, inc) = value.split_once('+').unwrap_or((value, "0"));
    let base = ms(base)?;
    if base == 0 {
        return Err(bad());
    }
    Ok((base, ms(inc)?))
}

/// Splits at the commas that are not inside quotes.
fn split_outside_quotes(s: &str) -> Result<Vec<String>, SpecError> {
    let mut parts = vec![String::new()];
    let mut quote: Option<char> = None;
    for ch in s.chars() {
        match (quote, ch) {
            (None, ',') => parts.push(String::new()),
            (None, '\'' | '"') => {
                quote = Some(ch);
                parts.last_mut().expect("never empty").push(ch);
            }
            (Some(q), c) if c == q => {
                quote = None;
                parts.last_mut().expect("never empty").push(ch);
            }
            _ => parts.last_mut().expect("never empty").push(ch),
        }
    }
    match quote {
        Some(quote) => Err(SpecError::OpenQuote {
            spec: s.to_string(),
            quote,
        }),
        None => Ok(parts),
    }
}

/// `v` quoted, as a spec value that may hold commas: in single quotes, or
/// in double quotes when it holds a single quote (a folder named
/// `o'brien`). A value holding both cannot be quoted whole; its double
/// quotes are dropped.
pub fn quote(v: &str) -> String {
    match v.contains('\'') {
        false => format!("'{v}'"),
        true => format!("\"{}\"", v.replace('"', "")),
    }
}

/// A value without its surrounding quotes.
fn unquote(v: &str) -> &str {
    for q in ['\'', '"'] {
        if let Some(inner) = v.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner;
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue #69, item 7: a folder named `o'brien` lost its quote and
    /// could never run.
    #[test]
    fn a_value_with_a_single_quote_survives_quoting() {
        for path in ["/drop/o'brien/engine", "/drop/a,b/engine", "/plain/engine"] {
            let spec: EngineSpec = format!("name={},cmd={}", quote("o'brien"), quote(path))
                .parse()
                .unwrap();
            assert_eq!((spec.name.as_str(), spec.cmd.as_str()), ("o'brien", path));
        }
    }

    #[test]
    fn parses_and_rejects() {
        let s: EngineSpec = "name=a,cmd=/bin/e,arg=-x,arg=y,depth=3,option.hash_mb=16"
            .parse()
            .unwrap();
        assert_eq!(s.args, vec!["-x", "y"]);
        assert_eq!(s.depth, Some(3));
        assert_eq!(s.movetime_ms, None);
        assert_eq!(s.options, vec![("hash_mb".to_string(), Value::from(16))]);
        let d: EngineSpec = "cmd=/usr/bin/eng".parse().unwrap();
        assert_eq!((d.name.as_str(), d.movetime_ms), ("eng", Some(100)));
        assert!(
            "name=a"
                .parse::<EngineSpec>()
                .unwrap_err()
                .to_string()
                .contains("cmd is missing")
        );
        assert!(
            "cmd=x,depth=0"
                .parse::<EngineSpec>()
                .unwrap_err()
                .to_string()
                .contains("positive integer")
        );
        assert!(
            "cmd=x,depth=1001"
                .parse::<EngineSpec>()
                .unwrap_err()
                .to_string()
                .contains("from 1 to 1000")
        );
        let q: EngineSpec = "cmd=x,option.agent='alphabeta:depth=4,eval=local',name=\"a,b\""
            .parse()
            .unwrap();
        assert_eq!(
            q.options,
            vec![(
                "agent".to_string(),
                Value::from("alphabeta:depth=4,eval=local")
            )]
        );
        assert_eq!(q.name, "a,b");
        assert!(
            "cmd=x,option.agent='mcts"
                .parse::<EngineSpec>()
                .unwrap_err()
                .to_string()
                .contains("quote is not closed")
        );
        let c: EngineSpec = "cmd=x,tc=2.5+0.05,margin=30".parse().unwrap();
        assert_eq!(
            (c.clock, c.margin_ms, c.movetime_ms),
            (Some((2500, 50)), Some(30), None)
        );
        assert!(
            "cmd=x,tc=fast"
                .parse::<EngineSpec>()
                .unwrap_err()
                .to_string()
                .contains("tc=fast")
        );
        assert!(
            "cmd=x,tc=1,movetime=5"
                .parse::<EngineSpec>()
                .unwrap_err()
                .to_string()
                .contains("not both")
        );
        let cut = "cmd=x,option.agent=alphabeta:depth=4,eval=local"
            .parse::<EngineSpec>()
            .unwrap_err()
            .to_string();
        assert!(
            cut.contains("unknown key 'eval'")
                && cut.contains("option.agent='alphabeta:depth=4,eval=local'"),
            "{cut}"
        );
        assert!(
            "cmd=x,colour=red"
                .parse::<EngineSpec>()
                .unwrap_err()
                .to_string()
                .contains("unknown key 'colour'")
        );
    }
}
