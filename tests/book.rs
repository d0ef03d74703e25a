//! The shipped opening book through the real binary: it answers at once,
//! `go` plays its moves, and a sample of it re-solved agrees.

mod common;

use assert_cmd::Command;
use common::Driver;
use connect4::protocol::Reply;
use predicates::prelude::*;

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
    e.send(r#"{"cmd":"hello"}"#);
    let Reply::Hello { book, .. } = e.recv_final() else {
        panic!("no hello");
    };
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
    e.send(r#"{"cmd":"hello"}"#);
    let Reply::Hello { book, .. } = e.recv_final() else {
        panic!("no hello");
    };
    assert!(book.is_none(), "the book came back after a resize");
}
