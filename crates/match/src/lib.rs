//! The match core: engine processes that speak the connect4 protocol,
//! played against each other in matches and tournaments, with their logs,
//! tables and figures. Grading, the web page and the experiments are
//! crates of their own above it; the `connect4-arena` binary wires them.
//!
//! # Layers
//!
//! Bottom first; a module names (`crate::...`) only modules of its own
//! layer or below (arena/tests/arena/layers.rs checks it):
//!
//! ```text
//! 8  merge (several logs into one)
//! 7  run (a match or tournament: resuming, shards, SPRT, the final files)
//! 6  results (tables, summary, CSV)   figures (--plot)
//! 5  workers (K games at once)        log (JSON-lines games)
//! 4  play (one game: seats, clocks, adjudication)
//!    confine (a run's engines contained: --isolate)
//! 3  process (one engine process)     outputs (inputs never outputs)
//!    contain (students' code as users of their own, a cell per game)
//! 2  spec (how to run an engine)      memory_watch (a user's memory bounded)
//! 1  sandbox (another user, limits: the grader's isolation)
//!    shared_memory (a user's /dev/shm, memfds, System V segments)
//! 0  ending (reasons)  group (process groups)  live (games under way)
//!    schedule (pairings, openings, shards)  stderr  debug_log
//!    page (data inside a self-contained page)
//! ```
//!
//! Statistics (Elo, intervals, SPRT) are `connect4::lab::stats`; the rules that
//! judge every move are the engine crate's own.

pub mod confine;
pub mod contain;
pub mod debug_log;
pub mod ending;
pub mod figures;
pub mod group;
pub mod live;
pub mod log;
pub mod memory_watch;
pub mod merge;
pub mod outputs;
pub mod page;
pub mod play;
pub mod process;
pub mod results;
pub mod run;
pub mod sandbox;
pub mod schedule;
pub mod shared_memory;
pub mod spec;
pub mod stderr;
pub mod workers;
