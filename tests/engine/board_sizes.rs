//! The empty board of every size with width + height <= 13, solved from
//! scratch, against the published results (issue #45, item 5): John
//! Tromp's and Christophe Steininger's tables of each size's outcome and
//! the move on which the game ends with perfect play (the readme of
//! github.com/ChristopheSteininger/c4 at commit 80baa53).
//!
//! From scratch: no opening book (the shipped one would answer 7 x 6).
//! The sizes the solver settles in about a second run with the tests; the
//! others are ignored here and run by `scripts/bench-board-sizes.sh`,
//! which times each (`cargo test --release --test board_sizes --
//! --ignored --nocapture`).

use std::time::Instant;

use connect4::search::Solver;
use connect4::{Position, Rules};

/// Who wins with perfect play.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Outcome {
    First,
    Second,
    Draw,
}

use Outcome::{Draw, First, Second};

/// Width, height, outcome, and the move (from 1) on which the game ends:
/// Steininger's two tables, every size with width + height <= 13.
const PUBLISHED: [(u32, u32, Outcome, u32); 21] = [
    (4, 4, Draw, 16),
    (5, 4, Draw, 20),
    (6, 4, Second, 24),
    (7, 4, Draw, 28),
    (8, 4, Second, 32),
    (9, 4, Second, 36),
    (4, 5, Draw, 20),
    (5, 5, Draw, 25),
    (6, 5, Draw, 30),
    (7, 5, Draw, 35),
    (8, 5, First, 39),
    (4, 6, Draw, 24),
    (5, 6, Draw, 30),
    (6, 6, Second, 36),
    (7, 6, First, 41),
    (4, 7, Draw, 28),
    (5, 7, Draw, 35),
    (6, 7, First, 41),
    (4, 8, Draw, 32),
    (5, 8, Draw, 40),
    (4, 9, Draw, 36),
];

/// The sizes left to the bench script: about 3 s or more each in a
/// release build here (8 x 5 57 s, 7 x 6 51 s, 6 x 7 30 s, 9 x 4 17 s,
/// 5 x 8 4.2 s, 6 x 6 2.9 s).
const SLOW: [(u32, u32); 6] = [(9, 4), (8, 5), (6, 6), (7, 6), (5, 8), (6, 7)];

/// The outcome and the last move that an exact score of the empty board
/// of `cells` cells means. In the test sets' convention (Pascal Pons'), a
/// side that wins with the move numbered `m` (from 1) scores
/// `(cells + 2 - m) / 2`, rounded down: the last move is the one of the
/// winner's parity (odd for the first player) that gives the score.
fn meaning(score: i32, cells: u32) -> (Outcome, u32) {
    let (outcome, parity) = match score.signum() {
        0 => return (Draw, cells),
        1 => (First, 1),
        _ => (Second, 0),
    };
    let last = cells + 2 - 2 * score.unsigned_abs();
    (outcome, if last % 2 == parity { last } else { last - 1 })
}

/// Solves the empty board of `width` x `height` from scratch and checks it
/// against the published table.
fn check(width: u32, height: u32) {
    let &(_, _, outcome, last) = PUBLISHED
        .iter()
        .find(|p| (p.0, p.1) == (width, height))
        .expect("a published size");
    let rules = Rules::new(width, height, 4).unwrap();
    let started = Instant::now();
    let mut solver = Solver::new(64).with_book(None);
    let score = solver.solve(&Position::new(rules));
    println!(
        "{width}x{height}: score {score}, {} nodes, {:.1} s",
        solver.nodes(),
        started.elapsed().as_secs_f64()
    );
    assert_eq!(
        meaning(score, width * height),
        (outcome, last),
        "{width}x{height}: score {score}"
    );
}

#[test]
fn the_score_s_meaning_is_the_tables_convention() {
    // 6 x 4: the second player wins with the last stone, -1.
    assert_eq!(meaning(-1, 24), (Second, 24));
    assert_eq!(meaning(0, 49), (Draw, 49));
    // 8 x 7, won on move 53: (56 + 2 - 53) / 2 = 2.
    assert_eq!(meaning(2, 56), (First, 53));
    // 7 x 6, move 41: the empty board's +1 (the test sets' first line).
    assert_eq!(meaning(1, 42), (First, 41));
    // An odd board: on 5 x 5 the first player's last stone is move 25.
    assert_eq!(meaning(1, 25), (First, 25));
    assert_eq!(meaning(-1, 25), (Second, 24));
}

#[test]
fn the_small_boards_match_the_published_outcomes() {
    for &(width, height, _, _) in PUBLISHED.iter().filter(|p| !SLOW.contains(&(p.0, p.1))) {
        check(width, height);
    }
}

#[test]
#[ignore = "minutes in all: scripts/bench-board-sizes.sh runs it"]
fn the_larger_boards_match_the_published_outcomes() {
    for (width, height) in SLOW {
        check(width, height);
    }
}
