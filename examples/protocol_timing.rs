//! Protocol timing benchmark: drives the release `connect4` binary through
//! pipes and reports, over many runs, the stop -> bestmove latency, the
//! movetime overshoot (bestmove time minus movetime) and the ping latency
//! during a search, as median, p99 and max.
//!
//! Run: `cargo build --release && cargo run --release --example protocol_timing [RUNS]`

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use connect4::protocol::Reply;

fn engine_path() -> PathBuf {
    // target/release/examples/protocol_timing -> target/release/connect4
    let exe = std::env::current_exe().expect("own path");
    exe.parent()
        .and_then(|p| p.parent())
        .map(|p| p.join("connect4"))
        .expect("target directory")
}

fn summary(name: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    println!(
        "{name:<28} runs {:>4}  median {:>7.3} ms  p99 {:>7.3} ms  max {:>7.3} ms",
        samples.len(),
        at(0.5).as_secs_f64() * 1e3,
        at(0.99).as_secs_f64() * 1e3,
        samples.last().unwrap().as_secs_f64() * 1e3
    );
}

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200);
    let path = engine_path();
    let mut child = Command::new(&path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "{}: {e} (build with cargo build --release first)",
                path.display()
            )
        });
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let line = line.unwrap();
            let reply: Reply = serde_json::from_str(&line).unwrap();
            if tx.send((Instant::now(), reply)).is_err() {
                break;
            }
        }
    });
    let mut send = |line: &str| {
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
        Instant::now()
    };
    let until = |pred: &dyn Fn(&Reply) -> bool| loop {
        let (t, r) = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the engine answers within 30 s");
        if pred(&r) {
            return t;
        }
    };
    // Openings whose search outlasts the pauses below (none is solved fast).
    let openings = ["", "4", "44", "4453", "43", "35", "444"];
    send(r#"{"cmd":"setoption","name":"info","value":false}"#);
    until(&|r| matches!(r, Reply::Ok { .. }));
    let (mut stop, mut overshoot, mut ping) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..runs {
        let opening = openings[i % openings.len()];
        send(&format!(r#"{{"cmd":"position","moves":"{opening}"}}"#));
        until(&|r| matches!(r, Reply::Ok { .. }));
        // Ping during a search, then stop -> bestmove.
        send(r#"{"cmd":"go","infinite":true}"#);
        std::thread::sleep(Duration::from_millis(5 + (i % 7) as u64 * 3));
        let t0 = send(r#"{"cmd":"ping"}"#);
        ping.push(until(&|r| matches!(r, Reply::Pong { .. })) - t0);
        std::thread::sleep(Duration::from_millis(2));
        let t0 = send(r#"{"cmd":"stop"}"#);
        let t1 = until(&|r| matches!(r, Reply::Bestmove { .. }));
        // A search that proved its result before the stop does not count.
        if t1 >= t0 {
            stop.push(t1 - t0);
        }
        until(&|r| matches!(r, Reply::Ok { .. }));
        // Movetime overshoot.
        let movetime = 20 + (i % 5) as u64 * 10;
        let t0 = send(&format!(r#"{{"cmd":"go","movetime_ms":{movetime}}}"#));
        let t1 = until(&|r| matches!(r, Reply::Bestmove { .. }));
        overshoot.push((t1 - t0).saturating_sub(Duration::from_millis(movetime)));
    }
    send(r#"{"cmd":"quit"}"#);
    child.wait().unwrap();
    summary("stop -> bestmove", stop);
    summary("movetime overshoot", overshoot);
    summary("ping during search", ping);
}
