//! The exact solver: null-window negamax over the score of the position.

use crate::position::{Position, cells};
use crate::rules::Rules;
use std::time::{Duration, Instant};

use crate::score;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::book::{Book, BookMove, LayerMove};
use crate::score::Outcome;
use crate::search::bounds_table::TranspositionTable;
use crate::search::limits::{Budget, Limits};
use crate::search::order::{MoveSorter, Scoring, centre_first, first_in_order};

/// Up to this ply, a position and its mirror image share a table entry.
const SYMMETRY_PLIES: u32 = 14;
/// Enhanced transposition cutoffs (a child's stored bound deciding its
/// parent before any move is searched) in nodes with at least this many
/// empty cells. Measured on the first 100 of Test_L1_R2 (nodes, time,
/// one thread, one run after the other): none 113.7 M, 6.6 s; 18:
/// 101.9 M, 6.1 s; 16: 98.4 M, 6.0 s; 8: 87.0 M, 7.0 s (the lookups near
/// the leaves cost more than they save).
const ETC_EMPTY: u32 = 16;
/// ... and only once the search has visited this many nodes. Their table
/// lookups stall on memory: on an easy position they cost more than they
/// save (Test_L1_R1, 1,000 positions of a few thousand nodes, whole
/// process, no book: 0.27-0.29 s with them from the first node, 0.19 s
/// without any), on a hard one they pay (the first 3 of Test_L1_R3: 4.1 s
/// with, 4.4 s without; the empty board with two threads: 32 s with, 42 s
/// without). A search that passes this count is a hard one. Measured
/// again (median of interleaved runs, one thread, same machine): after
/// 20,000 nodes Test_L1_R1 took 216 ms, after 50,000 200 ms, after 200,000
/// 191 ms (3.07, 3.14 and 3.18 M nodes); Test_L1_R2's first 100 7.27,
/// 7.20, 6.98 s; Test_L1_R3's first 3 4.32, 4.40, 4.09 s.
const ETC_AFTER_NODES: u64 = 200_000;
/// For its first this many nodes, a search tries first, among moves that
/// create as many threats, those that leave the opponent a threat to
/// answer at once ([`Scoring::ForcingFirst`]): forcing lines settle easy
/// positions fast, and in a long search they cost more than they save.
/// Measured (nodes, one thread, no book; then search time, median of 5
/// or 3 interleaved runs): after 3,000 nodes Test_L1_R1 2.29 M nodes
/// against 3.19 M never (0.157 s against 0.213 s), Test_L2_R1 0.37 M
/// against 0.42 M; Test_L2_R2 38.6 M against 38.0 M (2.30 s against 2.25
/// s), Test_L1_R2's first 100 109.8 M against 109.3 M, Test_L1_R3's first
/// 3 75.0 M both; through 10,000 nodes: 2.16 M, 0.38 M, 39.5 M (2.33 s),
/// 110.7 M; through 200,000: 1.99 M, 0.38 M, 41.0 M, 113.4 M.
const FORCING_FIRST_NODES: u64 = 3_000;
/// Helper threads start only once a search has visited this many nodes
/// alone: starting them costs more than an easy position takes. The 1,000
/// positions of Test_L1_R1, whole process, no book, two threads: 0.28 s
/// with helpers at once, 0.24 s after 20,000 nodes, 0.20-0.22 s after
/// 400,000, as on one thread (0.20-0.24 s); Test_L2_R2: 2.45 s, 2.03-2.18
/// s, one thread 1.98-2.06 s (three interleaved runs each). Since the
/// first helper probes ahead of the main thread (see
/// [`Solver::follow_probes`]) it pays sooner (search time, two threads,
/// interleaved runs, after 400,000 / 100,000 / 50,000 nodes): the first
/// 100 of Test_L1_R2 5.08 / 4.83-4.88 / 4.80-4.86 s, Test_L2_R2 2.21-2.25
/// / 2.18-2.23 / 2.15-2.18 s, Test_L1_R1 0.156-0.186 / 0.152-0.161 /
/// 0.154-0.155 s, the first 3 of Test_L1_R3 3.40 / 3.36 / 3.37-3.39 s.
const HELPERS_AFTER_NODES: u64 = 100_000;
/// Positions with fewer empty cells than this are deep: each thread keeps
/// them in a small table of its own ([`DEEP_TABLE_MB`]), the others in the
/// table the threads share (of the size asked for). Deep positions are
/// nearly all the nodes, cheap to prove again, and a small table stays in
/// the processor's caches where a large one makes every probe wait for
/// memory; near the root, a larger table keeps the proofs of big subtrees.
/// Measured on this project's 2-core machine (one thread, no book, whole
/// process, median of 3 interleaved runs, against one 16 MiB table): a
/// 4 MiB table below 24 empty cells, Test_L1_R1 0.85x (below 28: 0.82x),
/// Test_L2_R2 0.79x (0.78x), Test_L1_R2's first 30 0.73x (0.73x),
/// Test_L1_R3's first 3 0.74x (0.75x), the empty board 51.9 s against
/// 66.0 s (one 4 MiB table for all: 62.7 s; a 2 MiB or 8 MiB deep table
/// below 28: Test_L1_R3 0.80x and 0.83x). Two threads writing one table
/// also slow each other (a slot the other thread wrote must come from its
/// core): with one shared 16 MiB table, the main thread's node rate was
/// 20% below one thread's.
pub const DEEP_BELOW_EMPTY: u32 = 24;
/// The size in MiB of the table each searching thread keeps of its own for
/// the positions deep in the game (fewer than [`DEEP_BELOW_EMPTY`] empty
/// cells, on every board): small enough to stay in the processor's caches.
pub const DEEP_TABLE_MB: usize = 4;
/// How long a helper that follows the probes of another thread waits
/// before it looks for the next one.
const PROBE_WAIT: Duration = Duration::from_micros(100);

/// Publishes the null window `(med, med + 1)` as the one probed now: a
/// count of the windows published (high half) and `med` (low half).
fn publish_window(probes: &AtomicU64, med: i32) {
    let count = (probes.load(Ordering::Relaxed) >> 32) + 1;
    probes.store(count << 32 | u64::from(med as u32), Ordering::Relaxed);
}

/// The `med` of a window published by [`publish_window`].
fn probe_window(word: u64) -> i32 {
    word as u32 as i32
}

/// The null window `(med, med + 1)` to probe next on a score known to lie
/// in `[min, max]` (`min < max`): halfway, but towards zero, where most
/// positions are decided.
fn next_window(min: i32, max: i32) -> i32 {
    let med = min + (max - min) / 2;
    if med <= 0 && min / 2 < med {
        min / 2
    } else if med >= 0 && max / 2 > med {
        max / 2
    } else {
        med
    }
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

/// The most children a node has (the widest board).
const MAX_CHILDREN: usize = crate::rules::MAX_COLUMNS as usize;

/// Whether the system says no processor is idle now.
fn no_idle_processor() -> bool {
    super::priority::idle_processors() == Some(0)
}

/// The table keys of a node's children, with their cells.
struct ChildKeys {
    keys: [(u64, u64); MAX_CHILDREN],
    len: usize,
}

/// Default table size in MiB. Measured on this project's machine (2 cores),
/// whole process, no book: 16 MiB solved every public set faster than
/// 64 MiB (Test_L2_R2 2.64 s against 3.47 s, Test_L1_R2's first 100 7.21 s
/// against 9.07 s, Test_L1_R3's first 5 8.97 s against 11.48 s, the empty
/// board 85 s against 93 s), and the move at 100 ms kept the value as
/// often (`examples/value_keeping`); larger tables were slower still. A
/// smaller table stays in the caches: the lookups, not the nodes, cost.
pub const DEFAULT_HASH_MB: usize = 16;
/// The smallest table, in MiB (smaller sizes round up to it): enough for
/// proofs of a few thousand nodes, such as adjudication.
pub const MIN_HASH_MB: usize = 16;

/// Bits of the table keys of a board's positions.
fn key_bits(rules: Rules) -> u32 {
    rules.columns() * rules.column_height()
}

/// A thread's own table of deep positions for a board (see
/// [`DEEP_BELOW_EMPTY`]), or `None` if the memory cannot be had.
fn deep_table(rules: Rules) -> Option<Arc<TranspositionTable>> {
    TranspositionTable::try_with_mebibytes(DEEP_TABLE_MB, key_bits(rules)).map(Arc::new)
}

/// The key a position is stored under, and whether it is its mirror image's:
/// early in the game a position and its mirror image share one entry.
#[inline]
fn table_key(p: &Position) -> (u64, bool) {
    let key = p.key();
    if p.moves_played() <= SYMMETRY_PLIES {
        let mirror = p.mirror_key();
        if mirror < key {
            return (mirror, true);
        }
    }
    (key, false)
}

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

    /// Runs `search` on this solver while `threads - 1` helpers work on `p`
    /// with the same table (for the positions near the root: see
    /// [`DEEP_BELOW_EMPTY`]); the helpers stop when `search` returns.
    ///
    /// The first helper follows this thread: for an exact score it first
    /// proves the outcome (null windows around 0, the most expensive
    /// probes of a position early in the game) while this thread narrows
    /// the score from the bounds towards zero, so that this thread's own
    /// outcome probes find their answers in the table; then it probes
    /// ahead of this thread the windows this thread will probe next, and
    /// when none is left (at once for an outcome alone) it tries each null
    /// window this thread probes on the root's children from the other end
    /// (see [`Solver::follow_probes`]). The others prove the root's children
    /// (see [`Solver::prove_children`]). Measured on this project's 2-core
    /// machine, no book, two threads against one (interleaved runs, whole
    /// process): first 3 of Test_L1_R3 0.84x (8 runs), first 100 of
    /// Test_L1_R2 0.88x (5 runs); following the probes without proving the
    /// outcome first 0.86x and 0.82x, but the empty board then took 59 s
    /// (794 M nodes on this thread) against 32.5 s (535 M); proving the
    /// outcome and then the children exactly 0.93x and 0.94x. Helpers
    /// that only proved the children had been slower than one thread.
    /// (Those figures are from before each thread kept its deep positions
    /// in a 4 MiB table: since, `scripts/bench-threads.sh 3` gives 0.77x
    /// on Test_L1_R3 and 0.83x on Test_L1_R2, 0.98x-1.00x on the others,
    /// and the empty board takes 28.7 s against 49.1 s.)
    /// Helpers start only after [`HELPERS_AFTER_NODES`] nodes alone, and
    /// only on processors the system says are idle then (else this thread
    /// goes on alone, and asks again every so many nodes); a helper
    /// sleeps a while whenever it gets less than half a processor. With a
    /// busy loop holding one of the two cores, no helper started on the
    /// first 100 of Test_L1_R2: two threads searched one thread's
    /// 109,288,757 nodes, in 1.01 times its time (1.04-1.08 times before
    /// helpers asked for an idle processor).
    fn with_helpers<T>(
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
            let idle = super::priority::idle_processors().unwrap_or(wanted);
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
                    super::priority::give_way();
                    // ... and sleeps a while when it gets next to nothing:
                    // what little it gets, it takes from this thread.
                    helper.budget.pause_when_starved();
                    if index == 1 {
                        if !weak && helper.solve_alone(&p, true).is_none() {
                            return;
                        }
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
    /// For an `exact` score of a position whose bounds the threads share
    /// (at least [`DEEP_BELOW_EMPTY`] empty cells), it probes the window
    /// that thread will probe next (see [`window_beside`], from the bounds
    /// the table holds), one after another: each answer lands in the
    /// shared table, where that thread's next probe of the root finds it.
    /// Measured (`solve --no-book --threads 2 --stats`, first 100 of
    /// Test_L1_R2, three interleaved runs): 5.14-5.21 s of search against
    /// 5.29-5.37 s when it only split the windows as below; the empty board
    /// 39.5 s against 40.3 s; the first 3 of Test_L1_R3 3.40-3.46 s against
    /// 3.37-3.42 s.
    ///
    /// When no such window is left, or for an outcome alone, it tries each
    /// published window on the root's children from the far end of
    /// centre-first order until the window changes or a child proves it
    /// (see [`Solver::probe_children`]), so that the other thread, coming
    /// from the near end, finds the rest proven in the table. Ends when
    /// `stop` is set.
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
            let ahead = if shared && word != 0 {
                self.window_ahead(p, probe_window(word))
            } else {
                None
            };
            self.budget = budget.clone();
            self.budget.stop_when_changed(Arc::clone(probes), word);
            if let Some(med) = ahead {
                self.negamax(p, med, med + 1);
            } else if word == seen {
                std::thread::park_timeout(PROBE_WAIT);
            } else {
                seen = word;
                self.probe_children(p, probe_window(word));
            }
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

    /// Sets the budget for the next searches (and resets the node count).
    pub fn set_budget(&mut self, budget: Budget) {
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
    /// towards zero first, where most positions are decided.
    fn narrow(&mut self, p: &Position, mut min: i32, mut max: i32) -> Option<i32> {
        while min < max {
            let med = next_window(min, max);
            if let Some(probes) = &self.probes {
                publish_window(probes, med);
            }
            let r = self.negamax(p, med, med + 1);
            if self.budget.aborted() {
                return None;
            }
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
    /// for every node of another search.
    pub fn table_bounds(&self, p: &Position) -> (Option<i32>, Option<i32>) {
        self.table(p.empty_cells())
            .get(table_key(p).0)
            .map_or((None, None), |b| (b.lower, b.upper))
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

    /// The cell of the move the table holds for `p` (the one that proved
    /// its lower bound, or its best), or 0 if none: after a proof of the
    /// root, usually the move that keeps its value, found without
    /// searching the moves before it again.
    fn table_move(&self, p: &Position) -> u64 {
        let (key, mirrored) = table_key(p);
        let table = self.table(p.empty_cells());
        let Some(column) = table.get(key).and_then(|b| b.best) else {
            return 0;
        };
        let column = if mirrored {
            p.columns() - 1 - column
        } else {
            column
        };
        if column < p.columns() {
            p.possible() & p.column_mask(column)
        } else {
            0
        }
    }

    /// The table keys of the children after `moves` (cells), each with its
    /// cell; their table slots are asked to be loaded while this node works.
    /// Asked for once a node's own bounds did not decide it (measured:
    /// whole process, no book, one thread, 15 interleaved runs: Test_L1_R1
    /// 186 ms when every node asked, 177 ms; Test_L2_R2 1.99 s, 1.80 s;
    /// same nodes).
    #[inline]
    fn children_keys(&self, p: &Position, moves: u64) -> ChildKeys {
        let tt = self.table(p.empty_cells() - 1);
        let mut out = ChildKeys {
            keys: [(0, 0); MAX_CHILDREN],
            len: 0,
        };
        for cell in cells(moves) {
            let mut child = *p;
            child.play_cell(cell);
            let key = table_key(&child).0;
            tt.prefetch(key);
            out.keys[out.len] = (key, cell);
            out.len += 1;
        }
        out
    }

    /// A child whose stored upper bound already proves a score of at least
    /// `beta` for its parent (an enhanced transposition cutoff): that score
    /// and the child's cell.
    #[inline]
    fn child_cutoff(&self, p: &Position, children: &ChildKeys, beta: i32) -> Option<(i32, u64)> {
        let tt = self.table(p.empty_cells() - 1);
        children.keys[..children.len]
            .iter()
            .find_map(|&(key, cell)| {
                let upper = tt.get(key)?.upper?;
                (-upper >= beta).then_some((-upper, cell))
            })
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

    /// The table of positions with `empty` empty cells (see `deep_tt`).
    #[inline(always)]
    fn table(&self, empty: u32) -> &TranspositionTable {
        if empty < DEEP_BELOW_EMPTY {
            &self.deep_tt
        } else {
            &self.tt
        }
    }

    /// The bounds of `p`'s score known before searching it: from the
    /// rules (nobody wins at once), a layer's outcome and the table entry
    /// at `key`, with the entry's best column as stored (in the frame of
    /// the key's position).
    #[inline(always)]
    fn node_bounds(&self, p: &Position, key: u64) -> (i32, i32, Option<u32>) {
        let mut lo = score::lower_bound(p);
        let mut hi = score::upper_bound(p);
        if let Some((l, h)) = self.layer_bounds(p) {
            lo = lo.max(l);
            hi = hi.min(h);
        }
        let mut hint = None;
        if let Some(b) = self.table(p.empty_cells()).get(key) {
            if let Some(l) = b.lower {
                lo = lo.max(l);
            }
            if let Some(u) = b.upper {
                hi = hi.min(u);
            }
            hint = b.best;
        }
        (lo, hi, hint)
    }

    /// How the search orders a node's moves now (see
    /// [`FORCING_FIRST_NODES`]).
    #[inline(always)]
    fn scoring(&self) -> Scoring {
        if self.budget.nodes() < FORCING_FIRST_NODES {
            Scoring::ForcingFirst
        } else {
            Scoring::Threats
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
        if self.budget.tick() {
            return 0;
        }
        // Step 2. Forced outcomes: every move loses, or the board fills up.
        let moves = p.non_losing_moves();
        if moves == 0 {
            return score::loss_next(p);
        }
        if p.moves_played() + 2 >= p.columns() * p.rows() {
            return 0;
        }
        // Step 2b. The book's exact score of an early position.
        if let Some(m) = self.book_entry(p) {
            return m.score;
        }
        // Step 3. Bounds from the rules, a layer's outcome and the table.
        let (key, mirrored) = table_key(p);
        let empty = p.empty_cells();
        // A column as stored in the table, or as read from it.
        let flip = |c: u32| if mirrored { p.columns() - 1 - c } else { c };
        let stored = |cell: u64| flip(p.column_of(cell));
        let (lo, hi, hint) = self.node_bounds(p, key);
        let hint = hint.map(flip);
        if lo >= hi || lo >= beta {
            return lo;
        }
        if hi <= alpha {
            return hi;
        }
        alpha = alpha.max(lo);
        beta = beta.min(hi);
        let children = self.children_keys(p, moves);
        // Step 3b. A child's stored bound may decide this node (keys asked
        // for only now: a node decided above does not pay for them).
        if empty >= ETC_EMPTY
            && self.budget.nodes() >= ETC_AFTER_NODES
            && let Some((v, cell)) = self.child_cutoff(p, &children, beta)
        {
            self.table(empty).put_lower(key, empty, v, stored(cell));
            return v;
        }
        let alpha_in = alpha;
        // Step 4. Search the moves: the table's move first, then the rest,
        // most promising first.
        let mut best = i32::MIN;
        let mut best_cell = 0;
        let first = hint.map_or(0, |c| moves & p.column_mask(c));
        let rest = MoveSorter::fill(p, moves & !first, &self.order, self.scoring());
        for cell in (first != 0).then_some(first).into_iter().chain(rest) {
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
                // Step 5a. Fail high: a lower bound.
                self.table(empty).put_lower(key, empty, v, stored(cell));
                return v;
            }
            if v > alpha {
                alpha = v;
            }
        }
        // Step 5b. An upper bound, or the exact score if it beat alpha.
        if best > alpha_in {
            self.table(empty)
                .put_exact(key, empty, best, stored(best_cell));
        } else {
            self.table(empty).put_upper(key, empty, best);
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        for med in [-9, 0, 4, -1] {
            publish_window(&probes, med);
            let word = probes.load(Ordering::Relaxed);
            assert_eq!(probe_window(word), med);
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
