//! The score convention of the public test sets, for any board size.
//!
//! Scores are from the side to move. 0 is a draw. A win is positive:
//! `ceil(cells / 2) + 1` minus the number of stones the winner has played when
//! the game ends (on 7 x 6: 22 - stones, so a win with the 4th stone scores
//! 18). A loss is the negative of the opponent's win. After the best move, the
//! opponent's score is the negative of yours.

use crate::position::Position;

/// `ceil(cells / 2) + 1`: a win with `s` stones scores this minus `s`.
#[inline]
pub fn win_base(p: &Position) -> i32 {
    (p.columns() * p.rows()).div_ceil(2) as i32 + 1
}

/// The score if the side to move wins with its next stone.
#[inline]
pub fn win_now(p: &Position) -> i32 {
    win_base(p) - (p.moves_played() / 2 + 1) as i32
}

/// The score if the opponent wins with its next stone, after ours.
#[inline]
pub fn loss_next(p: &Position) -> i32 {
    -(win_base(p) - (p.moves_played().div_ceil(2) + 1) as i32)
}

/// The best score still possible when the side to move cannot win at once:
/// a win with the stone after next.
#[inline]
pub fn upper_bound(p: &Position) -> i32 {
    win_now(p) - 1
}

/// The worst score still possible when the opponent cannot win with its next
/// stone.
#[inline]
pub fn lower_bound(p: &Position) -> i32 {
    loss_next(p) + 1
}

/// What claimeven proves of `p`'s score: on a board of an even number of
/// rows with the first player to move, where the second player's
/// claimeven denies it every line ([`Position::claimeven_denies_a_line`]),
/// the first player cannot win: at most 0, and at most -1 where claimeven
/// also gives the second player a line
/// ([`Position::claimeven_gives_the_opponent_a_line`]). `None` where
/// claimeven proves nothing.
#[inline]
pub fn claimeven_bound(p: &Position) -> Option<i32> {
    p.claimeven_denies_a_line()
        .then(|| -i32::from(p.claimeven_gives_the_opponent_a_line()))
}

/// What the first player's odd threat proves of `p`'s score, for the
/// second player to move ([`Position::odd_threat_win_among`], with the
/// first player's `threats`, all or some of them): a loss, by the stone
/// that fills the threat's cell at the latest. `None` where no odd threat
/// wins.
#[inline]
pub fn odd_threat_bound(p: &Position, threats: u64) -> Option<i32> {
    let stones = p.odd_threat_win_among(threats)?;
    Some(-(win_base(p) - stones.div_ceil(2) as i32))
}

/// A move among `moves` (cells) of the first player after which its odd
/// threat wins ([`odd_threat_bound`]), so that the move scores at least
/// the negative of that bound: the first such move that proves at least
/// `at_least`, with that score. Only the threats it has before the move
/// are looked at, so that a move costs no new reading of the board; and
/// where no column of an odd number of stones holds one, only the moves
/// under one (the only moves that can make a column of such a threat odd).
#[inline]
pub fn odd_threat_move(p: &Position, moves: u64, at_least: i32) -> Option<(i32, u64)> {
    if p.zugzwang_parity() != Some(true) {
        return None;
    }
    let odd_rows = p.odd_rows();
    let possible = p.possible();
    let threats = p.own_winning_cells() & odd_rows & !possible;
    if threats == 0 {
        return None;
    }
    let under = p.under_any(possible, threats);
    let candidates = if under & !odd_rows != 0 {
        moves
    } else {
        moves & under
    };
    crate::position::cells(candidates).find_map(|cell| {
        let mut after = *p;
        after.play_cell(cell);
        let v = -odd_threat_bound(&after, threats & !cell)?;
        (v >= at_least).then_some((v, cell))
    })
}

/// A move among `moves` (cells) of the side to move that holds the
/// opponent down by claimeven: the second player's move after which
/// [`claimeven_bound`] holds, so that the move scores at least the
/// negative of that bound (0, or 1). The first such move that proves at
/// least `at_least`, with that score.
#[inline]
pub fn claimeven_move(p: &Position, moves: u64, at_least: i32) -> Option<(i32, u64)> {
    if at_least > 1 || p.zugzwang_parity() != Some(false) {
        return None;
    }
    crate::position::cells(moves).find_map(|cell| {
        let mut after = *p;
        after.play_cell(cell);
        let v = -claimeven_bound(&after)?;
        (v >= at_least).then_some((v, cell))
    })
}

/// The game outcome a score stands for, from the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// The side to move wins.
    Win,
    /// Nobody wins.
    Draw,
    /// The side to move loses.
    Loss,
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Outcome::Win => "win",
            Outcome::Draw => "draw",
            Outcome::Loss => "loss",
        })
    }
}

impl Outcome {
    /// The same outcome from the other side.
    pub fn reversed(self) -> Outcome {
        match self {
            Outcome::Win => Outcome::Loss,
            Outcome::Draw => Outcome::Draw,
            Outcome::Loss => Outcome::Win,
        }
    }

    /// The outcome of an exact score.
    pub fn of(score: i32) -> Outcome {
        match score.signum() {
            1 => Outcome::Win,
            0 => Outcome::Draw,
            _ => Outcome::Loss,
        }
    }
}

/// How many stones the winner will have played when the game ends, for a
/// non-zero exact score of the position `p`; `None` for a draw.
pub fn winning_stone(p: &Position, score: i32) -> Option<u32> {
    (score != 0).then(|| (win_base(p) - score.abs()) as u32)
}

/// The ply (1-based count of all stones on the board) at which the game ends
/// under perfect play, for an exact non-zero score of `p`.
pub fn end_ply(p: &Position, score: i32) -> Option<u32> {
    let stones = winning_stone(p, score)?;
    let winner_moves_first = (score > 0) == p.moves_played().is_multiple_of(2);
    Some(if winner_moves_first {
        2 * stones - 1
    } else {
        2 * stones
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    #[test]
    fn standard_board_matches_the_reference_formulas() {
        let mut p = Position::new(Rules::STANDARD);
        for n in 0..40u32 {
            let n_i = n as i32;
            assert_eq!(win_now(&p), (43 - n_i) / 2, "ply {n}");
            assert_eq!(loss_next(&p), -(42 - n_i) / 2, "ply {n}");
            assert_eq!(upper_bound(&p), (41 - n_i) / 2, "ply {n}");
            assert_eq!(lower_bound(&p), -(40 - n_i) / 2, "ply {n}");
            let c = [3, 2, 4, 1, 5, 0, 6][(n as usize / 6) % 7];
            if p.can_play(c) {
                p.play(c);
            } else {
                break;
            }
        }
    }

    #[test]
    fn end_ply_counts_all_stones() {
        let p = Position::new(Rules::STANDARD);
        // First player wins with its 4th stone: ply 7.
        assert_eq!(end_ply(&p, 18), Some(7));
        // Second player (the opponent) wins with its 4th stone: ply 8.
        assert_eq!(end_ply(&p, -18), Some(8));
        assert_eq!(end_ply(&p, 0), None);
    }
}
