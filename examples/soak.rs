//! Soak test of the engine binary (a benchmark, not a test): fuzzed request
//! lines into `connect4`, counting one final reply per line and reporting the
//! engine's peak memory.
//!
//! ```sh
//! cargo build --release && cargo run --release --example soak -- 100000 [SEED]
//! ```
//!
//! Lines are valid requests (ping, positions, short searches, stop, analyze,
//! options) and mutations of them: renamed and retyped fields, huge numbers,
//! odd ids, unicode, truncated JSON and random bytes. The engine must answer
//! every line with exactly one final reply, never crash, and exit 0 at end
//! of input.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// A valid request of some kind.
fn valid(rng: &mut StdRng) -> String {
    let moves: String = (0..rng.random_range(0..8))
        .map(|_| char::from(b'1' + rng.random_range(0..7u8)))
        .collect();
    match rng.random_range(0..9) {
        0 => r#"{"cmd":"ping"}"#.to_string(),
        1 => format!(r#"{{"cmd":"position","moves":"{moves}"}}"#),
        2 => format!(r#"{{"cmd":"go","depth":{}}}"#, rng.random_range(1..6)),
        3 => format!(r#"{{"cmd":"go","movetime_ms":{}}}"#, rng.random_range(1..5)),
        4 => r#"{"cmd":"stop"}"#.to_string(),
        5 => format!(
            r#"{{"cmd":"analyze","nodes":{}}}"#,
            rng.random_range(1..2000)
        ),
        6 => r#"{"cmd":"setoption","name":"info","value":false}"#.to_string(),
        7 => r#"{"cmd":"newgame","seed":7}"#.to_string(),
        _ => r#"{"cmd":"hello"}"#.to_string(),
    }
}

/// A mutation of a valid request.
fn mutated(rng: &mut StdRng) -> String {
    let line = valid(rng);
    match rng.random_range(0..10) {
        0 => line.replace("depth", "depht").replace("moves", "move"),
        1 => line.replace(r#""cmd":"#, r#""cmd":7,"x":"#),
        2 => line.replace('}', r#","id":1e400}"#),
        3 => line.replace('}', r#","id":[1,2]}"#),
        4 => line.replace('}', r#","depth":"5","nodes":-3}"#),
        5 => line[..rng.random_range(0..line.len())].to_string(),
        6 => line.replace('}', ",\"id\":\"\\ud800\u{e9}\u{1F600}\"}"),
        7 => (0..rng.random_range(1..200))
            .map(|_| char::from(rng.random_range(32..127u8)))
            .collect(),
        8 => line.replace('}', r#","movetime_ms":18446744073709551616}"#),
        _ => line.replace(r#""cmd":""#, r#""cmd":"X"#),
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let count: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let seed: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let exe = std::env::current_exe().expect("own path");
    let engine = exe
        .parent()
        .and_then(|d| d.parent())
        .map(|d| d.join("connect4"))
        .expect("target directory");
    let mut child = Command::new(&engine)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "{}: {e} (build it with cargo build --release)",
                engine.display()
            )
        });
    let mut stdin = child.stdin.take().expect("piped");
    let stdout = child.stdout.take().expect("piped");
    let start = Instant::now();
    let writer = std::thread::spawn(move || {
        let mut rng = StdRng::seed_from_u64(seed);
        for _ in 0..count {
            let line = if rng.random_range(0..2) == 0 {
                valid(&mut rng)
            } else {
                mutated(&mut rng)
            };
            // Blank lines get no reply: keep every line non-blank.
            if writeln!(
                stdin,
                "{}",
                if line.trim().is_empty() { "x" } else { &line }
            )
            .is_err()
            {
                return;
            }
        }
    });
    let reader = std::thread::spawn(move || {
        let (mut finals, mut infos) = (0usize, 0usize);
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if line.contains(r#""type":"info""#) {
                infos += 1;
            } else {
                finals += 1;
            }
        }
        (finals, infos)
    });
    let (status, peak_kb) = connect4::lab::peak_memory::wait_with_peak(&mut child).expect("wait");
    writer.join().expect("writer");
    let (finals, infos) = reader.join().expect("reader");
    println!(
        "{count} lines (seed {seed}): {finals} final replies, {infos} info lines, exit {status}, \
         {:.1} s, engine peak memory {:.1} MB",
        start.elapsed().as_secs_f64(),
        peak_kb as f64 / 1024.0
    );
    if finals != count || !status.success() {
        println!("FAIL: expected {count} final replies and exit status 0");
        std::process::exit(1);
    }
}
