//! What a step writes, and where: the caller's flat buffers and the
//! layout of one game's part of each.

use connect4::{Player, Position};

use crate::BatchError;

/// The buffers a step or a reset writes, one part a game, game after game
/// (`N` games of `R` rows and `C` columns):
///
/// | buffer | values | one game's part |
/// |---|---|---|
/// | `observation` | `N * R * C * 2` | row `r` from the top, column `c`: `[(r * C + c) * 2]` is 1 where the viewer has a stone, `+ 1` where its opponent has |
/// | `action_mask` | `N * C` | 1 where the column has room (in a game that ended too, as Gymnasium's single environment shows it; the action that starts the next game is unused) |
/// | `rewards` | `N * 2` in self-play (the first player's, then the second's), `N` against an opponent (the learner's) | the step's reward |
/// | `terminated` | `N` | 1 where the game ended at this step |
/// | `truncated` | `N` | always 0: a game ends by its rules |
/// | `to_move` | `N` | 0 where the first player is to move, 1 the second |
/// | `final_observation` | `N * R * C * 2` with [`crate::Autoreset::SameStep`], else any size | where a game ended, its last observation (the step's own shows the next game) |
///
/// The viewer is the player to move in self-play and the learner against
/// an opponent.
pub struct Buffers<'a> {
    /// The boards as their viewers see them.
    pub observation: &'a mut [u8],
    /// The columns with room.
    pub action_mask: &'a mut [u8],
    /// The rewards of the step.
    pub rewards: &'a mut [f32],
    /// The games that ended at the step.
    pub terminated: &'a mut [u8],
    /// The games cut short (none).
    pub truncated: &'a mut [u8],
    /// The player to move.
    pub to_move: &'a mut [u8],
    /// The last observation of each game that ended, with same-step
    /// autoreset.
    pub final_observation: &'a mut [u8],
}

/// The sizes of one game's part of each buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub columns: usize,
    /// Rewards a game: 2 in self-play, 1 against an opponent.
    pub rewards: usize,
}

impl Layout {
    /// Values of one game's observation.
    pub fn planes(&self) -> usize {
        self.rows * self.columns * 2
    }

    /// Whether `out` holds `games` games' parts; `final_observation` only
    /// where `final_kept`.
    pub fn check(&self, out: &Buffers, games: usize, final_kept: bool) -> Result<(), BatchError> {
        let sizes = [
            ("observation", out.observation.len(), games * self.planes()),
            ("action_mask", out.action_mask.len(), games * self.columns),
            ("rewards", out.rewards.len(), games * self.rewards),
            ("terminated", out.terminated.len(), games),
            ("truncated", out.truncated.len(), games),
            ("to_move", out.to_move.len(), games),
        ];
        let kept = [(
            "final_observation",
            out.final_observation.len(),
            games * self.planes(),
        )];
        let needed = sizes.iter().chain(kept.iter().filter(|_| final_kept));
        for &(name, got, expected) in needed {
            if got != expected {
                return Err(BatchError::Buffer {
                    name,
                    expected,
                    got,
                });
            }
        }
        Ok(())
    }
}

/// Writes `p` as `viewer` sees it into `out` (one game's observation:
/// rows x columns x 2 bytes, the layout of [`Buffers`]' `observation`).
pub fn planes(p: &Position, viewer: Player, out: &mut [u8]) {
    let (mine, theirs) = (p.stones(viewer), p.stones(viewer.other()));
    let (rows, columns) = (p.rows() as usize, p.columns() as usize);
    let height = rows + 1;
    for (r, row) in out.chunks_exact_mut(columns * 2).enumerate() {
        let up = rows - 1 - r;
        for (c, cell) in row.chunks_exact_mut(2).enumerate() {
            let bit = 1u64 << (c * height + up);
            cell[0] = u8::from(mine & bit != 0);
            cell[1] = u8::from(theirs & bit != 0);
        }
    }
}

/// Writes the columns with room in `p` into `out` (one byte a column).
pub fn mask(p: &Position, out: &mut [u8]) {
    for (c, m) in out.iter_mut().enumerate() {
        *m = u8::from(p.can_play(c as u32));
    }
}

/// The index of `player` in the rewards and `to_move`.
pub(crate) fn index(player: Player) -> usize {
    match player {
        Player::First => 0,
        Player::Second => 1,
    }
}
