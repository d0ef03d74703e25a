//! `--debug FILE`: every line to and from every engine, with the time since
//! the run began, the engine's name and the direction, for finding out what
//! an engine really said.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{Context, Result};

/// Which way a line went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// From the arena to the engine.
    ToEngine,
    /// From the engine to the arena.
    FromEngine,
}

/// The debug file, shared by every engine of a run.
pub struct DebugLog {
    start: Instant,
    file: Mutex<BufWriter<File>>,
}

impl DebugLog {
    /// Creates (or empties) `path`.
    pub fn create(path: &Path) -> Result<DebugLog> {
        let file = File::create(path)
            .with_context(|| format!("creating the debug file {}", path.display()))?;
        Ok(DebugLog {
            start: Instant::now(),
            file: Mutex::new(BufWriter::new(file)),
        })
    }

    /// Writes one line: `SECONDS NAME > LINE` (to the engine) or `<` (from it).
    pub fn line(&self, engine: &str, direction: Direction, text: &str) {
        let arrow = match direction {
            Direction::ToEngine => '>',
            Direction::FromEngine => '<',
        };
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        // A debug file that cannot be written must not stop the match.
        let _ = writeln!(
            file,
            "{:.6} {engine} {arrow} {text}",
            self.start.elapsed().as_secs_f64()
        )
        .and_then(|()| file.flush());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_carry_time_name_and_direction() {
        let path = std::env::temp_dir().join(format!("c4-debug-{}.txt", std::process::id()));
        let log = DebugLog::create(&path).unwrap();
        log.line("alpha", Direction::ToEngine, r#"{"cmd":"hello"}"#);
        log.line("alpha", Direction::FromEngine, r#"{"type":"hello"}"#);
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].ends_with(r#" alpha > {"cmd":"hello"}"#), "{text}");
        assert!(lines[1].ends_with(r#" alpha < {"type":"hello"}"#), "{text}");
        assert!(lines[0].split(' ').next().unwrap().parse::<f64>().is_ok());
        std::fs::remove_file(&path).ok();
    }
}
