//! The lines still open through a cell, for either side: what the solver
//! adds to its move order's threats early in the game
//! ([`Scoring::ThreatsAndOpenLines`](super::order::Scoring)), when few
//! moves create threats and the centre-first order alone says little.
//!
//! A line is open for a side while none of its cells holds the other
//! side's stone. Lines are named by their lowest cell, as
//! [`Position::line_starts`] finds them, one direction at a time.

use crate::position::Position;

/// Each side's open lines of one position, by direction, and what finds
/// the lines through a cell among them.
pub struct OpenLines {
    /// For each direction, the lowest cells of the lines open for the side
    /// to move, and of those open for the opponent.
    lowest: [(u64, u64); 4],
    /// For each direction, a line's cells as bits from its lowest (bit 0)
    /// on; none where a line would not fit the 64 bits of a board.
    cells: [u64; 4],
    /// For each direction, the bit of a line's highest cell in `cells`.
    span: [u32; 4],
}

impl OpenLines {
    /// The open lines of `p`.
    #[inline]
    pub fn of(p: &Position) -> OpenLines {
        let k = p.inarow();
        let board = p.board_mask();
        let mine = board & !p.opponent_stones();
        let theirs = board & !p.current_stones();
        let mut lines = OpenLines {
            lowest: [(0, 0); 4],
            cells: [0; 4],
            span: [0; 4],
        };
        for (d, step) in p.line_steps().into_iter().enumerate() {
            let span = (k - 1) * step;
            if span >= u64::BITS {
                continue;
            }
            lines.lowest[d] = (p.line_starts(mine, step), p.line_starts(theirs, step));
            lines.cells[d] = (0..k).fold(0, |cells, i| cells | 1 << (i * step));
            lines.span[d] = span;
        }
        lines
    }

    /// How many lines through `cell` (one bit of the board) are open, the
    /// side to move's and the opponent's together: at most 120, as at most
    /// as many lines as a line has cells pass through a cell each way, and
    /// a line that fits a board of 64 bits has at most 15 cells.
    #[inline]
    pub fn through(&self, cell: u64) -> u32 {
        let bit = cell.trailing_zeros();
        (0..4)
            .map(|d| {
                // The lowest cells of the lines through `cell`: `cell`
                // itself and those up to a span below it.
                let lowest = ((u128::from(self.cells[d]) << bit) >> self.span[d]) as u64;
                let (mine, theirs) = self.lowest[d];
                (mine & lowest).count_ones() + (theirs & lowest).count_ones()
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    /// The open lines of `p` through `column`'s cell in `row`.
    fn through(p: &Position, column: u32, row: u32) -> u32 {
        OpenLines::of(p).through(p.cell_bit(column, row))
    }

    #[test]
    fn on_the_empty_board_every_line_through_a_cell_is_open_for_both() {
        let empty = Position::new(Rules::STANDARD);
        // The corner: one line each way but down to the right; the bottom
        // of the centre: four across, one up, one each diagonal.
        assert_eq!(through(&empty, 0, 0), 2 * 3);
        assert_eq!(through(&empty, 3, 0), 2 * 7);
        // The top of the centre: four across, one down, one each diagonal.
        assert_eq!(through(&empty, 3, 5), 2 * 7);
        assert_eq!(through(&empty, 6, 5), 2 * 3);
    }

    #[test]
    fn a_stone_closes_the_other_side_s_lines_through_it() {
        // After the first player's stone at the bottom of the centre, the
        // second player to move at the bottom of column 2 (0-based): every
        // line across through it holds column 3, so only the first
        // player's three are open there, beside one up and one diagonal
        // for each side.
        let mut p = Position::new(Rules::STANDARD);
        p.play(3);
        assert_eq!(through(&p, 2, 0), 3 + 2 * 2);
        // The cell above the stone: of the lines up through it (rows 0 to
        // 3 and 1 to 4), the second player's first holds the stone; the
        // lines across and diagonal through it do not.
        let empty = Position::new(Rules::STANDARD);
        assert_eq!(through(&p, 3, 1), through(&empty, 3, 1) - 1);
    }

    #[test]
    fn lines_longer_than_the_board_s_bits_allow_are_none() {
        // Eight in a row on 4 columns of 15 rows: only lines up, eight of
        // them through the eighth row, one through the bottom; the lines
        // across and diagonal would span past the board's 64 bits.
        let tall = Position::new(Rules::new(4, 15, 8).unwrap());
        assert_eq!(through(&tall, 0, 0), 2);
        assert_eq!(through(&tall, 3, 7), 2 * 8);
        // Five in a row on 9 x 6: five across through the centre's
        // bottom; the left edge's fifth row has one line across, two up
        // (rows 0 to 4 and 1 to 5), one down to the right and none up to
        // the right.
        let wide = Position::new(Rules::new(9, 6, 5).unwrap());
        assert_eq!(through(&wide, 4, 0), 2 * (5 + 1 + 1 + 1));
        assert_eq!(through(&wide, 0, 4), 2 * 4);
    }
}
