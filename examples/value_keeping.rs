//! Value-keeping benchmark: does the engine's move on a clock keep the
//! game-theoretic value (a win stays a win, a draw a draw) in positions of
//! the middle opening, off the book's trees?
//!
//! It plays random games (seeded) to positions of 8 to 12 plies (`--plies
//! A-B` for others, such as `--plies 8-30`) that are not over, labels
//! every move of each with the solver (exact scores, the book helping),
//! asks the clocked search for a move at MOVETIME ms, and
//! counts the moves that keep the value. Positions where every move keeps
//! it (all lost, say) prove nothing and are counted apart. Misses are
//! printed as move strings with the scores of their moves.
//!
//! With `--games N` it plays games from the empty board instead, against
//! an opponent that moves at random, or with `--blunders PCT` one that
//! plays the solver's best move except for PCT percent of its moves,
//! chosen at random: a strong opponent's occasional mistake hands the
//! engine a position off the book's trees at any ply.
//!
//! Run: `cargo run --release --example value_keeping [PER_PLY] [MOVETIME_MS] [--plies A-B] [--no-book | --book FILE] [--seed S] [--hash-mb MB] [--threads N] [--labels FILE] [--games N [--blunders PCT]]`
//! (defaults 40 positions a ply, 100 ms, the shipped book, seed 1, the
//! engine's default table, one thread). `--book FILE` gives the engine
//! another book, such as one still being built; the labels always come
//! from the solver with the shipped book. Labelling takes most of a run
//! (seed 1: 85 s in all, 5 s with the labels read from a file): with
//! `--labels FILE` the random positions and their labels are written to
//! FILE, or read from it if it exists (it names the seed, count and
//! plies it holds), so that comparing versions of the engine costs the moves alone.

use std::ops::RangeInclusive;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use connect4::atomic_file;
use connect4::book::Book;
use connect4::search::{DEFAULT_HASH_MB, Limits, Searcher, Solver};
use connect4::{Game, Position, Rules};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// A position reached by random moves, `plies` long, not over.
fn random_position(rng: &mut StdRng, plies: u32) -> Option<Game> {
    let mut game = Game::new(Rules::STANDARD);
    for _ in 0..plies {
        let moves = game.position().legal_moves();
        let column = moves[rng.random_range(0..moves.len())];
        game.play(i64::from(column) + 1).ok()?;
        if game.position().is_over() {
            return None;
        }
    }
    Some(game)
}

/// A random position and the solver's score of each of its columns (`None`
/// for a full one).
struct Labelled {
    game: Game,
    scores: Vec<Option<i32>>,
}

/// The best score of a position whose moves score `scores`, or `None` if
/// every move keeps the value (the position proves nothing).
fn interesting(scores: &[Option<i32>]) -> Option<i32> {
    let best = scores
        .iter()
        .flatten()
        .copied()
        .max()
        .expect("a legal move");
    (!scores.iter().flatten().all(|&s| keeps(best, s))).then_some(best)
}

/// The plies of the positions, unless `--plies A-B` says others.
const DEFAULT_PLIES: RangeInclusive<u32> = 8..=12;

/// The plies `A-B` of `--plies` (`8-30`), within a game of the standard
/// board.
fn parse_plies(text: &str) -> Result<RangeInclusive<u32>, String> {
    let bad = || format!("--plies {text:?}: expected A-B, such as 8-30, with 1 <= A <= B <= 40");
    let (a, b) = text.split_once('-').ok_or_else(bad)?;
    let (a, b): (u32, u32) = (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
    if a == 0 || a > b || b > 40 {
        return Err(bad());
    }
    Ok(a..=b)
}

/// `per_ply` random positions of each of `plies`, labelled by the solver
/// (the slow part: exact scores of every move).
fn labelled_positions(
    per_ply: usize,
    plies: &RangeInclusive<u32>,
    rng: &mut StdRng,
    solver: &mut Solver,
) -> Vec<Labelled> {
    let mut out = Vec::new();
    for plies in plies.clone() {
        let mut made = 0;
        while made < per_ply {
            let Some(game) = random_position(rng, plies) else {
                continue;
            };
            let scores = solver.analyze(game.position());
            out.push(Labelled { game, scores });
            made += 1;
        }
    }
    out
}

/// The first line of a labels file: what it holds (the plies named
/// unless they are the default ones, which older files hold).
fn labels_header(seed: u64, per_ply: usize, plies: &RangeInclusive<u32>) -> String {
    let range = if *plies == DEFAULT_PLIES {
        String::new()
    } else {
        format!(", plies {} to {}", plies.start(), plies.end())
    };
    format!("# value_keeping labels: seed {seed}, {per_ply} positions a ply{range}")
}

/// The labelled positions of `seed` and `per_ply` from `file`, or if it does
/// not exist, made and written there, so that a rerun skips the solver.
fn cached_labels(
    file: &Path,
    seed: u64,
    per_ply: usize,
    plies: &RangeInclusive<u32>,
    rng: &mut StdRng,
    solver: &mut Solver,
) -> Result<Vec<Labelled>, String> {
    let header = labels_header(seed, per_ply, plies);
    match std::fs::read_to_string(file) {
        Ok(text) => read_labels(&text, &header, per_ply, plies)
            .map_err(|e| format!("{}{e}", file.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let labelled = labelled_positions(per_ply, plies, rng, solver);
            atomic_file::write(file, write_labels(&header, &labelled))
                .map_err(|e| format!("cannot write the labels to {}: {e}", file.display()))?;
            Ok(labelled)
        }
        Err(e) => Err(format!("cannot read the labels in {}: {e}", file.display())),
    }
}

/// A labels file: `header`, then one line a position: its moves, then
/// every column's score (`-` for a full one).
fn write_labels(header: &str, labelled: &[Labelled]) -> String {
    let mut text = format!("{header}\n");
    for l in labelled {
        let scores: Vec<String> = l
            .scores
            .iter()
            .map(|s| s.map_or("-".to_string(), |v| v.to_string()))
            .collect();
        text += &format!("{} {}\n", l.game.move_string(), scores.join(" "));
    }
    text
}

/// The positions of a labels file's `text`, which must start with `header`
/// and hold `per_ply` positions of each of `plies`; an error starts with
/// what follows the file's name (a line number, say).
fn read_labels(
    text: &str,
    header: &str,
    per_ply: usize,
    plies: &RangeInclusive<u32>,
) -> Result<Vec<Labelled>, String> {
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, first)) if first == header => {}
        first => {
            return Err(format!(
                " does not hold the labels asked for ({header:?}) but {:?}; give another \
                 file, or the seed and count it was made with",
                first.map_or("", |(_, l)| l)
            ));
        }
    }
    let labelled = lines
        .map(|(i, line)| parse_labelled(line, plies).map_err(|e| format!(" line {}: {e}", i + 1)))
        .collect::<Result<Vec<_>, _>>()?;
    for plies in plies.clone() {
        let count = labelled
            .iter()
            .filter(|l| l.game.position().moves_played() == plies)
            .count();
        if count != per_ply {
            return Err(format!(
                " holds {count} positions of {plies} plies, not {per_ply}"
            ));
        }
    }
    Ok(labelled)
}

/// One line of a labels file, a position of one of `plies`.
fn parse_labelled(line: &str, plies: &RangeInclusive<u32>) -> Result<Labelled, String> {
    let mut fields = line.split_whitespace();
    let moves = fields.next().ok_or("an empty line")?;
    let game = Game::from_move_string(Rules::STANDARD, moves)
        .map_err(|e| format!("the moves {moves:?}: {e}"))?;
    let scores = fields
        .map(|f| match f {
            "-" => Ok(None),
            _ => f
                .parse()
                .map(Some)
                .map_err(|_| format!("the score {f:?} is not a number or -")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let p = game.position();
    if !plies.contains(&p.moves_played()) || p.is_over() {
        return Err(format!(
            "the moves {moves:?} are not a position of {} to {} plies still in play",
            plies.start(),
            plies.end()
        ));
    }
    if scores.len() != p.columns() as usize {
        return Err(format!(
            "{} scores for {} columns",
            scores.len(),
            p.columns()
        ));
    }
    if (0..p.columns()).any(|c| p.can_play(c) != scores[c as usize].is_some()) {
        return Err(format!(
            "a score for a full column or none for an open one after {moves}"
        ));
    }
    Ok(Labelled { game, scores })
}

/// Whether `column` keeps the value of a position labelled `scores`, whose
/// best score is `best`; a miss described.
fn verdict(scores: &[Option<i32>], best: i32, column: u32) -> Result<(), String> {
    let played = scores[column as usize].expect("a legal move");
    if keeps(best, played) {
        Ok(())
    } else {
        Err(format!(
            "played {} ({played}), best {best}; scores {scores:?}",
            column + 1
        ))
    }
}

/// The engine's move in `p` at `movetime`.
fn engine_move(p: &Position, searcher: &mut Searcher, movetime: Duration) -> u32 {
    searcher
        .search(p, &Limits::time(movetime), None, |_| {})
        .expect("not over")
        .best
}

/// Games from the empty board against an opponent that moves at random
/// `blunders` percent of the time and otherwise plays the solver's best
/// move, every move of the engine checked (see the module's documentation).
fn versus_opponent(
    games: u64,
    blunders: u64,
    rng: &mut StdRng,
    solver: &mut Solver,
    searcher: &mut Searcher,
    movetime: Duration,
) {
    let (mut kept, mut total, mut trivial) = (0, 0, 0);
    let mut misses = Vec::new();
    for g in 0..games {
        let engine_side = (g % 2) as u32;
        let mut game = Game::new(Rules::STANDARD);
        searcher.clear();
        while !game.position().is_over() {
            let p: Position = *game.position();
            let column = if p.moves_played() % 2 == engine_side {
                let column = engine_move(&p, searcher, movetime);
                let scores = solver.analyze(&p);
                match interesting(&scores) {
                    None => trivial += 1,
                    Some(best) => {
                        total += 1;
                        match verdict(&scores, best, column) {
                            Ok(()) => kept += 1,
                            Err(miss) => misses.push(format!("{}: {miss}", game.move_string())),
                        }
                    }
                }
                column
            } else if rng.random_range(0..100) < blunders {
                let moves = p.legal_moves();
                moves[rng.random_range(0..moves.len())]
            } else {
                solver.set_limits(&Limits::none(), None);
                solver.best_move_within(&p).expect("no budget to run out").0
            };
            game.play(i64::from(column) + 1).expect("a legal move");
        }
    }
    println!(
        "against an opponent with {blunders}% random moves, {games} games: \
         kept {kept} of {total} (and {trivial} where every move keeps it)"
    );
    for m in misses {
        println!("  missed {m}");
    }
}

/// Whether a move of score `score` keeps a position whose best score is
/// `best`: the same outcome.
fn keeps(best: i32, score: i32) -> bool {
    best.signum() == score.signum()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // The positional numbers: those not right after an option.
    let numbers: Vec<u64> = args
        .iter()
        .enumerate()
        .filter(|(i, _)| *i == 0 || !args[i - 1].starts_with("--"))
        .filter_map(|(_, a)| a.parse().ok())
        .collect();
    let per_ply = numbers.first().copied().unwrap_or(40) as usize;
    let movetime = Duration::from_millis(numbers.get(1).copied().unwrap_or(100));
    let no_book = args.iter().any(|a| a == "--no-book");
    let option = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1)?.parse::<u64>().ok())
    };
    let seed = option("--seed").unwrap_or(1);
    let hash_mb = option("--hash-mb").map_or(DEFAULT_HASH_MB, |mb| mb as usize);
    let threads = option("--threads").map_or(1, |n| n as usize);
    let mut rng = StdRng::seed_from_u64(seed);
    let mut solver = Solver::new(DEFAULT_HASH_MB);
    let mut searcher = Searcher::new(hash_mb);
    searcher.set_threads(threads);
    let fail = |message: String| -> ! {
        eprintln!("value_keeping: {message}");
        std::process::exit(2)
    };
    let text_option = |name: &str| {
        args.iter().position(|a| a == name).map(|i| {
            args.get(i + 1)
                .unwrap_or_else(|| fail(format!("{name} needs a value")))
        })
    };
    let book_file = text_option("--book");
    let label_file = text_option("--labels");
    let plies = text_option("--plies").map_or(DEFAULT_PLIES, |text| {
        parse_plies(text).unwrap_or_else(|e| fail(e))
    });
    let book_name = if no_book {
        searcher.set_book(None);
        "off".to_string()
    } else if let Some(file) = book_file {
        let book = Book::load(Path::new(file)).unwrap_or_else(|e| fail(e.to_string()));
        searcher.set_book(Some(Arc::new(book)));
        file.clone()
    } else {
        "shipped".to_string()
    };
    println!(
        "value keeping at {} ms a move, book {book_name}, hash {hash_mb} MiB, {threads} thread(s), seed {seed}",
        movetime.as_millis(),
    );
    if let Some(games) = option("--games") {
        let blunders = option("--blunders").unwrap_or(100).min(100);
        versus_opponent(
            games,
            blunders,
            &mut rng,
            &mut solver,
            &mut searcher,
            movetime,
        );
        return;
    }
    let labelled = match label_file {
        Some(file) => cached_labels(
            Path::new(file),
            seed,
            per_ply,
            &plies,
            &mut rng,
            &mut solver,
        )
        .unwrap_or_else(|e| fail(e)),
        None => labelled_positions(per_ply, &plies, &mut rng, &mut solver),
    };
    let (mut all_kept, mut all_total, mut all_trivial) = (0, 0, 0);
    for plies in plies.clone() {
        let (mut kept, mut total, mut trivial) = (0, 0, 0);
        let mut longest = Duration::ZERO;
        let mut misses = Vec::new();
        for position in labelled
            .iter()
            .filter(|l| l.game.position().moves_played() == plies)
        {
            let Some(best) = interesting(&position.scores) else {
                trivial += 1;
                continue;
            };
            total += 1;
            searcher.clear();
            let started = Instant::now();
            let column = engine_move(position.game.position(), &mut searcher, movetime);
            longest = longest.max(started.elapsed());
            match verdict(&position.scores, best, column) {
                Ok(()) => kept += 1,
                Err(miss) => misses.push(format!("{}: {miss}", position.game.move_string())),
            }
        }
        println!(
            "ply {plies}: kept {kept} of {total} (and {trivial} where every move keeps it); \
             longest move {} ms",
            longest.as_millis()
        );
        for m in misses {
            println!("  missed {m}");
        }
        all_kept += kept;
        all_total += total;
        all_trivial += trivial;
    }
    println!("all: kept {all_kept} of {all_total} (and {all_trivial} where every move keeps it)");
}
