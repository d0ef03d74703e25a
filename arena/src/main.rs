//! `connect4-arena`: matches, tournaments and grading between engine
//! processes. For now it only reports its version.

use clap::Parser;

/// Matches, tournaments and grading between Connect-4 engine processes.
#[derive(Parser)]
#[command(version, about)]
struct Cli {}

fn main() {
    let _cli = Cli::parse();
    println!("connect4-arena {}", env!("CARGO_PKG_VERSION"));
}
