//! Runs a command and reports its peak resident memory (Linux), for soak
//! figures such as the arena's memory under a flood of engine output.
//!
//! ```sh
//! cargo run --release -p connect4-arena --example peak_memory -- \
//!   target/release/connect4-arena match --engine ... --games 1000
//! ```

use std::process::Command;
use std::time::Instant;

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
    let (status, peak_kb) = connect4::lab::peak_memory::wait_with_peak(&mut child).expect("wait");
    eprintln!(
        "peak_memory: {program} exited with {status} after {:.1} s; peak resident memory {:.1} MB",
        start.elapsed().as_secs_f64(),
        peak_kb as f64 / 1024.0
    );
    std::process::exit(status.code().unwrap_or(1));
}
