//! The agent named `solver`: the clocked [`Searcher`] (built on the exact
//! [`crate::search::Solver`]) as an in-process [`Agent`], for the tools
//! that run agents themselves (`train`, `tune`, `play`), and the limits a
//! `solver:movetime=100` spec gives it.
//!
//! A protocol session does not come through here: the engine runs its own
//! searcher (with the session's table size) under the spec's limits
//! ([`own_limits`]), so that `go` gets an `info` line per completed depth.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use super::{Agent, AgentError, AgentMove, Spec};
use crate::position::Position;
use crate::search::{DEFAULT_HASH_MB, Limits, Searcher};

/// The solver-backed search behind the agent trait.
pub struct SearcherAgent {
    spec: String,
    own: Limits,
    searcher: Searcher,
}

/// The limits a `solver` spec sets: `movetime` (ms), `depth`, `nodes`, each
/// optional; they apply when a search is given no limit of that kind.
pub fn own_limits(spec: &Spec) -> Result<Limits, AgentError> {
    spec.check(&["movetime", "depth", "nodes"])?;
    let why = "expected a positive integer";
    let positive = |key: &str| -> Result<Option<u64>, AgentError> {
        match spec.value(key) {
            None => Ok(None),
            Some(_) => match spec.get::<u64>(key, 0, why)? {
                0 => Err(AgentError::BadValue {
                    agent: spec.name.clone(),
                    param: key.into(),
                    value: "0".into(),
                    why: why.into(),
                }),
                n => Ok(Some(n)),
            },
        }
    };
    Ok(Limits {
        time: positive("movetime")?.map(Duration::from_millis),
        depth: positive("depth")?.map(|d| d.min(64) as u32),
        nodes: positive("nodes")?,
    })
}

impl SearcherAgent {
    /// From a spec (see [`own_limits`]), with a table of the default size.
    pub fn from_spec(spec: &Spec) -> Result<SearcherAgent, AgentError> {
        Ok(SearcherAgent {
            spec: spec.to_string(),
            own: own_limits(spec)?,
            searcher: Searcher::new(DEFAULT_HASH_MB),
        })
    }
}

impl Agent for SearcherAgent {
    fn spec(&self) -> String {
        self.spec.clone()
    }

    fn choose(
        &mut self,
        p: &Position,
        limits: &Limits,
        stop: Option<Arc<AtomicBool>>,
    ) -> AgentMove {
        let limits = limits.filled_from(&self.own);
        let r = self
            .searcher
            .search(p, &limits, stop, |_| {})
            .expect("the game is not over");
        AgentMove {
            column: r.best,
            value: Some(r.score.value),
            nodes: r.nodes,
            depth: r.depth,
        }
    }
}
