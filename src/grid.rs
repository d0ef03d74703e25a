//! The board grid notation and the ASCII board.
//!
//! A grid lists the rows top row first; each cell is `0` (empty), `1` (the
//! first player's stone) or `2` (the second player's), the convention of
//! Kaggle's ConnectX. It comes as a list of rows or as one flat list of
//! `rows x columns` cells. Rows and columns in error messages are 1-based as
//! listed: row 1 is the top row, column 1 the leftmost.
//!
//! A grid carries no move order, so reading one also finds an order of legal
//! moves that reaches it; a grid that no legal game reaches is an error.

use std::collections::HashSet;

use thiserror::Error;

use crate::game::Game;
use crate::position::{Player, Position};
use crate::rules::Rules;

/// A grid that is malformed or that no legal game reaches.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum GridError {
    /// Wrong number of rows.
    #[error("grid has {found} rows, expected {expected}")]
    RowCount {
        /// Rows given.
        found: usize,
        /// Rows of the board.
        expected: u32,
    },
    /// A row of the wrong length.
    #[error("row {row} has {found} cells, expected {expected}")]
    RowLength {
        /// 1-based row, top first.
        row: usize,
        /// Cells given.
        found: usize,
        /// Columns of the board.
        expected: u32,
    },
    /// A flat grid of the wrong length.
    #[error("flat grid has {found} cells, expected {expected} ({rows} rows x {columns} columns)")]
    FlatLength {
        /// Cells given.
        found: usize,
        /// Cells of the board.
        expected: u32,
        /// Rows of the board.
        rows: u32,
        /// Columns of the board.
        columns: u32,
    },
    /// A cell that is not 0, 1 or 2.
    #[error("row {row}, column {column}: value {value} is not 0 (empty), 1 or 2")]
    BadCell {
        /// 1-based row, top first.
        row: u32,
        /// 1-based column.
        column: u32,
        /// The value found.
        value: i64,
    },
    /// A stone with an empty cell below it.
    #[error("row {row}, column {column}: piece floats above an empty cell")]
    Floating {
        /// 1-based row, top first.
        row: u32,
        /// 1-based column.
        column: u32,
    },
    /// Stone counts that alternating play cannot produce.
    #[error(
        "the first player has {first} pieces and the second {second}: \
         the first player must have as many as the second or one more"
    )]
    Counts {
        /// Stones of the first player.
        first: u32,
        /// Stones of the second player.
        second: u32,
    },
    /// Both players have a line.
    #[error("both players have a line; the game ends at the first")]
    BothLines,
    /// The player with a line is not the one who moved last.
    #[error("the {winner} has a line, but the {last} moved last")]
    WinnerDidNotMoveLast {
        /// The player with a line.
        winner: Player,
        /// The player who made the last move, by the counts.
        last: Player,
    },
    /// Counts and lines are plausible, but no order of legal moves reaches
    /// the grid without ending the game earlier.
    #[error(
        "no legal game reaches this grid: every order of moves would have ended the game earlier"
    )]
    Unreachable,
}

/// Reads a grid given as a list of rows, top row first.
pub fn game_from_rows(rules: Rules, rows: &[Vec<i64>]) -> Result<Game, GridError> {
    if rows.len() != rules.rows() as usize {
        return Err(GridError::RowCount {
            found: rows.len(),
            expected: rules.rows(),
        });
    }
    for (i, row) in rows.iter().enumerate() {
        if row.len() != rules.columns() as usize {
            return Err(GridError::RowLength {
                row: i + 1,
                found: row.len(),
                expected: rules.columns(),
            });
        }
    }
    let flat: Vec<i64> = rows.iter().flatten().copied().collect();
    game_from_flat(rules, &flat)
}

/// Reads a grid given as one flat list of `rows x columns` cells, top row
/// first.
pub fn game_from_flat(rules: Rules, cells: &[i64]) -> Result<Game, GridError> {
    let (rows, columns) = (rules.rows(), rules.columns());
    if cells.len() != rules.cells() as usize {
        return Err(GridError::FlatLength {
            found: cells.len(),
            expected: rules.cells(),
            rows,
            columns,
        });
    }
    let empty = Position::new(rules);
    let (mut first, mut second) = (0u64, 0u64);
    // Walk each column bottom up so that a floating stone is reported at the
    // stone itself.
    for c in 0..columns {
        let mut gap = false;
        for r in 0..rows {
            let listed_row = rows - r; // 1-based, top first
            let value = cells[((listed_row - 1) * columns + c) as usize];
            let bit = empty.cell_bit(c, r);
            match value {
                0 => gap = true,
                1 | 2 if gap => {
                    return Err(GridError::Floating {
                        row: listed_row,
                        column: c + 1,
                    });
                }
                1 => first |= bit,
                2 => second |= bit,
                _ => {
                    return Err(GridError::BadCell {
                        row: listed_row,
                        column: c + 1,
                        value,
                    });
                }
            }
        }
    }
    let (nf, ns) = (first.count_ones(), second.count_ones());
    if nf != ns && nf != ns + 1 {
        return Err(GridError::Counts {
            first: nf,
            second: ns,
        });
    }
    let last = if nf > ns {
        Player::First
    } else {
        Player::Second
    };
    match (empty.has_line(first), empty.has_line(second)) {
        (true, true) => return Err(GridError::BothLines),
        (true, false) if last != Player::First => {
            return Err(GridError::WinnerDidNotMoveLast {
                winner: Player::First,
                last,
            });
        }
        (false, true) if last != Player::Second => {
            return Err(GridError::WinnerDidNotMoveLast {
                winner: Player::Second,
                last,
            });
        }
        _ => {}
    }
    let mut order = Vec::with_capacity((nf + ns) as usize);
    let mut dead_ends = HashSet::new();
    if !unplay(&empty, first, second, &mut order, &mut dead_ends) {
        return Err(GridError::Unreachable);
    }
    order.reverse();
    let position = Position::from_stones(rules, first, second);
    Ok(Game::from_parts(position, order))
}

/// Takes stones off the top, last mover first, until the board is empty,
/// never passing through a position where someone already had a line.
/// Pushes the columns in reverse order of play; returns false if no order
/// exists. `dead_ends` remembers positions already found to lead nowhere.
fn unplay(
    geometry: &Position,
    first: u64,
    second: u64,
    order: &mut Vec<u32>,
    dead_ends: &mut HashSet<(u64, u64)>,
) -> bool {
    let all = first | second;
    if all == 0 {
        return true;
    }
    if dead_ends.contains(&(first, second)) {
        return false;
    }
    let first_moved_last = first.count_ones() > second.count_ones();
    for c in 0..geometry.columns() {
        let column = all & geometry.column_mask(c);
        if column == 0 {
            continue;
        }
        let top = 1u64 << (63 - column.leading_zeros());
        let (f, s) = match (first_moved_last, first & top != 0) {
            (true, true) => (first & !top, second),
            (false, false) => (first, second & !top),
            _ => continue,
        };
        if geometry.has_line(f) || geometry.has_line(s) {
            continue;
        }
        order.push(c);
        if unplay(geometry, f, s, order, dead_ends) {
            return true;
        }
        order.pop();
    }
    dead_ends.insert((first, second));
    false
}

/// The grid of a position: rows top first, 0 empty, 1 first player, 2 second.
pub fn to_rows(position: &Position) -> Vec<Vec<u8>> {
    let first = position.stones(Player::First);
    let second = position.stones(Player::Second);
    (0..position.rows())
        .rev()
        .map(|r| {
            (0..position.columns())
                .map(|c| {
                    let bit = position.cell_bit(c, r);
                    if first & bit != 0 {
                        1
                    } else if second & bit != 0 {
                        2
                    } else {
                        0
                    }
                })
                .collect()
        })
        .collect()
}

/// The board's rows as text, top row first, a line each: `X` for the
/// first player, `O` for the second, `.` for empty, cells apart by a space.
pub fn ascii_rows(position: &Position) -> String {
    let mut out = String::new();
    for row in to_rows(position) {
        let cells: Vec<&str> = row
            .iter()
            .map(|v| match v {
                1 => "X",
                2 => "O",
                _ => ".",
            })
            .collect();
        out.push_str(&cells.join(" "));
        out.push('\n');
    }
    out
}

/// An ASCII picture for people: [`ascii_rows`], column numbers underneath.
pub fn to_ascii(position: &Position) -> String {
    let mut out = ascii_rows(position);
    let numbers: Vec<String> = (1..=position.columns()).map(|c| c.to_string()).collect();
    out.push_str(&numbers.join(" "));
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const STD: Rules = Rules::STANDARD;

    fn rows(text: &str) -> Vec<Vec<i64>> {
        text.lines()
            .map(|l| l.split_whitespace().map(|v| v.parse().unwrap()).collect())
            .collect()
    }

    #[test]
    fn round_trip() {
        let g = Game::from_move_string(STD, "4453").unwrap();
        let grid: Vec<Vec<i64>> = to_rows(g.position())
            .into_iter()
            .map(|r| r.into_iter().map(i64::from).collect())
            .collect();
        let back = game_from_rows(STD, &grid).unwrap();
        assert_eq!(back.position(), g.position());
        let flat: Vec<i64> = grid.concat();
        assert_eq!(game_from_flat(STD, &flat).unwrap().position(), g.position());
        assert_eq!(
            to_ascii(g.position())
                .lines()
                .rev()
                .take(2)
                .collect::<Vec<_>>(),
            vec!["1 2 3 4 5 6 7", ". . O X X . ."]
        );
    }

    #[test]
    fn errors_name_the_cell() {
        let e = |t: &str| game_from_rows(STD, &rows(t)).unwrap_err().to_string();
        let floating = "0 0 0 0 0 0 0\n0 0 0 0 0 0 0\n0 0 0 0 0 0 0\n0 0 0 0 0 0 0\n0 0 1 0 0 0 0\n0 0 0 2 0 0 0";
        assert_eq!(
            e(floating),
            "row 5, column 3: piece floats above an empty cell"
        );
        let bad = "0 0 0 0 0 0 0\n0 0 0 0 0 0 0\n0 0 0 0 0 0 0\n0 0 0 0 0 0 0\n0 0 0 0 0 0 0\n0 0 3 0 0 0 0";
        assert_eq!(e(bad), "row 6, column 3: value 3 is not 0 (empty), 1 or 2");
        assert_eq!(e("0 0 0"), "grid has 1 rows, expected 6");
        let short = "0 0 0 0 0 0 0\n0 0 0 0 0 0 0\n0 0 0 0 0 0\n0 0 0 0 0 0 0\n0 0 0 0 0 0 0\n0 0 0 0 0 0 0";
        assert_eq!(e(short), "row 3 has 6 cells, expected 7");
        let counts = "0 0 0 0 0 0 0\n0 0 0 0 0 0 0\n0 0 0 0 0 0 0\n0 0 0 0 0 0 0\n0 0 0 0 0 0 0\n2 0 0 0 0 0 0";
        assert!(e(counts).starts_with("the first player has 0 pieces and the second 1"));
        let both = "0 0 0 0 0 0 0\n0 0 0 0 0 0 0\n1 2 0 0 0 0 0\n1 2 0 0 0 0 0\n1 2 0 0 0 0 0\n1 2 0 0 0 0 0";
        assert_eq!(
            e(both),
            "both players have a line; the game ends at the first"
        );
        let wrong = "0 0 0 0 0 0 0\n0 0 0 0 0 0 0\n1 0 0 0 0 0 0\n1 2 0 0 0 0 0\n1 2 0 0 0 0 0\n1 2 2 0 0 0 0";
        assert_eq!(
            e(wrong),
            "the first player has a line, but the second player moved last"
        );
        // Two separate first-player lines: the game would have ended at the first.
        let twice = "0 0 0 0 0 0 0\n0 0 0 0 0 0 0\n1 0 0 0 0 0 1\n1 2 0 0 0 2 1\n1 2 0 0 0 2 1\n1 2 2 0 0 2 1";
        assert_eq!(e(twice), GridError::Unreachable.to_string());
        let flat = game_from_flat(STD, &[0; 41]).unwrap_err().to_string();
        assert_eq!(
            flat,
            "flat grid has 41 cells, expected 42 (6 rows x 7 columns)"
        );
    }

    #[test]
    fn finished_grid_finds_an_order() {
        let g = Game::from_move_string(STD, "4455667").unwrap();
        let grid: Vec<i64> = to_rows(g.position())
            .concat()
            .into_iter()
            .map(i64::from)
            .collect();
        let back = game_from_flat(STD, &grid).unwrap();
        assert_eq!(back.position(), g.position());
        let replay = Game::from_move_string(STD, &back.move_string()).unwrap();
        assert_eq!(replay.position(), g.position());
    }
}
