//! A: minimax (as alpha-beta, which plays the same moves) and expectimax at
//! depths 4 and 2 with the windows evaluator against a uniformly random mover,
//! from the empty board, in colour-swapped pairs. The report's setup (the
//! player always first, 100 games) is the first 100 games it started.
//!
//! Why expectimax loses: it averages over the opponent's replies as if they
//! were random, so a move that leaves the opponent one winning reply among
//! seven costs it only a seventh of a loss. The experiment counts, in each
//! agent's lost games, its moves that left the opponent a win in one when a
//! move that did not was available.

use anyhow::Result;
use connect4::lab::plot::{Figure, Panel, Point, Series};
use connect4::lab::stats::wilson;
use connect4::{Position, Rules};

use crate::harness::{Context, MatchSetup, Outputs, fixed_depth, own_limit, play};
use crate::tally::{Record, cost, sides};
use connect4_match::log::GameLine;

/// The report's game count.
const REPORT_GAMES: usize = 100;

/// Wins, losses and draws.
type Wld = (u32, u32, u32);

/// The players: name, agent spec, depth, and the report's wins, losses and
/// draws in 100 games as first player (the report does not give its depth;
/// depth 2 shows what a shallower search does).
const PLAYERS: [(&str, &str, u32, Option<Wld>); 4] = [
    ("alphabeta-4", "alphabeta:depth=4", 4, Some((100, 0, 0))),
    ("expectimax-4", "expectimax:depth=4", 4, Some((87, 13, 0))),
    ("alphabeta-2", "alphabeta:depth=2", 2, None),
    ("expectimax-2", "expectimax:depth=2", 2, None),
];

/// The experiment's CSV and its two markdown tables, a player at a time.
struct Tables {
    /// CSV lines.
    csv: String,
    /// The results per setup.
    results: String,
    /// Where the losses come from.
    blunders: String,
}

impl Tables {
    /// The headers alone.
    fn new() -> Tables {
        Tables {
            csv: format!(
                "player,colour,{},nodes_per_move,ms_per_move\n",
                Record::CSV_COLUMNS
            ),
            results: String::from(
                "| player | setup | games | W-D-L | win rate [95%] | nodes/move | ms/move |\n|---|---|---|---|---|---|---|\n",
            ),
            blunders: String::from(
                "| player | games lost | lost games with a move that left a win in one (a safe move existed) | such moves, all games | of which the random mover took the win |\n|---|---|---|---|---|\n",
            ),
        }
    }

    /// The rows of `name`, whose games are `log`; `report` is what the
    /// report measured for it, if it did.
    fn add(&mut self, name: &str, report: Option<Wld>, log: &[GameLine]) {
        let s = sides(log, name);
        let c = cost(log, name);
        let (nodes, ms) = (c.nodes_per_move(), c.ms_per_move());
        let as_report = report_setup(log, name);
        if let Some((w, l, d)) = report {
            self.results.push_str(&format!(
                "| {name} | the report: always first, 100 games | 100 | {w}-{d}-{l} | {w}% | | |\n"
            ));
        }
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
            self.csv
                .push_str(&format!("{name},{colour},{},{nodes:.1},{ms:.3}\n", r.csv()));
            self.results.push_str(&format!(
                "| {name} | {colour} | {} | {} | {} | {nodes:.0} | {ms:.2} |\n",
                r.games(),
                r.text(),
                r.win_text(),
            ));
        }
        let b = blunder_counts(log, name);
        self.blunders.push_str(&format!(
            "| {name} | {} | {} | {} | {} |\n",
            b.lost, b.lost_with_blunder, b.blunders, b.punished
        ));
    }
}

/// Runs A with `games` games per player.
pub fn run(ctx: &Context, games: u32) -> Result<Outputs> {
    let mut tables = Tables::new();
    let mut ours =
        Series::new(&format!("ours: {games} games, both colours"), Vec::new()).marks_only();
    let mut theirs = Series::new("the report: 100 games as first", Vec::new()).marks_only();
    let mut names = Vec::new();
    for (name, agent, depth, report) in PLAYERS {
        let setup = MatchSetup {
            label: &format!("A-{name}"),
            engines: [
                &fixed_depth(name, agent, depth),
                &own_limit("random", "random"),
            ],
            games,
            rules: Rules::STANDARD,
            opening_plies: 0,
        };
        let log = play(ctx, &setup)?;
        tables.add(name, report, &log);
        // Side by side at the player's tick: ours left, the report's right.
        let x = names.len() as f64;
        let total = sides(&log, name).total();
        let (lo, hi) = total.win_interval();
        let rate = 100.0 * total.win_rate();
        ours.points
            .push(Point::with_interval(x - 0.1, rate, 100.0 * lo, 100.0 * hi));
        if let Some((w, _, _)) = report {
            let (lo, hi) = wilson(w, 100);
            let rate = f64::from(w);
            theirs
                .points
                .push(Point::with_interval(x + 0.1, rate, 100.0 * lo, 100.0 * hi));
        }
        names.push(name.to_string());
    }
    let markdown = format!(
        "### A. Minimax and expectimax against a random mover\n\n\
         {games} games per player (colour-swapped pairs from the empty board; the random \
         mover is reseeded every game). The report's setup is the first {REPORT_GAMES} games \
         each player started.\n\n{}\n\
         Where the losses come from:\n\n{}",
        tables.results, tables.blunders
    );
    let figure = win_rate_figure(games, names, vec![ours, theirs]);
    Ok(Outputs {
        csv: tables.csv,
        markdown,
        figures: vec![("win-rate".into(), figure)],
    })
}

/// The players' win rates, ours beside the report's, named by `names`.
fn win_rate_figure(games: u32, names: Vec<String>, series: Vec<Series>) -> Figure {
    Figure {
        title: "Against a random mover: win rate with its 95% interval".into(),
        panels: vec![Panel {
            x_label: "player (search and depth in plies)".into(),
            y_label: "win rate (%)".into(),
            y_range: Some((70.0, 101.0)),
            x_ticks: (0..).zip(names).collect(),
            series,
            ..Panel::default()
        }],
        notes: vec![format!(
            "Ours: {games} games per player in colour-swapped pairs from the empty board; \
             the report: its 100 games, always first (only for the players it measured). \
             Bars: 95% intervals (Wilson)."
        )],
    }
}

/// The first [`REPORT_GAMES`] games `name` started, as the report played.
fn report_setup(log: &[GameLine], name: &str) -> Record {
    let mut sorted: Vec<&GameLine> = log.iter().filter(|g| g.first == name).collect();
    sorted.sort_by_key(|g| g.game);
    let firsts: Vec<GameLine> = sorted.into_iter().take(REPORT_GAMES).cloned().collect();
    sides(&firsts, name).first
}

/// Moves that left the opponent a win in one while a safe move existed.
#[derive(Default)]
struct Blunders {
    /// Games the player lost.
    lost: u32,
    /// Lost games with at least one such move.
    lost_with_blunder: u32,
    /// Such moves in all games.
    blunders: u32,
    /// Such moves the opponent answered with the win.
    punished: u32,
}

/// Counts the blunders of `name` in `log`.
fn blunder_counts(log: &[GameLine], name: &str) -> Blunders {
    let mut counts = Blunders::default();
    for g in log {
        let mut p = Position::new(Rules::STANDARD);
        let mine_first = g.first == name;
        let (mut blunders, mut left_a_win) = (0, false);
        for (i, column) in g.moves.columns().enumerate() {
            let mine = (i % 2 == 0) == mine_first;
            let had_safe = p.non_losing_moves() != 0;
            p.play(column);
            if !mine && left_a_win && p.last_move_won() {
                counts.punished += 1;
            }
            left_a_win = mine && had_safe && !p.is_over() && p.winning_moves() != 0;
            blunders += u32::from(left_a_win);
        }
        counts.blunders += blunders;
        let points = if mine_first {
            g.first_points()
        } else {
            1.0 - g.first_points()
        };
        if points == 0.0 {
            counts.lost += 1;
            counts.lost_with_blunder += u32::from(blunders > 0);
        }
    }
    counts
}
