//! The engine's integration tests, one binary with a module per subject:
//! each test binary links the whole dependency tree, so one binary is
//! built and linked once (ripgrep's tests/ keep the same layout).

mod common;

mod agents;
mod board_sizes;
mod book;
mod cli;
mod layers;
mod protocol;
mod rules;
mod search;
mod solver;
