//! "Show solution": each column's exact score in a position, in the test
//! sets' convention (positive: the side to move wins, the sooner the
//! larger), from the book and the solver under a time cap per column; a
//! column the solver does not prove in time is said to be unproven.

use std::sync::Arc;
use std::time::{Duration, Instant};

use connect4::book::Book;
use connect4::search::{Budget, Limits, Solver};
use connect4::{Game, Player, Rules};
use serde_json::{Value, json};

use super::Reply;

/// The solver's time for one column.
const COLUMN_CAP: Duration = Duration::from_secs(1);
/// The solver's table for one request.
const HASH_MB: usize = 16;

/// The analysis of the standard board's position `pos` (a move string).
pub fn analyse(pos: &str) -> Reply {
    let game = Game::from_move_string(Rules::STANDARD, pos)
        .map_err(|e| format!("pos '{}': {e}", super::shorten(pos)))?;
    let p = *game.position();
    let to_move = if p.side_to_move() == Player::First {
        1
    } else {
        2
    };
    if p.is_over() {
        return Ok(json!({ "pos": pos, "to_move": to_move, "over": true, "columns": [] }));
    }
    let mut solver = Solver::new(HASH_MB).with_book(Some(Arc::clone(&Book::shipped())));
    let columns: Vec<Value> = (0..p.columns())
        .map(|c| {
            if !p.can_play(c) {
                return json!({ "column": c, "playable": false });
            }
            solver.set_budget(Budget::new(&Limits::time(COLUMN_CAP), Instant::now(), None));
            let score = solver.column_score_within(&p, c);
            json!({ "column": c, "playable": true, "score": score, "proven": score.is_some() })
        })
        .collect();
    Ok(json!({ "pos": pos, "to_move": to_move, "over": false, "columns": columns }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_empty_board_s_columns_are_scored_as_the_test_sets_score_them() {
        let a = analyse("").unwrap();
        let scores: Vec<i64> = a["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["score"].as_i64().unwrap())
            .collect();
        // Pons' solver: -2 -1 0 1 0 -1 -2 for the first move.
        assert_eq!(scores, [-2, -1, 0, 1, 0, -1, -2]);
        assert_eq!(a["to_move"], 1);
        let over = analyse("4455667").unwrap();
        assert_eq!(over["over"], true);
    }
}
