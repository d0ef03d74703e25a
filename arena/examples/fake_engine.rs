//! An engine that misbehaves on cue, to test that the arena survives it.
//!
//! `fake_engine MODE` (or, without MODE, the mode in a file `mode` beside
//! the program, for graders that start it with no arguments) speaks just
//! enough of the protocol (hello, ping,
//! newgame, position, go, stop, quit; a legal move centre first) and then
//! misbehaves as MODE says:
//!
//! - `good`: never misbehaves;
//! - `crash-at=K`: exits with status 3 when asked for its K-th move;
//! - `hang`: stops answering anything at its first `go`;
//! - `slow-start=MS`: sleeps MS before reading its first line;
//! - `slow-move=MS`: sleeps MS before each `bestmove`;
//! - `illegal`: answers `go` with column 9;
//! - `garbage`: answers `go` with a line that is not JSON;
//! - `out-of-turn`: answers `go` with a `bestmove` carrying another id;
//! - `huge`: answers `go` with a 2 MiB line;
//! - `traceback`: at its first `go`, writes a Python-style traceback on
//!   stderr and exits with status 1;
//! - `fork-and-exit`: at its first `go`, starts a child that holds its pipes
//!   and sleeps, then exits;
//! - `ignore-stdin`: plays, but at end of input sleeps on instead of exiting;
//! - `pong-only`: answers `ping` but never `go`;
//! - `flood`: answers `go` with `info` lines, as fast as it can, forever;
//! - `chaos`: plays, but each `go` has a 2% chance of each of: exiting, a
//!   line that is not JSON, an illegal column, a reply with another id, and
//!   a stall of 5 s (for soak runs);
//! - `kill-opponent=SIGNAL`: plays, but at each `go` first sends SIGNAL
//!   (KILL or STOP) to every other process its parent started, as a
//!   student gaming a grader would do to the reference engine;
//! - `forge-results=PATH`: plays, but at its first `go` writes a perfect
//!   `results.json` to PATH and sends SIGKILL to its parent (the grader);
//! - `linger=PATH`: plays, but at its first `go` starts a detached process
//!   (`rewrite=PATH`) that writes a perfect `results.json` to PATH every
//!   50 ms for an hour, after the grader is gone too;
//! - `fork-bomb`: plays, but at its first `go` starts sleeping processes
//!   in groups of their own until the system refuses (at most 20,000);
//! - `fill-disk`: plays, but at its first `go` writes 1 MiB files in its
//!   folder until the disk is full (at most 100,000);
//! - `hog=MBxN`: plays, but at its first `go` starts N detached processes
//!   (`hold=MB`) that each fill MB MiB of memory and sleep an hour, and
//!   gives them a second to do so before it answers;
//! - `memfd=MB`, `devshm=MB`, `sysv=MB`: plays, but at its first `go`
//!   writes MB MiB into a memfd it keeps open, into a file of its own in
//!   `/dev/shm`, or into a System V shared memory segment (none of which
//!   is in its resident pages; the last two outlive it);
//! - `sleep`: sleeps an hour (the child of `fork-and-exit`).

use std::io::{BufRead, Write};
use std::time::Duration;

use connect4::Game;
use connect4::protocol::messages::{EngineInfo, PROTOCOL, VERSION, WireScore};
use connect4::protocol::{Id, Reply};
use serde_json::Value;

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_else(|| {
        std::env::current_exe()
            .ok()
            .and_then(|me| std::fs::read_to_string(me.with_file_name("mode")).ok())
            .map_or_else(|| "good".into(), |m| m.trim().to_string())
    });
    let number = |prefix: &str| {
        mode.strip_prefix(prefix)
            .and_then(|v| v.parse::<u64>().ok())
    };
    if mode == "sleep" {
        std::thread::sleep(Duration::from_secs(3600));
        return;
    }
    if let Some(mb) = number("hold=") {
        // Touch every page, so that the memory is resident.
        let held = vec![1u8; (mb as usize) << 20];
        std::thread::sleep(Duration::from_secs(3600));
        drop(held);
        return;
    }
    if let Some(path) = mode.strip_prefix("rewrite=") {
        for _ in 0..72_000 {
            std::fs::write(path, FORGED).ok();
            std::thread::sleep(Duration::from_millis(50));
        }
        return;
    }
    if let Some(ms) = number("slow-start=") {
        std::thread::sleep(Duration::from_millis(ms));
    }
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    let mut game = Game::new(Default::default());
    let mut moves_asked = 0;
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return };
        // A line that is not JSON gets its error, as the protocol says (so
        // that the honest modes pass every compliance check at once).
        let Ok(request) = serde_json::from_str::<Value>(&line) else {
            let error = Reply::Error {
                id: None,
                code: connect4::protocol::messages::ErrorCode::BadJson,
                message: "not JSON".into(),
            };
            if writeln!(out, "{}", error.to_line())
                .and_then(|()| out.flush())
                .is_err()
            {
                return;
            }
            continue;
        };
        let id: Option<Id> = request
            .get("id")
            .and_then(|v| serde_json::from_value(v.clone()).ok());
        let reply = match request["cmd"].as_str().unwrap_or("") {
            "hello" => Reply::Hello {
                id,
                protocol: PROTOCOL.into(),
                version: VERSION,
                engine: EngineInfo {
                    name: format!("fake ({mode})"),
                    version: "0".into(),
                },
                options: Vec::new(),
                book: None,
            },
            "ping" => Reply::Pong { id },
            "newgame" => {
                game = Game::new(Default::default());
                Reply::Ok { id, state: None }
            }
            "position" => {
                game = Game::from_move_string(
                    Default::default(),
                    request["moves"].as_str().unwrap_or(""),
                )
                .unwrap_or_else(|_| Game::new(Default::default()));
                Reply::Ok { id, state: None }
            }
            "stop" | "setoption" => Reply::Ok { id, state: None },
            "quit" => return,
            "go" if mode == "pong-only" => continue,
            "go" if mode == "flood" => flood(&mut out, id),
            "go" if mode == "traceback" => {
                eprintln!("Traceback (most recent call last):");
                eprintln!("  File \"groups/Bad/policy.py\", line 7, in act");
                eprintln!("ZeroDivisionError: division by zero");
                std::process::exit(1);
            }
            "go" if mode == "fork-and-exit" => {
                let me = std::env::current_exe().expect("own path");
                std::process::Command::new(me)
                    .arg("sleep")
                    .spawn()
                    .expect("a child");
                std::process::exit(4);
            }
            "go" if mode == "chaos" && chaos(&mut out, &id) => continue,
            "go" => {
                moves_asked += 1;
                if let Some(signal) = mode.strip_prefix("kill-opponent=") {
                    signal_siblings(signal);
                }
                if moves_asked == 1 {
                    first_go_attack(&mode);
                }
                if number("crash-at=") == Some(moves_asked) {
                    std::process::exit(3);
                }
                if mode == "hang" {
                    // Keep the pipes open, answer nothing.
                    std::thread::sleep(Duration::from_secs(3600));
                }
                if let Some(ms) = number("slow-move=") {
                    std::thread::sleep(Duration::from_millis(ms));
                }
                match mode.as_str() {
                    "garbage" => {
                        writeln!(out, "I resign!").ok();
                        out.flush().ok();
                        continue;
                    }
                    "huge" => {
                        let big = "x".repeat(2 << 20);
                        writeln!(out, "{{\"type\":\"info\",\"pad\":\"{big}\"}}").ok();
                        out.flush().ok();
                        continue;
                    }
                    _ => {}
                }
                let p = game.position();
                let column = [3, 2, 4, 1, 5, 0, 6]
                    .into_iter()
                    .find(|&c| p.can_play(c))
                    .unwrap_or(0)
                    + 1;
                Reply::Bestmove {
                    id: if mode == "out-of-turn" {
                        Some(Id::Text("not yours".into()))
                    } else {
                        id
                    },
                    column: if mode == "illegal" { 9 } else { column },
                    score: WireScore::default(),
                    depth: 1,
                    nodes: 1,
                    time_ms: 0,
                    pv: vec![column],
                }
            }
            _ => continue,
        };
        if writeln!(out, "{}", reply.to_line())
            .and_then(|()| out.flush())
            .is_err()
        {
            return;
        }
    }
    if mode == "ignore-stdin" {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

/// Misbehaves now and then for `chaos`: true if it did (and the request is
/// dealt with), false to answer normally.
fn chaos(out: &mut std::io::Stdout, id: &Option<Id>) -> bool {
    use std::sync::atomic::{AtomicU64, Ordering};
    static STATE: AtomicU64 = AtomicU64::new(0);
    if STATE.load(Ordering::Relaxed) == 0 {
        STATE.store(u64::from(std::process::id()) | 1, Ordering::Relaxed);
    }
    // xorshift64
    let mut x = STATE.load(Ordering::Relaxed);
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    STATE.store(x, Ordering::Relaxed);
    match x % 50 {
        0 => std::process::exit(5),
        1 => {
            writeln!(out, "not json at all").ok();
        }
        2 => {
            let reply = Reply::Bestmove {
                id: id.clone(),
                column: 9,
                score: WireScore::default(),
                depth: 0,
                nodes: 0,
                time_ms: 0,
                pv: Vec::new(),
            };
            writeln!(out, "{}", reply.to_line()).ok();
        }
        3 => {
            writeln!(
                out,
                r#"{{"type":"bestmove","id":"someone else's","move":1}}"#
            )
            .ok();
        }
        4 => std::thread::sleep(Duration::from_secs(5)),
        _ => return false,
    }
    out.flush().ok();
    true
}

/// Writes valid `info` lines for request `id` until the pipe closes.
fn flood(out: &mut std::io::Stdout, id: Option<Id>) -> ! {
    let info = Reply::Info {
        id,
        depth: 1,
        score: WireScore::default(),
        nodes: 1,
        time_ms: 0,
        nps: 0,
        pv: vec![4],
    }
    .to_line();
    loop {
        if writeln!(out, "{info}").is_err() {
            std::process::exit(0);
        }
    }
}

/// Sends `signal` (a name `kill` knows) to every process with the same
/// parent as this one, other than this one.
/// What a forger writes: full marks.
const FORGED: &str = r#"{"score": 100.0, "output": "forged", "tests": []}"#;

/// The attacks made once, at the first `go`, by the hostile modes.
fn first_go_attack(mode: &str) {
    let me = std::env::current_exe().expect("own path");
    if let Some(path) = mode.strip_prefix("forge-results=") {
        std::fs::write(path, FORGED).ok();
        if let Some(parent) = parent_of(&std::process::id().to_string()) {
            std::process::Command::new("kill")
                .args(["-KILL", &parent])
                .stderr(std::process::Stdio::null())
                .status()
                .ok();
        }
    } else if let Some(path) = mode.strip_prefix("linger=") {
        detached(&me, format!("rewrite={path}")).ok();
    } else if let Some((mb, n)) = mode.strip_prefix("hog=").and_then(|v| v.split_once('x')) {
        for _ in 0..n.parse::<u32>().unwrap_or(0) {
            detached(&me, format!("hold={mb}")).ok();
        }
        std::thread::sleep(Duration::from_secs(1));
    } else if let Some(mb) = number("memfd=", mode) {
        shared::memfd(mb);
    } else if let Some(mb) = number("devshm=", mode) {
        shared::devshm(mb);
    } else if let Some(mb) = number("sysv=", mode) {
        shared::sysv(mb);
    } else if mode == "fork-bomb" {
        let mut started = 0;
        while started < 20_000 {
            let child = detached(&me, "sleep");
            if child.is_err() {
                break;
            }
            started += 1;
        }
        eprintln!("fork-bomb: started {started} processes");
    } else if mode == "fill-disk" {
        let block = vec![7u8; 1 << 20];
        let mut written = 0;
        while written < 100_000 && std::fs::write(format!("fill-{written}"), &block).is_ok() {
            written += 1;
        }
        eprintln!("fill-disk: wrote {written} MiB");
    }
}

/// A number after `prefix` in `mode`.
fn number(prefix: &str, mode: &str) -> Option<u64> {
    mode.strip_prefix(prefix)?.parse().ok()
}

/// Memory held outside the process's resident pages.
#[allow(unsafe_code)]
mod shared {
    use std::io::Write;
    use std::os::fd::FromRawFd;

    /// MiB written into one file: under any file size limit a grader sets,
    /// so the memory is spread over several files.
    const PER_FILE: u64 = 32;

    /// Writes `mb` MiB into memfds kept open for the process's life.
    pub fn memfd(mb: u64) {
        for _ in 0..mb.div_ceil(PER_FILE) {
            // SAFETY: a valid C string; the descriptor is owned by the file.
            let fd = unsafe { libc::memfd_create(c"hold".as_ptr(), 0) };
            if fd < 0 {
                return;
            }
            // SAFETY: a fresh descriptor nothing else owns.
            let file = unsafe { std::fs::File::from_raw_fd(fd) };
            fill(&file, PER_FILE);
            std::mem::forget(file);
        }
    }

    /// Writes `mb` MiB into files of its own in /dev/shm.
    pub fn devshm(mb: u64) {
        for i in 0..mb.div_ceil(PER_FILE) {
            let path = format!("/dev/shm/fake-engine-{}-{i}", std::process::id());
            if let Ok(file) = std::fs::File::create(path) {
                fill(&file, PER_FILE);
            }
        }
    }

    /// Writes `mb` MiB into `file`.
    fn fill(mut file: &std::fs::File, mb: u64) {
        for _ in 0..mb {
            if file.write_all(&[7u8; 1 << 20]).is_err() {
                break;
            }
        }
    }

    /// Makes a System V segment of `mb` MiB and fills it.
    pub fn sysv(mb: u64) {
        let bytes = (mb as usize) << 20;
        // SAFETY: plain system calls; the segment is attached, filled
        // within its size, and detached.
        unsafe {
            let id = libc::shmget(libc::IPC_PRIVATE, bytes, libc::IPC_CREAT | 0o600);
            if id < 0 {
                return;
            }
            let at = libc::shmat(id, std::ptr::null(), 0);
            if at as isize == -1 {
                return;
            }
            std::ptr::write_bytes(at.cast::<u8>(), 7, bytes);
            libc::shmdt(at);
        }
    }
}

/// Starts this program with `arg` in a process group of its own, its
/// standard streams closed: a process the grader must find and kill.
fn detached(
    me: &std::path::Path,
    arg: impl AsRef<std::ffi::OsStr>,
) -> std::io::Result<std::process::Child> {
    use std::os::unix::process::CommandExt;
    std::process::Command::new(me)
        .arg(arg)
        .process_group(0)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
}

/// The parent of process `pid`, from /proc.
fn parent_of(pid: &str) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().nth(1).map(str::to_string)
}

fn signal_siblings(signal: &str) {
    let me = std::process::id().to_string();
    let Some(parent) = parent_of(&me) else {
        return;
    };
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return;
    };
    for entry in entries.flatten() {
        let pid = entry.file_name().to_string_lossy().into_owned();
        if pid != me && pid.parse::<u32>().is_ok() && parent_of(&pid).as_deref() == Some(&parent) {
            std::process::Command::new("kill")
                .args([format!("-{signal}"), pid])
                .stderr(std::process::Stdio::null())
                .status()
                .ok();
        }
    }
}
