//! The grading's games as a game log (`grade --log FILE`): every game the
//! tests counted, numbered in the order the tests ran, each line naming
//! its test, so that `serve --log FILE` replays them with the solver's
//! verdict on every move. Voided games (the reference engine failed) are
//! left out, as they are from the grade.
//!
//! The file is written whole at the end of the grading and replaced by
//! the next one, like the results; a file that holds the games of a match,
//! a tournament or an experiment is never replaced.

use std::path::Path;

use anyhow::{Context, Result};

use super::games::Played;
use crate::log::GameLine;

/// The `run` of a grading log's lines.
pub const RUN: &str = "grade";

/// Refuses to write over `path` when it is something else than a grading
/// log: not a regular file (the log reader refuses it), or a log of
/// another run's games.
pub fn check(path: &Path) -> Result<()> {
    let games = crate::log::read(path)?;
    if let Some(other) = games.iter().find(|g| g.run != RUN) {
        anyhow::bail!(
            "--log {}: the file holds the games of another run (game {}: {} vs {}), which a \
             grading would replace; give another --log",
            path.display(),
            other.game,
            other.first,
            other.second
        );
    }
    Ok(())
}

/// Every game of `played`, the student's engine named `student`.
pub fn lines(played: &[Played], student: &str, seed: u64) -> Vec<GameLine> {
    let mut lines: Vec<GameLine> = Vec::new();
    for test in played {
        let next = lines.len() as u64 + 1;
        lines.extend(test.lines(student, seed, next));
    }
    lines
}

/// Writes `lines` to `path` at once (a reader never sees half a file).
pub fn write(path: &Path, lines: &[GameLine]) -> Result<()> {
    check(path)?;
    let mut text = String::new();
    for line in lines {
        text.push_str(&serde_json::to_string(line).context("a game's line")?);
        text.push('\n');
    }
    connect4::atomic_file::write(path, text)
        .with_context(|| format!("writing the games to {}", path.display()))
}
