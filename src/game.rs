//! A game: a position together with the moves that reached it, and the move
//! notations people and programs use.
//!
//! Two notations name a sequence of moves, both with 1-based columns from the
//! empty board, first player first:
//! - a move string, one digit per move: `"4453"` (the notation of the public
//!   solvers and test sets);
//! - a list of columns, for JSON: `[4, 4, 5, 3]`.
//!
//! A third, the board grid, lives in [`crate::grid`]. Every error names the
//! move (1-based) and what was wrong with it.

use std::fmt;

use thiserror::Error;

use crate::position::{Player, Position, Status};
use crate::rules::Rules;

/// A move that cannot be played, with its 1-based index in the sequence.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum MoveError {
    /// A character of a move string that is not a digit.
    #[error("move {index} ('{found}'): not a column digit")]
    NotADigit {
        /// 1-based index of the move.
        index: usize,
        /// The character found.
        found: char,
    },
    /// A column outside the board.
    #[error("move {index} ({shown}): column {column} does not exist on a {columns}-column board")]
    NoSuchColumn {
        /// 1-based index of the move.
        index: usize,
        /// The move as written: `'8'` in a move string, `column 8` in a list.
        shown: String,
        /// The column asked for (1-based).
        column: i64,
        /// Columns of the board.
        columns: u32,
    },
    /// A column with no free cell.
    #[error("move {index} (column {column}): column {column} is full")]
    ColumnFull {
        /// 1-based index of the move.
        index: usize,
        /// The column asked for (1-based).
        column: u32,
    },
    /// A move after the end of the game.
    #[error("move {index}: the game already ended at move {ended_at} ({how})")]
    GameOver {
        /// 1-based index of the move.
        index: usize,
        /// 1-based index of the move that ended the game.
        ended_at: usize,
        /// How it ended: `first player won`, `second player won` or `draw`.
        how: String,
    },
}

/// A position and the moves that reached it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    position: Position,
    /// Columns played, 0-based.
    moves: Vec<u32>,
}

impl Game {
    /// A game on the empty board.
    pub fn new(rules: Rules) -> Game {
        Game {
            position: Position::new(rules),
            moves: Vec::new(),
        }
    }

    /// Plays a move string such as `"4453"` from the empty board.
    ///
    /// Surrounding whitespace is ignored; the empty string is the empty board.
    pub fn from_move_string(rules: Rules, moves: &str) -> Result<Game, MoveError> {
        let mut game = Game::new(rules);
        for (i, ch) in moves.trim().chars().enumerate() {
            let index = i + 1;
            let column = ch
                .to_digit(10)
                .ok_or(MoveError::NotADigit { index, found: ch })?;
            game.play_checked(index, i64::from(column), || format!("'{ch}'"))?;
        }
        Ok(game)
    }

    /// Plays a [`crate::MoveList`] from the empty board.
    pub fn from_moves(rules: Rules, moves: &crate::MoveList) -> Result<Game, MoveError> {
        Game::from_move_string(rules, moves.as_str())
    }

    /// Plays a list of 1-based columns from the empty board.
    pub fn from_columns(rules: Rules, columns: &[i64]) -> Result<Game, MoveError> {
        let mut game = Game::new(rules);
        for (i, &column) in columns.iter().enumerate() {
            game.play_checked(i + 1, column, || format!("column {column}"))?;
        }
        Ok(game)
    }

    /// A game reaching `position` by the given 0-based columns, which the
    /// caller has checked to be legal and to reach it.
    pub(crate) fn from_parts(position: Position, moves: Vec<u32>) -> Game {
        Game { position, moves }
    }

    /// Plays a 1-based column, checking that the move is legal.
    pub fn play(&mut self, column: i64) -> Result<(), MoveError> {
        let index = self.moves.len() + 1;
        self.play_checked(index, column, || format!("column {column}"))
    }

    fn play_checked(
        &mut self,
        index: usize,
        column: i64,
        shown: impl FnOnce() -> String,
    ) -> Result<(), MoveError> {
        let columns = self.position.columns();
        if !(1..=i64::from(columns)).contains(&column) {
            return Err(MoveError::NoSuchColumn {
                index,
                shown: shown(),
                column,
                columns,
            });
        }
        let how = match self.position.status() {
            Status::Ongoing => None,
            Status::Won(player) => Some(format!("{player} won")),
            Status::Draw => Some("draw".to_string()),
        };
        if let Some(how) = how {
            return Err(MoveError::GameOver {
                index,
                ended_at: self.moves.len(),
                how,
            });
        }
        let c = (column - 1) as u32;
        if !self.position.can_play(c) {
            return Err(MoveError::ColumnFull {
                index,
                column: c + 1,
            });
        }
        self.position.play(c);
        self.moves.push(c);
        Ok(())
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The rules of the game.
    pub fn rules(&self) -> Rules {
        self.position.rules()
    }

    /// Columns played so far, 0-based.
    pub fn moves(&self) -> &[u32] {
        &self.moves
    }

    /// Columns played so far, 1-based (the list notation).
    pub fn columns(&self) -> Vec<u32> {
        self.moves.iter().map(|c| c + 1).collect()
    }

    /// The move string, for example `"4453"`.
    pub fn move_string(&self) -> String {
        format_moves(&self.moves)
    }

    /// The moves so far as a [`crate::MoveList`].
    pub fn move_list(&self) -> crate::MoveList {
        let mut list = crate::MoveList::new();
        for &m in &self.moves {
            list.push(m).expect("a board has at most 9 columns");
        }
        list
    }

    /// How the game stands.
    pub fn status(&self) -> Status {
        self.position.status()
    }

    /// The player to move.
    pub fn side_to_move(&self) -> Player {
        self.position.side_to_move()
    }
}

/// Formats 0-based columns as a move string of 1-based digits.
pub fn format_moves(moves: &[u32]) -> String {
    moves
        .iter()
        .map(|&c| char::from_digit(c + 1, 10).expect("at most 9 columns"))
        .collect()
}

impl fmt::Display for Game {
    /// The move string.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.move_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STD: Rules = Rules::STANDARD;

    #[test]
    fn parse_and_format() {
        let g = Game::from_move_string(STD, " 4453 ").unwrap();
        assert_eq!(g.move_string(), "4453");
        assert_eq!(g.columns(), vec![4, 4, 5, 3]);
        assert_eq!(Game::from_columns(STD, &[4, 4, 5, 3]).unwrap(), g);
        assert_eq!(Game::from_move_string(STD, "").unwrap(), Game::new(STD));
    }

    #[test]
    fn errors_name_the_move() {
        let e = |s: &str| Game::from_move_string(STD, s).unwrap_err().to_string();
        assert_eq!(
            e("44538"),
            "move 5 ('8'): column 8 does not exist on a 7-column board"
        );
        assert_eq!(
            e("4403"),
            "move 3 ('0'): column 0 does not exist on a 7-column board"
        );
        assert_eq!(e("44a"), "move 3 ('a'): not a column digit");
        assert_eq!(e("4444444"), "move 7 (column 4): column 4 is full");
        assert_eq!(
            e("12121212"),
            "move 8: the game already ended at move 7 (first player won)"
        );
        let l = Game::from_columns(STD, &[4, 4, -1])
            .unwrap_err()
            .to_string();
        assert_eq!(
            l,
            "move 3 (column -1): column -1 does not exist on a 7-column board"
        );
        let mut g = Game::from_columns(STD, &[1, 2, 1, 2, 1, 2, 3]).unwrap();
        g.play(2).unwrap();
        assert_eq!(
            g.play(1).unwrap_err().to_string(),
            "move 9: the game already ended at move 8 (second player won)"
        );
        let small = Rules::new(4, 4, 4).unwrap();
        let full = Game::from_move_string(small, "1331133124422442").unwrap();
        assert_eq!(full.status(), Status::Draw);
        assert_eq!(
            Game::from_move_string(small, "13311331244224421")
                .unwrap_err()
                .to_string(),
            "move 17: the game already ended at move 16 (draw)"
        );
    }
}
