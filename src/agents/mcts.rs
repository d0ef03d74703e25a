//! `mcts`: Monte Carlo tree search with UCB1.
//!
//! Each simulation (1) selects, from the root, the child maximising the
//! UCB1 bound `q + c * sqrt(ln N / n)` (`q` its mean reward for the player
//! who moved into it, `n` its visits, `N` its parent's) until it reaches a
//! node with an untried move or the end of the game; (2) expands one
//! untried move, chosen at random; (3) plays the game out with random moves,
//! uniform or weighted towards the centre (`rollout=centre`: weight
//! `columns/2 + 1 - distance to the centre`); (4) backs the result up the
//! path: 1 for a win, 1/2 for a draw, 0 for a loss, each node scored for the
//! player who moved into it. The move is the most visited root child.
//!
//! As the report's agent did, it wins at once when it can and blocks an
//! immediate threat without searching; the root only considers moves that
//! do not hand the opponent an immediate win (when one exists).
//!
//! Parameters: `simulations` (default 2000; a `go` node limit overrides
//! it), `c` (1.4), `rollout` (`uniform` or `centre`), `seed`, `reuse`
//! (`true`: keep the subtree of the position reached two plies later, so
//! the visits spent on the expected reply are not thrown away). A `go` time
//! limit or stop ends the search early. Cost: one rollout per simulation,
//! about 20 random moves on an empty board; with a simulation budget and a
//! seed the agent is reproducible, with a time budget it is not.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::{Agent, AgentError, AgentMove, Spec};
use crate::position::Position;
use crate::search::limits::{Budget, Limits};

/// Nodes kept at most between moves; a bigger tree is dropped.
const MAX_TREE_NODES: usize = 2_000_000;

/// How rollouts choose their moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rollout {
    /// Every legal column alike.
    Uniform,
    /// Columns near the centre more often.
    Centre,
}

/// One node of the tree.
struct Node {
    pos: Position,
    children: Vec<u32>,
    /// Columns not expanded yet, one bit per column.
    untried: u64,
    visits: u32,
    /// Sum of the rewards of the player who moved into this node.
    reward: f64,
}

/// Monte Carlo tree search with UCB1.
pub struct MctsAgent {
    spec: String,
    seed: u64,
    simulations: u64,
    c: f64,
    rollout: Rollout,
    reuse: bool,
    rng: StdRng,
    nodes: Vec<Node>,
    root: Option<u32>,
}

impl MctsAgent {
    /// From a spec: `simulations`, `c`, `rollout`, `seed`, `reuse`.
    pub fn from_spec(spec: &Spec) -> Result<MctsAgent, AgentError> {
        spec.check(&["simulations", "c", "rollout", "seed", "reuse"])?;
        let bad = |param: &str, value: String, why: &str| AgentError::BadValue {
            agent: spec.name.clone(),
            param: param.into(),
            value,
            why: why.into(),
        };
        let simulations: u64 = spec.get("simulations", 2000, "expected a positive integer")?;
        if simulations == 0 {
            return Err(bad(
                "simulations",
                "0".into(),
                "expected a positive integer",
            ));
        }
        let c: f64 = spec.get("c", 1.4, "expected a number")?;
        if !(c.is_finite() && c >= 0.0) {
            return Err(bad("c", c.to_string(), "expected a number >= 0"));
        }
        let rollout = match spec.value("rollout").unwrap_or("uniform") {
            "uniform" => Rollout::Uniform,
            "centre" | "center" => Rollout::Centre,
            other => return Err(bad("rollout", other.into(), "expected uniform or centre")),
        };
        let seed = spec.get("seed", 0, "expected an unsigned integer")?;
        Ok(MctsAgent {
            spec: spec.to_string(),
            seed,
            simulations,
            c,
            rollout,
            reuse: spec.get("reuse", true, "expected true or false")?,
            rng: StdRng::seed_from_u64(seed),
            nodes: Vec::new(),
            root: None,
        })
    }

    /// Visits of the root of the kept tree (0 without one): after a move
    /// that reused a subtree, more than the simulations of that move.
    pub fn root_visits(&self) -> u32 {
        self.root.map_or(0, |r| self.nodes[r as usize].visits)
    }

    /// Adds a node for `pos` with the given columns to try.
    fn add(&mut self, pos: Position, untried: u64) -> u32 {
        self.nodes.push(Node {
            pos,
            children: Vec::new(),
            untried,
            visits: 0,
            reward: 0.0,
        });
        (self.nodes.len() - 1) as u32
    }

    /// The columns of `pos` as a bit set.
    fn legal_set(pos: &Position) -> u64 {
        if pos.is_over() {
            return 0;
        }
        (0..pos.columns())
            .filter(|&c| pos.can_play(c))
            .fold(0, |m, c| m | 1 << c)
    }

    /// The node of `p` in the kept tree (the root, a child or a grandchild),
    /// or a fresh tree.
    fn root_for(&mut self, p: &Position) -> u32 {
        if self.reuse
            && self.nodes.len() < MAX_TREE_NODES
            && let Some(root) = self.root
        {
            let mut candidates = vec![root];
            for &child in &self.nodes[root as usize].children {
                candidates.push(child);
                candidates.extend(&self.nodes[child as usize].children);
            }
            if let Some(&found) = candidates
                .iter()
                .find(|&&n| self.nodes[n as usize].pos == *p)
            {
                return found;
            }
        }
        self.nodes.clear();
        let safe = p.non_losing_moves();
        let untried = if safe == 0 {
            Self::legal_set(p)
        } else {
            (0..p.columns())
                .filter(|&c| safe & p.column_mask(c) != 0)
                .fold(0, |m, c| m | 1 << c)
        };
        self.add(*p, untried)
    }

    /// The child of `node` with the best UCB1 bound.
    fn select(&self, node: u32) -> u32 {
        let n = &self.nodes[node as usize];
        let log_n = f64::from(n.visits.max(1)).ln();
        let mut best = (f64::NEG_INFINITY, n.children[0]);
        for &child in &n.children {
            let ch = &self.nodes[child as usize];
            let visits = f64::from(ch.visits.max(1));
            let ucb = ch.reward / visits + self.c * (log_n / visits).sqrt();
            if ucb > best.0 {
                best = (ucb, child);
            }
        }
        best.1
    }

    /// Plays `pos` out at random; returns the reward of the player who
    /// moved into `pos` (1 win, 1/2 draw, 0 loss).
    fn playout(&mut self, pos: &Position) -> f64 {
        if pos.last_move_won() {
            return 1.0;
        }
        let mut q = *pos;
        let mut plies = 0u32;
        loop {
            if q.is_full() {
                return 0.5;
            }
            let moves = q.legal_moves();
            let c = match self.rollout {
                Rollout::Uniform => moves[self.rng.random_range(0..moves.len())],
                Rollout::Centre => {
                    let centre = q.columns() as i32 / 2;
                    let weight = |c: u32| (centre + 1 - (c as i32 - centre).abs()).max(1) as u32;
                    let total: u32 = moves.iter().map(|&c| weight(c)).sum();
                    let mut pick = self.rng.random_range(0..total);
                    *moves
                        .iter()
                        .find(|&&c| {
                            let w = weight(c);
                            if pick < w {
                                true
                            } else {
                                pick -= w;
                                false
                            }
                        })
                        .expect("the pick is below the total")
                }
            };
            q.play(c);
            plies += 1;
            if q.last_move_won() {
                // Odd plies: the opponent of the mover into `pos` won.
                return if plies % 2 == 1 { 0.0 } else { 1.0 };
            }
        }
    }

    /// One simulation from `root`; returns the depth of the leaf.
    fn simulate(&mut self, root: u32, path: &mut Vec<u32>) -> u32 {
        path.clear();
        path.push(root);
        let mut node = root;
        loop {
            let n = &self.nodes[node as usize];
            if n.pos.is_over() {
                break;
            }
            if n.untried != 0 {
                let bits: Vec<u32> = (0..64).filter(|&c| n.untried >> c & 1 == 1).collect();
                let c = bits[self.rng.random_range(0..bits.len())];
                let mut pos = n.pos;
                pos.play(c);
                let child = self.add(pos, Self::legal_set(&pos));
                let n = &mut self.nodes[node as usize];
                n.untried &= !(1 << c);
                n.children.push(child);
                path.push(child);
                node = child;
                break;
            }
            node = self.select(node);
            path.push(node);
        }
        let leaf = self.nodes[node as usize].pos;
        // The reward of the player who moved into the leaf; it alternates
        // going up.
        let mut reward = self.playout(&leaf);
        for &n in path.iter().rev() {
            let node = &mut self.nodes[n as usize];
            node.visits += 1;
            node.reward += reward;
            reward = 1.0 - reward;
        }
        path.len() as u32 - 1
    }
}

impl Agent for MctsAgent {
    fn spec(&self) -> String {
        self.spec.clone()
    }

    fn new_game(&mut self, seed: Option<u64>) {
        self.nodes.clear();
        self.root = None;
        if let Some(game) = seed {
            self.rng = StdRng::seed_from_u64(crate::openings::game_seed(self.seed, game));
        }
    }

    fn choose(
        &mut self,
        p: &Position,
        limits: &Limits,
        stop: Option<Arc<AtomicBool>>,
    ) -> AgentMove {
        if let Some(c) = super::forced_move(p) {
            return AgentMove::unsearched(c);
        }
        let safe = p.non_losing_moves();
        let root = self.root_for(p);
        self.root = Some(root);
        let simulations = limits.nodes.unwrap_or(self.simulations).max(1);
        let budget_limits = Limits {
            nodes: None,
            ..limits.clone()
        };
        let mut budget = Budget::new(&budget_limits, Instant::now(), stop);
        let (mut done, mut depth) = (0u64, 0u32);
        let mut path = Vec::new();
        while done < simulations && !budget.check_now() {
            depth = depth.max(self.simulate(root, &mut path));
            done += 1;
        }
        let children = &self.nodes[root as usize].children;
        if children.is_empty() {
            // Stopped before the first simulation: a safe move, centre first.
            let pool = if safe != 0 { safe } else { p.possible() };
            return AgentMove::unsearched(super::centre_most(p, pool));
        }
        let &best = children
            .iter()
            .max_by_key(|&&c| self.nodes[c as usize].visits)
            .expect("not empty");
        let b = &self.nodes[best as usize];
        let mean = b.reward / f64::from(b.visits.max(1));
        let column = (0..p.columns())
            .find(|&c| {
                let mut q = *p;
                p.can_play(c) && {
                    q.play(c);
                    q == b.pos
                }
            })
            .expect("a root child is one move away");
        AgentMove {
            column,
            value: Some(((2.0 * mean - 1.0) * 100.0).round() as i32),
            nodes: done,
            depth,
        }
    }
}
