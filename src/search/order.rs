//! Move ordering: centre columns first, then by the threats a move creates.

use crate::position::Position;
use crate::search::open_lines::OpenLines;

/// Most columns on a board, hence most moves at a node.
const MAX_MOVES: usize = crate::rules::MAX_COLUMNS as usize;

/// Columns (0-based) from the centre outwards.
///
/// Example for 7 columns: `[3, 2, 4, 1, 5, 0, 6]`; for 8: `[4, 3, 5, 2, 6, 1, 7, 0]`.
pub fn centre_first(columns: u32) -> Vec<u32> {
    (0..columns as i32)
        .map(|i| columns as i32 / 2 + (1 - 2 * (i % 2)) * (i + 1) / 2)
        .map(|c| c as u32)
        .collect()
}

/// The first cell of `cells` (not empty) in the order of the column masks
/// `order`, for example centre first.
#[inline]
pub fn first_in_order(order: &[u64], cells: u64) -> u64 {
    order
        .iter()
        .map(|&m| m & cells)
        .find(|&c| c != 0)
        .expect("every cell lies in some column of the order")
}

/// The score of a move after which the opponent has no move that does not
/// lose at once: above every other (see [`MoveSorter::winner`]).
const WINS: u32 = u32::MAX;

/// The score of the move asked to come first: above every other but
/// [`WINS`].
const FIRST: u32 = WINS - 1;

/// The weight of a point of threats against an open line in
/// [`Scoring::ThreatsAndOpenLines`] (docs/measurements.md has the others tried).
const THREAT_WEIGHT: u32 = 4;

/// How [`MoveSorter::fill`] scores a move (a move that leaves the opponent
/// no defence scores above all, either way).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scoring {
    /// By the threats it creates (the empty cells where the mover could
    /// then complete a line) that are not right above a cell where the
    /// opponent could complete one (the opponent would win there first),
    /// those right above a playable cell counting more: the opponent can
    /// no longer play below them.
    Threats,
    /// The same, weighed [`THREAT_WEIGHT`] times, plus the lines still
    /// open through the move's cell (lines none of whose cells holds the
    /// other side's stone), the mover's it extends and the opponent's it
    /// blocks together: early in the game, when few moves create threats,
    /// it puts the stones where the lines are (a move on many more open
    /// lines comes before one a point of threats better).
    ThreatsAndOpenLines,
    /// The same as [`Scoring::Threats`], and among moves that create as
    /// many, first those that leave a threat on a playable cell, which the
    /// opponent must answer at once.
    ForcingFirst,
}

impl Scoring {
    /// The score of `p`'s move at `cell`, where `opponent` holds the cells
    /// the opponent could complete a line on: the higher, the earlier it
    /// is searched (before [`Scoring::ThreatsAndOpenLines`] adds the open
    /// lines).
    #[inline]
    fn score(self, p: &Position, cell: u64, opponent: u64) -> u32 {
        let threats = p.threats_after(cell);
        if p.leaves_no_defence(cell, threats) {
            return WINS;
        }
        match self {
            Scoring::Threats | Scoring::ThreatsAndOpenLines => {
                threat_score(p, cell, threats, opponent)
            }
            Scoring::ForcingFirst => {
                let forcing = (threats & p.possible_after(cell)).count_ones();
                threats.count_ones() << 4 | forcing.min(15)
            }
        }
    }
}

/// The score of [`Scoring::Threats`] of `p`'s move at `cell`, which leaves
/// the mover `threats`; `opponent` holds the opponent's.
#[inline]
fn threat_score(p: &Position, cell: u64, threats: u64, opponent: u64) -> u32 {
    let useful = threats & !(opponent << 1);
    let next = useful & (p.possible_after(cell) << 1);
    3 * useful.count_ones() + 2 * next.count_ones()
}

/// A small sorted list of moves: the highest score comes out first, and among
/// equal scores the one added first (so add the preferred columns first).
pub struct MoveSorter {
    cells: [u64; MAX_MOVES],
    scores: [u32; MAX_MOVES],
    len: usize,
}

impl MoveSorter {
    /// An empty list.
    #[inline]
    pub fn new() -> MoveSorter {
        MoveSorter {
            cells: [0; MAX_MOVES],
            scores: [0; MAX_MOVES],
            len: 0,
        }
    }

    /// Inserts a move (a one-cell bitboard) with its score, by insertion sort.
    #[inline]
    pub fn add(&mut self, cell: u64, score: u32) {
        let mut i = self.len;
        self.len += 1;
        while i > 0 && self.scores[i - 1] >= score {
            self.cells[i] = self.cells[i - 1];
            self.scores[i] = self.scores[i - 1];
            i -= 1;
        }
        self.cells[i] = cell;
        self.scores[i] = score;
    }

    /// Fills the list with the moves in `moves`, scored as `scoring` says,
    /// in the given column order (most preferred column first); `first` (a
    /// cell of `moves`, or 0: the table's move, or the last iteration's
    /// best) comes before every other move but one that leaves the
    /// opponent no defence. The first such move (in `order`) ends the
    /// filling: it comes out first, and the moves after it in `order` are
    /// left out unscored (it wins: docs/measurements.md has what that saves).
    #[inline]
    pub fn fill(
        p: &Position,
        moves: u64,
        first: u64,
        order: &[u64],
        scoring: Scoring,
    ) -> MoveSorter {
        let mut sorter = MoveSorter::new();
        if moves & moves.wrapping_sub(1) == 0 {
            // One move or none: nothing to sort, no threats to count.
            if moves != 0 {
                sorter.add(moves, 0);
            }
            return sorter;
        }
        let opponent = p.opponent_winning_cells();
        let open = (scoring == Scoring::ThreatsAndOpenLines).then(|| OpenLines::of(p));
        for &column in order {
            let cell = moves & column;
            if cell != 0 {
                let score = match scoring.score(p, cell, opponent) {
                    WINS => {
                        sorter.add(cell, WINS);
                        return sorter;
                    }
                    _ if cell == first => FIRST,
                    score => match &open {
                        Some(open) => score * THREAT_WEIGHT + open.through(cell),
                        None => score,
                    },
                };
                sorter.add(cell, score);
            }
        }
        sorter
    }

    /// A move still in the list after which the opponent has no move that
    /// does not lose at once (a win with the stone after next), if it
    /// holds one: the side to move needs no search.
    #[inline]
    pub fn winner(&self) -> Option<u64> {
        (self.len > 0 && self.scores[self.len - 1] == WINS).then(|| self.cells[self.len - 1])
    }
}

impl Default for MoveSorter {
    fn default() -> Self {
        MoveSorter::new()
    }
}

impl Iterator for MoveSorter {
    type Item = u64;

    /// The best remaining move.
    #[inline]
    fn next(&mut self) -> Option<u64> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        Some(self.cells[self.len])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn centre_first_orders() {
        assert_eq!(centre_first(7), vec![3, 2, 4, 1, 5, 0, 6]);
        assert_eq!(centre_first(8), vec![4, 3, 5, 2, 6, 1, 7, 0]);
        assert_eq!(centre_first(4), vec![2, 1, 3, 0]);
    }

    #[test]
    fn forcing_moves_come_first_among_as_many_threats() {
        // Moves 211523 (1-based), the first player to move:
        //   row 1:  X X . . . . .
        //   row 0:  O X O . O . .
        // Column 2 (0-based) makes three in row 1, threatening column 3's
        // row 1, not playable yet; column 1 makes three up column 1,
        // threatening the cell above, which is. One threat each.
        let mut p = Position::new(crate::rules::Rules::STANDARD);
        for c in [1, 0, 0, 4, 1, 2] {
            p.play(c);
        }
        let order: Vec<u64> = centre_first(7).iter().map(|&c| p.column_mask(c)).collect();
        let first_two = |scoring| {
            MoveSorter::fill(&p, p.possible(), 0, &order, scoring)
                .take(2)
                .map(|cell| p.column_of(cell))
                .collect::<Vec<_>>()
        };
        // Threats alone: the tie goes to the column nearer the centre.
        assert_eq!(first_two(Scoring::Threats), vec![2, 1]);
        assert_eq!(first_two(Scoring::ForcingFirst), vec![1, 2]);
    }

    #[test]
    fn a_threat_above_the_opponents_counts_for_nothing() {
        // Moves 12311223 (1-based), the first player (X) to move:
        //   row 2:  X X . . . . .
        //   row 1:  O O O . . . .
        //   row 0:  X O X . . . .
        // X in column 2 (0-based) threatens row 2 of column 3, right above
        // O's threat in row 1: O would win there first.
        let mut p = Position::new(crate::rules::Rules::STANDARD);
        for c in [0, 1, 2, 0, 0, 1, 1, 2] {
            p.play(c);
        }
        let cell = p.possible() & p.column_mask(2);
        let opponent = p.opponent_winning_cells();
        assert_eq!(opponent, p.cell_bit(3, 1));
        assert_eq!(p.threats_after(cell), p.cell_bit(3, 2));
        assert_eq!(Scoring::Threats.score(&p, cell, opponent), 0);
        // Without O's threat the same threat counts.
        assert_eq!(Scoring::Threats.score(&p, cell, 0), 3);
    }

    #[test]
    fn a_move_that_leaves_no_defence_is_the_winner_either_way() {
        // Moves 3344 (1-based): the first player makes three in the bottom
        // row, open at both ends, in column 1 or 4 (0-based).
        let mut p = Position::new(crate::rules::Rules::STANDARD);
        for c in [2, 2, 3, 3] {
            p.play(c);
        }
        let order: Vec<u64> = centre_first(7).iter().map(|&c| p.column_mask(c)).collect();
        let scorings = [
            Scoring::Threats,
            Scoring::ThreatsAndOpenLines,
            Scoring::ForcingFirst,
        ];
        for scoring in scorings {
            // Column 4 (0-based) or 1: the first in centre-first order; the
            // moves after it in that order are left out.
            let mut sorter = MoveSorter::fill(&p, p.possible(), 0, &order, scoring);
            let winner = sorter.winner().map(|cell| p.column_of(cell));
            assert_eq!(winner, Some(4), "{scoring:?}: the nearer the centre");
            sorter.next();
            let mut rest: Vec<u32> = sorter.map(|cell| p.column_of(cell)).collect();
            rest.sort_unstable();
            assert_eq!(rest, vec![2, 3], "{scoring:?}: the moves before it");
            // Without column 4, column 1 is the winner.
            let moves = p.possible() & !p.column_mask(4);
            let sorter = MoveSorter::fill(&p, moves, 0, &order, scoring);
            assert_eq!(sorter.winner().map(|cell| p.column_of(cell)), Some(1));
        }
        // With the opponent's stone at the left end of that row (column 1,
        // 0-based), every three the first player can make there has one
        // open end: no move wins so.
        let mut q = Position::new(crate::rules::Rules::STANDARD);
        for c in [2, 2, 3, 1] {
            q.play(c);
        }
        let order: Vec<u64> = centre_first(7).iter().map(|&c| q.column_mask(c)).collect();
        let sorter = MoveSorter::fill(&q, q.non_losing_moves(), 0, &order, Scoring::Threats);
        assert_eq!(sorter.winner(), None);
    }

    #[test]
    fn open_lines_order_moves_of_as_many_threats() {
        // The empty board's moves create no threats: the bottom of column
        // 1 (0-based) comes before column 0's, whatever the order of the
        // columns says.
        let p = Position::new(crate::rules::Rules::STANDARD);
        let order: Vec<u64> = (0..7).map(|c| p.column_mask(c)).collect();
        let columns = |scoring| {
            MoveSorter::fill(&p, p.possible(), 0, &order, scoring)
                .map(|cell| p.column_of(cell))
                .collect::<Vec<_>>()
        };
        assert_eq!(columns(Scoring::Threats), vec![0, 1, 2, 3, 4, 5, 6]);
        assert_eq!(
            columns(Scoring::ThreatsAndOpenLines),
            vec![3, 2, 4, 1, 5, 0, 6]
        );
    }

    #[test]
    fn highest_first_ties_to_first_added() {
        let mut s = MoveSorter::new();
        s.add(1, 0);
        s.add(2, 3);
        s.add(4, 1);
        s.add(8, 3);
        assert_eq!(s.collect::<Vec<_>>(), vec![2, 8, 4, 1]);
    }
}
