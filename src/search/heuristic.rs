//! Heuristic evaluation for positions the search cannot solve in time.
//!
//! [`threats`] is the evaluator of the clocked search: it counts the empty
//! cells where each side would complete a line, weighting those on the rows
//! that favour their owner (Allis' parity rule: the first player's threats
//! are strongest on odd rows counted from 1 at the bottom, the second
//! player's on even rows), plus a small bonus for central stones.

use crate::position::Position;

/// A threat on a row of its owner's parity: three times one on the other
/// rows, as the row decides who gets the cell when the board fills up
/// (twice, before: the clocked search at 100 ms kept the value in 1,166
/// and 1,167 of 1,218 solver-labelled positions with 4, 1,173 twice with 6;
/// 8 did no better).
pub const GOOD_THREAT: i32 = 6;
/// A threat on the other rows.
pub const OTHER_THREAT: i32 = 2;
/// Each stone in the centre column (or the two centre columns of an even board).
pub const CENTRE_STONE: i32 = 1;
/// Heuristic values lie in `-LIMIT..=LIMIT`.
pub const LIMIT: i32 = 99;

/// Evaluates `p` from the side to move, in `-LIMIT..=LIMIT`: positive is
/// good for the side to move.
pub fn threats(p: &Position) -> i32 {
    let own = p.current_stones();
    let opp = p.opponent_stones();
    let own_threats = p.winning_cells(own);
    let opp_threats = p.winning_cells(opp);
    // 0-based even rows are 1-based odd rows: the first player's good rows.
    let odd_rows = p.odd_rows();
    let first_to_move = p.moves_played().is_multiple_of(2);
    let (own_good, opp_good) = if first_to_move {
        (odd_rows, p.board_mask() & !odd_rows)
    } else {
        (p.board_mask() & !odd_rows, odd_rows)
    };
    let side = |threats: u64, good: u64| {
        GOOD_THREAT * (threats & good).count_ones() as i32
            + OTHER_THREAT * (threats & !good).count_ones() as i32
    };
    let centre = centre_mask(p);
    let value = side(own_threats, own_good) - side(opp_threats, opp_good)
        + CENTRE_STONE * ((own & centre).count_ones() as i32 - (opp & centre).count_ones() as i32);
    value.clamp(-LIMIT, LIMIT)
}

/// The centre column, or the two centre columns of an even board.
fn centre_mask(p: &Position) -> u64 {
    let n = p.columns();
    let mut m = p.column_mask(n / 2);
    if n.is_multiple_of(2) {
        m |= p.column_mask(n / 2 - 1);
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::rules::Rules;

    #[test]
    fn symmetric_and_antisymmetric() {
        let empty = Position::new(Rules::STANDARD);
        assert_eq!(threats(&empty), 0);
        // The first player has an open three on the bottom row: two threats.
        let mut q = Game::from_move_string(Rules::STANDARD, "33445").unwrap();
        assert!(
            threats(q.position()) < 0,
            "the second player faces two threats"
        );
        q.play(1).unwrap();
        assert!(
            threats(q.position()) > 0,
            "the first player to move has threats"
        );
    }
}
