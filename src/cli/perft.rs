//! `connect4 perft N`: positions reachable after N plies, with the speed.

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Result;
use connect4::Rules;

/// Arguments of `perft`.
#[derive(clap::Args)]
pub struct Args {
    /// Plies from the empty board.
    plies: u32,
    /// Board as COLUMNSxROWSxINAROW.
    #[arg(long, default_value = "7x6x4")]
    rules: Rules,
}

/// Counts and prints.
pub fn run(args: &Args, out: &mut impl Write) -> Result<ExitCode> {
    let start = Instant::now();
    let count = connect4::perft::perft(args.rules, args.plies);
    let secs = start.elapsed().as_secs_f64();
    writeln!(
        out,
        "perft {} ({}): {count} positions",
        args.plies, args.rules
    )?;
    writeln!(
        out,
        "time {:.3} s, {:.0} positions/s",
        secs,
        count as f64 / secs.max(1e-9)
    )?;
    Ok(ExitCode::SUCCESS)
}
