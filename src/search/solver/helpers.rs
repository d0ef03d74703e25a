//! Helper threads: while the main thread searches, helpers with the same
//! table for positions near the root (and tables of their own for deep
//! ones) prove what it will need next, so that its own probes find their
//! answers in the table. The result is always the main thread's.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::Solver;
use super::tables::{DEEP_BELOW_EMPTY, deep_table};
use crate::position::Position;
use crate::score;
use crate::search::limits::{Budget, Limits};
use crate::search::order::first_in_order;

/// Helpers start only after this many nodes alone: starting them costs
/// more than an easy position takes.
const HELPERS_AFTER_NODES: u64 = 100_000;
/// How long a helper that follows the probes of another thread waits
/// before it looks for the next one.
const PROBE_WAIT: Duration = Duration::from_micros(100);

/// Publishes the null window `(med, med + 1)` as the one probed now, and
/// whether it is a `dear` one (the outcome's, or the one next to the
/// bound its proof gave, probed once a probe proved costly): a count of
/// the windows published (bits 33 and up), the flag (bit 32) and `med`
/// (low half).
pub(super) fn publish_window(probes: &AtomicU64, med: i32, dear: bool) {
    let count = (probes.load(Ordering::Relaxed) >> 33) + 1;
    probes.store(
        count << 33 | u64::from(dear) << 32 | u64::from(med as u32),
        Ordering::Relaxed,
    );
}

/// The `med` of a window published by [`publish_window`].
fn probe_window(word: u64) -> i32 {
    word as u32 as i32
}

/// Whether a window published by [`publish_window`] is a dear one.
fn is_dear(word: u64) -> bool {
    word >> 32 & 1 == 1
}

/// The null window `(med, med + 1)` to probe next on a score known to lie
/// in `[min, max]` (`min < max`): halfway, but towards zero, where most
/// positions are decided.
pub(super) fn next_window(min: i32, max: i32) -> i32 {
    let med = min + (max - min) / 2;
    if med <= 0 && min / 2 < med {
        min / 2
    } else if med >= 0 && max / 2 > med {
        max / 2
    } else {
        med
    }
}

/// The null window that decides the outcome of a score known to lie in
/// `[min, max]`, if it is still open: `(0, 1)` (a win or not), else
/// `(-1, 0)` (a loss or not).
pub(super) fn outcome_window(min: i32, max: i32) -> Option<i32> {
    [0, -1].into_iter().find(|&w| min <= w && w < max)
}

/// The null window next to the proven end of a score known to lie in
/// `[min, max]`, on the side of the outcome: `(min, min + 1)` for a win
/// (`min > 0`), `(max - 1, max)` otherwise: one probe settles the score
/// when it is the least the proof of the outcome showed, as on the empty
/// board (docs/measurements.md has what it costs where it is not).
pub(super) fn edge_window(min: i32, max: i32) -> i32 {
    if min > 0 { min } else { max - 1 }
}

/// The window to probe beside another thread that probes `(med, med + 1)`
/// on a score known to lie in `[min, max]`: the one that thread probes
/// next if its answer points towards zero, else the one it probes next
/// otherwise; `None` if neither is left (or `med` is no longer open).
fn window_beside(min: i32, max: i32, med: i32) -> Option<i32> {
    if med < min || med >= max {
        return None;
    }
    let (above, below) = ((med + 1, max), (min, med));
    let sides = if med < 0 {
        [above, below]
    } else {
        [below, above]
    };
    sides
        .into_iter()
        .find(|&(lo, hi)| lo < hi)
        .map(|(lo, hi)| next_window(lo, hi))
}

/// Whether the system says no processor is idle now.
fn no_idle_processor() -> bool {
    crate::search::priority::idle_processors() == Some(0)
}

impl Solver {
    /// Runs `search` on this solver while `threads - 1` helpers work on `p`
    /// with the same table (for the positions near the root: see
    /// [`DEEP_BELOW_EMPTY`]); the helpers stop when `search` returns.
    ///
    /// The first helper follows this thread's probes
    /// ([`Solver::follow_probes`]): it splits the dear ones (the outcome's
    /// and the one after it) with this thread, from the other end of the
    /// moves where their proofs need every move, probes ahead of this
    /// thread the windows it will probe next, and tries the others on the
    /// root's children from the other end; the others prove the root's
    /// children ([`Solver::prove_children`]). Helpers start only after
    /// [`HELPERS_AFTER_NODES`] nodes alone and only on processors the
    /// system says are idle (else this thread goes on alone); a helper
    /// sleeps whenever it gets less than half a processor. What each
    /// choice bought: docs/measurements.md.
    pub(super) fn with_helpers<T>(
        &mut self,
        p: &Position,
        weak: bool,
        search: impl Fn(&mut Solver) -> T,
    ) -> T {
        self.prepare(p);
        if self.threads <= 1
            || p.winning_moves() != 0
            || self.book_entry(p).is_some()
            || self.layer_entry(p).is_some()
        {
            return search(self);
        }
        // An easy position is done before helpers would be of use: it is
        // tried alone first, and what that finds stays in the table.
        // If no processor is idle by then, it goes on alone: a helper would
        // only take a processor from a thread that was using it.
        let limit = self
            .budget
            .cap_nodes_unless(HELPERS_AFTER_NODES, no_idle_processor);
        let alone = search(self);
        if !self.budget.lift_cap(limit) {
            return alone;
        }
        // Helpers only on processors nobody uses: the trial found one;
        // more than one helper asks how many.
        let wanted = self.threads - 1;
        let helpers = if wanted == 1 {
            1
        } else {
            let idle = crate::search::priority::idle_processors().unwrap_or(wanted);
            wanted.min(idle).max(1)
        };
        self.search_beside(helpers, p, weak, search)
    }

    /// Runs `search` on this solver while `count` helpers (see
    /// [`Solver::helper`]; fewer if the memory for their tables cannot be
    /// had) work on `p` on threads of their own, until it returns.
    fn search_beside<T>(
        &mut self,
        count: usize,
        p: &Position,
        weak: bool,
        search: impl Fn(&mut Solver) -> T,
    ) -> T {
        let stopped = Arc::new(AtomicBool::new(false));
        let helpers: Vec<Solver> = (0..count)
            .map_while(|i| self.helper(i, p, &stopped))
            .collect();
        let stop: &AtomicBool = &stopped;
        let board = Arc::new(AtomicU64::new(0));
        self.probes = Some(Arc::clone(&board));
        let probes = &board;
        let result = std::thread::scope(|scope| {
            let mut threads = Vec::with_capacity(helpers.len());
            for (i, mut helper) in helpers.into_iter().enumerate() {
                let (p, index) = (*p, i + 1);
                threads.push(scope.spawn(move || {
                    // When another program holds a core, the helper must
                    // not take this thread's.
                    crate::search::priority::give_way();
                    // ... and sleeps a while when it gets next to nothing:
                    // what little it gets, it takes from this thread.
                    helper.budget.pause_when_starved();
                    if index == 1 {
                        helper.follow_probes(&p, probes, stop, !weak);
                    } else {
                        helper.prove_children(&p, weak, index);
                    }
                }));
            }
            let result = search(self);
            stop.store(true, Ordering::Relaxed);
            // A pausing helper wakes now, not at the end of its pause.
            threads.iter().for_each(|t| t.thread().unpark());
            result
        });
        self.probes = None;
        result
    }

    /// The first helper's work beside a thread that narrows `p`'s score
    /// with the null windows it publishes on `probes`.
    ///
    /// A dear window (the outcome's, or the one next to the bound its
    /// proof gave: see [`publish_window`]) it splits with
    /// that thread: it proves, from the far end, the children of the node
    /// where the proof needs every move, while that thread comes from the
    /// near end and finds them in the table ([`Solver::probe_under`]).
    /// Otherwise, for an `exact` score of a position whose bounds the
    /// threads share (at least [`DEEP_BELOW_EMPTY`] empty cells), it
    /// probes the window that thread will probe next (see
    /// [`window_beside`], from the bounds the table holds), one after
    /// another: each answer lands in the shared table, where that thread's
    /// next probe of the root finds it. When no such window is left, or
    /// for an outcome alone, it tries each published window on the root's
    /// children from the far end of centre-first order until the window
    /// changes or a child proves it (see [`Solver::probe_children`]).
    /// Ends when `stop` is set.
    fn follow_probes(
        &mut self,
        p: &Position,
        probes: &Arc<AtomicU64>,
        stop: &AtomicBool,
        exact: bool,
    ) {
        let budget = self.budget.clone();
        let shared = exact && p.empty_cells() >= DEEP_BELOW_EMPTY;
        let mut seen = 0;
        while !stop.load(Ordering::Relaxed) {
            let word = probes.load(Ordering::Relaxed);
            let med = probe_window(word);
            let fresh = word != 0 && word != seen;
            let split = (fresh && is_dear(word)).then(|| self.split_depth(p, med));
            let ahead = if split.is_none() && shared && word != 0 {
                self.window_ahead(p, med)
            } else {
                None
            };
            self.budget = budget.clone();
            self.budget.stop_when_changed(Arc::clone(probes), word);
            if let Some(depth) = split {
                seen = word;
                self.probe_under(p, med, depth);
                // Expected to fail low: every child of the root is needed.
                if depth == 2 && !self.budget.aborted() {
                    self.probe_children(p, med);
                }
            } else if let Some(med) = ahead {
                self.negamax(p, med, med + 1);
            } else if word == seen {
                std::thread::park_timeout(PROBE_WAIT);
            } else {
                seen = word;
                self.probe_children(p, med);
            }
        }
    }

    /// How many first moves down from `p` the proof of a dear null window
    /// `(med, med + 1)` (see [`publish_window`]) first needs every move: 2
    /// for the one at a proven lower bound (expected to fail low, as after
    /// the proof of a win: the first move needs one answer, whose children
    /// are all needed), else 1 (the first move's children are all needed
    /// if it fails high).
    fn split_depth(&self, p: &Position, med: i32) -> u32 {
        if self.proven_bounds(p).0 == Some(med) {
            2
        } else {
            1
        }
    }

    /// The window to probe on `p` beside a thread that probes
    /// `(med, med + 1)` (see [`window_beside`]), from the bounds on `p`'s
    /// score that the rules, the book and the table prove now.
    fn window_ahead(&self, p: &Position, med: i32) -> Option<i32> {
        // The range the other thread narrows (see `solve_alone`), cut by
        // what is proven now.
        let (lower, upper) = self.proven_bounds(p);
        let min = score::loss_next(p).max(lower.unwrap_or(i32::MIN));
        let max = score::win_now(p).min(upper.unwrap_or(i32::MAX));
        window_beside(min, max, med)
    }

    /// Tries the null window `(med, med + 1)` of `p` on its children, from
    /// the far end of centre-first order, until one proves it (or the
    /// budget says stop).
    fn probe_children(&mut self, p: &Position, med: i32) {
        for cell in self.far_end_first(p) {
            let mut child = *p;
            child.play_cell(cell);
            if child.is_full() || child.winning_moves() != 0 {
                continue;
            }
            let v = -self.negamax(&child, -med - 1, -med);
            if self.budget.aborted() || v > med {
                return;
            }
        }
    }

    /// Tries the null window `(med, med + 1)` of `p` `depth` first moves
    /// down (each the table's move, else the first in centre-first order,
    /// as the other thread searches them): on the children there, from the
    /// far end (see [`Solver::probe_children`]), the window negated at each
    /// move. Nothing if the line ends on a position that is full, won at
    /// once or without a move that does not lose at once (where the last
    /// has none, `probe_children` finds no child).
    fn probe_under(&mut self, p: &Position, med: i32, depth: u32) {
        let (mut q, mut med) = (*p, med);
        for _ in 0..depth {
            let moves = q.non_losing_moves();
            if moves == 0 {
                return;
            }
            let first = match self.table_move(&q) & moves {
                0 => first_in_order(&self.order, moves),
                cell => cell,
            };
            q.play_cell(first);
            med = -med - 1;
            if q.is_full() || q.winning_moves() != 0 {
                return;
            }
        }
        self.probe_children(&q, med);
    }

    /// The cells of `p`'s moves that do not lose at once, from the far
    /// end of centre-first order.
    fn far_end_first(&self, p: &Position) -> Vec<u64> {
        let moves = p.non_losing_moves();
        self.order
            .iter()
            .rev()
            .map(|m| m & moves)
            .filter(|&c| c != 0)
            .collect()
    }

    /// The `index`-th helper (from 0) of a search of `p`, stopped by
    /// `stop`: it shares this solver's table for positions of at least
    /// [`DEEP_BELOW_EMPTY`] empty cells and keeps the others in a table of
    /// its own; `None` if the memory for that table cannot be had.
    fn helper(&mut self, index: usize, p: &Position, stop: &Arc<AtomicBool>) -> Option<Solver> {
        if self.helper_tables.len() <= index {
            self.helper_tables.push(deep_table(p.rules())?);
        }
        Some(Solver {
            tt: Arc::clone(&self.tt),
            deep_tt: Arc::clone(&self.helper_tables[index]),
            helper_tables: Vec::new(),
            probes: None,
            threads: 1,
            budget: Budget::new(&Limits::none(), Instant::now(), Some(Arc::clone(stop))),
            order: self.order.clone(),
            rules: self.rules,
            book: self.book.clone(),
            book_plies: self.book_plies,
            layer_plies: self.layer_plies,
        })
    }

    /// A helper's work: the children of `p` that do not lose at once, from
    /// the far end of centre-first order (shifted by `index`: this thread
    /// starts with the most promising), each proven to its outcome (`weak`)
    /// or exact score, until stopped, so that the main thread finds them in
    /// the table when it gets there.
    fn prove_children(&mut self, p: &Position, weak: bool, index: usize) {
        let mut columns = self.far_end_first(p);
        let len = columns.len().max(1);
        columns.rotate_left((index - 1) % len);
        for cell in columns {
            let mut child = *p;
            child.play_cell(cell);
            if child.is_full() || child.winning_moves() != 0 {
                continue;
            }
            if self.solve_alone(&child, weak).is_none() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    /// The exact score of `p` with `helpers` helpers started at once,
    /// whatever the system's load (`with_helpers` would wait for an idle
    /// processor).
    fn solve_beside_helpers(solver: &mut Solver, p: &Position, helpers: usize) -> i32 {
        solver.prepare(p);
        solver.budget = Budget::unlimited();
        solver
            .search_beside(helpers, p, false, |s| s.solve_alone(p, false))
            .expect("an unlimited search finishes")
    }

    fn position(rules: Rules, moves: &str) -> Position {
        *crate::Game::from_move_string(rules, moves)
            .expect("a legal line")
            .position()
    }

    #[test]
    fn a_published_window_reads_back_with_a_new_count() {
        let probes = AtomicU64::new(0);
        let mut seen = Vec::new();
        for (med, dear) in [(-9, false), (0, true), (4, false), (-1, true), (-1, false)] {
            publish_window(&probes, med, dear);
            let word = probes.load(Ordering::Relaxed);
            assert_eq!(probe_window(word), med);
            assert_eq!(is_dear(word), dear);
            assert!(
                !seen.contains(&word),
                "window {med} looks like an older one"
            );
            seen.push(word);
        }
    }

    #[test]
    fn windows_go_halfway_towards_zero() {
        assert_eq!(next_window(-18, 18), -9);
        assert_eq!(next_window(-8, 18), 9);
        assert_eq!(next_window(-8, 9), -4);
        assert_eq!(next_window(3, 4), 3);
        assert_eq!(next_window(-5, -4), -5);
        assert_eq!(outcome_window(-3, 10), Some(0));
        assert_eq!(outcome_window(0, 1), Some(0));
        assert_eq!(outcome_window(-3, 0), Some(-1));
        assert_eq!(outcome_window(1, 10), None);
        assert_eq!(outcome_window(-5, -1), None);
        // Once the outcome is known: next to the bound its proof gave.
        assert_eq!(edge_window(1, 10), 1);
        assert_eq!(edge_window(4, 10), 4);
        assert_eq!(edge_window(-10, -1), -2);
        assert_eq!(edge_window(-10, -3), -4);
    }

    #[test]
    fn the_window_beside_is_the_next_one_if_the_answer_points_to_zero() {
        // A probe below zero most often fails high: the next window is
        // then above it.
        assert_eq!(window_beside(-18, 18, -9), Some(next_window(-8, 18)));
        assert_eq!(window_beside(-8, 9, -4), Some(4));
        // At or above zero it most often fails low.
        assert_eq!(window_beside(-8, 9, 4), Some(-4));
        assert_eq!(window_beside(-8, 18, 9), Some(next_window(-8, 9)));
        // That side is settled: the other one.
        assert_eq!(window_beside(2, 9, 2), Some(next_window(3, 9)));
        assert_eq!(window_beside(-9, -2, -3), Some(next_window(-9, -3)));
        // Nothing left on either side, or the window is no longer open.
        assert_eq!(window_beside(3, 4, 3), None);
        assert_eq!(window_beside(0, 5, 7), None);
        assert_eq!(window_beside(0, 5, 5), None);
        assert_eq!(window_beside(0, 5, -1), None);
    }

    #[test]
    fn the_dear_windows_are_split_where_the_proof_needs_every_move() {
        let mut solver = Solver::try_without_book(16).unwrap();
        let p = position(Rules::STANDARD, "5371555645");
        // Nothing proven: the outcome's window is split under the first
        // move.
        assert_eq!(solver.split_depth(&p, 0), 1);
        // Once its score, 4, is proven: (4, 5), at the lower bound, is
        // expected to fail low (split two moves down); (3, 4), below the
        // upper bound, to fail high.
        let mut other = Solver::try_without_book(16).unwrap();
        assert_eq!(other.solve(&p), 4);
        assert_eq!(other.proven_bounds(&p), (Some(4), Some(4)));
        assert_eq!(other.split_depth(&p, 4), 2);
        assert_eq!(other.split_depth(&p, 3), 1);
        // The window (0, 1) under the first move (column 4, 1-based: the
        // table is empty): its children, from the far end, are proven
        // until one refutes it, each as an independent solver scores it.
        solver.prepare(&p);
        solver.budget = Budget::unlimited();
        solver.probe_under(&p, 0, 1);
        let child = position(Rules::STANDARD, "53715556454");
        let mut truth = Solver::try_without_book(16).unwrap();
        let mut proven = 0;
        for cell in solver.far_end_first(&child) {
            let mut grandchild = child;
            grandchild.play_cell(cell);
            if grandchild.winning_moves() != 0 {
                continue;
            }
            let wins = truth.solve_weak(&grandchild) > 0;
            let (lower, upper) = solver.proven_bounds(&grandchild);
            if wins {
                assert!(lower.is_some_and(|l| l >= 1), "{cell:#x}: {lower:?}");
                proven += 1;
            } else {
                assert!(upper.is_some_and(|u| u <= 0), "{cell:#x}: {upper:?}");
                break;
            }
        }
        assert!(proven > 0);
    }

    #[test]
    fn helpers_with_tables_of_their_own_leave_the_scores_exact() {
        let mut solver = Solver::try_without_book(16).unwrap();
        // Lines of Test_L1_R2 with their scores (an independent solver's).
        for (moves, score) in [
            ("2541266355551", -3),
            ("5371555645", 4),
            ("23156612526", 4),
            ("13134411534775", -6),
            ("274121776146", 4),
        ] {
            let p = position(Rules::STANDARD, moves);
            assert_eq!(solve_beside_helpers(&mut solver, &p, 2), score, "{moves}");
        }
        // The helpers kept their deep positions in their own tables.
        assert_eq!(solver.helper_tables.len(), 2);
        assert!(solver.helper_tables.iter().all(|t| t.occupied() > 0));
        // Another board: the helpers' tables are made again for its keys,
        // and the scores match one thread's.
        let rules = Rules::new(6, 5, 4).unwrap();
        let mut alone = Solver::try_without_book(16).unwrap();
        for moves in ["", "3", "34", "3443"] {
            let p = position(rules, moves);
            let truth = alone.solve(&p);
            assert_eq!(
                solve_beside_helpers(&mut solver, &p, 1),
                truth,
                "6x5 {moves}"
            );
        }
        assert_eq!(solver.helper_tables.len(), 1);
    }
}
