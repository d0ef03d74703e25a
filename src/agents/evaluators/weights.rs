//! Named evaluator weights, their defaults, and the weights file.
//!
//! A weights file is JSON:
//!
//! ```json
//! {"format": "connect4-weights", "version": 1, "eval": "windows",
//!  "weights": {"four": 1000, "three": 12, "two": 5, "opp_three": -80, "centre": 3}}
//! ```
//!
//! Weights missing from the file keep their defaults; an unknown weight, a
//! different format or version, or a non-integer value is an error naming
//! the file. `connect4 tune` writes this format.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The `format` field of a weights file.
pub const FORMAT: &str = "connect4-weights";
/// The version of the weights file format this build reads and writes.
pub const VERSION: u32 = 1;

/// Which evaluator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EvalKind {
    /// Windows of `inarow` cells scored by their contents.
    Windows,
    /// Open lines of the 5 x 5 window around each stone.
    Local,
    /// A weighted sum of board features, own minus opponent.
    Features,
    /// A random value.
    Random,
}

impl EvalKind {
    /// Every evaluator.
    pub const ALL: [EvalKind; 4] = [
        EvalKind::Windows,
        EvalKind::Local,
        EvalKind::Features,
        EvalKind::Random,
    ];

    /// The evaluator's name in specs and files.
    pub fn name(self) -> &'static str {
        match self {
            EvalKind::Windows => "windows",
            EvalKind::Local => "local",
            EvalKind::Features => "features",
            EvalKind::Random => "random",
        }
    }

    /// The evaluator named `name`.
    pub fn from_name(name: &str) -> Option<EvalKind> {
        EvalKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The evaluator's weights and their defaults, in a fixed order.
    pub fn defaults(self) -> &'static [(&'static str, i32)] {
        match self {
            EvalKind::Windows => &[
                ("four", 1000),
                ("three", 10),
                ("two", 5),
                ("opp_three", -80),
                ("centre", 3),
            ],
            EvalKind::Local => &[("line", 1), ("open_end", 2), ("centre_four", 4)],
            EvalKind::Features => &[
                ("consecutive", 4),
                ("alignment", 1),
                ("central", 2),
                ("rising", 2),
            ],
            EvalKind::Random => &[],
        }
    }
}

/// A weight the evaluator does not have.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("evaluator '{evaluator}' has no weight '{name}'; weights: {weights}")]
pub struct UnknownWeight {
    /// The evaluator.
    pub evaluator: &'static str,
    /// The weight asked for.
    pub name: String,
    /// Its weights as `w.a, w.b`, or `none`.
    pub weights: String,
}

/// A weights file that cannot be used.
#[derive(Debug, Error)]
pub enum WeightsError {
    /// The file could not be read or written.
    #[error("weights file {path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The file is not a valid weights file.
    #[error("weights file {path}: {why}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong, quoting the bad value.
        why: String,
    },
}

/// An evaluator and the values of its weights.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    kind: EvalKind,
    values: Vec<i32>,
}

/// The weights file as stored.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    format: String,
    version: u32,
    eval: EvalKind,
    weights: BTreeMap<String, i32>,
}

impl Weights {
    /// The default weights of `kind`.
    pub fn defaults(kind: EvalKind) -> Weights {
        Weights {
            kind,
            values: kind.defaults().iter().map(|&(_, v)| v).collect(),
        }
    }

    /// The evaluator these weights belong to.
    pub fn kind(&self) -> EvalKind {
        self.kind
    }

    /// The weights' names, in the evaluator's order.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.kind.defaults().iter().map(|&(n, _)| n)
    }

    /// The values, in the order of [`Weights::names`].
    pub fn values(&self) -> &[i32] {
        &self.values
    }

    /// The values, to change them in place.
    pub fn values_mut(&mut self) -> &mut [i32] {
        &mut self.values
    }

    /// The value of weight `name`, if the evaluator has it.
    pub fn get(&self, name: &str) -> Option<i32> {
        self.names().position(|n| n == name).map(|i| self.values[i])
    }

    /// Sets weight `name`; the error lists the evaluator's weights.
    pub fn set(&mut self, name: &str, value: i32) -> Result<(), UnknownWeight> {
        let index = self.names().position(|n| n == name);
        match index {
            Some(i) => {
                self.values[i] = value;
                Ok(())
            }
            None => Err(UnknownWeight {
                evaluator: self.kind.name(),
                name: name.to_string(),
                weights: self.list_names(),
            }),
        }
    }

    /// The weight names as `w.a, w.b`, or `none`.
    pub fn list_names(&self) -> String {
        let names: Vec<String> = self.names().map(|n| format!("w.{n}")).collect();
        if names.is_empty() {
            "none".into()
        } else {
            names.join(", ")
        }
    }

    /// The weights as spec parameters: `eval=windows,w.four=1000,...`.
    pub fn to_params(&self) -> String {
        let mut s = format!("eval={}", self.kind.name());
        for (n, v) in self.names().zip(&self.values) {
            s.push_str(&format!(",w.{n}={v}"));
        }
        s
    }

    /// Reads a weights file.
    pub fn load(path: &Path) -> Result<Weights, WeightsError> {
        let invalid = |why: String| WeightsError::Invalid {
            path: path.to_path_buf(),
            why,
        };
        let text = std::fs::read_to_string(path).map_err(|error| WeightsError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        let file: File = serde_json::from_str(&text).map_err(|e| invalid(e.to_string()))?;
        crate::agents::file_header::check_header(&file.format, file.version, FORMAT, VERSION)
            .map_err(|e| invalid(e.to_string()))?;
        let mut w = Weights::defaults(file.eval);
        for (name, value) in &file.weights {
            w.set(name, *value).map_err(|e| invalid(e.to_string()))?;
        }
        Ok(w)
    }

    /// The weights file's text.
    pub fn to_json(&self) -> String {
        let file = File {
            format: FORMAT.into(),
            version: VERSION,
            eval: self.kind,
            weights: self
                .names()
                .zip(&self.values)
                .map(|(n, &v)| (n.to_string(), v))
                .collect(),
        };
        serde_json::to_string_pretty(&file).expect("weights serialise") + "\n"
    }

    /// Writes a weights file (through a temporary file).
    pub fn save(&self, path: &Path) -> Result<(), WeightsError> {
        crate::atomic_file::write(path, self.to_json()).map_err(|error| WeightsError::Io {
            path: path.to_path_buf(),
            error,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_round_trip_and_bad_files_say_why() {
        let dir = std::env::temp_dir().join(format!("c4-weights-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("w.json");
        let mut w = Weights::defaults(EvalKind::Local);
        w.set("open_end", 7).unwrap();
        w.save(&path).unwrap();
        assert_eq!(Weights::load(&path).unwrap(), w);

        let cases = [
            ("{", "EOF"),
            (
                r#"{"format":"x","version":1,"eval":"local","weights":{}}"#,
                "format is 'x'",
            ),
            (
                r#"{"format":"connect4-weights","version":9,"eval":"local","weights":{}}"#,
                "version 9",
            ),
            (
                r#"{"format":"connect4-weights","version":1,"eval":"local","weights":{"four":1}}"#,
                "no weight 'four'; weights: w.line, w.open_end, w.centre_four",
            ),
            (
                r#"{"format":"connect4-weights","version":1,"eval":"local","weights":{"line":1.5}}"#,
                "1.5",
            ),
        ];
        for (text, why) in cases {
            std::fs::write(&path, text).unwrap();
            let e = Weights::load(&path).unwrap_err().to_string();
            assert!(e.contains("w.json") && e.contains(why), "{text}: {e}");
        }
        let e = Weights::load(&dir.join("missing.json")).unwrap_err();
        assert!(e.to_string().contains("missing.json"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
