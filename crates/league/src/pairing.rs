//! Who plays whom next: a round gives every active student games against
//! the players rated nearest (students and anchors alike), a few at
//! random among the nearest so that nobody meets the same opponent every
//! time, and more games to a submission that has played few (its rating
//! is still unsure). Colours alternate by pair: each pairing is played
//! from one opening with the colours swapped. The final round is every
//! pairing of the students' latest submissions, colours swapped.

use connect4::MoveList;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::kinds::GameKind;
use crate::store::{GameRow, Player};

/// Pairs a round gives a student (two games each).
pub const PAIRS_PER_ROUND: usize = 1;
/// Pairs more for a submission with fewer than [`NEW_GAMES`] games.
const NEW_PAIRS: usize = 2;
/// Games under which a submission counts as new.
pub const NEW_GAMES: i64 = 12;
/// Opponents chosen among this many nearest.
const NEAREST: usize = 3;

/// One round of ladder games for the active `players` (`games` gives how
/// many each has played); `openings` are drawn from, `seed` makes the
/// round reproducible.
pub fn round(
    players: &[&Player],
    games: impl Fn(i64) -> i64,
    openings: &[MoveList],
    seed: u64,
) -> Vec<GameRow> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::new();
    for p in players.iter().filter(|p| !p.anchor) {
        let pairs = PAIRS_PER_ROUND
            + if games(p.id) < NEW_GAMES {
                NEW_PAIRS
            } else {
                0
            };
        let mut others: Vec<&&Player> = players
            .iter()
            .filter(|q| q.id != p.id && q.student != p.student)
            .collect();
        let near = |q: &&&Player| (q.rating.ordinal() - p.rating.ordinal()).abs();
        others.sort_by(|a, b| near(a).total_cmp(&near(b)));
        others.truncate(NEAREST.max(pairs));
        for _ in 0..pairs.min(others.len()) {
            let q = others.swap_remove(rng.random_range(0..others.len()));
            let opening = match openings.len() {
                0 => MoveList::new(),
                n => openings[rng.random_range(0..n)].clone(),
            };
            let seed = rng.random_range(1..i64::from(u32::MAX));
            out.extend(pair(p.id, q.id, &opening, seed, GameKind::Ladder));
        }
    }
    out
}

/// The final round: every pairing of `students` (their latest
/// submissions), `pairs` colour-swapped pairs each.
pub fn final_round(students: &[&Player], openings: &[MoveList], pairs: usize) -> Vec<GameRow> {
    let mut out = Vec::new();
    let mut k = 0;
    for (i, a) in students.iter().enumerate() {
        for b in &students[i + 1..] {
            for _ in 0..pairs {
                let opening = openings
                    .get(k % openings.len().max(1))
                    .cloned()
                    .unwrap_or_default();
                out.extend(pair(a.id, b.id, &opening, k as i64 + 1, GameKind::Final));
                k += 1;
            }
        }
    }
    out
}

/// The two games of a pair: `a` first, then `b` first, from one opening.
fn pair(a: i64, b: i64, opening: &MoveList, seed: i64, kind: GameKind) -> [GameRow; 2] {
    let game = |first, second| GameRow {
        id: 0,
        first,
        second,
        kind,
        opening: opening.clone(),
        seed,
    };
    [game(a, b), game(b, a)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rating::Rating;

    fn player(id: i64, student: &str, mu: f64, anchor: bool) -> Player {
        Player {
            id,
            student: student.into(),
            anchor,
            version: 1,
            fingerprint: String::new(),
            spec: String::new(),
            state: crate::kinds::State::Active,
            note: None,
            rating: Rating { mu, sigma: 1.0 },
        }
    }

    #[test]
    fn students_meet_the_nearest_and_new_ones_play_more() {
        let list = [
            player(1, "random", 10.0, true),
            player(2, "alice", 20.0, false),
            player(3, "bob", 21.0, false),
            player(4, "carol", 40.0, false),
            player(5, "perfect", 45.0, true),
            player(6, "dave", 19.0, false),
        ];
        let refs: Vec<&Player> = list.iter().collect();
        let played = |id| if id == 6 { 0 } else { 100 };
        let games = round(&refs, played, &["44".parse().unwrap()], 7);
        // Two games a pair; dave (new) has three pairs, the others one.
        assert_eq!(games.len(), 2 * (3 + 3));
        let with = |id| {
            games
                .iter()
                .filter(|g| g.first == id || g.second == id)
                .count()
        };
        assert!(with(6) >= 6, "dave plays three pairs at least: {games:?}");
        // carol meets one of the three nearest to her, never random.
        let carol: Vec<i64> = games
            .iter()
            .filter(|g| g.first == 4)
            .map(|g| g.second)
            .collect();
        assert!(carol.iter().all(|&o| o != 1), "{carol:?}");
        assert!(
            games
                .iter()
                .all(|g| g.kind == GameKind::Ladder && g.opening == "44")
        );
    }

    #[test]
    fn the_final_round_is_every_pairing_with_colours_swapped() {
        let list = [
            player(2, "alice", 20.0, false),
            player(3, "bob", 21.0, false),
            player(4, "carol", 40.0, false),
        ];
        let refs: Vec<&Player> = list.iter().collect();
        let games = final_round(&refs, &["4".parse().unwrap(), "3".parse().unwrap()], 2);
        assert_eq!(games.len(), 3 * 2 * 2);
        for (a, b) in [(2, 3), (2, 4), (3, 4)] {
            let n = |x, y| {
                games
                    .iter()
                    .filter(|g| g.first == x && g.second == y)
                    .count()
            };
            assert_eq!((n(a, b), n(b, a)), (2, 2));
        }
    }
}
