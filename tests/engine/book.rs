//! The shipped opening book through the real binary: it answers at once,
//! `go` plays its moves, and a sample of it re-solved agrees; the same for
//! its layer of ply 11, and the clock keeps the value at 10 ms where the
//! book knows it.

use crate::common;

use assert_cmd::Command;
use common::Driver;
use connect4::protocol::Reply;
use predicates::prelude::*;

/// The `book` of the engine's `hello`.
fn hello_book(e: &mut Driver) -> Option<connect4::protocol::messages::BookInfo> {
    e.send(r#"{"cmd":"hello"}"#);
    let Reply::Hello { book, .. } = e.recv_final() else {
        panic!("no hello");
    };
    book
}

fn connect4() -> Command {
    Command::new(assert_cmd::cargo::cargo_bin!("connect4"))
}

#[test]
fn the_empty_board_is_solved_from_the_book() {
    connect4()
        .args(["solve", "", "4"])
        .assert()
        .success()
        .stdout(" 1\n4 -1\n");
}

#[test]
fn a_short_go_from_the_empty_board_plays_the_book_move_and_hello_names_the_book() {
    let mut e = Driver::start();
    let book = hello_book(&mut e);
    let book = book.expect("a book is loaded");
    let shipped = connect4::book::Book::shipped();
    assert_eq!(book.board, "7x6x4");
    assert_eq!(book.positions, shipped.len());
    assert_eq!(book.plies, shipped.complete_ply());
    assert_eq!(book.deviations, shipped.deviations());
    e.send(r#"{"cmd":"go","movetime_ms":10}"#);
    match e.recv_final() {
        Reply::Bestmove { column, score, .. } => {
            assert_eq!(column, 4);
            assert!(score.exact && score.value == 1, "{score:?}");
        }
        other => panic!("{other:?}"),
    }
    // Without the book the same go is a short search (not exact).
    e.send(r#"{"cmd":"setoption","name":"book","value":false}"#);
    e.recv_final();
    e.send(r#"{"cmd":"go","movetime_ms":10}"#);
    match e.recv_final() {
        Reply::Bestmove { score, .. } => assert!(!score.exact, "{score:?}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_sample_of_the_shipped_book_re_solved_agrees() {
    connect4()
        .args([
            "book",
            "verify",
            "--sample",
            "12",
            "--min-ply",
            "8",
            "--seed",
            "3",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("0 disagree"));
}

#[test]
fn resizing_the_table_keeps_the_book_setting() {
    let mut e = Driver::start();
    e.send(r#"{"cmd":"setoption","name":"book","value":false}"#);
    e.recv_final();
    e.send(r#"{"cmd":"setoption","name":"hash_mb","value":16}"#);
    assert!(matches!(e.recv_final(), Reply::Ok { .. }));
    let book = hello_book(&mut e);
    assert!(book.is_none(), "the book came back after a resize");
}

/// The first position (by slot) that the shipped book's layer of ply 11
/// knows, and what it knows.
fn a_position_of_the_shipped_layer() -> (connect4::Position, connect4::book::LayerMove) {
    let book = connect4::book::Book::shipped();
    let layer = book
        .layer(11)
        .expect("the shipped book has a layer of ply 11");
    (0..layer.slots())
        .filter_map(|slot| layer.position_at(slot))
        .find_map(|p| layer.lookup(&p).map(|m| (p, m)))
        .expect("the layer knows some position")
}

#[test]
fn hello_lists_the_shipped_layer() {
    let mut e = Driver::start();
    let book = hello_book(&mut e);
    let layers = book.expect("a book is loaded").layers;
    let shipped = connect4::book::Book::shipped();
    // Every layer the book holds, by ply, with the positions it knows: the
    // whole layer of ply 11 and the part of ply 12 built so far.
    let expected: Vec<(u32, u64)> = shipped
        .layers()
        .iter()
        .map(|l| (l.ply(), l.known()))
        .collect();
    let listed: Vec<(u32, u64)> = layers.iter().map(|l| (l.ply, l.positions)).collect();
    assert_eq!(listed, expected);
    assert_eq!(listed[0].0, 11);
    assert!(listed.iter().all(|&(_, known)| known > 0));
}

#[test]
fn the_clocked_search_answers_a_position_of_the_layer_with_its_outcome() {
    use connect4::search::{Limits, Searcher};
    let (p, m) = a_position_of_the_shipped_layer();
    let mut searcher = Searcher::new(16);
    let report = searcher
        .search(&p, &Limits::nodes(200_000), None, |_| {})
        .expect("not over");
    assert_eq!(report.score.outcome, Some(m.outcome));
    if let Some(column) = m.column {
        // The layer's move, or another the solver found that keeps it.
        let mut judge = connect4::search::Solver::new(16).with_book(None);
        let mut child = p;
        child.play(report.best);
        let reached = if child.last_move_won() {
            connect4::score::Outcome::Win
        } else {
            connect4::score::Outcome::of(-judge.solve_weak(&child))
        };
        assert_eq!(
            reached, m.outcome,
            "column {} (the layer's: {column})",
            report.best
        );
    }
}

#[test]
fn a_sample_of_the_shipped_layer_re_solved_agrees() {
    connect4()
        .args([
            "book", "verify", "--layer", "11", "--sample", "4", "--seed", "5",
        ])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("4 positions re-solved")
                .and(predicate::str::contains("0 disagree")),
        );
}

/// The positions of tests/data/blitz-sample.txt with every column's score
/// (`None` for a full column).
fn blitz_sample() -> Vec<(String, connect4::Position, Vec<Option<i32>>)> {
    let text = include_str!("../data/blitz-sample.txt");
    let rules = connect4::Rules::STANDARD;
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .map(|line| {
            let mut fields = line.split_whitespace();
            let moves = fields.next().expect("moves").to_string();
            let game = connect4::Game::from_move_string(rules, &moves).expect("legal moves");
            let scores = fields.map(|f| f.parse().ok()).collect();
            (moves, *game.position(), scores)
        })
        .collect()
}

/// At 10 ms a move the clocked search keeps the value (a win stays a win, a
/// draw a draw) in a labelled sample of 8 to 12 plies where, without the
/// book, it did not (checked: with `set_book(None)` this test fails). The
/// book proves each within 0.4 ms; a move that misses is tried twice more,
/// so that a moment without the processor does not fail the test, while a
/// search that does not use the book misses every time.
#[test]
fn clock_the_search_keeps_the_value_at_ten_ms_on_a_labelled_sample() {
    use connect4::search::{DEFAULT_HASH_MB, Limits, Searcher};
    let sample = blitz_sample();
    assert_eq!(sample.len(), 26);
    let mut searcher = Searcher::new(DEFAULT_HASH_MB);
    let limits = Limits::time(std::time::Duration::from_millis(10));
    for (moves, p, scores) in &sample {
        let best = scores.iter().flatten().max().expect("a legal move");
        let keeps = |column: u32| {
            let score = scores[column as usize].expect("a legal move");
            score.signum() == best.signum()
        };
        let mut played = Vec::new();
        for _ in 0..3 {
            searcher.clear();
            let column = searcher
                .search(p, &limits, None, |_| {})
                .expect("not over")
                .best;
            played.push(column);
            if keeps(column) {
                break;
            }
        }
        assert!(
            keeps(*played.last().unwrap()),
            "after {moves} (scores {scores:?}) the engine played columns {played:?} (0-based), \
             none keeping the value {best}"
        );
    }
}
