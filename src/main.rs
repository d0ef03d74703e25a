//! The `connect4` binary: with no arguments, a protocol session on stdin and
//! stdout; with a subcommand, a tool for people.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
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
    /// Solve files of `<moves> <score>` lines, check every score and time it.
    Bench {
        /// Files of labelled positions.
        files: Vec<std::path::PathBuf>,
        /// Transposition table size in MiB.
        #[arg(long, default_value_t = connect4::search::solver::DEFAULT_HASH_MB)]
        hash_mb: usize,
        /// Solve only the first N positions of each file.
        #[arg(long)]
        limit: Option<usize>,
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
        Some(Command::Bench {
            files,
            hash_mb,
            limit,
        }) => {
            let mut solver = connect4::search::Solver::new(hash_mb);
            let mut all_right = true;
            for file in files {
                let text = std::fs::read_to_string(&file)
                    .with_context(|| format!("reading {}", file.display()))?;
                let mut cases = connect4::bench::parse_cases(Rules::STANDARD, &text)
                    .with_context(|| format!("in {}", file.display()))?;
                cases.truncate(limit.unwrap_or(usize::MAX));
                let s = connect4::bench::run(&mut solver, &cases, |_, _| {});
                all_right &= s.wrong == 0;
                println!(
                    "{}: positions {} wrong {} mean {:.1} us median {:.1} us mean nodes {:.0} nodes/s {:.0}",
                    file.display(),
                    s.positions,
                    s.wrong,
                    s.mean.as_secs_f64() * 1e6,
                    s.median.as_secs_f64() * 1e6,
                    s.mean_nodes(),
                    s.nodes_per_second()
                );
            }
            Ok(if all_right {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        None => {
            eprintln!("connect4: the protocol session is not built yet; try --help");
            Ok(ExitCode::FAILURE)
        }
    }
}
