//! Runs a command and reports its peak resident memory (Linux), for soak
//! figures such as the arena's memory under a flood of engine output.
//!
//! ```sh
//! cargo run --release -p connect4-arena --example peak_memory -- \
//!   target/release/connect4-arena match --engine ... --games 1000
//! ```

use std::process::Command;
use std::time::{Duration, Instant};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(program) = args.next() else {
        eprintln!("usage: peak_memory PROGRAM [ARGS...]");
        std::process::exit(2);
    };
    let start = Instant::now();
    let mut child = Command::new(&program)
        .args(args)
        .spawn()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    let status_path = format!("/proc/{}/status", child.id());
    let mut peak_kb = 0u64;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if let Ok(text) = std::fs::read_to_string(&status_path)
            && let Some(kb) = text
                .lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<u64>().ok())
        {
            peak_kb = peak_kb.max(kb);
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    eprintln!(
        "peak_memory: {program} exited with {status} after {:.1} s; peak resident memory {:.1} MB",
        start.elapsed().as_secs_f64(),
        peak_kb as f64 / 1024.0
    );
    std::process::exit(status.code().unwrap_or(1));
}
