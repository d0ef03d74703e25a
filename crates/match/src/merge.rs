//! `merge`: the logs of shards (or of any runs of one schedule) combined,
//! each game counted once, and their results.

use std::collections::HashSet;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Result, bail};
use connect4::lab::stats::Sprt;

use crate::log::{self, GameLine};
use crate::results;
use crate::run::write_outputs;

/// What to merge and where the results go.
pub struct MergeOptions<'a> {
    /// The logs.
    pub logs: &'a [PathBuf],
    /// An SPRT applied to the merged results.
    pub sprt: Option<Sprt>,
    /// Where to write the summary JSON.
    pub summary: Option<&'a Path>,
    /// Where to write the CSV.
    pub csv: Option<&'a Path>,
    /// Where to draw the merged run.
    pub plot: Option<&'a Path>,
}

/// The games of `logs`, each game once, in order; also how many duplicates
/// were skipped. Logs of different runs are refused.
pub fn read_logs(logs: &[PathBuf]) -> Result<(Vec<GameLine>, usize)> {
    let mut games: Vec<GameLine> = Vec::new();
    let mut seen = HashSet::new();
    let mut duplicates = 0;
    for path in logs {
        if !path.exists() {
            bail!("{}: no such log", path.display());
        }
        for g in log::read(path)? {
            if let Some(first) = games.first()
                && first.run != g.run
            {
                bail!(
                    "{}: game {} belongs to run {}, the other logs to run {}: only logs of the same \
                     schedule (engines, openings, games) can be merged",
                    path.display(),
                    g.game,
                    g.run,
                    first.run
                );
            }
            if let Err(why) = g.check() {
                bail!(
                    "{}: game {} is not a game the arena could have logged: {why}",
                    path.display(),
                    g.game
                );
            }
            if seen.insert(g.game) {
                games.push(g);
            } else {
                duplicates += 1;
            }
        }
    }
    games.sort_by_key(|g| g.game);
    Ok((games, duplicates))
}

/// Engines and pairings as they appear in `games`, in order of first
/// appearance.
fn engines_and_pairings(games: &[GameLine]) -> (Vec<String>, Vec<(usize, usize)>) {
    let mut engines: Vec<String> = Vec::new();
    let mut pairings: Vec<(usize, usize)> = Vec::new();
    for g in games {
        for n in [&g.first, &g.second] {
            if !engines.contains(n) {
                engines.push(n.clone());
            }
        }
        let f = engines.iter().position(|n| *n == g.first).expect("added");
        let s = engines.iter().position(|n| *n == g.second).expect("added");
        if !pairings.contains(&(f, s)) && !pairings.contains(&(s, f)) {
            pairings.push((f, s));
        }
    }
    (engines, pairings)
}

/// Merges the logs and prints (and writes) their results.
pub fn run(options: &MergeOptions) -> Result<ExitCode> {
    options
        .logs
        .iter()
        .fold(crate::outputs::Files::new(), |f, log| {
            f.input("the log", Some(log))
        })
        .output("--summary", options.summary)
        .output("--csv", options.csv)
        .output("--plot", options.plot)
        .check()?;
    let (games, duplicates) = read_logs(options.logs)?;
    if games.is_empty() {
        bail!("the logs hold no games");
    }
    let (engines, pairings) = engines_and_pairings(&games);
    let results = results::collect(&engines, &pairings, &games, options.sprt);
    let mut out = io::stdout().lock();
    writeln!(
        out,
        "merged {} games from {} logs ({duplicates} duplicates skipped), run {}",
        games.len(),
        options.logs.len(),
        games[0].run
    )?;
    writeln!(out)?;
    write!(out, "{}", results.table())?;
    if engines.len() > 2 {
        writeln!(out)?;
        write!(out, "{}", results.crosstable())?;
        writeln!(out)?;
        write!(out, "{}", results.rating_table())?;
    }
    write_outputs(&results, options.summary, options.csv)?;
    if let Some(path) = options.plot {
        let title = format!(
            "{} games merged from {} log{}",
            games.len(),
            options.logs.len(),
            if options.logs.len() == 1 { "" } else { "s" }
        );
        crate::figures::run_figure(&title, &engines, &pairings, &games, options.sprt).save(path)?;
        writeln!(out, "drew the run in {}", path.display())?;
    }
    Ok(ExitCode::SUCCESS)
}
