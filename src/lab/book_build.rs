//! Building the book with the exact solver, one ply at a time.
//!
//! The roots are every position of at most [`ROOT_PLIES`] plies. A root the
//! side to move does not lose starts that side's tree; a root it does not
//! win starts the other side's tree (a drawn root starts both). In a side's
//! tree, a position where that side is to move (a *tree turn*) is solved
//! exactly and the tree goes on through its best move only; a position where
//! the other side is to move (a *reply turn*) goes on through every legal
//! move. Positions where the side to move wins at once, and finished games,
//! end a branch without an entry: the engine plays those without help.
//!
//! Tree turns are solved in order of ply, so a book that stops early (a time
//! budget, a killed job) is complete up to some ply and a later run carries
//! on from its file. Reply turns need no search: once their children are
//! stored, their score is the best of the children's, and they are stored
//! too, so that the side that is losing also finds its longest defence.
//!
//! A tree side that plays perfectly never leaves its tree, but one that
//! errs does: a won position thrown away hands the opponent, who had no
//! tree (it was losing), a position off the book. With *deviations* up to
//! ply `D`, the side that loses at a root has its strategy tree too, down
//! to ply `D`: at its turns its best move (the longest defence, and after
//! the winner's mistake the move that keeps the new value), at the
//! winner's turns every move, mistakes included. An engine on the losing
//! side plays the book's moves, so whatever the winner plays before ply
//! `D`, the engine finds its answer in the book. It branches only at the
//! winner's turns, where covering the winner's mistakes after every reply
//! of the loser would branch at both sides' turns.
//!
//! With a shard `I/N`, one run solves only the positions of the next
//! unfinished ply whose key falls to shard `I`, so `N` jobs can share a ply;
//! merging their files and running [`finish_plies`] (which
//! `connect4 book merge` does) completes it.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::progress::Progress;
use crate::book::{Book, BookError, fold};
use crate::position::Position;
use crate::score;
use crate::search::Solver;
use crate::search::limits::Limits;
use crate::search::order::centre_first;

/// Positions of at most this many plies are roots of strategy trees.
pub const ROOT_PLIES: u32 = 2;

/// One of `count` parts of each ply's work, numbered from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This part, `1..=count`.
    pub index: u64,
    /// How many parts there are.
    pub count: u64,
}

impl Shard {
    /// Whether the position with this folded key is this shard's work.
    fn owns(&self, key: u64) -> bool {
        // Scatter the keys: neighbouring keys are similar positions.
        key.wrapping_mul(0x9e37_79b9_7f4a_7c15) % self.count == self.index - 1
    }
}

/// How to build.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// Store tree positions up to this ply.
    pub depth: u32,
    /// The solver's table size in MiB.
    pub hash_mb: usize,
    /// Threads of the solver (see [`Solver::set_threads`]).
    pub threads: usize,
    /// Stop (after saving) when this much time has passed.
    pub time: Option<Duration>,
    /// Solve only this part of the next unfinished ply.
    pub shard: Option<Shard>,
    /// Save the book at least this often.
    pub checkpoint: Duration,
    /// Give the side that loses at a root its tree down to this ply (see
    /// the module's documentation); `None` keeps the book's setting.
    pub deviations: Option<u32>,
}

/// How a build ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildEnd {
    /// Every tree position up to the depth is stored.
    Complete,
    /// The time budget ran out first; the file holds what was solved.
    OutOfTime,
    /// A shard did its part of one ply.
    ShardDone,
}

/// Whose turn it is in a strategy tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Turn {
    /// The tree's side moves: one best move is followed.
    Tree,
    /// The other side moves: every move is followed.
    Reply,
}

/// Every position of at most [`ROOT_PLIES`] plies on `book`'s board, one per
/// mirror pair, in a fixed order.
fn roots(book: &Book) -> Vec<Position> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut layer = vec![Position::new(book.rules())];
    for _ in 0..=ROOT_PLIES {
        let mut next = Vec::new();
        for p in layer {
            if seen.insert(fold(&p).0) {
                out.push(p);
                for c in p.legal_moves() {
                    let mut child = p;
                    child.play(c);
                    if !child.is_over() {
                        next.push(child);
                    }
                }
            }
        }
        layer = next;
    }
    out
}

/// Walks every strategy tree up to `max_ply` (the losing sides' trees up
/// to the book's deviation ply), calling `visit` once per position, turn
/// and last ply. The walk cannot go past a tree turn the book lacks.
fn walk(book: &Book, max_ply: u32, mut visit: impl FnMut(&Position, Turn)) {
    let mut seen = HashSet::new();
    let losing_ply = max_ply.min(book.deviations());
    for root in roots(book) {
        if root.moves_played() > max_ply {
            continue;
        }
        match book.lookup(&root) {
            None => visit(&root, Turn::Tree),
            Some(m) => {
                // The side to move's tree, then the other side's.
                for (turn, loses) in [(Turn::Tree, m.score < 0), (Turn::Reply, m.score > 0)] {
                    let last = if loses { losing_ply } else { max_ply };
                    if last > root.moves_played() || !loses {
                        step(book, &root, turn, last, &mut seen, &mut visit);
                    }
                }
            }
        }
    }
}

fn step(
    book: &Book,
    p: &Position,
    turn: Turn,
    max_ply: u32,
    seen: &mut HashSet<(u64, Turn, u32)>,
    visit: &mut impl FnMut(&Position, Turn),
) {
    if !arrive(p, turn, max_ply, seen, visit) {
        return;
    }
    match turn {
        Turn::Tree => {
            if p.winning_moves() != 0 {
                return;
            }
            if let Some(m) = book.lookup(p) {
                let mut child = *p;
                child.play(m.column);
                if !child.is_over() {
                    step(book, &child, Turn::Reply, max_ply, seen, visit);
                }
            }
        }
        Turn::Reply => {
            for c in p.legal_moves() {
                let mut child = *p;
                child.play(c);
                if !child.is_over() {
                    step(book, &child, Turn::Tree, max_ply, seen, visit);
                }
            }
        }
    }
}

/// Visits `p` at `turn` unless it lies past `max_ply` or was visited
/// before with the same `max_ply` (a position of a losing side's tree,
/// which stops early, can also be in a tree that does not); whether it did.
fn arrive(
    p: &Position,
    turn: Turn,
    max_ply: u32,
    seen: &mut HashSet<(u64, Turn, u32)>,
    visit: &mut impl FnMut(&Position, Turn),
) -> bool {
    if p.moves_played() > max_ply || !seen.insert((fold(p).0, turn, max_ply)) {
        return false;
    }
    visit(p, turn);
    true
}

/// Whether a tree turn needs an entry: it is missing and not a win at once.
fn needs_solving(book: &Book, p: &Position) -> bool {
    p.winning_moves() == 0 && !book.contains(p)
}

/// The tree turns up to `ply` that the book lacks, one per mirror pair,
/// shallowest first.
fn frontier(book: &Book, ply: u32) -> Vec<Position> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    walk(book, ply, |p, turn| {
        if turn == Turn::Tree && needs_solving(book, p) && seen.insert(fold(p).0) {
            out.push(*p);
        }
    });
    out.sort_by_key(|p| (p.moves_played(), fold(p).0));
    out
}

/// The exact score of `p` after the move `column`, from `p`'s side to move,
/// if it is known without searching.
fn score_after(book: &Book, p: &Position, column: u32) -> Option<i32> {
    if p.is_winning_move(column) {
        return Some(score::win_now(p));
    }
    let mut child = *p;
    child.play(column);
    if child.is_full() {
        return Some(0);
    }
    if child.winning_moves() != 0 {
        return Some(-score::win_now(&child));
    }
    book.lookup(&child).map(|m| -m.score)
}

/// Stores every reply turn up to `ply` whose children are all known.
fn add_replies(book: &mut Book, ply: u32) {
    let order = centre_first(book.rules().columns());
    let mut found = Vec::new();
    walk(book, ply, |p, turn| {
        if turn != Turn::Reply || book.contains(p) {
            return;
        }
        let mut best: Option<(u32, i32)> = None;
        for &c in &order {
            if !p.can_play(c) {
                continue;
            }
            let Some(s) = score_after(book, p, c) else {
                return;
            };
            if best.is_none_or(|(_, b)| s > b) {
                best = Some((c, s));
            }
        }
        if let Some((c, s)) = best {
            found.push((*p, c, s));
        }
    });
    for (p, c, s) in found {
        book.insert(&p, c, s);
    }
}

/// Marks every ply up to `depth` (at most the board's cells: no game is
/// longer) whose tree turns are all stored as complete, and stores the
/// reply turns that became known. Returns the complete ply.
pub fn finish_plies(book: &mut Book, depth: u32) -> u32 {
    let depth = depth.min(book.rules().cells());
    let mut complete = book.complete_ply();
    while complete < depth && frontier(book, complete + 1).is_empty() {
        complete += 1;
    }
    book.set_complete_ply(complete);
    add_replies(book, complete);
    complete
}

/// Builds `book` up to `options.depth` (or the end of the game), saving it
/// to `out` as it goes.
pub fn build(book: &mut Book, out: &Path, options: &BuildOptions) -> Result<BuildEnd, BookError> {
    let start = Instant::now();
    let deadline = options.time.map(|t| start + t);
    let mut solver = Solver::new(options.hash_mb).with_book(None);
    solver.set_threads(options.threads);
    let mut last_save = Instant::now();
    if let Some(deviations) = options.deviations {
        let before = book.deviations();
        book.set_deviations(deviations);
        if book.deviations() != before {
            // New tree turns may appear at any ply: count the complete ones again.
            book.set_complete_ply(0);
        }
    }
    let depth = options.depth.min(book.rules().cells());
    let mut ply = finish_plies(book, depth);
    while ply < depth {
        let target = ply + 1;
        // The entries stored so far, each an exact solve, serve as exact
        // table entries: a position off the trees early in the game (a
        // deviation) transposes into them all the time. `connect4 solve
        // 443` takes 0.12 s with the shipped book, 3.2 s without.
        solver.set_book(Some(Arc::new(book.clone())));
        let mut todo = frontier(book, target);
        if let Some(shard) = options.shard {
            todo.retain(|p| shard.owns(fold(p).0));
        }
        let mut progress = Progress::new(&format!("book ply {target}"), todo.len() as u64);
        for (i, p) in todo.iter().enumerate() {
            let limits = Limits {
                time: deadline.map(|d| d.saturating_duration_since(Instant::now())),
                ..Limits::none()
            };
            solver.set_limits(&limits, None);
            let Some((column, value)) = solver.best_move_within(p) else {
                book.save(out)?;
                progress.finish();
                return Ok(BuildEnd::OutOfTime);
            };
            book.insert(p, column, value);
            if last_save.elapsed() >= options.checkpoint {
                book.save(out)?;
                last_save = Instant::now();
            }
            progress.update(i as u64 + 1, &format!("{} entries", book.len()));
        }
        progress.finish();
        if options.shard.is_some() {
            book.save(out)?;
            return Ok(BuildEnd::ShardDone);
        }
        // Every tree turn of ply `target` is solved now, so this advances.
        ply = finish_plies(book, depth);
        book.save(out)?;
        last_save = Instant::now();
    }
    book.save(out)?;
    Ok(BuildEnd::Complete)
}

/// A tree turn of the book that a fresh solve disagrees with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Disagreement {
    /// The position, as its key (folded).
    pub key: u64,
    /// The book's score.
    pub book: i32,
    /// The solver's score.
    pub solved: i32,
}

/// Re-solves `sample` positions of the book of at least `min_ply` plies,
/// chosen at random (by `seed`) among those the walk reaches, and checks
/// both the score and that the book's move keeps it. Returns how many were
/// checked and the disagreements.
pub fn verify(
    book: &Book,
    sample: usize,
    min_ply: u32,
    seed: u64,
    hash_mb: usize,
) -> (usize, Vec<Disagreement>) {
    use rand::seq::SliceRandom;
    use rand::{SeedableRng, rngs::StdRng};
    let mut stored = Vec::new();
    let mut seen = HashSet::new();
    walk(book, book.complete_ply(), |p, _| {
        if p.moves_played() >= min_ply && book.contains(p) && seen.insert(fold(p).0) {
            stored.push(*p);
        }
    });
    let mut rng = StdRng::seed_from_u64(seed);
    stored.shuffle(&mut rng);
    stored.truncate(sample);
    // The check must not take its answers from a book.
    let mut solver = Solver::new(hash_mb).with_book(None);
    let mut wrong = Vec::new();
    for p in &stored {
        let m = book.lookup(p).expect("sampled from the book");
        let solved = solver.solve(p);
        let after = if p.is_winning_move(m.column) {
            score::win_now(p)
        } else {
            let mut child = *p;
            child.play(m.column);
            if child.is_full() {
                0
            } else {
                -solver.solve(&child)
            }
        };
        if solved != m.score || after != m.score {
            wrong.push(Disagreement {
                key: fold(p).0,
                book: m.score,
                solved: if solved != m.score { solved } else { after },
            });
        }
    }
    (stored.len(), wrong)
}

/// Counts of stored positions per ply, as the walk reaches them.
pub fn entries_per_ply(book: &Book) -> Vec<usize> {
    let mut per_ply = vec![0; book.complete_ply() as usize + 1];
    let mut seen = HashSet::new();
    walk(book, book.complete_ply(), |p, _| {
        if book.contains(p) && seen.insert(fold(p).0) {
            per_ply[p.moves_played() as usize] += 1;
        }
    });
    per_ply
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    fn small_book(depth: u32) -> Book {
        build_small(&small_options(depth))
    }

    /// Building a 5x4x4 book to `depth` on one thread, in one go.
    fn small_options(depth: u32) -> BuildOptions {
        BuildOptions {
            depth,
            hash_mb: 16,
            threads: 1,
            time: None,
            shard: None,
            checkpoint: Duration::from_secs(3600),
            deviations: None,
        }
    }

    fn build_small(options: &BuildOptions) -> Book {
        let rules = Rules::new(5, 4, 4).unwrap();
        let mut book = Book::new(rules);
        // One folder per call: tests run side by side in one process.
        static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("c4build-{}-{call}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let end = build(&mut book, &dir.join("b.c4book"), options).unwrap();
        assert_eq!(end, BuildEnd::Complete);
        std::fs::remove_dir_all(&dir).unwrap();
        book
    }

    /// A 5x4x4 book to `depth` whose losing sides' trees go to
    /// `deviations`.
    fn with_deviations(depth: u32, deviations: u32) -> BuildOptions {
        BuildOptions {
            deviations: Some(deviations),
            ..small_options(depth)
        }
    }

    /// Plays the losing side from `p` with the book's moves and the other
    /// side with every move, to `last` plies, and counts the losing side's
    /// turns: those the book holds with `judge`'s score, and the others.
    fn losing_side_turns(
        book: &Book,
        p: &Position,
        loser_to_move: bool,
        last: u32,
        judge: &mut Solver,
    ) -> (usize, usize) {
        if p.moves_played() > last || p.is_over() || p.winning_moves() != 0 {
            return (0, 0);
        }
        let (mut found, mut missed) = (0, 0);
        let columns = if loser_to_move {
            match book.lookup(p) {
                Some(m) if m.score == judge.solve(p) => {
                    found += 1;
                    vec![m.column]
                }
                _ => return (0, 1),
            }
        } else {
            p.legal_moves()
        };
        for c in columns {
            let mut child = *p;
            child.play(c);
            let (f, m) = losing_side_turns(book, &child, !loser_to_move, last, judge);
            (found, missed) = (found + f, missed + m);
        }
        (found, missed)
    }

    #[test]
    fn deviations_give_the_losing_side_its_moves_whatever_the_winner_plays() {
        let book = build_small(&with_deviations(8, 5));
        assert_eq!(book.deviations(), 5);
        assert_eq!(book.complete_ply(), 8);
        let plain = small_book(8);
        let mut judge = Solver::new(16).with_book(None);
        let (mut found, mut missed, mut missed_plain) = (0, 0, 0);
        for root in roots(&book) {
            // The empty 5x4x4 board is a draw; some of its roots are lost.
            let score = judge.solve(&root);
            if score == 0 {
                continue;
            }
            let (f, m) = losing_side_turns(&book, &root, score < 0, 5, &mut judge);
            (found, missed) = (found + f, missed + m);
            missed_plain += losing_side_turns(&plain, &root, score < 0, 5, &mut judge).1;
        }
        assert!(found > 10 && missed == 0, "{found} found, {missed} missed");
        assert!(
            missed_plain > 0,
            "a book without deviations holds the losing sides' trees"
        );
        let (verified, wrong) = verify(&book, usize::MAX, 0, 1, 16);
        assert_eq!(verified, book.len());
        assert!(wrong.is_empty(), "{wrong:?}");
    }

    #[test]
    fn the_losing_sides_trees_stop_at_the_deviation_ply() {
        let rules = Rules::new(5, 4, 4).unwrap();
        let book = build_small(&with_deviations(8, 5));
        let plain = small_book(8);
        let keys = |b: &Book| b.keys().collect::<HashSet<u64>>();
        let (keys, plain_keys) = (keys(&book), keys(&plain));
        // The trees of perfect play are whole, however positions transpose
        // into the losing sides' trees; past ply 5 there is nothing else.
        assert!(plain_keys.is_subset(&keys));
        for &key in &keys {
            let ply = crate::book::plies_of(key, rules);
            assert!(
                ply <= 5 || plain_keys.contains(&key),
                "key {key} at ply {ply}"
            );
        }
        assert!(book.len() > plain.len());
    }

    #[test]
    fn a_depth_past_the_end_of_the_game_stops_there() {
        // 4x4x4 is solved to its end in a moment; a depth of 300 (or the
        // merge's unlimited one) must neither run on nor claim ply 300.
        let rules = Rules::new(4, 4, 4).unwrap();
        let mut book = Book::new(rules);
        let dir = std::env::temp_dir().join(format!("c4deep-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let options = with_deviations(300, 300);
        let end = build(&mut book, &dir.join("b.c4book"), &options).unwrap();
        assert_eq!(end, BuildEnd::Complete);
        assert_eq!(book.complete_ply(), 16);
        assert_eq!(book.deviations(), 16);
        assert_eq!(finish_plies(&mut book, u32::MAX), 16);
        let read = Book::load(&dir.join("b.c4book")).unwrap();
        assert_eq!((read.complete_ply(), read.deviations()), (16, 16));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn two_threads_build_the_same_book() {
        let two = BuildOptions {
            threads: 2,
            ..with_deviations(7, 4)
        };
        assert_eq!(build_small(&two), build_small(&with_deviations(7, 4)));
    }

    #[test]
    fn every_entry_agrees_with_the_solver() {
        let book = small_book(8);
        assert_eq!(book.complete_ply(), 8);
        let (checked, wrong) = verify(&book, usize::MAX, 0, 1, 16);
        assert_eq!(checked, book.len());
        assert!(wrong.is_empty(), "{wrong:?}");
        assert!(book.len() > 50, "{} entries", book.len());
    }

    #[test]
    fn a_tree_side_always_finds_its_move() {
        // Play the book's side against every reply: the book answers each
        // tree turn up to its depth.
        let book = small_book(6);
        let mut missing = 0;
        walk(&book, 6, |p, turn| {
            if turn == Turn::Tree && needs_solving(&book, p) {
                missing += 1;
            }
        });
        assert_eq!(missing, 0);
    }

    #[test]
    fn shards_merged_equal_one_build() {
        let whole = small_book(5);
        let rules = whole.rules();
        let dir = std::env::temp_dir().join(format!("c4shard-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut merged = Book::new(rules);
        let mut options = small_options(5);
        while merged.complete_ply() < 5 {
            let base = merged.clone();
            for index in 1..=3 {
                let mut part = base.clone();
                options.shard = Some(Shard { index, count: 3 });
                let end = build(&mut part, &dir.join("part.c4book"), &options).unwrap();
                assert_eq!(end, BuildEnd::ShardDone);
                merged.merge(&part).unwrap();
            }
            merged.set_complete_ply(base.complete_ply());
            finish_plies(&mut merged, 5);
            assert!(merged.complete_ply() > base.complete_ply());
        }
        assert_eq!(merged, whole);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
