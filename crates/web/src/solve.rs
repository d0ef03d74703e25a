//! `/solve`: every column's exact score in a position, in the shape of
//! Pascal Pons' web solver, which TextArena's and SPIN-Bench's Connect
//! Four solver agents ask (`GET /solve?pos=4453`, the moves' columns from
//! 1; `{"pos": "4453", "score": [...]}`, one score a column), so that they
//! can use this server as their judge; with `level=N`, also the move of
//! the level's player (`connect4::agents::LEVELS`), a column from 0 as
//! those agents count them.
//!
//! The scores are the solver's, exact: from the side to move, positive
//! when it wins (the larger the sooner), 0 for a draw, negative when it
//! loses; a column that cannot be played scores [`FULL`], as Pons' solver
//! marks it, below every score, so that an agent taking the highest score
//! never plays it. A position the solver does not prove within [`CAP`]
//! is answered 503, never guessed.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use connect4::agents::{LEVELS, agent_spec};
use connect4::book::Book;
use connect4::search::centre_first;
use connect4::search::{Limits, Solver};
use connect4::{Game, Position, Rules};
use serde_json::{Value, json};

use crate::error::{ApiError, ApiResult, shorten};

/// The score of a column that cannot be played.
pub const FULL: i32 = -1000;

/// The longest the solver may prove one position.
pub const CAP: Duration = Duration::from_secs(20);

/// The transposition table of each answering thread's solver.
const HASH_MB: usize = 64;

thread_local! {
    /// The exact solver of the thread answering, with the shipped book:
    /// made once, kept from one request to the next.
    static SOLVER: RefCell<Solver> =
        RefCell::new(Solver::new(HASH_MB).with_book(Some(Book::shipped())));
}

/// What `/solve` is asked.
pub struct Question {
    /// The board.
    pub rules: Rules,
    /// The moves, columns from 1, as `pos` gives them.
    pub pos: String,
    /// The level whose move to give, if asked.
    pub level: Option<u64>,
    /// The seed of the level's player's choices (its random ones).
    pub seed: Option<u64>,
}

/// The answer to `q`; `left` is raised when its client has gone.
pub fn solve(q: &Question, left: &Arc<AtomicBool>) -> ApiResult {
    let game = Game::from_move_string(q.rules, &q.pos).map_err(|e| ApiError::moves(&q.pos, e))?;
    let p = *game.position();
    if p.is_over() {
        return Err(ApiError::Over(shorten(&q.pos)));
    }
    let level = match q.level {
        Some(n) if !(1..=LEVELS.len() as u64).contains(&n) => {
            return Err(ApiError::Level {
                level: n,
                levels: LEVELS.len(),
            });
        }
        n => n.map(|n| n as usize),
    };
    let scores = SOLVER.with(|solver| {
        let mut solver = solver.borrow_mut();
        solver.set_limits(&Limits::time(CAP), Some(Arc::clone(left)));
        solver.analyze_within(&p)
    });
    let Some(scores) = scores else {
        if left.load(Ordering::Relaxed) {
            return Ok(Value::Null);
        }
        return Err(ApiError::NotProven {
            seconds: CAP.as_secs(),
        });
    };
    let score: Vec<i32> = scores.iter().map(|s| s.unwrap_or(FULL)).collect();
    let mut reply = json!({ "pos": q.pos, "score": score });
    if let Some(n) = level {
        let spec = LEVELS[n - 1];
        reply["level"] = n.into();
        reply["player"] = spec.into();
        reply["move"] = level_move(&p, spec, &score, q.seed)?.into();
    }
    Ok(reply)
}

/// The move (from 0) the player `spec` makes in `p`, whose columns score
/// `score`: the perfect player's is the best score's, the centre's first
/// among equals.
fn level_move(p: &Position, spec: &str, score: &[i32], seed: Option<u64>) -> Result<u32, ApiError> {
    if spec == "perfect" {
        let best = score.iter().copied().max().unwrap_or(FULL);
        let column = centre_first(p.columns())
            .into_iter()
            .find(|&c| score[c as usize] == best)
            .expect("a position not over has a playable column");
        return Ok(column);
    }
    let mut agent =
        connect4::agents::from_spec(&agent_spec(spec)).map_err(|e| ApiError::Engine {
            engine: spec.to_string(),
            why: e.to_string(),
        })?;
    agent.new_game(seed);
    Ok(agent.choose(p, &Limits::none(), None).column)
}
