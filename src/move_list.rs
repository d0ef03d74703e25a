//! A game's moves as the protocol and the logs write them: one digit a
//! move, its column counted from 1 (`"4453"`). A [`MoveList`] is read once,
//! where the text arrives, and holds only column digits; whether the moves
//! can be played is a question of the board ([`crate::Game::from_moves`]).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A move list's text that is not one: the move and the character found.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("move {index} ('{found}'): not a column from 1 to 9")]
pub struct MoveListError {
    /// The move's number, from 1.
    pub index: usize,
    /// The character in its place.
    pub found: char,
}

/// Moves in the protocol's columns from 1, one digit each (so at most 9
/// columns), opening and all.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(try_from = "String")]
pub struct MoveList(String);

impl MoveList {
    /// No moves: the empty board.
    pub fn new() -> MoveList {
        MoveList::default()
    }

    /// The moves as written, `"4453"`.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// How many moves.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The columns, counted from 0, in order.
    pub fn columns(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.bytes().map(|b| u32::from(b - b'1'))
    }

    /// Whether these moves begin with `first`'s.
    pub fn starts_with(&self, first: &MoveList) -> bool {
        self.0.starts_with(&first.0)
    }

    /// The first `n` moves (all of them, if there are fewer).
    pub fn first(&self, n: usize) -> MoveList {
        MoveList(self.0[..n.min(self.0.len())].to_string())
    }

    /// The moves after the first `n` (all of them past the end: none).
    pub fn after(&self, n: usize) -> MoveList {
        MoveList(self.0.get(n..).unwrap_or_default().to_string())
    }

    /// Appends the move into `column`, counted from 0; `None` (and no
    /// change) past the ninth column.
    pub fn push(&mut self, column: u32) -> Option<()> {
        let digit = char::from_digit(column + 1, 10).filter(|&d| d != '0')?;
        self.0.push(digit);
        Some(())
    }
}

impl FromStr for MoveList {
    type Err = MoveListError;

    fn from_str(text: &str) -> Result<MoveList, MoveListError> {
        match text
            .chars()
            .enumerate()
            .find(|(_, c)| !('1'..='9').contains(c))
        {
            Some((i, found)) => Err(MoveListError {
                index: i + 1,
                found,
            }),
            None => Ok(MoveList(text.to_string())),
        }
    }
}

impl TryFrom<String> for MoveList {
    type Error = MoveListError;

    fn try_from(text: String) -> Result<MoveList, MoveListError> {
        text.parse()
    }
}

impl Serialize for MoveList {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl fmt::Display for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl PartialEq<&str> for MoveList {
    fn eq(&self, text: &&str) -> bool {
        self.0 == *text
    }
}

impl AsRef<str> for MoveList {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_list_reads_and_writes_the_same_digits_and_refuses_any_other() {
        let moves: MoveList = "4453".parse().unwrap();
        assert_eq!(moves.columns().collect::<Vec<_>>(), [3, 3, 4, 2]);
        assert_eq!(serde_json::to_string(&moves).unwrap(), "\"4453\"");
        assert_eq!(serde_json::from_str::<MoveList>("\"4453\"").unwrap(), moves);
        assert_eq!(moves.after(2).as_str(), "53");
        assert_eq!(
            (moves.first(3).as_str(), moves.first(9).as_str()),
            ("445", "4453")
        );
        assert!(moves.starts_with(&"44".parse().unwrap()));
        let e = "4403".parse::<MoveList>().unwrap_err();
        assert_eq!(e.to_string(), "move 3 ('0'): not a column from 1 to 9");
        let e = serde_json::from_str::<MoveList>("\"44 3\"").unwrap_err();
        assert!(e.to_string().contains("move 3 (' ')"), "{e}");
        let mut grown = MoveList::new();
        assert_eq!((grown.push(8), grown.push(9)), (Some(()), None));
        assert_eq!(grown.as_str(), "9");
    }
}
