//! "Show solution": each column's exact score in a position, in the test
//! sets' convention (positive: the side to move wins, the sooner the
//! larger), from the book and the solver under a time cap per column. A
//! column the solver does not prove in time gets the clocked search's
//! estimate instead, marked as not exact: its outcome when that is proven
//! without the distance, else a heuristic value; the page then asks again
//! with a longer cap (`deep`) and puts the proof in its place.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use connect4::book::Book;
use connect4::score::Outcome;
use connect4::search::{Budget, Limits, SearchScore, Searcher, Solver};
use connect4::{Game, Player, Position, Rules};
use serde_json::{Value, json};

use super::Reply;

/// The solver's time for one column.
const COLUMN_CAP: Duration = Duration::from_secs(1);
/// The solver's time for one column when the page asks for the proof of
/// the columns a first answer left unproven.
const DEEP_CAP: Duration = Duration::from_secs(8);
/// The clocked search's time for the estimates, all columns together.
const ESTIMATE_TIME: Duration = Duration::from_millis(700);
/// The solver's table for one request.
const HASH_MB: usize = 16;

/// The analysis of the standard board's position `moves` (a move string):
/// every column, numbered from 1, with its score and whether it is exact.
pub fn analyze(moves: &str, deep: bool) -> Reply {
    let game = Game::from_move_string(Rules::STANDARD, moves)
        .map_err(|e| format!("moves '{}': {e}", super::shorten(moves)))?;
    let p = *game.position();
    let to_move = if p.side_to_move() == Player::First {
        1
    } else {
        2
    };
    if p.is_over() {
        return Ok(json!({ "moves": moves, "to_move": to_move, "over": true, "columns": [] }));
    }
    let cap = if deep { DEEP_CAP } else { COLUMN_CAP };
    let mut solver = Solver::new(HASH_MB).with_book(Some(Arc::clone(&Book::shipped())));
    let exact: Vec<Option<i32>> = (0..p.columns())
        .map(|c| {
            if !p.can_play(c) {
                return None;
            }
            solver.set_budget(Budget::new(&Limits::time(cap), Instant::now(), None));
            solver.column_score_within(&p, c)
        })
        .collect();
    let unproven = (0..p.columns()).any(|c| p.can_play(c) && exact[c as usize].is_none());
    let estimates = if unproven {
        estimates(&p)
    } else {
        HashMap::new()
    };
    let columns: Vec<Value> = (0..p.columns())
        .map(|c| column(&p, c, exact[c as usize], estimates.get(&c)))
        .collect();
    Ok(json!({ "moves": moves, "to_move": to_move, "over": false, "columns": columns }))
}

/// The clocked search's score of every legal column of `p`.
fn estimates(p: &Position) -> HashMap<u32, SearchScore> {
    let mut searcher = Searcher::new(HASH_MB);
    searcher.set_book(Some(Arc::clone(&Book::shipped())));
    searcher
        .analyze(p, &Limits::time(ESTIMATE_TIME), None)
        .into_iter()
        .collect()
}

/// What the page shows of column `c` (from 0): its exact score, or the
/// estimate, with its proven outcome if the estimate knows it.
fn column(p: &Position, c: u32, exact: Option<i32>, estimate: Option<&SearchScore>) -> Value {
    let number = c + 1;
    if !p.can_play(c) {
        return json!({ "column": number, "playable": false });
    }
    if let Some(score) = exact {
        return json!({ "column": number, "playable": true, "exact": true, "score": score });
    }
    let outcome = estimate.and_then(|e| e.outcome).map(|o| match o {
        Outcome::Win => "win",
        Outcome::Draw => "draw",
        Outcome::Loss => "loss",
    });
    json!({
        "column": number, "playable": true, "exact": false,
        "outcome": outcome, "estimate": estimate.map(|e| e.value),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_empty_board_s_columns_are_scored_as_the_test_sets_score_them() {
        let a = analyze("", false).unwrap();
        let columns = a["columns"].as_array().unwrap();
        let scores: Vec<i64> = columns
            .iter()
            .map(|c| c["score"].as_i64().unwrap())
            .collect();
        // Pons' solver: -2 -1 0 1 0 -1 -2 for the first move.
        assert_eq!(scores, [-2, -1, 0, 1, 0, -1, -2]);
        assert!(columns.iter().all(|c| c["exact"] == true));
        assert_eq!(columns[3]["column"], 4);
        assert_eq!(a["to_move"], 1);
        let over = analyze("4455667", false).unwrap();
        assert_eq!(over["over"], true);
    }

    #[test]
    fn an_unproven_column_has_an_estimate_marked_not_exact() {
        let p = Game::from_move_string(Rules::STANDARD, "44")
            .unwrap()
            .position()
            .to_owned();
        let estimate = SearchScore::proven(Outcome::Win);
        let shown = column(&p, 2, None, Some(&estimate));
        assert_eq!(shown["exact"], false);
        assert_eq!(shown["outcome"], "win");
        assert_eq!(shown["column"], 3);
        assert!(shown.get("score").is_none());
    }
}
