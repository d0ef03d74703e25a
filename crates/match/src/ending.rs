//! How a game ends: the reason, shared by the log, the tables, grading and
//! compliance, and the record of the end.

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

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
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
        }
        assert!(Reason::Crash.is_forfeit() && !Reason::Adjudicated.is_forfeit());
    }
}
