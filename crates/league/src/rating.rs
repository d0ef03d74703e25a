//! Ratings with an uncertainty: the Weng-Lin Bayesian approximation
//! (Weng and Lin, "A Bayesian Approximation Method for Online Ranking",
//! JMLR 12, 2011) in its Bradley-Terry form with full pairing, as PyPI's
//! `openskill` computes it (`BradleyTerryFull`, with its defaults: mean
//! 25, deviation 25/3, beta 25/6, kappa 0.0001, and tau 25/300 added to
//! every deviation before a game).
//!
//! Why this model: a student's strength is a mean and an uncertainty that
//! shrinks with each game (a new submission moves fast, an old one
//! slowly), ranking by the conservative `mu - 3 sigma` keeps a lucky new
//! submission from topping the ladder, and a game updates two ratings in
//! closed form, so the league needs no refit of all games. TrueSkill does
//! the same with a factor graph; Weng-Lin gets within its accuracy at a
//! fraction of the code, and openskill's published numbers pin ours
//! (the tests below).

use std::collections::BTreeMap;

use connect4::score::Outcome;
use connect4_match::ending::GameResult;

/// A rating: the mean of a player's strength and its standard deviation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// The mean.
    pub mu: f64,
    /// The standard deviation: how unsure the mean is.
    pub sigma: f64,
}

/// The mean of a new player.
pub const MU: f64 = 25.0;
/// The deviation of a new player.
pub const SIGMA: f64 = MU / 3.0;
/// The spread of a single game's performance around the strength.
const BETA: f64 = SIGMA / 2.0;
/// The floor of a deviation's shrinking factor.
const KAPPA: f64 = 0.0001;
/// Added to every deviation before a game: strengths drift.
const TAU: f64 = MU / 300.0;

impl Default for Rating {
    fn default() -> Rating {
        Rating {
            mu: MU,
            sigma: SIGMA,
        }
    }
}

impl Rating {
    /// The conservative estimate the ladder is ranked by: `mu - 3 sigma`
    /// (openskill's `ordinal`), below the strength with 99.9% confidence.
    pub fn ordinal(&self) -> f64 {
        self.mu - 3.0 * self.sigma
    }

    /// The 95% interval of the strength.
    pub fn interval(&self) -> (f64, f64) {
        (self.mu - 1.96 * self.sigma, self.mu + 1.96 * self.sigma)
    }
}

/// The ratings of `a` and `b` after a game between them that ended
/// `result` for `a`.
pub fn rate(a: Rating, b: Rating, result: Outcome) -> (Rating, Rating) {
    let var_a = a.sigma * a.sigma + TAU * TAU;
    let var_b = b.sigma * b.sigma + TAU * TAU;
    let c = (var_a + var_b + 2.0 * BETA * BETA).sqrt();
    let p_a = 1.0 / (1.0 + ((b.mu - a.mu) / c).exp());
    let s_a = match result {
        Outcome::Win => 1.0,
        Outcome::Draw => 0.5,
        Outcome::Loss => 0.0,
    };
    let one = |mu: f64, var: f64, s: f64, p: f64| {
        let omega = var / c * (s - p);
        let gamma = var.sqrt() / c;
        let delta = gamma * var / (c * c) * p * (1.0 - p);
        Rating {
            mu: mu + omega,
            sigma: (var * (1.0 - delta).max(KAPPA)).sqrt(),
        }
    };
    (
        one(a.mu, var_a, s_a, p_a),
        one(b.mu, var_b, 1.0 - s_a, 1.0 - p_a),
    )
}

/// The outcome of a game's result for its first player.
pub fn outcome_of(result: GameResult) -> Outcome {
    match result {
        GameResult::FirstWon => Outcome::Win,
        GameResult::SecondWon => Outcome::Loss,
        GameResult::Draw => Outcome::Draw,
    }
}

/// A player's rating while games are replayed, and whether it is fixed
/// (an anchor's, which no game moves).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Replayed {
    /// The rating so far.
    pub rating: Rating,
    /// Whether games leave it as it is.
    pub fixed: bool,
}

/// Replays `games` (first, second, result) in order
/// over `ratings`, each game moving the ratings of its players that are
/// not fixed; a game with a player not in `ratings` is left out.
pub fn replay(
    ratings: &mut BTreeMap<i64, Replayed>,
    games: impl IntoIterator<Item = (i64, i64, GameResult)>,
) {
    for (a, b, result) in games {
        let (Some(ra), Some(rb)) = (ratings.get(&a).copied(), ratings.get(&b).copied()) else {
            continue;
        };
        let (na, nb) = rate(ra.rating, rb.rating, outcome_of(result));
        for (id, was, now) in [(a, ra, na), (b, rb, nb)] {
            if !was.fixed {
                ratings.insert(
                    id,
                    Replayed {
                        rating: now,
                        fixed: false,
                    },
                );
            }
        }
    }
}

/// The chance that `a` beats `b`, a draw counted half (the model's own).
pub fn expected(a: Rating, b: Rating) -> f64 {
    let c = (a.sigma * a.sigma + b.sigma * b.sigma + 2.0 * BETA * BETA).sqrt();
    1.0 / (1.0 + ((b.mu - a.mu) / c).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// openskill 6.2.0 from PyPI, `BradleyTerryFull()` with its defaults:
    /// `m.rate([[a], [b]])` (a wins), `ranks=[1, 1]` (a draw), and a win
    /// of a weaker player, `a = m.rating(mu=30, sigma=4)`,
    /// `b = m.rating(mu=20, sigma=6)`, `ranks=[2, 1]`.
    /// scripts/openskill-reference.py prints them again.
    #[test]
    fn ratings_match_openskill_s_bradley_terry_full() {
        let close = |x: f64, y: f64| (x - y).abs() < 1e-9;
        let new = Rating::default();
        let (a, b) = rate(new, new, Outcome::Win);
        assert!(close(a.mu, 27.635389493140497), "{a:?}");
        assert!(close(a.sigma, 8.06590141354368), "{a:?}");
        assert!(close(b.mu, 22.364610506859503), "{b:?}");
        assert!(close(b.sigma, 8.06590141354368), "{b:?}");
        let (a, b) = rate(new, new, Outcome::Draw);
        assert!(close(a.mu, 25.0) && close(b.mu, 25.0), "{a:?} {b:?}");
        assert!(close(a.sigma, 8.06590141354368), "{a:?}");
        let strong = Rating {
            mu: 30.0,
            sigma: 4.0,
        };
        let weak = Rating {
            mu: 20.0,
            sigma: 6.0,
        };
        let (a, b) = rate(strong, weak, Outcome::Loss);
        assert!(close(a.mu, 28.719014522273632), "{a:?}");
        assert!(close(a.sigma, 3.9706488720194377), "{a:?}");
        assert!(close(b.mu, 22.88152264729337), "{b:?}");
        assert!(close(b.sigma, 5.846261456082412), "{b:?}");
    }

    #[test]
    fn a_replay_moves_the_players_that_are_not_fixed_in_order() {
        let new = Replayed {
            rating: Rating::default(),
            fixed: false,
        };
        let anchor = Replayed {
            rating: Rating::default(),
            fixed: true,
        };
        let mut ratings = BTreeMap::from([(1, new), (2, anchor), (3, new)]);
        replay(
            &mut ratings,
            [
                (1, 2, GameResult::FirstWon),
                (3, 9, GameResult::FirstWon),
                (3, 1, GameResult::Draw),
            ],
        );
        assert_eq!(ratings[&2], anchor);
        let (won, _) = rate(Rating::default(), Rating::default(), Outcome::Win);
        let (drew_3, drew_1) = rate(Rating::default(), won, Outcome::Draw);
        assert_eq!(ratings[&1].rating, drew_1);
        assert_eq!(ratings[&3].rating, drew_3);
        assert_eq!(outcome_of(GameResult::SecondWon), Outcome::Loss);
        assert_eq!(outcome_of(GameResult::Draw), Outcome::Draw);
    }

    #[test]
    fn wins_raise_the_conservative_estimate_and_shrink_the_deviation() {
        let (mut a, mut b) = (Rating::default(), Rating::default());
        for _ in 0..50 {
            (a, b) = rate(a, b, Outcome::Win);
        }
        assert!(a.ordinal() > b.ordinal());
        assert!(a.sigma < SIGMA && b.sigma < SIGMA, "{a:?} {b:?}");
        assert!(expected(a, b) > 0.9, "{}", expected(a, b));
    }
}
