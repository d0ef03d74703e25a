//! What engines write on stderr: the last [`TAIL_BYTES`] of each process,
//! kept in memory so that a forfeit can quote its last lines (a Python
//! traceback, say), and written to a file beside the game log when the
//! process ends.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result};

/// Bytes of stderr kept per process.
pub const TAIL_BYTES: usize = 64 * 1024;
/// Lines of stderr quoted in a forfeit's detail (a whole Python traceback
/// of a few frames).
pub const QUOTED_LINES: usize = 30;

/// The last bytes a process wrote on stderr.
#[derive(Clone, Default)]
pub struct Tail {
    bytes: Arc<Mutex<VecDeque<u8>>>,
}

impl Tail {
    /// Reads `stderr` to its end on this thread, keeping the last bytes.
    pub fn collect(&self, mut stderr: impl Read) {
        let mut buf = [0u8; 4096];
        loop {
            match stderr.read(&mut buf) {
                Ok(0) | Err(_) => return,
                Ok(n) => {
                    let mut kept = self.bytes.lock().unwrap_or_else(|e| e.into_inner());
                    kept.extend(&buf[..n]);
                    let over = kept.len().saturating_sub(TAIL_BYTES);
                    kept.drain(..over);
                }
            }
        }
    }

    /// Everything kept, as text.
    pub fn text(&self) -> String {
        let kept = self.bytes.lock().unwrap_or_else(|e| e.into_inner());
        let (a, b) = kept.as_slices();
        let mut bytes = a.to_vec();
        bytes.extend_from_slice(b);
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// The last `n` non-empty lines, joined with ` | ` for a one-line detail;
    /// empty if the process wrote nothing.
    pub fn last_lines(&self, n: usize) -> String {
        let text = self.text();
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        lines[lines.len().saturating_sub(n)..].join(" | ")
    }
}

/// The file beside a game log that collects the stderr of every engine
/// process of the run, one block per process.
pub struct StderrLog {
    path: PathBuf,
    file: Mutex<File>,
}

impl StderrLog {
    /// The stderr file for the game log `log`: `LOG.stderr`, appended to.
    pub fn beside(log: &Path) -> Result<StderrLog> {
        let path = StderrLog::path_beside(log);
        let file = File::options()
            .create(true)
            .append(true)
            .open(&path)
            .with_context(|| format!("opening the engines' stderr file {}", path.display()))?;
        Ok(StderrLog {
            path,
            file: Mutex::new(file),
        })
    }

    /// The name of the stderr file for the game log `log`.
    pub fn path_beside(log: &Path) -> PathBuf {
        let mut path = log.as_os_str().to_owned();
        path.push(".stderr");
        PathBuf::from(path)
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends what process `pid` of engine `name` wrote, if anything.
    pub fn write(&self, name: &str, pid: u32, tail: &Tail) {
        let text = tail.text();
        if text.is_empty() {
            return;
        }
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        // A full disk must not stop the match: the tail is still quoted.
        let _ = writeln!(file, "=== {name} (process {pid}) ===\n{}", text.trim_end());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_only_the_last_bytes_and_quotes_the_last_lines() {
        let tail = Tail::default();
        let mut input = Vec::new();
        for i in 0..20_000 {
            input.extend_from_slice(format!("line {i}\n").as_bytes());
        }
        tail.collect(&input[..]);
        let text = tail.text();
        assert!(text.len() <= TAIL_BYTES);
        assert!(text.ends_with("line 19999\n"));
        assert_eq!(tail.last_lines(2), "line 19998 | line 19999");
        assert_eq!(Tail::default().last_lines(3), "");
    }
}
