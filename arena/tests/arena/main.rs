//! The arena's integration tests but the autograder's (which run on their
//! own, one at a time: arena/tests/autograder/), one binary with a module
//! per subject: each test binary links the whole dependency tree, so one
//! binary is built and linked once.

#[path = "../common/mod.rs"]
mod common;

mod experiments;
mod feedback;
mod forfeits;
mod grading;
mod kit;
mod layers;
mod league;
mod llm;
mod matches;
mod outputs;
mod packages;
mod tournament;
mod web;
