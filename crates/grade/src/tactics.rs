//! The tactics test: set positions, each asked of the student once (or
//! played out, for a proven win): win in one, block the only threat,
//! convert a proven win within its distance, avoid a move that hands the
//! opponent a win at once. Each missed position is shown as a picture.

use std::time::Duration;

use connect4::score::end_ply;
use connect4::search::{DEFAULT_HASH_MB, Solver};
use connect4::{Game, Position, Rules, Status};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::config::Tactic;
use super::terms::Terms;
use connect4_match::play::Seat;
use connect4_match::spec::EngineSpec;

/// Random positions of a kind, reproducible from `seed`.
fn positions(count: u32, seed: u64, want: impl Fn(&Position) -> bool) -> Vec<Game> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::new();
    let mut tries = 0;
    while out.len() < count as usize && tries < 100_000 {
        tries += 1;
        let mut g = Game::new(Rules::STANDARD);
        let plies = rng.random_range(6..30);
        for _ in 0..plies {
            let p = g.position();
            // Random moves that do not end the game or hand over a win at
            // once, so positions stay natural.
            let safe = p.non_losing_moves();
            let moves: Vec<u32> = p
                .legal_moves()
                .into_iter()
                .filter(|&c| !p.is_winning_move(c) && (safe == 0 || safe & p.column_mask(c) != 0))
                .collect();
            if moves.is_empty() {
                break;
            }
            g.play(i64::from(moves[rng.random_range(0..moves.len())]) + 1)
                .expect("legal");
        }
        if !g.position().is_over() && want(g.position()) {
            out.push(g);
        }
    }
    out
}

/// Missed positions shown with their pictures (the rest are counted).
const SHOWN_MISSES: usize = 10;

/// What the tactical positions gave.
#[derive(Default)]
pub struct Tactics {
    /// Positions passed.
    pub passed: u32,
    /// Positions asked.
    pub total: u32,
    /// One line per position missed.
    misses: Vec<String>,
    /// One line per forfeit.
    pub forfeits: Vec<String>,
    /// How the output speaks to the student.
    terms: Terms,
}

impl Tactics {
    /// The share passed.
    pub fn fraction(&self) -> f64 {
        f64::from(self.passed) / f64::from(self.total.max(1))
    }

    /// What the student reads: the count, then each miss with its picture.
    pub fn output(&self, kinds: &[Tactic]) -> String {
        let names: Vec<&str> = kinds
            .iter()
            .map(|k| match k {
                Tactic::Win => "win in one",
                Tactic::Block => "block the only threat",
                Tactic::Convert => "convert a proven win",
                Tactic::Avoid => "avoid a losing move",
            })
            .collect();
        let mut output = format!(
            "{} of {} positions ({})",
            self.passed,
            self.total,
            names.join(", ")
        );
        for l in self.misses.iter().take(SHOWN_MISSES) {
            output.push('\n');
            output.push_str(l);
        }
        if self.misses.len() > SHOWN_MISSES {
            output.push_str(&format!(
                "\n... and {} more missed",
                self.misses.len() - SHOWN_MISSES
            ));
        }
        output
    }

    /// Counts one position: passed, or missed with `why`, which is shown
    /// with a picture of the position (X moved first).
    fn count(&mut self, position: &Position, verdict: Result<(), Missed>) {
        self.total += 1;
        match verdict {
            Ok(()) => self.passed += 1,
            Err(Missed(why)) => self.misses.push(format!(
                "{why}, in this position (you are {}):\n{}",
                self.terms.pieces(position.side_to_move()),
                self.terms.board(position)
            )),
        }
    }
}

/// Why the engine missed a position, in the student's words.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Missed(String);

/// The graded engine, asked for single moves in set positions.
struct TacticSeat<'a> {
    seat: Seat,
    engine: &'a EngineSpec,
    seed: u64,
    terms: Terms,
}

impl TacticSeat<'_> {
    /// The engine's move (1-based column) in `g`, or `None` after a forfeit
    /// (recorded in `forfeits`).
    fn ask(&mut self, g: &Game, forfeits: &mut Vec<String>) -> Option<u32> {
        let result = self
            .seat
            .new_game(Rules::STANDARD, self.seed)
            .and_then(|()| self.seat.best_move(g, self.engine.clock));
        match result {
            Ok((m, _)) => Some(m.column),
            Err(e) => {
                forfeits.push(format!(
                    "tactical position{}: {}",
                    self.after(g),
                    self.terms.failure(e.reason(), e.detail())
                ));
                None
            }
        }
    }

    /// A move (a 1-based column, as the engine answered) as text: the
    /// column in the student's terms, or nothing after a forfeit.
    fn played(&self, c: Option<u32>) -> String {
        c.map_or(
            format!("nothing ({})", self.terms.lost_by_forfeit(1)),
            |c| format!("played {}", self.terms.column(c.saturating_sub(1))),
        )
    }

    /// " after MOVES" for an engine's author, who reads move strings;
    /// nothing for Python, whose students read the board drawn below.
    fn after(&self, g: &Game) -> String {
        match self.terms {
            Terms::Protocol => format!(" after {}", g.move_string()),
            Terms::Python => String::new(),
        }
    }
}

/// Plays `count` positions of each kind in `kinds`.
pub fn play(
    engine: &EngineSpec,
    margin: Duration,
    kinds: &[Tactic],
    count: u32,
    seed: u64,
    terms: Terms,
) -> Tactics {
    let mut seat = TacticSeat {
        seat: Seat::new(engine.clone(), margin),
        engine,
        seed,
        terms,
    };
    let mut t = Tactics {
        terms,
        ..Tactics::default()
    };
    for kind in kinds {
        match kind {
            Tactic::Win => win_in_one(&mut seat, &mut t, count, seed),
            Tactic::Block => block(&mut seat, &mut t, count, seed + 1),
            Tactic::Convert => convert(&mut seat, &mut t, count, seed + 2),
            Tactic::Avoid => avoid(&mut seat, &mut t, count, seed + 3),
        }
    }
    t
}

/// Positions with no win at once and no threat to block, where some moves
/// put a disc under a cell that wins for the opponent: the engine must play
/// another.
fn avoid(seat: &mut TacticSeat, t: &mut Tactics, count: u32, seed: u64) {
    for g in positions(count, seed, |p| {
        let safe = p.non_losing_moves();
        p.winning_moves() == 0
            && p.opponent_winning_cells() & p.possible() == 0
            && safe != 0
            && safe != p.possible()
    }) {
        let p = *g.position();
        let losing: Vec<String> = (0..7)
            .filter(|&c| p.can_play(c) && p.non_losing_moves() & p.column_mask(c) == 0)
            .map(|c| seat.terms.column(c))
            .collect();
        let c = seat.ask(&g, &mut t.forfeits);
        let ok = c.is_some_and(|c| {
            (1..=7).contains(&c) && p.non_losing_moves() & p.column_mask(c - 1) != 0
        });
        t.count(
            &p,
            if ok {
                Ok(())
            } else {
                Err(Missed(format!(
                    "avoid a losing move{}: {}; {} hands the opponent a win at once",
                    seat.after(&g),
                    seat.played(c),
                    losing.join(" or ")
                )))
            },
        );
    }
}

/// Positions with a win at once: the engine must take one.
fn win_in_one(seat: &mut TacticSeat, t: &mut Tactics, count: u32, seed: u64) {
    for g in positions(count, seed, |p| p.winning_moves() != 0) {
        let c = seat.ask(&g, &mut t.forfeits);
        let ok = c.is_some_and(|c| (1..=7).contains(&c) && g.position().is_winning_move(c - 1));
        t.count(
            g.position(),
            if ok {
                Ok(())
            } else {
                Err(Missed(format!(
                    "win in one{}: {}",
                    seat.after(&g),
                    seat.played(c)
                )))
            },
        );
    }
}

/// Positions with one move that stops the opponent's win: the engine must
/// play it.
fn block(seat: &mut TacticSeat, t: &mut Tactics, count: u32, seed: u64) {
    for g in positions(count, seed, |p| {
        p.winning_moves() == 0
            && p.opponent_winning_cells() & p.possible() != 0
            && p.non_losing_moves().count_ones() == 1
    }) {
        let p = *g.position();
        let block = (0..7)
            .find(|&c| p.non_losing_moves() & p.column_mask(c) != 0)
            .expect("one");
        let c = seat.ask(&g, &mut t.forfeits);
        t.count(
            &p,
            if c == Some(block + 1) {
                Ok(())
            } else {
                Err(Missed(format!(
                    "block{}: {}, the block is {}",
                    seat.after(&g),
                    seat.played(c),
                    seat.terms.column(block)
                )))
            },
        );
    }
}

/// Whose each move of `moves` (from the engine's turn) was, in words:
/// the student's and the defence's columns.
fn whose(terms: Terms, moves: &str) -> String {
    let (mut yours, mut theirs) = (Vec::new(), Vec::new());
    for (i, c) in moves.chars().enumerate() {
        let Some(d) = c.to_digit(10) else { continue };
        let number = terms.number(d - 1).to_string();
        if i % 2 == 0 {
            yours.push(number);
        } else {
            theirs.push(number);
        }
    }
    format!(
        "yours: {}; the defence's: {}",
        yours.join(", "),
        if theirs.is_empty() {
            "none".to_string()
        } else {
            theirs.join(", ")
        }
    )
}

/// If the engine's move `played` (1-based) in `game` wins later than the
/// best move, or not at all: which move that was and which would have won
/// sooner, in the student's terms.
fn slipped(solver: &mut Solver, game: &Game, played: u32, terms: Terms) -> Option<String> {
    let p = game.position();
    let scores = solver.analyze(p);
    let (best, best_score) = scores
        .iter()
        .enumerate()
        .filter_map(|(c, s)| s.map(|s| (c as u32, s)))
        .max_by_key(|&(_, s)| s)?;
    let got = scores
        .get(played.checked_sub(1)? as usize)
        .copied()
        .flatten();
    if got.is_some_and(|s| s >= best_score) {
        return None;
    }
    let end = end_ply(p, best_score)?;
    Some(format!(
        "your move at ply {} ({}) let the win slip: {} wins by ply {end}",
        p.moves_played() + 1,
        terms.column(played - 1),
        terms.column(best)
    ))
}

/// Proven wins within 11 plies: the engine must win by the ply perfect play
/// reaches, against the solver's longest defence.
fn convert(seat: &mut TacticSeat, t: &mut Tactics, count: u32, seed: u64) {
    let mut solver = Solver::new(DEFAULT_HASH_MB);
    let mut conversions = 0;
    for g in positions(20 * count, seed, |p| {
        p.empty_cells() <= 22 && p.winning_moves() == 0
    }) {
        if conversions == count {
            break;
        }
        let p = *g.position();
        let score = solver.solve(&p);
        let Some(end) = end_ply(&p, score).filter(|_| score > 0) else {
            continue;
        };
        if end - p.moves_played() > 11 {
            continue;
        }
        conversions += 1;
        let verdict = play_out_win(seat, &mut solver, &g, end, &mut t.forfeits);
        t.count(
            &p,
            verdict.map_err(|why| {
                Missed(format!(
                    "convert the win{} within {} more moves: {why}",
                    seat.after(&g),
                    end - p.moves_played()
                ))
            }),
        );
    }
}

/// Plays from `g` (a win for the side to move, the engine) against the
/// solver's longest defence; `Ok` if the engine wins by ply `end`. The
/// error tells which moves were the engine's, and the first of them that
/// let the win slip with the move that would have kept it.
fn play_out_win(
    seat: &mut TacticSeat,
    solver: &mut Solver,
    g: &Game,
    end: u32,
    forfeits: &mut Vec<String>,
) -> Result<(), Missed> {
    let engine_side = g.side_to_move();
    let mut game = g.clone();
    let mut slip: Option<String> = None;
    loop {
        match game.status() {
            Status::Won(w) if w == engine_side && game.moves().len() as u32 <= end => {
                return Ok(());
            }
            Status::Won(_) | Status::Draw => {
                let how = match game.status() {
                    Status::Won(w) if w == engine_side => {
                        format!("won at ply {} instead of {end}", game.moves().len())
                    }
                    _ => "did not win".to_string(),
                };
                let then = &game.move_string()[g.moves().len()..];
                return Err(Missed(format!(
                    "{how}: the game went on with {} ({}){}",
                    seat.terms.moves(then),
                    whose(seat.terms, then),
                    slip.map_or(String::new(), |s| format!("; {s}"))
                )));
            }
            Status::Ongoing => {}
        }
        let column = if game.side_to_move() == engine_side {
            let played = seat
                .ask(&game, forfeits)
                .ok_or_else(|| Missed(seat.played(None)))?;
            if slip.is_none() {
                slip = slipped(solver, &game, played, seat.terms);
            }
            played
        } else {
            // The defender delays the loss as long as it can.
            let best = solver
                .analyze(game.position())
                .into_iter()
                .enumerate()
                .filter_map(|(c, s)| s.map(|s| (c, s)))
                .max_by_key(|&(_, s)| s)
                .map(|(c, _)| c as u32)
                .expect("a legal move");
            best + 1
        };
        game.play(i64::from(column)).map_err(|e| {
            let zero_based = seat.terms == super::terms::Terms::Python;
            Missed(format!(
                "illegal move: {}",
                connect4_match::play::illegal_move_text(&e, zero_based)
            ))
        })?;
    }
}
