//! `random`: a uniformly random legal column, reproducible with `seed`.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::{Agent, AgentError, AgentMove, Spec};
use crate::position::Position;
use crate::search::Limits;

/// Plays a uniformly random legal column.
pub struct RandomAgent {
    seed: u64,
    rng: StdRng,
}

impl RandomAgent {
    /// An agent with the given seed.
    pub fn new(seed: u64) -> RandomAgent {
        RandomAgent {
            seed,
            rng: StdRng::seed_from_u64(seed),
        }
    }

    /// From a spec: `random[:seed=N]` (default seed 0).
    pub fn from_spec(spec: &Spec) -> Result<RandomAgent, AgentError> {
        spec.check(&["seed"])?;
        Ok(RandomAgent::new(spec.get(
            "seed",
            0,
            "expected an unsigned integer",
        )?))
    }
}

impl Agent for RandomAgent {
    fn spec(&self) -> String {
        format!("random:seed={}", self.seed)
    }

    fn new_game(&mut self, seed: Option<u64>) {
        if let Some(game) = seed {
            self.rng = StdRng::seed_from_u64(crate::openings::game_seed(self.seed, game));
        }
    }

    fn choose(&mut self, p: &Position, _: &Limits, _: Option<Arc<AtomicBool>>) -> AgentMove {
        let moves = p.legal_moves();
        AgentMove::unsearched(moves[self.rng.random_range(0..moves.len())])
    }
}
