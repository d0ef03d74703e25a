//! The Q-table and its versioned JSON file.
//!
//! ```json
//! {"format": "connect4-qlearning", "version": 1, "rules": "7x6x4",
//!  "hyperparameters": {"episodes": 12000, "opponent": "greedy",
//!                      "explore": "ucb:c=1.4", "gamma": 0.95, "alpha": 0.2,
//!                      "seed": 1},
//!  "states": 2, "table": {"2097153": [0.0, 0.1, ...], ...}}
//! ```
//!
//! A state is the position's key ([`crate::position::Position::key`]) or
//! its mirror image's, whichever is smaller, so a position and its mirror
//! share a row; a row holds one value per column in that canonical
//! orientation. Keys are written sorted, so the same training writes the
//! same file.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::position::Position;
use crate::rules::Rules;

/// The `format` field of a model file.
pub const FORMAT: &str = "connect4-qlearning";
/// The model file version this build reads and writes.
pub const VERSION: u32 = 1;

/// How a model was trained.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hyperparameters {
    /// Training games played.
    pub episodes: u64,
    /// The opponent's agent spec.
    pub opponent: String,
    /// The exploration rule, as given to the trainer.
    pub explore: String,
    /// Discount per move.
    pub gamma: f64,
    /// Learning rate.
    pub alpha: f64,
    /// The trainer's seed.
    pub seed: u64,
}

/// A model file that cannot be used.
#[derive(Debug, Error)]
pub enum ModelError {
    /// The file could not be read or written.
    #[error("model file {path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The file is not a valid model.
    #[error("model file {path}: {why}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong, quoting the bad value.
        why: String,
    },
}

/// The file as stored.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    format: String,
    version: u32,
    rules: String,
    hyperparameters: Hyperparameters,
    states: usize,
    table: BTreeMap<u64, Vec<f32>>,
}

/// A Q-table for one board size.
#[derive(Clone, Debug, PartialEq)]
pub struct QModel {
    /// The board it was trained on.
    pub rules: Rules,
    /// How it was trained.
    pub hyperparameters: Hyperparameters,
    table: HashMap<u64, Vec<f32>>,
}

/// A position's canonical state: its key or its mirror's, and whether the
/// mirror was taken (columns then read right to left).
pub fn state(p: &Position) -> (u64, bool) {
    let (key, mirror) = (p.key(), p.mirror_key());
    if mirror < key {
        (mirror, true)
    } else {
        (key, false)
    }
}

impl QModel {
    /// An empty table.
    pub fn new(rules: Rules, hyperparameters: Hyperparameters) -> QModel {
        QModel {
            rules,
            hyperparameters,
            table: HashMap::new(),
        }
    }

    /// States in the table.
    pub fn states(&self) -> usize {
        self.table.len()
    }

    /// The row of a canonical state, if seen.
    pub fn row(&self, state: u64) -> Option<&[f32]> {
        self.table.get(&state).map(Vec::as_slice)
    }

    /// The row of a canonical state, created with zeros if unseen.
    pub fn row_mut(&mut self, state: u64) -> &mut [f32] {
        let columns = self.rules.columns() as usize;
        self.table
            .entry(state)
            .or_insert_with(|| vec![0.0; columns])
    }

    /// Reads a model file, checking everything it holds.
    pub fn load(path: &Path) -> Result<QModel, ModelError> {
        let invalid = |why: String| ModelError::Invalid {
            path: path.to_path_buf(),
            why,
        };
        let text = std::fs::read_to_string(path).map_err(|error| ModelError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        let file: File =
            serde_json::from_str(&text).map_err(|e| invalid(format!("not a model file: {e}")))?;
        crate::agents::file_header::check_header(&file.format, file.version, FORMAT, VERSION)
            .map_err(|e| invalid(e.to_string()))?;
        let rules: Rules = file
            .rules
            .parse()
            .map_err(|e| invalid(format!("rules '{}': {e}", file.rules)))?;
        if file.states != file.table.len() {
            return Err(invalid(format!(
                "says {} states but holds {}: the file is truncated or edited",
                file.states,
                file.table.len()
            )));
        }
        for (key, row) in &file.table {
            if row.len() != rules.columns() as usize {
                return Err(invalid(format!(
                    "state {key} has {} values, the {rules} board has {} columns",
                    row.len(),
                    rules.columns()
                )));
            }
        }
        Ok(QModel {
            rules,
            hyperparameters: file.hyperparameters,
            table: file.table.into_iter().collect(),
        })
    }

    /// Writes the model to `path` through a temporary file, so a crash never
    /// leaves half a model under the name.
    pub fn save(&self, path: &Path) -> Result<(), ModelError> {
        let io = |error| ModelError::Io {
            path: path.to_path_buf(),
            error,
        };
        let file = File {
            format: FORMAT.into(),
            version: VERSION,
            rules: self.rules.to_string(),
            hyperparameters: self.hyperparameters.clone(),
            states: self.table.len(),
            table: self.table.iter().map(|(k, v)| (*k, v.clone())).collect(),
        };
        let text = serde_json::to_string(&file).expect("a model serialises") + "\n";
        crate::atomic_file::write(path, &text).map_err(io)
    }
}
