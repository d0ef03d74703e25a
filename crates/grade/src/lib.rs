//! `grade`: the checks a course autograder runs on a student's engine,
//! policy or Kaggle agent, with Gradescope's `results.json` (the total and
//! output, each test with its score, visibility and output, and the
//! leaderboard).
//!
//! The tests come from a TOML config ([`config`]; without one, the
//! standard tests below). Games against references come in colour-swapped
//! pairs from openings the solver labels, and a game is held when the
//! student reaches the opening's value for its side, so the perfect player
//! scores 100.
//!
//! | standard test | points |
//! |---|---|
//! | wins as first player against `random` (all at 95%) | 20 |
//! | wins as second player against `random` (all at 95%) | 20 |
//! | openings held against `greedy` | 15 |
//! | openings held against `alphabeta:depth=4` | 15 |
//! | tactics: win in one, block, convert a proven win, avoid a losing move | 15 |
//! | protocol compliance (every check listed) | 10 |
//! | time and protocol discipline: no forfeit in any game | 5 |
//!
//! Its names, one meaning each: a [`config::SubmissionKind`] is what the
//! student submits (engine, policy, Kaggle agent), a [`config::TestKind`]
//! what a test does, [`config::StudentLimits`] the `[limits]` on the
//! student's processes (not a search's `connect4::search::Limits`), a
//! [`report::TestOutcome`] a test's result (not a game's
//! `connect4::score::Outcome`).
//!
//! With `--isolate` as root, the student's code runs as its own user under
//! resource limits and the references as another ([`connect4_match::sandbox`]),
//! with a bound on the memory of all its processes together
//! ([`crate::memory_watch`]); every process of the student's user is killed before the results are
//! written, and space is held so that they can be written on a full disk.

pub mod autograder;
pub mod bridges;
pub mod class;
mod class_page;
pub mod compliance;
pub mod config;
pub use connect4_match::{contain, memory_watch, shared_memory};
mod feedback;
mod game_log;
mod games;
mod grading;
pub mod kit;
mod mistakes;
pub mod report;
pub mod submission;
mod tactics;
pub mod terms;
pub mod wheel;

pub use grading::{Args, containment, limits};

/// Runs `grade` as its arguments say: the feedback of a results file
/// (`--feedback`), a whole class (`--submissions`), or one grading.
pub fn run(args: &Args) -> anyhow::Result<std::process::ExitCode> {
    if let Some(results) = &args.feedback {
        return feedback::print(results);
    }
    if let Some(dir) = &args.submissions {
        return class::run(args, dir);
    }
    grading::run(args)
}
pub use report::{GradescopeResults, LeaderboardValue, TestResult};
