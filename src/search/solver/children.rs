//! What a node learns from its children before it searches any of them:
//! a child the opponent's claimeven holds down, a child whose stored bound
//! decides the node (an enhanced transposition cutoff), and, on the way,
//! the children's table slots asked for ahead of their own lookups.

use super::Solver;
use super::tables::table_key;
use crate::position::{Position, cells};
use crate::score;

/// Enhanced transposition cutoffs (a child's stored bound deciding its
/// parent before any move is searched) in nodes with at least this many
/// empty cells: nearer the leaves the lookups cost more than they save.
const ETC_EMPTY: u32 = 13;
/// ... and only once the search has visited this many nodes: their
/// lookups stall on memory, which only a hard search repays.
const ETC_AFTER_NODES: u64 = 200_000;
/// The most children a node has (the widest board).
const MAX_CHILDREN: usize = crate::rules::MAX_COLUMNS as usize;

/// The table keys of a node's children, with their cells.
struct ChildKeys {
    keys: [(u64, u64); MAX_CHILDREN],
    len: usize,
}

impl Solver {
    /// A child that proves a score of at least `beta` for `p` (whose own
    /// bounds did not decide it) before any move is searched: that score
    /// and the child's cell. First a move after which claimeven denies the
    /// opponent every line (`score::claimeven_move`, which reads the board
    /// only); then, in a hard search, a child whose stored upper bound is
    /// low enough. Either way the children's table slots are asked for,
    /// so that their own lookups find them loaded.
    #[inline]
    pub(super) fn child_cutoff(&self, p: &Position, moves: u64, beta: i32) -> Option<(i32, u64)> {
        if let Some(cut) = score::claimeven_move(p, moves, beta) {
            return Some(cut);
        }
        if let Some(cut) = score::odd_threat_move(p, moves, beta) {
            return Some(cut);
        }
        let children = self.children_keys(p, moves);
        if p.empty_cells() < ETC_EMPTY || self.budget.nodes() < ETC_AFTER_NODES {
            return None;
        }
        self.stored_cutoff(p, &children, beta)
    }

    /// The table keys of the children after `moves` (cells), each with its
    /// cell; their table slots are asked to be loaded while this node works.
    #[inline]
    fn children_keys(&self, p: &Position, moves: u64) -> ChildKeys {
        let tt = self.table(p.empty_cells() - 1);
        let mut out = ChildKeys {
            keys: [(0, 0); MAX_CHILDREN],
            len: 0,
        };
        for cell in cells(moves) {
            let mut child = *p;
            child.play_cell(cell);
            let key = table_key(&child).0;
            tt.prefetch(key);
            out.keys[out.len] = (key, cell);
            out.len += 1;
        }
        out
    }

    /// A child whose stored upper bound already proves a score of at least
    /// `beta` for its parent: that score and the child's cell.
    #[inline]
    fn stored_cutoff(&self, p: &Position, children: &ChildKeys, beta: i32) -> Option<(i32, u64)> {
        let tt = self.table(p.empty_cells() - 1);
        children.keys[..children.len]
            .iter()
            .find_map(|&(key, cell)| {
                let upper = tt.get(key)?.upper?;
                (-upper >= beta).then_some((-upper, cell))
            })
    }
}
