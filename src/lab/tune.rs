//! Self-play tuning of an evaluator's weights, as one course report did it
//! (perturb the weights, keep the candidate if it beats the incumbent), but
//! with comparisons that mean something.
//!
//! Each iteration multiplies every weight of the incumbent by its own random
//! factor in `[1 - f, 1 + f]` (a zero weight moves to -1, 0 or 1), then
//! plays colour-swapped game pairs between the candidate and the incumbent
//! from fresh random openings, both searching with the same agent. The
//! candidate's score per game and its standard error come from the pair
//! scores ([`super::stats::Tally`]); the candidate replaces the
//! incumbent only when its score exceeds 1/2 by more than `z` standard
//! errors (`z` = 1 by default, about 84% one-sided confidence).

use std::num::NonZeroUsize;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use thiserror::Error;

use super::plot::{Figure, Panel, Point, Series};
use super::selfplay::{play_pairs, random_openings};
use super::stats::Tally;
pub use crate::agents::evaluators::{EvalKind, Weights};
use crate::agents::{AgentError, Spec};
use crate::rules::Rules;
use crate::search::Limits;

/// What to tune.
#[derive(Clone, Debug)]
pub struct TuneOptions {
    /// The searching agent without its evaluator, such as
    /// `alphabeta:depth=3`.
    pub agent: String,
    /// The starting weights (their evaluator is the one tuned).
    pub start: Weights,
    /// The board.
    pub rules: Rules,
    /// Candidates to try.
    pub iterations: u32,
    /// Game pairs per comparison.
    pub pairs: u32,
    /// Plies of each random opening.
    pub opening_plies: u32,
    /// Largest relative change of a weight.
    pub factor: f64,
    /// Standard errors the candidate's score must clear above 1/2.
    pub z: f64,
    /// Seed of the perturbations and openings.
    pub seed: u64,
    /// Threads playing games.
    pub threads: NonZeroUsize,
}

/// Options that cannot tune.
#[derive(Debug, Error)]
pub enum TuneError {
    /// The agent spec is bad or does not search with an evaluator.
    #[error("--agent {spec}: {why}")]
    Agent {
        /// The spec.
        spec: String,
        /// Why.
        why: String,
    },
    /// A spec built from the weights does not build.
    #[error(transparent)]
    Build(#[from] AgentError),
    /// Nothing to tune.
    #[error("evaluator '{0}' has no weights to tune")]
    NoWeights(&'static str),
}

/// One comparison.
#[derive(Clone, Debug)]
pub struct Step {
    /// 1-based iteration.
    pub iteration: u32,
    /// The candidate's weights.
    pub candidate: Weights,
    /// The candidate's score against the incumbent.
    pub score: Tally,
    /// Whether it became the incumbent.
    pub kept: bool,
}

impl TuneOptions {
    /// Checks that the agent searches with an evaluator that has weights.
    pub fn check(&self) -> Result<(), TuneError> {
        let spec = Spec::parse(&self.agent)?;
        let bad = |why: &str| TuneError::Agent {
            spec: self.agent.clone(),
            why: why.into(),
        };
        if !["minimax", "alphabeta", "expectimax"].contains(&spec.name.as_str()) {
            return Err(bad(
                "expected minimax, alphabeta or expectimax, which search with an evaluator",
            ));
        }
        if spec
            .params
            .iter()
            .any(|(k, _)| k == "eval" || k == "weights" || k.starts_with("w."))
        {
            return Err(bad(
                "give the evaluator with --eval or --weights, not in the agent spec",
            ));
        }
        if self.start.kind() == EvalKind::Random || self.start.values().is_empty() {
            return Err(TuneError::NoWeights(self.start.kind().name()));
        }
        crate::agents::from_spec(&spec_with(&self.agent, &self.start))?;
        Ok(())
    }
}

/// The spec of `agent` searching with `weights`.
pub fn spec_with(agent: &str, weights: &Weights) -> String {
    let sep = if agent.contains(':') { "," } else { ":" };
    format!("{agent}{sep}{}", weights.to_params())
}

/// Runs the tuning; `on_step` sees each comparison and the incumbent after
/// it. Returns the final incumbent.
pub fn tune(
    options: &TuneOptions,
    mut on_step: impl FnMut(&Step, &Weights),
) -> Result<Weights, TuneError> {
    options.check()?;
    let mut rng = StdRng::seed_from_u64(options.seed);
    let mut incumbent = options.start.clone();
    for iteration in 1..=options.iterations {
        let mut candidate = incumbent.clone();
        for w in candidate.values_mut() {
            *w = if *w == 0 {
                rng.random_range(-1..=1)
            } else {
                let f = rng.random_range(1.0 - options.factor..=1.0 + options.factor);
                (f64::from(*w) * f).round() as i32
            };
        }
        let openings = random_openings(
            options.rules,
            options.opening_plies,
            options.pairs as usize,
            rng.random(),
        );
        let score = compare(options, &candidate, &incumbent, &openings)?;
        let kept = score.score() - 0.5 > options.z * score.std_error();
        let step = Step {
            iteration,
            candidate: candidate.clone(),
            score,
            kept,
        };
        if kept {
            incumbent = candidate;
        }
        on_step(&step, &incumbent);
    }
    Ok(incumbent)
}

/// The candidate's score against the incumbent, the openings shared out
/// over the threads.
fn compare(
    options: &TuneOptions,
    candidate: &Weights,
    incumbent: &Weights,
    openings: &[Vec<u32>],
) -> Result<Tally, TuneError> {
    let (a, b) = (
        spec_with(&options.agent, candidate),
        spec_with(&options.agent, incumbent),
    );
    let chunk = openings.len().div_ceil(options.threads.get()).max(1);
    let results: Vec<Result<Tally, AgentError>> = std::thread::scope(|s| {
        let handles: Vec<_> = openings
            .chunks(chunk)
            .map(|part| s.spawn(|| play_pairs(options.rules, &a, &b, part, &Limits::none())))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a game thread panicked"))
            .collect()
    });
    let mut total = Tally::default();
    for r in results {
        total.add(&r?);
    }
    Ok(total)
}

/// The run as two panels: each candidate's score against the incumbent
/// (kept and rejected apart, with 95% intervals), and the incumbent's
/// weights after each iteration relative to the start.
pub fn run_figure(start: &Weights, steps: &[(Step, Weights)], agent: &str, pairs: u32) -> Figure {
    let scored = |kept: bool, name: &str| {
        let points = steps
            .iter()
            .filter(|(s, _)| s.kept == kept)
            .map(|(s, _)| {
                let (score, half) = (100.0 * s.score.score(), 100.0 * 1.96 * s.score.std_error());
                Point::with_interval(f64::from(s.iteration), score, score - half, score + half)
            })
            .collect();
        Series::new(name, points).marks_only()
    };
    // Relative to the start, so weights of every size share one axis; a
    // weight that starts at 0 has no ratio and is left out.
    let weights = start
        .names()
        .zip(start.values())
        .enumerate()
        .filter(|(_, (_, first))| **first != 0)
        .map(|(i, (name, first))| {
            let ratio = |w: &Weights| f64::from(w.values()[i]) / f64::from(*first);
            Series::from_pairs(
                name,
                std::iter::once((0.0, 1.0)).chain(
                    steps
                        .iter()
                        .map(|(s, w)| (f64::from(s.iteration), ratio(w))),
                ),
            )
        })
        .collect();
    Figure {
        title: format!(
            "Tuning {} weights with {agent} ({} games per candidate)",
            start.kind().name(),
            2 * pairs
        ),
        panels: vec![
            Panel {
                title: "candidate against the incumbent".into(),
                x_label: "iteration".into(),
                y_label: "score (%)".into(),
                guides: vec![("even (50%)".into(), 50.0)],
                series: vec![scored(true, "kept"), scored(false, "rejected")],
                ..Panel::default()
            },
            Panel {
                title: "weights kept, relative to the start".into(),
                x_label: "iteration".into(),
                y_label: "weight / starting weight".into(),
                series: weights,
                ..Panel::default()
            },
        ],
        notes: vec![
            "Each iteration plays a candidate (the incumbent's weights, nudged) against the \
             incumbent; kept: the candidate scored above 50% by more than the run's z standard \
             errors and became the incumbent; rejected: it did not. Bars: 95% intervals."
                .into(),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(start: Weights) -> TuneOptions {
        TuneOptions {
            agent: "alphabeta:depth=1".into(),
            start,
            rules: Rules::STANDARD,
            iterations: 3,
            pairs: 8,
            opening_plies: 2,
            factor: 0.5,
            z: 1.0,
            seed: 3,
            threads: NonZeroUsize::new(2).unwrap(),
        }
    }

    #[test]
    fn tuning_is_reproducible_and_keeps_only_clear_winners() {
        let run = |seed| {
            let mut steps = Vec::new();
            let o = TuneOptions {
                seed,
                ..options(Weights::defaults(EvalKind::Windows))
            };
            let end = tune(&o, |s, w| steps.push((s.clone(), w.clone()))).unwrap();
            (steps, end)
        };
        let (steps, end) = run(3);
        assert_eq!(steps.len(), 3);
        let mut incumbent = Weights::defaults(EvalKind::Windows);
        for (step, after) in &steps {
            assert_eq!(step.score.pairs(), 8);
            assert_eq!(step.kept, step.score.score() - 0.5 > step.score.std_error());
            if step.kept {
                incumbent = step.candidate.clone();
            }
            assert_eq!(after, &incumbent);
        }
        assert_eq!(end, incumbent);
        let (again, end2) = run(3);
        assert_eq!(end, end2);
        assert_eq!(
            steps.iter().map(|(s, _)| s.score).collect::<Vec<_>>(),
            again.iter().map(|(s, _)| s.score).collect::<Vec<_>>()
        );
    }

    #[test]
    fn bad_options_say_why() {
        let mut o = options(Weights::defaults(EvalKind::Windows));
        o.agent = "mcts".into();
        assert!(
            tune(&o, |_, _| {})
                .unwrap_err()
                .to_string()
                .contains("expected minimax, alphabeta or expectimax")
        );
        o.agent = "alphabeta:eval=local".into();
        assert!(
            tune(&o, |_, _| {})
                .unwrap_err()
                .to_string()
                .contains("not in the agent spec")
        );
        let o = options(Weights::defaults(EvalKind::Random));
        assert!(
            tune(&o, |_, _| {})
                .unwrap_err()
                .to_string()
                .contains("no weights")
        );
    }
}
