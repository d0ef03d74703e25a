//! Evaluators of the course agents, from the side to move's view.
//!
//! - `windows`: every window of `inarow` cells (four on the standard board)
//!   in the four directions, scored by its contents: all own `w.four`
//!   (+1000), own `inarow - 1` and one empty `w.three` (+10), own
//!   `inarow - 2` and two empty `w.two` (+5), opponent `inarow - 1` and one
//!   empty `w.opp_three` (-80); plus `w.centre` (+3) per own stone in the
//!   centre column.
//! - `random`: a random value in -100..=100, the baseline one report
//!   compared against (`seed`).

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::{AgentError, Spec};
use crate::position::Position;
use crate::rules::Rules;

/// Weights of the `windows` evaluator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowWeights {
    /// A window full of own stones.
    pub four: i32,
    /// Own stones but one, and one empty cell.
    pub three: i32,
    /// Own stones but two, and two empty cells.
    pub two: i32,
    /// Opponent stones but one, and one empty cell.
    pub opp_three: i32,
    /// Per own stone in the centre column.
    pub centre: i32,
}

impl Default for WindowWeights {
    fn default() -> Self {
        WindowWeights {
            four: 1000,
            three: 10,
            two: 5,
            opp_three: -80,
            centre: 3,
        }
    }
}

/// An evaluator with its state.
pub enum Evaluator {
    /// Window counting, with the window masks of the last board seen.
    Windows {
        /// The weights.
        weights: WindowWeights,
        /// (rules, every window as a bitmask, the centre column mask).
        cache: Option<(Rules, Vec<u64>, u64)>,
    },
    /// Random values.
    Random {
        /// The generator (boxed: it is much larger than the other variant).
        rng: Box<StdRng>,
    },
}

impl Evaluator {
    /// Parameters the evaluators take, for spec checking.
    pub const PARAMS: &'static [&'static str] = &["eval", "seed", "w.NAME"];

    /// Builds the evaluator of a spec: `eval=windows|random`, `seed`, and
    /// `w.four`, `w.three`, `w.two`, `w.opp_three`, `w.centre`.
    pub fn from_spec(spec: &Spec) -> Result<Evaluator, AgentError> {
        let name: String = spec.get("eval", "windows".to_string(), "")?;
        match name.as_str() {
            "windows" => {
                let mut w = WindowWeights::default();
                for (k, v) in &spec.params {
                    let Some(weight) = k.strip_prefix("w.") else {
                        continue;
                    };
                    let slot = match weight {
                        "four" => &mut w.four,
                        "three" => &mut w.three,
                        "two" => &mut w.two,
                        "opp_three" => &mut w.opp_three,
                        "centre" => &mut w.centre,
                        _ => {
                            return Err(AgentError::UnknownParam {
                                agent: spec.name.clone(),
                                param: k.clone(),
                                allowed: "w.four, w.three, w.two, w.opp_three, w.centre".into(),
                            });
                        }
                    };
                    *slot = v.parse().map_err(|_| AgentError::BadValue {
                        agent: spec.name.clone(),
                        param: k.clone(),
                        value: v.clone(),
                        why: "expected an integer".into(),
                    })?;
                }
                Ok(Evaluator::Windows {
                    weights: w,
                    cache: None,
                })
            }
            "random" => Ok(Evaluator::Random {
                rng: Box::new(StdRng::seed_from_u64(spec.get(
                    "seed",
                    0,
                    "expected an unsigned integer",
                )?)),
            }),
            other => Err(AgentError::BadValue {
                agent: spec.name.clone(),
                param: "eval".into(),
                value: other.into(),
                why: "expected windows or random".into(),
            }),
        }
    }

    /// The value of `p` for the side to move.
    pub fn evaluate(&mut self, p: &Position) -> i32 {
        match self {
            Evaluator::Random { rng } => rng.random_range(-100..=100),
            Evaluator::Windows { weights, cache } => {
                let rules = p.rules();
                if cache.as_ref().is_none_or(|(r, _, _)| *r != rules) {
                    *cache = Some((rules, windows(p), p.column_mask(p.columns() / 2)));
                }
                let (_, windows, centre) = cache.as_ref().expect("just filled");
                let (own, opp) = (p.current_stones(), p.opponent_stones());
                let k = p.inarow();
                let mut value = weights.centre * (own & centre).count_ones() as i32;
                for &w in windows {
                    let (o, t) = ((own & w).count_ones(), (opp & w).count_ones());
                    let empty = k - o - t;
                    value += match (o, t, empty) {
                        (o, 0, 0) if o == k => weights.four,
                        (o, 0, 1) if o == k - 1 => weights.three,
                        (o, 0, 2) if o == k - 2 => weights.two,
                        (0, t, 1) if t == k - 1 => weights.opp_three,
                        _ => 0,
                    };
                }
                value
            }
        }
    }
}

/// Every line of `inarow` cells on the board, as bitmasks.
fn windows(p: &Position) -> Vec<u64> {
    let (cols, rows, k) = (p.columns() as i32, p.rows() as i32, p.inarow() as i32);
    let mut out = Vec::new();
    for (dc, dr) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
        for c in 0..cols {
            for r in 0..rows {
                let (ec, er) = (c + dc * (k - 1), r + dr * (k - 1));
                if ec < 0 || ec >= cols || er < 0 || er >= rows {
                    continue;
                }
                out.push((0..k).fold(0, |m, i| {
                    m | p.cell_bit((c + dc * i) as u32, (r + dr * i) as u32)
                }));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;

    #[test]
    fn windows_count_as_documented() {
        let p = Position::new(Rules::STANDARD);
        assert_eq!(
            windows(&p).len(),
            69,
            "the standard board has 69 lines of four"
        );
        let spec = Spec::parse("alphabeta:w.centre=0").unwrap();
        let mut e = Evaluator::from_spec(&spec).unwrap();
        // After 1, 1: the first player (to move) has one stone in column 1,
        // the opponent one above it: no window scores.
        let g = Game::from_move_string(Rules::STANDARD, "11").unwrap();
        assert_eq!(e.evaluate(g.position()), 0);
        // After 4, 1, 4, 1, 4: the second player to move faces an open three
        // (opponent three + empty = -80) and has two own in column 1 with
        // two empty above (+5).
        let g = Game::from_move_string(Rules::STANDARD, "41414").unwrap();
        assert_eq!(e.evaluate(g.position()), -80 + 5);
    }
}
