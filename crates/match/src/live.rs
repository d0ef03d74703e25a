//! The games a run is playing, move by move, for the page that follows it
//! live (`match|tournament --serve PORT`). The workers say when a game
//! starts, each move, and when it ends; the page reads a copy. It holds at
//! most one game per worker.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use connect4::lab::stats::Sprt;
use serde::Serialize;

/// What a run that serves its own page knows beyond its log.
pub struct RunInfo {
    /// The engines, in the order given.
    pub engines: Vec<String>,
    /// The pairings, as indices into `engines`.
    pub pairings: Vec<(usize, usize)>,
    /// The SPRT, if one runs.
    pub sprt: Option<Sprt>,
    /// The games under way.
    pub in_progress: Arc<InProgress>,
    /// Raised when the run is over (its page stays until Ctrl-C).
    pub finished: Arc<AtomicBool>,
}

/// Starts a page that follows a run (`--serve PORT`): given the port, the
/// run's log and what the run knows beyond it, it serves the page and
/// answers with its address. The binary hands the web's to the runner,
/// which knows no server.
pub type Follow = dyn Fn(u16, &Path, RunInfo) -> anyhow::Result<String>;

/// A game under way.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Running {
    /// Its number in the schedule.
    pub game: u64,
    /// The first player's name.
    pub first: String,
    /// The second player's name.
    pub second: String,
    /// The moves so far, the opening's included.
    pub moves: String,
}

/// The games under way.
#[derive(Debug, Default)]
pub struct InProgress {
    games: Mutex<BTreeMap<u64, Running>>,
}

impl InProgress {
    /// Game `game` between `first` and `second` starts from `opening`.
    pub fn start(&self, game: u64, first: &str, second: &str, opening: &str) {
        let running = Running {
            game,
            first: first.to_string(),
            second: second.to_string(),
            moves: opening.to_string(),
        };
        self.lock().insert(game, running);
    }

    /// Game `game` has reached `moves`.
    pub fn moved(&self, game: u64, moves: &str) {
        if let Some(r) = self.lock().get_mut(&game) {
            r.moves = moves.to_string();
        }
    }

    /// Game `game` is over (or abandoned).
    pub fn end(&self, game: u64) {
        self.lock().remove(&game);
    }

    /// The games under way, by number.
    pub fn snapshot(&self) -> Vec<Running> {
        self.lock().values().cloned().collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Running>> {
        self.games.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_is_shown_from_its_start_to_its_end() {
        let board = InProgress::default();
        board.start(3, "a", "b", "44");
        board.start(1, "b", "a", "");
        board.moved(3, "445");
        board.moved(9, "1");
        let now = board.snapshot();
        assert_eq!(now.len(), 2);
        assert_eq!((now[0].game, now[1].game), (1, 3));
        assert_eq!(now[1].moves, "445");
        board.end(3);
        assert_eq!(board.snapshot().len(), 1);
    }
}
