//! Perft: the number of distinct positions reachable after exactly N plies.
//!
//! Games stop at a win, so a position where the last move won is counted at
//! its ply but not extended. Positions reached by different move orders are
//! counted once (this is John Tromp's count, OEIS A212693 on 7 x 6: 1, 7, 49,
//! 238, 1120, 4263, ...). The count goes level by level; each level is sorted
//! by position key and deduplicated.

use crate::position::{Position, cells};
use crate::rules::Rules;

/// Counts the distinct positions after exactly `plies` moves, one entry per
/// ply from 0 to `plies`.
pub fn perft_levels(rules: Rules, plies: u32) -> Vec<u64> {
    let mut level = vec![Position::new(rules)];
    let mut counts = vec![1];
    for _ in 0..plies {
        let mut next = Vec::with_capacity(level.len() * 4);
        for p in &level {
            if p.moves_played() > 0 && p.last_move_won() {
                continue;
            }
            for cell in cells(p.possible()) {
                let mut child = *p;
                child.play_cell(cell);
                next.push(child);
            }
        }
        next.sort_unstable_by_key(Position::key);
        next.dedup_by_key(|p| p.key());
        counts.push(next.len() as u64);
        level = next;
    }
    counts
}

/// Counts the distinct positions after exactly `plies` moves.
pub fn perft(rules: Rules, plies: u32) -> u64 {
    *perft_levels(rules, plies)
        .last()
        .expect("level 0 is always there")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_levels() {
        assert_eq!(perft_levels(Rules::STANDARD, 4), vec![1, 7, 49, 238, 1120]);
    }
}
