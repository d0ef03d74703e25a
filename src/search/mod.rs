//! Search: the exact solver and the clocked iterative-deepening search.
//!
//! - `solver`: the exact null-window solver ([`Solver`]) and `bounds_table`,
//!   its transposition table of score bounds;
//! - `iterative`, `depth_table` and `heuristic`: the clocked search behind
//!   `go` ([`Searcher`]), its table and its evaluation at the horizon;
//! - `order`: move ordering, and `open_lines`, what it weighs besides the
//!   threats early in the game;
//! - `limits`: [`Limits`] and the budget polled during a search (the
//!   searches' own; callers give limits);
//! - [`verdict`]: the solver's verdict on every move of a game, for the
//!   grader's feedback and the web page's replay;
//! - [`priority`]: helper threads give way to the work a user waits for.

pub(crate) mod bounds_table;
pub(crate) mod depth_table;
pub(crate) mod heuristic;
pub(crate) mod iterative;
pub(crate) mod limits;
pub(crate) mod open_lines;
pub(crate) mod order;
pub mod priority;
pub(crate) mod solver;
pub mod verdict;

pub use iterative::{Report, SearchScore, Searcher};
pub(crate) use limits::Budget;
pub use limits::Limits;
pub use order::centre_first;
pub use solver::{DEEP_BELOW_EMPTY, DEEP_TABLE_MB, DEFAULT_HASH_MB, MIN_HASH_MB, Solver};
