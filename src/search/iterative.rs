//! The clocked search behind `go`: iterative deepening over a heuristic,
//! interleaved with attempts of the exact solver.
//!
//! Each iteration is a full-width alpha-beta to a fixed depth, with
//! [`super::heuristic::threats`] at the horizon and the same move pruning as the
//! solver (only moves that do not lose at once). Scores are kept in a scaled
//! unit: a proven game value `s` is `s * SCALE`, a heuristic value lies
//! strictly between `-SCALE` and `SCALE`. So a result is proven exactly when
//! its magnitude reaches `SCALE`, or when the iteration reached the end of the
//! game (depth at least the number of empty cells); a proven draw is only
//! recognised in the second way.
//!
//! Between iterations, when no depth limit was asked for, the exact solver
//! gets a node budget that grows with the work done so far; its table
//! persists across attempts and moves, so no attempt is wasted. An attempt
//! cut short still proves things on its way, and the iterations use them:
//! at every node, a position the solver's table proves won or lost ranks
//! beyond every estimate, one proven drawn is 0; at the root, moves the
//! table proves worse than another (or lost while another is not) leave
//! the candidates. Whenever a limit strikes, the answer is the best move of
//! the last completed iteration among the moves left, and before any
//! iteration completes, a safe move: a win at once, else the block of a
//! single threat, else a move that does not lose at once, centre first.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use crate::book::Book;
use crate::position::Position;
use crate::rules::Rules;
use crate::score;
use crate::score::Outcome;
use crate::search::depth_table::{BoundKind, DepthTable, Entry};
use crate::search::heuristic;
use crate::search::limits::{Budget, Limits};
use crate::search::order::{MoveSorter, Scoring, centre_first, first_in_order};
use crate::search::solver::{DEEP_TABLE_MB, MIN_HASH_MB, Solver};

/// A proven score `s` is `s * SCALE` in search units.
const SCALE: i32 = 100;
/// Beyond every search value.
const INFINITY: i32 = 1_000_000;
/// No exact attempt before this iteration: shallow iterations are cheap and
/// give a move to fall back on. Each attempt's allowance doubles the work
/// done so far, so this iteration sets how deep the fallback gets: at
/// 100 ms on random 8-12-ply positions, 4 left the heuristic at depth 7 and
/// 8 takes it to about 11 for a millisecond more (moves that kept the
/// value, 1,218 positions labelled by the solver: 1,151 with 4, 1,166 and
/// 1,167 with 8 in two runs; 10 did no better).
const FIRST_EXACT_ATTEMPT: u32 = 8;

/// A score as the search reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SearchScore {
    /// Whether `value` is the proven game value (the test sets' convention);
    /// otherwise it is a heuristic estimate in `-99..=99`.
    pub exact: bool,
    /// The value, from the side to move.
    pub value: i32,
    /// The proven outcome (win, draw or loss), when it is known: always
    /// with an exact value, and also before the distance is (then `value`
    /// is 99, 0 or -99).
    pub outcome: Option<Outcome>,
}

/// The heuristic value that stands for a proven outcome whose distance is
/// not yet known: the ends of the heuristic range, or 0.
const PROVEN_VALUE: i32 = 99;

impl SearchScore {
    /// An exact game value.
    pub fn exact(value: i32) -> SearchScore {
        SearchScore {
            exact: true,
            value,
            outcome: Some(Outcome::of(value)),
        }
    }

    /// A heuristic estimate.
    pub fn estimate(value: i32) -> SearchScore {
        SearchScore {
            exact: false,
            value,
            outcome: None,
        }
    }

    /// A proven outcome whose distance is not known.
    pub fn proven(outcome: Outcome) -> SearchScore {
        SearchScore {
            exact: false,
            value: match outcome {
                Outcome::Win => PROVEN_VALUE,
                Outcome::Draw => 0,
                Outcome::Loss => -PROVEN_VALUE,
            },
            outcome: Some(outcome),
        }
    }

    /// The same score from the other side.
    pub fn negate(self) -> SearchScore {
        SearchScore {
            exact: self.exact,
            value: -self.value,
            outcome: self.outcome.map(Outcome::reversed),
        }
    }
}

/// What the search knows after a completed iteration (or a solved position).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// Depth of the completed iteration, in plies.
    pub depth: u32,
    /// Best move, 0-based column.
    pub best: u32,
    /// The score of the position.
    pub score: SearchScore,
    /// Nodes searched since the search began.
    pub nodes: u64,
    /// Time since the search began.
    pub time: Duration,
    /// Principal variation, 0-based columns, starting with the best move.
    pub pv: Vec<u32>,
    /// For an agent other than the solver, its own value in its
    /// evaluator's units (the score then holds it scaled into -99..=99).
    pub agent_value: Option<i32>,
}

impl Report {
    /// Nodes per second.
    pub fn nodes_per_second(&self) -> u64 {
        (self.nodes as f64 / self.time.as_secs_f64().max(1e-6)) as u64
    }
}

/// The clocked search, with its tables (kept between searches).
pub struct Searcher {
    solver: Solver,
    table: DepthTable,
    budget: Budget,
    order: Vec<u64>,
    rules: Option<Rules>,
    /// Whether a search ran since the tables were last cleared.
    dirty: bool,
}

impl Searcher {
    /// A searcher whose solver table takes `hash_mb` MiB (and its depth table
    /// a quarter of that).
    ///
    /// # Panics
    /// If the memory cannot be had; [`Searcher::try_new`] says so instead.
    pub fn new(hash_mb: usize) -> Searcher {
        Searcher::try_new(hash_mb)
            .unwrap_or_else(|| panic!("no memory for {hash_mb} MiB of search tables"))
    }

    /// A searcher whose tables take [`Searcher::mebibytes_for`] `hash_mb`
    /// MiB, or `None` if the memory cannot be had.
    pub fn try_new(hash_mb: usize) -> Option<Searcher> {
        Some(Searcher {
            solver: Solver::try_new(hash_mb)?,
            table: DepthTable::try_with_mebibytes((hash_mb / 4).max(1))?,
            budget: Budget::unlimited(),
            order: Vec::new(),
            rules: None,
            dirty: false,
        })
    }

    /// Memory the tables of `hash_mb` take, in MiB: the solver's (at least
    /// [`MIN_HASH_MB`]), its thread's own [`DEEP_TABLE_MB`], and a quarter
    /// of `hash_mb` for the depth-limited search.
    pub fn mebibytes_for(hash_mb: usize) -> usize {
        hash_mb.max(MIN_HASH_MB) + DEEP_TABLE_MB + (hash_mb / 4).max(1)
    }

    /// Forgets what both tables learned (a new game). Free when nothing
    /// was searched since the last clear, which matters to an engine that
    /// plays another agent and starts thousands of games: wiping 64 MiB
    /// takes milliseconds.
    pub fn clear(&mut self) {
        if self.dirty {
            self.solver.clear();
            self.table.clear();
            self.dirty = false;
        }
    }

    fn prepare(&mut self, p: &Position) {
        self.dirty = true;
        let rules = p.rules();
        if self.rules != Some(rules) {
            if self.rules.is_some() {
                self.table.clear();
            }
            self.order = centre_first(p.columns())
                .into_iter()
                .map(|c| p.column_mask(c))
                .collect();
            self.rules = Some(rules);
        }
    }

    /// Searches `p` within `limits` and the optional stop flag, calling
    /// `on_report` after each completed iteration. Returns the final report,
    /// or `None` if the game is over.
    pub fn search(
        &mut self,
        p: &Position,
        limits: &Limits,
        stop: Option<Arc<AtomicBool>>,
        mut on_report: impl FnMut(&Report),
    ) -> Option<Report> {
        if p.is_over() {
            return None;
        }
        let start = Instant::now();
        self.prepare(p);
        self.budget = Budget::new(limits, start, stop);
        // Step 1. A win at once, or a loss whatever we play, needs no search;
        // nor does a position of the opening book, unless a depth was asked.
        let mut answer = self.immediate(p, start);
        if answer.is_none() && limits.depth.is_none() {
            answer = self.book_move(p, start);
        }
        if let Some(r) = answer {
            on_report(&r);
            return Some(r);
        }
        // Steps 2 to 4. Iterative deepening with exact attempts.
        let mut last = self.deepen(p, limits, start, &mut on_report);
        last.nodes = self.budget.nodes();
        last.time = start.elapsed();
        Some(last)
    }

    /// A report of this search so far.
    fn report(
        &self,
        start: Instant,
        depth: u32,
        best: u32,
        score: SearchScore,
        pv: Vec<u32>,
    ) -> Report {
        Report {
            depth,
            best,
            score,
            nodes: self.budget.nodes(),
            time: start.elapsed(),
            pv,
            agent_value: None,
        }
    }

    /// The answer when there is nothing to search: a win at once, or every
    /// move handing the opponent a win at once.
    fn immediate(&mut self, p: &Position, start: Instant) -> Option<Report> {
        let wins = p.winning_moves();
        if wins != 0 {
            let best = self.first_in_order(p, wins);
            let score = SearchScore::exact(score::win_now(p));
            return Some(self.report(start, 1, best, score, vec![best]));
        }
        if p.non_losing_moves() == 0 {
            let best = self.first_in_order(p, p.possible());
            let score = SearchScore::exact(score::loss_next(p));
            return Some(self.report(start, 1, best, score, vec![best]));
        }
        None
    }

    /// The book's move and exact score, if the book holds `p`.
    fn book_move(&self, p: &Position, start: Instant) -> Option<Report> {
        let m = self.solver.book_move(p)?;
        let score = SearchScore::exact(m.score);
        Some(self.report(start, p.empty_cells(), m.column, score, vec![m.column]))
    }

    /// Proves with `threads` threads sharing the solver's table (the
    /// depth-limited iterations stay on one).
    pub fn set_threads(&mut self, threads: usize) {
        self.solver.set_threads(threads);
    }

    /// Threads of the solver's proofs.
    pub fn threads(&self) -> usize {
        self.solver.threads()
    }

    /// Uses `book` (or none) for exact answers in the opening; the shipped
    /// book by default.
    pub fn set_book(&mut self, book: Option<Arc<Book>>) {
        self.solver.set_book(book);
    }

    /// The book in use, if any.
    pub fn book(&self) -> Option<&Arc<Book>> {
        self.solver.book()
    }

    /// Iterative deepening over the moves that do not lose at once, with
    /// exact attempts between iterations; the last completed iteration's
    /// report (or a safe move if none completed).
    fn deepen(
        &mut self,
        p: &Position,
        limits: &Limits,
        start: Instant,
        on_report: &mut impl FnMut(&Report),
    ) -> Report {
        let empties = p.empty_cells();
        let mut candidates = p.non_losing_moves();
        // Step 2. The fallback: a safe move, before any iteration completes.
        let not_yet = SearchScore::estimate(0);
        let mut last = self.report(
            start,
            0,
            self.first_in_order(p, candidates),
            not_yet,
            Vec::new(),
        );
        let max_depth = limits.depth.unwrap_or(u32::MAX).min(empties).max(1);
        let forced = candidates.count_ones() == 1 && limits.time.is_some();
        // Step 3. Iterative deepening.
        for depth in 1..=max_depth {
            let Some((best, value)) = self.root(p, depth, candidates, last.best) else {
                break;
            };
            let exact = value.abs() >= SCALE || depth >= empties;
            let score = if exact {
                SearchScore::exact(value / SCALE)
            } else {
                SearchScore::estimate(value)
            };
            let pv = self.principal_variation(p, best, depth);
            last = self.report(start, depth, best, score, pv);
            on_report(&last);
            if exact || forced {
                break;
            }
            // Step 4. Outcome first: prove win, draw or loss with null
            // windows around 0, with a budget that grows with the work done
            // so far; once proven, only exact attempts follow, so the
            // proven move is never traded for a heuristic one.
            if limits.depth.is_none() && depth >= FIRST_EXACT_ATTEMPT {
                let allowance = (self.budget.nodes() * 2).max(1 << 16);
                if let Some((best, outcome)) = self.outcome_attempt(p, allowance) {
                    last =
                        self.report(start, depth, best, SearchScore::proven(outcome), vec![best]);
                    on_report(&last);
                    return self.refine(p, start, last, on_report);
                }
                // The attempt may have refuted some moves on its way: the
                // heuristic no longer chooses among those.
                let dominated = self.solver.dominated_moves(p, candidates);
                if dominated != candidates {
                    candidates &= !dominated;
                    if candidates & p.column_mask(last.best) == 0 {
                        last.best = self.first_in_order(p, candidates);
                        last.pv = vec![last.best];
                    }
                }
                if self.budget.aborted() {
                    break;
                }
            }
        }
        last
    }

    /// Step 5. After a proven outcome, exact attempts with doubling budgets
    /// for the distance (the fastest win, the longest defence) while the
    /// limits allow; the proven move stands until one succeeds.
    fn refine(
        &mut self,
        p: &Position,
        start: Instant,
        proven: Report,
        on_report: &mut impl FnMut(&Report),
    ) -> Report {
        let mut allowance = (self.budget.nodes() * 2).max(1 << 16);
        loop {
            if let Some((best, value)) = self.exact_attempt(p, allowance) {
                let exact = SearchScore::exact(value);
                let r = self.report(start, p.empty_cells(), best, exact, vec![best]);
                on_report(&r);
                return r;
            }
            if self.budget.aborted() || self.budget.check_now() {
                return proven;
            }
            allowance = allowance.saturating_mul(2);
        }
    }

    /// Runs the solver's outcome-first proof on `p` with at most `allowance`
    /// nodes of the remaining budget: a move that keeps the outcome, and
    /// the outcome.
    fn outcome_attempt(&mut self, p: &Position, allowance: u64) -> Option<(u32, Outcome)> {
        self.attempt(allowance, |solver| solver.outcome_move_within(p))
    }

    /// Runs the exact solver on `p` with at most `allowance` nodes of the
    /// remaining budget: a best move and the exact score.
    fn exact_attempt(&mut self, p: &Position, allowance: u64) -> Option<(u32, i32)> {
        self.attempt(allowance, |solver| solver.best_move_within(p))
    }

    /// Runs `proof` on the solver with at most `allowance` nodes of the
    /// remaining budget; its nodes count against the search's budget.
    fn attempt<T>(
        &mut self,
        allowance: u64,
        proof: impl FnOnce(&mut Solver) -> Option<T>,
    ) -> Option<T> {
        let mut sub = self.budget.clone();
        sub.limit_nodes_from_now(allowance);
        let before = sub.nodes();
        self.solver.set_budget(sub);
        let result = proof(&mut self.solver);
        let used = self.solver.nodes() - before;
        self.budget.charge(used);
        if self.solver.aborted() && !self.budget.check_now() {
            // Only the attempt's own allowance ran out: the search goes on.
            return None;
        }
        result
    }

    /// The first cell of `cells` in centre-first order, as a column.
    fn first_in_order(&self, p: &Position, cells: u64) -> u32 {
        p.column_of(first_in_order(&self.order, cells))
    }

    /// One iteration at the root: the best of `candidates` to `depth`, with
    /// `previous` searched first. `None` if the budget ran out.
    fn root(
        &mut self,
        p: &Position,
        depth: u32,
        candidates: u64,
        previous: u32,
    ) -> Option<(u32, i32)> {
        let first = candidates & p.column_mask(previous);
        let moves = MoveSorter::fill(p, candidates, first, &self.order, Scoring::Threats);
        let mut best = (previous, -INFINITY);
        let mut alpha = -INFINITY;
        for cell in moves {
            let mut child = *p;
            child.play_cell(cell);
            let v = -self.alphabeta(&child, depth - 1, -INFINITY, -alpha);
            if self.budget.aborted() {
                return None;
            }
            if v > best.1 {
                best = (p.column_of(cell), v);
                alpha = v;
            }
        }
        self.table.put(
            p.key(),
            Entry {
                depth,
                kind: BoundKind::Exact,
                value: best.1,
                best: Some(best.0),
            },
        );
        Some(best)
    }

    /// Depth-limited alpha-beta, fail-soft, in search units.
    ///
    /// Contract: `p` is not over (immediate wins of the side to move are
    /// detected here, so the caller need not check them). The value `v`
    /// means: `v <= alpha` an upper bound, `v >= beta` a lower bound,
    /// otherwise the depth-limited value. Meaningless if the budget ran out
    /// (the caller checks [`Budget::aborted`]).
    fn alphabeta(&mut self, p: &Position, depth: u32, mut alpha: i32, mut beta: i32) -> i32 {
        // Step 1. Count the node.
        if self.budget.tick() {
            return 0;
        }
        // Step 2. Outcomes decided within a move.
        if p.winning_moves() != 0 {
            return score::win_now(p) * SCALE;
        }
        let moves = p.non_losing_moves();
        if moves == 0 {
            return score::loss_next(p) * SCALE;
        }
        if p.moves_played() + 2 >= p.columns() * p.rows() {
            return 0;
        }
        // Step 3. What the solver's proofs know: a proven win or loss
        // ranks beyond every estimate (but within the heuristic range, as
        // its distance is not known), a proven draw is 0.
        let (low, high) = self.proven_range(p);
        if low == high || low >= beta {
            return low;
        }
        if high <= alpha {
            return high;
        }
        // Step 3b. The horizon.
        if depth == 0 {
            return heuristic::threats(p).clamp(low, high);
        }
        // Step 4. The table: bounds from searches at least as deep, and a move.
        let key = p.key();
        let mut hint = None;
        if let Some(e) = self.table.get(key) {
            hint = e.best;
            if e.depth >= depth {
                match e.kind {
                    BoundKind::Exact => return e.value,
                    BoundKind::Lower => alpha = alpha.max(e.value),
                    BoundKind::Upper => beta = beta.min(e.value),
                }
                if alpha >= beta {
                    return e.value;
                }
            }
        }
        let (alpha_in, beta_in) = (alpha, beta);
        // Step 5. The moves: the table's first, then by threats created.
        let first = hint.map_or(0, |c| moves & p.column_mask(c));
        let sorted = MoveSorter::fill(p, moves, first, &self.order, Scoring::Threats);
        let mut best = -INFINITY;
        let mut best_column = None;
        for cell in sorted {
            let mut child = *p;
            child.play_cell(cell);
            let v = -self.alphabeta(&child, depth - 1, -beta, -alpha);
            if self.budget.aborted() {
                return 0;
            }
            if v > best {
                best = v;
                best_column = Some(p.column_of(cell));
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        let best = best.clamp(low, high);
        // Step 6. Store what the searched window says about the value.
        self.store(key, depth, (alpha_in, beta_in), best, best_column);
        best
    }

    /// Stores what a search of `depth` plies in the window `(alpha,
    /// beta)` found: `value` (an upper bound at or below alpha, a lower
    /// bound at or above beta, exact between) and its move.
    #[inline]
    fn store(&mut self, key: u64, depth: u32, window: (i32, i32), value: i32, best: Option<u32>) {
        let kind = if value <= window.0 {
            BoundKind::Upper
        } else if value >= window.1 {
            BoundKind::Lower
        } else {
            BoundKind::Exact
        };
        let entry = Entry {
            depth,
            kind,
            value,
            best,
        };
        self.table.put(key, entry);
    }

    /// The range of search values the solver's proofs allow for `p`: a
    /// proven win at least the top of the heuristic range, a proven loss
    /// at most its bottom, at least a draw at least 0, at most a draw at
    /// most 0.
    fn proven_range(&self, p: &Position) -> (i32, i32) {
        let (lower, upper) = self.solver.table_bounds(p);
        let low = match lower {
            Some(l) if l >= 1 => heuristic::LIMIT,
            Some(0) => 0,
            _ => -INFINITY,
        };
        let high = match upper {
            Some(u) if u <= -1 => -heuristic::LIMIT,
            Some(0) => 0,
            _ => INFINITY,
        };
        (low, high)
    }

    /// The best move followed by the table's best moves, at most `depth`
    /// plies, stopping at the end of the game or at a missing entry.
    fn principal_variation(&self, p: &Position, best: u32, depth: u32) -> Vec<u32> {
        let mut pv = vec![best];
        let mut q = *p;
        q.play(best);
        while (pv.len() as u32) < depth && !q.is_over() {
            let Some(c) = self.table.get(q.key()).and_then(|e| e.best) else {
                break;
            };
            if !q.can_play(c) {
                break;
            }
            pv.push(c);
            q.play(c);
        }
        pv
    }

    /// The score of every legal column of `p` (0-based column, score), each
    /// searched with an equal share of `limits`' nodes and of what is left
    /// of its time: a column proven early leaves its time to the ones after.
    pub fn analyze(
        &mut self,
        p: &Position,
        limits: &Limits,
        stop: Option<Arc<AtomicBool>>,
    ) -> Vec<(u32, SearchScore)> {
        let columns: Vec<u32> = p.legal_moves();
        let start = Instant::now();
        let mut scores = Vec::with_capacity(columns.len());
        for (i, &c) in columns.iter().enumerate() {
            let left = (columns.len() - i) as u32;
            let child_limits = Limits {
                depth: limits.depth,
                nodes: limits.nodes.map(|n| (n / columns.len() as u64).max(1)),
                time: limits
                    .time
                    .map(|t| t.saturating_sub(start.elapsed()) / left),
            };
            scores.push((c, self.column_score(p, c, &child_limits, stop.clone())));
        }
        scores
    }

    /// The score of playing column `c` (0-based, legal) in `p`, for the
    /// side to move, searched within `limits` (a depth counts the move).
    pub fn column_score(
        &mut self,
        p: &Position,
        c: u32,
        limits: &Limits,
        stop: Option<Arc<AtomicBool>>,
    ) -> SearchScore {
        let mut child = *p;
        child.play(c);
        if child.last_move_won() {
            return SearchScore::exact(score::win_now(p));
        }
        if child.is_full() {
            return SearchScore::exact(0);
        }
        let limits = Limits {
            depth: limits.depth.map(|d| d.saturating_sub(1).max(1)),
            ..limits.clone()
        };
        self.search(&child, &limits, stop, |_| {})
            .expect("the child is not over")
            .score
            .negate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The depth-2 heuristic choice for `p`, with the solver's table
    /// primed by an exact solve of each position of `proven`.
    fn shallow_choice(p: &Position, proven: &[Position]) -> u32 {
        let mut searcher = Searcher::new(16);
        searcher.set_book(None);
        for q in proven {
            searcher.solver.solve(q);
        }
        searcher
            .search(p, &Limits::depth(2), None, |_| {})
            .expect("not over")
            .best
    }

    #[test]
    fn a_move_the_solver_proved_lost_is_not_played_on_a_heuristic() {
        // Where a shallow search picks a losing move and another keeps the
        // value, the same search with that move's child solved picks
        // another one.
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/bench/Test_L2_R1");
        let text = std::fs::read_to_string(path).expect("the test sets in ../shared/bench");
        let cases = crate::bench::parse_cases(Rules::STANDARD, &text).unwrap();
        let mut judge = Solver::new(16).with_book(None);
        let (mut corrected, mut seen) = (0, 0);
        for case in cases.iter().take(400) {
            let p = *case.game.position();
            let moves = case.game.move_string();
            let scores = judge.analyze(&p);
            let best = scores.iter().flatten().max().copied().unwrap();
            let choice = shallow_choice(&p, &[]);
            if best < 0 || scores[choice as usize].is_none_or(|s| s >= 0) {
                continue;
            }
            seen += 1;
            let mut child = p;
            child.play(choice);
            let again = shallow_choice(&p, &[child]);
            assert_ne!(again, choice, "{moves}");
            corrected += 1;
        }
        assert!(seen > 0 && corrected == seen, "{corrected} of {seen}");
    }
}
