//! An engine process: spawned without a shell, spoken to in the protocol.
//!
//! A reader thread turns the engine's stdout into a queue of lines (each
//! capped at the protocol's 1 MiB), so every wait has a deadline: a hung
//! engine becomes a stall, a closed pipe a crash, never a hang of the arena.
//! Every request carries a fresh numeric id and its reply must echo it; a
//! reply with another id, or one nobody asked for, is a protocol fault.
//! While a search runs, the arena pings the engine when it has been quiet
//! for a while; an engine that does not answer the ping in time stalls.

use std::collections::VecDeque;
use std::io::{BufReader, Read, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use connect4::protocol::lines::{Line, LineReader, shorten};
use connect4::protocol::messages::MAX_LINE_BYTES;
use connect4::protocol::{Command, Id, Reply, Request};

use crate::debug_log::{DebugLog, Direction};
use crate::ending::Reason;
use crate::spec::EngineSpec;
use crate::stderr::{QUOTED_LINES, StderrLog, Tail};

/// Quiet time after which a searching engine is pinged.
pub const PING_AFTER: Duration = Duration::from_secs(2);
/// How long a reply to anything but `go` may take.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(10);
/// Characters of an engine's reply quoted in messages.
pub const REPLY_CHARS: usize = 120;
/// Characters of an engine's error message quoted in messages: enough for
/// the list of valid names an error ends with.
const ERROR_CHARS: usize = 600;

/// An unexpected reply as messages quote it: an error by its message (so
/// that a refusal's list of valid names shows whole), anything else as
/// its line, each shortened.
pub fn quoted(reply: &Reply) -> String {
    match reply {
        Reply::Error { message, .. } => format!("error: {}", shorten(message, ERROR_CHARS)),
        other => shorten(&other.to_line(), REPLY_CHARS),
    }
}

/// How an exchange with an engine failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The process exited or closed its output.
    Crash(String),
    /// No reply in time.
    Stall(String),
    /// A reply that is not a valid, expected message.
    Protocol(String),
    /// A live engine that ran over its time budget.
    Time(String),
}

impl Failure {
    /// The forfeit reason recorded for this failure.
    pub fn reason(&self) -> Reason {
        match self {
            Failure::Crash(_) => Reason::Crash,
            Failure::Stall(_) => Reason::Stall,
            Failure::Protocol(_) => Reason::Protocol,
            Failure::Time(_) => Reason::Time,
        }
    }

    /// What happened, for the log.
    pub fn detail(&self) -> &str {
        match self {
            Failure::Crash(d) | Failure::Stall(d) | Failure::Protocol(d) | Failure::Time(d) => d,
        }
    }
}

/// Bytes of lines read from an engine and not yet taken by the arena; the
/// reader stops reading (and the engine blocks on its writes) beyond this.
const QUEUE_BYTES: usize = 4 << 20;

/// What comes before the quoted end of an engine's stderr in a failure's
/// detail (the grader's feedback finds a traceback after it).
pub const STDERR_ENDS: &str = "its stderr ends: ";

/// The last `max_chars` characters of `text`, after `...` if it was
/// longer: the end of a traceback says what went wrong.
fn last_chars(text: &str, max_chars: usize) -> String {
    let count = text.chars().count();
    if count <= max_chars {
        return text.to_string();
    }
    let tail: String = text.chars().skip(count - max_chars).collect();
    format!("...{tail}")
}

/// Lines from the reader thread, bounded by [`QUEUE_BYTES`]. A mutex and
/// condition variables rather than a channel: the waiting side sleeps in the
/// kernel at once instead of spinning first.
#[derive(Default)]
struct LineQueue {
    state: Mutex<QueueState>,
    /// Signalled when a line (or the end) arrives.
    ready: Condvar,
    /// Signalled when a line is taken or the arena lets go of the engine.
    space: Condvar,
}

#[derive(Default)]
struct QueueState {
    lines: VecDeque<Line>,
    bytes: usize,
    /// The engine's output has ended.
    ended: bool,
    /// The arena let go of the engine: the reader stops.
    closed: bool,
}

/// The bytes a queued line holds.
fn line_bytes(line: &Line) -> usize {
    match line {
        Line::Text(t) => t.len(),
        _ => 0,
    }
}

impl LineQueue {
    /// Queues a line, waiting while the queue is full; `false` once the
    /// arena has let go of the engine.
    fn push(&self, line: Line) -> bool {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        while state.bytes >= QUEUE_BYTES && !state.closed {
            state = self.space.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        if state.closed {
            return false;
        }
        state.bytes += line_bytes(&line);
        state.lines.push_back(line);
        self.ready.notify_one();
        true
    }

    /// Marks the end of the engine's output.
    fn end(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.ended = true;
        self.ready.notify_one();
    }

    /// The arena lets go: a reader waiting for space stops.
    fn close(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.closed = true;
        self.space.notify_all();
    }

    /// The next line before `deadline`: `Ok(None)` on time out, `Err(())`
    /// once the output has ended and every line was taken.
    fn pop(&self, deadline: Instant) -> Result<Option<Line>, ()> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(line) = state.lines.pop_front() {
                state.bytes -= line_bytes(&line);
                self.space.notify_one();
                return Ok(Some(line));
            }
            if state.ended {
                return Err(());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            state = self
                .ready
                .wait_timeout(state, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

/// A running engine.
pub struct EngineProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Arc<LineQueue>,
    /// The last of what it wrote on stderr, and the thread that reads it.
    stderr: Tail,
    stderr_reader: Option<std::thread::JoinHandle<()>>,
    /// Where its stderr goes when it ends, with the engine's name.
    stderr_log: Option<(String, Arc<StderrLog>)>,
    /// Where every line to and from it goes (`--debug`), with its name.
    debug: Option<(String, Arc<DebugLog>)>,
    /// The last line read, as the engine wrote it (for compliance advice).
    last_line: String,
    next_id: u64,
}

/// Reads lines of at most `MAX_LINE_BYTES` into the queue; a longer one
/// is reported and skipped without being held in memory.
fn read_lines(stdout: impl Read, queue: &LineQueue) {
    let mut reader = LineReader::new(BufReader::new(stdout), MAX_LINE_BYTES);
    loop {
        match reader.next_line() {
            Ok(Line::Eof) | Err(_) => return queue.end(),
            Ok(line) => {
                if !queue.push(line) {
                    return;
                }
            }
        }
    }
}

impl EngineProcess {
    /// Starts the engine of `spec`.
    pub fn start_spec(spec: &EngineSpec) -> Result<EngineProcess, Failure> {
        let (program, args) = spec
            .command()
            .map_err(|e| Failure::Crash(format!("cannot find this program: {e}")))?;
        EngineProcess::start_in(&program, &args, spec.sandbox.as_ref())
            .map_err(|e| Failure::Crash(format!("cannot start {program}: {e}")))
    }

    /// Starts the engine of `spec`, greets it and sends its options, then
    /// lets it go: whether it starts at all (the failure carries the last
    /// lines of its stderr).
    pub fn check_starts(spec: &EngineSpec) -> Result<(), Failure> {
        let mut p = EngineProcess::start_spec(spec)?;
        p.greet()
            .and_then(|()| p.configure(spec))
            .map_err(|e| p.explain(e))
    }

    /// Sends `hello` and expects the engine's `hello` back.
    pub fn greet(&mut self) -> Result<(), Failure> {
        match self.ask(Command::Hello, REPLY_TIMEOUT) {
            Ok(Reply::Hello { .. }) => Ok(()),
            Ok(other) => Err(Failure::Protocol(format!(
                "hello: expected hello, got {}",
                shorten(&other.to_line(), REPLY_CHARS)
            ))),
            Err(Failure::Stall(_)) => Err(Failure::Stall(format!(
                "no answer to hello within {} s of starting",
                REPLY_TIMEOUT.as_secs()
            ))),
            Err(e) => Err(e),
        }
    }

    /// Sends the spec's options with `setoption`; each must be answered `ok`.
    pub fn configure(&mut self, spec: &EngineSpec) -> Result<(), Failure> {
        for (name, value) in &spec.options {
            let command = Command::SetOption {
                name: name.clone(),
                value: value.clone(),
            };
            match self.ask(command, REPLY_TIMEOUT)? {
                Reply::Ok { .. } => {}
                other => {
                    return Err(Failure::Protocol(format!(
                        "setoption {name}: {}",
                        quoted(&other)
                    )));
                }
            }
        }
        Ok(())
    }

    /// Starts `program` with `args` (no shell involved), in a process group
    /// of its own that is killed as a whole when this value is dropped, and
    /// with a signal to end it if the arena's thread that started it ends.
    pub fn start(program: &str, args: &[String]) -> std::io::Result<EngineProcess> {
        EngineProcess::start_in(program, args, None)
    }

    /// Starts `program` as [`EngineProcess::start`] does, or in `sandbox`
    /// (another user, a session of its own, limits) when given.
    pub fn start_in(
        program: &str,
        args: &[String],
        sandbox: Option<&crate::sandbox::Sandbox>,
    ) -> std::io::Result<EngineProcess> {
        let mut command = std::process::Command::new(program);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        crate::sandbox::apply_or_group(&mut command, sandbox);
        let mut child = crate::group::spawn_held(&mut command)?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        let queue = Arc::new(LineQueue::default());
        let writer = Arc::clone(&queue);
        std::thread::spawn(move || read_lines(stdout, &writer));
        let tail = Tail::default();
        let collector = tail.clone();
        let stderr_reader = std::thread::spawn(move || collector.collect(stderr));
        Ok(EngineProcess {
            child,
            stdin: Some(stdin),
            lines: queue,
            stderr: tail,
            stderr_reader: Some(stderr_reader),
            stderr_log: None,
            debug: None,
            last_line: String::new(),
            next_id: 1,
        })
    }

    /// Sends `command` with a fresh id; returns the id.
    pub fn send(&mut self, command: Command) -> Result<u64, Failure> {
        let [id] = self.send_all([command])?;
        Ok(id)
    }

    /// Sends several commands in one write (the engine answers them in
    /// order); returns their ids.
    pub fn send_all<const N: usize>(
        &mut self,
        commands: [Command; N],
    ) -> Result<[u64; N], Failure> {
        let mut text = String::new();
        let ids = commands.map(|command| {
            let id = self.next_id;
            self.next_id += 1;
            let request = Request {
                id: Some(Id::Number(id.into())),
                command,
                warnings: Vec::new(),
            };
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&request.to_line());
            id
        });
        self.send_raw(&text)?;
        Ok(ids)
    }

    /// Sends one line as it is (for compliance checks with bad input).
    pub fn send_raw(&mut self, text: &str) -> Result<(), Failure> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| Failure::Crash("the engine's input is closed".into()))?;
        if let Some((name, log)) = &self.debug {
            for l in text.lines() {
                log.line(name, Direction::ToEngine, l);
            }
        }
        let mut line = text.to_string();
        line.push('\n');
        stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.flush())
            .map_err(|e| Failure::Crash(format!("cannot write to the engine: {e}")))
    }

    /// Sends what the process writes on stderr to `log` when it ends,
    /// under the engine's `name`.
    pub fn log_stderr_to(&mut self, name: &str, log: Arc<StderrLog>) {
        self.stderr_log = Some((name.to_string(), log));
    }

    /// Writes every line to and from the engine to `log` under `name`.
    pub fn debug_to(&mut self, name: &str, log: Arc<DebugLog>) {
        self.debug = Some((name.to_string(), log));
    }

    /// The last of what the process wrote on stderr.
    pub fn stderr(&self) -> &Tail {
        &self.stderr
    }

    /// `failure` with the last lines of the engine's stderr added to its
    /// detail, so that a crash shows its traceback.
    pub fn explain(&mut self, failure: Failure) -> Failure {
        if matches!(failure, Failure::Crash(_)) {
            // Let the reader take in the last bytes of a process that ended.
            for _ in 0..40 {
                if self.stderr_reader.as_ref().is_none_or(|r| r.is_finished()) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        let quoted = self.stderr.last_lines(QUOTED_LINES);
        if quoted.is_empty() {
            return failure;
        }
        let add = |d: &str| format!("{d}; {STDERR_ENDS}{}", last_chars(&quoted, 4000));
        match failure {
            Failure::Crash(d) => Failure::Crash(add(&d)),
            Failure::Stall(d) => Failure::Stall(add(&d)),
            Failure::Protocol(d) => Failure::Protocol(add(&d)),
            Failure::Time(d) => Failure::Time(add(&d)),
        }
    }

    /// The last line the engine wrote, as it wrote it.
    pub fn last_line(&self) -> &str {
        &self.last_line
    }

    /// The next reply of any kind before `deadline` (`None`: none came).
    pub fn recv_any(&mut self, deadline: Instant) -> Result<Option<Reply>, Failure> {
        self.next_reply(deadline)
    }

    /// Closes the engine's input and waits up to `timeout` for it to exit;
    /// returns the replies it wrote meanwhile and whether it exited with
    /// status 0.
    pub fn finish(&mut self, timeout: Duration) -> (Vec<Reply>, Option<bool>) {
        self.stdin = None;
        let deadline = Instant::now() + timeout;
        let mut replies = Vec::new();
        while let Ok(Some(r)) = self.next_reply(deadline) {
            replies.push(r);
        }
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return (replies, Some(status.success()));
            }
            if Instant::now() >= deadline {
                return (replies, None);
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// The next line before `deadline`, parsed.
    fn next_reply(&mut self, deadline: Instant) -> Result<Option<Reply>, Failure> {
        let line = match self.lines.pop(deadline) {
            Ok(Some(Line::Text(bytes))) => String::from_utf8_lossy(&bytes).into_owned(),
            Ok(Some(Line::TooLong { bytes })) => {
                return Err(Failure::Protocol(format!(
                    "a reply of {bytes} bytes, over the protocol's {MAX_LINE_BYTES}"
                )));
            }
            Ok(None) => return Ok(None),
            // The reader queues no `Eof`; it marks the end instead.
            Ok(Some(Line::Eof)) | Err(()) => {
                // Give the process a moment to be reaped for its status.
                let status = (0..20).find_map(|_| {
                    let s = self.child.try_wait().ok().flatten();
                    if s.is_none() {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    s
                });
                return Err(Failure::Crash(match status {
                    Some(s) => format!("the engine exited ({s})"),
                    None => "the engine closed its output".into(),
                }));
            }
        };
        if let Some((name, log)) = &self.debug {
            log.line(name, Direction::FromEngine, &line);
        }
        self.last_line.clone_from(&line);
        serde_json::from_str(&line).map(Some).map_err(|e| {
            Failure::Protocol(format!("unreadable reply '{}': {e}", shorten(&line, 80)))
        })
    }

    /// Waits until `deadline` for the final reply to request `id`, handing
    /// each of its `info` lines to `on_info`. With `ping`, an engine that
    /// sent nothing but `info` for [`PING_AFTER`] is pinged and must answer
    /// within `stall`.
    pub fn recv_final(
        &mut self,
        id: u64,
        deadline: Instant,
        ping: Option<Duration>,
        mut on_info: impl FnMut(&Reply),
    ) -> Result<Reply, Failure> {
        let wanted = Id::Number(id.into());
        let mut last_heard = Instant::now();
        let mut ping_out: Option<(Id, Instant)> = None;
        loop {
            let now = Instant::now();
            if now >= deadline {
                return Err(Failure::Stall(format!("no reply to request {id} in time")));
            }
            let wake = match (ping, &ping_out) {
                (Some(stall), Some((_, sent))) => {
                    if now >= *sent + stall {
                        return Err(Failure::Stall(format!(
                            "no pong within {} ms during a search",
                            stall.as_millis()
                        )));
                    }
                    deadline.min(*sent + stall)
                }
                (Some(_), None) => {
                    if now >= last_heard + PING_AFTER {
                        let pid = self.send(Command::Ping)?;
                        ping_out = Some((Id::Number(pid.into()), now));
                        continue;
                    }
                    deadline.min(last_heard + PING_AFTER)
                }
                (None, _) => deadline,
            };
            let Some(reply) = self.next_reply(wake)? else {
                continue;
            };
            // Progress lines alone are no sign of life: an engine that floods
            // them is still pinged, and must answer.
            if reply.is_final() {
                last_heard = Instant::now();
            }
            if let (Reply::Pong { id: Some(pid) }, Some((out, _))) = (&reply, &ping_out)
                && pid == out
            {
                ping_out = None;
                continue;
            }
            if reply.id() != Some(&wanted) {
                return Err(Failure::Protocol(format!(
                    "reply out of turn (waiting for request {id}): {}",
                    shorten(&reply.to_line(), REPLY_CHARS)
                )));
            }
            if reply.is_final() {
                return Ok(reply);
            }
            on_info(&reply);
        }
    }

    /// Sends `command` and waits up to `timeout` for its final reply.
    pub fn ask(&mut self, command: Command, timeout: Duration) -> Result<Reply, Failure> {
        let id = self.send(command)?;
        self.recv_final(id, Instant::now() + timeout, None, |_| {})
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        self.lines.close();
        crate::group::kill_group(&self.child);
        self.child.kill().ok();
        self.child.wait().ok();
        crate::group::let_go(self.child.id());
        if let Some((name, log)) = &self.stderr_log {
            // The group is dead, so its stderr is closed: the reader ends.
            if let Some(reader) = self.stderr_reader.take() {
                reader.join().ok();
            }
            log.write(name, self.child.id(), &self.stderr);
        }
    }
}
