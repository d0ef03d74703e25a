//! The opening book: exact scores and best moves of the positions perfect
//! play can reach early in the game, made by our own solver.
//!
//! # What it holds
//!
//! For every position of at most 2 plies (the roots), the book holds the
//! strategy tree of each side that does not lose from there: at that side's
//! turns one best move (the highest exact score, so the fastest win or the
//! slowest loss), at the other side's turns every reply, down to the book's
//! depth. Every stored position carries its exact score and a best move, so
//! the engine can play from it without searching and the solver can take it
//! as an exact table entry. A position and its mirror image share one entry.
//! See [`crate::lab::book_build`] for how it is made.
//!
//! With deviations (see [`crate::lab::book_build`]), the side that loses at a root has its
//! tree too, early in the game, so that the winner's mistakes there find
//! the loser's answers in the book.
//!
//! Beyond the trees, a book may hold *layers* (see [`layer`]): for every
//! position a game reaches at one ply, its outcome and a move that keeps
//! it, so that a position off the trees a few plies earlier is proved at
//! once (the solver takes the outcomes as bounds).
//!
//! # File format (version 4)
//!
//! Little-endian throughout:
//!
//! ```text
//! offset  size  field
//!      0     8  magic "C4BOOK\0\n"
//!      8     2  version (4; versions 1 to 3 are still read, see below)
//!     10     1  columns
//!     11     1  rows
//!     12     1  in-a-row
//!     13     1  complete ply: every tree position up to this ply is stored
//!     14     1  deviations: the side that loses at a root has its tree
//!               down to this ply (0: none)
//!     15     1  reserved (0)
//!     16     8  entry count n
//!     24        n entries, sorted by key, no key twice, each:
//!                 varint   the key's gap from the previous entry's key
//!                          (the first entry's: from 0), unsigned LEB128
//!                          (7 bits a byte, low first, high bit = more);
//!                          the key is the smaller of the position's key
//!                          and its mirror image's key
//!                 1 byte   best column, 0-based, in the frame of that key
//!                 1 byte   exact score (signed), from the side to move
//!            1  layer count m
//!               m layers, by increasing ply, each:
//!                 1 byte   ply
//!                 8 bytes  slot count s (what the board and ply give)
//!                 ceil(s/2) bytes  four bits a slot, as in [`layer`]
//!    end-8   8  FNV-1a 64 hash of every byte before it
//! ```
//!
//! Version 3 is version 4 without the layer count and layers. Versions 1
//! and 2 stored each entry in 10 bytes (the key as 8 bytes, then column and
//! score); version 1's byte 14 was reserved and reads as deviations 0. The
//! gaps make the shipped book's entries 2.3 times smaller.

mod format;
pub mod layer;

use std::path::Path;
use std::sync::{Arc, OnceLock};

use crate::position::Position;
use crate::rules::Rules;

pub use format::{BookError, FormatError};
pub use layer::{Layer, LayerMove};

/// One stored position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    /// The folded key (see [`fold`]).
    key: u64,
    /// Best column in the frame of the folded key.
    column: u8,
    /// Exact score from the side to move.
    score: i8,
}

/// What the book knows of a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// A best move, 0-based column, for the position as given.
    pub column: u32,
    /// The exact score of the position, from the side to move.
    pub score: i32,
}

/// The book shipped with the engine, for the standard board.
#[cfg(shipped_book)]
static SHIPPED: &[u8] = include_bytes!("../../book/7x6x4.c4book");

/// No book: the package on crates.io leaves it out (see build.rs).
#[cfg(not(shipped_book))]
static SHIPPED: &[u8] = &[];

/// An opening book for one board size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Book {
    rules: Rules,
    complete_ply: u32,
    deviations: u32,
    /// The most plies of a stored position (0 when empty).
    deepest_ply: u32,
    /// Sorted by key, keys distinct.
    entries: Vec<Entry>,
    /// Layers of whole plies (see [`layer`]), by ply, one per ply.
    layers: Vec<Layer>,
}

/// The number of stones of the position whose key is `key` on `rules`'
/// board. A key is the side to move's stones plus the occupied cells, so
/// each column's bits (with their spare bit above the top) hold a number
/// from `2^h - 1` to `2^(h+1) - 2` for a column of `h` stones.
pub fn plies_of(key: u64, rules: Rules) -> u32 {
    let height = rules.column_height();
    let field = (1u64 << height) - 1;
    (0..rules.columns())
        .map(|c| 63 - (((key >> (c * height)) & field) + 1).leading_zeros())
        .sum()
}

/// The key a position is stored under, and whether that is its mirror
/// image's key (so columns are mirrored on the way in and out): a position
/// and its mirror image share it.
pub fn fold(p: &Position) -> (u64, bool) {
    let (key, mirror) = (p.key(), p.mirror_key());
    if mirror < key {
        (mirror, true)
    } else {
        (key, false)
    }
}

impl Book {
    /// An empty book for `rules`.
    pub fn new(rules: Rules) -> Book {
        Book {
            rules,
            complete_ply: 0,
            deviations: 0,
            deepest_ply: 0,
            entries: Vec::new(),
            layers: Vec::new(),
        }
    }

    /// The book that ships with the engine (standard board), read once;
    /// an empty one in the package on crates.io, which leaves it out.
    pub fn shipped() -> Arc<Book> {
        static SHIPPED_BOOK: OnceLock<Arc<Book>> = OnceLock::new();
        Arc::clone(SHIPPED_BOOK.get_or_init(|| {
            // A test reads the shipped bytes and checks their hash, so this
            // cannot fail in a build that passed its tests; an empty book is
            // the safe fallback. The layers stay where the program holds
            // them: a process that reads the book pays for the pages it
            // touches, not for a copy of every layer.
            Arc::new(
                format::decode_embedded(SHIPPED).unwrap_or_else(|_| Book::new(Rules::STANDARD)),
            )
        }))
    }

    /// Reads a book file; errors name the file and what is wrong with it.
    pub fn load(path: &Path) -> Result<Book, BookError> {
        format::load(path)
    }

    /// Writes the book to `path` atomically (a temporary file, then a rename).
    pub fn save(&self, path: &Path) -> Result<(), BookError> {
        format::save(self, path)
    }

    /// Parses a book from its bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Book, BookError> {
        format::decode(bytes)
    }

    /// The book's bytes in the file format.
    pub fn to_bytes(&self) -> Vec<u8> {
        format::encode(self)
    }

    /// The board the book is for.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// Every tree position up to this ply is in the book.
    pub fn complete_ply(&self) -> u32 {
        self.complete_ply
    }

    /// Records that every tree position up to `ply` is stored (at most the
    /// board's cells: no game is longer).
    pub fn set_complete_ply(&mut self, ply: u32) {
        self.complete_ply = ply.min(self.rules.cells());
    }

    /// The side that loses at a root has its tree down to this ply (0:
    /// none), which covers the winner's mistakes before it: see [`crate::lab::book_build`].
    pub fn deviations(&self) -> u32 {
        self.deviations
    }

    /// Sets the ply down to which the losing sides' trees go (at most the
    /// board's cells).
    pub fn set_deviations(&mut self, ply: u32) {
        self.deviations = ply.min(self.rules.cells());
    }

    /// The most plies of any stored position: the book has nothing to say
    /// about deeper ones.
    pub fn deepest_ply(&self) -> u32 {
        self.deepest_ply
    }

    /// Number of stored positions.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the book holds no entry and no layer.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty() && self.layers.is_empty()
    }

    /// The book's layers, by ply.
    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }

    /// The layer of `ply`, if the book has one.
    pub fn layer(&self, ply: u32) -> Option<&Layer> {
        self.layers.iter().find(|l| l.ply() == ply)
    }

    /// The layer of `ply`, made empty first if the book has none.
    pub fn layer_mut(&mut self, ply: u32) -> Result<&mut Layer, BookError> {
        let i = match self.layers.iter().position(|l| l.ply() >= ply) {
            Some(i) if self.layers[i].ply() == ply => i,
            found => {
                let i = found.unwrap_or(self.layers.len());
                self.layers.insert(i, Layer::new(self.rules, ply)?);
                i
            }
        };
        Ok(&mut self.layers[i])
    }

    /// What the layer of `p`'s ply knows of `p`, if the book has one.
    #[inline]
    pub fn layer_move(&self, p: &Position) -> Option<LayerMove> {
        self.layer(p.moves_played())?.lookup(p)
    }

    /// The best move and exact score of `p`, if the book holds it (and is
    /// for `p`'s board).
    pub fn lookup(&self, p: &Position) -> Option<BookMove> {
        if p.rules() != self.rules {
            return None;
        }
        let (key, mirrored) = fold(p);
        let i = self.entries.binary_search_by_key(&key, |e| e.key).ok()?;
        let e = self.entries[i];
        let column = u32::from(e.column);
        Some(BookMove {
            column: if mirrored {
                p.columns() - 1 - column
            } else {
                column
            },
            score: i32::from(e.score),
        })
    }

    /// Whether `p` is stored.
    pub fn contains(&self, p: &Position) -> bool {
        self.lookup(p).is_some()
    }

    /// Stores `p` with a best move `column` and its exact `score`,
    /// replacing what was stored for it.
    pub fn insert(&mut self, p: &Position, column: u32, score: i32) {
        debug_assert_eq!(p.rules(), self.rules);
        let (key, mirrored) = fold(p);
        let column = if mirrored {
            p.columns() - 1 - column
        } else {
            column
        };
        let entry = Entry {
            key,
            column: column as u8,
            score: score as i8,
        };
        match self.entries.binary_search_by_key(&key, |e| e.key) {
            Ok(i) => self.entries[i] = entry,
            Err(i) => self.entries.insert(i, entry),
        }
        self.deepest_ply = self.deepest_ply.max(p.moves_played());
    }

    /// Adds every entry of `other` (same board) that this book lacks, and
    /// keeps the smaller of the two complete plies and deviation plies (a
    /// book of layers alone has no trees, so it changes neither); merges
    /// the layers of each ply.
    pub fn merge(&mut self, other: &Book) -> Result<(), BookError> {
        if other.rules != self.rules {
            return Err(BookError::OtherRules {
                expected: self.rules,
                found: other.rules,
            });
        }
        for layer in &other.layers {
            self.layer_mut(layer.ply())?.merge(layer)?;
        }
        if other.entries.is_empty() {
            return Ok(());
        }
        if self.entries.is_empty() {
            self.complete_ply = other.complete_ply;
            self.deviations = other.deviations;
        }
        let mut merged = Vec::with_capacity(self.entries.len() + other.entries.len());
        let (mut a, mut b) = (
            self.entries.iter().peekable(),
            other.entries.iter().peekable(),
        );
        loop {
            match (a.peek(), b.peek()) {
                (Some(x), Some(y)) if x.key < y.key => merged.push(*a.next().unwrap()),
                (Some(x), Some(y)) if x.key > y.key => merged.push(*b.next().unwrap()),
                (Some(_), Some(_)) => {
                    merged.push(*a.next().unwrap());
                    b.next();
                }
                (Some(_), None) => merged.push(*a.next().unwrap()),
                (None, Some(_)) => merged.push(*b.next().unwrap()),
                (None, None) => break,
            }
        }
        self.entries = merged;
        self.complete_ply = self.complete_ply.min(other.complete_ply);
        self.deepest_ply = self.deepest_ply.max(other.deepest_ply);
        self.deviations = self.deviations.min(other.deviations);
        Ok(())
    }

    /// The stored positions' folded keys, in order (for sampling).
    pub fn keys(&self) -> impl Iterator<Item = u64> + '_ {
        self.entries.iter().map(|e| e.key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Game;

    fn position(moves: &str) -> Position {
        *Game::from_move_string(Rules::STANDARD, moves)
            .unwrap()
            .position()
    }

    #[test]
    fn a_position_and_its_mirror_share_an_entry() {
        let mut book = Book::new(Rules::STANDARD);
        // 12: first player in column 1, second in column 2; best move 3.
        book.insert(&position("12"), 2, 5);
        assert_eq!(book.len(), 1);
        let same = book.lookup(&position("12")).unwrap();
        assert_eq!((same.column, same.score), (2, 5));
        let mirror = book.lookup(&position("76")).unwrap();
        assert_eq!((mirror.column, mirror.score), (4, 5));
        assert!(book.lookup(&position("13")).is_none());
    }

    #[test]
    #[cfg(shipped_book)]
    fn the_shipped_book_reads_and_its_hash_holds() {
        // `from_bytes` checks the hash that `shipped` trusts.
        let book = Book::from_bytes(SHIPPED).unwrap();
        assert_eq!(book.rules(), Rules::STANDARD);
        assert_eq!(*Book::shipped(), book);
        for layer in Book::shipped().layers() {
            let values = layer.bytes().as_ptr_range();
            assert!(
                SHIPPED.as_ptr_range().contains(&values.start),
                "the layer of ply {} was copied",
                layer.ply()
            );
        }
        if !book.is_empty() {
            // The empty board is a first-player win in column 4.
            let m = book.lookup(&position("")).unwrap();
            assert_eq!((m.column, m.score), (3, 1));
        }
    }

    #[test]
    fn a_key_tells_its_plies() {
        let small = Rules::new(5, 4, 4).unwrap();
        for (rules, moves) in [
            (Rules::STANDARD, ""),
            (Rules::STANDARD, "4"),
            (Rules::STANDARD, "444444"),
            (Rules::STANDARD, "12345671234567"),
            (small, "11112222"),
        ] {
            let p = *Game::from_move_string(rules, moves).unwrap().position();
            assert_eq!(plies_of(fold(&p).0, rules), p.moves_played(), "{moves}");
        }
        let mut book = Book::new(Rules::STANDARD);
        book.insert(&position("4444"), 3, 1);
        book.insert(&position("43"), 3, 1);
        assert_eq!(book.deepest_ply(), 4);
        let read = Book::from_bytes(&book.to_bytes()).unwrap();
        assert_eq!(read.deepest_ply(), 4);
    }

    #[test]
    fn plies_past_the_end_of_the_game_are_the_end() {
        // The header has one byte for each: 300 must not come back as 44.
        let mut book = Book::new(Rules::STANDARD);
        book.set_complete_ply(300);
        book.set_deviations(300);
        let read = Book::from_bytes(&book.to_bytes()).unwrap();
        assert_eq!((read.complete_ply(), read.deviations()), (42, 42));
    }

    #[test]
    fn other_boards_are_not_looked_up() {
        let mut book = Book::new(Rules::STANDARD);
        book.insert(&position(""), 3, 1);
        let small = Position::new(Rules::new(5, 4, 4).unwrap());
        assert!(book.lookup(&small).is_none());
    }

    #[test]
    fn merge_keeps_every_key_once() {
        let mut a = Book::new(Rules::STANDARD);
        a.insert(&position("4"), 3, -1);
        a.insert(&position("44"), 3, 1);
        a.set_complete_ply(2);
        let mut b = Book::new(Rules::STANDARD);
        b.insert(&position("44"), 3, 1);
        b.insert(&position("444"), 3, -1);
        b.set_complete_ply(1);
        a.merge(&b).unwrap();
        assert_eq!(a.len(), 3);
        assert_eq!(a.complete_ply(), 1);
        let other = Book::new(Rules::new(5, 4, 4).unwrap());
        assert!(a.merge(&other).is_err());
    }
}
