//! Reading and writing the book's binary file (layout in the parent
//! module's documentation).

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use super::{Book, Entry, Layer};
use crate::rules::Rules;

/// The first eight bytes of every book file.
const MAGIC: &[u8; 8] = b"C4BOOK\0\n";
/// The format version this build writes: keys as varint gaps, then the
/// layers. It also reads version 3 (no layers) and versions 1 and 2 (fixed
/// 10-byte entries; version 1's byte 14 was reserved, so no deviations).
const VERSION: u16 = 4;
/// Bytes before the first entry.
const HEADER_BYTES: usize = 24;
/// Bytes per entry in versions 1 and 2: key, column, score.
const FIXED_ENTRY_BYTES: usize = 10;
/// The fewest bytes an entry takes in version 3: a one-byte gap, column,
/// score.
const MIN_ENTRY_BYTES: usize = 3;
/// Bytes of the trailing hash.
const HASH_BYTES: usize = 8;

/// What can be wrong with a book or its file.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    /// The file could not be read or written.
    #[error("book file '{path}': {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        error: std::io::Error,
    },
    /// The bytes are not a valid book; `path` is empty for bytes in memory.
    #[error("book{}: {problem}", path_label(.path))]
    Invalid {
        /// The file, if the bytes came from one.
        path: Option<PathBuf>,
        /// What is wrong.
        problem: FormatError,
    },
    /// A layer that cannot be made or combined.
    #[error("no layer of ply {ply} on the {rules} board: {reason}")]
    Layer {
        /// The board.
        rules: Rules,
        /// The layer's ply.
        ply: u32,
        /// Why, in words.
        reason: String,
    },
    /// Two books for different boards cannot be combined.
    #[error("the book is for the {found} board, expected {expected}")]
    OtherRules {
        /// The board wanted.
        expected: Rules,
        /// The board of the book found.
        found: Rules,
    },
}

/// What is wrong with the bytes of a book file.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// It does not start with the book header.
    #[error("not a book file (it does not start with the book header)")]
    NotABook,
    /// A version this build does not read.
    #[error("version {0} is not supported (this build reads versions 1 to {VERSION})")]
    Version(u16),
    /// The header's board is not a board.
    #[error("the header names the board {columns}x{rows}x{inarow}, which is not valid: {reason}")]
    Board {
        /// Columns.
        columns: u8,
        /// Rows.
        rows: u8,
        /// Stones in a row to win.
        inarow: u8,
        /// Why not.
        reason: crate::rules::RulesError,
    },
    /// A fixed-size file (versions 1 and 2) of the wrong size.
    #[error(
        "the header announces {count} entries ({expected} bytes) but the file has {found} \
         bytes: it is truncated or damaged"
    )]
    Size {
        /// Entries announced.
        count: u64,
        /// The bytes they take.
        expected: u128,
        /// The file's bytes.
        found: usize,
    },
    /// Too few bytes for the entries announced.
    #[error(
        "the header announces {count} entries but the file has only {found} bytes: it is \
         truncated or damaged"
    )]
    TooShort {
        /// Entries announced.
        count: u64,
        /// The file's bytes.
        found: usize,
    },
    /// The check hash at the end does not match.
    #[error("the check hash does not match: the file is truncated or damaged")]
    Hash,
    /// An entry whose move is off the board.
    #[error("entry {entry} names column {column} on a board of {columns} columns")]
    Column {
        /// The entry, from 0.
        entry: usize,
        /// Its column, from 0.
        column: u8,
        /// The board's columns.
        columns: u32,
    },
    /// Entries are stored by increasing key.
    #[error("entry {0} is out of order")]
    EntryOrder(u64),
    /// The file ends inside an entry.
    #[error("entry {entry} of {count} is cut short: the file is truncated or damaged")]
    EntryCut {
        /// The entry, from 0.
        entry: u64,
        /// Entries announced.
        count: u64,
    },
    /// Key gaps that add up past 64 bits.
    #[error("entry {0} has a key past 64 bits: the file is damaged")]
    KeyOverflow(u64),
    /// A version 4 body without its layer count.
    #[error("the layer count is missing: the file is truncated or damaged")]
    NoLayerCount,
    /// The file ends inside a layer.
    #[error("layer {layer} of {count} is cut short: the file is truncated or damaged")]
    LayerCut {
        /// The layer, from 0.
        layer: u8,
        /// Layers announced.
        count: u8,
    },
    /// Layers are stored by increasing ply.
    #[error("layer {layer} (ply {ply}) is out of order")]
    LayerOrder {
        /// The layer, from 0.
        layer: u8,
        /// Its ply.
        ply: u32,
    },
    /// A layer whose slot count is not its ply's.
    #[error("layer {layer} (ply {ply}) announces {slots} slots, the board's ply has {expected}")]
    LayerSlots {
        /// The layer, from 0.
        layer: u8,
        /// Its ply.
        ply: u32,
        /// Slots announced.
        slots: u64,
        /// Slots of that ply on the board.
        expected: u64,
    },
    /// A layer of a ply the board cannot have.
    #[error("{0}")]
    NoLayer(Box<BookError>),
    /// A layer's values of the wrong length.
    #[error("the layer of ply {ply} should have {expected} bytes, it has {found}")]
    LayerLength {
        /// Its ply.
        ply: u32,
        /// The bytes its slots take.
        expected: usize,
        /// The bytes stored.
        found: usize,
    },
    /// A layer's move off the board.
    #[error(
        "slot {slot} of the layer of ply {ply} names column {column} on a board of {columns} \
         columns"
    )]
    LayerColumn {
        /// The slot.
        slot: u64,
        /// The layer's ply.
        ply: u32,
        /// Its column, from 0.
        column: u32,
        /// The board's columns.
        columns: u8,
    },
    /// Bits set past a layer's last slot.
    #[error("the layer of ply {ply} has a value past its last slot: the file is damaged")]
    LayerPadding {
        /// Its ply.
        ply: u32,
    },
    /// Bytes after the last entry or layer.
    #[error(
        "{extra} {} the last of the {count} {what}: the file is damaged",
        if *.extra == 1 { "byte follows" } else { "bytes follow" }
    )]
    Trailing {
        /// How many bytes.
        extra: usize,
        /// Items before them.
        count: u64,
        /// `entries` or `layers`.
        what: &'static str,
    },
}

fn path_label(path: &Option<PathBuf>) -> String {
    path.as_ref()
        .map(|p| format!(" file '{}'", p.display()))
        .unwrap_or_default()
}

/// FNV-1a, 64 bits: cheap, and enough to catch a damaged file.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// The book's bytes.
pub(super) fn encode(book: &Book) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_BYTES + 5 * book.len() + HASH_BYTES);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.push(book.rules.columns() as u8);
    out.push(book.rules.rows() as u8);
    out.push(book.rules.inarow() as u8);
    out.push(book.complete_ply as u8);
    out.push(book.deviations as u8);
    out.push(0);
    out.extend_from_slice(&(book.entries.len() as u64).to_le_bytes());
    let mut previous = 0;
    for e in &book.entries {
        push_varint(&mut out, e.key - previous);
        out.push(e.column);
        out.push(e.score as u8);
        previous = e.key;
    }
    out.push(book.layers.len() as u8);
    for layer in &book.layers {
        out.push(layer.ply() as u8);
        out.extend_from_slice(&layer.slots().to_le_bytes());
        out.extend_from_slice(layer.bytes());
    }
    let hash = fnv1a(&out);
    out.extend_from_slice(&hash.to_le_bytes());
    out
}

/// Appends `value` as an unsigned LEB128 varint: seven bits a byte, low
/// bits first, the high bit set on every byte but the last.
fn push_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Reads a varint at `*at` and moves past it; `None` if the bytes end
/// inside it or it does not fit 64 bits.
fn read_varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut value: u64 = 0;
    for shift in (0..64).step_by(7) {
        let byte = *bytes.get(*at)?;
        *at += 1;
        let bits = u64::from(byte & 0x7f);
        if shift == 63 && bits > 1 {
            return None;
        }
        value |= bits << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

/// Parses a book; the error says what is wrong, without a file name.
pub(super) fn decode(bytes: &[u8]) -> Result<Book, BookError> {
    decode_inner(bytes, Check::Hash, |values| Cow::Owned(values.to_vec())).map_err(not_a_book)
}

/// What is wrong with bytes that came from no file.
fn not_a_book(problem: FormatError) -> BookError {
    BookError::Invalid {
        path: None,
        problem,
    }
}

/// Parses the bytes built into the program: its layers are read in place,
/// not copied, and the check hash is not recomputed (a test checks it on
/// the same bytes, so a build that passed its tests holds them intact).
/// The rest is checked as in [`decode`].
pub(super) fn decode_embedded(bytes: &'static [u8]) -> Result<Book, BookError> {
    decode_inner(bytes, Check::Trusted, Cow::Borrowed).map_err(not_a_book)
}

/// Whether the check hash is computed when a book is read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Check {
    /// Every byte is hashed and compared with the stored hash.
    Hash,
    /// The bytes are built into the program and were checked by its tests.
    Trusted,
}

/// Parses `bytes`; `keep` makes a layer's values of its bytes (a copy, or
/// the bytes themselves where they live as long as the program).
fn decode_inner<'a>(
    bytes: &'a [u8],
    check: Check,
    keep: impl Fn(&'a [u8]) -> Cow<'static, [u8]>,
) -> Result<Book, FormatError> {
    if bytes.len() < HEADER_BYTES + HASH_BYTES || &bytes[..8] != MAGIC {
        return Err(FormatError::NotABook);
    }
    let version = u16::from_le_bytes([bytes[8], bytes[9]]);
    if !(1..=VERSION).contains(&version) {
        return Err(FormatError::Version(version));
    }
    let (columns, rows, inarow) = (bytes[10], bytes[11], bytes[12]);
    let rules = Rules::new(columns.into(), rows.into(), inarow.into()).map_err(|reason| {
        FormatError::Board {
            columns,
            rows,
            inarow,
            reason,
        }
    })?;
    let complete_ply = u32::from(bytes[13]);
    let deviations = if version == 1 {
        0
    } else {
        u32::from(bytes[14])
    };
    let count = u64::from_le_bytes(bytes[16..24].try_into().expect("8 bytes"));
    let body = bytes.len() - HASH_BYTES;
    if version < 3 {
        let expected =
            (count as u128) * FIXED_ENTRY_BYTES as u128 + (HEADER_BYTES + HASH_BYTES) as u128;
        if expected != bytes.len() as u128 {
            return Err(FormatError::Size {
                count,
                expected,
                found: bytes.len(),
            });
        }
    } else if count > ((body - HEADER_BYTES) / MIN_ENTRY_BYTES) as u64 {
        return Err(FormatError::TooShort {
            count,
            found: bytes.len(),
        });
    }
    let stored = u64::from_le_bytes(bytes[body..].try_into().expect("8 bytes"));
    if check == Check::Hash && fnv1a(&bytes[..body]) != stored {
        return Err(FormatError::Hash);
    }
    let (entries, layers) = if version < 3 {
        (fixed_entries(&bytes[HEADER_BYTES..body]), Vec::new())
    } else {
        let (entries, end) = varint_entries(&bytes[HEADER_BYTES..body], count)?;
        let rest = &bytes[HEADER_BYTES + end..body];
        let layers = if version == 3 {
            trailing_bytes(rest.len(), count, "entries")?;
            Vec::new()
        } else {
            layers(rules, rest, keep)?
        };
        (entries, layers)
    };
    check_entries(&entries, rules)?;
    let deepest_ply = entries
        .iter()
        .map(|e| super::plies_of(e.key, rules))
        .max()
        .unwrap_or(0);
    Ok(Book {
        rules,
        complete_ply,
        deviations,
        deepest_ply,
        entries,
        layers,
    })
}

/// Every entry's move is on the board and the keys increase.
fn check_entries(entries: &[Entry], rules: Rules) -> Result<(), FormatError> {
    for (i, entry) in entries.iter().enumerate() {
        if u32::from(entry.column) >= rules.columns() {
            return Err(FormatError::Column {
                entry: i,
                column: entry.column,
                columns: rules.columns(),
            });
        }
        if i > 0 && entries[i - 1].key >= entry.key {
            return Err(FormatError::EntryOrder(i as u64));
        }
    }
    Ok(())
}

/// The layer section of a version 4 body: a count, then each layer's ply,
/// slot count and values.
fn layers<'a>(
    rules: Rules,
    section: &'a [u8],
    keep: impl Fn(&'a [u8]) -> Cow<'static, [u8]>,
) -> Result<Vec<Layer>, FormatError> {
    let Some((&count, mut rest)) = section.split_first() else {
        return Err(FormatError::NoLayerCount);
    };
    let mut layers: Vec<Layer> = Vec::with_capacity(count.into());
    for i in 0..count {
        let cut = || FormatError::LayerCut { layer: i, count };
        if rest.len() < 9 {
            return Err(cut());
        }
        let ply = u32::from(rest[0]);
        let slots = u64::from_le_bytes(rest[1..9].try_into().expect("8 bytes"));
        let length = usize::try_from(slots.div_ceil(2)).map_err(|_| cut())?;
        let Some(values) = rest.get(9..9 + length) else {
            return Err(cut());
        };
        if layers.last().is_some_and(|l| l.ply() >= ply) {
            return Err(FormatError::LayerOrder { layer: i, ply });
        }
        let layer = Layer::from_bytes(rules, ply, keep(values))?;
        if layer.slots() != slots {
            return Err(FormatError::LayerSlots {
                layer: i,
                ply,
                slots,
                expected: layer.slots(),
            });
        }
        layers.push(layer);
        rest = &rest[9 + length..];
    }
    trailing_bytes(rest.len(), u64::from(count), "layers")?;
    Ok(layers)
}

/// An error if `extra` bytes follow the last of `count` items (`what`:
/// entries or layers).
fn trailing_bytes(extra: usize, count: u64, what: &'static str) -> Result<(), FormatError> {
    if extra == 0 {
        return Ok(());
    }
    Err(FormatError::Trailing { extra, count, what })
}

/// The entries of a version 1 or 2 body: 10 bytes each.
fn fixed_entries(body: &[u8]) -> Vec<Entry> {
    body.chunks_exact(FIXED_ENTRY_BYTES)
        .map(|chunk| Entry {
            key: u64::from_le_bytes(chunk[..8].try_into().expect("8 bytes")),
            column: chunk[8],
            score: chunk[9] as i8,
        })
        .collect()
}

/// The `count` entries of a version 3 or 4 body: each key as its gap from
/// the previous one (the first from 0) in a varint, then column and score;
/// and the offset where they end.
fn varint_entries(body: &[u8], count: u64) -> Result<(Vec<Entry>, usize), FormatError> {
    let mut entries = Vec::with_capacity(count as usize);
    let mut at = 0;
    let mut key: u64 = 0;
    for i in 0..count {
        let gap = read_varint(body, &mut at);
        let (Some(gap), Some(&column), Some(&score)) = (gap, body.get(at), body.get(at + 1)) else {
            return Err(FormatError::EntryCut { entry: i, count });
        };
        at += 2;
        if i > 0 && gap == 0 {
            return Err(FormatError::EntryOrder(i));
        }
        key = key.checked_add(gap).ok_or(FormatError::KeyOverflow(i))?;
        entries.push(Entry {
            key,
            column,
            score: score as i8,
        });
    }
    Ok((entries, at))
}

/// Reads a book file.
pub(super) fn load(path: &Path) -> Result<Book, BookError> {
    let bytes = std::fs::read(path).map_err(|error| BookError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    decode(&bytes).map_err(|e| match e {
        BookError::Invalid { problem, .. } => BookError::Invalid {
            path: Some(path.to_path_buf()),
            problem,
        },
        other => other,
    })
}

/// Writes a book file atomically.
pub(super) fn save(book: &Book, path: &Path) -> Result<(), BookError> {
    crate::atomic_file::write(path, encode(book)).map_err(|error| BookError::Io {
        path: path.to_path_buf(),
        error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Game;
    use crate::score::Outcome;

    fn sample() -> Book {
        let mut book = Book::new(Rules::STANDARD);
        for (moves, column, score) in [("", 3, 1), ("4", 3, -1), ("44", 3, 1), ("12", 2, 5)] {
            let game = Game::from_move_string(Rules::STANDARD, moves).unwrap();
            book.insert(game.position(), column, score);
        }
        book.set_complete_ply(2);
        book.set_deviations(6);
        let game = Game::from_move_string(Rules::STANDARD, "112").unwrap();
        let layer = book.layer_mut(3).unwrap();
        layer.insert(game.position(), Outcome::Win, Some(1));
        book
    }

    #[test]
    fn round_trips() {
        let book = sample();
        let bytes = encode(&book);
        let layer = book.layer(3).unwrap().bytes().len();
        assert!(bytes.len() < HEADER_BYTES + 4 * FIXED_ENTRY_BYTES + 10 + layer + HASH_BYTES);
        assert_eq!(decode(&bytes).unwrap(), book);
    }

    #[test]
    fn varints_round_trip_at_their_edges() {
        for value in [0, 1, 0x7f, 0x80, 0x3fff, 0x4000, u64::MAX >> 1, u64::MAX] {
            let mut bytes = Vec::new();
            push_varint(&mut bytes, value);
            let mut at = 0;
            assert_eq!(read_varint(&bytes, &mut at), Some(value), "{value}");
            assert_eq!(at, bytes.len());
            assert_eq!(read_varint(&bytes[..bytes.len() - 1], &mut 0), None);
        }
        // Ten bytes whose last carries more than the 64th bit.
        let mut too_big = vec![0xff; 9];
        too_big.push(0x02);
        assert_eq!(read_varint(&too_big, &mut 0), None);
    }

    /// The sample in the fixed 10-byte layout of versions 1 and 2.
    fn fixed_layout(version: u8) -> Vec<u8> {
        let book = sample();
        let mut bytes = encode(&book)[..HEADER_BYTES].to_vec();
        bytes[8] = version;
        if version == 1 {
            bytes[14] = 0;
        }
        for e in &book.entries {
            bytes.extend_from_slice(&e.key.to_le_bytes());
            bytes.push(e.column);
            bytes.push(e.score as u8);
        }
        let hash = fnv1a(&bytes);
        bytes.extend_from_slice(&hash.to_le_bytes());
        bytes
    }

    /// The sample without its layer.
    fn sample_of_version_3() -> Book {
        Book {
            layers: Vec::new(),
            ..sample()
        }
    }

    #[test]
    fn older_versions_still_read() {
        let old = decode(&fixed_layout(1)).unwrap();
        assert_eq!(old.deviations(), 0);
        assert_eq!(old.entries, sample().entries);
        assert_eq!(decode(&fixed_layout(2)).unwrap(), sample_of_version_3());
        // Version 3: version 4 without the layer section.
        let mut v3 = encode(&sample_of_version_3());
        v3.truncate(v3.len() - HASH_BYTES - 1);
        v3[8] = 3;
        let hash = fnv1a(&v3);
        v3.extend_from_slice(&hash.to_le_bytes());
        assert_eq!(decode(&v3).unwrap(), sample_of_version_3());
        let cut = fixed_layout(2);
        let problem = decode(&cut[..cut.len() - 10]).unwrap_err().to_string();
        assert!(problem.contains("announces 4 entries"), "{problem}");
    }

    /// `bytes` with the body replaced and the count and hash to match.
    fn with_body(bytes: &[u8], count: u64, body: &[u8]) -> Vec<u8> {
        let mut out = bytes[..HEADER_BYTES].to_vec();
        out[16..24].copy_from_slice(&count.to_le_bytes());
        out.extend_from_slice(body);
        let hash = fnv1a(&out);
        out.extend_from_slice(&hash.to_le_bytes());
        out
    }

    #[test]
    fn bad_bodies_are_named() {
        let bytes = encode(&sample());
        let problem = |count, body: &[u8]| {
            decode(&with_body(&bytes, count, body))
                .unwrap_err()
                .to_string()
        };
        // A gap of 0 after the first entry repeats a key.
        assert!(problem(2, &[5, 3, 0, 0, 3, 0]).contains("entry 1 is out of order"));
        // The last entry lacks its score.
        assert!(problem(2, &[0x85, 0x01, 3, 0, 1, 3]).contains("entry 1 of 2 is cut short"));
        assert!(problem(1, &[5, 3, 0, 0, 9]).contains("1 byte follows the last of the 0 layers"));
        assert!(problem(1, &[5, 3, 0, 0, 9, 9]).contains("2 bytes follow"));
        assert!(problem(1, &[5, 7, 0, 0]).contains("names column 7"));
        assert!(problem(1, &[5, 3, 0]).contains("layer count is missing"));
        let past = problem(
            2,
            &[
                0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0, 0, 1, 0, 0,
            ],
        );
        assert!(past.contains("past 64 bits"), "{past}");
        assert!(problem(1_000, &[5, 3, 0]).contains("announces 1000 entries"));
    }

    #[test]
    fn bad_layers_are_named() {
        let bytes = encode(&sample());
        let problem = |layers: &[u8]| {
            let mut body = vec![5, 3, 0];
            body.extend_from_slice(layers);
            decode(&with_body(&bytes, 1, &body))
                .unwrap_err()
                .to_string()
        };
        let slots = Layer::new(Rules::STANDARD, 3).unwrap().slots();
        let mut one = vec![1, 3];
        one.extend_from_slice(&slots.to_le_bytes());
        assert!(problem(&one).contains("layer 0 of 1 is cut short"));
        one.extend(std::iter::repeat_n(0, slots.div_ceil(2) as usize));
        let mut two = one.clone();
        two[0] = 2;
        two.extend_from_slice(&one[1..]);
        assert!(problem(&two).contains("layer 1 (ply 3) is out of order"));
        let mut wrong = one.clone();
        wrong[2] = 4;
        let text = problem(&wrong);
        assert!(
            text.contains("should have") || text.contains("announces"),
            "{text}"
        );
    }

    #[test]
    fn damage_is_named() {
        let bytes = encode(&sample());
        let problem = |b: &[u8]| decode(b).unwrap_err().to_string();
        assert!(problem(&bytes[..bytes.len() - 1]).contains("truncated"));
        assert!(problem(b"hello").contains("not a book file"));
        let mut flipped = bytes.clone();
        flipped[HEADER_BYTES + 3] ^= 1;
        assert!(problem(&flipped).contains("damaged"));
        let mut version = bytes.clone();
        version[8] = 9;
        assert!(problem(&version).contains("version 9"));
        let mut board = bytes;
        board[10] = 20;
        assert!(problem(&board).contains("20x6x4"));
    }

    #[test]
    fn file_errors_name_the_file() {
        let dir = std::env::temp_dir().join(format!("c4book-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("b.c4book");
        sample().save(&path).unwrap();
        assert_eq!(load(&path).unwrap(), sample());
        std::fs::write(&path, b"nonsense").unwrap();
        assert!(load(&path).unwrap_err().to_string().contains("b.c4book"));
        let missing = load(&dir.join("missing.c4book")).unwrap_err().to_string();
        assert!(missing.contains("missing.c4book"), "{missing}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
