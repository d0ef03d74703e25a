//! Games between in-process agents: one game from an opening, and
//! colour-swapped pairs over a set of openings, as `tune` and the tests
//! play them.

use crate::agents::{Agent, AgentError, player};
use crate::position::{Player, Position, Status};
use crate::rules::Rules;
use crate::search::Limits;

/// Plays one game from `opening` (0-based columns, all legal); returns the
/// final status.
pub fn play_game(
    rules: Rules,
    opening: &[u32],
    first: &mut dyn Agent,
    second: &mut dyn Agent,
    limits: &Limits,
) -> Status {
    let mut p = Position::new(rules);
    for &c in opening {
        p.play(c);
    }
    loop {
        let status = p.status();
        if status != Status::Ongoing {
            return status;
        }
        let agent: &mut dyn Agent = if p.side_to_move() == Player::First {
            first
        } else {
            second
        };
        p.play(agent.choose(&p, limits, None).column);
    }
}

/// Scores of a colour-swapped match, from the first agent's view.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PairScore {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
    /// Sum over pairs of the pair score (0, 1/2, ..., 2) squared, for the
    /// variance of the pair mean.
    sum_sq: f64,
    /// Pairs played.
    pub pairs: u32,
}

impl PairScore {
    /// The score per game: (wins + draws / 2) / games.
    pub fn score(&self) -> f64 {
        let games = f64::from(self.wins + self.draws + self.losses);
        (f64::from(self.wins) + f64::from(self.draws) / 2.0) / games.max(1.0)
    }

    /// The standard error of [`PairScore::score`], from the spread of the
    /// pair scores (the two games of a pair share an opening, so they are
    /// not independent).
    pub fn std_error(&self) -> f64 {
        let n = f64::from(self.pairs);
        if n < 2.0 {
            return 0.5;
        }
        // Pair scores x_i in [0, 1] (per game): mean m, sample variance s^2.
        let m = self.score();
        let var = (self.sum_sq / n - m * m).max(0.0) * n / (n - 1.0);
        (var / n).sqrt()
    }

    /// Adds another match's counts.
    pub fn add(&mut self, other: &PairScore) {
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
        self.sum_sq += other.sum_sq;
        self.pairs += other.pairs;
    }
}

/// Plays a game pair from each opening, `a` first then second; the score is
/// `a`'s. Agents are built once from their specs.
pub fn play_pairs(
    rules: Rules,
    a: &str,
    b: &str,
    openings: &[Vec<u32>],
    limits: &Limits,
) -> Result<PairScore, AgentError> {
    let (mut x, mut y) = (player(a)?, player(b)?);
    let mut s = PairScore::default();
    for opening in openings {
        let mut points = 0.0;
        for a_first in [true, false] {
            let status = if a_first {
                play_game(rules, opening, x.as_mut(), y.as_mut(), limits)
            } else {
                play_game(rules, opening, y.as_mut(), x.as_mut(), limits)
            };
            let a_side = if a_first {
                Player::First
            } else {
                Player::Second
            };
            match status {
                Status::Won(w) if w == a_side => {
                    s.wins += 1;
                    points += 1.0;
                }
                Status::Won(_) => s.losses += 1,
                _ => {
                    s.draws += 1;
                    points += 0.5;
                }
            }
        }
        let x = points / 2.0;
        s.sum_sq += x * x;
        s.pairs += 1;
    }
    Ok(s)
}

/// `count` random openings of `plies` plies from a seed, none over and none
/// where the side to move can win at once.
pub fn random_openings(rules: Rules, plies: u32, count: usize, seed: u64) -> Vec<Vec<u32>> {
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(count);
    'outer: while out.len() < count {
        let mut p = Position::new(rules);
        let mut moves = Vec::new();
        for _ in 0..plies.min(rules.cells().saturating_sub(1)) {
            let legal = p.legal_moves();
            let c = legal[rng.random_range(0..legal.len())];
            p.play(c);
            moves.push(c);
            if p.is_over() {
                continue 'outer;
            }
        }
        if p.winning_moves() == 0 {
            out.push(moves);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_scores_add_up_and_their_error_shrinks() {
        let openings = random_openings(Rules::STANDARD, 2, 10, 1);
        assert_eq!(openings.len(), 10);
        assert!(openings.iter().all(|o| o.len() == 2));
        let s = play_pairs(
            Rules::STANDARD,
            "greedy",
            "random:seed=1",
            &openings,
            &Limits::none(),
        )
        .unwrap();
        assert_eq!((s.wins + s.draws + s.losses, s.pairs), (20, 10));
        assert!(s.score() > 0.8, "{s:?}");
        let mut all = PairScore::default();
        all.add(&s);
        all.add(&s);
        assert_eq!(all.pairs, 20);
        assert!(all.std_error() <= s.std_error());
        // Equal agents from equal openings: every pair is 1-1 for the same
        // deterministic player.
        let s = play_pairs(
            Rules::STANDARD,
            "greedy",
            "greedy",
            &openings,
            &Limits::none(),
        )
        .unwrap();
        assert!(
            (s.score() - 0.5).abs() < 1e-9 && s.std_error() < 1e-9,
            "{s:?}"
        );
    }
}
