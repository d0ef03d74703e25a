//! What every experiment uses: the context it runs in, what it produces, a
//! match played through the arena, and the engine specs of the built-in
//! agents.

use std::path::PathBuf;

use anyhow::{Result, bail};
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
