//! The grading's games as a game log (`grade --log FILE`): every game the
//! tests counted, numbered in the order the tests ran, each line naming
//! its test, so that `serve --log FILE` replays them with the solver's
//! verdict on every move. Voided games (the reference engine failed) are
//! left out, as they are from the grade.
//!
//! The file is written whole at the end of the grading and replaced by
//! the next one, like the results; a file that holds the games of a match,
//! a tournament or an experiment is never replaced.

use std::io::{BufRead, Read};
use std::path::Path;

use anyhow::{Context, Result};

use super::games::{Played, RUN};
use connect4_match::log::GameLine;

/// Refuses to write over `path` when it is something else than a grading
/// log: not a regular file, a file with a line that is not a grading's
/// game (a policy's source, a config, a match's log), or a log of another
/// run's games. A missing or empty file may be written.
pub fn check(path: &Path) -> Result<()> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e).with_context(|| format!("reading --log {}", path.display())),
    };
    if !meta.is_file() {
        anyhow::bail!(
            "--log {} is not a regular file; give the path of a file to create",
            path.display()
        );
    }
    let file =
        std::fs::File::open(path).with_context(|| format!("reading --log {}", path.display()))?;
    let mut reader = std::io::BufReader::new(file);
    let mut line = Vec::new();
    for number in 1.. {
        line.clear();
        let n = reader
            .by_ref()
            .take(connect4_match::log::MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut line)
            .with_context(|| format!("reading --log {}", path.display()))?;
        if n == 0 {
            return Ok(());
        }
        if line.trim_ascii().is_empty() {
            continue;
        }
        match serde_json::from_slice::<GameLine>(&line) {
            Ok(game) if game.run == RUN => {}
            Ok(other) => anyhow::bail!(
                "--log {}: the file holds the games of another run (game {}: {} vs {}), which a \
                 grading would replace; give another --log",
                path.display(),
                other.game,
                other.first,
                other.second
            ),
            Err(_) => anyhow::bail!(
                "--log {}: line {number} is not a game of a grading log, so the file is not \
                 one that a grading may replace; give another --log",
                path.display()
            ),
        }
    }
    Ok(())
}

/// Every game of `played`, the student's engine named `student`.
pub fn lines(played: &[Played], student: &str) -> Vec<GameLine> {
    let mut lines: Vec<GameLine> = Vec::new();
    for test in played {
        let next = lines.len() as u64 + 1;
        lines.extend(test.lines(student, next));
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
