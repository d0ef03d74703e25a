//! The line masks the evaluators need, computed once per board size.

use crate::position::Position;
use crate::rules::Rules;

/// Line masks of one board size.
pub(super) struct Geometry {
    /// The board these masks belong to.
    pub rules: Rules,
    /// Every line of `inarow` cells, as a bitmask.
    pub lines: Vec<u64>,
    /// The centre column (the right one of two on an even width).
    pub centre: u64,
    /// The middle row (the two middle rows on an even height).
    pub central_rows: u64,
    /// Per cell bit: the rows, columns and both diagonals of the square
    /// window of side `2 * (inarow - 2) + 1` (5 x 5 for four in a row)
    /// around the cell, cut to the board, keeping those still long enough
    /// to hold a line.
    pub local: Vec<Vec<u64>>,
    /// Every run of `inarow - 1` cells with the mask of its end cells on the
    /// board.
    pub runs: Vec<(u64, u64)>,
    /// Bit steps of the four directions: vertical, horizontal, diagonal up
    /// (rising) and diagonal down.
    pub steps: [u32; 4],
}

impl Geometry {
    /// The masks of `p`'s board.
    pub fn new(p: &Position) -> Geometry {
        let (cols, rows, k) = (p.columns() as i32, p.rows() as i32, p.inarow() as i32);
        let on = |c: i32, r: i32| c >= 0 && c < cols && r >= 0 && r < rows;
        let bit = |c: i32, r: i32| p.cell_bit(c as u32, r as u32);
        let dirs = [(0, 1), (1, 0), (1, 1), (1, -1)];
        // The cells of the segment from (c, r) in direction d of `len` cells
        // that lie on the board.
        let segment = |c: i32, r: i32, (dc, dr): (i32, i32), len: i32| {
            (0..len)
                .map(|i| (c + dc * i, r + dr * i))
                .filter(|&(c, r)| on(c, r))
                .fold(0u64, |m, (c, r)| m | bit(c, r))
        };
        let mut lines = Vec::new();
        let mut runs = Vec::new();
        for d in dirs {
            for c in 0..cols {
                for r in 0..rows {
                    let (dc, dr) = d;
                    if on(c + dc * (k - 1), r + dr * (k - 1)) {
                        lines.push(segment(c, r, d, k));
                    }
                    if k >= 2 && on(c + dc * (k - 2), r + dr * (k - 2)) {
                        let mut ends = 0;
                        for (ec, er) in [(c - dc, r - dr), (c + dc * (k - 1), r + dr * (k - 1))] {
                            if on(ec, er) {
                                ends |= bit(ec, er);
                            }
                        }
                        runs.push((segment(c, r, d, k - 1), ends));
                    }
                }
            }
        }
        let radius = (k - 2).max(1);
        let side = 2 * radius + 1;
        let mut local = vec![Vec::new(); 64];
        for c in 0..cols {
            for r in 0..rows {
                let (c0, r0) = (c - radius, r - radius);
                let mut window = Vec::new();
                for i in 0..side {
                    window.push(segment(c0, r0 + i, (1, 0), side));
                    window.push(segment(c0 + i, r0, (0, 1), side));
                }
                window.push(segment(c0, r0, (1, 1), side));
                window.push(segment(c0, r0 + side - 1, (1, -1), side));
                window.retain(|m| m.count_ones() >= k as u32);
                local[bit(c, r).trailing_zeros() as usize] = window;
            }
        }
        let middle = [(rows - 1) / 2, rows / 2];
        let central_rows = (0..cols)
            .flat_map(|c| middle.map(|r| bit(c, r)))
            .fold(0, |m, b| m | b);
        let h = p.rows() + 1;
        Geometry {
            rules: p.rules(),
            lines,
            centre: p.column_mask(p.columns() / 2),
            central_rows,
            local,
            runs,
            steps: [1, h, h + 1, h - 1],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_standard_board_has_the_known_counts() {
        let g = Geometry::new(&Position::new(Rules::STANDARD));
        assert_eq!(g.lines.len(), 69, "69 lines of four");
        // Runs of three: 7*4 vertical + 5*6 horizontal + 2 * 5*4 diagonal.
        assert_eq!(g.runs.len(), 28 + 30 + 40);
        // A stone in the middle of the board sees all 12 lines of its 5 x 5
        // window; in a corner, every line of the window is cut to 3 cells.
        let p = Position::new(Rules::STANDARD);
        let mid = p.cell_bit(3, 2).trailing_zeros() as usize;
        assert_eq!(g.local[mid].len(), 12);
        let corner = p.cell_bit(0, 0).trailing_zeros() as usize;
        assert_eq!(
            g.local[corner].len(),
            0,
            "a corner's window lines are cut to 3 cells"
        );
        assert_eq!(
            (g.central_rows.count_ones(), g.centre.count_ones()),
            (14, 6)
        );
    }
}
