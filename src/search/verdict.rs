//! The solver's verdict on every move of a game: whether the move kept the
//! value of the position for the side that played it (a win stays a win, a
//! draw a draw) or gave it away (win to draw, win to loss, draw to loss),
//! and which move would have kept it.
//!
//! One function for everyone who shows a game: the grader's feedback (the
//! move that lost each game) and the web page's replay. The book answers
//! first; the solver proves the rest under a time cap per position, and a
//! position it cannot prove in time is left unknown rather than guessed.
//! Positions are solved from the end of the game back, so that the
//! solver's table, filled by the late positions, speeds up the early ones.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::{Budget, Limits, Solver};
use crate::book::Book;
use crate::position::Position;
use crate::rules::Rules;
use crate::score::Outcome;

/// What the solver says of one move of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Verdict {
    /// The move's index in the game, from 0.
    pub ply: u32,
    /// The column played, 0-based.
    pub column: u32,
    /// The value of the position before the move, for the side to move;
    /// `None` if not proven in time.
    pub before: Option<Outcome>,
    /// The value after the move, for the same side; `None` if not proven.
    pub after: Option<Outcome>,
    /// When the move gave the value away: a move that kept it (0-based),
    /// if found in time.
    pub keeping: Option<u32>,
}

impl Verdict {
    /// Whether the move gave the value away (both values known).
    pub fn lost_value(&self) -> bool {
        match (self.before, self.after) {
            (Some(before), Some(after)) => rank(after) < rank(before),
            _ => false,
        }
    }

    /// Whether both values are known and equal.
    pub fn kept_value(&self) -> bool {
        matches!((self.before, self.after), (Some(b), Some(a)) if a == b)
    }
}

/// Win above draw above loss.
fn rank(o: Outcome) -> u8 {
    match o {
        Outcome::Loss => 0,
        Outcome::Draw => 1,
        Outcome::Win => 2,
    }
}

/// Judges games: a solver with the book, the time it may spend on each
/// position and on each game.
pub struct Judge {
    solver: Solver,
    cap: Duration,
    game_cap: Duration,
    /// When the game being judged must be done.
    deadline: Option<Instant>,
}

impl Judge {
    /// A judge with `hash_mb` of table, the `book` (if any), `cap` per
    /// position and `game_cap` per game (positions left when it is spent
    /// stay unknown).
    pub fn new(
        hash_mb: usize,
        book: Option<Arc<Book>>,
        cap: Duration,
        game_cap: Duration,
    ) -> Judge {
        Judge {
            solver: Solver::new(hash_mb).with_book(book),
            cap,
            game_cap,
            deadline: None,
        }
    }

    /// The verdict on every move of the game of `moves` (0-based columns,
    /// all legal, none after the game ended) on `rules`' board.
    pub fn game(&mut self, rules: Rules, moves: &[u32]) -> Vec<Verdict> {
        self.deadline = Some(Instant::now() + self.game_cap);
        let verdicts = self.judge(rules, moves);
        self.deadline = None;
        verdicts
    }

    fn judge(&mut self, rules: Rules, moves: &[u32]) -> Vec<Verdict> {
        let mut positions = vec![Position::new(rules)];
        for &c in moves {
            let mut next = *positions.last().expect("starts with the empty board");
            next.play(c);
            positions.push(next);
        }
        // Each position's value for its side to move, the last first.
        let mut values: Vec<Option<Outcome>> =
            positions.iter().rev().map(|p| self.outcome(p)).collect();
        values.reverse();
        let mut verdicts: Vec<Verdict> = moves
            .iter()
            .enumerate()
            .map(|(i, &column)| Verdict {
                ply: i as u32,
                column,
                before: values[i],
                after: after_move(&positions[i + 1], values[i + 1]),
                keeping: None,
            })
            .collect();
        for (v, p) in verdicts.iter_mut().zip(&positions) {
            if v.lost_value() {
                v.keeping = self.keeping_move(p);
            }
        }
        verdicts
    }

    /// The value of `p` for its side to move, if proven within the cap
    /// (`None` once the game is over: nobody is to move).
    pub fn outcome(&mut self, p: &Position) -> Option<Outcome> {
        if p.is_over() {
            return None;
        }
        self.solver.set_budget(self.budget());
        self.solver.solve_within(p, true).map(Outcome::of)
    }

    /// A move of `p` that keeps its value, if found within the cap.
    fn keeping_move(&mut self, p: &Position) -> Option<u32> {
        self.solver.set_budget(self.budget());
        self.solver.outcome_move_within(p).map(|(column, _)| column)
    }

    /// The cap, cut to what is left of the game's time.
    fn budget(&self) -> Budget {
        let now = Instant::now();
        let left = self
            .deadline
            .map_or(self.cap, |d| d.saturating_duration_since(now).min(self.cap));
        Budget::new(&Limits::time(left), now, None)
    }
}

/// The value for the side that just moved into `after`, from the value of
/// `after` for the side now to move (`None` if unknown): a won or full
/// board is decided by itself.
fn after_move(after: &Position, value: Option<Outcome>) -> Option<Outcome> {
    if after.is_over() {
        return Some(if after.is_full() && !after.last_move_won() {
            Outcome::Draw
        } else {
            Outcome::Win
        });
    }
    value.map(Outcome::reversed)
}

/// The first move of the side that moves first (`first`) or second that
/// gave its value away, if any.
pub fn first_lost(verdicts: &[Verdict], first: bool) -> Option<&Verdict> {
    verdicts
        .iter()
        .filter(|v| v.ply.is_multiple_of(2) == first)
        .find(|v| v.lost_value())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judge() -> Judge {
        Judge::new(
            16,
            Some(Book::shipped()),
            Duration::from_secs(30),
            Duration::from_secs(60),
        )
    }

    fn columns(moves: &str) -> Vec<u32> {
        moves.bytes().map(|b| u32::from(b - b'1')).collect()
    }

    #[test]
    fn the_first_move_in_the_centre_keeps_the_win_and_an_edge_move_gives_it_away() {
        let mut j = judge();
        let v = j.game(Rules::STANDARD, &columns("4"));
        assert_eq!(v[0].before, Some(Outcome::Win));
        assert_eq!(v[0].after, Some(Outcome::Win));
        assert!(v[0].kept_value() && !v[0].lost_value());
        // 1 (the leftmost column) loses for the first player.
        let v = j.game(Rules::STANDARD, &columns("1"));
        assert_eq!(v[0].before, Some(Outcome::Win));
        assert_eq!(v[0].after, Some(Outcome::Loss));
        assert!(v[0].lost_value());
        assert_eq!(v[0].keeping, Some(3));
    }

    #[test]
    fn a_missed_block_is_found_with_the_move_that_blocks() {
        // X holds the bottom of columns 1-3; O to move must block column 4
        // (0-based 3), and plays 7 instead; X wins at once.
        let mut j = judge();
        let moves = columns("1727374");
        let v = j.game(Rules::STANDARD, &moves);
        let missed = &v[5];
        assert!(missed.lost_value(), "{v:?}");
        assert_eq!(missed.after, Some(Outcome::Loss));
        assert_eq!(missed.keeping, Some(3));
        assert_eq!(
            first_lost(&v, true).map(|f| f.ply),
            Some(0),
            "1 loses: {v:?}"
        );
        // The winning move is the last, and keeps the win.
        let last = v.last().unwrap();
        assert_eq!(last.after, Some(Outcome::Win));
        assert_eq!(last.before, Some(Outcome::Win));
    }

    #[test]
    fn a_position_not_proven_in_time_is_unknown_not_guessed() {
        let mut j = Judge::new(16, None, Duration::ZERO, Duration::from_secs(60));
        let v = j.game(Rules::STANDARD, &columns("44"));
        assert_eq!(v[0].before, None);
        assert!(!v[0].lost_value() && !v[0].kept_value());
        // A game's time spent leaves the rest unknown too.
        let mut j = Judge::new(16, None, Duration::from_secs(30), Duration::ZERO);
        let v = j.game(Rules::STANDARD, &columns("44"));
        assert_eq!((v[0].before, v[1].before), (None, None));
    }
}
