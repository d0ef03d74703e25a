//! The native part of the `c4engine` Python module: the engine's
//! positions and solver, called in-process.
//!
//! - `position`: `Position`, a position with the moves that
//!   reached it, made from a move string, 0-based columns or a board;
//! - `boards`: the board arrays of the conventions students meet (the
//!   course's, Kaggle's, PettingZoo's), read and written;
//! - `errors`: the engine's errors as `PositionError` (a `ValueError`),
//!   in the caller's convention;
//! - `solver`: `Solver`, the exact solver and the clocked
//!   search;
//! - `batch_solve`: `_BatchSolver`, many positions solved in one call by
//!   worker threads made once (behind `c4engine.BatchSolver`);
//! - `players`: `Player`, every agent of the project choosing moves, and
//!   `verdicts`, the solver's verdict on each move of a game;
//! - `board`: `_Board`, the one game a single environment plays, changed
//!   in place (behind `c4engine`'s PettingZoo and Gymnasium environments);
//! - `vector`: `_Batch`, many games stepped in one call (connect4-vector),
//!   behind `c4engine.vector`;
//! - `llm`: `llm_play` and `llm_report`, a language model of the
//!   caller's (a Python function) against the project's players, judged
//!   (behind `c4engine.llm`);
//! - `interrupt`: long calls run without the GIL and stop on Ctrl-C.
//!
//! The Python package `c4engine` (python/src/c4engine) re-exports these
//! with its docs and type stubs.

mod batch_solve;
mod board;
mod boards;
mod errors;
mod interrupt;
mod llm;
mod players;
mod position;
mod solver;
mod vector;

use pyo3::prelude::*;

/// The module, imported as `c4engine._native`.
#[pymodule]
#[pyo3(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<position::PyPosition>()?;
    m.add_class::<solver::PySolver>()?;
    m.add_class::<batch_solve::PyBatchSolver>()?;
    m.add_class::<players::PyPlayer>()?;
    m.add_class::<vector::PyBatch>()?;
    m.add_class::<board::PyBoard>()?;
    m.add_function(wrap_pyfunction!(players::verdicts, m)?)?;
    m.add_function(wrap_pyfunction!(llm::llm_play, m)?)?;
    m.add_function(wrap_pyfunction!(llm::llm_report, m)?)?;
    m.add("LEVELS", connect4::agents::LEVELS.to_vec())?;
    m.add("PositionError", m.py().get_type::<errors::PositionError>())?;
    // The package's version is the crate's: maturin names the wheel by it.
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
