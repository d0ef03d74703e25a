//! The positions the search settles without searching their moves, in
//! one place: the search itself (`Solver::settled`) and what reads the
//! table after it (`forced_line`) must agree on which positions have no
//! table entry of their own.

use crate::position::Position;
use crate::score;

/// What a position needs before its moves are searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Settled {
    /// Its exact score, known without a search: every move loses at
    /// once, or the board fills up with the next two stones.
    Score(i32),
    /// One move does not lose at once (this cell): it is played at once.
    Forced(u64),
    /// Its moves must be searched.
    Open,
}

/// How `p` (not over; the side to move cannot win at once) is settled,
/// where `moves` are its moves that do not lose at once.
#[inline(always)]
pub(super) fn settle(p: &Position, moves: u64) -> Settled {
    if moves == 0 {
        Settled::Score(score::loss_next(p))
    } else if p.moves_played() + 2 >= p.columns() * p.rows() {
        Settled::Score(0)
    } else if moves & (moves - 1) == 0 {
        Settled::Forced(moves)
    } else {
        Settled::Open
    }
}

/// Where the moves the search plays without a node of its own lead from
/// `p`: the position, whether the other side moves there, and its exact
/// score when the search settles it without a table entry (a win at once,
/// a [`Settled::Score`], or a move that leaves the opponent no defence,
/// which the search plays before it stores anything; see
/// `MoveSorter::winner`).
pub(super) fn forced_line(p: &Position) -> (Position, bool, Option<i32>) {
    let (mut q, mut negated) = (*p, false);
    loop {
        if q.is_over() {
            return (q, negated, None);
        }
        if q.winning_moves() != 0 {
            return (q, negated, Some(score::win_now(&q)));
        }
        let moves = q.non_losing_moves();
        match settle(&q, moves) {
            Settled::Score(v) => return (q, negated, Some(v)),
            Settled::Forced(cell) => {
                q.play_cell(cell);
                negated = !negated;
            }
            Settled::Open => {
                let wins = q.move_leaving_no_defence(moves) != 0;
                return (q, negated, wins.then(|| score::upper_bound(&q)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    fn position(moves: &str) -> Position {
        *crate::Game::from_move_string(Rules::STANDARD, moves)
            .expect("a legal line")
            .position()
    }

    #[test]
    fn a_single_move_that_does_not_lose_is_forced() {
        // Three of the first player's stones stand in column 1 (1-based).
        let p = position("12121");
        let moves = p.non_losing_moves();
        assert_eq!(settle(&p, moves), Settled::Forced(p.cell_bit(0, 3)));
    }

    #[test]
    fn two_threats_leave_no_move() {
        // Both ends of the first player's bottom row are open.
        let p = position("2233444");
        assert_eq!(p.non_losing_moves(), 0);
        assert_eq!(settle(&p, 0), Settled::Score(score::loss_next(&p)));
    }

    #[test]
    fn the_forced_line_follows_forced_moves() {
        let (q, negated, exact) = forced_line(&position("12121"));
        assert_eq!(q, position("121211"));
        assert!(negated);
        assert_eq!(exact, None);
    }

    #[test]
    fn the_forced_line_ends_on_a_move_that_leaves_no_defence() {
        // Column 2 or 5 (1-based) makes three in the bottom row, open at
        // both ends.
        let p = position("3344");
        assert_eq!(forced_line(&p), (p, false, Some(score::upper_bound(&p))));
    }
}
