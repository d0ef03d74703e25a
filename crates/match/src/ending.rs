//! How a game ends: the result and the reason, shared by the log, the
//! tables, grading, the league and compliance, and the record of the end.

use std::fmt;

use connect4::Player;
use serde::{Deserialize, Serialize};

/// Why a game ended. The log spells each as the text of [`Reason::as_str`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Reason {
    /// Four (or the rules' number) in a row.
    #[serde(rename = "line")]
    Line,
    /// The board filled up without a line.
    #[serde(rename = "full board")]
    FullBoard,
    /// The arena's solver proved the result.
    #[serde(rename = "adjudicated")]
    Adjudicated,
    /// Forfeit: a move the rules refuse.
    #[serde(rename = "illegal move")]
    IllegalMove,
    /// Forfeit: a live engine over its time.
    #[serde(rename = "time")]
    Time,
    /// Forfeit: the process exited, closed its output or could not start.
    #[serde(rename = "crash")]
    Crash,
    /// Forfeit: no reply in time, not even to a ping.
    #[serde(rename = "stall")]
    Stall,
    /// Forfeit: an unreadable, oversized or out-of-turn reply.
    #[serde(rename = "protocol")]
    Protocol,
}

impl Reason {
    /// The forfeits, in the order tables list them.
    pub const FORFEITS: [Reason; 5] = [
        Reason::IllegalMove,
        Reason::Time,
        Reason::Crash,
        Reason::Stall,
        Reason::Protocol,
    ];

    /// Whether the loser forfeited.
    pub fn is_forfeit(self) -> bool {
        Reason::FORFEITS.contains(&self)
    }

    /// The reason as the log and the tables spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Line => "line",
            Reason::FullBoard => "full board",
            Reason::Adjudicated => "adjudicated",
            Reason::IllegalMove => "illegal move",
            Reason::Time => "time",
            Reason::Crash => "crash",
            Reason::Stall => "stall",
            Reason::Protocol => "protocol",
        }
    }
}

/// A reason that is none of the log's; the message quotes it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "reason '{0}' is none of line, full board, adjudicated, illegal move, time, crash, stall and protocol"
)]
pub struct ReasonError(pub String);

impl std::str::FromStr for Reason {
    type Err = ReasonError;

    fn from_str(s: &str) -> Result<Reason, ReasonError> {
        [Reason::Line, Reason::FullBoard, Reason::Adjudicated]
            .into_iter()
            .chain(Reason::FORFEITS)
            .find(|r| r.as_str() == s)
            .ok_or_else(|| ReasonError(s.to_string()))
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A game's result, the first player's first. The log spells each as the
/// text of [`GameResult::as_str`] (`1-0`, `0-1`, `1/2-1/2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// The first player won.
    FirstWon,
    /// The second player won.
    SecondWon,
    /// Neither did.
    Draw,
}

/// A result that is none of `1-0`, `0-1` and `1/2-1/2`; the message quotes
/// it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("result '{0}' is none of 1-0, 0-1 and 1/2-1/2")]
pub struct ResultError(pub String);

impl GameResult {
    /// The result of a game `winner` won (`None`: a draw).
    pub fn of_winner(winner: Option<Player>) -> GameResult {
        match winner {
            Some(Player::First) => GameResult::FirstWon,
            Some(Player::Second) => GameResult::SecondWon,
            None => GameResult::Draw,
        }
    }

    /// The player who won, or `None` for a draw.
    pub fn winner(self) -> Option<Player> {
        match self {
            GameResult::FirstWon => Some(Player::First),
            GameResult::SecondWon => Some(Player::Second),
            GameResult::Draw => None,
        }
    }

    /// The player who lost, or `None` for a draw.
    pub fn loser(self) -> Option<Player> {
        self.winner().map(Player::other)
    }

    /// The first player's points: 1, 1/2 or 0.
    pub fn first_points(self) -> f64 {
        match self {
            GameResult::FirstWon => 1.0,
            GameResult::SecondWon => 0.0,
            GameResult::Draw => 0.5,
        }
    }

    /// The result as the log spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::FirstWon => "1-0",
            GameResult::SecondWon => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for GameResult {
    type Err = ResultError;

    fn from_str(s: &str) -> Result<GameResult, ResultError> {
        match s {
            "1-0" => Ok(GameResult::FirstWon),
            "0-1" => Ok(GameResult::SecondWon),
            "1/2-1/2" => Ok(GameResult::Draw),
            other => Err(ResultError(other.to_string())),
        }
    }
}

impl Serialize for GameResult {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for GameResult {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<GameResult, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameEnd {
    /// The winner, or `None` for a draw.
    pub winner: Option<Player>,
    /// Why it ended.
    pub reason: Reason,
    /// Details of a forfeit or an adjudication.
    pub detail: Option<String>,
}

impl GameEnd {
    /// `loser` forfeits for `reason`.
    pub fn forfeit(loser: Player, reason: Reason, detail: String) -> GameEnd {
        GameEnd {
            winner: Some(loser.other()),
            reason,
            detail: Some(detail),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_spells_each_reason_as_the_tables_do() {
        for r in [
            Reason::Line,
            Reason::FullBoard,
            Reason::Adjudicated,
            Reason::IllegalMove,
            Reason::Time,
            Reason::Crash,
            Reason::Stall,
            Reason::Protocol,
        ] {
            let json = serde_json::to_string(&r).unwrap();
            assert_eq!(json, format!("\"{}\"", r.as_str()));
            assert_eq!(serde_json::from_str::<Reason>(&json).unwrap(), r);
            assert_eq!(r.as_str().parse::<Reason>(), Ok(r));
        }
        assert!(Reason::Crash.is_forfeit() && !Reason::Adjudicated.is_forfeit());
    }

    #[test]
    fn the_log_spells_each_result_as_it_always_did_and_refuses_others() {
        for (r, text) in [
            (GameResult::FirstWon, "1-0"),
            (GameResult::SecondWon, "0-1"),
            (GameResult::Draw, "1/2-1/2"),
        ] {
            let json = serde_json::to_string(&r).unwrap();
            assert_eq!(json, format!("\"{text}\""));
            assert_eq!(serde_json::from_str::<GameResult>(&json).unwrap(), r);
            assert_eq!(GameResult::of_winner(r.winner()), r);
        }
        let e = serde_json::from_str::<GameResult>("\"1-1\"").unwrap_err();
        assert!(e.to_string().contains("result '1-1' is none of"), "{e}");
        assert_eq!(GameResult::FirstWon.loser(), Some(Player::Second));
        assert_eq!(GameResult::Draw.first_points(), 0.5);
    }
}
