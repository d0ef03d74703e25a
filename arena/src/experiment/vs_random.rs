//! A: minimax (as alpha-beta, which plays the same moves) and expectimax at
//! depth 4 with the windows evaluator against a uniformly random mover,
//! from the empty board, in colour-swapped pairs. The report's setup (the
//! player always first, 100 games) is the first 100 games it started.
//!
//! Why expectimax loses: it averages over the opponent's replies as if they
//! were random, so a move that leaves the opponent one winning reply among
//! seven costs it only a seventh of a loss. The experiment counts, in each
//! agent's lost games, its moves that left the opponent a win in one when a
//! move that did not was available.

use anyhow::Result;
use connect4::plot::{Figure, Panel, Point, Series};
use connect4::stats::wilson;
use connect4::{Position, Rules};

use super::tally::{Record, cost, sides};
use super::{Context, MatchSetup, Outputs, fixed_depth, own_limit, play};
use crate::log::GameLine;

/// The report's game count.
const REPORT_GAMES: usize = 100;

/// The players and their agent specs.
const PLAYERS: [(&str, &str); 2] = [
    ("alphabeta-4", "alphabeta:depth=4"),
    ("expectimax-4", "expectimax:depth=4"),
];

/// The report's figures: wins, losses, draws of 100 games as first player.
const REPORT: [(u32, u32, u32); 2] = [(100, 0, 0), (87, 13, 0)];

/// Runs A with `games` games per player.
pub fn run(ctx: &Context, games: u32) -> Result<Outputs> {
    let mut csv = String::from(
        "player,colour,games,wins,draws,losses,win_rate,win_low,win_high,nodes_per_move,ms_per_move\n",
    );
    let mut table = String::from(
        "| player | setup | games | W-D-L | win rate [95%] | nodes/move | ms/move |\n|---|---|---|---|---|---|---|\n",
    );
    let mut blunders = String::from(
        "| player | games lost | lost games with a move that left a win in one (a safe move existed) | such moves, all games |\n|---|---|---|---|\n",
    );
    let mut curves = Vec::new();
    for (i, (name, agent)) in PLAYERS.iter().enumerate() {
        let setup = MatchSetup {
            label: &format!("A-{name}"),
            engines: [&fixed_depth(name, agent, 4), &own_limit("random", "random")],
            games,
            rules: Rules::STANDARD,
            opening_plies: 0,
        };
        let log = play(ctx, &setup)?;
        let s = sides(&log, name);
        let c = cost(&log, name);
        let as_report = report_setup(&log, name);
        let (w, l, d) = REPORT[i];
        table.push_str(&format!(
            "| {name} | the report: always first, 100 games | 100 | {w}-{d}-{l} | {w}% | | |\n"
        ));
        let report_label = format!(
            "its first {} games as first (the report's setup)",
            as_report.games()
        );
        for (colour, r) in [
            (report_label.as_str(), as_report),
            ("as first", s.first),
            ("as second", s.second),
            ("both colours", s.total()),
        ] {
            let (lo, hi) = r.win_interval();
            csv.push_str(&format!(
                "{name},{colour},{},{},{},{},{:.4},{:.4},{:.4},{:.1},{:.3}\n",
                r.games(),
                r.wins,
                r.draws,
                r.losses,
                r.win_rate(),
                lo,
                hi,
                c.nodes_per_move(),
                c.ms_per_move()
            ));
            table.push_str(&format!(
                "| {name} | {colour} | {} | {} | {} | {:.0} | {:.2} |\n",
                r.games(),
                r.text(),
                r.win_text(),
                c.nodes_per_move(),
                c.ms_per_move()
            ));
        }
        let (lost, with_blunder, all_blunders) = blunder_counts(&log, name);
        blunders.push_str(&format!(
            "| {name} | {lost} | {with_blunder} | {all_blunders} |\n"
        ));
        curves.push(win_rate_curve(&log, name));
    }
    let markdown = format!(
        "### A. Minimax and expectimax against a random mover\n\n\
         {games} games per player (colour-swapped pairs from the empty board; the random \
         mover is reseeded every game). The report's setup is the first {REPORT_GAMES} games \
         each player started.\n\n{table}\n\
         Where the losses come from:\n\n{blunders}"
    );
    let figure = Figure {
        title: "Against a random mover: win rate so far, with its 95% interval".into(),
        panels: vec![Panel {
            x_label: "games played".into(),
            y_label: "win rate (%)".into(),
            y_range: Some((50.0, 100.0)),
            series: curves,
            ..Panel::default()
        }],
    };
    Ok(Outputs {
        csv,
        markdown,
        figures: vec![("win-rate".into(), figure)],
    })
}

/// The first [`REPORT_GAMES`] games `name` started, as the report played.
fn report_setup(log: &[GameLine], name: &str) -> Record {
    let mut sorted: Vec<&GameLine> = log.iter().filter(|g| g.first == name).collect();
    sorted.sort_by_key(|g| g.game);
    let firsts: Vec<GameLine> = sorted.into_iter().take(REPORT_GAMES).cloned().collect();
    sides(&firsts, name).first
}

/// Games `name` lost, how many of them hold a move of its that left the
/// opponent a win in one while a safe move existed, and how many such
/// moves it made in all games.
fn blunder_counts(log: &[GameLine], name: &str) -> (u32, u32, u32) {
    let (mut lost, mut with_blunder, mut all) = (0, 0, 0);
    for g in log {
        let mut p = Position::new(Rules::STANDARD);
        let mine_first = g.first == name;
        let mut blunders = 0;
        for (i, ch) in g.moves.chars().enumerate() {
            let Some(column) = ch.to_digit(10).map(|d| d - 1) else {
                break;
            };
            let mine = (i % 2 == 0) == mine_first;
            let had_safe = p.non_losing_moves() != 0;
            p.play(column);
            if mine && had_safe && !p.is_over() && p.winning_moves() != 0 {
                blunders += 1;
            }
        }
        all += blunders;
        let points = if mine_first {
            g.first_points()
        } else {
            1.0 - g.first_points()
        };
        if points == 0.0 {
            lost += 1;
            with_blunder += u32::from(blunders > 0);
        }
    }
    (lost, with_blunder, all)
}

/// The win rate of `name` after each game, in game order, with its
/// interval (every tenth game, and the last).
fn win_rate_curve(log: &[GameLine], name: &str) -> Series {
    let mut sorted: Vec<&GameLine> = log.iter().collect();
    sorted.sort_by_key(|g| g.game);
    let (mut wins, mut points) = (0u32, Vec::new());
    for (i, g) in sorted.iter().enumerate() {
        let won = if g.first == name {
            g.first_points() == 1.0
        } else {
            g.first_points() == 0.0
        };
        wins += u32::from(won);
        let n = i as u32 + 1;
        if n.is_multiple_of(10) || i + 1 == sorted.len() {
            let (lo, hi) = wilson(wins, n);
            let rate = f64::from(wins) / f64::from(n);
            points.push(Point::with_interval(
                f64::from(n),
                100.0 * rate,
                100.0 * lo,
                100.0 * hi,
            ));
        }
    }
    Series::new(name, points)
}
