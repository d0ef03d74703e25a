//! Benchmarks of the exact solver over files of `<moves> <score>` lines.
//!
//! Each file is solved in one process with one table that stays warm from one
//! position to the next, as the reference solvers time theirs. Every score is
//! checked against the label.

use std::time::{Duration, Instant};

use thiserror::Error;

use crate::game::{Game, MoveError};
use crate::rules::Rules;
use crate::search::Solver;
use crate::search::limits::Limits;

/// The built-in set: a few positions of each public test set, labelled.
pub const BUILTIN: &str = include_str!("builtin.txt");

/// A line of a benchmark file that cannot be read.
#[derive(Debug, Error)]
pub enum BenchError {
    /// Not `<moves> <score>`.
    #[error("line {line}: expected '<moves> <score>', found '{text}'")]
    Syntax {
        /// 1-based line number.
        line: usize,
        /// The line as found.
        text: String,
    },
    /// The moves are not a legal game.
    #[error("line {line}: {error}")]
    Moves {
        /// 1-based line number.
        line: usize,
        /// What is wrong with the moves.
        error: MoveError,
    },
    /// The game is already over.
    #[error("line {line}: the game is already over")]
    Over {
        /// 1-based line number.
        line: usize,
    },
}

/// One labelled position.
#[derive(Clone, Debug)]
pub struct Case {
    /// The game reaching the position.
    pub game: Game,
    /// Its exact score.
    pub score: i32,
}

/// Reads `<moves> <score>` lines (blank lines and `#` comments are skipped).
pub fn parse_cases(rules: Rules, text: &str) -> Result<Vec<Case>, BenchError> {
    let mut cases = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let t = raw.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let syntax = || BenchError::Syntax {
            line,
            text: raw.to_string(),
        };
        let mut parts = t.split_whitespace();
        let (Some(moves), Some(score), None) = (parts.next(), parts.next(), parts.next()) else {
            return Err(syntax());
        };
        let score: i32 = score.parse().map_err(|_| syntax())?;
        let game = Game::from_move_string(rules, moves)
            .map_err(|error| BenchError::Moves { line, error })?;
        if game.position().is_over() {
            return Err(BenchError::Over { line });
        }
        cases.push(Case { game, score });
    }
    Ok(cases)
}

/// The result of solving one case.
#[derive(Clone, Debug)]
pub struct Solved {
    /// The score found.
    pub score: i32,
    /// Nodes visited.
    pub nodes: u64,
    /// Wall time.
    pub time: Duration,
}

/// Figures for one set of cases.
#[derive(Clone, Debug, Default)]
pub struct SetFigures {
    /// Positions solved.
    pub positions: usize,
    /// Positions whose score differs from the label.
    pub wrong: usize,
    /// Mean time per position.
    pub mean: Duration,
    /// Median time per position.
    pub median: Duration,
    /// Total nodes.
    pub nodes: u64,
    /// Total time.
    pub total: Duration,
    /// The first wrong case, as `moves expected found`.
    pub first_wrong: Option<String>,
}

impl SetFigures {
    /// Mean nodes per position.
    pub fn mean_nodes(&self) -> f64 {
        self.nodes as f64 / self.positions.max(1) as f64
    }

    /// Nodes per second over the whole set.
    pub fn nodes_per_second(&self) -> f64 {
        self.nodes as f64 / self.total.as_secs_f64().max(1e-9)
    }
}

/// Solves every case with `solver` (its table stays warm between cases) and
/// checks each score; `each` sees every result as it comes.
pub fn run(
    solver: &mut Solver,
    cases: &[Case],
    mut each: impl FnMut(&Case, &Solved),
) -> SetFigures {
    let mut times = Vec::with_capacity(cases.len());
    let mut summary = SetFigures::default();
    for case in cases {
        let start = Instant::now();
        solver.set_limits(&Limits::none(), None);
        let score = solver
            .solve_within(case.game.position(), false)
            .expect("an unlimited search always finishes");
        let solved = Solved {
            score,
            nodes: solver.nodes(),
            time: start.elapsed(),
        };
        if score != case.score {
            summary.wrong += 1;
            summary.first_wrong.get_or_insert_with(|| {
                format!("{} expected {} found {}", case.game, case.score, score)
            });
        }
        summary.nodes += solved.nodes;
        times.push(solved.time);
        each(case, &solved);
    }
    summary.positions = times.len();
    summary.total = times.iter().sum();
    if !times.is_empty() {
        summary.mean = summary.total / times.len() as u32;
        times.sort();
        summary.median = times[times.len() / 2];
    }
    summary
}
