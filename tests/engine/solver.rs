//! The exact solver against ground truth: the public test sets (labelled by
//! an independent solver) and a plain minimax on other board sizes.

use crate::common;

use std::collections::HashMap;

use common::cases;
use connect4::bench::{Case, run};
use connect4::score::{Outcome, win_base};
use connect4::search::Solver;
use connect4::{Position, Rules};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

fn all_exact(cases: &[Case]) {
    let mut solver = Solver::new(16);
    let summary = run(&mut solver, cases, |_, _| {});
    assert_eq!(summary.positions, cases.len());
    assert_eq!(summary.wrong, 0, "first wrong: {:?}", summary.first_wrong);
}

#[test]
fn end_game_easy_set_is_exact() {
    all_exact(&cases("Test_L3_R1"));
}

#[test]
fn middle_game_easy_set_is_exact() {
    all_exact(&cases("Test_L2_R1"));
}

#[test]
fn beginning_easy_set_is_exact() {
    all_exact(&cases("Test_L1_R1"));
}

#[test]
fn analysis_agrees_with_solve_and_best_move() {
    let mut solver = Solver::new(16);
    for case in cases("Test_L2_R1").iter().step_by(50) {
        let p = case.game.position();
        let scores = solver.analyze(p);
        let best = scores.iter().flatten().max().copied().unwrap();
        assert_eq!(best, case.score, "{}", case.game);
        solver.set_limits(&connect4::search::Limits::none(), None);
        let (column, value) = solver.best_move_within(p).unwrap();
        assert_eq!(value, case.score, "{}", case.game);
        assert_eq!(scores[column as usize], Some(value), "{}", case.game);
    }
}

/// Random positions with at most `max_empty` empty cells that are not over.
fn late_positions(rules: Rules, max_empty: u32, count: usize, seed: u64) -> Vec<Position> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let mut p = Position::new(rules);
        while !p.is_over() && p.empty_cells() > max_empty {
            let moves = p.legal_moves();
            p.play(moves[rng.random_range(0..moves.len())]);
        }
        if !p.is_over() {
            out.push(p);
        }
    }
    out
}

#[test]
fn other_sizes_match_minimax() {
    for (rules, max_empty, seed) in [
        (Rules::new(7, 7, 4).unwrap(), 9, 1),
        (Rules::new(5, 4, 4).unwrap(), 10, 2),
        (Rules::new(6, 5, 3).unwrap(), 9, 3),
        (Rules::new(8, 7, 5).unwrap(), 9, 4),
        (Rules::new(4, 4, 4).unwrap(), 10, 5),
    ] {
        let mut solver = Solver::new(8);
        for p in late_positions(rules, max_empty, 40, seed) {
            assert_eq!(
                solver.solve(&p),
                minimax(&p, &mut HashMap::new()),
                "{rules}: {:?}",
                connect4::grid::to_rows(&p)
            );
        }
    }
}

/// Minimax on the score convention with a memo of exact values, sharing
/// nothing with the solver but the rules core.
fn minimax(p: &Position, memo: &mut HashMap<u64, i32>) -> i32 {
    if let Some(&v) = memo.get(&p.key()) {
        return v;
    }
    let stones = p.moves_played() / 2 + 1;
    let mut best = i32::MIN;
    for c in p.legal_moves() {
        let mut child = *p;
        child.play(c);
        let s = if child.last_move_won() {
            win_base(p) - stones as i32
        } else if child.is_full() {
            0
        } else {
            -minimax(&child, memo)
        };
        best = best.max(s);
    }
    memo.insert(p.key(), best);
    best
}

#[test]
fn small_boards_solve_from_the_start() {
    let mut solver = Solver::new(8);
    for (c, r, k) in [(4, 4, 4), (5, 4, 4), (4, 5, 3), (5, 4, 3)] {
        let empty = Position::new(Rules::new(c, r, k).unwrap());
        let truth = minimax(&empty, &mut HashMap::new());
        assert_eq!(solver.solve(&empty), truth, "{c}x{r}x{k}");
        assert_eq!(solver.solve_weak(&empty), truth.signum(), "{c}x{r}x{k}");
    }
}

#[test]
fn two_threads_give_the_same_exact_scores_as_one() {
    let mut two = Solver::new(16).with_book(None);
    two.set_threads(2);
    let mut set = cases("Test_L1_R1");
    set.truncate(300);
    set.extend(cases("Test_L2_R2").into_iter().take(40));
    let summary = run(&mut two, &set, |_, _| {});
    assert_eq!(summary.wrong, 0, "first wrong: {:?}", summary.first_wrong);
    // Outcomes and best moves too.
    for case in set.iter().take(40) {
        let p = *case.game.position();
        two.set_limits(&connect4::search::Limits::none(), None);
        let (_, value) = two.best_move_within(&p).unwrap();
        assert_eq!(value, case.score, "{}", case.game);
        let (_, outcome) = two.outcome_move_within(&p).unwrap();
        assert_eq!(
            outcome,
            connect4::score::Outcome::of(case.score),
            "{}",
            case.game
        );
    }
}

#[test]
fn the_outcome_move_keeps_the_outcome() {
    // Checked against a second solver's exact score of the child, so a move
    // taken from a stale or wrong table entry would show; on one thread
    // and on two, with the table kept from position to position as the
    // clocked search keeps it.
    let mut judge = Solver::new(16).with_book(None);
    for threads in [1, 2] {
        let mut solver = Solver::new(16).with_book(None);
        solver.set_threads(threads);
        let mut set = cases("Test_L2_R2");
        set.truncate(60);
        set.extend(cases("Test_L1_R1").into_iter().take(60));
        for case in &set {
            let p = *case.game.position();
            solver.set_limits(&connect4::search::Limits::none(), None);
            let (column, outcome) = solver.outcome_move_within(&p).unwrap();
            assert_eq!(outcome, Outcome::of(case.score), "{}", case.game);
            let mut child = p;
            child.play(column);
            let kept = if child.last_move_won() {
                Outcome::Win
            } else if child.is_full() {
                Outcome::Draw
            } else {
                Outcome::of(-judge.solve(&child))
            };
            assert_eq!(kept, outcome, "{} then column {}", case.game, column + 1);
        }
    }
}

#[test]
fn dominated_moves_follow_from_what_the_table_proves() {
    // After a full analysis, only moves below the best are dominated, and
    // most of those are (a child decided without a table entry is not).
    // After proofs cut short, a best move of a position that is not lost
    // is never dominated (the clock's fallback must keep a move that
    // keeps the value).
    let mut judge = Solver::new(16).with_book(None);
    let mut set = cases("Test_L2_R2");
    set.truncate(30);
    let (mut dominated_seen, mut below_all, mut below_found) = (0, 0, 0);
    for case in &set {
        let p = *case.game.position();
        let scores = judge.analyze(&p);
        let best = scores.iter().flatten().max().copied().unwrap();
        let candidates = p.non_losing_moves();
        let below = p
            .legal_moves()
            .into_iter()
            .filter(|&c| scores[c as usize].is_some_and(|s| s < best))
            .fold(0, |m, c| m | p.column_mask(c))
            & candidates;
        let dominated = judge.dominated_moves(&p, candidates);
        assert_eq!(dominated & !below, 0, "{}", case.game);
        below_all += below.count_ones();
        below_found += dominated.count_ones();
        for nodes in [1_000, 20_000] {
            let mut solver = Solver::new(16).with_book(None);
            let _ = solver.prove_outcome(&p, nodes);
            let dominated = solver.dominated_moves(&p, candidates);
            dominated_seen += dominated.count_ones();
            for c in p.legal_moves() {
                let cell = p.column_mask(c) & candidates;
                if best >= 0 && scores[c as usize] == Some(best) {
                    assert_eq!(dominated & cell, 0, "{} column {}", case.game, c + 1);
                }
            }
        }
    }
    assert!(
        below_found * 10 >= below_all * 9,
        "{below_found} of {below_all} moves below the best dominated"
    );
    assert!(dominated_seen > 0, "no proof cut short refuted a move");
}

/// The boards of an even number of rows the claimeven tests play on (one
/// with lines of three), each with the most empty cells its positions may
/// have (`extra` added: minimax still solves them in a moment) and a seed
/// counted from `seed`.
fn even_row_boards(extra: u32, seed: u64) -> [(Rules, u32, u64); 4] {
    [
        (Rules::new(7, 6, 4).unwrap(), 12 + extra, seed),
        (Rules::new(5, 4, 4).unwrap(), 12 + extra, seed + 1),
        (Rules::new(6, 4, 3).unwrap(), 11 + extra, seed + 2),
        (Rules::new(4, 6, 4).unwrap(), 12 + extra, seed + 3),
    ]
}

/// The first player's odd threat (`score::odd_threat_bound`, which the
/// solver reads as an upper bound for the second player to move) against
/// plain minimax: wherever it speaks, the second player loses, by the
/// stone it names at the latest; never for the first player to move or on
/// an odd number of rows.
#[test]
fn an_odd_threat_never_claims_a_win_minimax_does_not_find() {
    let (mut won, mut early) = (0, 0);
    for (rules, max_empty, seed) in even_row_boards(1, 31) {
        for p in late_positions(rules, max_empty, 1_500, seed) {
            let Some(b) = connect4::score::odd_threat_bound(&p, p.opponent_winning_cells()) else {
                continue;
            };
            won += 1;
            if b < -1 {
                early += 1;
            }
            assert_eq!(p.moves_played() % 2, 1);
            let v = minimax(&p, &mut HashMap::new());
            let rows = connect4::grid::to_rows(&p);
            assert!(v <= b, "{rules}: {v} > {b} {rows:?}");
        }
    }
    assert!(won >= 30, "only {won} positions were won by an odd threat");
    assert!(early >= 5, "only {early} odd threats below the top odd row");
    let odd = Rules::new(7, 7, 4).unwrap();
    assert!(
        late_positions(odd, 13, 100, 35)
            .iter()
            .all(|p| p.odd_threat_win().is_none())
    );
}

/// A move into the first player's odd threat (`score::odd_threat_move`,
/// which settles a first-player node in the solver) against plain
/// minimax: the move scores at least what it claims; never a claim for
/// the second player. Positions with a win at once are left out: the
/// solver plays the win before it asks.
#[test]
fn a_move_into_an_odd_threat_never_claims_more_than_minimax_finds() {
    let mut claimed = 0;
    for (rules, max_empty, seed) in even_row_boards(0, 41) {
        for p in late_positions(rules, max_empty, 1_500, seed) {
            if p.winning_moves() != 0 {
                continue;
            }
            let Some((v, cell)) = connect4::score::odd_threat_move(&p, p.possible(), -100) else {
                continue;
            };
            claimed += 1;
            assert_eq!(p.moves_played() % 2, 0);
            let mut after = p;
            after.play_cell(cell);
            let rows = connect4::grid::to_rows(&p);
            assert!(v >= 1, "{rules}: a claim of {v} {rows:?}");
            assert!(
                -minimax(&after, &mut HashMap::new()) >= v,
                "{rules}: the move claims {v} {rows:?}"
            );
        }
    }
    assert!(claimed >= 30, "only {claimed} moves into an odd threat");
}

/// A move that holds the opponent down by claimeven
/// (`score::claimeven_move`, which the solver takes as "at least a draw",
/// or "a win" where claimeven gives the mover a line) against plain
/// minimax, for the second player to move on boards of an even number of
/// rows: the score is at least what the move claims; never a claim for
/// the first player or on an odd number of rows.
#[test]
fn a_move_into_claimeven_never_claims_more_than_minimax_finds() {
    let (mut draws, mut wins) = (0, 0);
    for (rules, max_empty, seed) in even_row_boards(1, 21) {
        for p in late_positions(rules, max_empty, 300, seed) {
            let Some((v, cell)) = connect4::score::claimeven_move(&p, p.possible(), 0) else {
                continue;
            };
            assert_eq!(p.moves_played() % 2, 1);
            assert_ne!(p.possible() & cell, 0);
            let best = minimax(&p, &mut HashMap::new());
            let rows = connect4::grid::to_rows(&p);
            assert!(best >= v, "{rules}: {best} < {v} {rows:?}");
            if v == 1 {
                wins += 1;
                assert_eq!(
                    connect4::score::claimeven_move(&p, p.possible(), 1),
                    Some((v, cell))
                );
            } else {
                draws += 1;
            }
        }
    }
    assert!(draws >= 30, "only {draws} moves claimed a draw");
    assert!(wins >= 10, "only {wins} moves claimed a win");
    let odd = Rules::new(7, 7, 4).unwrap();
    for p in late_positions(odd, 12, 100, 25) {
        assert_eq!(connect4::score::claimeven_move(&p, p.possible(), 0), None);
    }
}

/// The claimeven bound (`score::claimeven_bound`, which the solver reads
/// in every node where it can cut: 0 where
/// `Position::claimeven_denies_a_line`, "at most a draw", and -1 where
/// `claimeven_gives_the_opponent_a_line` too, "a loss") against plain
/// minimax: wherever it bounds the first player to move, minimax agrees,
/// on boards of an even number of rows; and it never speaks for an odd
/// one.
#[test]
fn claimeven_never_denies_a_win_minimax_finds() {
    let (mut denied, mut lost) = (0, 0);
    for (rules, max_empty, seed) in even_row_boards(0, 11) {
        for p in late_positions(rules, max_empty, 300, seed) {
            let bound = connect4::score::claimeven_bound(&p);
            assert_eq!(bound.is_some(), p.claimeven_denies_a_line());
            if let Some(b) = bound {
                denied += 1;
                assert_eq!(p.moves_played() % 2, 0);
                let v = minimax(&p, &mut HashMap::new());
                assert!(
                    v <= b,
                    "{rules}: {v} > {b} {:?}",
                    connect4::grid::to_rows(&p)
                );
                assert_eq!(b == -1, p.claimeven_gives_the_opponent_a_line());
                if b == -1 {
                    lost += 1;
                }
            }
        }
    }
    assert!(denied >= 50, "only {denied} positions were denied a line");
    assert!(
        lost >= 10,
        "only {lost} positions were given to the opponent"
    );
    assert_eq!(
        connect4::score::claimeven_bound(&Position::new(Rules::STANDARD)),
        None
    );
    let odd = Rules::new(7, 7, 4).unwrap();
    assert!(
        late_positions(odd, 12, 100, 15)
            .iter()
            .all(|p| connect4::score::claimeven_bound(p).is_none())
    );
}
