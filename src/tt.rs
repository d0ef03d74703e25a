//! The solver's transposition table: bounds on exact game values.
//!
//! # Entry layout
//!
//! One `u64` per entry, in a table of `2^k` entries:
//!
//! ```text
//!  63                           20 19    16 15       8 7        0
//! +-------------------------------+--------+----------+----------+
//! |  tag: hash >> k (64 - k bits) |  move  |  lower   |  upper   |
//! +-------------------------------+--------+----------+----------+
//! ```
//!
//! `hash` is a bijective mix of the position key (an invertible
//! multiply-xorshift), the entry's index is `hash mod 2^k` and the tag is the
//! rest of the hash. Index and tag together are the whole hash, so a stored
//! entry matches exactly one position: no false hits, hence exact results,
//! on every board size. With `k >= 20` the tag fits its 44 bits.
//!
//! `move` is the column (plus one; 0 for none) of the move that last proved a
//! bound here; the solver tries it first.
//!
//! `lower` and `upper` are bounds on the score of the position, stored as
//! `score + OFFSET`, so that 0 means "no bound" and an all-zero word is an
//! empty slot. Both bounds live in one entry: a fail-high raises the lower
//! bound and keeps the upper, a fail-low does the opposite.
//!
//! The table is aligned to 2 MiB and, on Linux, backed by transparent huge
//! pages where the kernel allows it.
//!
//! Replacement: an entry for another position is always overwritten (the
//! most recent search is the most useful, as in the reference solvers).

/// Added to a score before storing it: scores are in `-64..=64`.
const OFFSET: i32 = 100;
/// Smallest table: `2^20` entries (8 MiB), so that the tag fits in 44 bits.
const MIN_LOG_ENTRIES: u32 = 20;
/// Lowest bit of the tag.
const TAG_SHIFT: u32 = 20;
/// Bytes per entry.
pub const ENTRY_BYTES: usize = 8;

/// Bounds on the exact score of one position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// The score is at least this (or unbounded below if `None`).
    pub lower: Option<i32>,
    /// The score is at most this (or unbounded above if `None`).
    pub upper: Option<i32>,
    /// The column (0-based) of the move that last proved a bound.
    pub best: Option<u32>,
}

/// A transposition table of score bounds, keyed by [`crate::Position::key`].
pub struct TranspositionTable {
    /// The allocation; the table proper is `entries[base..base + 2^log_entries]`.
    entries: Vec<u64>,
    /// Offset of the first entry, chosen so that the table starts on a
    /// huge-page boundary.
    base: usize,
    log_entries: u32,
}

/// Huge-page size the table is aligned to, in bytes.
const HUGE_PAGE: usize = 2 << 20;

/// Mixes a key into a hash; a bijection on `u64` (each step is invertible).
#[inline(always)]
fn mix(key: u64) -> u64 {
    let mut h = key;
    h ^= h >> 31;
    h = h.wrapping_mul(0x7fb5_d329_728e_a185);
    h ^= h >> 27;
    h = h.wrapping_mul(0x81da_def4_bc2d_d44d);
    h ^ (h >> 33)
}

impl TranspositionTable {
    /// A table using at most `mebibytes` MiB (rounded down to a power of two
    /// of entries, at least 8 MiB).
    pub fn with_mebibytes(mebibytes: usize) -> TranspositionTable {
        let bytes = mebibytes.max(1).saturating_mul(1 << 20);
        let entries = (bytes / ENTRY_BYTES).max(1 << MIN_LOG_ENTRIES);
        let log_entries = usize::BITS - 1 - entries.leading_zeros();
        let len = 1usize << log_entries;
        let mut entries = vec![0u64; len + HUGE_PAGE / ENTRY_BYTES];
        let misalign = entries.as_ptr() as usize % HUGE_PAGE;
        let base = ((HUGE_PAGE - misalign) % HUGE_PAGE) / ENTRY_BYTES;
        advise_huge_pages(&mut entries[base..base + len]);
        let mut tt = TranspositionTable {
            entries,
            base,
            log_entries,
        };
        // Touch every page now, so that searches do not pay for page faults.
        tt.clear();
        tt
    }

    fn table_mut(&mut self) -> &mut [u64] {
        let (base, len) = (self.base, 1 << self.log_entries);
        &mut self.entries[base..base + len]
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        1 << self.log_entries
    }

    /// Whether the table has no entries (never: it has at least `2^16`).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Memory used, in bytes.
    pub fn bytes(&self) -> usize {
        self.len() * ENTRY_BYTES
    }

    /// Forgets every entry.
    pub fn clear(&mut self) {
        self.table_mut().fill(0);
    }

    #[inline(always)]
    fn slot(&self, key: u64) -> (usize, u64) {
        let h = mix(key);
        let index = (h & ((1 << self.log_entries) - 1)) as usize;
        (index, h >> self.log_entries)
    }

    /// Starts loading the slot of `key` into the cache, so that a later
    /// [`TranspositionTable::get`] finds it there.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        let (index, _) = self.slot(key);
        prefetch_line(&self.entries[self.base + index]);
    }

    /// The bounds stored for `key`, if any.
    #[inline]
    pub fn get(&self, key: u64) -> Option<Bounds> {
        let (index, tag) = self.slot(key);
        let e = self.entries[self.base + index];
        if e == 0 || e >> TAG_SHIFT != tag {
            return None;
        }
        let decode = |v: u64| (v != 0).then(|| v as i32 - OFFSET);
        let best = (e >> 16) & 0xf;
        Some(Bounds {
            lower: decode((e >> 8) & 0xff),
            upper: decode(e & 0xff),
            best: (best != 0).then(|| best as u32 - 1),
        })
    }

    /// Records that the score of `key` is at least `lower`, proved by the
    /// move in column `best`.
    #[inline]
    pub fn put_lower(&mut self, key: u64, lower: i32, best: u32) {
        self.update(key, |_, up, _| {
            ((lower + OFFSET) as u64, up, u64::from(best) + 1)
        });
    }

    /// Records that the score of `key` is at most `upper`.
    #[inline]
    pub fn put_upper(&mut self, key: u64, upper: i32) {
        self.update(key, |low, _, mv| (low, (upper + OFFSET) as u64, mv));
    }

    /// Records that the score of `key` is exactly `score`, reached by the
    /// move in column `best`.
    #[inline]
    pub fn put_exact(&mut self, key: u64, score: i32, best: u32) {
        let v = (score + OFFSET) as u64;
        self.update(key, |_, _, _| (v, v, u64::from(best) + 1));
    }

    /// Rewrites the entry of `key` from its current (lower, upper, move)
    /// fields, all zero if the slot holds another position.
    #[inline(always)]
    fn update(&mut self, key: u64, f: impl FnOnce(u64, u64, u64) -> (u64, u64, u64)) {
        let (index, tag) = self.slot(key);
        let index = self.base + index;
        let e = self.entries[index];
        let (low, up, mv) = if e != 0 && e >> TAG_SHIFT == tag {
            ((e >> 8) & 0xff, e & 0xff, (e >> 16) & 0xf)
        } else {
            (0, 0, 0)
        };
        let (low, up, mv) = f(low, up, mv);
        self.entries[index] = tag << TAG_SHIFT | mv << 16 | low << 8 | up;
    }
}

/// Asks the kernel to back `table` with huge pages: the table is probed at
/// random, and with 4 KiB pages nearly every probe also misses the TLB.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn advise_huge_pages(table: &mut [u64]) {
    let bytes = std::mem::size_of_val(table);
    // SAFETY: the range is one live allocation we own exclusively, and
    // MADV_HUGEPAGE only changes how the kernel backs it, not its contents.
    // A failure (no transparent huge pages) leaves ordinary pages: harmless.
    unsafe {
        libc::madvise(table.as_mut_ptr().cast(), bytes, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_table: &mut [u64]) {}

/// Hints the processor to load the cache line of `entry`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
#[allow(unsafe_code)]
fn prefetch_line(entry: &u64) {
    use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
    // SAFETY: SSE is part of the x86_64 baseline, and a prefetch is only a
    // hint: it reads nothing the program sees and cannot fault.
    unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(entry).cast()) }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn prefetch_line(_entry: &u64) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_combine_and_are_exact_per_key() {
        let mut tt = TranspositionTable::with_mebibytes(1);
        assert_eq!(tt.len(), 1 << 20);
        assert_eq!(tt.get(0), None);
        tt.put_lower(0, -3, 6);
        tt.put_upper(0, 5);
        assert_eq!(
            tt.get(0),
            Some(Bounds {
                lower: Some(-3),
                upper: Some(5),
                best: Some(6),
            })
        );
        // A key landing in the same slot replaces, and never reads back as another.
        let other = (1..u64::MAX)
            .find(|&k| tt.slot(k).0 == tt.slot(0).0)
            .unwrap();
        tt.put_exact(other, 7, 0);
        assert_eq!(tt.get(0), None);
        assert_eq!(tt.get(other).unwrap().lower, Some(7));
        tt.clear();
        assert_eq!(tt.get(other), None);
    }
}
