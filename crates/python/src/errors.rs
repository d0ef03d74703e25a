//! The engine's errors as Python's: `PositionError`, a `ValueError`, with
//! the command line's words, its columns and rows counted as the caller
//! counts them (from 1 in a move string, as the command line does; from 0
//! in a list of columns or a board array, as Python does).

use connect4::game::MoveError;
use connect4::grid::GridError;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

pyo3::create_exception!(
    c4engine,
    PositionError,
    PyValueError,
    "A position or move that cannot be: a column off the board or full, a \
     move after the end of the game, a board no game reaches. Its message \
     counts columns as the input did (from 0 for lists and boards)."
);

/// A `PositionError` with `message`.
pub fn position_error(message: impl Into<String>) -> PyErr {
    PositionError::new_err(message.into())
}

/// A move error of a 1-based move string, in the command line's words.
pub fn from_move_string(e: &MoveError) -> PyErr {
    position_error(e.to_string())
}

/// A move error of 0-based columns (the engine was given each plus one).
pub fn from_columns(e: &MoveError, columns: u32) -> PyErr {
    let last = columns.saturating_sub(1);
    position_error(match e {
        MoveError::NoSuchColumn { index, column, .. } => format!(
            "move {index}: column {} does not exist: the board's columns are 0 to {last}",
            column - 1
        ),
        MoveError::ColumnFull { index, column } => {
            let column = column - 1;
            format!("move {index} (column {column}): column {column} is full")
        }
        other => other.to_string(),
    })
}

/// A board that no game reaches, its rows and columns counted from 0 (the
/// grid's own words count them from 1); `values` names the convention's
/// values for empty, first and second.
pub fn from_grid(e: &GridError, values: &str) -> PyErr {
    position_error(match e {
        GridError::RowCount { found, expected } => {
            format!("the board has {found} rows, expected {expected}")
        }
        GridError::RowLength {
            row,
            found,
            expected,
        } => format!("row {} has {found} cells, expected {expected}", row - 1),
        GridError::BadCell { row, column, value } => format!(
            "row {}, column {}: value {value} is not {values}",
            row - 1,
            column - 1
        ),
        GridError::Floating { row, column } => format!(
            "row {}, column {}: a piece floats above an empty cell",
            row - 1,
            column - 1
        ),
        other => other.to_string(),
    })
}
