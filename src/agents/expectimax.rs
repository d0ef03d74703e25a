//! `expectimax`: the agent maximises; the opponent is a chance node that
//! plays each legal column with equal probability (the random-move model).
//!
//! Averages cannot be pruned the way alpha-beta prunes a minimum, so this
//! agent visits every node to its depth (about 7^depth): its reported node
//! count shows the cost. Values are in the evaluator's units, a win at
//! distance `n` being worth `WIN - n` as in [`super::minimax`].

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use super::minimax::WIN;
use super::{Agent, AgentError, AgentMove, Evaluator, Spec};
use crate::position::Position;
use crate::search::limits::{Budget, Limits};
use crate::search::order::centre_first;

/// Depth-limited expectimax against a uniformly random opponent.
pub struct ExpectimaxAgent {
    depth: u32,
    spec: String,
    eval: Evaluator,
    budget: Budget,
}

impl ExpectimaxAgent {
    /// From a spec: `depth` (default 3), `eval`, `seed`, `w.*`.
    pub fn from_spec(spec: &Spec) -> Result<ExpectimaxAgent, AgentError> {
        let depth = super::search_params(spec, 3)?;
        Ok(ExpectimaxAgent {
            depth,
            spec: spec.to_string(),
            eval: Evaluator::from_spec(spec)?,
            budget: Budget::unlimited(),
        })
    }

    /// The agent's value of `p` (its turn) to `depth` plies; `None` if the
    /// budget ran out. Also returns the best column.
    fn max_node(&mut self, p: &Position, depth: u32, ply: i32) -> Option<(f64, u32)> {
        let mut best: Option<(f64, u32)> = None;
        for c in centre_first(p.columns())
            .into_iter()
            .filter(|&c| p.can_play(c))
        {
            if self.budget.tick() {
                return None;
            }
            let mut child = *p;
            child.play(c);
            let v = if child.last_move_won() {
                f64::from(WIN - (ply + 1))
            } else if child.is_full() {
                0.0
            } else if depth <= 1 {
                -f64::from(self.eval.evaluate(&child))
            } else {
                self.chance_node(&child, depth - 1, ply + 1)?
            };
            if best.is_none_or(|(b, _)| v > b) {
                best = Some((v, c));
            }
        }
        best
    }

    /// The agent's expected value of `q` (the opponent's turn), averaging
    /// over the opponent's legal columns.
    fn chance_node(&mut self, q: &Position, depth: u32, ply: i32) -> Option<f64> {
        let moves = q.legal_moves();
        let mut total = 0.0;
        for &c in &moves {
            if self.budget.tick() {
                return None;
            }
            let mut child = *q;
            child.play(c);
            total += if child.last_move_won() {
                -f64::from(WIN - (ply + 1))
            } else if child.is_full() {
                0.0
            } else if depth <= 1 {
                f64::from(self.eval.evaluate(&child))
            } else {
                self.max_node(&child, depth - 1, ply + 1)?.0
            };
        }
        Some(total / moves.len() as f64)
    }
}

impl Agent for ExpectimaxAgent {
    fn spec(&self) -> String {
        self.spec.clone()
    }

    fn new_game(&mut self, seed: Option<u64>) {
        self.eval.new_game(seed);
    }

    fn choose(
        &mut self,
        p: &Position,
        limits: &Limits,
        stop: Option<Arc<AtomicBool>>,
    ) -> AgentMove {
        self.budget = Budget::new(limits, Instant::now(), stop);
        let depth = limits.depth.unwrap_or(self.depth);
        let m = super::deepen(p, depth, |d| {
            self.max_node(p, d, 0).map(|(v, c)| (c, v.round() as i32))
        });
        AgentMove {
            nodes: self.budget.nodes(),
            ..m
        }
    }
}
