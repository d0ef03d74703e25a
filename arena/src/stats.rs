//! Match statistics: score, Elo difference with a 95% interval, likelihood
//! of superiority.
//!
//! With `n` games, `w` wins, `d` draws and `l` losses, the score is
//! `s = (w + d/2) / n` and the Elo difference `-400 log10(1/s - 1)` (the
//! logistic model). The interval maps `s +- 1.96 sigma` through the same
//! formula, with `sigma^2 = (w (1-s)^2 + d (1/2-s)^2 + l s^2) / n / n`, the
//! variance of the mean of per-game scores (the trinomial model of
//! cutechess-cli and fastchess). LOS is `Phi((w - l) / sqrt(w + l))`, the
//! normal approximation of the chance that the first engine is stronger.

/// Wins, draws and losses from the first engine's view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games the first engine won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games the first engine lost.
    pub losses: u32,
}

impl Tally {
    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Mean score per game, 0 to 1.
    pub fn score(&self) -> f64 {
        (f64::from(self.wins) + f64::from(self.draws) / 2.0) / f64::from(self.games().max(1))
    }

    /// Elo difference and its 95% interval (low, high); infinite at a score
    /// of 0 or 1.
    pub fn elo(&self) -> (f64, f64, f64) {
        let n = f64::from(self.games().max(1));
        let s = self.score();
        let var = (f64::from(self.wins) * (1.0 - s).powi(2)
            + f64::from(self.draws) * (0.5 - s).powi(2)
            + f64::from(self.losses) * s.powi(2))
            / n
            / n;
        let sigma = var.sqrt();
        (
            elo_of(s),
            elo_of(s - 1.96 * sigma),
            elo_of(s + 1.96 * sigma),
        )
    }

    /// Likelihood of superiority, 0 to 1.
    pub fn los(&self) -> f64 {
        let decisive = f64::from(self.wins + self.losses);
        if decisive == 0.0 {
            return 0.5;
        }
        let z = (f64::from(self.wins) - f64::from(self.losses)) / decisive.sqrt();
        0.5 * (1.0 + erf(z / std::f64::consts::SQRT_2))
    }
}

/// The Elo difference of a score in the logistic model.
pub fn elo_of(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// The error function (Abramowitz and Stegun 7.1.26, error below 1.5e-7).
fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let y = 1.0 - poly * (-x * x).exp();
    if x >= 0.0 { y } else { -y }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worked_example() {
        // 60 wins, 20 draws, 20 losses: s = 0.7, Elo = -400 log10(1/0.7 - 1) = 147.2;
        // sigma^2 = (60*0.09 + 20*0.04 + 20*0.49) / 100 / 100 = 0.0016, sigma = 0.04;
        // interval: s in [0.6216, 0.7784] -> [86.2, 218.2] Elo.
        let t = Tally {
            wins: 60,
            draws: 20,
            losses: 20,
        };
        let (elo, low, high) = t.elo();
        assert!((elo - 147.2).abs() < 0.1, "{elo}");
        assert!((low - 86.2).abs() < 0.1, "{low}");
        assert!((high - 218.2).abs() < 0.1, "{high}");
        // LOS: z = 40 / sqrt(80) = 4.47 -> 0.999996
        assert!(t.los() > 0.9999 && t.los() < 1.0);
        let even = Tally {
            wins: 5,
            draws: 0,
            losses: 5,
        };
        assert!((even.los() - 0.5).abs() < 1e-9);
        assert_eq!(even.elo().0, 0.0);
        assert!((erf(1.0) - 0.842_700_79).abs() < 1e-6);
    }
}
