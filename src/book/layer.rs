//! A layer: every position of one ply, numbered densely, with its outcome
//! and a move that keeps it.
//!
//! The book's strategy trees cover perfect play, but an opponent who errs
//! leaves them, and from ply 8 to 11 a position off the trees can take the
//! solver seconds to prove, far more than a clock gives. A layer covers
//! every reachable position of its ply: the solver takes its outcomes as
//! bounds, so a position a few plies earlier is proved in a few hundred
//! nodes, and a position of the layer itself is played at once.
//!
//! # Numbering
//!
//! A position of `L` plies has a *shape*, the heights of its columns (they
//! sum to `L`), and a *colouring*: which of its `L` stones, taken column by
//! column from the left and bottom to top within a column, are the first
//! player's (`ceil(L / 2)` of them). A position and its mirror image share
//! one slot, the one of the position whose shape, read from the left, is
//! not greater than read from the right (for a symmetric shape, the one of
//! the smaller key, as the book's entries are folded). The canonical shapes
//! are numbered in increasing order, the colourings by the combinatorial
//! number system (the `j`-th first-player stone, counting from 1, at index
//! `s` adds `C(s, j)`), and a position's slot is its shape's number times
//! the colourings per shape plus its colouring's number. On the standard
//! board, ply 11 has 2,529,912 slots for its 2,148,087 positions (counting
//! a mirror pair once), so no key needs storing.
//!
//! # Values
//!
//! Four bits a slot, two slots a byte (the even slot in the low bits):
//! 0 unknown (not solved yet, not a position a game can reach, or the side
//! to move wins at once), 1 a loss, `2 + c` a draw kept by column `c`,
//! `9 + c` a win kept by column `c` (0-based, in the frame of the slot's
//! position). That fits boards of at most [`MAX_COLUMNS`] columns.

use std::borrow::Cow;
use std::fmt;

use super::BookError;
use super::format::FormatError;
use crate::position::Position;
use crate::rules::Rules;
use crate::score::Outcome;

/// Layers are stored for boards of at most this many columns (four bits
/// hold a slot's value).
pub const MAX_COLUMNS: u32 = 7;

/// Layers of more slots than this are refused (half a byte each).
pub const MAX_SLOTS: u64 = 1 << 33;

/// The value of a slot nobody solved.
const UNKNOWN: u8 = 0;
/// The value of a lost position.
const LOSS: u8 = 1;
/// The value of a draw kept by column 0.
const DRAW_BASE: u8 = 2;
/// The value of a win kept by column 0.
const WIN_BASE: u8 = 9;

/// What a layer knows of a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayerMove {
    /// The outcome, from the side to move.
    pub outcome: Outcome,
    /// A move that keeps it (0-based column, for the position as given);
    /// none for a loss, where every move does.
    pub column: Option<u32>,
}

/// Every position of one ply on one board, numbered, with what is known of
/// each (see the module's documentation).
#[derive(Clone, PartialEq, Eq)]
pub struct Layer {
    rules: Rules,
    ply: u32,
    /// Canonical shapes, four bits a column, column 0 highest, ascending.
    shapes: Vec<u64>,
    /// Colourings of one shape: `C(ply, ceil(ply / 2))`.
    colourings: u64,
    /// `binomials[n][k]` = `C(n, k)` for `n <= ply`, `k <= ceil(ply / 2)`.
    binomials: Vec<Vec<u64>>,
    /// Two slots a byte: borrowed from the binary for the shipped book
    /// (read in place, never copied), owned once anything is inserted.
    values: Cow<'static, [u8]>,
}

impl fmt::Debug for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Layer")
            .field("rules", &self.rules)
            .field("ply", &self.ply)
            .field("slots", &self.slots())
            .field("known", &self.known())
            .finish()
    }
}

/// `heights` packed four bits a column, column 0 highest.
fn pack(heights: &[u32]) -> u64 {
    heights.iter().fold(0, |s, &h| s << 4 | u64::from(h))
}

/// A packed shape read from the other side.
fn reverse(shape: u64, columns: u32) -> u64 {
    (0..columns).fold(0, |r, c| r << 4 | (shape >> (4 * c) & 0xf))
}

/// Every canonical shape of `ply` stones on `rules`' board, ascending.
fn canonical_shapes(rules: Rules, ply: u32) -> Vec<u64> {
    fn extend(rules: Rules, heights: &mut Vec<u32>, left: u32, out: &mut Vec<u64>) {
        let column = heights.len() as u32;
        if column == rules.columns() {
            let shape = pack(heights);
            if left == 0 && shape <= reverse(shape, rules.columns()) {
                out.push(shape);
            }
            return;
        }
        // The columns still to fill must be able to hold what is left.
        let after = (rules.columns() - column - 1) * rules.rows();
        for h in left.saturating_sub(after)..=left.min(rules.rows()) {
            heights.push(h);
            extend(rules, heights, left - h, out);
            heights.pop();
        }
    }
    let mut out = Vec::new();
    extend(rules, &mut Vec::new(), ply, &mut out);
    out.sort_unstable();
    out
}

impl Layer {
    /// An empty layer (every slot unknown) of the positions of `ply` plies
    /// on `rules`' board.
    pub fn new(rules: Rules, ply: u32) -> Result<Layer, BookError> {
        let mut layer = Layer::numbering(rules, ply)?;
        layer.values = Cow::Owned(vec![0; layer.value_bytes()]);
        Ok(layer)
    }

    /// The numbering of the positions of `ply` plies on `rules`' board,
    /// without values yet; what is wrong if such a layer cannot be.
    fn numbering(rules: Rules, ply: u32) -> Result<Layer, BookError> {
        let refuse = |reason: String| BookError::Layer { rules, ply, reason };
        if rules.columns() > MAX_COLUMNS {
            return Err(refuse(format!(
                "layers are stored for boards of at most {MAX_COLUMNS} columns"
            )));
        }
        if ply == 0 || ply >= rules.cells() {
            return Err(refuse(format!(
                "the ply must be between 1 and {} on this board",
                rules.cells() - 1
            )));
        }
        let first = ply.div_ceil(2) as usize;
        let mut binomials = vec![vec![0u64; first + 1]; ply as usize + 1];
        for n in 0..=ply as usize {
            binomials[n][0] = 1;
            for k in 1..=first.min(n) {
                binomials[n][k] = binomials[n - 1][k - 1] + binomials[n - 1].get(k).unwrap_or(&0);
            }
        }
        let colourings = binomials[ply as usize][first];
        let shapes = canonical_shapes(rules, ply);
        let slots = (shapes.len() as u128) * u128::from(colourings);
        if slots > u128::from(MAX_SLOTS) {
            return Err(refuse(format!(
                "it would have {slots} slots, more than the {MAX_SLOTS} a layer may have"
            )));
        }
        Ok(Layer {
            rules,
            ply,
            shapes,
            colourings,
            binomials,
            values: Cow::Borrowed(&[]),
        })
    }

    /// The bytes that hold the layer's values: two slots a byte.
    fn value_bytes(&self) -> usize {
        (self.slots() as usize).div_ceil(2)
    }

    /// The board.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The stones of every position of the layer.
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// How many slots the layer numbers.
    pub fn slots(&self) -> u64 {
        self.shapes.len() as u64 * self.colourings
    }

    /// How many slots hold a solved position.
    pub fn known(&self) -> u64 {
        self.values
            .iter()
            .map(|&b| u64::from(b & 0xf != 0) + u64::from(b >> 4 != 0))
            .sum()
    }

    /// The slot of `p` and whether it holds `p`'s mirror image; `None` for a
    /// position of another ply or board.
    pub fn slot_of(&self, p: &Position) -> Option<(u64, bool)> {
        let rules = self.rules;
        if p.moves_played() != self.ply
            || (p.columns(), p.rows(), p.inarow())
                != (rules.columns(), rules.rows(), rules.inarow())
        {
            return None;
        }
        let shape = (0..p.columns()).fold(0, |s, c| s << 4 | u64::from(p.column_height(c)));
        let mirrored = match shape.cmp(&reverse(shape, p.columns())) {
            std::cmp::Ordering::Less => false,
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Equal => p.mirror_key() < p.key(),
        };
        let (canonical, shape) = if mirrored {
            (p.mirrored(), reverse(shape, p.columns()))
        } else {
            (*p, shape)
        };
        let index = self.shapes.binary_search(&shape).ok()? as u64;
        Some((
            index * self.colourings + self.colouring(&canonical),
            mirrored,
        ))
    }

    /// The number of `p`'s colouring among those of its shape.
    fn colouring(&self, p: &Position) -> u64 {
        let first = if self.ply.is_multiple_of(2) {
            p.current_stones()
        } else {
            p.opponent_stones()
        };
        let (mut index, mut chosen, mut rank) = (0, 0, 0);
        for c in 0..p.columns() {
            for r in 0..p.column_height(c) {
                if first & p.cell_bit(c, r) != 0 {
                    chosen += 1;
                    rank += self.binomials[index][chosen];
                }
                index += 1;
            }
        }
        rank
    }

    /// The position that `slot` numbers (in the slot's frame); it may be
    /// one no game reaches. `None` past the last slot.
    pub fn position_at(&self, slot: u64) -> Option<Position> {
        let shape = *self.shapes.get((slot / self.colourings) as usize)?;
        let mut rank = slot % self.colourings;
        // The first player's stones by index (bit i: the i-th stone),
        // largest first.
        let mut marked = 0u64;
        let mut s = self.ply as usize;
        for j in (1..=self.ply.div_ceil(2) as usize).rev() {
            s -= 1;
            while self.binomials[s][j] > rank {
                s -= 1;
            }
            marked |= 1 << s;
            rank -= self.binomials[s][j];
        }
        let p = Position::new(self.rules);
        let (mut first, mut second, mut index) = (0, 0, 0);
        for c in 0..self.rules.columns() {
            let height = (shape >> (4 * (self.rules.columns() - 1 - c)) & 0xf) as u32;
            for r in 0..height {
                if marked >> index & 1 == 1 {
                    first |= p.cell_bit(c, r);
                } else {
                    second |= p.cell_bit(c, r);
                }
                index += 1;
            }
        }
        Some(Position::from_stones(self.rules, first, second))
    }

    /// The value stored in `slot` (see the module's documentation).
    fn value(&self, slot: u64) -> u8 {
        self.values[(slot / 2) as usize] >> (4 * (slot % 2)) & 0xf
    }

    fn set_value(&mut self, slot: u64, value: u8) {
        let byte = &mut self.values.to_mut()[(slot / 2) as usize];
        let shift = 4 * (slot % 2);
        *byte = *byte & !(0xf << shift) | value << shift;
    }

    /// Whether the layer knows `p`.
    pub fn contains(&self, p: &Position) -> bool {
        self.slot_of(p)
            .is_some_and(|(slot, _)| self.value(slot) != UNKNOWN)
    }

    /// What the layer knows of `p`, if anything.
    pub fn lookup(&self, p: &Position) -> Option<LayerMove> {
        let (slot, mirrored) = self.slot_of(p)?;
        let (outcome, column) = self.decode(self.value(slot))?;
        let flip = |c: u32| if mirrored { p.columns() - 1 - c } else { c };
        Some(LayerMove {
            outcome,
            column: column.map(flip),
        })
    }

    /// The outcome and column (in the slot's frame) a value stands for.
    fn decode(&self, value: u8) -> Option<(Outcome, Option<u32>)> {
        match value {
            UNKNOWN => None,
            LOSS => Some((Outcome::Loss, None)),
            v if v < WIN_BASE => Some((Outcome::Draw, Some(u32::from(v - DRAW_BASE)))),
            v => Some((Outcome::Win, Some(u32::from(v - WIN_BASE)))),
        }
    }

    /// Records the outcome of `p` (a position of the layer) and, unless it
    /// is a loss, the column that keeps it (for `p` as given).
    ///
    /// # Panics
    /// If `p` is not of the layer's ply and board, or a win or draw comes
    /// without a legal column: callers solve the layer's own positions.
    pub fn insert(&mut self, p: &Position, outcome: Outcome, column: Option<u32>) {
        let (slot, mirrored) = self.slot_of(p).expect("a position of the layer");
        let value = match (outcome, column) {
            (Outcome::Loss, _) => LOSS,
            (_, Some(c)) => {
                assert!(p.can_play(c), "column {c} cannot be played");
                let c = if mirrored { p.columns() - 1 - c } else { c } as u8;
                if outcome == Outcome::Win {
                    WIN_BASE + c
                } else {
                    DRAW_BASE + c
                }
            }
            (_, None) => panic!("a win or draw is stored with the move that keeps it"),
        };
        self.set_value(slot, value);
    }

    /// Takes what `other` (a layer of the same ply and board) knows and this
    /// one does not. Where both know a slot, the outcomes must agree (the
    /// moves may differ: either keeps it).
    pub fn merge(&mut self, other: &Layer) -> Result<(), BookError> {
        if other.rules != self.rules || other.ply != self.ply {
            return Err(BookError::Layer {
                rules: other.rules,
                ply: other.ply,
                reason: format!(
                    "it cannot be merged into the layer of ply {} on the {} board",
                    self.ply, self.rules
                ),
            });
        }
        for slot in 0..self.slots() {
            let theirs = other.value(slot);
            let ours = self.value(slot);
            if theirs == UNKNOWN {
                continue;
            }
            if ours == UNKNOWN {
                self.set_value(slot, theirs);
                continue;
            }
            let (a, b) = (self.decode(ours), self.decode(theirs));
            if a.map(|d| d.0) != b.map(|d| d.0) {
                let position = self.position_at(slot).expect("a slot of the layer");
                return Err(BookError::Layer {
                    rules: self.rules,
                    ply: self.ply,
                    reason: format!(
                        "the two layers disagree on slot {slot} (position key {:#x}): {} \
                         against {}",
                        position.key(),
                        a.expect("known").0,
                        b.expect("known").0,
                    ),
                });
            }
        }
        Ok(())
    }

    /// The stored bytes: two slots a byte.
    pub(super) fn bytes(&self) -> &[u8] {
        &self.values
    }

    /// A layer from its stored bytes (borrowed as they are when they live
    /// as long as the program, as the shipped book's do); what is wrong if
    /// they are not a valid layer of that ply and board.
    pub(super) fn from_bytes(
        rules: Rules,
        ply: u32,
        bytes: Cow<'static, [u8]>,
    ) -> Result<Layer, FormatError> {
        let mut layer =
            Layer::numbering(rules, ply).map_err(|e| FormatError::NoLayer(Box::new(e)))?;
        if bytes.len() != layer.value_bytes() {
            return Err(FormatError::LayerLength {
                ply,
                expected: layer.value_bytes(),
                found: bytes.len(),
            });
        }
        layer.values = bytes;
        let columns = rules.columns() as u8;
        // On a board of MAX_COLUMNS columns every value names a column.
        let check = if rules.columns() < MAX_COLUMNS {
            layer.slots()
        } else {
            0
        };
        for slot in 0..check {
            let Some((_, Some(column))) = layer.decode(layer.value(slot)) else {
                continue;
            };
            if column >= u32::from(columns) {
                return Err(FormatError::LayerColumn {
                    slot,
                    ply,
                    column,
                    columns,
                });
            }
        }
        if layer.slots() % 2 == 1 && layer.values.last().is_some_and(|b| b >> 4 != 0) {
            return Err(FormatError::LayerPadding { ply });
        }
        Ok(layer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Game;

    fn position(rules: Rules, moves: &str) -> Position {
        *Game::from_move_string(rules, moves).unwrap().position()
    }

    #[test]
    fn the_standard_layers_have_the_documented_slots() {
        let layer = Layer::new(Rules::STANDARD, 11).unwrap();
        assert_eq!(layer.slots(), 2_529_912);
        assert_eq!(layer.bytes().len(), 1_264_956);
    }

    #[test]
    fn every_slot_numbers_its_own_position() {
        let rules = Rules::new(5, 4, 4).unwrap();
        for ply in 1..rules.cells() {
            let layer = Layer::new(rules, ply).unwrap();
            for slot in 0..layer.slots() {
                let p = layer.position_at(slot).unwrap();
                assert_eq!(p.moves_played(), ply);
                let (back, mirrored) = layer.slot_of(&p).unwrap();
                if mirrored {
                    // A symmetric shape numbers both images; the slot of
                    // the canonical one holds it.
                    let q = layer.position_at(back).unwrap();
                    assert_eq!(q.key(), p.mirror_key());
                    assert_eq!(layer.slot_of(&q), Some((back, false)));
                } else {
                    assert_eq!(back, slot, "ply {ply}");
                }
            }
            assert_eq!(layer.position_at(layer.slots()), None);
        }
    }

    #[test]
    fn a_position_and_its_mirror_share_a_slot() {
        let layer = Layer::new(Rules::STANDARD, 5).unwrap();
        let p = position(Rules::STANDARD, "11234");
        let (slot, mirrored) = layer.slot_of(&p).unwrap();
        let (other, other_mirrored) = layer.slot_of(&p.mirrored()).unwrap();
        assert_eq!(slot, other);
        assert_ne!(mirrored, other_mirrored);
        assert_eq!(layer.slot_of(&position(Rules::STANDARD, "1123")), None);
    }

    #[test]
    fn moves_come_back_in_the_frame_asked() {
        let mut layer = Layer::new(Rules::STANDARD, 3).unwrap();
        let p = position(Rules::STANDARD, "112");
        layer.insert(&p, Outcome::Win, Some(1));
        let win = |column| LayerMove {
            outcome: Outcome::Win,
            column: Some(column),
        };
        assert_eq!(layer.lookup(&p), Some(win(1)));
        assert_eq!(layer.lookup(&p.mirrored()), Some(win(5)));
        assert_eq!(layer.known(), 1);
        let q = position(Rules::STANDARD, "444");
        assert_eq!(layer.lookup(&q), None);
        layer.insert(&q, Outcome::Loss, None);
        assert_eq!(layer.lookup(&q).unwrap().column, None);
    }

    #[test]
    fn merging_keeps_both_and_refuses_a_contradiction() {
        let rules = Rules::STANDARD;
        let (p, q) = (position(rules, "112"), position(rules, "444"));
        let mut a = Layer::new(rules, 3).unwrap();
        let mut b = Layer::new(rules, 3).unwrap();
        a.insert(&p, Outcome::Draw, Some(3));
        b.insert(&p, Outcome::Draw, Some(2));
        b.insert(&q, Outcome::Win, Some(3));
        a.merge(&b).unwrap();
        assert_eq!(a.lookup(&p).unwrap().column, Some(3));
        assert_eq!(a.known(), 2);
        let mut c = Layer::new(rules, 3).unwrap();
        c.insert(&q, Outcome::Loss, None);
        let problem = a.merge(&c).unwrap_err().to_string();
        assert!(
            problem.contains("disagree") && problem.contains("win"),
            "{problem}"
        );
        let other = Layer::new(rules, 4).unwrap();
        assert!(a.merge(&other).is_err());
    }

    #[test]
    fn impossible_layers_are_refused_in_words() {
        let wide = Rules::new(8, 6, 4).unwrap();
        let problem = Layer::new(wide, 5).unwrap_err().to_string();
        assert!(problem.contains("at most 7 columns"), "{problem}");
        let problem = Layer::new(Rules::STANDARD, 42).unwrap_err().to_string();
        assert!(problem.contains("between 1 and 41"), "{problem}");
        let problem = Layer::new(Rules::STANDARD, 21).unwrap_err().to_string();
        assert!(problem.contains("slots"), "{problem}");
    }

    #[test]
    fn bytes_round_trip_and_bad_values_are_named() {
        let rules = Rules::new(5, 4, 4).unwrap();
        let mut layer = Layer::new(rules, 3).unwrap();
        layer.insert(&position(rules, "123"), Outcome::Win, Some(0));
        let back = Layer::from_bytes(rules, 3, Cow::Owned(layer.bytes().to_vec())).unwrap();
        assert_eq!(back, layer);
        let mut bad = layer.bytes().to_vec();
        bad[0] = WIN_BASE + 6;
        let problem = Layer::from_bytes(rules, 3, Cow::Owned(bad.clone()))
            .unwrap_err()
            .to_string();
        assert!(problem.contains("names column 6"), "{problem}");
        let problem = Layer::from_bytes(rules, 3, Cow::Owned(bad[1..].to_vec()))
            .unwrap_err()
            .to_string();
        assert!(problem.contains("should have"), "{problem}");
    }
}
