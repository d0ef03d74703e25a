//! The clocked search: safe moves at any budget, limits honoured,
//! determinism, and exact results checked against the public test sets.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use common::cases;
use connect4::search::{Limits, Report, Searcher};
use connect4::{Game, Position, Rules};

fn position(moves: &str) -> Position {
    *Game::from_move_string(Rules::STANDARD, moves)
        .unwrap()
        .position()
}

fn search(p: &Position, limits: &Limits) -> Report {
    Searcher::new(8).search(p, limits, None, |_| {}).unwrap()
}

/// Budgets from "nothing at all" up.
fn tiny_budgets() -> Vec<Limits> {
    vec![
        Limits::depth(1),
        Limits::nodes(1),
        Limits::nodes(50),
        Limits::time(Duration::from_millis(1)),
        Limits::time(Duration::ZERO),
    ]
}

#[test]
fn takes_a_win_in_one_at_any_budget() {
    // (moves, the winning columns 0-based)
    let table: &[(&str, &[u32])] = &[
        ("445566", &[2, 6]),  // bottom row, open at both ends
        ("112233", &[3]),     // bottom row, open at one end
        ("1212125", &[1]),    // the second player wins vertically rather than block
        ("3445655616", &[5]), // a rising diagonal 3-4-5-6
    ];
    for &(moves, wins) in table {
        let p = position(moves);
        let mut found: Vec<u32> = (0..7).filter(|&c| p.is_winning_move(c)).collect();
        found.sort();
        assert_eq!(found, wins, "{moves}: the table itself is wrong");
        for limits in tiny_budgets() {
            let r = search(&p, &limits);
            assert!(
                wins.contains(&r.best),
                "{moves} {limits:?}: played {}",
                r.best + 1
            );
            assert!(r.score.exact && r.score.value > 0, "{moves}: {:?}", r.score);
        }
    }
}

#[test]
fn blocks_a_single_threat_at_any_budget() {
    // (moves, the blocking column 0-based)
    let table: &[(&str, u32)] = &[
        ("11223", 3), // bottom row
        ("77665", 3), // bottom row from the right
        ("12131", 0), // vertical
    ];
    for &(moves, block) in table {
        let p = position(moves);
        assert_eq!(p.winning_moves(), 0, "{moves}: the table itself is wrong");
        let threats = p.opponent_winning_cells() & p.possible();
        assert_eq!(
            threats,
            p.column_mask(block) & p.possible(),
            "{moves}: the table itself is wrong"
        );
        for limits in tiny_budgets() {
            let r = search(&p, &limits);
            assert_eq!(r.best, block, "{moves} {limits:?}");
        }
    }
}

#[test]
fn never_plays_a_move_that_loses_at_once_when_another_does_not() {
    for case in cases("Test_L2_R2").iter().step_by(10) {
        let p = case.game.position();
        let safe = p.non_losing_moves();
        for limits in tiny_budgets() {
            let r = search(p, &limits);
            assert!(p.can_play(r.best), "{} {limits:?}", case.game);
            if safe != 0 {
                assert!(
                    safe & p.column_mask(r.best) != 0,
                    "{} {limits:?}: played {}",
                    case.game,
                    r.best + 1
                );
            }
        }
    }
}

#[test]
fn node_limit_is_honoured() {
    let p = position("4");
    for nodes in [1, 10, 1000, 100_000] {
        let r = search(&p, &Limits::nodes(nodes));
        assert!(r.nodes <= nodes, "limit {nodes}: searched {}", r.nodes);
    }
}

#[test]
fn depth_limit_is_honoured() {
    let p = position("44");
    for depth in 1..6 {
        let mut depths = Vec::new();
        let r = Searcher::new(8)
            .search(&p, &Limits::depth(depth), None, |r| depths.push(r.depth))
            .unwrap();
        assert_eq!(r.depth, depth);
        assert_eq!(depths, (1..=depth).collect::<Vec<_>>());
        assert!(r.pv.len() <= depth as usize && r.pv[0] == r.best);
    }
}

#[test]
fn stop_flag_ends_an_unlimited_search() {
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel();
    let flag = stop.clone();
    std::thread::spawn(move || {
        let r = Searcher::new(8).search(&position(""), &Limits::none(), Some(flag), |_| {});
        tx.send(r).unwrap();
    });
    std::thread::sleep(Duration::from_millis(50));
    stop.store(true, Ordering::Relaxed);
    let r = rx
        .recv_timeout(Duration::from_secs(120))
        .expect("the search ends soon after stop")
        .unwrap();
    assert!(r.best < 7);
}

#[test]
fn same_limits_same_result() {
    let p = position("4453");
    let a = search(&p, &Limits::nodes(300_000));
    let b = search(&p, &Limits::nodes(300_000));
    assert_eq!(
        (a.best, a.score, a.nodes, a.depth),
        (b.best, b.score, b.nodes, b.depth)
    );
    let a = search(&p, &Limits::depth(9));
    let b = search(&p, &Limits::depth(9));
    assert_eq!(
        (a.best, a.score, a.nodes, &a.pv),
        (b.best, b.score, b.nodes, &b.pv)
    );
}

#[test]
fn unlimited_search_is_exact() {
    let mut searcher = Searcher::new(16);
    for case in cases("Test_L2_R1").iter().step_by(20) {
        let p = case.game.position();
        let r = searcher.search(p, &Limits::none(), None, |_| {}).unwrap();
        assert!(r.score.exact, "{}", case.game);
        assert_eq!(r.score.value, case.score, "{}", case.game);
        // The move keeps the value: the child scores the negative.
        let mut child = *p;
        child.play(r.best);
        if !child.is_over() {
            let c = searcher
                .search(&child, &Limits::none(), None, |_| {})
                .unwrap();
            assert_eq!(
                c.score.value,
                -case.score,
                "{} then {}",
                case.game,
                r.best + 1
            );
        }
    }
}

#[test]
fn a_deep_enough_iteration_is_exact_by_construction() {
    for case in cases("Test_L3_R1").iter().step_by(25) {
        let p = case.game.position();
        let r = search(p, &Limits::depth(p.empty_cells()));
        assert!(r.score.exact, "{}", case.game);
        assert_eq!(r.score.value, case.score, "{}", case.game);
    }
}

#[test]
fn analysis_covers_every_legal_column() {
    let case = &cases("Test_L2_R1")[0];
    let p = case.game.position();
    let scores = Searcher::new(8).analyze(p, &Limits::none(), None);
    assert_eq!(scores.len(), p.legal_moves().len());
    assert!(scores.iter().all(|(_, s)| s.exact));
    assert_eq!(scores.iter().map(|(_, s)| s.value).max(), Some(case.score));
}

#[test]
fn outcome_first_proves_outcomes_that_hold_and_moves_that_keep_them() {
    use connect4::score::Outcome;
    use connect4::search::Solver;
    let mut solver = Solver::new(16).with_book(None);
    let (mut proven, mut outcome_only) = (0, 0);
    for case in cases("Test_L2_R2").iter().take(60) {
        let p = *case.game.position();
        for nodes in [20_000, 200_000] {
            let r = search(&p, &Limits::nodes(nodes));
            let Some(outcome) = r.score.outcome else {
                continue;
            };
            proven += 1;
            outcome_only += usize::from(!r.score.exact);
            assert_eq!(outcome, Outcome::of(case.score), "{} at {nodes}", case.game);
            // The move keeps it.
            let mut child = p;
            child.play(r.best);
            let after = if p.is_winning_move(r.best) {
                1
            } else if child.is_full() {
                0
            } else {
                -solver.solve_weak(&child)
            };
            assert_eq!(
                after,
                case.score.signum(),
                "{}: move {} at {nodes}",
                case.game,
                r.best + 1
            );
        }
    }
    // Both kinds happen at these budgets: exact results, and outcomes
    // proven before their distance.
    assert!(
        proven > 20 && outcome_only > 0,
        "{proven} proven, {outcome_only} without distance"
    );
}
