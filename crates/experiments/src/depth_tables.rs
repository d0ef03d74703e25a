//! D: the report's three pairings at depths 1 to 7, with alpha-beta and
//! with plain minimax: the untuned `features` evaluator against the random
//! evaluator, untuned against tuned, tuned against random. Games come in
//! colour-swapped pairs from random 4-ply openings (the report played every
//! game from the empty board, one colour each).
//!
//! The tuned weights come from a self-play tuning run in process with
//! enough games per candidate to tell weights apart ([`TUNE_PAIRS`] pairs,
//! against the report's 15 games), written to `OUT/D-tuned.json` and drawn
//! (it takes seconds and is the same for the same seed, so every run of
//! the experiment tunes again).

use std::num::NonZeroUsize;

use anyhow::Result;
use connect4::Rules;
use connect4::lab::plot::{Figure, Panel, Point, Series};
use connect4::lab::tune::{EvalKind, TuneOptions, Weights, run_figure, tune};

use crate::harness::{Context, MatchSetup, Outputs, fixed_depth, play};
use crate::tally::{cost, sides};
use connect4_match::log::GameLine;

/// The deepest depth played.
const MAX_DEPTH: u32 = 7;
/// Tuning: candidates tried.
const TUNE_ITERATIONS: u32 = 30;
/// Tuning: colour-swapped pairs per candidate (400 games).
const TUNE_PAIRS: u32 = 200;

/// The three pairings as the figure names them (E1 first).
const PAIRING_NAMES: [&str; 3] = [
    "1: untuned vs random evaluator",
    "2: untuned vs tuned",
    "3: tuned vs random evaluator",
];

/// The three pairings: labels and the two evaluators' spec parts.
fn pairings(tuned: &str) -> [(&'static str, [(&'static str, String); 2]); 3] {
    let untuned = ("untuned", "eval=features".to_string());
    let random = ("random-eval", "eval=random".to_string());
    let tuned = ("tuned", format!("weights={tuned}"));
    [
        ("1", [untuned.clone(), random.clone()]),
        ("2", [untuned, tuned.clone()]),
        ("3", [tuned, random]),
    ]
}

/// The CSV's header.
const CSV_HEADER: &str = "search,depth,pairing,e1,e2,e1_wins,e2_wins,draws,e1_win_low,e1_win_high,e1_nodes,e2_nodes,e1_ms,e2_ms\n";

/// What one search (with pruning or without) gave at every depth.
#[derive(Default)]
struct SearchRuns {
    /// CSV lines.
    csv: String,
    /// Its markdown table.
    table: String,
    /// E1's win rate per depth, one list per pairing.
    rates: [Vec<Point>; 3],
    /// The untuned evaluator's nodes per move per depth (pairing 1).
    nodes: Vec<(f64, f64)>,
    /// The games of pairing 2 per depth.
    pairing_2: Vec<(u32, Vec<GameLine>)>,
}

/// Runs D with `games` games per pairing, depth and search.
pub fn run(ctx: &Context, games: u32) -> Result<Outputs> {
    let (tuned_path, tuning, tuning_figure) = tuned_weights(ctx)?;
    let mut csv = String::from(CSV_HEADER);
    let mut tables = String::new();
    let mut win_series: Vec<Series> = Vec::new();
    let mut node_series: Vec<Series> = Vec::new();
    let mut same_games = Vec::new();
    for (search, label) in [
        ("alphabeta", "with pruning"),
        ("minimax", "without pruning"),
    ] {
        let runs = play_search(ctx, games, search, label, &tuned_path)?;
        csv.push_str(&runs.csv);
        tables.push_str(&runs.table);
        if search == "alphabeta" {
            for (points, name) in runs.rates.into_iter().zip(PAIRING_NAMES) {
                win_series.push(Series::new(name, points));
            }
        }
        node_series.push(Series::from_pairs(&format!("untuned, {label}"), runs.nodes));
        same_games.extend(runs.pairing_2.into_iter().map(|(d, log)| (search, d, log)));
    }
    let identical = identical_games(&same_games);
    let markdown = format!(
        "### D. Three pairings per depth, with and without pruning\n\n\
         Pairing 1: untuned `features` (E1) vs the random evaluator (E2); pairing 2: untuned (E1) \
         vs tuned (E2); pairing 3: tuned (E1) vs the random evaluator (E2). {games} games per \
         cell, colour-swapped pairs from random 4-ply openings, seed {}.\n\n\
         Tuned weights (`{}`): {tuning}\n{tables}\n\
         Pairing 2 (both evaluators deterministic) with and without pruning: {identical}\n",
        ctx.seed,
        ctx.out.join("D-tuned.json").display()
    );
    let figures = vec![
        ("tuning".into(), tuning_figure),
        ("win-rate".into(), win_rate_figure(games, win_series)),
        ("nodes".into(), nodes_figure(node_series)),
    ];
    Ok(Outputs {
        csv,
        markdown,
        figures,
    })
}

/// The three pairings at every depth with `search`, `label` naming it.
fn play_search(
    ctx: &Context,
    games: u32,
    search: &'static str,
    label: &str,
    tuned_path: &str,
) -> Result<SearchRuns> {
    let mut runs = SearchRuns {
        table: format!(
            "\n{label} (`{search}`): wins E1 / wins E2 / draws, E1's win rate [95%], mean nodes and ms per move E1 / E2\n\n\
             | depth | pairing 1 | win rate | nodes | ms | pairing 2 | win rate | nodes | ms | pairing 3 | win rate | nodes | ms |\n\
             |---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
        ),
        ..SearchRuns::default()
    };
    for depth in ctx.depths(MAX_DEPTH) {
        runs.table.push_str(&format!("| {depth} "));
        for (k, (pairing, engines)) in pairings(tuned_path).iter().enumerate() {
            let specs = engines.clone().map(|(name, eval)| {
                fixed_depth(name, &format!("{search}:depth={depth},{eval}"), depth)
            });
            let log = play(
                ctx,
                &MatchSetup {
                    label: &format!("D-{search}-{depth}-{pairing}"),
                    engines: [&specs[0], &specs[1]],
                    games,
                    rules: Rules::STANDARD,
                    opening_plies: 4,
                },
            )?;
            let (e1, e2) = (engines[0].0, engines[1].0);
            let r = sides(&log, e1).total();
            let (lo, hi) = r.win_interval();
            let (c1, c2) = (cost(&log, e1), cost(&log, e2));
            let (n1, n2) = (c1.nodes_per_move(), c2.nodes_per_move());
            let (ms1, ms2) = (c1.ms_per_move(), c2.ms_per_move());
            runs.csv.push_str(&format!(
                "{search},{depth},{pairing},{e1},{e2},{},{},{},{lo:.4},{hi:.4},{n1:.1},{n2:.1},{ms1:.3},{ms2:.3}\n",
                r.wins, r.losses, r.draws,
            ));
            runs.table.push_str(&format!(
                "| {}/{}/{} | {} | {n1:.0} / {n2:.0} | {ms1:.2} / {ms2:.2} ",
                r.wins,
                r.losses,
                r.draws,
                r.win_text(),
            ));
            let x = f64::from(depth);
            runs.rates[k].push(Point::with_interval(
                x,
                100.0 * r.win_rate(),
                100.0 * lo,
                100.0 * hi,
            ));
            match k {
                0 => runs.nodes.push((x, n1.max(1.0))),
                1 => runs.pairing_2.push((depth, log)),
                _ => {}
            }
        }
        runs.table.push_str("|\n");
    }
    Ok(runs)
}

/// E1's win rate per depth with pruning, one series per pairing.
fn win_rate_figure(games: u32, series: Vec<Series>) -> Figure {
    Figure {
        title: "Win rate of E1 (the first-named) per depth, alpha-beta".into(),
        panels: vec![Panel {
            x_label: "depth (plies)".into(),
            y_label: "E1's win rate (%)".into(),
            y_range: Some((0.0, 100.0)),
            guides: vec![("half of the games".into(), 50.0)],
            series,
            ..Panel::default()
        }],
        notes: vec![
            format!(
                "Each pairing E1 vs E2 at each depth: {games} games in colour-swapped \
                 pairs from random 4-ply openings; bars: 95% intervals (Wilson); draws \
                 are not wins."
            ),
            "untuned: the features evaluator's default weights; tuned: its weights \
             after tuning (D-tuning.svg); random evaluator: a random score per \
             position. Pairings 1, 2 and 3 of the report, in this order."
                .into(),
        ],
    }
}

/// The untuned evaluator's nodes per move, with pruning and without.
fn nodes_figure(series: Vec<Series>) -> Figure {
    Figure {
        title: "Nodes per move of the untuned evaluator, with and without pruning".into(),
        panels: vec![Panel {
            x_label: "depth (plies)".into(),
            y_label: "nodes per move (log scale)".into(),
            log_y: true,
            series,
            ..Panel::default()
        }],
        notes: vec![
            "Mean nodes per move over the games of pairing 1 (untuned vs random \
             evaluator) at each depth, for the untuned evaluator's moves."
                .into(),
        ],
    }
}

/// Tunes the weights: the file written, a line on the tuning, and its
/// picture.
fn tuned_weights(ctx: &Context) -> Result<(String, String, Figure)> {
    let path = std::path::absolute(ctx.out.join("D-tuned.json"))?;
    let start = Weights::defaults(EvalKind::Features);
    let options = TuneOptions {
        agent: "alphabeta:depth=2".into(),
        start: start.clone(),
        rules: Rules::STANDARD,
        iterations: TUNE_ITERATIONS,
        pairs: TUNE_PAIRS,
        opening_plies: 4,
        factor: 0.5,
        z: 2.0,
        seed: ctx.seed,
        threads: std::thread::available_parallelism().unwrap_or(NonZeroUsize::MIN),
    };
    println!(
        "D: tuning the features weights: {TUNE_ITERATIONS} candidates of {} games each",
        2 * TUNE_PAIRS
    );
    let mut steps = Vec::new();
    let tuned = tune(&options, |step, incumbent| {
        steps.push((step.clone(), incumbent.clone()))
    })?;
    tuned.save(&path)?;
    let kept = steps.iter().filter(|(s, _)| s.kept).count();
    Ok((
        path.display().to_string(),
        format!(
            "`{}` from `{}`: {TUNE_ITERATIONS} candidates at alpha-beta depth 2, each kept only \
             when it scored two standard errors above half over {} games against the \
             incumbent; {kept} kept",
            tuned.to_params(),
            start.to_params(),
            2 * TUNE_PAIRS
        ),
        run_figure(&start, &steps, &options.agent, TUNE_PAIRS),
    ))
}

/// Whether the untuned-vs-tuned games with pruning and without are the same
/// game for game, per depth.
fn identical_games(runs: &[(&str, u32, Vec<GameLine>)]) -> String {
    let mut parts = Vec::new();
    for (_, depth, pruned) in runs.iter().filter(|r| r.0 == "alphabeta") {
        let Some((_, _, plain)) = runs.iter().find(|r| r.0 == "minimax" && r.1 == *depth) else {
            continue;
        };
        let moves = |log: &[GameLine]| {
            let mut m: Vec<(u64, connect4::MoveList)> =
                log.iter().map(|g| (g.game, g.moves.clone())).collect();
            m.sort();
            m
        };
        let (a, b) = (moves(pruned), moves(plain));
        let same = a.iter().zip(&b).filter(|(x, y)| x == y).count();
        parts.push(format!(
            "depth {depth}: {same} of {} games identical",
            a.len()
        ));
    }
    parts.join("; ")
}
