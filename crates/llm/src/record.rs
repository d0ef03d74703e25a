//! A model's game as the log holds it: the arena's own game line (so that
//! `report --html`, `serve` and `merge` read the log as any other), and
//! under `llm` what only a model's game has: each prompt and answer, and
//! the solver's verdict on each of the model's moves.

use connect4::Player;
use connect4_match::log::{GameLine, Numbered};
use serde::{Deserialize, Serialize};

use crate::model::Message;
use crate::prompt::Style;

/// One line of a model's log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LlmLine {
    /// The game, as the arena logs every game.
    #[serde(flatten)]
    pub game: GameLine,
    /// The model's side of it.
    pub llm: ModelGame,
}

impl Numbered for LlmLine {
    fn game_number(&self) -> u64 {
        self.game.game
    }
}

/// The model's side of a game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelGame {
    /// The model, as the server names it.
    pub model: String,
    /// The side it played.
    pub seat: Player,
    /// The opponent's agent spec.
    pub opponent: String,
    /// How the position was shown.
    pub style: Style,
    /// The system message, the same on every turn.
    pub system: String,
    /// The model's turns, in order.
    pub turns: Vec<Turn>,
    /// The solver's verdict on each of the model's moves.
    pub verdicts: Vec<MoveVerdict>,
}

/// One of the model's turns: the conversation after the system message
/// (the position, then each answer and what was wrong with it), and the
/// move it gave.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    /// The turn's ply, from 0.
    pub ply: u32,
    /// The messages after the system message, answers included.
    pub messages: Vec<Message>,
    /// Each answer, the last the one that counted.
    pub answers: Vec<Answer>,
    /// The column played, from 0; none when the model forfeited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
}

/// One answer of the model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// Why it is no legal move, if it is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// Whether the answer held no move at all (rather than a move the
    /// rules refuse).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unreadable: bool,
    /// Tokens of the prompt, as the server counted them.
    pub prompt_tokens: u64,
    /// Tokens of the answer.
    pub completion_tokens: u64,
    /// HTTP requests it took (more than one after a retry).
    pub requests: u32,
    /// Milliseconds from the first request to the answer.
    pub ms: f64,
}

/// The solver's verdict on one of the model's moves.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveVerdict {
    /// The move's ply, from 0.
    pub ply: u32,
    /// The column played, from 0.
    pub column: u32,
    /// The position's value for the model before the move (`win`, `draw`,
    /// `loss`), if the solver proved it in time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// Its value for the model after the move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// Whether the move kept the value; none when either is unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept: Option<bool>,
    /// A column (from 0) that would have kept it, when the move did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keeping: Option<u32>,
}

impl LlmLine {
    /// The tokens the game's answers cost, prompts and answers.
    pub fn tokens(&self) -> u64 {
        self.llm
            .turns
            .iter()
            .flat_map(|t| &t.answers)
            .map(|a| a.prompt_tokens + a.completion_tokens)
            .sum()
    }
}
