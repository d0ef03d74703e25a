//! An engine process: spawned without a shell, spoken to in the protocol.
//!
//! A reader thread turns the engine's stdout into a channel of lines, so
//! every wait has a timeout: a hung engine becomes a stall, a closed pipe a
//! crash, never a hang of the arena.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use connect4::protocol::{Reply, Request};

/// How an exchange with an engine failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The process exited or closed its output.
    Crash(String),
    /// No reply in time.
    Stall(String),
    /// A reply that is not a valid, expected message.
    Protocol(String),
}

impl Failure {
    /// The forfeit reason recorded for this failure.
    pub fn reason(&self) -> &'static str {
        match self {
            Failure::Crash(_) => "crash",
            Failure::Stall(_) => "stall",
            Failure::Protocol(_) => "protocol",
        }
    }

    /// What happened, for the log.
    pub fn detail(&self) -> &str {
        match self {
            Failure::Crash(d) | Failure::Stall(d) | Failure::Protocol(d) => d,
        }
    }
}

/// A running engine.
pub struct EngineProcess {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl EngineProcess {
    /// Starts `program` with `args` (no shell involved).
    pub fn start(program: &str, args: &[String]) -> std::io::Result<EngineProcess> {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(EngineProcess {
            child,
            stdin,
            lines: rx,
        })
    }

    /// Sends one request.
    pub fn send(&mut self, request: &Request) -> Result<(), Failure> {
        let line = request.to_line();
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| Failure::Crash(format!("cannot write to the engine: {e}")))
    }

    /// Waits until `deadline` for the next final reply (skipping `info`),
    /// handing each `info` to `on_info`.
    pub fn recv_final(
        &mut self,
        deadline: Instant,
        mut on_info: impl FnMut(&Reply),
    ) -> Result<Reply, Failure> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(Failure::Stall("no reply in time".into()));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let status = self.child.try_wait().ok().flatten();
                    return Err(Failure::Crash(match status {
                        Some(s) => format!("the engine exited ({s})"),
                        None => "the engine closed its output".into(),
                    }));
                }
            };
            let reply: Reply = serde_json::from_str(&line).map_err(|e| {
                let shown: String = line.chars().take(80).collect();
                Failure::Protocol(format!("unreadable reply '{shown}': {e}"))
            })?;
            if reply.is_final() {
                return Ok(reply);
            }
            on_info(&reply);
        }
    }

    /// Sends a request and waits up to `timeout` for its final reply.
    pub fn ask(&mut self, request: &Request, timeout: Duration) -> Result<Reply, Failure> {
        self.send(request)?;
        self.recv_final(Instant::now() + timeout, |_| {})
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}
