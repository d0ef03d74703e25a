//! The table of the clocked search: depth-limited bounds and best moves.
//!
//! Unlike the solver's table ([`super::bounds_table`]), values here may come from a
//! heuristic at the horizon, so each entry records the depth it was searched
//! to and is only trusted by searches that are not deeper. Each slot holds
//! the full 64-bit key (no false hits, so proofs stay proofs) and one data
//! word:
//!
//! ```text
//!  63      40 39      32 31    24 23    16 15             0
//! +----------+----------+--------+--------+----------------+
//! |  unused  |  depth   |  kind  |  move  |  value (i16)   |
//! +----------+----------+--------+--------+----------------+
//! ```
//!
//! `kind` is 1 for a lower bound, 2 for an upper bound, 3 for an exact value;
//! `move` is the best column plus one (0 for none). Replacement: always.

/// What a stored value says about the true (depth-limited) value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoundKind {
    /// At least the value.
    Lower = 1,
    /// At most the value.
    Upper = 2,
    /// Exactly the value.
    Exact = 3,
}

/// One entry as read back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Depth searched.
    pub depth: u32,
    /// Bound kind.
    pub kind: BoundKind,
    /// The value (scaled search units).
    pub value: i32,
    /// Best column (0-based), if known.
    pub best: Option<u32>,
}

/// Bytes per slot: the key and the data word.
const SLOT_BYTES: usize = 16;

/// Depth-limited bounds keyed by position key.
pub struct DepthTable {
    slots: Vec<(u64, u64)>,
    /// 64 minus log2 of the slot count: the index is the top bits of a
    /// multiplicative hash, which depend on every bit of the key.
    shift: u32,
}

impl DepthTable {
    /// A table of at most `mebibytes` MiB (a power of two of slots, at
    /// least 1 MiB); `None` if the memory cannot be had.
    pub fn try_with_mebibytes(mebibytes: usize) -> Option<DepthTable> {
        let slots = (mebibytes.max(1).saturating_mul(1 << 20)) / SLOT_BYTES;
        let slots = 1usize << (usize::BITS - 1 - slots.leading_zeros());
        let mut table = Vec::new();
        table.try_reserve_exact(slots).ok()?;
        table.resize(slots, (0, 0));
        Some(DepthTable {
            slots: table,
            shift: 64 - slots.trailing_zeros(),
        })
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.slots.fill((0, 0));
    }

    #[inline]
    fn index(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize
    }

    /// The entry for `key`, if stored.
    #[inline]
    pub fn get(&self, key: u64) -> Option<Entry> {
        let (k, data) = self.slots[self.index(key)];
        if data == 0 || k != key {
            return None;
        }
        let kind = match (data >> 24) & 0xff {
            1 => BoundKind::Lower,
            2 => BoundKind::Upper,
            _ => BoundKind::Exact,
        };
        let best = ((data >> 16) & 0xff) as u32;
        Some(Entry {
            depth: ((data >> 32) & 0xff) as u32,
            kind,
            value: i32::from(data as u16 as i16),
            best: best.checked_sub(1),
        })
    }

    /// Stores an entry for `key`.
    #[inline]
    pub fn put(&mut self, key: u64, entry: Entry) {
        let best = entry.best.map_or(0, |c| u64::from(c) + 1);
        let data = u64::from(entry.depth.min(255)) << 32
            | (entry.kind as u64) << 24
            | best << 16
            | u64::from(entry.value as i16 as u16);
        let i = self.index(key);
        self.slots[i] = (key, data);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let mut t = DepthTable::try_with_mebibytes(1).unwrap();
        let e = Entry {
            depth: 7,
            kind: BoundKind::Upper,
            value: -1234,
            best: Some(3),
        };
        t.put(42, e);
        assert_eq!(t.get(42), Some(e));
        assert_eq!(t.get(43), None);
        t.clear();
        assert_eq!(t.get(42), None);
    }
}
