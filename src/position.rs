//! The bitboard position: two 64-bit words, as in the reference solvers.
//!
//! # Layout
//!
//! Each column takes `rows + 1` consecutive bits, bottom cell first; the extra
//! bit on top of each column is a sentinel that is never set, so that lines
//! can be found with shifts without wrapping from one column into the next.
//! On the standard 7 x 6 board (bit index shown per cell):
//!
//! ```text
//!   .  .  .  .  .  .  .     <- sentinel row (always 0)
//!   5 12 19 26 33 40 47
//!   4 11 18 25 32 39 46
//!   3 10 17 24 31 38 45
//!   2  9 16 23 30 37 44
//!   1  8 15 22 29 36 43
//!   0  7 14 21 28 35 42     <- bottom row
//!   1  2  3  4  5  6  7     <- columns as players name them (1-based)
//! ```
//!
//! A position is two words: `mask`, every occupied cell, and `current`, the
//! stones of the side to move. Playing column `c` adds the lowest free cell of
//! `c` to `mask` (`mask + bottom(c)` carries into it) and swaps sides with
//! `current ^= mask`.
//!
//! # Key
//!
//! `key = current + mask`. Per column, `mask` is `2^h - 1` for a column of
//! height `h`, so `current + mask` lies in `[2^h - 1, 2^(h+1) - 2]`: the ranges
//! of different heights are disjoint and never carry into the next column,
//! which makes the key unique. Example: a column holding (bottom to top) the
//! side to move's stone then the opponent's has `mask = 0b11`, `current = 0b01`
//! and contributes `0b100`. The key fits in `columns * (rows + 1)` bits, 49 on
//! the standard board.
//!
//! Lines are found with the shift trick: for a direction with bit step `d`,
//! `b & (b >> d)` marks the starts of two in a row, and so on. Steps are `1`
//! (vertical), `rows + 1` (horizontal), `rows` (diagonal down-right) and
//! `rows + 2` (diagonal up-right).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::rules::Rules;

/// One of the two players.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Player {
    /// The player who moves first (`1` on a grid, `X` on the ASCII board).
    First,
    /// The player who moves second (`2` on a grid, `O` on the ASCII board).
    Second,
}

impl Player {
    /// The other player.
    pub const fn other(self) -> Player {
        match self {
            Player::First => Player::Second,
            Player::Second => Player::First,
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Player::First => "first player",
            Player::Second => "second player",
        })
    }
}

/// Whether a game goes on, and how it ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// The game goes on.
    Ongoing,
    /// The given player completed a line with the last move.
    Won(Player),
    /// The board is full and nobody has a line.
    Draw,
}

/// A Connect-4 position on any supported board, as two bitboards.
///
/// A position does not know its history; [`crate::game`] parses and
/// formats move sequences. Methods that take a column use 0-based columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// Stones of the side to move.
    current: u64,
    /// Every occupied cell.
    mask: u64,
    /// One bit at the bottom of each column.
    bottom: u64,
    /// Every playable cell (no sentinels).
    board: u64,
    /// Stones played so far.
    moves: u8,
    /// Bits per column: rows + 1.
    height: u8,
    columns: u8,
    rows: u8,
    inarow: u8,
}

/// The cells of the bitboard `b`, one single-bit bitboard each, lowest
/// first (the cells of [`Position::possible`] are moves for
/// [`Position::play_cell`]).
#[inline]
pub fn cells(b: u64) -> impl Iterator<Item = u64> {
    std::iter::successors((b != 0).then_some(b), |&rest| {
        let rest = rest & (rest - 1);
        (rest != 0).then_some(rest)
    })
    .map(|rest| rest & rest.wrapping_neg())
}

/// `b` shifted towards higher bits by `s`, zero once `s` reaches the word size.
#[inline(always)]
fn up(b: u64, s: u32) -> u64 {
    b.checked_shl(s).unwrap_or(0)
}

/// `b` shifted towards lower bits by `s`, zero once `s` reaches the word size.
#[inline(always)]
fn down(b: u64, s: u32) -> u64 {
    b.checked_shr(s).unwrap_or(0)
}

impl Position {
    /// The empty board of the given rules.
    pub fn new(rules: Rules) -> Position {
        let height = rules.column_height();
        let bottom = (0..rules.columns()).fold(0u64, |b, c| b | 1u64 << (c * height));
        let board = bottom * ((1u64 << rules.rows()) - 1);
        Position {
            current: 0,
            mask: 0,
            bottom,
            board,
            moves: 0,
            height: height as u8,
            columns: rules.columns() as u8,
            rows: rules.rows() as u8,
            inarow: rules.inarow() as u8,
        }
    }

    /// The rules this position is played by.
    pub fn rules(&self) -> Rules {
        Rules::new(self.columns.into(), self.rows.into(), self.inarow.into())
            .expect("a position is only built from valid rules")
    }

    /// Number of columns.
    #[inline]
    pub fn columns(&self) -> u32 {
        self.columns.into()
    }

    /// Number of rows.
    #[inline]
    pub fn rows(&self) -> u32 {
        self.rows.into()
    }

    /// Stones in a row that win.
    #[inline]
    pub fn inarow(&self) -> u32 {
        self.inarow.into()
    }

    /// Stones played so far (the ply).
    #[inline]
    pub fn moves_played(&self) -> u32 {
        self.moves.into()
    }

    /// The player whose turn it is.
    #[inline]
    pub fn side_to_move(&self) -> Player {
        if self.moves.is_multiple_of(2) {
            Player::First
        } else {
            Player::Second
        }
    }

    /// Stones of the side to move.
    #[inline]
    pub fn current_stones(&self) -> u64 {
        self.current
    }

    /// Stones of the side that just moved.
    #[inline]
    pub fn opponent_stones(&self) -> u64 {
        self.current ^ self.mask
    }

    /// Every occupied cell.
    #[inline]
    pub fn occupied(&self) -> u64 {
        self.mask
    }

    /// Every cell of the board (sentinels excluded).
    #[inline]
    pub fn board_mask(&self) -> u64 {
        self.board
    }

    /// The stones of `player`.
    pub fn stones(&self, player: Player) -> u64 {
        if player == self.side_to_move() {
            self.current
        } else {
            self.opponent_stones()
        }
    }

    /// The bit of the cell at `column` (0-based) and `row` (0 is the bottom).
    #[inline]
    pub fn cell_bit(&self, column: u32, row: u32) -> u64 {
        1u64 << (column * u32::from(self.height) + row)
    }

    /// The cells of every column whose row (0 at the bottom) has its bit set
    /// in `rows`: `rows_mask(0b1)` is the bottom row.
    #[inline]
    pub fn rows_mask(&self, rows: u64) -> u64 {
        self.bottom * (rows & ((1u64 << self.rows) - 1))
    }

    /// The cells of the odd rows, counted from 1 at the bottom (rows 1, 3,
    /// 5, ...): those the first player gets under claimeven.
    #[inline]
    pub fn odd_rows(&self) -> u64 {
        self.rows_mask(0x5555_5555_5555_5555)
    }

    /// The cells of the even rows, counted from 1 at the bottom (rows 2, 4,
    /// 6, ...): those the second player claims.
    #[inline]
    pub fn even_rows(&self) -> u64 {
        self.rows_mask(0xaaaa_aaaa_aaaa_aaaa)
    }

    /// On a board of an even number of rows, where the zugzwang arguments
    /// (claimeven, the odd threat) hold, whether the first player is to
    /// move; `None` on a board of an odd number of rows.
    #[inline]
    pub fn zugzwang_parity(&self) -> Option<bool> {
        self.rows
            .is_multiple_of(2)
            .then_some(self.moves.is_multiple_of(2))
    }

    /// The sentinel bit above `cell`'s column (the bit past its top cell):
    /// the cells of the column above `cell` are the bits between them.
    #[inline]
    fn sentinel_above(&self, cell: u64) -> u64 {
        let higher = (self.bottom << self.rows) & !(cell | (cell - 1));
        higher & higher.wrapping_neg()
    }

    /// All cells of a column.
    #[inline]
    pub fn column_mask(&self, column: u32) -> u64 {
        ((1u64 << self.rows) - 1) << (column * u32::from(self.height))
    }

    /// Stones in `column`.
    pub fn column_height(&self, column: u32) -> u32 {
        (self.mask & self.column_mask(column)).count_ones()
    }

    /// Whether `column` exists and is not full.
    #[inline]
    pub fn can_play(&self, column: u32) -> bool {
        column < u32::from(self.columns) && self.mask & self.cell_bit(column, self.rows() - 1) == 0
    }

    /// The cells where a stone may be dropped now, one per non-full column.
    #[inline]
    pub fn possible(&self) -> u64 {
        (self.mask + self.bottom) & self.board
    }

    /// Legal columns (0-based), left to right. Empty when the game is over.
    pub fn legal_moves(&self) -> Vec<u32> {
        if self.is_over() {
            return Vec::new();
        }
        (0..self.columns()).filter(|&c| self.can_play(c)).collect()
    }

    /// Plays `column` (0-based). The column must be playable.
    #[inline]
    pub fn play(&mut self, column: u32) {
        debug_assert!(self.can_play(column), "column {column} is not playable");
        let cell =
            (self.mask + (self.bottom & self.column_mask(column))) & self.column_mask(column);
        self.play_cell(cell);
    }

    /// Plays the stone on `cell`, a single bit of [`Position::possible`].
    #[inline]
    pub fn play_cell(&mut self, cell: u64) {
        self.current ^= self.mask;
        self.mask |= cell;
        self.moves += 1;
    }

    /// The column (0-based) of a single-cell bitboard.
    #[inline]
    pub fn column_of(&self, cell: u64) -> u32 {
        cell.trailing_zeros() / u32::from(self.height)
    }

    /// Whether the stones in `b` contain a line of `inarow`.
    #[inline]
    pub fn has_line(&self, b: u64) -> bool {
        self.line_steps()
            .iter()
            .any(|&step| self.line_starts(b, step) != 0)
    }

    /// How far apart the bits of a line's cells lie, one for each
    /// direction: up, across, and the two diagonals.
    #[inline]
    pub fn line_steps(&self) -> [u32; 4] {
        let h = u32::from(self.height);
        [1, h, h - 1, h + 1]
    }

    /// The cells of `b` that start a line of `inarow` cells of `b`, each
    /// `step` bits above the last (one of [`Position::line_steps`]): a line
    /// is named by its lowest cell.
    #[inline]
    pub fn line_starts(&self, b: u64, step: u32) -> u64 {
        if self.inarow == 4 {
            let m = b & (b >> step);
            m & (m >> (2 * step))
        } else {
            // `run` marks the cells that start `len` cells of `b` in a row.
            let k = u32::from(self.inarow);
            let (mut run, mut len) = (b, 1);
            while len < k {
                let t = len.min(k - len);
                run &= down(run, t * step);
                len += t;
            }
            run
        }
    }

    /// Whether the side to move can be kept from ever making a line by
    /// the opponent's *claimeven* (answering each move in the same column,
    /// one cell up): on a board of an even number of rows, with the first
    /// player to move, the opponent can see to it that the side to move
    /// only ever gets the cells of odd rows (from 1 at the bottom) and the
    /// cells it may play now (one per column). If its stones and those
    /// cells hold no line, it cannot win: its score is at most 0.
    ///
    /// Why the opponent can: the number of columns holding an odd number of
    /// stones is even (the stones are). A move on an odd row is answered
    /// on the even row above it (there is one: the top row is even). A move
    /// on an even row can only be the playable cell of a column with an
    /// odd number of stones; it is answered on the playable cell of
    /// another such column. Either way every column then holds an even
    /// number of stones again, so the side to move only ever gets odd rows
    /// and the cells playable now.
    #[inline]
    pub fn claimeven_denies_a_line(&self) -> bool {
        if self.zugzwang_parity() != Some(true) {
            return false;
        }
        let reachable = self.current_stones() | (self.odd_rows() & !self.mask) | self.possible();
        !self.has_line(reachable)
    }

    /// Where [`Position::claimeven_denies_a_line`] holds, whether the
    /// opponent's claimeven also gives it a line: its stones and the empty
    /// cells of even rows not playable now (every one of which it takes
    /// as the board fills) hold one. Then the side to move, which cannot
    /// win, loses by the last move at the latest: its score is at most -1.
    #[inline]
    pub fn claimeven_gives_the_opponent_a_line(&self) -> bool {
        let claimed = self.opponent_stones() | (self.even_rows() & !self.mask & !self.possible());
        self.has_line(claimed)
    }

    /// Whether the opponent, the first player, wins by an *odd threat* and
    /// zugzwang: on a board of an even number of rows, with the second
    /// player to move, a column holding an odd number of stones has, on an
    /// odd row (from 1 at the bottom) above them, a cell where the first
    /// player would complete a line; and the second player's stones, the
    /// empty cells of odd rows in the other columns, the cells playable now
    /// in the other columns and the empty cells of even rows below the
    /// threat hold no line. Then the first player wins, by the time the
    /// threat's cell is played at the latest: the number of stones then on
    /// the board (the board's cells less the cells above the threat) is
    /// what this returns, for the lowest such threat; `None` where no
    /// threat wins so.
    ///
    /// Why: the first player answers every move. A move on an odd row of
    /// another column is answered on the even row above it (there is one:
    /// the top row is even). A move on an even row of another column can
    /// only be the playable cell of a column with an odd number of stones;
    /// an odd number of columns hold one (the stones are odd), the
    /// threat's among them, so another such column is answered on its
    /// playable cell. A move in the threat's column is on an even row and
    /// is answered on the odd row above it, which is the threat at last.
    /// So the second player only ever gets the cells named above and never
    /// makes a line, and when the other columns are full it must play
    /// under the threat. This is the first player's half of claimeven.
    #[inline]
    pub fn odd_threat_win(&self) -> Option<u32> {
        self.odd_threat_win_among(self.opponent_winning_cells())
    }

    /// [`Position::odd_threat_win`] for the opponent's threats among
    /// `threats` (empty cells where it would complete a line; the solver
    /// has them at hand): any of them, or all, may be left out.
    #[inline]
    pub fn odd_threat_win_among(&self, threats: u64) -> Option<u32> {
        if self.zugzwang_parity() != Some(false) {
            return None;
        }
        let odd_rows = self.odd_rows();
        let possible = self.possible();
        let threats = threats & odd_rows & !possible;
        if threats == 0 {
            return None;
        }
        let empty = self.board & !self.mask;
        // The most cells above a winning threat in its column.
        let mut most_above: Option<u32> = None;
        let mut left = threats;
        while left != 0 {
            let threat = left & left.wrapping_neg();
            // The threat's column: its playable cell (the highest one
            // below the threat) and the empty cells from there up.
            let below = possible & (threat - 1);
            let playable = 1u64 << (63 - below.leading_zeros());
            let column = self.sentinel_above(threat) - playable;
            // The lowest threat of a column is the one to take.
            left &= !column;
            // A column of an odd number of stones has its playable cell on
            // an even row.
            if playable & odd_rows != 0 {
                continue;
            }
            let under = (threat - playable) & !odd_rows;
            let claimed = self.current | ((odd_rows & empty | possible) & !column) | under;
            let above = (column & !(threat | (threat - 1))).count_ones();
            if most_above.is_none_or(|a| above > a) && !self.has_line(claimed) {
                most_above = Some(above);
            }
        }
        most_above.map(|above| self.board.count_ones() - above)
    }

    /// The cells of `cells` (at most one a column) that have a cell of
    /// `above` higher up in their column.
    #[inline]
    pub fn under_any(&self, cells: u64, above: u64) -> u64 {
        crate::position::cells(cells)
            .filter(|&cell| above & (self.sentinel_above(cell) - (cell << 1)) != 0)
            .fold(0, |m, cell| m | cell)
    }

    /// Whether the side that just moved has a line (the last move won).
    #[inline]
    pub fn last_move_won(&self) -> bool {
        self.has_line(self.opponent_stones())
    }

    /// Whether every cell is filled.
    #[inline]
    pub fn is_full(&self) -> bool {
        self.mask == self.board
    }

    /// Whether the game is over, by a win or a full board.
    pub fn is_over(&self) -> bool {
        self.status() != Status::Ongoing
    }

    /// How the game stands.
    pub fn status(&self) -> Status {
        if self.moves > 0 && self.last_move_won() {
            Status::Won(self.side_to_move().other())
        } else if self.is_full() {
            Status::Draw
        } else {
            Status::Ongoing
        }
    }

    /// Empty cells where the owner of `b` would complete a line.
    #[inline]
    pub fn winning_cells(&self, b: u64) -> u64 {
        self.winning_cells_among(b, self.mask)
    }

    /// Cells outside `occupied` where the owner of `b` would complete a line.
    #[inline(always)]
    pub fn winning_cells_among(&self, b: u64, occupied: u64) -> u64 {
        let h = u32::from(self.height);
        let free = self.board & !occupied;
        if self.inarow == 4 {
            // The standard board's column height as a constant: its shifts
            // become immediates, in the function the solver spends most in.
            let r = if h == 7 { fours(b, 7) } else { fours(b, h) };
            return r & free;
        }
        self.winning_cells_of_any_length(b) & free
    }

    /// [`Position::winning_cells_among`] for lines of any length, occupied
    /// cells included: kept out of line, the solver's callers inline the
    /// four-in-a-row case alone.
    #[inline(never)]
    fn winning_cells_of_any_length(&self, b: u64) -> u64 {
        let h = u32::from(self.height);
        let k = u32::from(self.inarow);
        let mut r = 0;
        for d in [1, h, h - 1, h + 1] {
            // before[j]: the j cells before are own; after[j]: the j cells after.
            let mut before = [u64::MAX; 16];
            let mut after = [u64::MAX; 16];
            for j in 1..k as usize {
                let s = j as u32 * d;
                before[j] = before[j - 1] & up(b, s);
                after[j] = after[j - 1] & down(b, s);
            }
            for j in 0..k as usize {
                r |= before[j] & after[k as usize - 1 - j];
            }
        }
        r
    }

    /// Cells where the side to move would complete a line.
    #[inline]
    pub fn own_winning_cells(&self) -> u64 {
        self.winning_cells(self.current)
    }

    /// Cells where the opponent would complete a line.
    #[inline]
    pub fn opponent_winning_cells(&self) -> u64 {
        self.winning_cells(self.opponent_stones())
    }

    /// Playable cells that win at once for the side to move.
    #[inline]
    pub fn winning_moves(&self) -> u64 {
        self.own_winning_cells() & self.possible()
    }

    /// Whether the side to move wins at once by playing `column`.
    pub fn is_winning_move(&self, column: u32) -> bool {
        self.can_play(column) && self.winning_moves() & self.column_mask(column) != 0
    }

    /// Playable cells that do not hand the opponent a win on the next move.
    ///
    /// Assumes the side to move cannot win at once (check
    /// [`Position::winning_moves`] first). If the opponent threatens one
    /// playable cell, only that cell is returned (if playing it does not open
    /// another threat right above); if it threatens two, the result is empty.
    #[inline]
    pub fn non_losing_moves(&self) -> u64 {
        non_losing(self.possible(), self.opponent_winning_cells())
    }

    /// The first of `moves` (cells of moves that do not lose at once)
    /// after which the opponent has no move that does not lose at once: a
    /// win with the stone after next. 0 if there is none. Only for
    /// positions with at least three empty cells (with fewer, such a move
    /// may fill the board instead).
    #[inline]
    pub fn move_leaving_no_defence(&self, moves: u64) -> u64 {
        cells(moves)
            .find(|&cell| self.leaves_no_defence(cell, self.threats_after(cell)))
            .unwrap_or(0)
    }

    /// Whether the opponent has no move that does not lose at once after
    /// the side to move plays `cell`, where it then threatens `threats`
    /// (see [`Position::threats_after`]).
    #[inline(always)]
    pub fn leaves_no_defence(&self, cell: u64, threats: u64) -> bool {
        non_losing(self.possible_after(cell), threats) == 0
    }

    /// The empty cells the side to move would threaten (could complete a
    /// line on) after playing `cell`; the solver orders moves by them.
    #[inline]
    pub fn threats_after(&self, cell: u64) -> u64 {
        self.winning_cells_among(self.current | cell, self.mask | cell)
    }

    /// The cells where a stone may be dropped after a stone at `cell`.
    #[inline]
    pub fn possible_after(&self, cell: u64) -> u64 {
        ((self.mask | cell) + self.bottom) & self.board
    }

    /// A key unique to this position among positions of the same rules.
    #[inline]
    pub fn key(&self) -> u64 {
        self.current + self.mask
    }

    /// The key of the mirror image (columns reversed).
    #[inline]
    pub fn mirror_key(&self) -> u64 {
        let (h, n) = (u32::from(self.height), u32::from(self.columns));
        // The standard board's sizes as constants: the loop unrolls into
        // shifts by immediates (the solver asks for this key at every node
        // of the first 14 plies, and for each child's).
        if (h, n) == (7, 7) {
            reverse_columns(self.key(), 7, 7)
        } else {
            reverse_columns(self.key(), h, n)
        }
    }

    /// The mirror image of this position (columns reversed).
    pub fn mirrored(&self) -> Position {
        let (h, n) = (u32::from(self.height), u32::from(self.columns));
        Position {
            current: reverse_columns(self.current, h, n),
            mask: reverse_columns(self.mask, h, n),
            ..*self
        }
    }

    /// Number of empty cells.
    pub fn empty_cells(&self) -> u32 {
        u32::from(self.columns) * u32::from(self.rows) - u32::from(self.moves)
    }

    /// Builds a position from the stones of each player, which the caller
    /// has checked to be reachable.
    pub(crate) fn from_stones(rules: Rules, first: u64, second: u64) -> Position {
        let mut p = Position::new(rules);
        p.mask = first | second;
        p.moves = (first | second).count_ones() as u8;
        p.current = if p.moves.is_multiple_of(2) {
            first
        } else {
            second
        };
        p
    }
}

/// Which of the playable cells `possible` do not hand the owner of the
/// winning cells `threats` a win on its next move (see
/// [`Position::non_losing_moves`]).
#[inline(always)]
pub fn non_losing(mut possible: u64, threats: u64) -> u64 {
    let forced = possible & threats;
    if forced != 0 {
        if forced & (forced - 1) != 0 {
            return 0;
        }
        possible = forced;
    }
    possible & !(threats >> 1)
}

/// `b` with its `n` columns of `h` bits in reverse order.
#[inline(always)]
fn reverse_columns(b: u64, h: u32, n: u32) -> u64 {
    let column = (1u64 << h) - 1;
    (0..n).fold(0, |m, c| m | ((b >> (c * h)) & column) << ((n - 1 - c) * h))
}

/// Cells (occupied or not) that would complete four in a row with the stones
/// of `b`, on a board whose columns are `h` bits apart.
#[inline(always)]
fn fours(b: u64, h: u32) -> u64 {
    // Vertical: three stones right below.
    let mut r = (b << 1) & (b << 2) & (b << 3);
    for d in [h, h - 1, h + 1] {
        // Pairs to the left (l2 marks a cell with two own stones right before it).
        let l1 = b << d;
        let l2 = l1 & (b << (2 * d));
        let r1 = b >> d;
        let r2 = r1 & (b >> (2 * d));
        r |= l2 & (b << (3 * d)); // three before
        r |= l2 & r1; // two before, one after
        r |= l1 & r2; // one before, two after
        r |= r2 & (b >> (3 * d)); // three after
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(rules: Rules, cols: &[u32]) -> Position {
        let mut p = Position::new(rules);
        for &c in cols {
            assert!(!p.is_over());
            p.play(c);
        }
        p
    }

    #[test]
    fn cells_are_the_single_bits_lowest_first() {
        assert_eq!(cells(0).count(), 0);
        assert_eq!(cells(0b1011).collect::<Vec<_>>(), vec![1, 2, 8]);
        assert_eq!(cells(1 << 63).collect::<Vec<_>>(), vec![1 << 63]);
        assert_eq!(cells(u64::MAX).count(), 64);
    }

    #[test]
    fn vertical_win() {
        let p = play(Rules::STANDARD, &[0, 1, 0, 1, 0, 1]);
        assert_eq!(p.winning_moves(), p.cell_bit(0, 3));
        assert!(p.is_winning_move(0));
        let mut q = p;
        q.play(0);
        assert_eq!(q.status(), Status::Won(Player::First));
    }

    #[test]
    fn horizontal_and_key() {
        let p = play(Rules::STANDARD, &[0, 0, 1, 1, 2, 2]);
        assert_eq!(p.winning_moves().count_ones(), 1);
        assert!(p.is_winning_move(3));
        assert_ne!(p.key(), p.mirror_key());
        assert_eq!(p.mirrored().key(), p.mirror_key());
        assert_eq!(p.mirrored().mirrored(), p);
    }

    #[test]
    fn forced_and_double_threat() {
        // The first player has 1,2,3 on the bottom row with both ends open.
        let p = play(Rules::STANDARD, &[1, 1, 2, 2, 3]);
        assert_eq!(p.side_to_move(), Player::Second);
        assert_eq!(p.non_losing_moves(), 0);
        let q = play(Rules::STANDARD, &[0, 0, 1, 1, 2]);
        assert_eq!(q.non_losing_moves(), q.cell_bit(3, 0));
    }

    #[test]
    fn full_board_draw_on_4x4_inarow_4() {
        let rules = Rules::new(4, 4, 4).unwrap();
        // Columns read X O X O, X O X O, O X O X, O X O X (bottom up): no line.
        let p = play(rules, &[0, 2, 2, 0, 0, 2, 2, 0, 1, 3, 3, 1, 1, 3, 3, 1]);
        assert_eq!(p.status(), Status::Draw);
        assert!(p.legal_moves().is_empty());
    }
}
