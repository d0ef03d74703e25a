//! The league's words as types: the kinds of its games and the states of
//! its submissions, each spelled in the database, the game exports and the
//! page as it always was (`ladder`, `active`, ...), and read back from
//! those texts once, where they are read.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// What a game of the league is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GameKind {
    /// The anchors among themselves, once: it sets their ratings.
    Calibration,
    /// A rated game of a round.
    Ladder,
    /// A game of the final round, not rated.
    Final,
}

/// A submission's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// It plays.
    Active,
    /// A later submission of the same student took its place.
    Replaced,
    /// It was refused when it came in (its note says why).
    Rejected,
}

/// A text that is none of a word's spellings; the message quotes it and
/// lists them.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{what} '{text}' is none of {known}")]
pub struct WordError {
    /// The word's meaning: `game kind`, `state`.
    pub what: &'static str,
    /// The text as found.
    pub text: String,
    /// The spellings there are.
    pub known: &'static str,
}

impl GameKind {
    /// The kind as the database spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            GameKind::Calibration => "calibration",
            GameKind::Ladder => "ladder",
            GameKind::Final => "final",
        }
    }

    /// Whether its results move the ratings.
    pub fn is_rated(self) -> bool {
        self == GameKind::Ladder
    }
}

impl State {
    /// The state as the database spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            State::Active => "active",
            State::Replaced => "replaced",
            State::Rejected => "rejected",
        }
    }
}

/// The one of `words` spelled `text` (by `spelling`), or the error that
/// names `what` it should have been and the spellings in `known`.
fn word_of<T: Copy>(
    text: &str,
    words: &[T],
    spelling: fn(T) -> &'static str,
    (what, known): (&'static str, &'static str),
) -> Result<T, WordError> {
    words
        .iter()
        .copied()
        .find(|w| spelling(*w) == text)
        .ok_or_else(|| WordError {
            what,
            text: text.to_string(),
            known,
        })
}

impl FromStr for GameKind {
    type Err = WordError;

    fn from_str(s: &str) -> Result<GameKind, WordError> {
        let kinds = [GameKind::Calibration, GameKind::Ladder, GameKind::Final];
        word_of(
            s,
            &kinds,
            GameKind::as_str,
            ("game kind", "calibration, ladder and final"),
        )
    }
}

impl FromStr for State {
    type Err = WordError;

    fn from_str(s: &str) -> Result<State, WordError> {
        let states = [State::Active, State::Replaced, State::Rejected];
        word_of(
            s,
            &states,
            State::as_str,
            ("state", "active, replaced and rejected"),
        )
    }
}

impl fmt::Display for GameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_word_reads_back_as_it_is_written_and_others_are_refused() {
        for k in [GameKind::Calibration, GameKind::Ladder, GameKind::Final] {
            assert_eq!(k.as_str().parse::<GameKind>(), Ok(k));
            assert_eq!(serde_json::to_string(&k).unwrap(), format!("\"{k}\""));
        }
        for s in [State::Active, State::Replaced, State::Rejected] {
            assert_eq!(s.as_str().parse::<State>(), Ok(s));
            assert_eq!(serde_json::to_string(&s).unwrap(), format!("\"{s}\""));
        }
        let e = "Ladder".parse::<GameKind>().unwrap_err().to_string();
        assert_eq!(
            e,
            "game kind 'Ladder' is none of calibration, ladder and final"
        );
        assert!(GameKind::Ladder.is_rated() && !GameKind::Final.is_rated());
    }
}
