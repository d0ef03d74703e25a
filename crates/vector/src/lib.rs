//! Many games of Connect 4 stepped at once, for reinforcement learning.
//!
//! A [`Batch`] holds `N` games and steps all of them in one call: the
//! caller gives one column a game, and the batch writes, for every game,
//! the observation (the planes of the stones of the player it is shown to
//! and of the opponent, rows from the top: PettingZoo's and pgx's
//! layout), the action mask, the rewards, whether the game ended, and who
//! is to move, into flat buffers the caller owns ([`Buffers`]). No call
//! allocates once the batch is made.
//!
//! Two ways to play ([`Opponent`]):
//! - self-play: the caller plays both sides, each step for the player to
//!   move in each game, and gets both players' rewards (pgx's convention);
//! - against an opponent inside the batch: `random` (native, per-game
//!   seeded) or any of the project's agents; the caller is the learner,
//!   on the side [`Seat`] gives, and gets its own reward.
//!
//! A game that ends is started again as [`Autoreset`] says: at the next
//! step (Gymnasium's default), in the same step (the final observation
//! kept apart), or only when the caller resets it.
//!
//! Rules as PettingZoo's `connect_four_v3` has them: a win is 1 for the
//! winner and -1 for the loser, a draw 0 for both; a full column ends the
//! game with -1 for the player who chose it and 0 for the other. A column
//! outside the board is the caller's error, not a move.
//!
//! A single game's observation and mask are written by [`planes`] and
//! [`mask`], which the batch uses for each of its games.

mod batch;
mod observe;

pub use batch::{Batch, game_seed};
pub use observe::{Buffers, mask, planes};

use connect4::Rules;
use thiserror::Error;

/// Who plays the side the caller does not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Opponent {
    /// Nobody: the caller plays both sides.
    SelfPlay,
    /// A uniformly random legal column, from each game's own generator.
    Random,
    /// One of the project's agents, by its spec (`greedy`,
    /// `alphabeta:depth=4`, `solver`, ...): one player shared by the
    /// batch's games, moving in them in game order.
    Agent(String),
}

/// The learner's side in each game, against an opponent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seat {
    /// Always moves first.
    First,
    /// Always moves second.
    Second,
    /// Moves first in game `g`'s episode `e` when `g + e` is even: half the
    /// batch each way, and each game alternating.
    Alternate,
}

/// When a game that ended starts again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Autoreset {
    /// At the next step, whose action for that game is ignored: the step
    /// shows the new game (Gymnasium's `NEXT_STEP`, its default).
    NextStep,
    /// In the step that ended it: the step shows the new game, and the
    /// last position of the one that ended goes to the final-observation
    /// buffer (Gymnasium's `SAME_STEP`).
    SameStep,
    /// Only when the caller resets it; stepping it before is an error.
    Disabled,
}

/// What a batch plays and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// The board.
    pub rules: Rules,
    /// How many games.
    pub games: usize,
    /// Who plays the other side.
    pub opponent: Opponent,
    /// The learner's side, against an opponent (unused in self-play).
    pub seat: Seat,
    /// When an ended game starts again.
    pub autoreset: Autoreset,
}

/// Why a batch cannot be made or stepped; each message names the value and
/// where it is, columns from 0.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum BatchError {
    /// A batch of no games.
    #[error("a batch needs at least one game, got 0")]
    NoGames,
    /// The opponent's spec names no agent.
    #[error("opponent '{spec}': {why}")]
    Opponent {
        /// The spec.
        spec: String,
        /// What the agents said.
        why: String,
    },
    /// Not one action a game.
    #[error("actions: expected {expected}, one a game, got {got}")]
    Actions {
        /// The games.
        expected: usize,
        /// The actions given.
        got: usize,
    },
    /// An action that is no column of the board.
    #[error("actions[{game}] = {action}: expected a column from 0 to {last}")]
    NoSuchColumn {
        /// The game.
        game: usize,
        /// The action.
        action: i64,
        /// The last column.
        last: u32,
    },
    /// A game that ended, stepped without a reset (autoreset disabled).
    #[error("game {game} is over: reset it before stepping it (autoreset is disabled)")]
    Over {
        /// The game.
        game: usize,
    },
    /// Not one seed a game.
    #[error("seeds: expected {expected}, one a game, got {got}")]
    Seeds {
        /// The games.
        expected: usize,
        /// The seeds given.
        got: usize,
    },
    /// A buffer of the wrong size.
    #[error("{name}: expected {expected} values, got {got}")]
    Buffer {
        /// Which buffer.
        name: &'static str,
        /// Its size for this batch.
        expected: usize,
        /// The size given.
        got: usize,
    },
}
