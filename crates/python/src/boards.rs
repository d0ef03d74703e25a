//! Board arrays in the conventions students meet, read into a game and
//! written from a position. Rows run from the top (row 0) in all of them
//! but OpenSpiel's:
//!
//! - `course`: rows x columns (6 x 7), 0 empty, -1 the first player, 1 the
//!   second (the course's numpy board);
//! - `kaggle`: one flat list of rows x columns cells, 0 empty, 1 the first
//!   player, 2 the second (ConnectX's `observation.board`; an observation
//!   itself is read for its board);
//! - `pettingzoo`: rows x columns x 2, plane 0 the stones of the player to
//!   move, plane 1 the opponent's (`connect_four_v3`'s
//!   `observation["observation"]`; the observation dict itself is read for
//!   it);
//! - `openspiel`: OpenSpiel's `connect_four` observation tensor, 3 x rows x
//!   columns, plane 0 the first player's stones, plane 1 the second's,
//!   plane 2 the empty cells, its row 0 the BOTTOM row (or a pyspiel
//!   state itself, read for its moves).
//!
//! A board carries no move order: the game found reaches it by legal moves
//! (see `connect4::grid`), or the board is refused.

use connect4::Rules;
use connect4::game::Game;
use connect4::grid;
use connect4::position::Position;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::errors::{from_grid, position_error};

/// A board convention.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Convention {
    /// The course's numpy board: -1 first, 1 second.
    Course,
    /// Kaggle's ConnectX: a flat list, 1 first, 2 second.
    Kaggle,
    /// PettingZoo's planes: the player to move's, then the opponent's.
    PettingZoo,
    /// OpenSpiel's tensor: first's, second's and empty planes, bottom up.
    OpenSpiel,
}

/// What the conventions' names are, for messages.
const NAMES: &str = "'course', 'kaggle', 'pettingzoo' or 'openspiel'";

impl Convention {
    /// The convention called `name`.
    pub fn named(name: &str) -> PyResult<Convention> {
        match name {
            "course" => Ok(Convention::Course),
            "kaggle" => Ok(Convention::Kaggle),
            "pettingzoo" => Ok(Convention::PettingZoo),
            "openspiel" => Ok(Convention::OpenSpiel),
            _ => Err(position_error(format!(
                "convention '{name}': expected {NAMES}"
            ))),
        }
    }
}

/// The game that reaches `board`, read in `convention`; the board's size
/// is `rules` if given, else its shape's (four in a row; a flat Kaggle
/// board is the standard one).
pub fn read(
    board: &Bound<'_, PyAny>,
    convention: Convention,
    rules: Option<Rules>,
) -> PyResult<Game> {
    match convention {
        Convention::Course => {
            let rows: Vec<Vec<f64>> = extract(board, "a 2-D array of rows")?;
            let rules = rules_of(rules, &rows)?;
            let cells = cells(&rows, &[(0, 0), (-1, 1), (1, 2)], VALUES_COURSE)?;
            grid::game_from_rows(rules, &cells).map_err(|e| from_grid(&e, VALUES_COURSE))
        }
        Convention::Kaggle => {
            let flat: Vec<f64> = extract(&kaggle_board(board)?, "a flat list of cells")?;
            let rules = rules.unwrap_or(Rules::STANDARD);
            let cells = cells(&[flat], &[(0, 0), (1, 1), (2, 2)], VALUES_KAGGLE)?;
            grid::game_from_flat(rules, &cells[0]).map_err(|e| from_grid(&e, VALUES_KAGGLE))
        }
        Convention::PettingZoo => {
            let planes: Vec<Vec<Vec<f64>>> =
                extract(&pettingzoo_planes(board)?, "an array of rows x columns x 2")?;
            let (rows, width) = (planes.len(), planes.first().map_or(0, Vec::len));
            let rules = rules_of(rules, &vec![vec![0.0; width]; rows])?;
            let cells = from_planes(&planes)?;
            grid::game_from_rows(rules, &cells).map_err(|e| from_grid(&e, VALUES_PLANES))
        }
        Convention::OpenSpiel => read_openspiel(board, rules),
    }
}

/// A pyspiel state (its moves) or OpenSpiel's observation tensor.
fn read_openspiel(board: &Bound<'_, PyAny>, rules: Option<Rules>) -> PyResult<Game> {
    if board.hasattr("history")? && board.hasattr("legal_actions")? {
        let columns: Vec<i64> = board.call_method0("history")?.extract()?;
        let rules = match rules {
            Some(rules) => rules,
            None => openspiel_rules(board)?,
        };
        let one_based: Vec<i64> = columns.iter().map(|c| c + 1).collect();
        return Game::from_columns(rules, &one_based)
            .map_err(|e| crate::errors::from_columns(&e, rules.columns()));
    }
    let planes: Vec<Vec<Vec<f64>>> = match board.extract::<Vec<f64>>() {
        // `state.observation_tensor()` is flat: 3 planes of the board's cells.
        Ok(flat) => {
            let rules = rules.unwrap_or(Rules::STANDARD);
            let (width, cells) = (rules.columns() as usize, rules.cells() as usize);
            if flat.len() != 3 * cells {
                return Err(position_error(format!(
                    "the tensor has {} values, expected {} (3 planes of {} rows x {} columns)",
                    flat.len(),
                    3 * cells,
                    rules.rows(),
                    width
                )));
            }
            flat.chunks(cells)
                .map(|plane| plane.chunks(width).map(<[f64]>::to_vec).collect())
                .collect()
        }
        Err(_) => extract(board, "a pyspiel state or a tensor of 3 x rows x columns")?,
    };
    if planes.len() != 3 {
        return Err(position_error(format!(
            "the tensor has {} planes, expected 3 (first player, second player, empty)",
            planes.len()
        )));
    }
    let rules = rules_of(rules, &planes[0])?;
    let mut rows = Vec::with_capacity(planes[0].len());
    // OpenSpiel's row 0 is the bottom row: the grid's rows run from the top.
    for (r, ((first, second), empty)) in planes[0]
        .iter()
        .zip(&planes[1])
        .zip(&planes[2])
        .enumerate()
        .rev()
    {
        let mut row = Vec::with_capacity(first.len());
        for (c, ((&x, &o), &e)) in first.iter().zip(second).zip(empty).enumerate() {
            row.push(match (x, o, e) {
                (0.0, 0.0, 1.0) => 0,
                (1.0, 0.0, 0.0) => 1,
                (0.0, 1.0, 0.0) => 2,
                _ => {
                    return Err(position_error(format!(
                        "row {r} (from the bottom), column {c}: planes ({x}, {o}, {e}) are \
                         not one of first, second, empty"
                    )));
                }
            });
        }
        rows.push(row);
    }
    grid::game_from_rows(rules, &rows).map_err(|e| from_grid(&e, VALUES_OPENSPIEL))
}

/// The rules of a pyspiel state's game: its columns, rows and x_in_row.
fn openspiel_rules(state: &Bound<'_, PyAny>) -> PyResult<Rules> {
    let parameters = state
        .call_method0("get_game")?
        .call_method0("get_parameters")?;
    let get = |key: &str| -> PyResult<u32> { parameters.get_item(key)?.extract() };
    Rules::new(get("columns")?, get("rows")?, get("x_in_row")?)
        .map_err(|e| position_error(e.to_string()))
}

/// `position` as a board of `convention`: a numpy array (a flat list for
/// Kaggle, as ConnectX gives it).
pub fn write<'py>(
    py: Python<'py>,
    position: &Position,
    convention: Convention,
) -> PyResult<Bound<'py, PyAny>> {
    let rows = grid::to_rows(position);
    let numpy = py.import("numpy")?;
    match convention {
        Convention::Course => {
            let values: Vec<Vec<i64>> = rows
                .iter()
                .map(|r| r.iter().map(|&c| [0, -1, 1][usize::from(c)]).collect())
                .collect();
            numpy.call_method1("array", (values,))
        }
        Convention::Kaggle => {
            let flat: Vec<i64> = rows.into_iter().flatten().map(i64::from).collect();
            Ok(flat.into_pyobject(py)?.into_any())
        }
        Convention::PettingZoo => {
            let size = position.rows() as usize * position.columns() as usize * 2;
            let mut cells = vec![0; size];
            connect4_vector::planes(position, position.side_to_move(), &mut cells);
            let bytes = PyBytes::new(py, &cells);
            let kwargs = PyDict::new(py);
            kwargs.set_item("dtype", numpy.getattr("int8")?)?;
            let flat = numpy.call_method("frombuffer", (bytes,), Some(&kwargs))?;
            let shape = (position.rows(), position.columns(), 2);
            // A copy: frombuffer's array is read-only.
            flat.call_method1("reshape", shape)?.call_method0("copy")
        }
        Convention::OpenSpiel => {
            // Bottom row first, as OpenSpiel counts rows.
            let plane = |value: u8| -> Vec<Vec<f64>> {
                rows.iter()
                    .rev()
                    .map(|r| r.iter().map(|&c| f64::from(u8::from(c == value))).collect())
                    .collect()
            };
            numpy.call_method1("array", (vec![plane(1), plane(2), plane(0)],))
        }
    }
}

/// How the course's board names its values.
const VALUES_COURSE: &str = "0 (empty), -1 (the first player) or 1 (the second)";
/// How Kaggle's board names its values.
const VALUES_KAGGLE: &str = "0 (empty), 1 (the first player) or 2 (the second)";
/// How PettingZoo's planes name their values.
const VALUES_PLANES: &str = "0 or 1 in each plane";
/// How OpenSpiel's planes name their values.
const VALUES_OPENSPIEL: &str = "one of the first player's, the second's or empty";

/// `board` as `T`, or an error that says what was expected.
fn extract<'py, T: FromPyObjectOwned<'py>>(
    board: &Bound<'py, PyAny>,
    expected: &str,
) -> PyResult<T> {
    board.extract::<T>().map_err(|_| {
        let kind = board
            .get_type()
            .name()
            .map_or_else(|_| "?".to_string(), |n| n.to_string());
        position_error(format!("the board is a {kind}, not {expected} of numbers"))
    })
}

/// The board's rules: `given`, or its shape's with four in a row.
fn rules_of(given: Option<Rules>, rows: &[Vec<f64>]) -> PyResult<Rules> {
    let (height, width) = (rows.len(), rows.first().map_or(0, Vec::len));
    if let Some(rules) = given {
        if (height, width) != (rules.rows() as usize, rules.columns() as usize) {
            return Err(position_error(format!(
                "a board of {height} rows and {width} columns is not a board of {rules} \
                 ({} rows, {} columns)",
                rules.rows(),
                rules.columns()
            )));
        }
        return Ok(rules);
    }
    let fits = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    Rules::new(fits(width), fits(height), 4)
        .map_err(|e| position_error(format!("a board of {height} rows and {width} columns: {e}")))
}

/// The grid's values (0, 1, 2) of `rows` in a convention whose values map
/// by `values` (convention's value, grid's value).
fn cells(rows: &[Vec<f64>], values: &[(i64, i64)], names: &str) -> PyResult<Vec<Vec<i64>>> {
    rows.iter()
        .enumerate()
        .map(|(r, row)| {
            row.iter()
                .enumerate()
                .map(|(c, &v)| {
                    values
                        .iter()
                        .find(|&&(from, _)| from as f64 == v)
                        .map(|&(_, to)| to)
                        .ok_or_else(|| {
                            position_error(format!("row {r}, column {c}: value {v} is not {names}"))
                        })
                })
                .collect()
        })
        .collect()
}

/// The grid of PettingZoo's planes: who moves first follows from the
/// counts (as many stones each: the player to move is the first).
fn from_planes(planes: &[Vec<Vec<f64>>]) -> PyResult<Vec<Vec<i64>>> {
    let mut own_count = 0;
    let mut other_count = 0;
    let mut marks = Vec::with_capacity(planes.len());
    for (r, row) in planes.iter().enumerate() {
        let mut line = Vec::with_capacity(row.len());
        for (c, cell) in row.iter().enumerate() {
            let mark = match cell.as_slice() {
                [0.0, 0.0] => 0,
                [1.0, 0.0] => 1,
                [0.0, 1.0] => 2,
                other => {
                    return Err(position_error(format!(
                        "row {r}, column {c}: planes {other:?} are not one stone or none \
                         ([1, 0] the player to move's, [0, 1] the opponent's, [0, 0] empty)"
                    )));
                }
            };
            own_count += usize::from(mark == 1);
            other_count += usize::from(mark == 2);
            line.push(mark);
        }
        marks.push(line);
    }
    let own_first = if own_count == other_count {
        true
    } else if other_count == own_count + 1 {
        false
    } else {
        return Err(position_error(format!(
            "the player to move has {own_count} stones and the opponent {other_count}: the \
             player to move has as many (moving first) or one fewer (moving second)"
        )));
    };
    let (own, other) = if own_first { (1, 2) } else { (2, 1) };
    Ok(marks
        .into_iter()
        .map(|line| {
            line.into_iter()
                .map(|m| [0, own, other][m as usize])
                .collect()
        })
        .collect())
}

/// A Kaggle board: the flat list itself, or an observation's `board`.
fn kaggle_board<'py>(board: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    if let Ok(dict) = board.cast::<PyDict>()
        && let Some(inner) = dict.get_item("board")?
    {
        return Ok(inner);
    }
    if !board.is_instance_of::<PyDict>() && board.hasattr("board")? {
        return board.getattr("board");
    }
    Ok(board.clone())
}

/// PettingZoo's planes: the array itself, or an observation's
/// `observation`.
fn pettingzoo_planes<'py>(board: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    if let Ok(dict) = board.cast::<PyDict>()
        && let Some(inner) = dict.get_item("observation")?
    {
        return Ok(inner);
    }
    Ok(board.clone())
}
