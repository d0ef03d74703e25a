//! The `connect4` binary: with no arguments, a protocol session on stdin and
//! stdout; with a subcommand, a tool for people.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::Result;
use clap::{Parser, Subcommand};
use connect4::Rules;

/// A perfect Connect-4 engine.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Count the distinct positions reachable after exactly N plies.
    Perft {
        /// Plies from the empty board.
        plies: u32,
        /// Board as COLUMNSxROWSxINAROW.
        #[arg(long, default_value = "7x6x4")]
        rules: Rules,
    },
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("connect4: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Some(Command::Perft { plies, rules }) => {
            let start = Instant::now();
            let count = connect4::perft::perft(rules, plies);
            let secs = start.elapsed().as_secs_f64();
            println!("perft {plies} ({rules}): {count} positions");
            println!(
                "time {:.3} s, {:.0} positions/s",
                secs,
                count as f64 / secs.max(1e-9)
            );
            Ok(ExitCode::SUCCESS)
        }
        None => {
            eprintln!("connect4: the protocol session is not built yet; try --help");
            Ok(ExitCode::FAILURE)
        }
    }
}
