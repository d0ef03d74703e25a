//! connect4: a perfect Connect-4 engine.
//!
//! # Layers
//!
//! Each layer uses only the layers below it:
//!
//! ```text
//! front ends  protocol (wire messages, session loop)   [binaries: cli, arena]
//!                 |  only through the facade
//! facade      engine (game, players, search thread, agent specs, clocks)
//!                 |
//! players     agents (the course's players)   book (opening book)
//!                 |                              |
//! search      search (exact solver, clocked search, tables, heuristic)
//!                 |
//! rules       rules, position, game, grid, score, openings
//! ```
//!
//! Beside them, tools for people and long jobs: [`mod@bench`] (solving
//! labelled positions), [`perft`], [`progress`], [`cpu_time`], [`stats`]
//! (match statistics: Elo, intervals, SPRT), [`plot`] (SVG line charts),
//! [`atomic_file`] (whole files or none), [`peak_memory`] (a child's peak
//! memory, for soak figures).
//!
//! - [`rules`]: board size and winning line length;
//! - [`position`]: the bitboard position and its threat helpers;
//! - [`game`] and [`grid`]: the move string, column list and grid notations,
//!   with errors that name the move or cell;
//! - [`score`]: what a score means (win, draw or loss, and when);
//! - [`openings`]: random and exhaustive openings for matches;
//! - [`search`]: the exact solver, its tables and the clocked search;
//! - [`book`]: the opening book made by the solver;
//! - [`agents`]: the players of the course reports behind one trait;
//! - [`engine`]: the facade that owns the search thread;
//! - [`protocol`]: the line-based JSON protocol and its session loop.

#![deny(missing_docs)]

pub mod agents;
pub mod atomic_file;
pub mod bench;
pub mod book;
pub mod cpu_time;
pub mod engine;
pub mod game;
pub mod grid;
pub mod openings;
pub mod peak_memory;
pub mod perft;
pub mod plot;
pub mod position;
pub mod progress;
pub mod protocol;
pub mod rules;
pub mod score;
pub mod search;
pub mod stats;

pub use game::{Game, MoveError};
pub use grid::GridError;
pub use position::{Player, Position, Status};
pub use rules::{Rules, RulesError};
