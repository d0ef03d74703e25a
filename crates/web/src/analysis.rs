//! "Show solution": each column's exact score in a position, in the test
//! sets' convention (positive: the side to move wins, the sooner the
//! larger), from the book and the solver, on any board the engine plays.
//!
//! A first answer comes at once (all columns within [`FIRST_ANSWER`]): the
//! engine's own analysis ([`Searcher::analyze`], what the protocol's
//! `analyze` answers), which gives the columns the book or its exact
//! attempts prove their score, the others its estimate, marked as not
//! exact (its outcome when that is proven without the distance, else a
//! heuristic value). The page
//! then asks for the proof of each unproven column (`column` and `deep`):
//! the prover ([`crate::prover`]) proves it on its own thread for as long
//! as it takes while the page keeps asking, and a request answers with the
//! score once it is proven, else at most [`crate::prover::WAIT`] later
//! with the estimate and how long the proof has gone on (`proving_ms`).

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use connect4::book::Book;
use connect4::score::Outcome;
use connect4::search::{Limits, SearchScore, Searcher};
use connect4::{Game, Player, Position, Rules, Status};
use serde_json::{Value, json};

use crate::error::ApiError;
use crate::error::ApiResult;
use crate::prover::Standing;

/// The time of a first answer, every column together.
pub const FIRST_ANSWER: Duration = Duration::from_millis(40);
/// The time of the estimates that go with a proof's answer, for the
/// columns the prover has not proven yet.
const ESTIMATE_TIME: Duration = Duration::from_millis(10);
/// The table of each answering thread's clocked search.
const HASH_MB: usize = 16;

thread_local! {
    /// The engine's clocked search of the thread answering: made once (a
    /// table takes tens of milliseconds to allocate), kept from one request
    /// to the next (what it proved stays true; it starts afresh on a board
    /// of other rules).
    static SEARCHER: RefCell<Searcher> = RefCell::new({
        let mut searcher = Searcher::new(HASH_MB);
        searcher.set_book(Some(Arc::clone(&Book::shipped())));
        searcher
    });
}

/// Makes the answering thread's search, so that its first request does
/// not pay for its table.
pub fn warm_up() {
    SEARCHER.with(|_| ());
}

/// What a request asks: a position, and which columns, how hard.
pub struct Question {
    /// The board.
    pub rules: Rules,
    /// The position, as the command line's move string.
    pub moves: String,
    /// One column (from 1) instead of all.
    pub column: Option<u32>,
    /// Whether to prove (by the prover, waiting for it a while) rather than
    /// answer at once.
    pub deep: bool,
    /// Raised when nobody waits for the answer any more (the client left):
    /// the solver stops.
    pub stop: Option<Arc<AtomicBool>>,
}

/// A position as the page shows it, with no analysis: the board, who is
/// to move, whether the game is over and how, and the columns that can
/// be played (from 1). The page holds no rules of its own: it asks this.
pub fn describe(rules: Rules, moves: &str) -> ApiResult {
    let game = Game::from_move_string(rules, moves).map_err(|e| ApiError::moves(moves, e))?;
    let p = game.position();
    let to_move = if p.side_to_move() == Player::First {
        1
    } else {
        2
    };
    let result = match game.status() {
        Status::Ongoing => Value::Null,
        Status::Won(Player::First) => json!("first"),
        Status::Won(Player::Second) => json!("second"),
        Status::Draw => json!("draw"),
    };
    let playable: Vec<u32> = (0..p.columns())
        .filter(|&c| !p.is_over() && p.can_play(c))
        .map(|c| c + 1)
        .collect();
    Ok(json!({
        "moves": game.move_string(), "rules": rules.to_string(),
        "columns": rules.columns(), "rows": rules.rows(), "inarow": rules.inarow(),
        "to_move": to_move, "over": p.is_over(), "result": result, "playable": playable,
    }))
}

/// The analysis of a position: every column asked, numbered from 1, with
/// its score and whether it is exact.
pub fn analyze(q: &Question) -> ApiResult {
    let game =
        Game::from_move_string(q.rules, &q.moves).map_err(|e| ApiError::moves(&q.moves, e))?;
    let p = *game.position();
    let to_move = if p.side_to_move() == Player::First {
        1
    } else {
        2
    };
    let mut reply = json!({ "moves": q.moves, "rules": q.rules.to_string(), "to_move": to_move });
    if p.is_over() {
        reply["over"] = json!(true);
        reply["columns"] = json!([]);
        return Ok(reply);
    }
    let asked: Vec<u32> = match q.column {
        Some(n) if (1..=p.columns()).contains(&n) => vec![n - 1],
        Some(n) => {
            return Err(ApiError::Column {
                column: n.into(),
                columns: p.columns(),
            });
        }
        None => (0..p.columns()).collect(),
    };
    let mut proving = Vec::new();
    let scores = if q.deep {
        let exact = deep_proofs(&p, &asked, q, &mut proving);
        let unproven: Vec<u32> = (asked.iter().zip(&exact))
            .filter(|(c, e)| p.can_play(**c) && e.is_none())
            .map(|(c, _)| *c)
            .collect();
        let mut scores = estimates(&p, &unproven, ESTIMATE_TIME, q);
        scores.extend(
            (asked.iter().zip(exact)).filter_map(|(&c, e)| Some((c, SearchScore::exact(e?)))),
        );
        scores
    } else {
        estimates(&p, &asked, FIRST_ANSWER, q)
    };
    let columns: Vec<Value> = asked
        .iter()
        .map(|&c| {
            let score = scores.iter().find(|(d, _)| *d == c).map(|(_, s)| s);
            let mut shown = column(&p, c, score);
            if let Some((_, t)) = proving.iter().find(|(d, _)| *d == c) {
                shown["proving_ms"] = json!(t.as_millis() as u64);
            }
            shown
        })
        .collect();
    reply["over"] = json!(false);
    reply["columns"] = json!(columns);
    Ok(reply)
}

/// The exact score of each column of `asked` that the prover has proven,
/// or proves while the request waits; the others go in `proving`, with
/// how long their proofs have gone on.
fn deep_proofs(
    p: &Position,
    asked: &[u32],
    q: &Question,
    proving: &mut Vec<(u32, Duration)>,
) -> Vec<Option<i32>> {
    asked
        .iter()
        .map(|&c| {
            if !p.can_play(c) {
                return None;
            }
            let key = (q.rules, q.moves.clone(), c);
            // A client that left waits for nothing (the proof goes on).
            let left = q.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed));
            let wait = if left {
                Duration::ZERO
            } else {
                crate::prover::WAIT
            };
            match crate::prover::prover().ask(key, wait) {
                Standing::Proven(score) => Some(score),
                Standing::Proving(t) => {
                    proving.push((c, t));
                    None
                }
            }
        })
        .collect()
}

/// The engine's analysis of each playable column of `columns`, all
/// together within `time`: the book's score, or the clocked search's
/// (exact when it proves it, else its estimate).
fn estimates(
    p: &Position,
    columns: &[u32],
    time: Duration,
    q: &Question,
) -> Vec<(u32, SearchScore)> {
    let playable: Vec<u32> = columns.iter().copied().filter(|&c| p.can_play(c)).collect();
    if playable.is_empty() {
        return Vec::new();
    }
    SEARCHER.with_borrow_mut(|searcher| {
        if playable.len() == p.legal_moves().len() {
            return searcher.analyze(p, &Limits::time(time), q.stop.clone());
        }
        let share = Limits::time(time / playable.len() as u32);
        playable
            .iter()
            .map(|&c| (c, searcher.column_score(p, c, &share, q.stop.clone())))
            .collect()
    })
}

/// What the page shows of column `c` (from 0): its exact score, or the
/// estimate, with its proven outcome if the estimate knows it.
fn column(p: &Position, c: u32, estimate: Option<&SearchScore>) -> Value {
    let number = c + 1;
    if !p.can_play(c) {
        return json!({ "column": number, "playable": false });
    }
    if let Some(s) = estimate.filter(|s| s.exact) {
        return json!({ "column": number, "playable": true, "exact": true, "score": s.value });
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
    use connect4::search::Solver;

    fn standard(moves: &str) -> Question {
        Question {
            rules: Rules::STANDARD,
            moves: moves.to_string(),
            column: None,
            deep: false,
            stop: None,
        }
    }

    #[test]
    fn the_empty_board_s_columns_are_scored_as_the_test_sets_score_them() {
        let a = analyze(&standard("")).unwrap();
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
        let over = analyze(&standard("4455667")).unwrap();
        assert_eq!(over["over"], true);
    }

    /// Asks as the page asks: again, until every playable column is
    /// proven (a proof outlasts one request's wait on a busy machine).
    fn proven(q: &Question) -> Value {
        loop {
            let a = analyze(q).unwrap();
            let columns = a["columns"].as_array().unwrap();
            if columns.iter().all(|c| c["exact"] != false) {
                return a;
            }
        }
    }

    #[test]
    fn other_boards_and_single_columns_are_answered() {
        let rules: Rules = "6x5x4".parse().unwrap();
        let q = Question {
            rules,
            moves: "3344".to_string(),
            column: None,
            deep: true,
            stop: None,
        };
        let a = proven(&q);
        let p = *Game::from_move_string(rules, "3344").unwrap().position();
        let solved = Solver::new(16).analyze(&p);
        let shown: Vec<Option<i64>> = a["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["score"].as_i64())
            .collect();
        let expected: Vec<Option<i64>> = solved.iter().map(|s| s.map(i64::from)).collect();
        assert_eq!(shown, expected);
        assert_eq!(a["rules"], "6x5x4");
        let one = proven(&Question {
            column: Some(6),
            ..q
        });
        assert_eq!(one["columns"].as_array().unwrap().len(), 1);
        assert_eq!(one["columns"][0]["column"], 6);
        assert_eq!(one["columns"][0]["score"], expected[5].unwrap());
        let beyond = analyze(&Question {
            rules,
            moves: String::new(),
            column: Some(7),
            deep: false,
            stop: None,
        });
        assert!(beyond.unwrap_err().to_string().contains("columns 1 to 6"));
        let off_board = analyze(&Question {
            rules,
            moves: "7".to_string(),
            column: None,
            deep: false,
            stop: None,
        });
        assert!(off_board.unwrap_err().to_string().contains("'7'"));
    }

    #[test]
    fn an_unproven_column_has_an_estimate_marked_not_exact() {
        let p = Game::from_move_string(Rules::STANDARD, "44")
            .unwrap()
            .position()
            .to_owned();
        let estimate = SearchScore::proven(Outcome::Win);
        let shown = column(&p, 2, Some(&estimate));
        assert_eq!(shown["exact"], false);
        assert_eq!(shown["outcome"], "win");
        assert_eq!(shown["column"], 3);
        assert!(shown.get("score").is_none());
    }

    /// A client that left raises the flag: the request waits for no proof
    /// (issue #42, item 8), which the prover goes on with. Proving every
    /// column of this position takes seconds; unwaited, some stay
    /// estimates, marked as still being proven.
    #[test]
    fn a_raised_stop_flag_ends_the_proofs() {
        let stopped = analyze(&Question {
            deep: true,
            stop: Some(Arc::new(AtomicBool::new(true))),
            ..standard("12345")
        })
        .unwrap();
        let columns = stopped["columns"].as_array().unwrap();
        assert!(
            columns
                .iter()
                .any(|c| c["exact"] == false && c["proving_ms"].is_u64()),
            "{stopped}"
        );
    }
}
