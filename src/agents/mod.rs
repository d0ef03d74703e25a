//! The players of the course reports, each behind one [`Agent`] trait and
//! named by a spec string such as `alphabeta:depth=6,eval=windows`.
//!
//! - `solver`: the default, the exact solver with its clocked search
//!   ([`crate::search::Searcher`]); it lives in the engine itself.
//! - `random`: a uniformly random legal column (`seed`).
//! - `greedy`: win at once, else block, else avoid handing over a win,
//!   else centre first.
//! - `minimax`: depth-limited minimax without pruning over an evaluator
//!   ([`evaluators`]: `windows`, `local`, `features`, `random`).
//! - `alphabeta`: the same with alpha-beta pruning: same value and move,
//!   fewer nodes.
//! - `expectimax`: maximises against a uniformly random opponent model.
//! - `mcts`: Monte Carlo tree search with UCB1 and random rollouts.
//! - `qlearning`: a tabular Q-learning player (trained by
//!   [`crate::lab::train`]).
//!
//! Names, one meaning each: [`crate::search::Solver`] is the exact prover
//! and [`crate::search::Searcher`] the clocked search built on it; the
//! agent a spec calls `solver` (the name users type) is the Searcher as a
//! player, [`searcher::SearcherAgent`] when a tool runs it in process and
//! [`SessionPlayer::Searcher`] in a protocol session, where the engine's
//! own Searcher answers. A spec is parsed once into a [`Spec`]; a
//! [`SessionPlayer`] is who answers `go`; [`from_spec`] builds an agent.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use thiserror::Error;

use crate::position::Position;
use crate::rules::Rules;
use crate::search::Limits;

pub mod evaluators;
pub(crate) mod expectimax;
mod file_header;
pub(crate) mod greedy;
pub mod levels;
pub mod mcts;
pub(crate) mod minimax;
pub mod qlearning;
pub(crate) mod random;
pub mod searcher;

pub use evaluators::Evaluator;
pub use levels::{LEVELS, agent_spec};

/// What an agent answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentMove {
    /// The column, 0-based; always legal.
    pub column: u32,
    /// The value the agent found, in its evaluator's units, if it has one.
    pub value: Option<i32>,
    /// Nodes visited (positions evaluated or expanded).
    pub nodes: u64,
    /// Depth searched, in plies (0 for agents that do not search).
    pub depth: u32,
}

impl AgentMove {
    /// A move chosen without a search: no value, no nodes, depth 0.
    pub fn unsearched(column: u32) -> AgentMove {
        AgentMove {
            column,
            value: None,
            nodes: 0,
            depth: 0,
        }
    }
}

/// The move the tactics force, which every agent that looks ahead plays
/// without thinking: a win at once (the centre-most), else the only move
/// that does not hand the opponent a win at once.
pub fn forced_move(p: &Position) -> Option<u32> {
    let wins = p.winning_moves();
    if wins != 0 {
        return Some(centre_most(p, wins));
    }
    let safe = p.non_losing_moves();
    (safe.count_ones() == 1).then(|| centre_most(p, safe))
}

/// A player: given a position that is not over, limits and a stop flag,
/// returns a legal move.
pub trait Agent: Send {
    /// The spec that builds this agent again.
    fn spec(&self) -> String;
    /// Chooses a move in `p` (which is not over).
    fn choose(&mut self, p: &Position, limits: &Limits, stop: Option<Arc<AtomicBool>>)
    -> AgentMove;
    /// A new game starts: forget per-game state, and reseed from `seed`
    /// (mixed with the agent's own seed) if given.
    fn new_game(&mut self, seed: Option<u64>) {
        let _ = seed;
    }
    /// Whether the agent can play on `rules`; the error says why not (a
    /// learned model made for another board).
    fn check_rules(&self, rules: Rules) -> Result<(), AgentError> {
        let _ = rules;
        Ok(())
    }
}

/// A spec that names no agent or a bad parameter.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum AgentError {
    /// No such agent.
    #[error("unknown agent '{0}'; agents: {list}", list = name_list())]
    Unknown(String),
    /// No such parameter for this agent.
    #[error("agent '{agent}': unknown parameter '{param}'; parameters: {allowed}")]
    UnknownParam {
        /// The agent.
        agent: String,
        /// The parameter given.
        param: String,
        /// The parameters it takes.
        allowed: String,
    },
    /// A parameter value that does not parse or is out of range.
    #[error("agent '{agent}': {param}={value}: {why}")]
    BadValue {
        /// The agent.
        agent: String,
        /// The parameter.
        param: String,
        /// The value given.
        value: String,
        /// What is expected.
        why: String,
    },
    /// A learned model made for another board than the game's.
    #[error("agent '{agent}': the model was trained on {trained}, this game is on {game}")]
    OtherBoard {
        /// The agent's spec.
        agent: String,
        /// The model's board.
        trained: Rules,
        /// The game's board.
        game: Rules,
    },
}

/// A parsed spec: the agent's name and its `key=value` parameters in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    /// The agent's name.
    pub name: String,
    /// Its parameters.
    pub params: Vec<(String, String)>,
}

impl std::fmt::Display for Spec {
    /// The spec as text: `name` or `name:key=value,...`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)?;
        for (i, (k, v)) in self.params.iter().enumerate() {
            write!(f, "{}{k}={v}", if i == 0 { ":" } else { "," })?;
        }
        Ok(())
    }
}

impl Spec {
    /// Parses `name` or `name:key=value,key=value`.
    pub fn parse(text: &str) -> Result<Spec, AgentError> {
        let text = text.trim();
        let (name, rest) = text.split_once(':').unwrap_or((text, ""));
        let mut params = Vec::new();
        for part in rest.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(|| AgentError::BadValue {
                agent: name.to_string(),
                param: part.to_string(),
                value: String::new(),
                why: "expected key=value".into(),
            })?;
            params.push((k.trim().to_string(), v.trim().to_string()));
        }
        Ok(Spec {
            name: name.to_string(),
            params,
        })
    }

    /// Checks that every parameter is one of `allowed` (a `w.` prefix stands
    /// for any weight name).
    pub fn check(&self, allowed: &[&str]) -> Result<(), AgentError> {
        for (k, _) in &self.params {
            let ok = allowed
                .iter()
                .any(|a| a == k || (*a == "w.NAME" && k.starts_with("w.")));
            if !ok {
                return Err(AgentError::UnknownParam {
                    agent: self.name.clone(),
                    param: k.clone(),
                    allowed: if allowed.is_empty() {
                        "none (this agent takes no parameters)".into()
                    } else {
                        allowed.join(", ")
                    },
                });
            }
        }
        Ok(())
    }

    /// The text of parameter `key` (the last one if given twice).
    pub fn value(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The value of parameter `key`, parsed, or `default`.
    pub fn get<T: std::str::FromStr>(
        &self,
        key: &str,
        default: T,
        why: &str,
    ) -> Result<T, AgentError> {
        match self.params.iter().rev().find(|(k, _)| k == key) {
            None => Ok(default),
            Some((_, v)) => v.parse().map_err(|_| AgentError::BadValue {
                agent: self.name.clone(),
                param: key.to_string(),
                value: v.clone(),
                why: why.to_string(),
            }),
        }
    }
}

/// Checks the parameters of a depth-limited searcher (`depth` and the
/// evaluator's) and returns its depth, `default` if not given.
pub(crate) fn search_params(spec: &Spec, default: u32) -> Result<u32, AgentError> {
    let mut allowed = vec!["depth"];
    allowed.extend_from_slice(Evaluator::PARAMS);
    spec.check(&allowed)?;
    let why = "expected a depth from 1 to 42";
    let depth: u32 = spec.get("depth", default, why)?;
    if !(1..=42).contains(&depth) {
        return Err(AgentError::BadValue {
            agent: spec.name.clone(),
            param: "depth".into(),
            value: depth.to_string(),
            why: why.into(),
        });
    }
    Ok(depth)
}

/// Deepens one ply at a time up to `depth`, calling `search(d)` for the
/// (column, value) at depth `d` until it returns `None` (the budget ran
/// out); answers with the last completed depth, or the first legal column
/// centre first if none completed. The caller fills in `nodes`.
pub(crate) fn deepen(
    p: &Position,
    depth: u32,
    mut search: impl FnMut(u32) -> Option<(u32, i32)>,
) -> AgentMove {
    let mut last = None;
    for d in 1..=depth.max(1) {
        match search(d) {
            Some((c, v)) => last = Some((c, v, d)),
            None => break,
        }
    }
    let nodes = 0;
    match last {
        Some((column, value, depth)) => AgentMove {
            column,
            value: Some(value),
            nodes,
            depth,
        },
        None => AgentMove::unsearched(centre_most(p, p.possible())),
    }
}

/// An agent's value (in its evaluator's units, up to its win value) mapped
/// into the protocol's heuristic range `-99..=99`: monotone, sign kept, 0
/// stays 0, a won or lost search ends at +-99.
pub fn scaled_value(raw: i32) -> i32 {
    let x = f64::from(raw);
    (99.0 * x / (x.abs() + 100.0)).round() as i32
}

/// The column of `pool` (a set of playable cells) nearest the centre, the
/// left one first among equals.
pub(crate) fn centre_most(p: &Position, pool: u64) -> u32 {
    crate::search::order::centre_first(p.columns())
        .into_iter()
        .find(|&c| pool & p.column_mask(c) != 0)
        .expect("the pool holds a playable cell")
}

/// One agent of the registry: its name, its parameters as help text, and
/// how to build it from a parsed spec.
struct Registered {
    name: &'static str,
    params: &'static str,
    make: fn(&Spec) -> Result<Box<dyn Agent>, AgentError>,
}

/// Every agent, in the order listings show them.
const REGISTRY: &[Registered] = &[
    Registered {
        name: "solver",
        params: "movetime=MS,depth=N,nodes=N",
        make: |s| Ok(Box::new(searcher::SearcherAgent::from_spec(s)?)),
    },
    Registered {
        name: "random",
        params: "seed=N",
        make: |s| Ok(Box::new(random::RandomAgent::from_spec(s)?)),
    },
    Registered {
        name: "greedy",
        params: "",
        make: |s| {
            s.check(&[])?;
            Ok(Box::new(greedy::GreedyAgent))
        },
    },
    Registered {
        name: "minimax",
        params: "depth=N,eval=windows|local|features|random,weights=FILE,w.NAME=N,seed=N",
        make: |s| Ok(Box::new(minimax::MinimaxAgent::from_spec(s, false)?)),
    },
    Registered {
        name: "alphabeta",
        params: "depth=N,eval=windows|local|features|random,weights=FILE,w.NAME=N,seed=N",
        make: |s| Ok(Box::new(minimax::MinimaxAgent::from_spec(s, true)?)),
    },
    Registered {
        name: "expectimax",
        params: "depth=N,eval=windows|local|features|random,weights=FILE,w.NAME=N,seed=N",
        make: |s| Ok(Box::new(expectimax::ExpectimaxAgent::from_spec(s)?)),
    },
    Registered {
        name: "mcts",
        params: "simulations=N,c=X,rollout=uniform|centre,reuse=true|false,seed=N",
        make: |s| Ok(Box::new(mcts::MctsAgent::from_spec(s)?)),
    },
    Registered {
        name: "qlearning",
        params: "model=FILE",
        make: |s| Ok(Box::new(qlearning::QAgent::from_spec(s)?)),
    },
];

/// The agents' names, in listing order.
pub fn names() -> impl Iterator<Item = &'static str> {
    REGISTRY.iter().map(|r| r.name)
}

/// Every agent with its parameters, one `name[:params]` per line.
pub fn describe() -> String {
    REGISTRY
        .iter()
        .map(|r| {
            if r.params.is_empty() {
                r.name.to_string()
            } else {
                format!("{}[:{}]", r.name, r.params)
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The names joined for error messages.
fn name_list() -> String {
    names().collect::<Vec<_>>().join(", ")
}

/// Who answers `go` in a protocol session.
pub enum SessionPlayer {
    /// The engine's own clocked search, under these limits where a `go`
    /// sets none of that kind (`solver:movetime=100`).
    Searcher(Limits),
    /// Another agent.
    Agent(Box<dyn Agent>),
}

/// The player a spec names for a protocol session: every `solver` spec is
/// the engine's own searcher, any other an agent ([`from_spec`]).
pub fn session_player(text: &str) -> Result<SessionPlayer, AgentError> {
    let spec = Spec::parse(text)?;
    if spec.name == "solver" {
        return Ok(SessionPlayer::Searcher(searcher::own_limits(&spec)?));
    }
    from_spec(text).map(SessionPlayer::Agent)
}

/// The agent a spec names, the solver included, for the tools that run
/// agents in process.
pub fn from_spec(text: &str) -> Result<Box<dyn Agent>, AgentError> {
    let spec = Spec::parse(text)?;
    let registered = REGISTRY
        .iter()
        .find(|r| r.name == spec.name)
        .ok_or_else(|| AgentError::Unknown(spec.name.clone()))?;
    (registered.make)(&spec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_errors_list_what_is_allowed() {
        assert!(
            matches!(session_player("solver"), Ok(SessionPlayer::Searcher(l)) if l == Limits::none())
        );
        assert!(matches!(
            session_player("solver:movetime=100"),
            Ok(SessionPlayer::Searcher(l)) if l.time == Some(std::time::Duration::from_millis(100))
        ));
        let Ok(SessionPlayer::Agent(a)) = session_player("alphabeta:depth=3,eval=windows") else {
            panic!("alphabeta is an agent");
        };
        assert_eq!(a.spec(), "alphabeta:depth=3,eval=windows");
        let e = session_player("oracle").err().unwrap().to_string();
        assert!(
            e.contains(
                "agents: solver, random, greedy, minimax, alphabeta, expectimax, mcts, qlearning"
            ),
            "{e}"
        );
        let e = session_player("minimax:depht=3").err().unwrap().to_string();
        assert!(
            e.contains("unknown parameter 'depht'") && e.contains("depth"),
            "{e}"
        );
        let e = session_player("greedy:foo=1").err().unwrap().to_string();
        assert!(e.contains("takes no parameters"), "{e}");
        let e = session_player("alphabeta:depth=-1")
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("depth=-1"), "{e}");
        assert_eq!(
            [-999_999, -5, 0, 5, 100, 999_999].map(scaled_value),
            [-99, -5, 0, 5, 50, 99]
        );
        let e = session_player("alphabeta:eval=magic")
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("eval=magic"), "{e}");
    }
}
