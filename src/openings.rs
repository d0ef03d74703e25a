//! Openings for matches and self-play: random ones from a seed, or every
//! position of a number of plies; and the seed of each game of a run.

use std::collections::HashSet;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::game::Game;
use crate::rules::Rules;

/// Up to `count` distinct random openings of `plies` plies from `seed`:
/// none ends the game and in none can the side to move win at once (fewer
/// if there are not that many; callers cycle through them).
pub fn random_openings(rules: Rules, plies: u32, count: usize, seed: u64) -> Vec<Game> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let plies = plies.min(rules.cells().saturating_sub(1));
    let mut tries = 0;
    while out.len() < count && tries < count.saturating_mul(100) {
        tries += 1;
        let mut game = Game::new(rules);
        for _ in 0..plies {
            let p = game.position();
            if p.is_over() {
                break;
            }
            let legal = p.legal_moves();
            let c = legal[rng.random_range(0..legal.len())];
            game.play(i64::from(c) + 1).expect("a legal move");
        }
        let p = game.position();
        if !p.is_over() && p.winning_moves() == 0 && seen.insert(game.move_string()) {
            out.push(game);
        }
    }
    out
}

/// Every distinct position after `plies` plies that does not end the game,
/// a mirror image counted once, as the first game that reaches it.
pub fn all_openings(rules: Rules, plies: u32) -> Vec<Game> {
    let mut seen = HashSet::new();
    let mut frontier = vec![Game::new(rules)];
    for _ in 0..plies {
        let mut next = Vec::new();
        for game in frontier {
            for c in game.position().legal_moves() {
                let mut g = game.clone();
                g.play(i64::from(c) + 1).expect("legal");
                let p = g.position();
                if p.is_over() || !seen.insert(p.key().min(p.mirror_key())) {
                    continue;
                }
                next.push(g);
            }
        }
        frontier = next;
    }
    frontier
}

/// The seed of game `game` for a player (or a run) whose own seed is `own`:
/// both mixed, so players with different seeds still differ in the same
/// game, and each game of a run differs from the others.
pub fn game_seed(own: u64, game: u64) -> u64 {
    // SplitMix64's finaliser over the pair.
    let mut z = own ^ game.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_openings_are_distinct_reproducible_and_open() {
        let a = random_openings(Rules::STANDARD, 4, 50, 7);
        let b = random_openings(Rules::STANDARD, 4, 50, 7);
        assert_eq!(a.len(), 50);
        let strings = |v: &[Game]| v.iter().map(Game::move_string).collect::<Vec<_>>();
        assert_eq!(strings(&a), strings(&b));
        let distinct: HashSet<String> = strings(&a).into_iter().collect();
        assert_eq!(distinct.len(), 50);
        for g in &a {
            assert_eq!(g.moves().len(), 4);
            assert!(!g.position().is_over() && g.position().winning_moves() == 0);
        }
        assert_ne!(
            strings(&a),
            strings(&random_openings(Rules::STANDARD, 4, 50, 8))
        );
        // Only 7 one-ply openings exist.
        assert_eq!(random_openings(Rules::STANDARD, 1, 20, 1).len(), 7);
    }

    #[test]
    fn every_two_ply_opening_once_with_mirrors_folded() {
        assert_eq!(all_openings(Rules::STANDARD, 2).len(), 25);
        assert_eq!(all_openings(Rules::STANDARD, 0).len(), 1);
    }
}
