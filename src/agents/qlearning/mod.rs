//! `qlearning`: a tabular Q-learning player and its trainer.
//!
//! The player (`qlearning:model=q.json`) wins at once when it can, blocks
//! the opponent's immediate win, and otherwise plays the legal column with
//! the highest learned value in its table ([`model`]); in a state it never
//! saw it falls back to the column nearest the centre. A missing, corrupt
//! or other-board model is an error when the agent is built (or, for the
//! board, when a game on another board asks it to move), never an empty
//! table. [`crate::lab::train`] learns the table by playing against any
//! agent.

pub mod model;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

pub use self::model::{ModelError, QModel};
use super::{Agent, AgentError, AgentMove, Spec};
use crate::position::Position;
use crate::rules::Rules;
use crate::search::Limits;

/// The learned player.
pub struct QAgent {
    spec: String,
    model: QModel,
}

/// The column the table prefers among `legal` (one bit per column, in the
/// position's own orientation), with its value; `None` if the state is
/// unseen. Ties go to the column nearest the centre.
pub fn best_action(model: &QModel, p: &Position, legal: u64) -> Option<(u32, f32)> {
    let (state, mirrored) = model::state(p);
    let row = model.row(state)?;
    let cols = p.columns();
    let mut best: Option<(u32, f32)> = None;
    for c in crate::search::order::centre_first(cols) {
        if legal >> c & 1 == 0 {
            continue;
        }
        let v = row[if mirrored { cols - 1 - c } else { c } as usize];
        if best.is_none_or(|(_, b)| v > b) {
            best = Some((c, v));
        }
    }
    best
}

/// The columns of a set of cells, one bit per column.
pub fn columns_of(p: &Position, cells: u64) -> u64 {
    (0..p.columns())
        .filter(|&c| cells & p.column_mask(c) != 0)
        .fold(0, |m, c| m | 1 << c)
}

impl QAgent {
    /// From a spec: `model=FILE` (required).
    pub fn from_spec(spec: &Spec) -> Result<QAgent, AgentError> {
        spec.check(&["model"])?;
        let Some(path) = spec.value("model") else {
            return Err(AgentError::BadValue {
                agent: spec.name.clone(),
                param: "model".into(),
                value: String::new(),
                why: "a model file is required, as in qlearning:model=q.json \
                      (train one with `connect4 train qlearning`)"
                    .into(),
            });
        };
        let model = QModel::load(Path::new(path)).map_err(|e| AgentError::BadValue {
            agent: spec.name.clone(),
            param: "model".into(),
            value: path.into(),
            why: e.to_string(),
        })?;
        Ok(QAgent {
            spec: spec.to_string(),
            model,
        })
    }

    /// The loaded model.
    pub fn model(&self) -> &QModel {
        &self.model
    }
}

impl Agent for QAgent {
    fn spec(&self) -> String {
        self.spec.clone()
    }

    fn choose(&mut self, p: &Position, _: &Limits, _: Option<Arc<AtomicBool>>) -> AgentMove {
        if let Some(c) = super::forced_move(p) {
            return AgentMove::unsearched(c);
        }
        if p.rules() == self.model.rules {
            let legal = columns_of(p, p.possible());
            if let Some((c, v)) = best_action(&self.model, p, legal) {
                return AgentMove {
                    value: Some((v * 100.0).round() as i32),
                    ..AgentMove::unsearched(c)
                };
            }
        }
        AgentMove::unsearched(super::centre_most(p, p.possible()))
    }

    fn check_rules(&self, rules: Rules) -> Result<(), AgentError> {
        if rules == self.model.rules {
            Ok(())
        } else {
            Err(AgentError::OtherBoard {
                agent: self.spec.clone(),
                trained: self.model.rules,
                game: rules,
            })
        }
    }
}
