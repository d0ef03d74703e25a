//! `connect4 bench`: solve labelled positions, check every score, report
//! the speed; with no files, a built-in set and its node-count signature.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use connect4::Rules;
use connect4::bench::{BUILTIN, SetFigures, parse_cases};
use connect4::search::DEFAULT_HASH_MB;
use connect4::search::Solver;

/// Arguments of `bench`.
#[derive(clap::Args)]
pub struct Args {
    /// Files of `<moves> <score>` lines; none runs the built-in set.
    files: Vec<PathBuf>,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = DEFAULT_HASH_MB)]
    hash_mb: usize,
    /// Solve only the first N positions of each file.
    #[arg(long)]
    limit: Option<usize>,
    /// Threads that search, sharing the table (helpers prove the outcome and the root's children).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: u32,
}

/// Runs the benchmark; exit 1 if any score is wrong.
pub fn run(args: &Args, out: &mut impl Write) -> Result<ExitCode> {
    // Speed is measured without the book, as the reference solvers run.
    let mut solver = Solver::new(args.hash_mb).with_book(None);
    solver.set_threads(args.threads as usize);
    let mut sets = Vec::new();
    if args.files.is_empty() {
        sets.push(("built-in".to_string(), BUILTIN.to_string()));
    }
    for file in &args.files {
        let text =
            std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
        sets.push((file.display().to_string(), text));
    }
    let mut all_right = true;
    let mut total_nodes = 0;
    for (name, text) in &sets {
        let mut cases = parse_cases(Rules::STANDARD, text).with_context(|| format!("in {name}"))?;
        cases.truncate(args.limit.unwrap_or(usize::MAX));
        let summary = connect4::bench::run(&mut solver, &cases, |_, _| {});
        all_right &= summary.wrong == 0;
        total_nodes += summary.nodes;
        writeln!(out, "{}", report(name, &summary))?;
        if let Some(wrong) = &summary.first_wrong {
            writeln!(out, "  first wrong: {wrong}")?;
        }
    }
    if args.files.is_empty() {
        writeln!(out, "signature: {total_nodes} nodes")?;
    }
    Ok(if all_right {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// One line of figures for a set.
fn report(name: &str, s: &SetFigures) -> String {
    format!(
        "{name}: positions {} wrong {} mean {:.1} us median {:.1} us mean nodes {:.0} nodes/s {:.0}",
        s.positions,
        s.wrong,
        s.mean.as_secs_f64() * 1e6,
        s.median.as_secs_f64() * 1e6,
        s.mean_nodes(),
        s.nodes_per_second()
    )
}
