//! `c4engine.BatchSolver`: the exact scores, every column's scores or the
//! best moves of many positions in one call, shared among worker threads
//! made once with the solver (each with a solver and table of its own),
//! so that no call and no position starts a thread. The caller waits
//! without the GIL and stops the workers on Ctrl-C.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use connect4::Position;
use connect4::search::{DEFAULT_HASH_MB, Limits, Solver};
use pyo3::exceptions::{PyKeyboardInterrupt, PyMemoryError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::interrupt;
use crate::position::open_position;

/// Positions a job holds at most: small enough that the workers share a
/// call's work evenly, large enough that a job's cost is the positions'.
const MOST_A_JOB: usize = 256;

/// What a call asks of each position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Question {
    /// The exact score.
    Score,
    /// The outcome's sign (-1, 0, 1).
    Outcome,
    /// Every column's exact score (`None` for a full column).
    Scores,
    /// The solver's best column and its score.
    BestMove,
}

/// One position's answer; `None` where the search was stopped.
type Answer = Option<Vec<i32>>;

/// A run of a call's positions for one worker.
struct Job {
    positions: Arc<Vec<Position>>,
    range: Range<usize>,
    question: Question,
    answers: Sender<(usize, Vec<Answer>)>,
}

/// The answer of one position: the score, the outcome, each column's
/// score (`i32::MIN` for a full column), or the best column and its score.
fn answer(solver: &mut Solver, p: &Position, question: Question) -> Answer {
    match question {
        Question::Score => solver.solve_within(p, false).map(|s| vec![s]),
        Question::Outcome => solver.solve_within(p, true).map(|s| vec![s.signum()]),
        Question::Scores => solver
            .analyze_within(p)
            .map(|scores| scores.iter().map(|s| s.unwrap_or(i32::MIN)).collect()),
        Question::BestMove => solver
            .best_move_within(p)
            .map(|(column, score)| vec![column as i32, score]),
    }
}

/// A worker: takes jobs until the pool closes.
fn work(mut solver: Solver, jobs: Arc<Mutex<Receiver<Job>>>, stop: Arc<AtomicBool>) {
    loop {
        let job = match jobs.lock().unwrap_or_else(|e| e.into_inner()).recv() {
            Ok(job) => job,
            Err(_) => return,
        };
        solver.set_limits(&Limits::none(), Some(Arc::clone(&stop)));
        let answers = job.positions[job.range.clone()]
            .iter()
            .map(|p| answer(&mut solver, p, job.question))
            .collect();
        job.answers.send((job.range.start, answers)).ok();
    }
}

/// Exact answers for many positions at once, over worker threads made
/// with it.
#[pyclass(module = "c4engine", name = "_BatchSolver", frozen)]
pub struct PyBatchSolver {
    jobs: Mutex<Option<Sender<Job>>>,
    workers: Mutex<Vec<JoinHandle<()>>>,
    /// Raised by a Ctrl-C: the workers' searches end. Calls from several
    /// threads share the workers (each gathers its own answers) and this
    /// flag.
    stop: Arc<AtomicBool>,
    threads: usize,
}

#[pymethods]
impl PyBatchSolver {
    /// A solver of `threads` worker threads (the processors there are, if
    /// None), each with a table of `hash_mb` MiB and the opening book
    /// unless `book` is False.
    #[new]
    #[pyo3(signature = (*, threads = None, hash_mb = None, book = true))]
    fn new(threads: Option<usize>, hash_mb: Option<usize>, book: bool) -> PyResult<Self> {
        let threads =
            threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        if threads == 0 {
            return Err(PyValueError::new_err("threads: expected at least 1, got 0"));
        }
        let hash_mb = hash_mb.unwrap_or(DEFAULT_HASH_MB);
        let (jobs, queue) = channel::<Job>();
        let queue = Arc::new(Mutex::new(queue));
        let stop = Arc::new(AtomicBool::new(false));
        let mut workers = Vec::with_capacity(threads);
        for _ in 0..threads {
            let made = if book {
                Solver::try_new(hash_mb)
            } else {
                Solver::try_without_book(hash_mb)
            };
            let solver = made.ok_or_else(|| {
                PyMemoryError::new_err(format!("no memory for a table of {hash_mb} MiB"))
            })?;
            let (queue, stop) = (Arc::clone(&queue), Arc::clone(&stop));
            workers.push(std::thread::spawn(move || work(solver, queue, stop)));
        }
        Ok(PyBatchSolver {
            jobs: Mutex::new(Some(jobs)),
            workers: Mutex::new(workers),
            stop,
            threads,
        })
    }

    /// The worker threads.
    #[getter]
    fn threads(&self) -> usize {
        self.threads
    }

    /// Each position's exact score, as int32 bytes.
    fn _scores_of<'py>(
        &self,
        py: Python<'py>,
        positions: Vec<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.ask(py, positions, Question::Score)
    }

    /// Each position's outcome (1 win, 0 draw, -1 loss), as int32 bytes.
    fn _outcomes_of<'py>(
        &self,
        py: Python<'py>,
        positions: Vec<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.ask(py, positions, Question::Outcome)
    }

    /// Each position's columns' scores, as int32 bytes (the minimum int32
    /// for a full column).
    fn _column_scores_of<'py>(
        &self,
        py: Python<'py>,
        positions: Vec<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.ask(py, positions, Question::Scores)
    }

    /// Each position's best column and its score, as int32 bytes.
    fn _best_moves_of<'py>(
        &self,
        py: Python<'py>,
        positions: Vec<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.ask(py, positions, Question::BestMove)
    }
}

impl PyBatchSolver {
    /// The answers to `question` for `positions` (Positions or move
    /// strings), in order, as int32 bytes.
    fn ask<'py>(
        &self,
        py: Python<'py>,
        positions: Vec<Bound<'py, PyAny>>,
        question: Question,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let mut read = Vec::with_capacity(positions.len());
        for (i, p) in positions.iter().enumerate() {
            let position = open_position(p, "there is nothing to solve")
                .map_err(|e| PyValueError::new_err(format!("positions[{i}]: {}", e.value(py))))?;
            read.push(position);
        }
        let width = match question {
            Question::Scores => read.first().map_or(0, |p| p.columns() as usize),
            Question::BestMove => 2,
            _ => 1,
        };
        if let Some((i, _)) = read
            .iter()
            .enumerate()
            .find(|(_, p)| p.rules() != read[0].rules())
        {
            return Err(PyValueError::new_err(format!(
                "positions[{i}]: a board of {}, where positions[0]'s is {}",
                read[i].rules(),
                read[0].rules()
            )));
        }
        let answers = self.solve(py, read, question)?;
        let mut bytes = Vec::with_capacity(answers.len() * width * 4);
        for answer in &answers {
            for value in answer.iter().flatten() {
                bytes.extend_from_slice(&value.to_le_bytes());
            }
        }
        Ok(PyBytes::new(py, &bytes))
    }

    /// Shares `positions` among the workers and gathers the answers in
    /// order, waiting without the GIL; a Ctrl-C stops the workers and
    /// raises `KeyboardInterrupt`.
    fn solve(
        &self,
        py: Python<'_>,
        positions: Vec<Position>,
        question: Question,
    ) -> PyResult<Vec<Answer>> {
        let n = positions.len();
        let positions = Arc::new(positions);
        let (answers, mut gathered) = channel();
        let size = (n / (self.threads * 8)).clamp(1, MOST_A_JOB);
        self.stop.store(false, Ordering::Relaxed);
        let mut left = 0;
        {
            let sender = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
            let sender = sender
                .as_ref()
                .expect("the pool is open while the solver lives");
            for start in (0..n).step_by(size) {
                let job = Job {
                    positions: Arc::clone(&positions),
                    range: start..(start + size).min(n),
                    question,
                    answers: answers.clone(),
                };
                sender.send(job).map_err(|_| failed())?;
                left += 1;
            }
        }
        drop(answers);
        let mut out: Vec<Answer> = vec![None; n];
        while left > 0 {
            let (back, got) = interrupt::next(py, gathered);
            gathered = back;
            match got {
                Ok(Some((start, part))) => {
                    for (k, a) in part.into_iter().enumerate() {
                        out[start + k] = a;
                    }
                    left -= 1;
                }
                Ok(None) => return Err(failed()),
                Err(interrupt) => {
                    self.stop.store(true, Ordering::Relaxed);
                    py.detach(move || while gathered.recv().is_ok() {});
                    return Err(interrupt);
                }
            }
        }
        if out.iter().any(Option::is_none) {
            return Err(PyKeyboardInterrupt::new_err("stopped"));
        }
        Ok(out)
    }
}

/// A worker that is gone (it panicked).
fn failed() -> PyErr {
    pyo3::exceptions::PyRuntimeError::new_err(
        "a worker of the batch solver failed (please report it)",
    )
}

impl Drop for PyBatchSolver {
    /// Stops the workers and waits for them: none outlives its solver.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.jobs.lock().unwrap_or_else(|e| e.into_inner()).take();
        for worker in self
            .workers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain(..)
        {
            worker.join().ok();
        }
    }
}
