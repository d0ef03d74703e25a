//! `greedy`: the tactical baseline. Win at once if it can, block the
//! opponent's immediate win, avoid moves that hand the opponent a win,
//! otherwise prefer the centre, then adjacent, then outer columns.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::{Agent, AgentMove};
use crate::position::Position;
use crate::search::Limits;

/// The tactical baseline player.
pub struct GreedyAgent;

impl Agent for GreedyAgent {
    fn spec(&self) -> String {
        "greedy".into()
    }

    fn choose(&mut self, p: &Position, _: &Limits, _: Option<Arc<AtomicBool>>) -> AgentMove {
        let wins = p.winning_moves();
        // non_losing_moves already reduces to the block when there is one threat.
        let safe = p.non_losing_moves();
        let pool = [wins, safe, p.possible()]
            .into_iter()
            .find(|&m| m != 0)
            .expect("the game is not over");
        let column = super::centre_most(p, pool);
        AgentMove::unsearched(column)
    }
}
