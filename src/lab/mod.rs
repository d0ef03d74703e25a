//! The workshop: the long jobs that make and measure the engine, apart from
//! the engine itself (nothing of the rules, the book, the search, the
//! players, the facade or the protocol uses this module).
//!
//! - [`book_build`]: the opening book's tree, solved position by position,
//!   in shards, resumable; [`layer_build`]: whole plies of the book;
//! - [`tune`]: weights of an evaluator tuned by self-play matches;
//! - [`train`]: the Q-learning player's table learned by playing;
//! - [`selfplay`]: colour-swapped games between two players in process;
//! - [`stats`]: match statistics (Elo, intervals, pentanomial model, SPRT);
//! - [`plot`]: SVG line charts;
//! - [`progress`]: progress bars on a terminal, lines elsewhere;
//! - [`cpu_time`]: the process's CPU time; [`peak_memory`]: a child's
//!   peak resident memory, for soak figures.
//!
//! It is a module tree that uses only the engine's public surface, so it
//! can become a crate of its own.

pub mod book_build;
pub mod cpu_time;
pub mod layer_build;
pub mod peak_memory;
pub mod plot;
pub mod progress;
pub mod selfplay;
pub mod stats;
pub mod train;
pub mod tune;
