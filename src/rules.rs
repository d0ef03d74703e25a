//! Board geometry and the winning line length.
//!
//! A [`Rules`] value fixes the number of columns, the number of rows and how
//! many stones in a row win. The standard game is 7 x 6 x 4. Every size whose
//! board fits one 64-bit word with a sentinel row on top of each column is
//! supported (see [`crate::position`] for the layout).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Fewest columns a board may have.
pub const MIN_COLUMNS: u32 = 4;
/// Most columns a board may have (move strings use one digit per column).
pub const MAX_COLUMNS: u32 = 9;
/// Fewest rows a board may have.
pub const MIN_ROWS: u32 = 4;
/// Shortest winning line.
pub const MIN_INAROW: u32 = 3;
/// Bits in the bitboard word; `columns * (rows + 1)` must not exceed it.
pub const BOARD_BITS: u32 = 64;

/// Board size and winning line length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "RawRules", into = "RawRules")]
pub struct Rules {
    columns: u32,
    rows: u32,
    inarow: u32,
}

/// The unchecked wire form of [`Rules`]; deserialisation validates it.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
struct RawRules {
    #[serde(default = "default_columns")]
    columns: u32,
    #[serde(default = "default_rows")]
    rows: u32,
    #[serde(default = "default_inarow")]
    inarow: u32,
}

fn default_columns() -> u32 {
    Rules::STANDARD.columns
}
fn default_rows() -> u32 {
    Rules::STANDARD.rows
}
fn default_inarow() -> u32 {
    Rules::STANDARD.inarow
}

impl TryFrom<RawRules> for Rules {
    type Error = RulesError;
    fn try_from(raw: RawRules) -> Result<Self, RulesError> {
        Rules::new(raw.columns, raw.rows, raw.inarow)
    }
}

impl From<Rules> for RawRules {
    fn from(r: Rules) -> Self {
        RawRules {
            columns: r.columns,
            rows: r.rows,
            inarow: r.inarow,
        }
    }
}

/// A rules value outside the supported range, naming the bound it broke.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RulesError {
    /// Too few or too many columns.
    #[error("columns = {0}: must be between {MIN_COLUMNS} and {MAX_COLUMNS}")]
    Columns(u32),
    /// Too few rows.
    #[error("rows = {0}: must be at least {MIN_ROWS}")]
    Rows(u32),
    /// The board with its sentinel row does not fit one 64-bit word.
    #[error(
        "{columns} columns x {rows} rows: columns x (rows + 1) = {} exceeds {BOARD_BITS}",
        columns * (rows + 1)
    )]
    TooLarge {
        /// Columns asked for.
        columns: u32,
        /// Rows asked for.
        rows: u32,
    },
    /// The winning line is too short or longer than the board allows.
    #[error(
        "inarow = {inarow}: must be between {MIN_INAROW} and {max} (the longer side of a {columns}x{rows} board)"
    )]
    InARow {
        /// Line length asked for.
        inarow: u32,
        /// Columns of the board.
        columns: u32,
        /// Rows of the board.
        rows: u32,
        /// Longest line the board allows.
        max: u32,
    },
    /// A rules string that is not `COLUMNSxROWSxINAROW`.
    #[error("rules '{0}': expected COLUMNSxROWSxINAROW, for example 7x6x4")]
    Syntax(String),
}

impl Rules {
    /// The standard game: 7 columns, 6 rows, 4 in a row.
    pub const STANDARD: Rules = Rules {
        columns: 7,
        rows: 6,
        inarow: 4,
    };

    /// Checks and builds a rules value.
    pub fn new(columns: u32, rows: u32, inarow: u32) -> Result<Self, RulesError> {
        if !(MIN_COLUMNS..=MAX_COLUMNS).contains(&columns) {
            return Err(RulesError::Columns(columns));
        }
        if rows < MIN_ROWS {
            return Err(RulesError::Rows(rows));
        }
        if rows >= BOARD_BITS || columns * (rows + 1) > BOARD_BITS {
            return Err(RulesError::TooLarge { columns, rows });
        }
        let max = columns.max(rows);
        if !(MIN_INAROW..=max).contains(&inarow) {
            return Err(RulesError::InARow {
                inarow,
                columns,
                rows,
                max,
            });
        }
        Ok(Rules {
            columns,
            rows,
            inarow,
        })
    }

    /// Number of columns.
    pub const fn columns(&self) -> u32 {
        self.columns
    }

    /// Number of rows.
    pub const fn rows(&self) -> u32 {
        self.rows
    }

    /// Stones in a row that win.
    pub const fn inarow(&self) -> u32 {
        self.inarow
    }

    /// Number of playable cells.
    pub const fn cells(&self) -> u32 {
        self.columns * self.rows
    }

    /// Bits per column in the bitboard: the rows plus one sentinel bit.
    pub const fn column_height(&self) -> u32 {
        self.rows + 1
    }
}

impl Default for Rules {
    fn default() -> Self {
        Rules::STANDARD
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}x{}", self.columns, self.rows, self.inarow)
    }
}

impl FromStr for Rules {
    type Err = RulesError;

    /// Parses `7x6x4` (columns x rows x in-a-row); `7x6` means four in a row.
    fn from_str(s: &str) -> Result<Self, RulesError> {
        let parts: Vec<&str> = s.trim().split(['x', 'X']).collect();
        let num = |p: &str| {
            p.trim()
                .parse::<u32>()
                .map_err(|_| RulesError::Syntax(s.to_string()))
        };
        match parts.as_slice() {
            [c, r] => Rules::new(num(c)?, num(r)?, 4),
            [c, r, k] => Rules::new(num(c)?, num(r)?, num(k)?),
            _ => Err(RulesError::Syntax(s.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_is_default() {
        assert_eq!(Rules::default(), Rules::new(7, 6, 4).unwrap());
        assert_eq!(Rules::STANDARD.to_string(), "7x6x4");
    }

    #[test]
    fn bounds_are_named() {
        assert_eq!(Rules::new(3, 6, 4), Err(RulesError::Columns(3)));
        assert_eq!(Rules::new(10, 6, 4), Err(RulesError::Columns(10)));
        assert_eq!(Rules::new(7, 3, 4), Err(RulesError::Rows(3)));
        assert_eq!(
            Rules::new(9, 7, 4),
            Err(RulesError::TooLarge {
                columns: 9,
                rows: 7
            })
        );
        assert!(Rules::new(8, 7, 4).is_ok());
        assert!(Rules::new(4, 15, 4).is_ok());
        assert!(matches!(
            Rules::new(7, 6, 2),
            Err(RulesError::InARow { .. })
        ));
        assert!(matches!(
            Rules::new(7, 6, 8),
            Err(RulesError::InARow { .. })
        ));
        assert!(Rules::new(7, 6, 7).is_ok());
        let msg = Rules::new(9, 7, 4).unwrap_err().to_string();
        assert!(msg.contains("72 exceeds 64"), "{msg}");
    }

    #[test]
    fn parse() {
        assert_eq!("7x6x4".parse::<Rules>().unwrap(), Rules::STANDARD);
        assert_eq!("7x6".parse::<Rules>().unwrap(), Rules::STANDARD);
        assert_eq!(
            "9X6x5".parse::<Rules>().unwrap(),
            Rules::new(9, 6, 5).unwrap()
        );
        assert!(matches!("7-6".parse::<Rules>(), Err(RulesError::Syntax(_))));
        assert!(matches!(
            "axbx4".parse::<Rules>(),
            Err(RulesError::Syntax(_))
        ));
    }

    #[test]
    fn serde_validates() {
        let r: Rules = serde_json::from_str(r#"{"columns":7,"rows":7}"#).unwrap();
        assert_eq!(r, Rules::new(7, 7, 4).unwrap());
        let e = serde_json::from_str::<Rules>(r#"{"columns":12}"#).unwrap_err();
        assert!(e.to_string().contains("columns = 12"), "{e}");
    }
}
