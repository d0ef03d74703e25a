//! Following a run: the standings of a log as it grows (points, the
//! crosstable, the rating list with intervals, each pairing's Elo and
//! SPRT curve over the games) and, when the page is served by the run
//! itself (`--serve`), the games under way move by move.

use std::sync::Arc;

use connect4::lab::stats::Sprt;
use serde_json::{Value, json};

use super::Reply;
use super::replay::Library;
use crate::figures::thin;
use crate::live::InProgress;
use crate::log::GameLine;

/// Points per curve at most; longer runs are thinned evenly.
const CURVE_POINTS: usize = 200;

/// What a run that serves its own page knows beyond its log.
pub struct RunInfo {
    /// The engines, in the order given.
    pub engines: Vec<String>,
    /// The pairings, as indices into `engines`.
    pub pairings: Vec<(usize, usize)>,
    /// The SPRT, if one runs.
    pub sprt: Option<Sprt>,
    /// The games under way.
    pub in_progress: Arc<InProgress>,
}

/// The standings of the `log`-th log (from 1); `run` is the run writing it,
/// when it serves the page.
pub fn standings(library: &Library, run: Option<&RunInfo>, log: usize) -> Reply {
    let (path, games) = library.log(log)?;
    let (engines, pairings, sprt) = match run {
        Some(r) => (r.engines.clone(), r.pairings.clone(), r.sprt),
        None => {
            let (engines, pairings) = players_of(&games);
            (engines, pairings, None)
        }
    };
    let results = crate::results::collect(&engines, &pairings, &games, sprt);
    let mut sorted: Vec<&GameLine> = games.iter().collect();
    sorted.sort_by_key(|g| g.game);
    let curves: Vec<Value> = pairings
        .iter()
        .map(|&(a, b)| {
            let (elo, llr) =
                crate::figures::pairing_curves(&sorted, &engines[a], &engines[b], sprt);
            json!({
                "a": engines[a], "b": engines[b],
                "elo": thin(elo, CURVE_POINTS).iter().map(|p| json!([p.x, p.y, p.interval.map(|i| i.0), p.interval.map(|i| i.1)])).collect::<Vec<_>>(),
                "llr": thin(llr, CURVE_POINTS).iter().map(|p| json!([p.x, p.y])).collect::<Vec<_>>(),
            })
        })
        .collect();
    let running = run.map(|r| r.in_progress.snapshot()).unwrap_or_default();
    Ok(json!({
        "log": log, "name": path.display().to_string(), "live": run.is_some(),
        "summary": results.summary(),
        "crosstable": crosstable(&engines, &results),
        "curves": curves,
        "sprt": sprt.map(|s| {
            let (lower, upper) = s.bounds();
            json!({ "elo0": s.elo0, "elo1": s.elo1, "alpha": s.alpha, "beta": s.beta,
                    "lower": lower, "upper": upper })
        }),
        "running": running,
    }))
}

/// The engines of a log in the order they first play, and the pairings in
/// the order they first meet (the first game's first player first).
pub(super) fn players_of(games: &[GameLine]) -> (Vec<String>, Vec<(usize, usize)>) {
    let mut sorted: Vec<&GameLine> = games.iter().collect();
    sorted.sort_by_key(|g| g.game);
    let mut engines: Vec<String> = Vec::new();
    let mut pairings: Vec<(usize, usize)> = Vec::new();
    let index = |name: &str, engines: &mut Vec<String>| match engines.iter().position(|e| e == name)
    {
        Some(i) => i,
        None => {
            engines.push(name.to_string());
            engines.len() - 1
        }
    };
    for g in sorted {
        let (a, b) = (
            index(&g.first, &mut engines),
            index(&g.second, &mut engines),
        );
        if a != b && !pairings.contains(&(a, b)) && !pairings.contains(&(b, a)) {
            pairings.push((a, b));
        }
    }
    (engines, pairings)
}

/// Row engine's points against each column engine, and the games they
/// played (0 where they did not meet), as the page draws them.
fn crosstable(engines: &[String], results: &crate::results::Results) -> Value {
    let cells = results.crosstable_cells();
    let points: Vec<Vec<f64>> = cells
        .iter()
        .map(|row| row.iter().map(|c| c.map_or(0.0, |c| c.0)).collect())
        .collect();
    let played: Vec<Vec<u32>> = cells
        .iter()
        .map(|row| row.iter().map(|c| c.map_or(0, |c| c.1)).collect())
        .collect();
    json!({ "engines": engines, "points": points, "games": played })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(game: u64, first: &str, second: &str, result: &str) -> GameLine {
        serde_json::from_value(json!({
            "run": "r", "game": game, "pair": game.div_ceil(2), "first": first,
            "second": second, "result": result, "reason": "line", "moves": "4444",
            "opening": "", "rules": "7x6x4", "seed": 1, "plies": []
        }))
        .unwrap()
    }

    #[test]
    fn a_log_s_players_and_crosstable_come_from_its_games() {
        let games = vec![
            line(2, "b", "a", "1-0"),
            line(1, "a", "b", "1/2-1/2"),
            line(3, "a", "c", "0-1"),
        ];
        let (engines, pairings) = players_of(&games);
        assert_eq!(engines, ["a", "b", "c"]);
        assert_eq!(pairings, [(0, 1), (0, 2)]);
        let results = crate::results::collect(&engines, &pairings, &games, None);
        let table = crosstable(&engines, &results);
        assert_eq!(table["points"][0][1], 0.5);
        assert_eq!(table["points"][1][0], 1.5);
        assert_eq!(table["points"][2][0], 1.0);
        assert_eq!(table["games"][0][1], 2);
    }
}
