//! Following a run: the standings of a log as it grows (points, the
//! crosstable, the rating list with intervals, each pairing's Elo and
//! SPRT curve over the games) and, when the page is served by the run
//! itself (`--serve`), the games under way move by move.

use std::collections::{HashMap, HashSet};

use serde_json::{Value, json};

use super::replay::Library;
use crate::error::ApiResult;
use connect4_match::figures::thin;
use connect4_match::live::RunInfo;
use connect4_match::log::GameLine;

/// Points per curve at most; longer runs are thinned evenly.
const CURVE_POINTS: usize = 200;
/// Pairings drawn at most (those with the most games); each curve reads
/// every game, and a chart of more is no longer readable.
const CURVES_MOST: usize = 12;

/// The standings of the `log`-th log (from 1); `run` is the run writing it,
/// when it serves the page.
pub fn standings(library: &Library, run: Option<&RunInfo>, log: usize) -> ApiResult {
    let (path, games) = library.log(log)?;
    let (engines, pairings, sprt) = match run {
        Some(r) => (r.engines.clone(), r.pairings.clone(), r.sprt),
        None => {
            let (engines, pairings) = players_of(&games);
            (engines, pairings, None)
        }
    };
    let results = connect4_match::results::collect(&engines, &pairings, &games, sprt);
    let mut sorted: Vec<&GameLine> = games.iter().collect();
    sorted.sort_by_key(|g| g.game);
    let curves: Vec<Value> = most_played(&results, &pairings)
        .into_iter()
        .map(|(a, b)| {
            let (elo, llr) =
                connect4_match::figures::pairing_curves(&sorted, &engines[a], &engines[b], sprt);
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
        "finished": run.is_some_and(|r| r.finished.load(std::sync::atomic::Ordering::SeqCst)),
        "summary": results.summary(),
        "crosstable": crosstable(&results),
        "curves_left_out": pairings.len().saturating_sub(CURVES_MOST),
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
    let mut known: HashMap<String, usize> = HashMap::new();
    let mut index = |name: &str| match known.get(name) {
        Some(&i) => i,
        None => {
            engines.push(name.to_string());
            known.insert(name.to_string(), engines.len() - 1);
            engines.len() - 1
        }
    };
    let mut pairings: Vec<(usize, usize)> = Vec::new();
    let mut met: HashSet<(usize, usize)> = HashSet::new();
    for g in sorted {
        let (a, b) = (index(&g.first), index(&g.second));
        if a != b && met.insert((a.min(b), a.max(b))) {
            pairings.push((a, b));
        }
    }
    (engines, pairings)
}

/// The pairings with the most games, at most [`CURVES_MOST`], in their
/// order.
fn most_played(
    results: &connect4_match::results::Results,
    pairings: &[(usize, usize)],
) -> Vec<(usize, usize)> {
    if pairings.len() <= CURVES_MOST {
        return pairings.to_vec();
    }
    let mut by_games: Vec<usize> = (0..pairings.len()).collect();
    let games = |k: usize| results.pairings.get(k).map_or(0, |p| p.tally.games());
    by_games.sort_by_key(|&k| std::cmp::Reverse(games(k)));
    by_games.truncate(CURVES_MOST);
    by_games.sort_unstable();
    by_games.into_iter().map(|k| pairings[k]).collect()
}

/// The best engines' crosstable (at most
/// [`connect4_match::results::CROSSTABLE_MOST`], by score): row engine's points
/// against each column engine, and the games they played (0 where they
/// did not meet), as the page draws them, with how many engines are left
/// out.
fn crosstable(results: &connect4_match::results::Results) -> Value {
    let order = results.crosstable_order();
    let cells = results.crosstable_cells(&order);
    let points: Vec<Vec<f64>> = cells
        .iter()
        .map(|row| row.iter().map(|c| c.map_or(0.0, |c| c.0)).collect())
        .collect();
    let played: Vec<Vec<u32>> = cells
        .iter()
        .map(|row| row.iter().map(|c| c.map_or(0, |c| c.1)).collect())
        .collect();
    let engines: Vec<&str> = order
        .iter()
        .map(|&i| results.engines[i].name.as_str())
        .collect();
    json!({
        "engines": engines, "points": points, "games": played,
        "left_out": results.engines.len() - order.len(),
    })
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
        let results = connect4_match::results::collect(&engines, &pairings, &games, None);
        let table = crosstable(&results);
        // By score: c (1 of 1), b (1.5 of 2), a (0.5 of 3).
        assert_eq!(table["engines"], json!(["c", "b", "a"]));
        assert_eq!(table["points"][2][1], 0.5);
        assert_eq!(table["points"][1][2], 1.5);
        assert_eq!(table["points"][0][2], 1.0);
        assert_eq!(table["games"][2][1], 2);
        assert_eq!(table["left_out"], 0);
    }

    /// Issue #42, item 2: 2,000 games between 4,000 names. The crosstable
    /// holds the 40 best and says how many are left out, the curves the
    /// 12 pairings with the most games; the rating list still has every
    /// engine (computed in time linear in the games per iteration).
    #[test]
    fn a_log_of_thousands_of_names_gives_bounded_standings() {
        let dir = std::env::temp_dir().join(format!("c4-standings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("hostile.jsonl");
        let mut text = String::new();
        for g in 1..=2000u64 {
            let line = line(g, &format!("first-{g}"), &format!("second-{g}"), "1-0");
            text.push_str(&serde_json::to_string(&line).unwrap());
            text.push('\n');
        }
        std::fs::write(&path, &text).unwrap();
        let library = Library::load(std::slice::from_ref(&path)).unwrap();
        let standings = standings(&library, None, 1).unwrap();
        let table = &standings["crosstable"];
        assert_eq!(table["engines"].as_array().unwrap().len(), 40);
        assert_eq!(table["points"].as_array().unwrap().len(), 40);
        assert_eq!(table["left_out"], 3960);
        assert_eq!(standings["curves"].as_array().unwrap().len(), 12);
        assert_eq!(standings["curves_left_out"], 1988);
        assert_eq!(
            standings["summary"]["ratings"].as_array().unwrap().len(),
            4000
        );
        let bytes = standings.to_string().len();
        assert!(bytes < 4 << 20, "{bytes} bytes of standings");
        // A game appended is read without reading the log again.
        let extra = line(2001, "first-1", "second-1", "0-1");
        std::fs::write(
            &path,
            format!("{text}{}\n", serde_json::to_string(&extra).unwrap()),
        )
        .unwrap();
        let (_, games) = library.log(1).unwrap();
        assert_eq!(games.len(), 2001);
        std::fs::remove_dir_all(&dir).ok();
    }
}
