//! Reading and writing the book's binary file (layout in the parent
//! module's documentation).

use std::path::{Path, PathBuf};

use super::{Book, Entry};
use crate::rules::Rules;

/// The first eight bytes of every book file.
const MAGIC: &[u8; 8] = b"C4BOOK\0\n";
/// The format version this build writes; it also reads version 1, whose
/// byte 14 was reserved (no deviations).
const VERSION: u16 = 2;
/// Bytes before the first entry.
const HEADER_BYTES: usize = 24;
/// Bytes per entry: key, column, score.
const ENTRY_BYTES: usize = 10;
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
        /// What is wrong, in words.
        problem: String,
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
    let mut out = Vec::with_capacity(HEADER_BYTES + ENTRY_BYTES * book.len() + HASH_BYTES);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.push(book.rules.columns() as u8);
    out.push(book.rules.rows() as u8);
    out.push(book.rules.inarow() as u8);
    out.push(book.complete_ply as u8);
    out.push(book.deviations as u8);
    out.push(0);
    out.extend_from_slice(&(book.entries.len() as u64).to_le_bytes());
    for e in &book.entries {
        out.extend_from_slice(&e.key.to_le_bytes());
        out.push(e.column);
        out.push(e.score as u8);
    }
    let hash = fnv1a(&out);
    out.extend_from_slice(&hash.to_le_bytes());
    out
}

/// Parses a book; the error says what is wrong, without a file name.
pub(super) fn decode(bytes: &[u8]) -> Result<Book, BookError> {
    decode_inner(bytes).map_err(|problem| BookError::Invalid {
        path: None,
        problem,
    })
}

fn decode_inner(bytes: &[u8]) -> Result<Book, String> {
    if bytes.len() < HEADER_BYTES + HASH_BYTES || &bytes[..8] != MAGIC {
        return Err("not a book file (it does not start with the book header)".into());
    }
    let version = u16::from_le_bytes([bytes[8], bytes[9]]);
    if version != VERSION && version != 1 {
        return Err(format!(
            "version {version} is not supported (this build reads versions 1 to {VERSION})"
        ));
    }
    let (columns, rows, inarow) = (bytes[10], bytes[11], bytes[12]);
    let rules = Rules::new(columns.into(), rows.into(), inarow.into()).map_err(|e| {
        format!("the header names the board {columns}x{rows}x{inarow}, which is not valid: {e}")
    })?;
    let complete_ply = u32::from(bytes[13]);
    let deviations = if version == 1 {
        0
    } else {
        u32::from(bytes[14])
    };
    let count = u64::from_le_bytes(bytes[16..24].try_into().expect("8 bytes"));
    let expected = (count as u128) * ENTRY_BYTES as u128 + (HEADER_BYTES + HASH_BYTES) as u128;
    if expected != bytes.len() as u128 {
        return Err(format!(
            "the header announces {count} entries ({expected} bytes) but the file has {} bytes: \
             it is truncated or damaged",
            bytes.len()
        ));
    }
    let body = bytes.len() - HASH_BYTES;
    let stored = u64::from_le_bytes(bytes[body..].try_into().expect("8 bytes"));
    if fnv1a(&bytes[..body]) != stored {
        return Err("the check hash does not match: the file is damaged".into());
    }
    let mut entries = Vec::with_capacity(count as usize);
    for (i, chunk) in bytes[HEADER_BYTES..body]
        .chunks_exact(ENTRY_BYTES)
        .enumerate()
    {
        let entry = Entry {
            key: u64::from_le_bytes(chunk[..8].try_into().expect("8 bytes")),
            column: chunk[8],
            score: chunk[9] as i8,
        };
        if u32::from(entry.column) >= rules.columns() {
            return Err(format!(
                "entry {i} names column {} on a board of {} columns",
                entry.column,
                rules.columns()
            ));
        }
        if entries
            .last()
            .is_some_and(|last: &Entry| last.key >= entry.key)
        {
            return Err(format!("entry {i} is out of order"));
        }
        entries.push(entry);
    }
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
    })
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

    fn sample() -> Book {
        let mut book = Book::new(Rules::STANDARD);
        for (moves, column, score) in [("", 3, 1), ("4", 3, -1), ("44", 3, 1), ("12", 2, 5)] {
            let game = Game::from_move_string(Rules::STANDARD, moves).unwrap();
            book.insert(game.position(), column, score);
        }
        book.set_complete_ply(2);
        book.set_deviations(6);
        book
    }

    #[test]
    fn round_trips() {
        let book = sample();
        let bytes = encode(&book);
        assert_eq!(bytes.len(), HEADER_BYTES + 4 * ENTRY_BYTES + HASH_BYTES);
        assert_eq!(decode(&bytes).unwrap(), book);
    }

    #[test]
    fn version_1_reads_without_deviations() {
        let mut bytes = encode(&sample());
        bytes[8] = 1;
        bytes[14] = 0;
        let body = bytes.len() - HASH_BYTES;
        let hash = fnv1a(&bytes[..body]);
        bytes[body..].copy_from_slice(&hash.to_le_bytes());
        let old = decode(&bytes).unwrap();
        assert_eq!(old.deviations(), 0);
        assert_eq!(old.len(), sample().len());
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
