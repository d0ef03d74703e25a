//! `connect4 solve`: exact scores of positions, one line each, in the format
//! of the reference solvers.

use std::io::{self, BufRead, Write};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use connect4::search::DEFAULT_HASH_MB;
use connect4::search::Solver;
use connect4::{Game, Rules, Status};

use super::line;

/// Arguments of `solve`.
#[derive(clap::Args)]
pub struct Args {
    /// Move strings such as 4453; with none, one per line from stdin.
    positions: Vec<String>,
    /// Print only the outcome: 1 win, 0 draw, -1 loss (faster).
    #[arg(long, conflicts_with = "analyze")]
    weak: bool,
    /// Print the score of every column (`-` for a full column).
    #[arg(long)]
    analyze: bool,
    /// Also print the nodes searched and the time in microseconds.
    #[arg(long)]
    stats: bool,
    /// Board as COLUMNSxROWSxINAROW.
    #[arg(long, default_value = "7x6x4")]
    rules: Rules,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = DEFAULT_HASH_MB)]
    hash_mb: usize,
    /// Solve without the opening book (as the reference solvers do).
    #[arg(long)]
    no_book: bool,
    /// Threads that search, sharing the table (helpers prove the outcome and the root's children).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: u32,
}

/// Solves each position and prints `<moves> <score>`; an invalid position
/// prints its error on stderr and an empty line on stdout, so that outputs
/// stay aligned with inputs. Fails (exit 1) if any line was invalid.
pub fn run(args: &Args, out: &mut impl Write) -> Result<ExitCode> {
    let solver = if args.no_book {
        Solver::try_without_book(args.hash_mb)
    } else {
        Solver::try_new(args.hash_mb)
    };
    let mut solver =
        solver.with_context(|| format!("no memory for a {} MiB table", args.hash_mb))?;
    solver.set_threads(args.threads as usize);
    let mut all_valid = true;
    // Where a bad position was: a line of stdin, or an argument.
    let mut each = |place: &dyn Fn() -> String, text: &str, out: &mut dyn Write| -> Result<()> {
        match answer(args, &mut solver, text) {
            Ok(answer) => line(out, &answer)?,
            Err(message) => {
                all_valid = false;
                eprintln!("connect4 solve: {}: {message}", place());
                line(out, "")?;
            }
        }
        Ok(())
    };
    if args.positions.is_empty() {
        for (i, text) in io::stdin().lock().lines().enumerate() {
            each(&|| format!("line {}", i + 1), &text?, out)?;
        }
    } else {
        for (i, text) in args.positions.iter().enumerate() {
            each(&|| format!("argument {} ('{text}')", i + 1), text, out)?;
        }
    }
    Ok(if all_valid {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The answer line for one position, or what is wrong with it.
fn answer(args: &Args, solver: &mut Solver, text: &str) -> Result<String, String> {
    let moves = text.trim();
    let game = Game::from_move_string(args.rules, moves).map_err(|e| e.to_string())?;
    let p = *game.position();
    match p.status() {
        Status::Ongoing => {}
        Status::Won(player) => return Err(format!("'{moves}': the game is over ({player} won)")),
        Status::Draw => return Err(format!("'{moves}': the game is over (draw)")),
    }
    let start = Instant::now();
    let mut text = moves.to_string();
    if args.analyze {
        for s in solver.analyze(&p) {
            match s {
                Some(s) => text.push_str(&format!(" {s}")),
                None => text.push_str(" -"),
            }
        }
    } else if args.weak {
        text.push_str(&format!(" {}", solver.solve_weak(&p)));
    } else {
        text.push_str(&format!(" {}", solver.solve(&p)));
    }
    if args.stats {
        let us = start.elapsed().as_micros();
        text.push_str(&format!(" {} {us}", solver.nodes()));
    }
    Ok(text)
}
