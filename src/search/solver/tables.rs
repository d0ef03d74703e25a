//! The solver's tables and their keys: one table shared by every thread
//! for the positions near the root, and each thread's own small one for
//! the deep positions (nearly all the nodes); a position and its mirror
//! image share an entry early in the game. What each size bought:
//! docs/measurements.md.

use std::sync::Arc;

use super::Solver;
use crate::position::Position;
use crate::rules::Rules;
use crate::score;
use crate::search::bounds_table::TranspositionTable;

/// Up to this ply, a position and its mirror image share a table entry.
const SYMMETRY_PLIES: u32 = 20;
/// Positions with fewer empty cells than this are deep: each thread keeps
/// them in a small table of its own ([`DEEP_TABLE_MB`]), the others in the
/// table the threads share (of the size asked for). Deep positions are
/// nearly all the nodes, cheap to prove again, and a small table stays in
/// the processor's caches where a large one makes every probe wait for
/// memory; near the root, a larger table keeps the proofs of big subtrees.
pub const DEEP_BELOW_EMPTY: u32 = 24;
/// The size in MiB of the table each searching thread keeps of its own for
/// the positions deep in the game (fewer than [`DEEP_BELOW_EMPTY`] empty
/// cells, on every board): small enough to stay in the processor's caches.
pub const DEEP_TABLE_MB: usize = 4;
/// Default table size in MiB: a small table stays in the caches, and the
/// lookups, not the nodes, cost.
pub const DEFAULT_HASH_MB: usize = 16;
/// The smallest table, in MiB (smaller sizes round up to it): enough for
/// proofs of a few thousand nodes, such as adjudication.
pub const MIN_HASH_MB: usize = 16;

/// Bits of the table keys of a board's positions.
pub(super) fn key_bits(rules: Rules) -> u32 {
    rules.columns() * rules.column_height()
}

/// A thread's own table of deep positions for a board (see
/// [`DEEP_BELOW_EMPTY`]), or `None` if the memory cannot be had.
pub(super) fn deep_table(rules: Rules) -> Option<Arc<TranspositionTable>> {
    TranspositionTable::try_with_mebibytes(DEEP_TABLE_MB, key_bits(rules)).map(Arc::new)
}

/// The key a position is stored under, and whether it is its mirror image's:
/// early in the game a position and its mirror image share one entry.
#[inline]
pub(super) fn table_key(p: &Position) -> (u64, bool) {
    let key = p.key();
    if p.moves_played() <= SYMMETRY_PLIES {
        let mirror = p.mirror_key();
        if mirror < key {
            return (mirror, true);
        }
    }
    (key, false)
}

impl Solver {
    /// The table of positions with `empty` empty cells (see `deep_tt`).
    #[inline(always)]
    pub(super) fn table(&self, empty: u32) -> &TranspositionTable {
        if empty < DEEP_BELOW_EMPTY {
            &self.deep_tt
        } else {
            &self.tt
        }
    }

    /// The table priority of a node whose search began when the node count
    /// was `start`: the bit length of the nodes its subtree cost, so that
    /// the entries that were costly to prove are the ones kept.
    #[inline(always)]
    pub(super) fn work_since(&self, start: u64) -> u32 {
        u64::BITS - (self.budget.nodes() - start).leading_zeros()
    }

    /// The bounds of `p`'s score known before searching it: from the
    /// rules (nobody wins at once), a layer's outcome, the table entry at
    /// `key` (with the entry's best column as stored, in the frame of the
    /// key's position) and, when a search from `alpha` could be cut by
    /// them, the claimeven bound and the opponent's odd threat (among its
    /// `threats`, the cells where it would complete a line).
    #[inline(always)]
    pub(super) fn node_bounds(
        &self,
        p: &Position,
        key: u64,
        alpha: i32,
        threats: u64,
    ) -> (i32, i32, Option<u32>) {
        let mut lo = score::lower_bound(p);
        let mut hi = score::upper_bound(p);
        if let Some((l, h)) = self.layer_bounds(p) {
            lo = lo.max(l);
            hi = hi.min(h);
        }
        let mut hint = None;
        if let Some(b) = self.table(p.empty_cells()).get(key) {
            if let Some(l) = b.lower {
                lo = lo.max(l);
            }
            if let Some(u) = b.upper {
                hi = hi.min(u);
            }
            hint = b.best;
        }
        // No win for the first player where the second's claimeven denies
        // it every line: a draw at best, a loss where claimeven also gives
        // the second player a line (looked at only when that can cut).
        if hi > -1
            && alpha >= -1
            && let Some(b) = score::claimeven_bound(p)
        {
            hi = hi.min(b);
        }
        // A loss for the second player where the first's odd threat wins by
        // zugzwang.
        if hi > -1
            && alpha >= -2
            && let Some(b) = score::odd_threat_bound(p, threats)
        {
            hi = hi.min(b);
        }
        (lo, hi, hint)
    }

    /// The cell of the move the table holds for `p` (the one that proved
    /// its lower bound, or its best), or 0 if none: after a proof of the
    /// root, usually the move that keeps its value, found without
    /// searching the moves before it again.
    pub(super) fn table_move(&self, p: &Position) -> u64 {
        let (key, mirrored) = table_key(p);
        let table = self.table(p.empty_cells());
        let Some(column) = table.get(key).and_then(|b| b.best) else {
            return 0;
        };
        let column = if mirrored {
            p.columns() - 1 - column
        } else {
            column
        };
        if column < p.columns() {
            p.possible() & p.column_mask(column)
        } else {
            0
        }
    }
}
