//! `solver` as an in-process [`Agent`], for the tools that run agents
//! themselves (`train`, `tune`, `play`) and for a solver with its own
//! limits in a protocol session (`solver:movetime=100`).
//!
//! The plain `solver` of a protocol session does not come through here:
//! the engine runs its searcher directly, so that `go` gets an `info` line
//! per completed depth.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use super::{Agent, AgentError, AgentMove, Spec};
use crate::position::Position;
use crate::search::{Limits, Searcher};

/// Table size of an in-process solver, in MiB.
const HASH_MB: usize = 64;

/// The solver-backed search behind the agent trait.
pub struct SolverAgent {
    spec: String,
    own: Limits,
    searcher: Searcher,
}

impl SolverAgent {
    /// From a spec: `movetime` (ms), `depth`, `nodes`, each optional; they
    /// apply when the caller gives no limit of that kind.
    pub fn from_spec(spec: &Spec) -> Result<SolverAgent, AgentError> {
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
        Ok(SolverAgent {
            spec: spec.to_string(),
            own: Limits {
                time: positive("movetime")?.map(Duration::from_millis),
                depth: positive("depth")?.map(|d| d.min(64) as u32),
                nodes: positive("nodes")?,
            },
            searcher: Searcher::new(HASH_MB),
        })
    }
}

impl Agent for SolverAgent {
    fn spec(&self) -> String {
        self.spec.clone()
    }

    fn choose(
        &mut self,
        p: &Position,
        limits: &Limits,
        stop: Option<Arc<AtomicBool>>,
    ) -> AgentMove {
        let limits = Limits {
            depth: limits.depth.or(self.own.depth),
            nodes: limits.nodes.or(self.own.nodes),
            time: limits.time.or(self.own.time),
        };
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
