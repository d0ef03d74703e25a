//! Match statistics, computed as cutechess-cli, fastchess and fishtest do.
//!
//! **Score and Elo.** With `n` games, `w` wins, `d` draws and `l` losses the
//! score is `s = (w + d/2) / n` and the Elo difference `-400 log10(1/s - 1)`
//! (the logistic model; chessprogramming.org, "Match Statistics").
//!
//! **Intervals.** Games come in colour-swapped pairs from the same opening,
//! so the two games of a pair are not independent. The pentanomial model
//! counts pairs by the points the first engine took from them: 0 (LL),
//! 1/2 (LD), 1 (DD or WL), 3/2 (WD), 2 (WW). With pair scores `x_i` in
//! `{0, 1/4, 1/2, 3/4, 1}` (points per game), `N` pairs, mean `m` and
//! variance `v = sum (x_i - m)^2 / N`, the 95% interval maps `m +- 1.96
//! sqrt(v / N)` through the Elo formula (fastchess and fishtest report the
//! same; the trinomial interval of single games, kept for unpaired games,
//! uses the per-game variance instead and overstates the error when pairs
//! are correlated).
//!
//! **LOS**, the likelihood of superiority: `Phi((s - 1/2) / sigma)` with the
//! same score `s` and standard error `sigma` as the interval (pentanomial
//! when there are pairs), so the two never disagree. The classic
//! `Phi((w - l) / sqrt(w + l))` ignores draws and pairing: `+5 =2 -3` in
//! pairs gave LOS 76% beside an interval that reaches below zero.
//!
//! **SPRT** (sequential probability ratio test) of H0: Elo = `elo0` against
//! H1: Elo = `elo1` (logistic Elo), with error rates `alpha` and `beta`:
//! the generalised SPRT of fishtest and fastchess with the normal
//! approximation, `LLR = N (s1 - s0) (2m - s0 - s1) / (2v)` over pairs,
//! where `s0`, `s1` are the scores of `elo0`, `elo1` (Michel Van den Bergh,
//! "A practical introduction to the GSPRT"). The test accepts H1 once
//! `LLR >= ln((1 - beta) / alpha)` and H0 once `LLR <= ln(beta / (1 -
//! alpha))`. Each pentanomial count gets 1/2 added before the LLR (our
//! choice, a prior of half a pair per outcome), so that a few identical
//! pairs, whose sample variance is zero, cannot decide the test; over
//! hundreds of pairs it changes the LLR by a few percent.

use std::collections::HashMap;

use serde::Serialize;

/// Wins, draws and losses from the first engine's view, and the pairs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Games the first engine won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games the first engine lost.
    pub losses: u32,
    /// Completed pairs by the first engine's points: LL, LD, DD or WL, WD, WW.
    pub penta: [u32; 5],
}

impl Tally {
    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Completed pairs.
    pub fn pairs(&self) -> u32 {
        self.penta.iter().sum()
    }

    /// Adds one game: `points` for the first engine (1, 1/2 or 0).
    pub fn add_game(&mut self, points: f64) {
        if points > 0.75 {
            self.wins += 1;
        } else if points > 0.25 {
            self.draws += 1;
        } else {
            self.losses += 1;
        }
    }

    /// Adds one completed pair: the first engine's points over both games.
    pub fn add_pair(&mut self, points: f64) {
        let index = (points * 2.0).round().clamp(0.0, 4.0) as usize;
        self.penta[index] += 1;
    }

    /// Mean score per game, 0 to 1.
    pub fn score(&self) -> f64 {
        (f64::from(self.wins) + f64::from(self.draws) / 2.0) / f64::from(self.games().max(1))
    }

    /// Draws per game.
    pub fn draw_ratio(&self) -> f64 {
        f64::from(self.draws) / f64::from(self.games().max(1))
    }

    /// Elo difference and its 95% interval (low, high), pentanomial when
    /// there are pairs, trinomial otherwise; infinite at a score of 0 or 1.
    pub fn elo(&self) -> (f64, f64, f64) {
        let s = self.score();
        let sigma = self.score_sigma();
        (
            elo_of(s),
            elo_of(s - 1.96 * sigma),
            elo_of(s + 1.96 * sigma),
        )
    }

    /// Adds another tally's counts.
    pub fn add(&mut self, other: &Tally) {
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
        for (a, b) in self.penta.iter_mut().zip(other.penta) {
            *a += b;
        }
    }

    /// The standard error of [`Tally::score`] from the spread of the pair
    /// scores (sample variance; the two games of a pair share an opening,
    /// so they are not independent); 0.5 with fewer than two pairs.
    pub fn std_error(&self) -> f64 {
        let n = f64::from(self.pairs());
        if n < 2.0 {
            return 0.5;
        }
        let (_, var, _) = penta_moments(&self.penta, 0.0);
        (var * n / (n - 1.0) / n).sqrt()
    }

    /// Likelihood of superiority, 0 to 1.
    pub fn los(&self) -> f64 {
        let sigma = self.score_sigma();
        let excess = self.score() - 0.5;
        if sigma == 0.0 {
            return if excess > 0.0 {
                1.0
            } else if excess < 0.0 {
                0.0
            } else {
                0.5
            };
        }
        0.5 * (1.0 + erf(excess / sigma / std::f64::consts::SQRT_2))
    }

    /// The standard error of the score per game behind [`Tally::elo`] and
    /// [`Tally::los`]: pentanomial when there are pairs, trinomial
    /// otherwise.
    fn score_sigma(&self) -> f64 {
        let s = self.score();
        if self.pairs() > 0 {
            let (_, var, n) = penta_moments(&self.penta, 0.0);
            (var / n).sqrt()
        } else {
            let n = f64::from(self.games().max(1));
            let var = (f64::from(self.wins) * (1.0 - s).powi(2)
                + f64::from(self.draws) * (0.5 - s).powi(2)
                + f64::from(self.losses) * s.powi(2))
                / n;
            (var / n).sqrt()
        }
    }
}

/// A tally fed one game at a time that counts a pair once its second game
/// arrives, in whatever order games finish.
#[derive(Clone, Debug, Default)]
pub struct PairedTally {
    /// The counts so far.
    pub tally: Tally,
    /// Points of pairs with one game in, by pair number.
    open: HashMap<u64, f64>,
}

impl PairedTally {
    /// Adds a game of pair `pair` in which the first engine took `points`.
    pub fn add(&mut self, pair: u64, points: f64) {
        self.tally.add_game(points);
        match self.open.remove(&pair) {
            Some(first) => self.tally.add_pair(first + points),
            None => {
                self.open.insert(pair, points);
            }
        }
    }
}

/// One engine's place on a rating list.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Rating {
    /// Elo, relative to the pool's mean (0).
    pub elo: f64,
    /// 95% interval, low end.
    pub low: f64,
    /// 95% interval, high end.
    pub high: f64,
}

/// Ratings of `engines` from every game between them, by maximum likelihood
/// in the logistic model, as Ordo and BayesElo do: the ratings `r` that make
/// each engine's expected points, `sum_j n_ij / (1 + 10^((r_j - r_i)/400))`,
/// equal its points. `results` holds `(i, j, points of i, games)` per pair
/// of engines. Each engine also gets one virtual draw against the pool's
/// mean (a prior, as BayesElo's), so a perfect score gives a finite rating.
/// The intervals are `+-1.96` standard errors from each engine's own Fisher
/// information (covariances left out, as Ordo's quick errors).
pub fn ratings(engines: usize, results: &[(usize, usize, f64, u32)]) -> Vec<Rating> {
    let scale = 400.0 / std::f64::consts::LN_10;
    let p = |diff: f64| 1.0 / (1.0 + 10f64.powf(-diff / 400.0));
    // Each engine's results, in their order: an iteration costs the
    // results and the engines once, not their product.
    let mut own: Vec<Vec<usize>> = vec![Vec::new(); engines];
    for (k, &(a, b, _, _)) in results.iter().enumerate() {
        if a < engines {
            own[a].push(k);
        }
        if b < engines && b != a {
            own[b].push(k);
        }
    }
    let mut r = vec![0.0f64; engines];
    let mut info = vec![0.0f64; engines];
    for _ in 0..10_000 {
        let mut change = 0.0f64;
        for i in 0..engines {
            // The prior: half a point from one game against the mean.
            let p0 = p(r[i]);
            let (mut expected, mut actual, mut fisher) = (p0, 0.5, p0 * (1.0 - p0));
            for &k in &own[i] {
                let (a, b, points, games) = results[k];
                let (opponent, own_points) = if a == i {
                    (b, points)
                } else {
                    (a, f64::from(games) - points)
                };
                let q = p(r[i] - r[opponent]);
                expected += f64::from(games) * q;
                actual += own_points;
                fisher += f64::from(games) * q * (1.0 - q);
            }
            let step = scale * (actual - expected) / fisher;
            r[i] += step;
            info[i] = fisher;
            change = change.max(step.abs());
        }
        let mean = r.iter().sum::<f64>() / engines.max(1) as f64;
        r.iter_mut().for_each(|x| *x -= mean);
        if change < 1e-7 {
            break;
        }
    }
    r.iter()
        .zip(&info)
        .map(|(&elo, &fisher)| {
            let sigma = scale / fisher.max(1e-12).sqrt();
            Rating {
                elo,
                low: elo - 1.96 * sigma,
                high: elo + 1.96 * sigma,
            }
        })
        .collect()
}

/// Mean, variance and count of the pair scores, each count plus `reg`.
fn penta_moments(penta: &[u32; 5], reg: f64) -> (f64, f64, f64) {
    let counts: Vec<f64> = penta.iter().map(|&c| f64::from(c) + reg).collect();
    let n: f64 = counts.iter().sum();
    let x = |i: usize| i as f64 / 4.0;
    let mean = counts
        .iter()
        .enumerate()
        .map(|(i, c)| c * x(i))
        .sum::<f64>()
        / n;
    let var = counts
        .iter()
        .enumerate()
        .map(|(i, c)| c * (x(i) - mean).powi(2))
        .sum::<f64>()
        / n;
    (mean, var, n)
}

/// The 95% Wilson score interval of a proportion: `successes` of `n`
/// trials (0 to 1 with no trials).
pub fn wilson(successes: u32, n: u32) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (k, n) = (f64::from(successes), f64::from(n));
    let z = 1.96_f64;
    let p = k / n;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / (1.0 + z * z / n);
    ((centre - half).max(0.0), (centre + half).min(1.0))
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

/// The score of an Elo difference in the logistic model.
pub fn score_of(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// An SPRT's hypotheses and error rates.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Sprt {
    /// Elo under H0.
    pub elo0: f64,
    /// Elo under H1.
    pub elo1: f64,
    /// False positive rate.
    pub alpha: f64,
    /// False negative rate.
    pub beta: f64,
}

/// What an SPRT concluded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Decision {
    /// H0 accepted: not as strong as `elo1`.
    H0,
    /// H1 accepted: stronger than `elo0`.
    H1,
}

/// What is wrong with an SPRT's parameters.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SprtError {
    /// The hypotheses are not two finite Elo values in order.
    #[error("elo0 = {elo0} must be below elo1 = {elo1}")]
    Order {
        /// Elo under H0.
        elo0: f64,
        /// Elo under H1.
        elo1: f64,
    },
    /// An error rate outside (0, 0.5).
    #[error("{name} = {value} must be between 0 and 0.5")]
    Rate {
        /// `alpha` or `beta`.
        name: &'static str,
        /// The value given.
        value: f64,
    },
    /// The text is not `elo0=..,elo1=..[,alpha=..,beta=..]`.
    #[error("'{text}': {why}")]
    Syntax {
        /// The part at fault.
        text: String,
        /// What is expected.
        why: &'static str,
    },
}

impl std::str::FromStr for Sprt {
    type Err = SprtError;

    /// Parses `elo0=0,elo1=10[,alpha=0.05,beta=0.05]`.
    fn from_str(text: &str) -> Result<Sprt, SprtError> {
        let (mut elo0, mut elo1, mut alpha, mut beta) = (None, None, 0.05, 0.05);
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let syntax = |why| SprtError::Syntax {
                text: part.to_string(),
                why,
            };
            let (k, v) = part.split_once('=').ok_or(syntax("expected KEY=VALUE"))?;
            let v: f64 = v.trim().parse().map_err(|_| syntax("not a number"))?;
            match k.trim() {
                "elo0" => elo0 = Some(v),
                "elo1" => elo1 = Some(v),
                "alpha" => alpha = v,
                "beta" => beta = v,
                _ => return Err(syntax("unknown key (keys: elo0, elo1, alpha, beta)")),
            }
        }
        let (Some(elo0), Some(elo1)) = (elo0, elo1) else {
            return Err(SprtError::Syntax {
                text: text.to_string(),
                why: "elo0 and elo1 are required, as in elo0=0,elo1=10",
            });
        };
        Sprt::new(elo0, elo1, alpha, beta)
    }
}

impl Sprt {
    /// Checks the parameters; the error says which is wrong.
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Sprt, SprtError> {
        if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
            return Err(SprtError::Order { elo0, elo1 });
        }
        for (name, value) in [("alpha", alpha), ("beta", beta)] {
            if !(value > 0.0 && value < 0.5) {
                return Err(SprtError::Rate { name, value });
            }
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// The (lower, upper) LLR bounds.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of the pairs so far (0 without pairs).
    pub fn llr(&self, penta: &[u32; 5]) -> f64 {
        if penta.iter().sum::<u32>() == 0 {
            return 0.0;
        }
        let (m, var, n) = penta_moments(penta, 0.5);
        let (s0, s1) = (score_of(self.elo0), score_of(self.elo1));
        n * (s1 - s0) * (2.0 * m - s0 - s1) / (2.0 * var)
    }

    /// The decision at `llr`, if any.
    pub fn decide(&self, llr: f64) -> Option<Decision> {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Some(Decision::H1)
        } else if llr <= lower {
            Some(Decision::H0)
        } else {
            None
        }
    }
}

/// A decision and where it was made.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Crossing {
    /// The hypothesis accepted.
    pub decision: Decision,
    /// Games of the pairing counted when the LLR first crossed a bound.
    pub games: u32,
    /// The LLR at that game.
    pub llr: f64,
}

/// An SPRT followed game by game. A sequential test stops at the first
/// crossing of a bound, so the first crossing is the verdict: games that
/// finish after it (those already running when it came) are counted in the
/// tally but never undo it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SprtWatch {
    /// The test.
    pub test: Sprt,
    /// The first crossing, once there was one.
    pub verdict: Option<Crossing>,
}

impl SprtWatch {
    /// A test that has seen no game.
    pub fn new(test: Sprt) -> SprtWatch {
        SprtWatch {
            test,
            verdict: None,
        }
    }

    /// Looks at the tally after one more game; keeps the first crossing.
    pub fn observe(&mut self, tally: &Tally) {
        if self.verdict.is_some() {
            return;
        }
        let llr = self.test.llr(&tally.penta);
        self.verdict = self.test.decide(llr).map(|decision| Crossing {
            decision,
            games: tally.games(),
            llr,
        });
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
    fn an_sprt_watch_keeps_its_first_crossing() {
        let test = Sprt::new(0.0, 50.0, 0.05, 0.05).unwrap();
        let mut watch = SprtWatch::new(test);
        let mut paired = PairedTally::default();
        // Nine pairs won-won or won-drawn cross the upper bound at game 18.
        for pair in 1..=9u64 {
            paired.add(pair, 1.0);
            watch.observe(&paired.tally);
            paired.add(pair, if pair % 2 == 1 { 1.0 } else { 0.5 });
            watch.observe(&paired.tally);
        }
        let verdict = watch.verdict.expect("decided");
        assert_eq!((verdict.decision, verdict.games), (Decision::H1, 18));
        // Six lost pairs bring the LLR back inside: the verdict stays.
        for pair in 10..=15u64 {
            for _ in 0..2 {
                paired.add(pair, 0.0);
                watch.observe(&paired.tally);
            }
        }
        assert_eq!(test.decide(test.llr(&paired.tally.penta)), None);
        assert_eq!(watch.verdict, Some(verdict));
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() < tol
    }

    #[test]
    fn trinomial_worked_example() {
        // 60 wins, 20 draws, 20 losses, no pairs: s = 0.7, Elo = -400
        // log10(1/0.7 - 1) = 147.2; per-game variance (60*0.09 + 20*0.04 +
        // 20*0.49) / 100 = 0.16, sigma = sqrt(0.16 / 100) = 0.04; interval
        // s in [0.6216, 0.7784] -> [86.2, 218.2] Elo.
        let t = Tally {
            wins: 60,
            draws: 20,
            losses: 20,
            penta: [0; 5],
        };
        let (elo, low, high) = t.elo();
        assert!(close(elo, 147.2, 0.1), "{elo}");
        assert!(close(low, 86.2, 0.1), "{low}");
        assert!(close(high, 218.2, 0.1), "{high}");
        // LOS: z = (0.7 - 0.5) / 0.04 = 5 -> Phi(5) = 0.9999997.
        assert!(t.los() > 0.9999 && t.los() < 1.0);
        let even = Tally {
            wins: 5,
            losses: 5,
            ..Tally::default()
        };
        assert!(close(even.los(), 0.5, 1e-9));
        assert_eq!(even.elo().0, 0.0);
        assert!(close(erf(1.0), 0.842_700_79, 1e-6));
    }

    #[test]
    fn los_agrees_with_the_interval() {
        // +5 =2 -3 in five pairs (WW, WL, WD, LL, WD: pair points 2, 1, 1.5,
        // 0, 1.5), the example: the interval reaches below 0, so
        // LOS must stay under 97.5%. The old W/L formula said 76%, with the
        // interval's own model it is lower still.
        let mut t = Tally::default();
        for (a, b) in [(1.0, 1.0), (1.0, 0.0), (1.0, 0.5), (0.0, 0.0), (1.0, 0.5)] {
            t.add_game(a);
            t.add_game(b);
            t.add_pair(a + b);
        }
        assert_eq!((t.wins, t.draws, t.losses), (5, 2, 3));
        let (_, low, high) = t.elo();
        assert!(low < 0.0 && high > 0.0, "{low} {high}");
        let los = t.los();
        assert!(los > 0.5 && los < 0.975, "{los}");
        // The interval's ends are where LOS would be 2.5% and 97.5%.
        let s = t.score();
        let sigma = (s - score_of(low)) / 1.96;
        assert!(close(
            los,
            0.5 * (1.0 + erf((s - 0.5) / sigma / 2f64.sqrt())),
            1e-9
        ));
    }

    #[test]
    fn ratings_by_maximum_likelihood() {
        // Two engines, 75 of 100 points: the logistic difference is 190.8;
        // the prior draw pulls each a little towards the mean.
        let r = ratings(2, &[(0, 1, 75.0, 100)]);
        let diff = r[0].elo - r[1].elo;
        assert!(diff > 180.0 && diff < 190.8, "{diff}");
        assert!(close(r[0].elo, -r[1].elo, 1e-6));
        assert!(r[0].low < r[0].elo && r[0].elo < r[0].high);
        // Three engines in a cycle of equal results are equal.
        let r = ratings(3, &[(0, 1, 5.0, 10), (1, 2, 5.0, 10), (2, 0, 5.0, 10)]);
        assert!(r.iter().all(|x| x.elo.abs() < 1e-6));
        // A perfect score stays finite; order follows the results.
        let r = ratings(3, &[(0, 1, 10.0, 10), (1, 2, 7.0, 10), (0, 2, 10.0, 10)]);
        assert!(r.iter().all(|x| x.elo.is_finite()));
        assert!(r[0].elo > r[1].elo && r[1].elo > r[2].elo);
    }

    #[test]
    fn pentanomial_worked_example() {
        // 100 pairs: 5 LL, 10 LD, 40 DD/WL, 25 WD, 20 WW. Pair scores mean
        // m = (10*0.25 + 40*0.5 + 25*0.75 + 20) / 100 = 0.6125; variance
        // v = 0.07171875 (by hand: sum c_i (x_i - m)^2 / 100); sigma =
        // sqrt(v / 100) = 0.026780; Elo 79.53, interval [41.90, 119.10].
        let mut t = Tally::default();
        for (i, &c) in [5u32, 10, 40, 25, 20].iter().enumerate() {
            for _ in 0..c {
                t.add_pair(i as f64 / 2.0);
            }
        }
        // The games of those pairs: 245 points of 400... wins/draws/losses
        // as if every DD pair were two draws: 20*2+25 = 65 wins, 10+40*2+25
        // = 115 draws, 5*2+10 = 20 losses -> score 0.6125 too.
        t.wins = 65;
        t.draws = 115;
        t.losses = 20;
        assert_eq!(t.pairs(), 100);
        let (elo, low, high) = t.elo();
        assert!(close(elo, 79.53, 0.01), "{elo}");
        assert!(close(low, 41.90, 0.01), "{low}");
        assert!(close(high, 119.10, 0.01), "{high}");
    }

    #[test]
    fn sprt_worked_examples() {
        // Values computed by hand (a short Python script of the formula in
        // the module doc): bounds +-2.944 at alpha = beta = 0.05.
        let s = Sprt::new(0.0, 20.0, 0.05, 0.05).unwrap();
        let (lower, upper) = s.bounds();
        assert!(close(lower, -2.9444, 1e-4) && close(upper, 2.9444, 1e-4));
        let good = [5, 10, 40, 25, 20];
        let bad = [20, 25, 40, 10, 5];
        assert!(close(s.llr(&good), 3.8336, 1e-3), "{}", s.llr(&good));
        assert_eq!(s.decide(s.llr(&good)), Some(Decision::H1));
        assert!(close(s.llr(&bad), -4.9892, 1e-3), "{}", s.llr(&bad));
        assert_eq!(s.decide(s.llr(&bad)), Some(Decision::H0));
        let narrow = Sprt::new(0.0, 10.0, 0.05, 0.05).unwrap();
        assert!(close(narrow.llr(&good), 2.0629, 1e-3));
        assert_eq!(narrow.decide(narrow.llr(&good)), None, "not yet");
        let even = [10, 20, 40, 20, 10];
        assert!(close(narrow.llr(&even), -0.1392, 1e-3));
        assert_eq!(s.llr(&[0; 5]), 0.0);
        // One lucky pair does not decide; thirty do.
        assert!(close(s.llr(&[0, 0, 0, 0, 1]), 0.0921, 1e-3));
        assert_eq!(s.decide(s.llr(&[0, 0, 0, 0, 30])), Some(Decision::H1));
        assert!(
            Sprt::new(5.0, 0.0, 0.05, 0.05)
                .unwrap_err()
                .to_string()
                .contains("below")
        );
        assert!(
            Sprt::new(0.0, 5.0, 0.7, 0.05)
                .unwrap_err()
                .to_string()
                .contains("alpha")
        );
        let parsed: Sprt = "elo0=0, elo1=10".parse().unwrap();
        assert_eq!((parsed.elo0, parsed.elo1, parsed.alpha), (0.0, 10.0, 0.05));
        for (bad, says) in [
            ("elo0=0", "elo0 and elo1 are required"),
            ("elo0=0,elo1=x", "'elo1=x': not a number"),
            ("elo0=0,elo1=5,gamma=1", "unknown key"),
            ("elo0", "expected KEY=VALUE"),
        ] {
            let e = bad.parse::<Sprt>().unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn wilson_matches_published_values() {
        // 87 of 100: 0.790 to 0.922; 100 of 100: 0.963 to 1 (Wilson, z = 1.96).
        let (lo, hi) = wilson(87, 100);
        assert!(
            (lo - 0.7902).abs() < 1e-3 && (hi - 0.9224).abs() < 1e-3,
            "{lo} {hi}"
        );
        let (lo, hi) = wilson(100, 100);
        assert!(
            (hi - 1.0).abs() < 1e-9 && (lo - 0.9630).abs() < 1e-3,
            "{lo}"
        );
        assert_eq!(wilson(0, 0), (0.0, 1.0));
    }
}
