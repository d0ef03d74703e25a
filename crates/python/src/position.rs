//! `c4engine.Position`: a position and the moves that reached it, made
//! from a move string (1-based, as the command line writes it), a list of
//! 0-based columns or a board array; columns given to and answered by its
//! methods are 0-based.

use std::hash::{Hash, Hasher};

use connect4::game::Game;
use connect4::position::{Player, Position, Status};
use connect4::{Rules, grid};
use pyo3::prelude::*;

use crate::boards::{self, Convention};
use crate::errors::{self, position_error};

/// A position and the moves that reached it (immutable: `play` answers a
/// new one). Two positions are equal when their boards are, whatever the
/// order of the moves.
#[pyclass(frozen, eq, hash, module = "c4engine", name = "Position")]
#[derive(Clone)]
pub struct PyPosition {
    game: Game,
}

impl PartialEq for PyPosition {
    fn eq(&self, other: &PyPosition) -> bool {
        self.position() == other.position()
    }
}

impl Eq for PyPosition {}

impl Hash for PyPosition {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.position().hash(state);
    }
}

/// The rules named `text` (`7x6x4`, `7x6`).
pub fn rules_named(text: &str) -> PyResult<Rules> {
    text.parse()
        .map_err(|e: connect4::RulesError| position_error(e.to_string()))
}

impl PyPosition {
    /// The engine's position.
    pub fn position(&self) -> &Position {
        self.game.position()
    }

    /// The moves as the command line writes them.
    pub fn move_string(&self) -> String {
        self.game.move_string()
    }

    /// The moves as columns from 0.
    pub fn moves_from_zero(&self) -> Vec<u32> {
        self.game.moves().to_vec()
    }

    /// A `Position` of `game`.
    pub fn of(game: Game) -> PyPosition {
        PyPosition { game }
    }

    /// The position a Python argument names: a `Position`, or a move
    /// string on the standard board.
    pub fn from_argument(argument: &Bound<'_, PyAny>) -> PyResult<PyPosition> {
        if let Ok(position) = argument.cast::<PyPosition>() {
            return Ok(position.get().clone());
        }
        if let Ok(moves) = argument.extract::<String>() {
            return PyPosition::new(&moves, "7x6x4");
        }
        Err(position_error(
            "expected a Position or a move string such as '4453' (columns from 1)",
        ))
    }
}

/// The engine's position of a Python argument (see
/// [`PyPosition::from_argument`]), which must not be over: `why_not` says
/// what a finished game leaves nothing of ("there is nothing to solve").
pub fn open_position(argument: &Bound<'_, PyAny>, why_not: &str) -> PyResult<Position> {
    let position = PyPosition::from_argument(argument)?;
    if position.position().is_over() {
        return Err(position_error(format!(
            "the game is over after '{}': {why_not}",
            position.move_string()
        )));
    }
    Ok(*position.position())
}

#[pymethods]
impl PyPosition {
    /// The position after `moves`, a move string with columns from 1 as the
    /// command line writes it ('4453'), on a board of `rules` ('7x6x4').
    #[new]
    #[pyo3(signature = (moves = "", *, rules = "7x6x4"))]
    fn new(moves: &str, rules: &str) -> PyResult<PyPosition> {
        let rules = rules_named(rules)?;
        Game::from_move_string(rules, moves)
            .map(PyPosition::of)
            .map_err(|e| errors::from_move_string(&e))
    }

    /// The position `moves` reach on `rules`: what a pickled position is
    /// made again from.
    #[staticmethod]
    fn _restore(moves: &str, rules: &str) -> PyResult<PyPosition> {
        PyPosition::new(moves, rules)
    }

    /// Pickles as its moves and rules (so `copy.deepcopy` and
    /// multiprocessing take positions).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String, String))> {
        let restore = slf.get_type().getattr("_restore")?;
        let this = slf.borrow();
        Ok((restore, (this.moves(), this.rules())))
    }

    /// A position never changes: its copy is itself.
    fn __copy__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// A position never changes: its deep copy is itself.
    fn __deepcopy__(slf: Py<Self>, _memo: &Bound<'_, PyAny>) -> Py<Self> {
        slf
    }

    /// The position after `columns`, each counted from 0.
    #[staticmethod]
    #[pyo3(signature = (columns, *, rules = "7x6x4"))]
    fn from_columns(columns: Vec<Bound<'_, PyAny>>, rules: &str) -> PyResult<PyPosition> {
        let rules = rules_named(rules)?;
        let mut one_based = Vec::with_capacity(columns.len());
        for (i, c) in columns.iter().enumerate() {
            one_based.push(column_of(c, i + 1, rules.columns())?.saturating_add(1));
        }
        Game::from_columns(rules, &one_based)
            .map(PyPosition::of)
            .map_err(|e| errors::from_columns(&e, rules.columns()))
    }

    /// The position of a board array in `convention` ('course', 'kaggle'
    /// or 'pettingzoo'); the board's size is `rules` if given, else its
    /// shape's.
    #[staticmethod]
    #[pyo3(signature = (board, *, convention = "course", rules = None))]
    fn from_board(
        board: &Bound<'_, PyAny>,
        convention: &str,
        rules: Option<&str>,
    ) -> PyResult<PyPosition> {
        let rules = rules.map(rules_named).transpose()?;
        boards::read(board, Convention::named(convention)?, rules).map(PyPosition::of)
    }

    /// The position after playing `column` (from 0).
    fn play(&self, column: &Bound<'_, PyAny>) -> PyResult<PyPosition> {
        let mut game = self.game.clone();
        let columns = game.rules().columns();
        let column = column_of(column, game.moves().len() + 1, columns)?;
        game.play(column.saturating_add(1))
            .map_err(|e| errors::from_columns(&e, columns))?;
        Ok(PyPosition::of(game))
    }

    /// The columns (from 0) that can be played: none once the game is over.
    fn legal(&self) -> Vec<u32> {
        if self.is_over() {
            return Vec::new();
        }
        self.position().legal_moves()
    }

    /// Whether the game is over: a line of four, or a full board.
    fn is_over(&self) -> bool {
        self.position().is_over()
    }

    /// Who won: 1 (the first player), 2 (the second), or None (a draw, or
    /// the game goes on).
    fn winner(&self) -> Option<u8> {
        match self.position().status() {
            Status::Won(Player::First) => Some(1),
            Status::Won(Player::Second) => Some(2),
            Status::Draw | Status::Ongoing => None,
        }
    }

    /// Who moves next: 1 (the first player) or 2 (the second).
    #[getter]
    fn to_move(&self) -> u8 {
        match self.position().side_to_move() {
            Player::First => 1,
            Player::Second => 2,
        }
    }

    /// The moves as the command line writes them (columns from 1).
    #[getter]
    fn moves(&self) -> String {
        self.game.move_string()
    }

    /// The moves as columns from 0.
    #[getter]
    fn columns(&self) -> Vec<u32> {
        self.game.moves().to_vec()
    }

    /// The board's rules, as COLUMNSxROWSxINAROW.
    #[getter]
    fn rules(&self) -> String {
        self.game.rules().to_string()
    }

    /// The board as an array of `convention` ('course': a numpy array,
    /// rows from the top, -1 first player, 1 second; 'kaggle': a flat list,
    /// 1 and 2; 'pettingzoo': planes of the player to move and the other).
    #[pyo3(signature = (convention = "course"))]
    fn board<'py>(&self, py: Python<'py>, convention: &str) -> PyResult<Bound<'py, PyAny>> {
        boards::write(py, self.position(), Convention::named(convention)?)
    }

    fn __len__(&self) -> usize {
        self.game.moves().len()
    }

    /// The board as text, X the first player, O the second, its columns
    /// numbered from 0 underneath.
    fn __str__(&self) -> String {
        let ascii = grid::to_ascii(self.position());
        let board: Vec<&str> = ascii
            .lines()
            .take(self.position().rows() as usize)
            .collect();
        let numbers: Vec<String> = (0..self.position().columns())
            .map(|c| c.to_string())
            .collect();
        format!("{}\n{}\n", board.join("\n"), numbers.join(" "))
    }

    fn __repr__(&self) -> String {
        if self.game.rules() == Rules::STANDARD {
            format!("Position('{}')", self.moves())
        } else {
            format!("Position('{}', rules='{}')", self.moves(), self.rules())
        }
    }
}

/// A column (from 0) given to move `index`: any Python integer, one too
/// large for the engine refused as a column off the board (not as an
/// overflow of a C type).
fn column_of(value: &Bound<'_, PyAny>, index: usize, columns: u32) -> PyResult<i64> {
    match value.extract::<i64>() {
        Ok(column) => Ok(column),
        Err(e) if e.is_instance_of::<pyo3::exceptions::PyOverflowError>(value.py()) => {
            Err(errors::position_error(format!(
                "move {index}: column {} does not exist: the board's columns are 0 to {}",
                value.str()?,
                columns.saturating_sub(1)
            )))
        }
        Err(e) => Err(e),
    }
}
