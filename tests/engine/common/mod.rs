//! A driver for the engine binary over pipes, reading replies as typed
//! messages (and as raw JSON, to compare with transcripts).

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use connect4::Rules;
use connect4::bench::{Case, parse_cases};
use connect4::protocol::Reply;
use serde_json::Value;

/// Reads a labelled test set from ../shared/bench beside the repository.
pub fn cases(name: &str) -> Vec<Case> {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/bench")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (the test sets live in ../shared/bench)",
            path.display()
        )
    });
    parse_cases(Rules::STANDARD, &text).unwrap()
}

/// How long a test waits for one reply before failing.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(60);

/// A running engine process.
pub struct Driver {
    child: Child,
    stdin: Option<ChildStdin>,
    replies: Receiver<String>,
    /// Every line received, for messages on failure.
    pub log: Vec<String>,
}

impl Driver {
    /// Starts `connect4` with no arguments.
    pub fn start() -> Driver {
        Driver::start_with::<&str>(&[])
    }

    /// Starts `connect4` with the given arguments.
    pub fn start_with<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Driver {
        let mut command = Command::new(assert_cmd::cargo::cargo_bin!("connect4"));
        command.args(args);
        Driver::spawn(command)
    }

    /// Starts an engine with `command` (for example under a shell that
    /// sets resource limits first).
    pub fn spawn(mut command: Command) -> Driver {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the engine starts");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Driver {
            child,
            stdin,
            replies: rx,
            log: Vec::new(),
        }
    }

    /// Sends raw bytes followed by a newline.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) {
        self.send_bytes(line.as_bytes());
    }

    /// The next reply line, as raw JSON; panics after [`REPLY_TIMEOUT`].
    pub fn recv_value(&mut self) -> Value {
        let line = self
            .replies
            .recv_timeout(REPLY_TIMEOUT)
            .unwrap_or_else(|e| panic!("no reply ({e}); so far: {:#?}", self.log));
        self.log.push(line.clone());
        let value: Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON: {line}: {e}"));
        // Every reply must also read as a typed message.
        serde_json::from_value::<Reply>(value.clone())
            .unwrap_or_else(|e| panic!("not a reply: {line}: {e}"));
        value
    }

    /// The next reply, typed.
    pub fn recv(&mut self) -> Reply {
        serde_json::from_value(self.recv_value()).unwrap()
    }

    /// The next reply that is not `info`.
    pub fn recv_final(&mut self) -> Reply {
        loop {
            let r = self.recv();
            if r.is_final() {
                return r;
            }
        }
    }

    /// Closes stdin and returns the remaining replies and the exit status.
    pub fn finish(mut self) -> (Vec<Reply>, std::process::ExitStatus) {
        drop(self.stdin.take());
        let mut rest = Vec::new();
        while let Ok(line) = self.replies.recv_timeout(REPLY_TIMEOUT) {
            self.log.push(line.clone());
            rest.push(
                serde_json::from_str(&line).unwrap_or_else(|e| panic!("not a reply: {line}: {e}")),
            );
        }
        let status = self.child.wait().unwrap();
        (rest, status)
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}

/// Whether every field of `expected` is in `actual` with an equal value
/// (recursively for objects; arrays and scalars must be equal).
pub fn matches(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => e
            .iter()
            .all(|(k, v)| a.get(k).is_some_and(|av| matches(v, av))),
        _ => expected == actual,
    }
}
