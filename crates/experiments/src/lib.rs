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
mod learning;
mod local_7x7;
mod node_counts;
mod tally;
mod vs_random;

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};
use connect4::Rules;
use connect4::lab::plot::Figure;

use connect4_match::log::{self, GameLine};
use connect4_match::run::{RunArgs, run_games};
use connect4_match::schedule::Mode;
use connect4_match::spec::EngineSpec;

/// What an experiment needs from the command line.
pub struct Context {
    /// The folder for its files (and the matches' logs).
    pub out: PathBuf,
    /// The sample size: games per match, or positions (E); `None` for the
    /// experiment's default.
    pub games: Option<u32>,
    /// Games at once per match (default: the number of cores).
    pub concurrency: Option<usize>,
    /// Seed of openings, games and samples.
    pub seed: u64,
    /// The deepest search depth for the experiments that go depth by depth
    /// (D, E); `None` for their own (7).
    pub max_depth: Option<u32>,
}

impl Context {
    /// The depths to measure: 1 to `max_depth`, at most `own`.
    pub fn depths(&self, own: u32) -> std::ops::RangeInclusive<u32> {
        1..=self.max_depth.map_or(own, |d| d.clamp(1, own))
    }
}

/// What an experiment produces: its rows, its tables and its pictures.
pub struct Outputs {
    /// CSV text, header first.
    pub csv: String,
    /// Markdown: the tables and a few lines of reading.
    pub markdown: String,
    /// Pictures, by a short name (the file is `NAME-SHORT.svg`).
    pub figures: Vec<(String, Figure)>,
}

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

/// A match for an experiment: two engines, how many games, on what board.
pub struct MatchSetup<'a> {
    /// A short name, unique within the experiment: the log's file name.
    pub label: &'a str,
    /// The two engine specs (first and second of each pair's first game).
    pub engines: [&'a str; 2],
    /// Games (rounded up to whole colour-swapped pairs).
    pub games: u32,
    /// The board.
    pub rules: Rules,
    /// Plies of each random opening (0: every game from the empty board).
    pub opening_plies: u32,
}

/// Plays `setup` through the arena (resuming from its log) and returns
/// every game of it.
pub fn play(ctx: &Context, setup: &MatchSetup) -> Result<Vec<GameLine>> {
    let specs = setup
        .engines
        .iter()
        .map(|e| e.parse::<EngineSpec>().map_err(anyhow::Error::from))
        .collect::<Result<Vec<_>>>()?;
    let log_path = ctx.out.join("logs").join(format!("{}.jsonl", setup.label));
    let args = RunArgs {
        games: setup.games,
        opening_plies: setup.opening_plies,
        rules: setup.rules,
        seed: ctx.seed,
        concurrency: ctx.concurrency,
        log: Some(log_path.clone()),
        ..RunArgs::demo()
    };
    println!(
        "\n== {}: {} vs {}",
        setup.label, specs[0].name, specs[1].name
    );
    run_games(&specs, Mode::RoundRobin, &args, None, None)?;
    let games = log::read(&log_path)?;
    let expected = 2 * setup.games.div_ceil(2);
    if games.len() < expected as usize {
        bail!(
            "the match {} stopped after {} of {expected} games; run the experiment again to \
             resume it",
            setup.label,
            games.len()
        );
    }
    Ok(games)
}

/// An engine spec for a built-in agent that searches to a fixed depth: the
/// `go` carries the depth, so no clock cuts the search short.
pub fn fixed_depth(name: &str, agent: &str, depth: u32) -> String {
    format!("name={name},cmd=self,depth={depth},option.agent='{agent}'")
}

/// An engine spec for a built-in agent that needs no limit (random,
/// greedy, a Q-table) or has its own (MCTS simulations).
pub fn own_limit(name: &str, agent: &str) -> String {
    format!("name={name},cmd=self,movetime=60000,option.agent='{agent}'")
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
