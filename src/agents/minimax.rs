//! `minimax` and `alphabeta`: depth-limited negamax over an evaluator, the
//! classic course agents.
//!
//! Both search the columns centre first and keep the first strictly better
//! move, so they return the same value and move at the same depth and
//! evaluator; `alphabeta` prunes and visits fewer nodes. A win is worth
//! [`WIN`] minus its distance in plies (faster wins are better), a full
//! board 0, and the horizon the evaluator's value. The search deepens one
//! ply at a time up to the depth, so that a node, time or stop limit still
//! leaves the last completed depth's move.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use super::{Agent, AgentError, AgentMove, Evaluator, Spec};
use crate::position::Position;
use crate::search::limits::{Budget, Limits};
use crate::search::order::centre_first;

/// The value of a win at once; a win `n` plies away is worth `WIN - n`.
pub const WIN: i32 = 1_000_000;
/// Beyond every value.
const INFINITY: i32 = i32::MAX / 2;

/// Depth-limited minimax, with or without alpha-beta pruning.
pub struct MinimaxAgent {
    prune: bool,
    depth: u32,
    spec: String,
    eval: Evaluator,
    budget: Budget,
}

impl MinimaxAgent {
    /// From a spec: `depth` (default 4), `eval`, `seed`, `w.*`.
    pub fn from_spec(spec: &Spec, prune: bool) -> Result<MinimaxAgent, AgentError> {
        let depth = super::search_params(spec, 4)?;
        Ok(MinimaxAgent {
            prune,
            depth,
            spec: spec.to_string(),
            eval: Evaluator::from_spec(spec)?,
            budget: Budget::unlimited(),
        })
    }

    /// The best column and value of `p` at exactly `depth`, or `None` if the
    /// budget ran out.
    pub fn search_depth(&mut self, p: &Position, depth: u32) -> Option<(u32, i32)> {
        let mut best = None;
        let mut alpha = -INFINITY;
        for c in centre_first(p.columns()) {
            if !p.can_play(c) {
                continue;
            }
            let v = self.child_value(p, c, depth, 0, alpha, INFINITY)?;
            if best.is_none_or(|(_, b)| v > b) {
                best = Some((c, v));
                if self.prune {
                    alpha = alpha.max(v);
                }
            }
        }
        best
    }

    /// The value for the side to move in `p` of playing `c`.
    fn child_value(
        &mut self,
        p: &Position,
        c: u32,
        depth: u32,
        ply: i32,
        alpha: i32,
        beta: i32,
    ) -> Option<i32> {
        if self.budget.tick() {
            return None;
        }
        let mut child = *p;
        child.play(c);
        Some(if child.last_move_won() {
            WIN - (ply + 1)
        } else if child.is_full() {
            0
        } else if depth <= 1 {
            -self.eval.evaluate(&child)
        } else {
            -self.negamax(&child, depth - 1, ply + 1, -beta, -alpha)?
        })
    }

    /// Fail-soft negamax: with pruning, `v <= alpha` is an upper bound and
    /// `v >= beta` a lower bound; without, the exact depth-limited value.
    fn negamax(
        &mut self,
        p: &Position,
        depth: u32,
        ply: i32,
        mut alpha: i32,
        beta: i32,
    ) -> Option<i32> {
        let mut best = -INFINITY;
        for c in centre_first(p.columns()) {
            if !p.can_play(c) {
                continue;
            }
            let (a, b) = if self.prune {
                (alpha, beta)
            } else {
                (-INFINITY, INFINITY)
            };
            let v = self.child_value(p, c, depth, ply, a, b)?;
            best = best.max(v);
            if self.prune {
                alpha = alpha.max(v);
                if alpha >= beta {
                    break;
                }
            }
        }
        Some(best)
    }
}

impl Agent for MinimaxAgent {
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
        let m = super::deepen(p, depth, |d| self.search_depth(p, d));
        AgentMove {
            nodes: self.budget.nodes(),
            ..m
        }
    }
}
