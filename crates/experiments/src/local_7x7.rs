//! B: alpha-beta at depth 4 with the local evaluator (lines of the 5 x 5
//! window around each stone, open threes, centre completions: the report's
//! chosen heuristic) on a 7 x 7 board, against the greedy player and
//! against alpha-beta at depth 4 with the windows evaluator, in
//! colour-swapped pairs from random 2-ply openings. The report played each
//! pairing once per colour and gave no counts.

use anyhow::Result;
use connect4::Rules;
use connect4::lab::stats::PairedTally;

use crate::harness::{Context, MatchSetup, Outputs, fixed_depth, own_limit, play};
use crate::tally::{Record, cost, sides};
use connect4_match::figures::run_figure;
use connect4_match::log::GameLine;

/// The player under test.
const LOCAL: &str = "local-4";

/// Runs B with `games` games per pairing.
pub fn run(ctx: &Context, games: u32) -> Result<Outputs> {
    let rules = Rules::new(7, 7, 4)?;
    let local = fixed_depth(LOCAL, "alphabeta:depth=4,eval=local", 4);
    let opponents = [
        ("greedy", own_limit("greedy", "greedy")),
        (
            "windows-4",
            fixed_depth("windows-4", "alphabeta:depth=4,eval=windows", 4),
        ),
    ];
    let mut csv = format!(
        "opponent,colour,{},score,elo,elo_low,elo_high\n",
        Record::CSV_COLUMNS
    );
    let mut table = String::from(
        "| opponent | as first | as second | both | score | Elo [95%] | nodes/move (local, opponent) |\n|---|---|---|---|---|---|---|\n",
    );
    let mut all: Vec<GameLine> = Vec::new();
    for (name, spec) in &opponents {
        let log = play(
            ctx,
            &MatchSetup {
                label: &format!("B-{name}"),
                engines: [&local, spec],
                games,
                rules,
                opening_plies: 2,
            },
        )?;
        let s = sides(&log, LOCAL);
        let (elo, lo, hi) = local_elo(&log);
        for (colour, r) in [
            ("first", s.first),
            ("second", s.second),
            ("both", s.total()),
        ] {
            csv.push_str(&format!(
                "{name},{colour},{},{:.4},{elo:.1},{lo:.1},{hi:.1}\n",
                r.csv(),
                r.score()
            ));
        }
        table.push_str(&format!(
            "| {name} | {} | {} | {} | {:.3} | {elo:+.0} [{lo:+.0}, {hi:+.0}] | {:.0}, {:.0} |\n",
            s.first.text(),
            s.second.text(),
            s.total().text(),
            s.total().score(),
            cost(&log, LOCAL).nodes_per_move(),
            cost(&log, name).nodes_per_move()
        ));
        all.extend(log);
    }
    let markdown = format!(
        "### B. The local evaluator on a 7 x 7 board\n\n\
         alpha-beta at depth 4 with `eval=local`, {games} games per opponent in colour-swapped \
         pairs from random 2-ply openings on 7 x 7 x 4 (W-D-L from the local player's side).\n\n\
         {table}"
    );
    let engines = [LOCAL, "greedy", "windows-4"].map(String::from);
    let figure = run_figure(
        "The local evaluator on 7 x 7: Elo over the games",
        &engines,
        &[(0, 1), (0, 2)],
        &all,
        None,
    );
    Ok(Outputs {
        csv,
        markdown,
        figures: vec![("elo".into(), figure)],
    })
}

/// The local player's Elo difference and its 95% interval in `log`, from
/// its colour-swapped pairs.
fn local_elo(log: &[GameLine]) -> (f64, f64, f64) {
    let mut paired = PairedTally::default();
    for g in log {
        let points = if g.first == LOCAL {
            g.first_points()
        } else {
            1.0 - g.first_points()
        };
        paired.add(g.pair, points);
    }
    paired.tally.elo()
}
