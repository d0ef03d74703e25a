//! `experiment`: the course reports' experiments, rerun with this project's
//! agents and arena at any game count, each writing a CSV, a markdown table
//! and SVG pictures into one folder (see docs/experiments.md).
//!
//! Every match goes through the arena ([`connect4_match::run::run_games`]) with the
//! course agents as engine processes, in colour-swapped pairs, with its log
//! in `OUT/logs/`: running an experiment again resumes its matches. The
//! parts that are not matches (node counts, Q-learning training, weight
//! tuning) run in process.

mod depth_tables;
mod harness;
mod learning;
mod local_7x7;
mod node_counts;
mod tally;
mod vs_random;

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};

pub use harness::{Context, Outputs};

/// One experiment of the registry.
pub struct Experiment {
    /// Its letter in docs/experiments.md and the reports' material.
    pub letter: &'static str,
    /// Its name on the command line.
    pub name: &'static str,
    /// One line about it.
    pub about: &'static str,
    /// The sample size when `--games` is not given.
    pub default_games: u32,
    /// Runs it.
    pub run: fn(&Context, u32) -> Result<Outputs>,
}

/// The experiments, in the order of the reports' material.
pub const EXPERIMENTS: &[Experiment] = &[
    Experiment {
        letter: "A",
        name: "vs-random",
        about: "minimax (alpha-beta) and expectimax at depths 4 and 2 against a random mover, \
                both colours, with intervals, and why expectimax loses",
        default_games: 1000,
        run: vs_random::run,
    },
    Experiment {
        letter: "B",
        name: "local-7x7",
        about: "alpha-beta with the local evaluator on a 7 x 7 board against greedy and \
                against alpha-beta with the windows evaluator",
        default_games: 200,
        run: local_7x7::run,
    },
    Experiment {
        letter: "C",
        name: "learning",
        about: "Q-learning for 12,000 games against the tactical greedy player (learning \
                curve), then Q-learning and MCTS at several budgets against random as each \
                colour",
        default_games: 200,
        run: learning::run,
    },
    Experiment {
        letter: "D",
        name: "depth-tables",
        about: "untuned vs random evaluator, untuned vs tuned, tuned vs random at depths 1 to \
                7, with and without pruning: results, nodes and time per move",
        default_games: 100,
        run: depth_tables::run,
    },
    Experiment {
        letter: "E",
        name: "node-counts",
        about: "exact nodes of minimax and alpha-beta on the same positions per depth, \
                against b^d and the b^(d/2) best case",
        default_games: 100,
        run: node_counts::run,
    },
];

/// The experiment named `name` (its name or its letter, any case).
pub fn find(name: &str) -> Result<&'static Experiment> {
    EXPERIMENTS
        .iter()
        .find(|e| e.name.eq_ignore_ascii_case(name) || e.letter.eq_ignore_ascii_case(name))
        .with_context(|| {
            format!(
                "no experiment '{name}'; the experiments: {}",
                EXPERIMENTS
                    .iter()
                    .map(|e| format!("{} ({})", e.name, e.letter))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
}

/// The list `--list` prints.
pub fn list() -> String {
    EXPERIMENTS
        .iter()
        .map(|e| {
            format!(
                "{}  {:<13} {} (default --games {})\n",
                e.letter, e.name, e.about, e.default_games
            )
        })
        .collect()
}

/// Runs `experiment` and writes its files; returns their paths.
pub fn run(experiment: &Experiment, ctx: &Context) -> Result<Vec<PathBuf>> {
    let games = ctx.games.unwrap_or(experiment.default_games);
    if games == 0 {
        bail!("--games 0: expected at least 1");
    }
    std::fs::create_dir_all(ctx.out.join("logs"))
        .with_context(|| format!("creating the folder {}", ctx.out.display()))?;
    let outputs = (experiment.run)(ctx, games)?;
    let stem = experiment.letter;
    let mut written = vec![
        ctx.out.join(format!("{stem}.csv")),
        ctx.out.join(format!("{stem}.md")),
    ];
    write(&written[0], &outputs.csv)?;
    write(&written[1], &outputs.markdown)?;
    for (short, figure) in &outputs.figures {
        let path = ctx.out.join(format!("{stem}-{short}.svg"));
        figure.save(&path)?;
        written.push(path);
    }
    Ok(written)
}

/// Writes `text` to `path`, naming the file on failure.
fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn experiments_are_found_by_name_or_letter_and_unknown_ones_listed() {
        assert_eq!(find("node-counts").unwrap().letter, "E");
        assert_eq!(find("a").unwrap().name, "vs-random");
        let e = find("nope").err().unwrap().to_string();
        assert!(e.contains("vs-random (A)"), "{e}");
        assert_eq!(list().lines().count(), EXPERIMENTS.len());
    }
}
