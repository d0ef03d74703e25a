//! `c4engine.Solver`: the exact solver and the clocked search, with a
//! table kept between calls. Scores are the solver's: from the side to
//! move, positive when it wins, the larger the sooner (a win with its last
//! stone on the empty standard board is 1, at once 18), 0 a draw, negative
//! a loss. Columns are counted from 0.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use connect4::score::Outcome;
use connect4::search::{DEFAULT_HASH_MB, Limits, Report, Searcher, Solver};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rand::seq::IndexedRandom;

use crate::errors::position_error;
use crate::interrupt;
use crate::position::open_position;

/// Nodes a call searches first on the caller's thread, before it hands the
/// search to a thread that Ctrl-C can stop: a millisecond or so of search,
/// where the end of a game takes microseconds.
const QUICK_NODES: u64 = 20_000;

/// An exact solver (with the opening book unless told otherwise) and the
/// clocked search beside it.
///
/// Safe from any thread: the calls take turns at the solver (a lock taken
/// without the GIL, so that the others wait without holding Python up).
#[pyclass(module = "c4engine", name = "Solver", frozen)]
pub struct PySolver {
    held: Mutex<Held>,
    /// Raised to stop the search under way (Ctrl-C).
    stop: Arc<AtomicBool>,
    hash_mb: usize,
}

/// What a solver's calls take turns at.
struct Held {
    solver: Solver,
    /// The clocked search, made when `think` is first called.
    searcher: Option<Searcher>,
}

/// How `best_move` chooses among equally good columns.
#[derive(Clone, Copy)]
enum TieBreak {
    /// The first in centre-first order (the solver's own).
    Centre,
    /// The lowest column.
    Left,
    /// One at random.
    Random,
}

impl TieBreak {
    fn named(name: &str) -> PyResult<TieBreak> {
        match name {
            "centre" | "center" => Ok(TieBreak::Centre),
            "left" => Ok(TieBreak::Left),
            "random" => Ok(TieBreak::Random),
            _ => Err(position_error(format!(
                "tie_break '{name}': expected 'centre', 'left' or 'random'"
            ))),
        }
    }
}

/// A position's outcome as Python says it.
pub fn outcome_name(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Win => "win",
        Outcome::Draw => "draw",
        Outcome::Loss => "loss",
    }
}

#[pymethods]
impl PySolver {
    /// A solver with a table of `hash_mb` MiB (the engine's default if
    /// None), the opening book unless `book` is False, and `threads`
    /// threads.
    #[new]
    #[pyo3(signature = (*, book = true, hash_mb = None, threads = 1))]
    fn new(book: bool, hash_mb: Option<usize>, threads: usize) -> PyResult<PySolver> {
        let hash_mb = hash_mb.unwrap_or(DEFAULT_HASH_MB);
        let made = if book {
            Solver::try_new(hash_mb)
        } else {
            Solver::try_without_book(hash_mb)
        };
        let mut solver = made.ok_or_else(|| {
            pyo3::exceptions::PyMemoryError::new_err(format!(
                "no memory for a table of {hash_mb} MiB"
            ))
        })?;
        solver.set_threads(threads);
        Ok(PySolver {
            held: Mutex::new(Held {
                solver,
                searcher: None,
            }),
            stop: Arc::new(AtomicBool::new(false)),
            hash_mb,
        })
    }

    /// The exact score of `position` (a Position or a move string).
    fn score(&self, py: Python<'_>, position: &Bound<'_, PyAny>) -> PyResult<i32> {
        let p = open_position(position, "there is nothing to solve")?;
        self.searching(py, |solver| solver.solve_within(&p, false))
    }

    /// Each column's exact score, None for a full column.
    fn scores(&self, py: Python<'_>, position: &Bound<'_, PyAny>) -> PyResult<Vec<Option<i32>>> {
        let p = open_position(position, "there is nothing to solve")?;
        self.searching(py, |solver| solver.analyze_within(&p))
    }

    /// The outcome for the side to move: 'win', 'draw' or 'loss' (cheaper
    /// than the score, which also says how soon).
    fn outcome(&self, py: Python<'_>, position: &Bound<'_, PyAny>) -> PyResult<&'static str> {
        let p = open_position(position, "there is nothing to solve")?;
        let weak = self.searching(py, |solver| solver.solve_within(&p, true))?;
        Ok(outcome_name(Outcome::of(weak)))
    }

    /// A best column: among equally good ones, the first in centre-first
    /// order ('centre'), the lowest ('left') or one at random ('random').
    #[pyo3(signature = (position, *, tie_break = "centre"))]
    fn best_move(
        &self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
        tie_break: &str,
    ) -> PyResult<u32> {
        let p = open_position(position, "there is nothing to solve")?;
        let rule = TieBreak::named(tie_break)?;
        if let TieBreak::Centre = rule {
            return self.searching(py, |solver| solver.best_move_within(&p).map(|(c, _)| c));
        }
        let scores = self.searching(py, |solver| solver.analyze_within(&p))?;
        let best = scores.iter().flatten().max().copied();
        let columns: Vec<u32> = (0u32..)
            .zip(&scores)
            .filter(|(_, s)| s.is_some() && **s == best)
            .map(|(c, _)| c)
            .collect();
        let chosen = match rule {
            TieBreak::Random => columns.choose(&mut rand::rng()).copied(),
            _ => columns.first().copied(),
        };
        Ok(chosen.expect("a position that is not over has a move"))
    }

    /// The moves (columns from 0) of a game both sides play perfectly from
    /// `position` to its end, centre-first among equally good moves.
    fn principal_variation(
        &self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<u32>> {
        let start = open_position(position, "there is nothing to solve")?;
        self.searching(py, |solver| {
            let mut p = start;
            let mut line = Vec::new();
            while !p.is_over() {
                let (column, _) = solver.best_move_within(&p)?;
                line.push(column);
                p.play(column);
            }
            Some(line)
        })
    }

    /// The clocked search's answer within `ms` milliseconds, as the engine
    /// plays on a clock: a dict of 'column', 'score' (exact, or the
    /// search's estimate), 'exact', 'outcome' ('win', 'draw', 'loss' or
    /// None when not proven), 'depth', 'nodes' and 'pv'.
    fn think<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
        ms: u64,
    ) -> PyResult<Bound<'py, PyDict>> {
        let p = open_position(position, "there is nothing to solve")?;
        let hash_mb = self.hash_mb;
        let stop = Arc::clone(&self.stop);
        let limits = Limits::time(Duration::from_millis(ms));
        let report = interrupt::run(py, &self.stop, || {
            let mut held = self.held();
            let book = held.solver.book().cloned();
            let searcher = held.searcher.get_or_insert_with(|| {
                let mut searcher = Searcher::new(hash_mb);
                searcher.set_book(book);
                searcher
            });
            searcher.search(&p, &limits, Some(stop), |_| {})
        })?
        .expect("a position that is not over gets a report");
        thought(py, &report)
    }
}

impl PySolver {
    /// The solver's state, this call's turn (a panic in another call
    /// leaves it as it was).
    fn held(&self) -> MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The answer of `search` on the solver, without the GIL and stopped
    /// by Ctrl-C.
    fn searching<T: Send>(
        &self,
        py: Python<'_>,
        search: impl Fn(&mut Solver) -> Option<T> + Send + Sync,
    ) -> PyResult<T> {
        // First on this thread, within a few nodes: the end of a game is
        // solved here in microseconds, with no thread started.
        let quick = py.detach(|| {
            let mut held = self.held();
            held.solver.set_limits(&Limits::nodes(QUICK_NODES), None);
            search(&mut held.solver)
        });
        if let Some(answer) = quick {
            return Ok(answer);
        }
        let stop = Arc::clone(&self.stop);
        let answer = interrupt::run(py, &self.stop, || {
            let mut held = self.held();
            held.solver.set_limits(&Limits::none(), Some(stop));
            search(&mut held.solver)
        })?;
        // Without a limit, only a stop ends a search early, and a stop
        // raised KeyboardInterrupt above.
        answer.ok_or_else(|| pyo3::exceptions::PyKeyboardInterrupt::new_err("stopped"))
    }
}

/// `think`'s answer as a dict.
fn thought<'py>(py: Python<'py>, report: &Report) -> PyResult<Bound<'py, PyDict>> {
    let answer = PyDict::new(py);
    answer.set_item("column", report.best)?;
    answer.set_item("score", report.score.value)?;
    answer.set_item("exact", report.score.exact)?;
    answer.set_item("outcome", report.score.outcome.map(outcome_name))?;
    answer.set_item("depth", report.depth)?;
    answer.set_item("nodes", report.nodes)?;
    answer.set_item("pv", report.pv.clone())?;
    Ok(answer)
}
