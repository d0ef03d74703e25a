//! Building a layer (see [`crate::book::layer`]) with the solver, and checking
//! one.
//!
//! The builder decodes the layer's slots one at a time, keeps the positions
//! a game reaches (one per mirror pair; see [`game_positions`]), and solves
//! the ones the layer does not know yet in order of slot, one solver for
//! all; its memory stays the same whatever the ply (docs/book.md has what
//! listing every position first cost). The order does not matter to the
//! speed: on the standard board at ply 11 the same 800 positions took 72
//! to 75 ms each in order of slot, of key or at random, four processes on
//! two cores; some runs of slots are simply easier than others. A position
//! where the side to move wins at once is left unknown: the engine plays
//! those without help. Each position gets its outcome and a move that keeps
//! it, by [`Solver::outcome_move_within`], which proves the outcome (null
//! windows around 0) but not its distance.
//!
//! The file is saved as work goes and a later run carries on from it, and a
//! shard `I/N` takes the `I`-th of `N` equal runs of slots, so that a job
//! array can share a layer; `connect4 book merge` puts the shards together.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::book_build::{BuildEnd, Disagreement, Shard};
use super::progress::Progress;
use crate::book::{Book, BookError, Layer};
use crate::position::Position;
use crate::score::Outcome;
use crate::search::Solver;
use crate::search::limits::Limits;

/// How to build a layer.
#[derive(Clone, Debug)]
pub struct LayerOptions {
    /// The ply of the layer.
    pub ply: u32,
    /// The solver's table size in MiB.
    pub hash_mb: usize,
    /// Threads of the solver (see [`Solver::set_threads`]).
    pub threads: usize,
    /// Stop (after saving) when this much time has passed.
    pub time: Option<Duration>,
    /// Solve only this run of slots.
    pub shard: Option<Shard>,
    /// Save the book at least this often.
    pub checkpoint: Duration,
}

/// The positions of `layer`'s slots `from..to` that a game reaches before
/// it ends, each with its slot, in the slot's frame: neither side has a
/// line, the stones can be played in turn (`playable_in_turn`), and the
/// slot is the position's own (of a mirror pair with a symmetric shape,
/// the one of the smaller key has the slot). One slot at a time, so the
/// memory stays the same whatever the ply.
pub fn game_positions(
    layer: &Layer,
    from: u64,
    to: u64,
) -> impl Iterator<Item = (u64, Position)> + '_ {
    (from..to.min(layer.slots())).filter_map(move |slot| {
        let p = layer.position_at(slot)?;
        let reached = !p.has_line(p.current_stones())
            && !p.has_line(p.opponent_stones())
            && layer.slot_of(&p) == Some((slot, false))
            && playable_in_turn(&p);
        reached.then_some((slot, p))
    })
}

/// Whether `p`'s stones can be played one at a time, each on top of its
/// column, the first player first and the sides in turn: a search over
/// how many stones of each column are down, the side to play given by
/// their number, each state tried once. A stone played after its latest
/// turn (the last of its side's turns that leaves room for the stones
/// above it) ends a branch, and the stones due soonest are tried first,
/// so a position a game reaches is usually found without going back.
fn playable_in_turn(p: &Position) -> bool {
    let ply = p.moves_played();
    let first = if ply.is_multiple_of(2) {
        p.current_stones()
    } else {
        p.opponent_stones()
    };
    let columns = p.columns() as usize;
    let mut stacks = [[(false, 0u32); 64]; crate::rules::MAX_COLUMNS as usize];
    let mut heights = [0u32; crate::rules::MAX_COLUMNS as usize];
    for c in 0..columns {
        let height = p.column_height(c as u32);
        heights[c] = height;
        // Turn t is the first player's when t is even.
        let mut above = ply;
        for r in (0..height).rev() {
            let firsts = first & p.cell_bit(c as u32, r) != 0;
            let mut latest = above.saturating_sub(1);
            if latest.is_multiple_of(2) != firsts {
                latest = latest.saturating_sub(1);
            }
            stacks[c][r as usize] = (firsts, latest);
            above = latest;
        }
    }
    let search = InTurn {
        stacks: &stacks[..columns],
        heights: &heights[..columns],
        ply,
    };
    search.from(
        &mut [0; crate::rules::MAX_COLUMNS as usize],
        0,
        &mut Default::default(),
    )
}

/// The search of [`playable_in_turn`]: each column's stones from the
/// bottom (whether the first player's, and the stone's latest turn).
struct InTurn<'a> {
    stacks: &'a [[(bool, u32); 64]],
    heights: &'a [u32],
    ply: u32,
}

impl InTurn<'_> {
    /// Whether the stones above `down` (stones down in each column, `turn`
    /// of them in all) can be played in turn; `failed` holds the states
    /// already found not to.
    fn from(
        &self,
        down: &mut [u32],
        turn: u32,
        failed: &mut std::collections::HashSet<u64>,
    ) -> bool {
        if turn == self.ply {
            return true;
        }
        let state = down.iter().fold(0u64, |s, &d| s << 4 | u64::from(d));
        if failed.contains(&state) {
            return false;
        }
        let firsts = turn.is_multiple_of(2);
        // The side's stones on top of the columns, by latest turn.
        let mut due = [(0u32, 0usize); crate::rules::MAX_COLUMNS as usize];
        let mut count = 0;
        for (c, (stack, &height)) in self.stacks.iter().zip(self.heights).enumerate() {
            if down[c] < height {
                let (mine, latest) = stack[down[c] as usize];
                if mine == firsts && latest >= turn {
                    due[count] = (latest, c);
                    count += 1;
                }
            }
        }
        due[..count].sort_unstable();
        for &(_, c) in &due[..count] {
            down[c] += 1;
            let done = self.from(down, turn + 1, failed);
            down[c] -= 1;
            if done {
                return true;
            }
        }
        failed.insert(state);
        false
    }
}

/// The slots `[from, to)` that `shard` (or the whole layer) covers.
fn slot_range(slots: u64, shard: Option<Shard>) -> (u64, u64) {
    match shard {
        None => (0, slots),
        Some(s) => {
            let at = |i: u64| (u128::from(slots) * u128::from(i) / u128::from(s.count)) as u64;
            (at(s.index - 1), at(s.index))
        }
    }
}

/// Fills the layer of `options.ply` in `book` (made empty if the book has
/// none), saving the book to `out` as it goes.
pub fn build_layer(
    book: &mut Book,
    out: &Path,
    options: &LayerOptions,
) -> Result<BuildEnd, BookError> {
    let start = Instant::now();
    let deadline = options.time.map(|t| start + t);
    let ply = options.ply;
    book.layer_mut(ply)?;
    // The slots' numbering, apart from the book's values that the loop
    // fills in.
    let numbering = Layer::new(book.rules(), ply)?;
    let (from, to) = slot_range(numbering.slots(), options.shard);
    // The book's entries serve as exact table entries.
    let mut solver = Solver::new(options.hash_mb).with_book(Some(Arc::new(book.clone())));
    solver.set_threads(options.threads);
    let mut last_save = Instant::now();
    let mut progress = Progress::new(&format!("layer ply {ply} slots"), to - from);
    for (slot, p) in game_positions(&numbering, from, to) {
        let known = book.layer(ply).is_some_and(|layer| layer.contains(&p));
        if known || p.winning_moves() != 0 {
            continue;
        }
        let limits = Limits {
            time: deadline.map(|d| d.saturating_duration_since(Instant::now())),
            ..Limits::none()
        };
        solver.set_limits(&limits, None);
        let Some((column, outcome)) = solver.outcome_move_within(&p) else {
            book.save(out)?;
            progress.finish();
            return Ok(BuildEnd::OutOfTime);
        };
        let column = (outcome != Outcome::Loss).then_some(column);
        book.layer_mut(ply)?.insert(&p, outcome, column);
        if last_save.elapsed() >= options.checkpoint {
            book.save(out)?;
            last_save = Instant::now();
        }
        progress.update(slot + 1 - from, "");
    }
    progress.finish();
    book.save(out)?;
    Ok(if options.shard.is_some() {
        BuildEnd::ShardDone
    } else {
        BuildEnd::Complete
    })
}

/// How much of a layer is done: positions a game reaches (not won at once)
/// and how many of them the layer knows. Every slot is decoded, the layer
/// cut into one shard's run of slots a processor (a minute and more for a
/// layer of a hundred million slots).
pub fn coverage(book: &Book, ply: u32) -> (usize, usize) {
    let Some(layer) = book.layer(ply) else {
        return (0, 0);
    };
    let count = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    std::thread::scope(|scope| {
        let counts: Vec<_> = (1..=count)
            .map(|index| {
                let (from, to) = slot_range(layer.slots(), Some(Shard { index, count }));
                scope.spawn(move || coverage_of_run(layer, from, to))
            })
            .collect();
        counts
            .into_iter()
            .map(|c| c.join().expect("a coverage count never panics"))
            .fold((0, 0), |(n, k), (dn, dk)| (n + dn, k + dk))
    })
}

/// [`coverage`] of the slots `from..to`.
fn coverage_of_run(layer: &Layer, from: u64, to: u64) -> (usize, usize) {
    let (mut needed, mut known) = (0, 0);
    for (_, p) in game_positions(layer, from, to) {
        if p.winning_moves() == 0 {
            needed += 1;
            known += usize::from(layer.contains(&p));
        }
    }
    (needed, known)
}

/// Re-solves `sample` positions that the layer of `ply` knows, chosen at
/// random (by `seed`), with a solver that uses no book: the outcome must
/// match and the stored move must keep it. Returns how many were checked
/// and the disagreements (scores as outcomes: 1, 0, -1).
pub fn verify_layer(
    book: &Book,
    ply: u32,
    sample: usize,
    seed: u64,
    hash_mb: usize,
) -> (usize, Vec<Disagreement>) {
    use rand::seq::IteratorRandom;
    use rand::{SeedableRng, rngs::StdRng};
    let Some(layer) = book.layer(ply) else {
        return (0, Vec::new());
    };
    let mut rng = StdRng::seed_from_u64(seed);
    // Distinct positions: `sample` draws without replacement, one pass
    // over the slots.
    let chosen: Vec<Position> = game_positions(layer, 0, layer.slots())
        .map(|(_, p)| p)
        .filter(|p| layer.contains(p))
        .sample(&mut rng, sample);
    let mut solver = Solver::new(hash_mb).with_book(None);
    let mut wrong = Vec::new();
    let value = |o: Outcome| match o {
        Outcome::Win => 1,
        Outcome::Draw => 0,
        Outcome::Loss => -1,
    };
    for p in &chosen {
        let m = layer.lookup(p).expect("sampled from the layer");
        let solved = solver.solve_weak(p);
        let after = match m.column {
            None => solved,
            Some(c) if p.is_winning_move(c) => 1,
            Some(c) => {
                let mut child = *p;
                child.play(c);
                if child.is_full() {
                    0
                } else {
                    -solver.solve_weak(&child)
                }
            }
        };
        let stored = value(m.outcome);
        if solved != stored || after != stored {
            wrong.push(Disagreement {
                key: p.key(),
                book: stored,
                solved: if solved != stored { solved } else { after },
            });
        }
    }
    (chosen.len(), wrong)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    /// Every position of `ply` plies on `rules`' board that a game reaches
    /// before it ends, one per mirror pair (the one of the smaller key), in
    /// order of key.
    fn positions(rules: Rules, ply: u32) -> Vec<Position> {
        let mut layer = vec![Position::new(rules)];
        for _ in 0..ply {
            let mut next = Vec::with_capacity(layer.len() * rules.columns() as usize);
            for p in &layer {
                for c in 0..p.columns() {
                    if p.can_play(c) && !p.is_winning_move(c) {
                        let mut child = *p;
                        child.play(c);
                        next.push(if child.mirror_key() < child.key() {
                            child.mirrored()
                        } else {
                            child
                        });
                    }
                }
            }
            next.sort_unstable_by_key(Position::key);
            next.dedup_by_key(|p| p.key());
            layer = next;
        }
        layer
    }

    /// The keys of the positions of `ply` plies that [`game_positions`]
    /// gives, the layer's whole range.
    fn decoded_keys(rules: Rules, ply: u32) -> Vec<u64> {
        let layer = Layer::new(rules, ply).unwrap();
        let mut keys: Vec<u64> = game_positions(&layer, 0, layer.slots())
            .map(|(_, p)| p.key().min(p.mirror_key()))
            .collect();
        keys.sort_unstable();
        keys
    }

    fn small() -> Rules {
        Rules::new(5, 4, 4).unwrap()
    }

    #[test]
    fn positions_are_those_games_reach_once_per_mirror_pair() {
        let rules = Rules::STANDARD;
        // 7 first moves, 4 of them up to mirroring; 49 two-ply positions, 25.
        assert_eq!(positions(rules, 1).len(), 4);
        assert_eq!(positions(rules, 2).len(), 25);
        // On 5x4x4, a position where the last move made four is not listed.
        for p in positions(small(), 9) {
            assert!(!p.is_over());
            assert!(p.key() <= p.mirror_key());
        }
    }

    #[test]
    fn the_slots_decode_to_the_positions_games_reach() {
        for (rules, plies) in [
            (small(), 1..=19),
            (Rules::new(4, 4, 3).unwrap(), 1..=15),
            (Rules::STANDARD, 1..=6),
        ] {
            for ply in plies {
                let mut bfs: Vec<u64> = positions(rules, ply).iter().map(Position::key).collect();
                bfs.sort_unstable();
                let decoded = decoded_keys(rules, ply);
                assert!(
                    decoded == bfs,
                    "{rules:?} ply {ply}: the slots give another set"
                );
            }
        }
    }

    #[test]
    fn shards_cover_the_slots_once() {
        let shards: Vec<_> = (1..=3)
            .map(|index| slot_range(10, Some(Shard { index, count: 3 })))
            .collect();
        assert_eq!(shards, vec![(0, 3), (3, 6), (6, 10)]);
        assert_eq!(slot_range(10, None), (0, 10));
    }

    #[test]
    fn a_built_layer_agrees_with_the_solver_everywhere() {
        let dir = std::env::temp_dir().join(format!("c4layer-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let rules = small();
        let ply = 8;
        let options = |shard| LayerOptions {
            ply,
            hash_mb: 16,
            threads: 1,
            time: None,
            shard,
            checkpoint: Duration::from_secs(60),
        };
        // Two shards, merged, make the whole layer.
        let mut merged = Book::new(rules);
        for index in 1..=2 {
            let path = dir.join(format!("shard{index}.c4book"));
            let mut book = Book::new(rules);
            let end = build_layer(&mut book, &path, &options(Some(Shard { index, count: 2 })));
            assert_eq!(end.unwrap(), BuildEnd::ShardDone);
            merged.merge(&Book::load(&path).unwrap()).unwrap();
        }
        let (needed, known) = coverage(&merged, ply);
        assert!(needed > 100);
        assert_eq!(known, needed);
        let mut solver = Solver::new(16).with_book(None);
        let layer = merged.layer(ply).unwrap();
        for p in positions(rules, ply) {
            if p.winning_moves() != 0 {
                assert!(!layer.contains(&p));
                continue;
            }
            for q in [p, p.mirrored()] {
                let m = layer.lookup(&q).unwrap();
                assert_eq!(m.outcome, Outcome::of(solver.solve_weak(&q)));
                if let Some(c) = m.column {
                    let mut child = q;
                    child.play(c);
                    let kept = child.last_move_won()
                        || Outcome::of(-solver.solve_weak(&child)) == m.outcome;
                    assert!(kept, "{:#x}", q.key());
                }
            }
        }
        let (checked, wrong) = verify_layer(&merged, ply, 50, 1, 16);
        assert_eq!((checked, wrong.len()), (50, 0));
        // A second run finds nothing left to do.
        let path = dir.join("whole.c4book");
        merged.save(&path).unwrap();
        let before = merged.clone();
        assert_eq!(
            build_layer(&mut merged, &path, &options(None)).unwrap(),
            BuildEnd::Complete
        );
        assert_eq!(merged, before);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The book of [`layer_book`] for 5x4x4 at ply 9, made once.
    fn small_layer_book() -> Arc<Book> {
        static BOOK: std::sync::OnceLock<Arc<Book>> = std::sync::OnceLock::new();
        Arc::clone(BOOK.get_or_init(|| Arc::new(layer_book(small(), 9))))
    }

    /// A book of the whole layer of `ply` on `rules`' board and nothing else.
    fn layer_book(rules: Rules, ply: u32) -> Book {
        let path = std::env::temp_dir().join(format!(
            "c4layer-{}-{ply}-{}.c4book",
            std::process::id(),
            rules
        ));
        let mut book = Book::new(rules);
        let options = LayerOptions {
            ply,
            hash_mb: 16,
            threads: 1,
            time: None,
            shard: None,
            checkpoint: Duration::from_secs(60),
        };
        build_layer(&mut book, &path, &options).unwrap();
        std::fs::remove_file(&path).unwrap();
        book
    }

    #[test]
    fn the_clocked_search_proves_positions_before_a_layer_on_a_small_budget() {
        use crate::search::Searcher;
        let rules = small();
        let book = small_layer_book();
        let mut judge = Solver::new(16).with_book(None);
        let todo: Vec<Position> = positions(rules, 6)
            .into_iter()
            .filter(|p| p.winning_moves() == 0)
            .collect();
        let mut proven = |book: Option<Arc<Book>>| {
            let mut searcher = Searcher::new(16);
            searcher.set_book(book);
            let mut count = 0;
            for p in &todo {
                searcher.clear();
                let report = searcher
                    .search(p, &Limits::nodes(NODES), None, |_| {})
                    .unwrap();
                if let Some(outcome) = report.score.outcome {
                    assert_eq!(outcome, Outcome::of(judge.solve_weak(p)), "{:#x}", p.key());
                    count += 1;
                }
            }
            count
        };
        const NODES: u64 = 5_000;
        let (with, without) = (proven(Some(book)), proven(None));
        eprintln!("{with} {without} of {}", todo.len());
        assert_eq!(with, todo.len());
        assert!(without < todo.len(), "{without}");
    }

    #[test]
    fn the_outcome_of_the_ply_before_a_layer_takes_a_node_a_move() {
        // Every move of a position of ply 8 leads into the layer of ply 9,
        // whose outcome decides a null window around 0 at once, forced
        // move or not: a weak solve (two windows at most) visits the root
        // and its children, nothing below.
        let rules = small();
        let mut with = Solver::new(16).with_book(Some(small_layer_book()));
        let most = 2 * (1 + u64::from(rules.columns()));
        let mut forced = 0;
        for p in positions(rules, 8) {
            if p.winning_moves() != 0 {
                continue;
            }
            let forced_child = (0..p.columns()).filter(|&c| p.can_play(c)).any(|c| {
                let mut child = p;
                child.play(c);
                !child.is_over() && child.non_losing_moves().count_ones() == 1
            });
            forced += usize::from(forced_child);
            with.clear();
            with.solve_weak(&p);
            assert!(
                with.nodes() <= most,
                "{:#x}: {} nodes",
                p.key(),
                with.nodes()
            );
        }
        assert!(forced > 100, "only {forced} positions with a forced child");
    }

    #[test]
    fn the_solver_with_a_layer_gives_the_same_scores_in_fewer_nodes() {
        let rules = small();
        let book = small_layer_book();
        let mut with = Solver::new(16).with_book(Some(book));
        let mut without = Solver::new(16).with_book(None);
        let (mut nodes_with, mut nodes_without) = (0, 0);
        for ply in 5..=9 {
            for p in positions(rules, ply) {
                if p.winning_moves() != 0 {
                    continue;
                }
                let exact = without.solve(&p);
                nodes_without += without.nodes();
                assert_eq!(with.solve(&p), exact, "{:#x}", p.key());
                nodes_with += with.nodes();
                assert_eq!(with.solve_weak(&p), exact.signum());
                let (column, outcome) = with.outcome_move_within(&p).unwrap();
                assert_eq!(outcome, Outcome::of(exact));
                let mut child = p;
                child.play(column);
                let kept = child.last_move_won()
                    || without.solve(&child).signum() == -exact.signum()
                    || outcome == Outcome::Loss;
                assert!(kept, "{:#x}: column {column}", p.key());
            }
        }
        assert!(
            nodes_with < nodes_without,
            "{nodes_with} against {nodes_without}"
        );
    }
}
