//! The solver's transposition table: bounds on exact game values.
//!
//! # Entry layout
//!
//! One `u64` per entry, two entries per bucket (16 bytes, a quarter of a
//! 64-byte cache line), `2^k` entries in all:
//!
//! ```text
//!  63                       20+p  20+p-1   20 19    16 15      8 7       0
//! +----------------------------+-----------+--------+---------+---------+
//! | tag: hash >> (k-1)         | priority  |  move  |  lower  |  upper  |
//! +----------------------------+-----------+--------+---------+---------+
//! ```
//!
//! The tag is the key's high part, `key >> (k-1)`; the bucket is the low
//! `k-1` bits of the key XOR a multiplicative hash of the tag. Bucket and tag
//! together give back the whole key, so an entry matches exactly one
//! position: no false hits, hence exact results, on every board size. The
//! priority field takes `p = 6` bits when the tag leaves room (keys of at
//! most `38 + k - 1` bits: every standard-size board with the default table),
//! else `p = 0`.
//!
//! `lower` and `upper` are bounds on the score, stored as `score + OFFSET`
//! so that 0 means "no bound" and an all-zero word is an empty slot. Both
//! bounds share one entry: a fail-high raises the lower bound and keeps the
//! upper, a fail-low does the opposite. `move` is the column plus one (0 for
//! none) of the move that last proved a bound; the solver tries it first.
//!
//! # Replacement
//!
//! The first entry of a bucket keeps the position whose proof cost the most
//! (the priority, which the solver gives as the bit length of the nodes of
//! its subtree: the most work saved by a hit); the second always takes the
//! newest position. A new position with at least the
//! first entry's priority takes its place and the old one moves to the second
//! entry; otherwise it goes to the second entry.
//!
//! The table is aligned to 2 MiB and, on Linux, backed by transparent huge
//! pages where the kernel allows it. It comes from zeroed memory that is not
//! touched when the table is made: each page is made when first written.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// Added to a score before storing it: scores are in `-64..=64`.
const OFFSET: i32 = 100;
/// Fewest entries of a table, as a power of two (8 KiB).
const MIN_LOG_ENTRIES: u32 = 10;
/// Bits of move and bounds below the priority.
const FIELD_BITS: u32 = 20;
/// Width of the priority field when the tag leaves room for it.
const PRIORITY_BITS: u32 = 6;
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
///
/// Threads share it: every entry is one atomic word, read and
/// written whole with relaxed ordering, and an update takes the old bounds
/// only from an entry whose tag is still its key's. Two threads can lose
/// one another's update, but never mix two positions' bounds: every entry
/// holds true bounds for the one position its tag and bucket name.
pub struct TranspositionTable {
    /// The allocation; the table proper is `entries[base..base + 2^log_entries]`.
    entries: Vec<AtomicU64>,
    /// Offset of the first entry, chosen so that the table starts on a
    /// huge-page boundary.
    base: usize,
    log_entries: u32,
    /// Width of the priority field: [`PRIORITY_BITS`] or 0.
    priority_bits: AtomicU32,
}

/// The fewest entries (as a power of two) of a table for keys of
/// `key_bits` bits: a key's tag, the bits above the bucket index, must fit
/// above the fields of an entry.
fn min_log_entries(key_bits: u32) -> u32 {
    // tag bits = key_bits - (log - 1) <= 64 - FIELD_BITS
    (key_bits + FIELD_BITS + 1)
        .saturating_sub(u64::BITS)
        .max(MIN_LOG_ENTRIES)
}

/// Huge-page size the table is aligned to, in bytes.
const HUGE_PAGE: usize = 2 << 20;

/// Multiplier of the hash that scatters the bucket index (2^64 / phi).
const SCATTER: u64 = 0x9e37_79b9_7f4a_7c15;

impl TranspositionTable {
    /// A table using at most `mebibytes` MiB (rounded down to a power of two
    /// of entries) for keys of at most `key_bits` bits, or more if those
    /// keys' tags need more buckets to fit (see [`min_log_entries`]: 16 MiB
    /// for 64-bit keys, 8 KiB for the standard board's 49); `None` if the
    /// memory cannot be had.
    pub fn try_with_mebibytes(mebibytes: usize, key_bits: u32) -> Option<TranspositionTable> {
        let bytes = mebibytes.max(1).saturating_mul(1 << 20);
        let entries = (bytes / ENTRY_BYTES).max(1 << min_log_entries(key_bits));
        let log_entries = usize::BITS - 1 - entries.leading_zeros();
        let len = 1usize << log_entries;
        let total = len + HUGE_PAGE / ENTRY_BYTES;
        let mut entries = zeroed_entries(total)?;
        let misalign = entries.as_ptr() as usize % HUGE_PAGE;
        let base = ((HUGE_PAGE - misalign) % HUGE_PAGE) / ENTRY_BYTES;
        // Advised before the pages are first touched, so that they come huge.
        advise_huge_pages(
            entries.as_mut_ptr().wrapping_add(base).cast(),
            len * ENTRY_BYTES,
        );
        let tt = TranspositionTable {
            entries,
            base,
            log_entries,
            priority_bits: AtomicU32::new(0),
        };
        tt.priority_bits
            .store(tt.priority_bits_for(key_bits), Ordering::Relaxed);
        // The pages are not touched here: a page is zeroed by the kernel
        // when first written, so a search that never reaches a part of the
        // table (the shared one, on end-game positions) never pays for it.
        Some(tt)
    }

    /// Priority bits that still leave room for the tag of `key_bits`-bit keys.
    fn priority_bits_for(&self, key_bits: u32) -> u32 {
        let tag_bits = key_bits.saturating_sub(self.log_entries - 1);
        if tag_bits + FIELD_BITS + PRIORITY_BITS <= 64 {
            PRIORITY_BITS
        } else {
            0
        }
    }

    /// Whether the table can hold keys of `key_bits` bits (their tags fit).
    pub fn holds_keys_of(&self, key_bits: u32) -> bool {
        self.log_entries >= min_log_entries(key_bits)
    }

    /// Gets ready for keys of `key_bits` bits (another board): clears the
    /// table, whose keys would not mean the same any more.
    ///
    /// # Panics
    /// If the table cannot hold such keys (see
    /// [`TranspositionTable::holds_keys_of`]).
    pub fn reset_for_keys(&self, key_bits: u32) {
        assert!(
            self.holds_keys_of(key_bits),
            "a table of 2^{} entries cannot hold {key_bits}-bit keys",
            self.log_entries
        );
        self.priority_bits
            .store(self.priority_bits_for(key_bits), Ordering::Relaxed);
        self.clear();
    }

    fn table(&self) -> &[AtomicU64] {
        let (base, len) = (self.base, 1 << self.log_entries);
        &self.entries[base..base + len]
    }

    /// Number of entries.
    #[cfg(test)]
    fn len(&self) -> usize {
        1 << self.log_entries
    }

    /// Number of entries that hold a position.
    #[cfg(test)]
    pub(crate) fn occupied(&self) -> usize {
        self.table()
            .iter()
            .filter(|e| e.load(Ordering::Relaxed) != 0)
            .count()
    }

    /// Forgets every entry.
    pub fn clear(&self) {
        for e in self.table() {
            e.store(0, Ordering::Relaxed);
        }
    }

    /// The priority field's width now.
    #[inline(always)]
    fn priority_bits(&self) -> u32 {
        self.priority_bits.load(Ordering::Relaxed)
    }

    /// The word of entry `i`.
    #[inline(always)]
    fn word(&self, i: usize) -> u64 {
        self.entries[i].load(Ordering::Relaxed)
    }

    /// The first entry of the bucket of `key`, and the tag to find there.
    ///
    /// With `b` bucket bits, the tag is the key's high part `key >> b` and
    /// the bucket is its low part XOR a multiplicative hash of the tag: the
    /// hash scatters positions that differ only in their high columns, and
    /// bucket and tag together still give back the whole key.
    #[inline(always)]
    fn slot(&self, key: u64) -> (usize, u64) {
        let bits = self.log_entries - 1;
        let tag = key >> bits;
        let scatter = tag.wrapping_mul(SCATTER) >> (64 - bits);
        let bucket = ((key ^ scatter) & ((1 << bits) - 1)) as usize;
        (self.base + 2 * bucket, tag)
    }

    #[inline(always)]
    fn tag_shift(&self) -> u32 {
        FIELD_BITS + self.priority_bits()
    }

    /// Starts loading the bucket of `key` into the cache, so that a later
    /// [`TranspositionTable::get`] finds it there.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        let (index, _) = self.slot(key);
        prefetch_line(self.entries[index].as_ptr());
    }

    /// Which entry of the bucket at `index` holds `tag`, if any.
    #[inline(always)]
    fn find(&self, index: usize, tag: u64) -> Option<usize> {
        let shift = self.tag_shift();
        (index..index + 2).find(|&i| {
            let e = self.word(i);
            e != 0 && e >> shift == tag
        })
    }

    /// The bounds stored for `key`, if any.
    #[inline]
    pub fn get(&self, key: u64) -> Option<Bounds> {
        let (index, tag) = self.slot(key);
        let e = self.word(self.find(index, tag)?);
        // Another thread may have replaced it since: check the tag again.
        if e >> self.tag_shift() != tag {
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
    /// move in column `best`. `priority` ranks entries for replacement (the
    /// solver gives the bit length of the nodes the proof cost).
    #[inline]
    pub fn put_lower(&self, key: u64, priority: u32, lower: i32, best: u32) {
        self.update(key, priority, |_, up, _| {
            ((lower + OFFSET) as u64, up, u64::from(best) + 1)
        });
    }

    /// Records that the score of `key` is at most `upper`.
    #[inline]
    pub fn put_upper(&self, key: u64, priority: u32, upper: i32) {
        self.update(key, priority, |low, _, mv| {
            (low, (upper + OFFSET) as u64, mv)
        });
    }

    /// Records that the score of `key` is exactly `score`, reached by the
    /// move in column `best`.
    #[inline]
    pub fn put_exact(&self, key: u64, priority: u32, score: i32, best: u32) {
        let v = (score + OFFSET) as u64;
        self.update(key, priority, |_, _, _| (v, v, u64::from(best) + 1));
    }

    /// Rewrites the entry of `key` from its current (lower, upper, move)
    /// fields (all zero for a new entry), placing a new entry by priority.
    #[inline(always)]
    fn update(&self, key: u64, priority: u32, f: impl FnOnce(u64, u64, u64) -> (u64, u64, u64)) {
        let (index, tag) = self.slot(key);
        let shift = self.tag_shift();
        let priority_bits = self.priority_bits();
        let priority = u64::from(priority).min((1 << priority_bits) - 1);
        let at = match self.find(index, tag) {
            Some(i) => i,
            None => {
                let first = self.word(index);
                let first_priority = (first >> FIELD_BITS) & ((1 << priority_bits) - 1);
                if first == 0 || priority >= first_priority {
                    self.entries[index + 1].store(first, Ordering::Relaxed);
                    index
                } else {
                    index + 1
                }
            }
        };
        // The old fields only from an entry that is still this position's:
        // another thread may have written the slot since it was found.
        let e = self.word(at);
        let (low, up, mv) = if e != 0 && e >> shift == tag {
            f((e >> 8) & 0xff, e & 0xff, (e >> 16) & 0xf)
        } else {
            f(0, 0, 0)
        };
        self.entries[at].store(
            tag << shift | priority << FIELD_BITS | mv << 16 | low << 8 | up,
            Ordering::Relaxed,
        );
    }
}

/// `count` empty entries, from memory that is zero when handed out
/// (`calloc`: a large block comes straight from the kernel, untouched), so
/// that its pages are only made when first written; `None` if the memory
/// cannot be had.
#[allow(unsafe_code)]
fn zeroed_entries(count: usize) -> Option<Vec<AtomicU64>> {
    let layout = std::alloc::Layout::array::<AtomicU64>(count).ok()?;
    if layout.size() == 0 {
        return Some(Vec::new());
    }
    // SAFETY: the layout has a non-zero size (checked above). The block is
    // allocated by the global allocator with exactly the layout a
    // `Vec<AtomicU64>` of capacity `count` uses, all its bytes are zero,
    // and an all-zero `AtomicU64` is a valid value (it has the size and
    // bit validity of `u64`), so the vector owns `count` initialised
    // entries and frees the block with the same layout.
    unsafe {
        let block = std::alloc::alloc_zeroed(layout).cast::<AtomicU64>();
        (!block.is_null()).then(|| Vec::from_raw_parts(block, count, count))
    }
}

/// Asks the kernel to back `bytes` bytes from `start` with huge pages: the
/// table is probed at random, and with 4 KiB pages nearly every probe also
/// misses the TLB.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn advise_huge_pages(start: *mut libc::c_void, bytes: usize) {
    // SAFETY: the range lies inside one allocation we own (reserved, not yet
    // handed out), and MADV_HUGEPAGE only changes how the kernel backs it,
    // never its contents. A failure (no transparent huge pages) leaves
    // ordinary pages: harmless.
    unsafe {
        libc::madvise(start, bytes, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_start: *mut u8, _bytes: usize) {}

/// Hints the processor to load the cache line of `entry`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
#[allow(unsafe_code)]
fn prefetch_line(entry: *const u64) {
    use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
    // SAFETY: SSE is part of the x86_64 baseline, and a prefetch is only a
    // hint: it reads nothing the program sees and cannot fault.
    unsafe { _mm_prefetch::<_MM_HINT_T0>(entry.cast()) }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn prefetch_line(_entry: *const u64) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_combine_and_are_exact_per_key() {
        let tt = TranspositionTable::try_with_mebibytes(1, 49).unwrap();
        assert_eq!(tt.len(), 1 << 17);
        assert_eq!(tt.get(0), None);
        tt.put_lower(0, 40, -3, 6);
        tt.put_upper(0, 40, 5);
        assert_eq!(
            tt.get(0),
            Some(Bounds {
                lower: Some(-3),
                upper: Some(5),
                best: Some(6),
            })
        );
        // Keys landing in the same bucket: the one with more empty cells
        // stays in the first entry, the newest takes the second.
        let mut same = (1..u64::MAX).filter(|&k| tt.slot(k).0 == tt.slot(0).0);
        let (a, b) = (same.next().unwrap(), same.next().unwrap());
        tt.put_exact(a, 10, 7, 0);
        assert!(tt.get(0).is_some() && tt.get(a).is_some());
        tt.put_exact(b, 12, 8, 1);
        assert_eq!(tt.get(a), None, "the newest replaces the second entry");
        assert_eq!(tt.get(0).unwrap().lower, Some(-3));
        assert_eq!(tt.get(b).unwrap().lower, Some(8));
        tt.put_exact(a, 41, 9, 2);
        assert_eq!(
            tt.get(a).unwrap().upper,
            Some(9),
            "more empty cells take the first entry"
        );
        assert_eq!(
            tt.get(0).unwrap().lower,
            Some(-3),
            "and the old first entry moves down"
        );
        assert_eq!(tt.get(b), None);
        tt.clear();
        assert_eq!(tt.get(a), None);
    }

    #[test]
    fn a_table_is_big_enough_for_the_tags_of_its_keys() {
        // 64-bit keys need 2^21 entries (16 MiB) however little is asked.
        let wide = TranspositionTable::try_with_mebibytes(1, 64).unwrap();
        assert_eq!(wide.len(), 1 << 21);
        assert!(wide.holds_keys_of(64));
        let narrow = TranspositionTable::try_with_mebibytes(1, 49).unwrap();
        assert!(narrow.holds_keys_of(49) && !narrow.holds_keys_of(64));
        // The largest key a 49-bit table takes comes back whole.
        let key = (1 << 49) - 1;
        narrow.put_exact(key, 5, -4, 2);
        assert_eq!(narrow.get(key).unwrap().lower, Some(-4));
        assert_eq!(narrow.get(key >> 1), None);
    }

    #[test]
    #[should_panic(expected = "cannot hold 64-bit keys")]
    fn a_table_too_small_for_a_board_is_not_reset_for_it() {
        TranspositionTable::try_with_mebibytes(1, 49)
            .unwrap()
            .reset_for_keys(64);
    }
}
