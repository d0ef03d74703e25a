//! The engines given to `serve` with `--engine`, to play either side on the
//! page: each a process of its own, started on its first move and kept,
//! asked for one move at a time. The page names them by their place in
//! the list, so it can never start a program that was not given at start.

use std::sync::Mutex;
use std::time::Duration;

use connect4::{Game, Rules};
use serde_json::{Value, json};

use crate::error::ApiResult;
use crate::error::{ApiError, shorten};
use connect4_match::play::Seat;
use connect4_match::spec::EngineSpec;

/// Time per move of an engine given no limit of its own.
const DEFAULT_MOVETIME_MS: u64 = 1000;
/// Time an engine may take beyond its limit for process and pipe overhead.
const MARGIN: Duration = Duration::from_millis(300);

/// The engines and their seats.
pub struct Opponents {
    names: Vec<String>,
    seats: Vec<Mutex<Seat>>,
}

impl Opponents {
    /// Seats for `specs` (no process starts yet).
    pub fn new(specs: &[EngineSpec]) -> Opponents {
        let seats = specs
            .iter()
            .map(|spec| {
                let mut spec = spec.clone();
                let limited = spec.movetime_ms.is_some()
                    || spec.depth.is_some()
                    || spec.nodes.is_some()
                    || spec.clock.is_some();
                if !limited {
                    spec.movetime_ms = Some(DEFAULT_MOVETIME_MS);
                }
                spec.clock = None;
                Mutex::new(Seat::new(spec, MARGIN))
            })
            .collect();
        Opponents {
            names: specs.iter().map(|s| s.name.clone()).collect(),
            seats,
        }
    }

    /// The engines, for the page's lists.
    pub fn list(&self) -> Value {
        json!({ "engines": self.names })
    }

    /// Engine `number`'s (1-based, in the order given) move in the
    /// position `pos` of a game by `rules`.
    pub fn play(&self, number: usize, rules: Rules, pos: &str) -> ApiResult {
        let index = number.wrapping_sub(1);
        let seat = self.seats.get(index).ok_or(ApiError::NotGiven {
            what: "engine",
            number: number as u64,
            count: self.names.len(),
        })?;
        let name = &self.names[index];
        let game = Game::from_move_string(rules, pos).map_err(|e| ApiError::moves(pos, e))?;
        if game.position().is_over() {
            return Err(ApiError::Over(shorten(pos)));
        }
        let mut seat = seat.lock().unwrap_or_else(|e| e.into_inner());
        let (m, _) = seat
            .new_game(rules, 1)
            .and_then(|()| seat.best_move(&game, None))
            .map_err(|f| ApiError::Engine {
                engine: name.clone(),
                why: format!("{}: {}", f.reason(), f.detail()),
            })?;
        if m.column == 0 || !game.position().can_play(m.column - 1) {
            return Err(ApiError::Engine {
                engine: name.clone(),
                why: format!("answered column {}, which is not legal", m.column),
            });
        }
        Ok(json!({ "column": m.column, "moves": format!("{pos}{}", m.column), "engine": name }))
    }
}
