//! The arena as a library: engine processes that speak the connect4
//! protocol, played against each other, with statistics and grading. The
//! `connect4-arena` binary parses the command line and calls it.
//!
//! # Layers
//!
//! ```text
//! commands   run (match, tournament)  merge  grade (autograder)  kit  compliance  experiment  web (serve)
//!                 |                      |      |        |
//! results    results (tables, summary, CSV)   figures (--plot)   log (JSON-lines games)
//!                 |
//! play       workers (K games at once)  schedule (pairings, openings, shards)
//!                 |
//!            play (one game: seats, clocks, adjudication)  ending (reasons)
//!                 |
//! engines    process (one engine process: group, stderr)  spec (how to run an engine)
//!            sandbox (another user, limits: the grader's isolation)  memory_watch
//! ```
//!
//! Statistics (Elo, intervals, SPRT) are `connect4::lab::stats`; the rules that
//! judge every move are the engine crate's own.

pub mod compliance;
pub mod debug_log;
pub mod ending;
pub mod experiment;
pub mod figures;
pub mod grade;
pub mod group;
pub mod kit;
pub mod live;
pub mod log;
pub mod memory_watch;
pub mod merge;
pub mod outputs;
pub mod play;
pub mod process;
pub mod results;
pub mod run;
pub mod sandbox;
pub mod schedule;
pub mod shared_memory;
pub mod spec;
pub mod stderr;
pub mod web;
pub mod wheel;
pub mod workers;
