//! connect4: a perfect Connect-4 engine.
//!
//! The crate is layered bottom up:
//! - [`rules`]: board size and winning line length;
//! - [`position`]: the bitboard position and its threat helpers;
//! - [`game`] and [`grid`]: the move string, column list and grid notations,
//!   with errors that name the move or cell;
//! - [`agents`]: the players of the course reports behind one trait;
//! - [`mod@bench`]: solving labelled positions and timing it;
//! - [`eval`]: heuristic evaluation for the clocked search;
//! - [`engine`]: the facade that owns the search thread;
//! - [`protocol`]: the line-based JSON protocol and its session loop;
//! - [`perft`]: counting the positions reachable after a number of plies;
//! - [`progress`]: a progress bar or plain lines for long jobs;
//! - [`search`] and [`tt`]: the exact solver, its transposition table and
//!   the clocked search.

#![deny(missing_docs)]

pub mod agents;
mod atomic_file;
pub mod bench;
pub mod book;
pub mod cpu_time;
pub mod engine;
pub mod eval;
pub mod game;
pub mod grid;
pub mod perft;
pub mod position;
pub mod progress;
pub mod protocol;
pub mod rules;
pub mod search;
pub mod tt;

pub use game::{Game, MoveError};
pub use grid::GridError;
pub use position::{Player, Position, Status};
pub use rules::{Rules, RulesError};
