//! connect4: a perfect Connect-4 engine.
//!
//! # Layers
//!
//! Each layer uses only the layers below it (`tests/engine/layers.rs` reads every
//! `use` and checks):
//!
//! ```text
//! front ends  protocol (wire messages, session loop)     [binaries: cli, arena]
//!                 |  only through the facade
//! facade      engine (game, players, search thread, agent specs, clocks)
//!                 |
//! players     agents (the course's players)
//!                 |
//! search      search (exact solver, clocked search, tables)   bench  perft
//!                 |
//! book        book (the opening book as data: format, layers, lookup)
//!                 |
//! rules       rules, position, game, grid, score, openings, atomic_file
//! ```
//!
//! Beside them, above the players and below the front ends, the workshop
//! for long jobs: [`lab`] (feature `lab`, on by default): book and layer
//! building, tuning, Q-learning training, self-play, match statistics,
//! pictures, progress bars, CPU time and peak memory. Nothing of the engine
//! uses it; without the feature the library builds without plotters and
//! indicatif.
//!
//! - [`rules`]: board size and winning line length;
//! - [`position`]: the bitboard position and its threat helpers;
//! - [`game`] and [`grid`]: the move string, column list and grid notations,
//!   with errors that name the move or cell;
//! - [`score`]: what a score means (win, draw or loss, and when);
//! - [`openings`]: random and exhaustive openings for matches, and each
//!   game's seed;
//! - [`atomic_file`]: whole files or none;
//! - [`book`]: the opening book made by the solver;
//! - [`search`]: the exact solver, its tables and the clocked search;
//! - [`mod@bench`]: solving labelled positions; [`perft`]: counting them;
//! - [`agents`]: the players of the course reports behind one trait;
//! - [`engine`]: the facade that owns the search thread;
//! - [`protocol`]: the line-based JSON protocol and its session loop.

#![deny(missing_docs)]

pub mod agents;
pub mod atomic_file;
pub mod bench;
pub mod book;
pub mod engine;
pub mod game;
pub mod grid;
#[cfg(feature = "lab")]
pub mod lab;
pub mod move_list;
pub mod openings;
pub mod perft;
pub mod position;
pub mod protocol;
pub mod rules;
pub mod score;
pub mod search;

pub use game::{Game, MoveError};
pub use grid::GridError;
pub use move_list::{MoveList, MoveListError};
pub use position::{Player, Position, Status};
pub use rules::{Rules, RulesError};
