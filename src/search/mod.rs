//! Search: the exact solver and the clocked iterative-deepening search.
//!
//! - [`score`]: the score convention of the public test sets;
//! - [`order`]: move ordering;
//! - [`limits`]: limits and the budget polled during a search;
//! - [`solver`]: the exact null-window solver;
//! - [`iterative`] and [`depth_table`]: the clocked search behind `go`.

pub mod depth_table;
pub mod iterative;
pub mod limits;
pub mod order;
pub mod score;
pub mod solver;

pub use iterative::{Report, SearchScore, Searcher};
pub use limits::{Budget, Limits};
pub use score::Outcome;
pub use solver::Solver;
