//! The Gradescope autograder end to end: zips written by `connect4-arena
//! autograder` are unpacked into fake Gradescope roots (AUTOGRADER_ROOT in
//! a temporary folder), `setup.sh` runs once, and `run_autograder` grades
//! submissions written here: the perfect player, an honest engine and
//! hostile ones, a build that fails, weak, crashing and slow policies.
//!
//! Isolation needs root (the grader starts student code as another user),
//! so these tests run as root, as CI does here, and are skipped with a
//! message otherwise.
//!
//! The tests sit in one module, `fake_gradescope`, so that `scripts/test`
//! can run them beside the rest (`--skip fake_gradescope::` there, `--test
//! autograder` here); its root holds the fake Gradescope root, and each
//! file beside it a subject.

#[path = "../common/mod.rs"]
mod common;
mod fake_gradescope;
