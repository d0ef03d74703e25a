//! Evaluators of the course agents, from the side to move's view.
//!
//! Each evaluator has named integer weights (defaults below), overridable
//! in a spec (`eval=windows,w.centre=5`) or loaded from a weights file
//! (`weights=FILE`, see [`weights`]). With `inarow` = k (4 on the standard
//! board):
//!
//! - `windows`: every line of k cells in the four directions, scored by its
//!   contents: all own `w.four` (1000), own k-1 and one empty `w.three`
//!   (10), own k-2 and two empty `w.two` (5), opponent k-1 and one empty
//!   `w.opp_three` (-80); plus `w.centre` (3) per own stone in the centre
//!   column. Not symmetric: it is the report's evaluator as written.
//! - `local`: per stone, `w.line` (1) for each row, column and diagonal of
//!   the 5 x 5 window around it (12 lines; the window is 2k-3 wide) that
//!   the opponent does not block, counting only the part on the board and
//!   only if that part can still hold k cells; `w.open_end` (2) per empty
//!   end of each run of k-1 stones; `w.centre_four` (4) per line that lacks
//!   one stone whose missing cell is in the centre column. Computed for
//!   both sides, own minus opponent, so negamax sees a zero-sum value.
//! - `features`: for each side, `w.consecutive` (4) per pair of adjacent
//!   stones in any direction, `w.alignment` (1) per line of k cells with
//!   own stones and no opponent stone (a possible alignment), `w.central`
//!   (2) per stone in the middle rows, `w.rising` (2) per adjacent pair on
//!   a rising diagonal; own minus opponent.
//! - `random`: a random value in -100..=100 (`seed`), the baseline one
//!   report compared against.
//!
//! Values stay far below a won position's value in the searches (1,000,000).

mod geometry;
pub mod weights;

use std::path::Path;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use self::geometry::Geometry;
pub use self::weights::{EvalKind, Weights, WeightsError};
use super::{AgentError, Spec};
use crate::position::{Position, cells};

/// An evaluator: its weights, the masks of the last board size seen, and a
/// generator for `random`.
pub struct Evaluator {
    seed: u64,
    weights: Weights,
    geometry: Option<Geometry>,
    rng: StdRng,
}

impl Evaluator {
    /// Parameters the evaluators take, for spec checking.
    pub const PARAMS: &'static [&'static str] = &["eval", "weights", "seed", "w.NAME"];

    /// An evaluator with the given weights; `seed` drives `random`.
    pub fn new(weights: Weights, seed: u64) -> Evaluator {
        Evaluator {
            seed,
            weights,
            geometry: None,
            rng: StdRng::seed_from_u64(seed),
        }
    }

    /// Builds the evaluator of a spec: `eval` (windows, local, features,
    /// random; default windows, or the file's), `weights=FILE`, `w.NAME`
    /// overrides applied last, and `seed`.
    pub fn from_spec(spec: &Spec) -> Result<Evaluator, AgentError> {
        let bad = |param: &str, value: &str, why: String| AgentError::BadValue {
            agent: spec.name.clone(),
            param: param.into(),
            value: value.into(),
            why,
        };
        let kind = match spec.value("eval") {
            None => None,
            Some(name) => Some(EvalKind::from_name(name).ok_or_else(|| {
                bad(
                    "eval",
                    name,
                    "expected windows, local, features or random".into(),
                )
            })?),
        };
        let mut weights = match spec.value("weights") {
            Some(path) => {
                let w = Weights::load(Path::new(path))
                    .map_err(|e| bad("weights", path, e.to_string()))?;
                if let Some(k) = kind.filter(|&k| k != w.kind()) {
                    return Err(bad(
                        "weights",
                        path,
                        format!(
                            "the file holds weights of '{}', not of eval={}",
                            w.kind().name(),
                            k.name()
                        ),
                    ));
                }
                w
            }
            None => Weights::defaults(kind.unwrap_or(EvalKind::Windows)),
        };
        for (k, v) in &spec.params {
            let Some(name) = k.strip_prefix("w.") else {
                continue;
            };
            let value = v
                .parse()
                .map_err(|_| bad(k, v, "expected an integer".into()))?;
            weights
                .set(name, value)
                .map_err(|e| AgentError::UnknownParam {
                    agent: spec.name.clone(),
                    param: k.clone(),
                    allowed: e.to_string(),
                })?;
        }
        let seed = spec.get("seed", 0, "expected an unsigned integer")?;
        Ok(Evaluator::new(weights, seed))
    }

    /// Reseeds `random` for a new game with a seed.
    pub fn new_game(&mut self, seed: Option<u64>) {
        if let Some(game) = seed {
            self.rng = StdRng::seed_from_u64(crate::openings::game_seed(self.seed, game));
        }
    }

    /// The weights in use.
    pub fn weights(&self) -> &Weights {
        &self.weights
    }

    /// The value of `p` for the side to move.
    pub fn evaluate(&mut self, p: &Position) -> i32 {
        if self.weights.kind() == EvalKind::Random {
            return self.rng.random_range(-100..=100);
        }
        if self.geometry.as_ref().is_none_or(|g| g.rules != p.rules()) {
            self.geometry = Some(Geometry::new(p));
        }
        let g = self.geometry.as_ref().expect("just filled");
        let w = self.weights.values();
        let (own, opp) = (p.current_stones(), p.opponent_stones());
        match self.weights.kind() {
            EvalKind::Windows => windows(g, w, own, opp, p.inarow()),
            EvalKind::Local => local(g, w, own, opp, p) - local(g, w, opp, own, p),
            EvalKind::Features => features(g, w, own, opp) - features(g, w, opp, own),
            EvalKind::Random => unreachable!("handled above"),
        }
    }
}

/// `windows` (weights: four, three, two, opp_three, centre).
fn windows(g: &Geometry, w: &[i32], own: u64, opp: u64, k: u32) -> i32 {
    let mut value = w[4] * (own & g.centre).count_ones() as i32;
    for &line in &g.lines {
        let (o, t) = ((own & line).count_ones(), (opp & line).count_ones());
        value += match (o, t) {
            (o, 0) if o == k => w[0],
            (o, 0) if o == k - 1 => w[1],
            (o, 0) if o == k - 2 && k >= 2 => w[2],
            (0, t) if t == k - 1 => w[3],
            _ => 0,
        };
    }
    value
}

/// One side's `local` score (weights: line, open_end, centre_four).
fn local(g: &Geometry, w: &[i32], own: u64, opp: u64, p: &Position) -> i32 {
    let empty = p.board_mask() & !(own | opp);
    let open: i32 = cells(own)
        .map(|cell| {
            let local = &g.local[cell.trailing_zeros() as usize];
            local.iter().filter(|&&l| l & opp == 0).count() as i32
        })
        .sum();
    let ends: u32 = g
        .runs
        .iter()
        .filter(|&&(run, _)| run & own == run)
        .map(|&(_, e)| (e & empty).count_ones())
        .sum();
    let k = p.inarow();
    let centre_fours = g
        .lines
        .iter()
        .filter(|&&l| l & opp == 0 && (l & own).count_ones() == k - 1 && l & empty & g.centre != 0)
        .count() as i32;
    w[0] * open + w[1] * ends as i32 + w[2] * centre_fours
}

/// One side's `features` score (weights: consecutive, alignment, central,
/// rising).
fn features(g: &Geometry, w: &[i32], own: u64, opp: u64) -> i32 {
    // The sentinel row keeps shifted pairs inside their column.
    let pairs = |s: u32| (own & (own >> s)).count_ones() as i32;
    let consecutive: i32 = g.steps.iter().map(|&s| pairs(s)).sum();
    let rising = pairs(g.steps[2]);
    let alignments = g
        .lines
        .iter()
        .filter(|&&l| l & opp == 0 && l & own != 0)
        .count() as i32;
    let central = (own & g.central_rows).count_ones() as i32;
    w[0] * consecutive + w[1] * alignments + w[2] * central + w[3] * rising
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::rules::Rules;

    fn eval(spec: &str, moves: &str) -> i32 {
        let mut e = Evaluator::from_spec(&Spec::parse(spec).unwrap()).unwrap();
        e.evaluate(
            Game::from_move_string(Rules::STANDARD, moves)
                .unwrap()
                .position(),
        )
    }

    #[test]
    fn windows_count_as_documented() {
        // After 1, 1 no line scores.
        assert_eq!(eval("a:w.centre=0", "11"), 0);
        // After 4, 1, 4, 1, 4: the second player, to move, faces an open
        // three (-80) and has two in column 1 with two empty above (+5).
        assert_eq!(eval("a", "41414"), -80 + 5);
        // After 4, 1, 4, 1 the first player has two centre stones (3 each)
        // and the line of column 4 holds two of them and two empty (+5).
        assert_eq!(eval("a", "4141"), 3 * 2 + 5);
    }

    #[test]
    fn local_counts_open_lines_open_ends_and_centre_fours() {
        // One first-player stone at the bottom of column 4, the second
        // player to move. The 5 x 5 window spans columns 2..6 and rows
        // -2..2: rows 0, 1 and 2 have 5 cells on the board; its columns and
        // diagonals only 3, too few for a four. So 3 open lines, and the
        // value is -3 for the side to move.
        assert_eq!(eval("a:eval=local", "4"), -3);
        // First player on the bottom of columns 3, 4, 5, the second on top
        // of 3 and 4: the run of three has two open ends (2 each), and
        // neither line it could complete misses a centre cell.
        let with = eval("a:eval=local", "33445");
        let without = eval("a:eval=local,w.open_end=0", "33445");
        assert_eq!(without - with, 2 * 2);
        assert_eq!(eval("a:eval=local,w.centre_four=0", "33445"), with);
        // First player on the bottom of columns 1, 2, 3: the bottom cell of
        // the centre column completes the line 1-2-3-4.
        let a = eval("a:eval=local", "11223");
        let b = eval("a:eval=local,w.centre_four=0", "11223");
        assert_eq!(b - a, 4);
        let a = eval("a:eval=local", "1122");
        let b = eval("a:eval=local,w.centre_four=0", "1122");
        assert_eq!(a, b, "two in a row complete nothing");
    }

    #[test]
    fn features_are_own_minus_opponent() {
        assert_eq!(eval("a:eval=features", ""), 0);
        // A lone first-player stone at the bottom of column 4: it lies in
        // 7 possible alignments (1 vertical, 4 horizontal, 1 per diagonal),
        // no pair, not in the middle rows (3 and 4).
        assert_eq!(eval("a:eval=features", "4"), -7);
        // 4, 1, 4: the first player has one vertical pair.
        assert_eq!(eval("a:eval=features,w.alignment=0,w.central=0", "414"), -4);
        // 1, 2, 2: the first player has a rising pair, (1,1)-(2,2).
        let only_rising = "a:eval=features,w.alignment=0,w.central=0,w.consecutive=0";
        assert_eq!(eval(only_rising, "122"), -2);
        // 4, 4, 4: a first-player stone on row 3, a middle row.
        let only_central = "a:eval=features,w.alignment=0,w.consecutive=0,w.rising=0";
        assert_eq!(eval(only_central, "444"), -2);
    }

    #[test]
    fn spec_errors_name_the_bad_value() {
        let e = |s: &str| {
            Evaluator::from_spec(&Spec::parse(s).unwrap())
                .err()
                .unwrap()
                .to_string()
        };
        assert!(e("a:eval=magic").contains("eval=magic"));
        assert!(e("a:eval=local,w.four=3").contains("w.line, w.open_end, w.centre_four"));
        assert!(e("a:w.four=x").contains("w.four=x"));
        assert!(e("a:weights=/nonexistent/w.json").contains("/nonexistent/w.json"));
    }
}
