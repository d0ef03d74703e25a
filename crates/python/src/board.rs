//! `c4engine._native._Board`: the one game a single environment plays
//! (c4engine's PettingZoo AEC environment and its Gymnasium one), changed
//! in place, so that a step is one native call and an observation one
//! more: no `Position` is made at each move, and the planes and the mask
//! are written by connect4-vector's writers into fresh bytearrays that
//! numpy views without a copy.

use connect4::Player;
use connect4::game::Game;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyByteArray;

use crate::position::{PyPosition, rules_named};

/// What [`PyBoard::play`] answers: the game goes on.
const GOES_ON: u8 = 0;
/// The move made a line: its player won.
const WON: u8 = 1;
/// The move filled the board without a line.
const DRAWN: u8 = 2;
/// Nothing was played: the column is full, or the game was over.
const NOT_PLAYED: u8 = 3;

/// One game, played move by move in place (behind `c4engine`'s single
/// environments).
#[pyclass(module = "c4engine", name = "_Board")]
pub struct PyBoard {
    game: Game,
}

#[pymethods]
impl PyBoard {
    /// What `play` answers when the game goes on.
    #[classattr]
    const GOES_ON: u8 = GOES_ON;
    /// What `play` answers when the move won.
    #[classattr]
    const WON: u8 = WON;
    /// What `play` answers when the move drew.
    #[classattr]
    const DRAWN: u8 = DRAWN;
    /// What `play` answers when nothing was played.
    #[classattr]
    const NOT_PLAYED: u8 = NOT_PLAYED;

    /// The empty board of `rules` ('7x6x4').
    #[new]
    #[pyo3(signature = (rules = "7x6x4"))]
    fn new(rules: &str) -> PyResult<PyBoard> {
        Ok(PyBoard {
            game: Game::new(rules_named(rules)?),
        })
    }

    /// The board after `moves` (columns from 1) on `rules`: what a pickled
    /// board is made again from.
    #[staticmethod]
    fn _restore(moves: &str, rules: &str) -> PyResult<PyBoard> {
        let game = Game::from_move_string(rules_named(rules)?, moves)
            .map_err(|e| crate::errors::from_move_string(&e))?;
        Ok(PyBoard { game })
    }

    /// Pickles as its moves and rules (so that an environment deep-copies).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String, String))> {
        let restore = slf.get_type().getattr("_restore")?;
        let this = slf.borrow();
        Ok((
            restore,
            (this.game.move_string(), this.game.rules().to_string()),
        ))
    }

    /// Back to the empty board.
    fn reset(&mut self) {
        self.game = Game::new(self.game.rules());
    }

    /// Plays `action`, a column from 0 (any Python integer): `GOES_ON`,
    /// `WON` (the move won), `DRAWN`, or `NOT_PLAYED` (the column is full,
    /// or the game is over). Anything but
    /// a column of the board is a `ValueError` that quotes it.
    fn play(&mut self, action: &Bound<'_, PyAny>) -> PyResult<u8> {
        let columns = self.game.rules().columns();
        let column = action
            .extract::<i64>()
            .ok()
            .filter(|c| (0..i64::from(columns)).contains(c))
            .ok_or_else(|| {
                let shown = action
                    .repr()
                    .map_or_else(|_| "?".to_string(), |r| r.to_string());
                PyValueError::new_err(format!(
                    "action {shown}: expected a column from 0 to {}",
                    columns - 1
                ))
            })?;
        let p = self.game.position();
        if p.is_over() || !p.can_play(column as u32) {
            return Ok(NOT_PLAYED);
        }
        self.game
            .play(column + 1)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let p = self.game.position();
        Ok(if p.last_move_won() {
            WON
        } else if p.is_full() {
            DRAWN
        } else {
            GOES_ON
        })
    }

    /// The planes `viewer` (1 or 2) sees: rows x columns x 2 bytes, row 0
    /// on top, plane 0 its stones and plane 1 the other's
    /// (`connect_four_v3`'s observation).
    fn planes<'py>(&self, py: Python<'py>, viewer: u8) -> PyResult<Bound<'py, PyByteArray>> {
        let viewer = match viewer {
            1 => Player::First,
            2 => Player::Second,
            other => {
                return Err(PyValueError::new_err(format!(
                    "viewer {other}: expected 1 (the first player) or 2 (the second)"
                )));
            }
        };
        let p = self.game.position();
        let size = p.rows() as usize * p.columns() as usize * 2;
        PyByteArray::new_with(py, size, |out| {
            connect4_vector::planes(p, viewer, out);
            Ok(())
        })
    }

    /// One byte a column, 1 where the column has room (after the end of
    /// the game too, as `connect_four_v3`'s mask).
    fn mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyByteArray>> {
        let p = self.game.position();
        PyByteArray::new_with(py, p.columns() as usize, |out| {
            connect4_vector::mask(p, out);
            Ok(())
        })
    }

    /// The position now, as a `Position`.
    fn position(&self) -> PyPosition {
        PyPosition::of(self.game.clone())
    }

    /// The board's rows.
    #[getter]
    fn rows(&self) -> u32 {
        self.game.rules().rows()
    }

    /// The board's columns.
    #[getter]
    fn columns(&self) -> u32 {
        self.game.rules().columns()
    }

    /// Who moves next: 1 (the first player) or 2 (the second).
    #[getter]
    fn to_move(&self) -> u8 {
        match self.game.side_to_move() {
            Player::First => 1,
            Player::Second => 2,
        }
    }

    /// How many moves were played.
    fn __len__(&self) -> usize {
        self.game.moves().len()
    }
}
