//! `c4engine._native._Batch`: many games stepped in one call
//! (connect4-vector's [`Batch`]), its outputs handed to Python as fresh
//! bytearrays that `c4engine.vector` views as numpy arrays without a copy.
//! The step runs without the GIL.

use std::sync::{Mutex, MutexGuard};

use connect4::Rules;
use connect4_vector::{Autoreset, Batch, BatchError, Buffers, Config, Opponent, Seat};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes};

/// The small outputs of a step, kept between steps (the observations are
/// written straight into their bytearrays).
struct Small {
    action_mask: Vec<u8>,
    rewards: Vec<f32>,
    terminated: Vec<u8>,
    truncated: Vec<u8>,
    to_move: Vec<u8>,
}

/// A batch and its small outputs.
struct Inner {
    batch: Batch,
    small: Small,
}

/// Many games stepped at once (see `c4engine.vector`).
#[pyclass(module = "c4engine", name = "_Batch")]
pub struct PyBatch {
    inner: Mutex<Inner>,
}

/// What a step hands back: observation, action mask, rewards (float32
/// bytes), terminated, truncated, player to move, and the final
/// observations (same-step autoreset only).
type Step<'py> = (
    Bound<'py, PyByteArray>,
    Bound<'py, PyByteArray>,
    Bound<'py, PyByteArray>,
    Bound<'py, PyByteArray>,
    Bound<'py, PyByteArray>,
    Bound<'py, PyByteArray>,
    Option<Bound<'py, PyByteArray>>,
);

fn value_error(e: BatchError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The opponent a name stands for: None is self-play, `random` the native
/// one, any other a player's spec (`perfect` the solver, as for `Player`).
fn opponent_of(name: Option<&str>) -> Opponent {
    match name {
        None => Opponent::SelfPlay,
        Some("random") => Opponent::Random,
        Some(spec) => Opponent::Agent(connect4::agents::agent_spec(spec)),
    }
}

fn seat_of(name: &str) -> PyResult<Seat> {
    match name {
        "first" => Ok(Seat::First),
        "second" => Ok(Seat::Second),
        "alternate" => Ok(Seat::Alternate),
        other => Err(PyValueError::new_err(format!(
            "seat '{other}': expected 'first', 'second' or 'alternate'"
        ))),
    }
}

fn autoreset_of(name: &str) -> PyResult<Autoreset> {
    match name {
        "next_step" => Ok(Autoreset::NextStep),
        "same_step" => Ok(Autoreset::SameStep),
        "disabled" => Ok(Autoreset::Disabled),
        other => Err(PyValueError::new_err(format!(
            "autoreset '{other}': expected 'next_step', 'same_step' or 'disabled'"
        ))),
    }
}

/// 8-byte little-endian integers, as `numpy.int64(...).tobytes()` writes
/// them on the platforms the wheels are built for.
fn int64s(bytes: &[u8], name: &str) -> PyResult<Vec<i64>> {
    if !bytes.len().is_multiple_of(8) {
        return Err(PyValueError::new_err(format!(
            "{name}: {} bytes is not a whole number of 8-byte integers",
            bytes.len()
        )));
    }
    Ok(bytes
        .chunks_exact(8)
        .map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect())
}

impl PyBatch {
    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[pymethods]
impl PyBatch {
    /// `games` games of `rules`; `opponent` None for self-play, else
    /// 'random' or any player spec; the learner's `seat`; `autoreset`.
    #[new]
    #[pyo3(signature = (games, rules, opponent, seat, autoreset, seed))]
    fn new(
        games: usize,
        rules: &str,
        opponent: Option<&str>,
        seat: &str,
        autoreset: &str,
        seed: u64,
    ) -> PyResult<PyBatch> {
        let rules: Rules = rules
            .parse()
            .map_err(|e| PyValueError::new_err(format!("rules '{rules}': {e}")))?;
        let config = Config {
            rules,
            games,
            opponent: opponent_of(opponent),
            seat: seat_of(seat)?,
            autoreset: autoreset_of(autoreset)?,
        };
        let batch = Batch::new(config, seed).map_err(value_error)?;
        let (columns, width) = (rules.columns() as usize, batch.rewards_per_game());
        let small = Small {
            action_mask: vec![0; games * columns],
            rewards: vec![0.0; games * width],
            terminated: vec![0; games],
            truncated: vec![0; games],
            to_move: vec![0; games],
        };
        Ok(PyBatch {
            inner: Mutex::new(Inner { batch, small }),
        })
    }

    /// Starts games anew: every game, seeded from `seeds` (int64 bytes, one
    /// a game) when given, else those where `mask` (bytes, one a game) is
    /// nonzero, else all; the step's outputs, with zero rewards.
    #[pyo3(signature = (seeds = None, mask = None))]
    fn reset<'py>(
        &self,
        py: Python<'py>,
        seeds: Option<&[u8]>,
        mask: Option<&[u8]>,
    ) -> PyResult<Step<'py>> {
        let seeds = seeds.map(|s| int64s(s, "seeds")).transpose()?;
        let which: Option<Vec<bool>> = mask.map(|m| m.iter().map(|&v| v != 0).collect());
        self.run(py, |batch, out| match &seeds {
            Some(seeds) => {
                let seeds: Vec<u64> = seeds.iter().map(|&s| s as u64).collect();
                batch.reset_seeded(&seeds, out)
            }
            None => batch.reset(which.as_deref(), out),
        })
    }

    /// Plays `actions` (int64 bytes, one column from 0 a game); the
    /// step's outputs.
    fn step<'py>(&self, py: Python<'py>, actions: &[u8]) -> PyResult<Step<'py>> {
        let actions = int64s(actions, "actions")?;
        self.run(py, |batch, out| batch.step(&actions, out))
    }

    /// A uniformly random legal column a game, as int64 bytes (see
    /// `Batch::random_actions`).
    fn random_actions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let mut inner = self.inner();
        let mut actions = vec![0i64; inner.batch.positions().len()];
        inner
            .batch
            .random_actions(&mut actions)
            .map_err(value_error)?;
        let bytes: Vec<u8> = actions.iter().flat_map(|a| a.to_le_bytes()).collect();
        Ok(PyBytes::new(py, &bytes))
    }

    /// A copy that steps on its own (self-play and a random opponent
    /// only: an agent's state cannot be copied).
    fn copy(&self) -> PyResult<PyBatch> {
        let inner = self.inner();
        let batch = inner.batch.try_clone().ok_or_else(|| {
            PyValueError::new_err("a batch whose opponent is an agent cannot be copied")
        })?;
        let small = Small {
            action_mask: inner.small.action_mask.clone(),
            rewards: inner.small.rewards.clone(),
            terminated: inner.small.terminated.clone(),
            truncated: inner.small.truncated.clone(),
            to_move: inner.small.to_move.clone(),
        };
        Ok(PyBatch {
            inner: Mutex::new(Inner { batch, small }),
        })
    }
}

impl PyBatch {
    /// Runs `act` on the batch without the GIL, its observations written
    /// straight into new bytearrays; the step's outputs.
    fn run<'py>(
        &self,
        py: Python<'py>,
        act: impl Fn(&mut Batch, &mut Buffers) -> Result<(), BatchError> + Send + Sync,
    ) -> PyResult<Step<'py>> {
        let mut guard = self.inner();
        let Inner { batch, small } = &mut *guard;
        let n = batch.positions().len();
        let planes = n * batch.planes();
        let same_step = batch.config().autoreset == Autoreset::SameStep;
        let mut finals = Vec::new();
        let observation = PyByteArray::new_with(py, planes, |observation| {
            if same_step {
                finals = vec![0; planes];
            }
            let mut out = Buffers {
                observation,
                action_mask: &mut small.action_mask,
                rewards: &mut small.rewards,
                terminated: &mut small.terminated,
                truncated: &mut small.truncated,
                to_move: &mut small.to_move,
                final_observation: &mut finals,
            };
            py.detach(|| act(batch, &mut out)).map_err(value_error)
        })?;
        let rewards: Vec<u8> = small.rewards.iter().flat_map(|r| r.to_le_bytes()).collect();
        Ok((
            observation,
            PyByteArray::new(py, &small.action_mask),
            PyByteArray::new(py, &rewards),
            PyByteArray::new(py, &small.terminated),
            PyByteArray::new(py, &small.truncated),
            PyByteArray::new(py, &small.to_move),
            same_step.then(|| PyByteArray::new(py, &finals)),
        ))
    }
}
