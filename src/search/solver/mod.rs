//! The exact solver: null-window negamax over the score of the position,
//! narrowed towards zero; its tables in `tables`, what a node reads of its
//! children before searching them in `children`, its helper threads in
//! `helpers`. What each setting bought is in docs/measurements.md.

mod children;
mod helpers;
mod settle;
mod tables;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::time::Instant;

use crate::book::{Book, BookMove, LayerMove};
use crate::position::{Position, cells};
use crate::rules::Rules;
use crate::score::{self, Outcome};
use crate::search::bounds_table::TranspositionTable;
use crate::search::limits::{Budget, Limits};
use crate::search::order::{MoveSorter, Scoring, centre_first, first_in_order};
use helpers::{edge_window, next_window, outcome_window, publish_window};
use settle::{Settled, forced_line, settle};
pub use tables::{DEEP_BELOW_EMPTY, DEEP_TABLE_MB, DEFAULT_HASH_MB, MIN_HASH_MB};
use tables::{deep_table, key_bits, table_key};

/// For its first this many nodes, a search tries forcing moves first
/// ([`Scoring::ForcingFirst`]): they settle easy positions fast, and cost
/// more than they save in a long search.
const FORCING_FIRST_NODES: u64 = 3_000;

/// In positions with at least this fraction of their cells empty (30 of
/// the standard board's 42: its first 12 plies), moves are ordered by
/// their threats and the lines still open through them
/// ([`Scoring::ThreatsAndOpenLines`]); deeper, by their threats, the
/// centre-first order breaking the ties (docs/measurements.md has what each
/// bought).
const OPEN_LINES_EMPTY: (u32, u32) = (5, 7);

/// Once a probe of the root has cost this many nodes, the position is a
/// hard one: the windows that decide its outcome come next (see
/// [`helpers::outcome_window`]), whose proofs the others then reuse.
const OUTCOME_FIRST_AFTER_NODES: u64 = 1_000_000;
/// On a position with at least this many empty cells (the first six
/// plies of the standard board), a probe of [`OUTCOME_FIRST_EARLY_NODES`]
/// is costly enough: there the far windows of a hard position cost
/// millions of nodes and fill the table with little the outcome's proof
/// reuses, while an easy one settles in a few thousand.
const OUTCOME_FIRST_EMPTY: u32 = 36;
/// See [`OUTCOME_FIRST_EMPTY`].
const OUTCOME_FIRST_EARLY_NODES: u64 = 100_000;

/// An exact solver with a transposition table that persists between calls.
pub struct Solver {
    /// The table of the positions with at least [`DEEP_BELOW_EMPTY`] empty
    /// cells, shared with the helper threads of a parallel search.
    tt: Arc<TranspositionTable>,
    /// This thread's own table of the positions with fewer (`tt` itself
    /// if the memory for it could not be had).
    deep_tt: Arc<TranspositionTable>,
    /// The helpers' own tables, made when first needed and kept between
    /// searches (what they hold stays true).
    helper_tables: Vec<Arc<TranspositionTable>>,
    /// While helpers work: where this thread publishes the null window it
    /// probes (see [`Solver::follow_probes`]).
    probes: Option<Arc<AtomicU64>>,
    /// Threads that search (1: this one alone).
    threads: usize,
    budget: Budget,
    /// Column masks, centre first, for the board last searched.
    order: Vec<u64>,
    /// The rules of the last search: keys of different boards can collide,
    /// so the table is cleared when they change.
    rules: Option<Rules>,
    /// Exact scores of early positions, taken as they are; none for plies
    /// beyond `book_plies`.
    book: Option<Arc<Book>>,
    book_plies: u32,
    /// Bit `n` set: the book has a layer of ply `n`, whose outcomes bound
    /// the score.
    layer_plies: u64,
}

impl Solver {
    /// A solver with a table of at most `hash_mb` MiB.
    ///
    /// # Panics
    /// If the memory cannot be had; [`Solver::try_new`] says so instead.
    pub fn new(hash_mb: usize) -> Solver {
        Solver::try_new(hash_mb)
            .unwrap_or_else(|| panic!("no memory for a {hash_mb} MiB solver table"))
    }

    /// A solver with a table of at most `hash_mb` MiB, or `None` if the
    /// memory cannot be had.
    pub fn try_new(hash_mb: usize) -> Option<Solver> {
        Some(Solver::try_without_book(hash_mb)?.with_book(Some(Book::shipped())))
    }

    /// [`Solver::try_new`] without the book: the shipped one is not even
    /// read (a few milliseconds a process, which a benchmark of easy
    /// positions would count).
    pub fn try_without_book(hash_mb: usize) -> Option<Solver> {
        // At least MIN_HASH_MB, which holds the keys of every board: the
        // table is cleared, not made again, for another board.
        let tt = Arc::new(TranspositionTable::try_with_mebibytes(
            hash_mb.max(MIN_HASH_MB),
            key_bits(Rules::STANDARD),
        )?);
        Some(Solver {
            deep_tt: deep_table(Rules::STANDARD).unwrap_or_else(|| Arc::clone(&tt)),
            tt,
            helper_tables: Vec::new(),
            probes: None,
            threads: 1,
            budget: Budget::unlimited(),
            order: Vec::new(),
            rules: None,
            book: None,
            book_plies: 0,
            layer_plies: 0,
        })
    }

    /// Uses `book` (or none) for exact scores of early positions: the
    /// shipped book by default. Benchmarks and book checks turn it off.
    pub fn with_book(mut self, book: Option<Arc<Book>>) -> Solver {
        self.set_book(book);
        self
    }

    /// See [`Solver::with_book`].
    pub fn set_book(&mut self, book: Option<Arc<Book>>) {
        self.book_plies = book.as_ref().map_or(0, |b| b.deepest_ply());
        self.layer_plies = book
            .as_ref()
            .map_or(0, |b| b.layers().iter().fold(0, |m, l| m | 1u64 << l.ply()));
        self.book = book.filter(|b| !b.is_empty());
    }

    /// The book in use, if any.
    pub fn book(&self) -> Option<&Arc<Book>> {
        self.book.as_ref()
    }

    /// The book's best move and exact score for `p`, if it has them.
    pub fn book_move(&self, p: &Position) -> Option<BookMove> {
        self.book_entry(p)
    }

    /// The book's exact score and best move for `p`, if it has them.
    #[inline]
    fn book_entry(&self, p: &Position) -> Option<BookMove> {
        match &self.book {
            Some(book) if p.moves_played() <= self.book_plies => book.lookup(p),
            _ => None,
        }
    }

    /// What the book's layer of `p`'s ply knows of `p`, if any.
    #[inline]
    fn layer_entry(&self, p: &Position) -> Option<LayerMove> {
        match &self.book {
            Some(book) if self.layer_plies >> p.moves_played() & 1 == 1 => book.layer_move(p),
            _ => None,
        }
    }

    /// The bounds on `p`'s exact score that its outcome in a layer gives.
    #[inline]
    fn layer_bounds(&self, p: &Position) -> Option<(i32, i32)> {
        self.layer_entry(p).map(|m| match m.outcome {
            Outcome::Win => (1, score::win_now(p)),
            Outcome::Draw => (0, 0),
            Outcome::Loss => (score::loss_next(p), -1),
        })
    }

    /// Forgets everything the tables learned.
    pub fn clear(&mut self) {
        self.tt.clear();
        self.deep_tt.clear();
        self.helper_tables.iter().for_each(|t| t.clear());
    }

    /// Nodes visited since the budget was last set.
    pub fn nodes(&self) -> u64 {
        self.budget.nodes()
    }

    /// Searches with `threads` threads in all (at least 1), sharing the
    /// table: helpers prove what this thread will need (the outcome, the
    /// root's children) into the table, the result is this thread's.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    /// Threads that search.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Limits the next searches to `limits`, counted from now (and resets
    /// the node count); `stop`, when raised, ends them too. A search cut
    /// short answers `None` and [`Solver::aborted`] says so.
    pub fn set_limits(&mut self, limits: &Limits, stop: Option<Arc<AtomicBool>>) {
        self.budget = Budget::new(limits, Instant::now(), stop);
    }

    /// Sets the budget for the next searches (and resets the node count):
    /// the clocked search's share of its own budget.
    pub(crate) fn set_budget(&mut self, budget: Budget) {
        self.budget = budget;
    }

    /// Whether the last search ran out of budget.
    pub fn aborted(&self) -> bool {
        self.budget.aborted()
    }

    /// Gets ready to search a position of `p`'s rules.
    fn prepare(&mut self, p: &Position) {
        let rules = p.rules();
        if self.rules != Some(rules) {
            if self.rules.is_some() || rules != Rules::STANDARD {
                self.tt.reset_for_keys(key_bits(rules));
                // Made for this board's keys (they may need a larger one).
                self.deep_tt = deep_table(rules).unwrap_or_else(|| Arc::clone(&self.tt));
            }
            // Made again, for this board's keys, when next needed.
            self.helper_tables.clear();
            self.order = centre_first(p.columns())
                .into_iter()
                .map(|c| p.column_mask(c))
                .collect();
            self.rules = Some(rules);
        }
    }

    /// The exact score of `p`, which must not be over. Unlimited budget.
    pub fn solve(&mut self, p: &Position) -> i32 {
        self.budget = Budget::unlimited();
        self.solve_within(p, false)
            .expect("an unlimited search always finishes")
    }

    /// Only the outcome: 1 win, 0 draw, -1 loss. Unlimited budget.
    pub fn solve_weak(&mut self, p: &Position) -> i32 {
        self.budget = Budget::unlimited();
        self.solve_within(p, true)
            .expect("an unlimited search always finishes")
            .signum()
    }

    /// The exact score (or with `weak`, a score of the right sign) of `p`
    /// within the current budget; `None` if the budget ran out first. With
    /// several threads (see [`Solver::set_threads`]) helpers share the work.
    pub fn solve_within(&mut self, p: &Position, weak: bool) -> Option<i32> {
        self.with_helpers(p, weak, |solver| solver.solve_alone(p, weak))
    }

    /// [`Solver::solve_within`] on this thread alone.
    fn solve_alone(&mut self, p: &Position, weak: bool) -> Option<i32> {
        debug_assert!(!p.is_over(), "solve needs a position that is not over");
        self.prepare(p);
        if p.winning_moves() != 0 {
            return Some(score::win_now(p));
        }
        if let Some(m) = self.book_entry(p) {
            return Some(if weak { m.score.signum() } else { m.score });
        }
        let (mut min, mut max) = if weak {
            (-1, 1)
        } else {
            (score::loss_next(p), score::win_now(p))
        };
        if let Some((lo, hi)) = self.layer_bounds(p) {
            // The outcome is known: a weak solve is done, an exact one
            // searches only that side of zero.
            min = min.max(lo.min(max));
            max = max.min(hi.max(min));
        }
        self.narrow(p, min, max)
    }

    /// The score of `p`, known to lie in `[min, max]`, narrowed down to one
    /// value with null-window searches (or a score of the right sign, when
    /// the window is `[-1, 1]`); `None` if the budget ran out. It probes
    /// the far windows first, which cost little and narrow the range, and
    /// once a probe has cost [`OUTCOME_FIRST_AFTER_NODES`] (fewer early in
    /// the game: [`OUTCOME_FIRST_EMPTY`]), the windows of
    /// the outcome, then the window next to the bound that proof gave
    /// ([`helpers::edge_window`]); a helper beside it splits those proofs
    /// with it.
    fn narrow(&mut self, p: &Position, mut min: i32, mut max: i32) -> Option<i32> {
        let mut hard = false;
        let dear = if p.empty_cells() >= OUTCOME_FIRST_EMPTY {
            OUTCOME_FIRST_EARLY_NODES
        } else {
            OUTCOME_FIRST_AFTER_NODES
        };
        let mut edge = false;
        while min < max {
            let outcome = hard.then(|| outcome_window(min, max)).flatten();
            let at_edge = edge && outcome.is_none();
            let med = if at_edge {
                edge_window(min, max)
            } else {
                outcome.unwrap_or_else(|| next_window(min, max))
            };
            edge = outcome.is_some();
            if let Some(probes) = &self.probes {
                publish_window(probes, med, outcome.is_some() || at_edge);
            }
            let before = self.budget.nodes();
            let r = self.negamax(p, med, med + 1);
            if self.budget.aborted() {
                return None;
            }
            // With helpers beside it too: the first splits these windows'
            // proofs with it (`helpers::follow_probes`).
            hard |= self.budget.nodes() - before >= dear;
            if r <= med {
                max = r;
            } else {
                min = r;
            }
        }
        Some(min)
    }

    /// The outcome of `p` (which must not be over) if the solver proves it
    /// within `nodes` nodes, from the side to move; `None` if it could not.
    /// The entry point for adjudication and for filtering decided openings.
    pub fn prove_outcome(&mut self, p: &Position, nodes: u64) -> Option<Outcome> {
        self.budget = Budget::new(&Limits::nodes(nodes), Instant::now(), None);
        self.solve_within(p, true).map(Outcome::of)
    }

    /// The exact score of each column (0-based index): `None` for a full
    /// column. Unlimited budget.
    pub fn analyze(&mut self, p: &Position) -> Vec<Option<i32>> {
        self.budget = Budget::unlimited();
        self.analyze_within(p)
            .expect("an unlimited search always finishes")
    }

    /// [`Solver::analyze`] within the current budget.
    pub fn analyze_within(&mut self, p: &Position) -> Option<Vec<Option<i32>>> {
        let mut out = Vec::with_capacity(p.columns() as usize);
        for c in 0..p.columns() {
            if !p.can_play(c) {
                out.push(None);
            } else {
                out.push(Some(self.column_score_within(p, c)?));
            }
        }
        Some(out)
    }

    /// The exact score of playing column `c` (playable) in `p`, from `p`'s
    /// side to move, within the current budget; `None` if it ran out.
    pub fn column_score_within(&mut self, p: &Position, c: u32) -> Option<i32> {
        if p.is_winning_move(c) {
            return Some(score::win_now(p));
        }
        let mut child = *p;
        child.play(c);
        if child.is_full() {
            return Some(0);
        }
        self.solve_within(&child, false).map(|s| -s)
    }

    /// A best move (0-based column) and the exact score of `p`, within the
    /// current budget. Among equally good moves, the first in centre-first
    /// order wins.
    pub fn best_move_within(&mut self, p: &Position) -> Option<(u32, i32)> {
        self.with_helpers(p, false, |solver| solver.best_move_alone(p))
    }

    /// The first column in centre-first order that wins at once, if any.
    fn winning_column(&self, p: &Position) -> Option<u32> {
        let winning = p.winning_moves();
        (winning != 0).then(|| p.column_of(first_in_order(&self.order, winning)))
    }

    /// [`Solver::best_move_within`] on this thread alone.
    fn best_move_alone(&mut self, p: &Position) -> Option<(u32, i32)> {
        self.prepare(p);
        if let Some(column) = self.winning_column(p) {
            return Some((column, score::win_now(p)));
        }
        if let Some(m) = self.book_entry(p) {
            return Some((m.column, m.score));
        }
        let value = self.solve_alone(p, false)?;
        // Every move that does not lose at once, centre first; if all lose
        // at once, any legal move is as good as another.
        let mut candidates = p.non_losing_moves();
        if candidates == 0 {
            candidates = p.possible();
        }
        let lost_next = value == score::loss_next(p);
        // The child scores -value for the opponent iff it is at most -value.
        let cell = self.first_child_keeping(p, 0, candidates, |solver, child| {
            lost_next || solver.child_keeps(child, -value)
        })?;
        let cell = cell.expect("some move achieves the value of the position");
        Some((p.column_of(cell), value))
    }

    /// The first of `candidates` (cells) whose child `keeps` the value
    /// sought, trying the cell `first` (if not 0) and then the rest in
    /// centre-first order: `Some(Some(cell))`, `Some(None)` if no child
    /// does, `None` if the budget ran out.
    fn first_child_keeping(
        &mut self,
        p: &Position,
        first: u64,
        candidates: u64,
        mut keeps: impl FnMut(&mut Solver, &Position) -> bool,
    ) -> Option<Option<u64>> {
        let rest = self
            .order
            .iter()
            .map(|&column| candidates & column & !first);
        let order: Vec<u64> = std::iter::once(first).chain(rest).collect();
        for cell in order {
            if cell == 0 {
                continue;
            }
            let mut child = *p;
            child.play_cell(cell);
            let kept = keeps(self, &child);
            if self.budget.aborted() {
                return None;
            }
            if kept {
                return Some(Some(cell));
            }
        }
        Some(None)
    }

    /// The lower and upper bounds on `p`'s exact score (from the side to
    /// move) that the book or the table holds, if any.
    pub fn proven_bounds(&self, p: &Position) -> (Option<i32>, Option<i32>) {
        if let Some(m) = self.book_entry(p) {
            return (Some(m.score), Some(m.score));
        }
        let (lower, upper) = self.table_bounds(p);
        match self.layer_bounds(p) {
            None => (lower, upper),
            Some((lo, hi)) => (
                Some(lower.map_or(lo, |l| l.max(lo))),
                Some(upper.map_or(hi, |u| u.min(hi))),
            ),
        }
    }

    /// The lower and upper bounds on `p`'s exact score (from the side to
    /// move) that the table holds, if any: a single probe, cheap enough
    /// for every node of another search. The search stores nothing for a
    /// position it settles without a node of its own (one forced move, a
    /// loss or win at once, the last two stones): the forced moves are
    /// followed, and the bounds are those where they lead, negated when the
    /// other side moves there.
    pub fn table_bounds(&self, p: &Position) -> (Option<i32>, Option<i32>) {
        let (q, negated, exact) = forced_line(p);
        let (lower, upper) = match exact {
            Some(v) => (Some(v), Some(v)),
            None => self
                .table(q.empty_cells())
                .get(table_key(&q).0)
                .map_or((None, None), |b| (b.lower, b.upper)),
        };
        if negated {
            (upper.map(|u| -u), lower.map(|l| -l))
        } else {
            (lower, upper)
        }
    }

    /// The cells among `moves` (moves of `p` that do not end the game)
    /// that what the table and the book already prove puts below another:
    /// a move whose score is at most some bound below the root's proven
    /// lower bound or another move's, and a move proven lost while another
    /// is not. What an unfinished proof knows, so that the clock's fallback
    /// does not play a move the proof already refuted.
    pub fn dominated_moves(&self, p: &Position, moves: u64) -> u64 {
        // Bounds on the score of each move, from `p`'s side to move.
        let bounds: Vec<_> = cells(moves)
            .map(|cell| {
                let mut child = *p;
                child.play_cell(cell);
                let (lower, upper) = self.proven_bounds(&child);
                (cell, upper.map(|u| -u), lower.map(|l| -l))
            })
            .collect();
        let root = self.table_bounds(p).0;
        let floor = bounds
            .iter()
            .filter_map(|&(_, low, _)| low)
            .chain(root)
            .max();
        let hope = bounds
            .iter()
            .map(|&(_, _, high)| high.unwrap_or(i32::MAX))
            .max();
        let mut dominated = 0;
        for &(cell, _, high) in &bounds {
            let high = high.unwrap_or(i32::MAX);
            let below = floor.is_some_and(|f| high < f);
            let lost = high < 0 && hope.is_some_and(|h| h >= 0);
            if below || lost {
                dominated |= cell;
            }
        }
        dominated
    }

    /// A move (0-based column) that keeps the outcome of `p` (which must
    /// not be over), and that outcome, within the current budget: the
    /// outcome by null windows around 0 (a weak solve), then a move whose
    /// child keeps it, by one null-window test each: first the move the
    /// table says proved the outcome (its child's bound is then in the
    /// table too), then the others in centre-first order. Cheaper than
    /// [`Solver::best_move_within`], which also finds the distance.
    pub fn outcome_move_within(&mut self, p: &Position) -> Option<(u32, Outcome)> {
        self.with_helpers(p, true, |solver| solver.outcome_move_alone(p))
    }

    /// [`Solver::outcome_move_within`] on this thread alone.
    fn outcome_move_alone(&mut self, p: &Position) -> Option<(u32, Outcome)> {
        self.prepare(p);
        if let Some(column) = self.winning_column(p) {
            return Some((column, Outcome::Win));
        }
        if let Some(m) = self.book_entry(p) {
            return Some((m.column, Outcome::of(m.score)));
        }
        if let Some(LayerMove {
            outcome,
            column: Some(column),
        }) = self.layer_entry(p)
        {
            return Some((column, outcome));
        }
        let outcome = Outcome::of(self.solve_alone(p, true)?);
        let mut candidates = p.non_losing_moves();
        if candidates == 0 || outcome == Outcome::Loss {
            // Every move keeps a loss; one that does not lose at once first.
            if candidates == 0 {
                candidates = p.possible();
            }
            let cell = first_in_order(&self.order, candidates);
            return Some((p.column_of(cell), outcome));
        }
        // The child's score for the opponent must be at most -1 (our win)
        // or at most 0 (our draw): a null window just above that bound.
        let bound = if outcome == Outcome::Win { -1 } else { 0 };
        let proved_by = self.table_move(p) & candidates;
        let cell = self.first_child_keeping(p, proved_by, candidates, |solver, child| {
            solver.child_keeps(child, bound)
        })?;
        let Some(cell) = cell else {
            // Some move keeps the outcome; reaching here would mean a table
            // fault, and no proof is better than a wrong one.
            debug_assert!(false, "no move keeps the outcome of the position");
            return None;
        };
        Some((p.column_of(cell), outcome))
    }

    /// Whether `child` (after a move that does not hand the opponent a win
    /// at once) scores at most `bound` for the opponent: a null-window
    /// test just above it.
    fn child_keeps(&mut self, child: &Position, bound: i32) -> bool {
        if child.is_full() {
            0 <= bound
        } else {
            self.negamax(child, bound, bound + 1) <= bound
        }
    }

    /// How the search orders `p`'s moves now (see [`FORCING_FIRST_NODES`]
    /// and [`OPEN_LINES_EMPTY`]).
    #[inline(always)]
    fn scoring(&self, p: &Position) -> Scoring {
        if self.budget.nodes() < FORCING_FIRST_NODES {
            Scoring::ForcingFirst
        } else if p.empty_cells() * OPEN_LINES_EMPTY.1
            >= p.columns() * p.rows() * OPEN_LINES_EMPTY.0
        {
            Scoring::ThreatsAndOpenLines
        } else {
            Scoring::Threats
        }
    }

    /// The score of `p` (with `moves` its moves that do not lose at once)
    /// if it needs no search of its own, within the window of
    /// [`Solver::negamax`]: as [`settle`] says, or as the book knows. A
    /// forced move is played at once (nothing is stored for the position
    /// before it: the one after it has its own entry), unless the position
    /// is on a layer whose outcome already decides the window: a forced
    /// line would otherwise run past the layer and search what it knows.
    #[inline(always)]
    fn settled(&mut self, p: &Position, moves: u64, alpha: i32, beta: i32) -> Option<i32> {
        match settle(p, moves) {
            Settled::Score(v) => Some(v),
            Settled::Forced(cell) => {
                if let Some((lo, hi)) = self.layer_bounds(p)
                    && (lo >= beta || hi <= alpha)
                {
                    return Some(if lo >= beta { lo } else { hi });
                }
                let mut child = *p;
                child.play_cell(cell);
                Some(-self.negamax(&child, -beta, -alpha))
            }
            Settled::Open => self.book_entry(p).map(|m| m.score),
        }
    }

    /// Fail-soft negamax with alpha-beta.
    ///
    /// Contract: `p` is not over and the side to move cannot win at once
    /// (the caller checked), and `alpha < beta`. The return value `v` says:
    /// - `v <= alpha`: the true score is at most `v`;
    /// - `v >= beta`: the true score is at least `v`;
    /// - otherwise `v` is the true score.
    ///
    /// Only moves that do not hand the opponent an immediate win are
    /// searched. If the budget runs out, the return value is meaningless and
    /// [`Budget::aborted`] is set; callers must check it.
    fn negamax(&mut self, p: &Position, mut alpha: i32, mut beta: i32) -> i32 {
        debug_assert!(alpha < beta);
        // Step 1. Count the node; give up if the budget is spent.
        let start = self.budget.nodes();
        if self.budget.tick() {
            return 0;
        }
        // Step 2. Positions settled without a search of their own.
        let threats = p.opponent_winning_cells();
        let moves = crate::position::non_losing(p.possible(), threats);
        if let Some(v) = self.settled(p, moves, alpha, beta) {
            return v;
        }
        // Step 3. Bounds from the rules, a layer's outcome and the table.
        let (key, mirrored) = table_key(p);
        let empty = p.empty_cells();
        // A column as stored in the table, or as read from it.
        let flip = |c: u32| if mirrored { p.columns() - 1 - c } else { c };
        let stored = |cell: u64| flip(p.column_of(cell));
        let (lo, hi, hint) = self.node_bounds(p, key, alpha, threats);
        if lo >= hi || lo >= beta {
            return lo;
        }
        if hi <= alpha {
            return hi;
        }
        alpha = alpha.max(lo);
        beta = beta.min(hi);
        // Step 3b. A child may decide this node: one claimeven holds down,
        // or one whose stored bound does (see `child_cutoff`).
        if let Some((v, cell)) = self.child_cutoff(p, moves, beta) {
            self.table(empty)
                .put_lower(key, self.work_since(start), v, stored(cell));
            return v;
        }
        let alpha_in = alpha;
        // Step 4. Search the moves: the table's move first, then the most
        // promising. One that leaves no defence wins with the stone after
        // next; without one, the best left is a win a stone later.
        let first = hint.map_or(0, |c| moves & p.column_mask(flip(c)));
        let sorted = MoveSorter::fill(p, moves, first, &self.order, self.scoring(p));
        if sorted.winner().is_some() {
            return score::upper_bound(p);
        }
        beta = beta.min(score::upper_bound(p) - 1);
        if alpha >= beta {
            return beta;
        }
        let (mut best, mut best_cell) = (i32::MIN, 0);
        for cell in sorted {
            let mut child = *p;
            child.play_cell(cell);
            let v = -self.negamax(&child, -beta, -alpha);
            if self.budget.aborted() {
                return 0;
            }
            if v > best {
                best = v;
                best_cell = cell;
            }
            if v >= beta {
                break;
            }
            alpha = alpha.max(v);
        }
        // Step 5. A lower bound if it failed high, the exact score if it
        // beat alpha, else an upper bound.
        let (tt, work) = (self.table(empty), self.work_since(start));
        if best >= beta {
            tt.put_lower(key, work, best, stored(best_cell));
        } else if best > alpha_in {
            tt.put_exact(key, work, best, stored(best_cell));
        } else {
            tt.put_upper(key, work, best);
        }
        best
    }
}
