//! Training a Q-table by playing games against an agent.
//!
//! Each episode is one game against the opponent, the learner moving first
//! in even episodes and second in odd ones. The learner's policy is the
//! player's (forced wins and blocks, then the table) with exploration:
//! `epsilon:START..END` plays a random legal column with a probability
//! decaying linearly from START to END over the episodes (`epsilon:P` keeps
//! it at P); `ucb:c=C` plays the column maximising
//! `Q(s, a) + C * sqrt(ln N(s) / N(s, a))`, untried columns first. After
//! each of the learner's moves and the opponent's reply, the one-step
//! update `Q(s, a) += alpha * (r + gamma * max Q(s', .) - Q(s, a))` runs,
//! with `r` = 1 for a win, -1 for a loss, 0 otherwise, and no successor
//! term when the game ended.

use std::collections::HashMap;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use thiserror::Error;

use super::plot::{Figure, Panel, Series};
use crate::agents::forced_move;
pub use crate::agents::qlearning::model::Hyperparameters;
use crate::agents::qlearning::model::{self, QModel};
use crate::agents::qlearning::{best_action, columns_of};
use crate::agents::{Agent, AgentError, from_spec};
use crate::position::Position;
use crate::rules::Rules;
use crate::search::Limits;

/// How the learner explores.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Explore {
    /// A random column with a probability going from `start` to `end`.
    Epsilon {
        /// At the first episode.
        start: f64,
        /// At the last episode.
        end: f64,
    },
    /// The UCB1 bonus with constant `c`.
    Ucb {
        /// The exploration constant.
        c: f64,
    },
}

/// An exploration that is not one of the three forms.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ExploreError {
    /// Neither `epsilon:` nor `ucb:`.
    #[error("'{0}': expected epsilon:START..END, epsilon:P or ucb:c=C")]
    Form(String),
    /// A number out of its range.
    #[error(
        "'{text}': '{number}' is not a number from {lo} to {hi}; expected \
         epsilon:START..END, epsilon:P or ucb:c=C"
    )]
    Number {
        /// The whole text.
        text: String,
        /// The part that should be a number.
        number: String,
        /// Its least value.
        lo: f64,
        /// Its greatest value.
        hi: f64,
    },
}

impl std::str::FromStr for Explore {
    type Err = ExploreError;

    /// `epsilon:1.0..0.05`, `epsilon:0.1` or `ucb:c=1.4`.
    fn from_str(s: &str) -> Result<Explore, ExploreError> {
        let number = |t: &str, lo: f64, hi: f64| {
            t.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| (lo..=hi).contains(v))
                .ok_or_else(|| ExploreError::Number {
                    text: s.to_string(),
                    number: t.to_string(),
                    lo,
                    hi,
                })
        };
        match s.trim().split_once(':') {
            Some(("epsilon", range)) => match range.split_once("..") {
                Some((a, b)) => Ok(Explore::Epsilon {
                    start: number(a, 0.0, 1.0)?,
                    end: number(b, 0.0, 1.0)?,
                }),
                None => {
                    let p = number(range, 0.0, 1.0)?;
                    Ok(Explore::Epsilon { start: p, end: p })
                }
            },
            Some(("ucb", c)) => Ok(Explore::Ucb {
                c: number(c.strip_prefix("c=").unwrap_or(c), 0.0, 100.0)?,
            }),
            _ => Err(ExploreError::Form(s.to_string())),
        }
    }
}

/// What to train: the board, the hyperparameters the model records, and
/// the games per point of the learning curve.
#[derive(Clone, Debug)]
pub struct TrainOptions {
    /// The board.
    pub rules: Rules,
    /// Episodes, opponent, exploration rule (see [`Explore`]), gamma,
    /// alpha and seed.
    pub hyper: Hyperparameters,
    /// Episodes per point of the learning curve.
    pub window: u64,
}

/// Options that cannot train.
#[derive(Debug, Error)]
pub enum TrainError {
    /// The opponent spec is bad.
    #[error("--opponent: {0}")]
    Opponent(#[from] AgentError),
    /// The exploration rule is bad.
    #[error("--explore {0}")]
    Explore(ExploreError),
    /// A number out of range.
    #[error("--{name} {value}: {why}")]
    Range {
        /// The option.
        name: &'static str,
        /// Its value.
        value: String,
        /// The range.
        why: &'static str,
    },
}

/// One point of the learning curve: the games of one window.
#[derive(Clone, Debug, PartialEq)]
pub struct CurvePoint {
    /// The last episode of the window (1-based).
    pub episode: u64,
    /// Mean reward of the learner (1 win, 0 draw, -1 loss).
    pub mean_reward: f64,
    /// Share of games won.
    pub win_rate: f64,
    /// Share of games drawn.
    pub draw_rate: f64,
    /// Mean plies per game.
    pub mean_length: f64,
}

impl CurvePoint {
    /// The CSV header.
    pub const CSV_HEADER: &'static str = "episode,mean_reward,win_rate,draw_rate,mean_length";

    /// This point as a CSV row.
    pub fn csv_row(&self) -> String {
        format!(
            "{},{:.4},{:.4},{:.4},{:.2}",
            self.episode, self.mean_reward, self.win_rate, self.draw_rate, self.mean_length
        )
    }
}

/// The trainer's state between episodes.
struct Learner {
    model: QModel,
    counts: HashMap<u64, Vec<u32>>,
    explore: Explore,
    gamma: f32,
    alpha: f32,
    rng: StdRng,
}

impl Learner {
    /// The learner's move in `p` at exploration rate `epsilon`.
    fn choose(&mut self, p: &Position, epsilon: f64) -> u32 {
        if let Some(c) = forced_move(p) {
            return c;
        }
        let legal = columns_of(p, p.possible());
        match self.explore {
            Explore::Epsilon { .. } if self.rng.random_bool(epsilon) => {
                let moves = p.legal_moves();
                moves[self.rng.random_range(0..moves.len())]
            }
            Explore::Epsilon { .. } => best_action(&self.model, p, legal)
                .map_or_else(|| crate::agents::centre_most(p, p.possible()), |(c, _)| c),
            Explore::Ucb { c } => {
                let (state, mirrored) = model::state(p);
                let cols = p.columns();
                let counts = self
                    .counts
                    .entry(state)
                    .or_insert_with(|| vec![0; cols as usize]);
                let total: u32 = counts.iter().sum();
                let row = self.model.row(state);
                let mut best = (f64::NEG_INFINITY, 0);
                for col in crate::search::order::centre_first(cols) {
                    if legal >> col & 1 == 0 {
                        continue;
                    }
                    let a = if mirrored { cols - 1 - col } else { col } as usize;
                    let n = counts[a];
                    let score = if n == 0 {
                        f64::INFINITY
                    } else {
                        let q = row.map_or(0.0, |r| f64::from(r[a]));
                        q + c * (f64::from(total.max(1)).ln() / f64::from(n)).sqrt()
                    };
                    if score > best.0 {
                        best = (score, col);
                    }
                }
                let a = if mirrored { cols - 1 - best.1 } else { best.1 };
                counts[a as usize] += 1;
                best.1
            }
        }
    }

    /// The best value over the legal columns of `p` (the learner to move).
    fn max_q(&self, p: &Position) -> f32 {
        let legal = columns_of(p, p.possible());
        best_action(&self.model, p, legal).map_or(0.0, |(_, v)| v)
    }

    /// Moves Q(state, column of `p`'s orientation) towards `target`.
    fn update(&mut self, (state, mirrored): (u64, bool), column: u32, target: f32) {
        let cols = self.model.rules.columns();
        let a = if mirrored { cols - 1 - column } else { column } as usize;
        let alpha = self.alpha;
        let q = &mut self.model.row_mut(state)[a];
        *q += alpha * (target - *q);
    }
}

/// Trains a model; `progress` sees each completed curve point and the
/// episodes done so far.
pub fn train(
    options: &TrainOptions,
    mut progress: impl FnMut(&CurvePoint, u64),
) -> Result<(QModel, Vec<CurvePoint>), TrainError> {
    let h = &options.hyper;
    let explore = check_options(options)?;
    let mut opponent = from_spec(&h.opponent)?;
    let mut learner = Learner {
        model: QModel::new(options.rules, h.clone()),
        counts: HashMap::new(),
        explore,
        gamma: h.gamma as f32,
        alpha: h.alpha as f32,
        rng: StdRng::seed_from_u64(h.seed),
    };
    let mut curve = Vec::new();
    let mut window = Window::default();
    for episode in 0..h.episodes {
        let epsilon = match explore {
            Explore::Epsilon { start, end } => {
                let t = episode as f64 / (h.episodes.max(2) - 1) as f64;
                start + (end - start) * t
            }
            Explore::Ucb { .. } => 0.0,
        };
        let (reward, plies) =
            learner.episode(options.rules, opponent.as_mut(), episode % 2 == 0, epsilon);
        window.add(reward, plies);
        if window.games == options.window || episode + 1 == h.episodes {
            let point = window.point(episode + 1);
            progress(&point, episode + 1);
            curve.push(point);
            window = Window::default();
        }
    }
    Ok((learner.model, curve))
}

/// Checks the hyperparameters and the window; the exploration parsed.
fn check_options(options: &TrainOptions) -> Result<Explore, TrainError> {
    let h = &options.hyper;
    let explore: Explore = h.explore.parse().map_err(TrainError::Explore)?;
    let range = |name, value: f64, ok: bool, why| {
        if ok {
            Ok(())
        } else {
            Err(TrainError::Range {
                name,
                value: value.to_string(),
                why,
            })
        }
    };
    range(
        "gamma",
        h.gamma,
        (0.0..=1.0).contains(&h.gamma),
        "expected 0 to 1",
    )?;
    range(
        "alpha",
        h.alpha,
        h.alpha > 0.0 && h.alpha <= 1.0,
        "expected above 0, at most 1",
    )?;
    range(
        "episodes",
        h.episodes as f64,
        h.episodes > 0,
        "expected at least 1",
    )?;
    range(
        "window",
        options.window as f64,
        options.window > 0,
        "expected at least 1",
    )?;
    Ok(explore)
}

/// The games of one point of the learning curve.
#[derive(Default)]
struct Window {
    reward_sum: f64,
    wins: u64,
    draws: u64,
    plies: u64,
    games: u64,
}

impl Window {
    fn add(&mut self, reward: f32, plies: u32) {
        self.reward_sum += f64::from(reward);
        self.wins += u64::from(reward > 0.0);
        self.draws += u64::from(reward == 0.0);
        self.plies += u64::from(plies);
        self.games += 1;
    }

    fn point(&self, episode: u64) -> CurvePoint {
        let n = self.games.max(1) as f64;
        CurvePoint {
            episode,
            mean_reward: self.reward_sum / n,
            win_rate: self.wins as f64 / n,
            draw_rate: self.draws as f64 / n,
            mean_length: self.plies as f64 / n,
        }
    }
}

impl Learner {
    /// Plays one training game against `opponent`, learning from each of
    /// its own moves; returns its reward (1, 0 or -1) and the game's length.
    fn episode(
        &mut self,
        rules: Rules,
        opponent: &mut dyn Agent,
        learner_first: bool,
        epsilon: f64,
    ) -> (f32, u32) {
        let mut p = Position::new(rules);
        // The learner's last (state, column), waiting for its target.
        let mut pending: Option<((u64, bool), u32)> = None;
        let reward = loop {
            let learner_turn = p.moves_played().is_multiple_of(2) == learner_first;
            if learner_turn {
                let state = model::state(&p);
                if let Some((s, a)) = pending.take() {
                    let target = self.gamma * self.max_q(&p);
                    self.update(s, a, target);
                }
                let c = self.choose(&p, epsilon);
                pending = Some((state, c));
                p.play(c);
                if p.last_move_won() {
                    break 1.0;
                }
            } else {
                let c = opponent.choose(&p, &Limits::none(), None).column;
                p.play(c);
                if p.last_move_won() {
                    break -1.0;
                }
            }
            if p.is_full() {
                break 0.0;
            }
        };
        if let Some((s, a)) = pending {
            self.update(s, a, reward);
        }
        (reward, p.moves_played())
    }
}

/// The learning curve as three panels: results, reward and game length per
/// window of training games.
pub fn curve_figure(curve: &[CurvePoint], opponent: &str, window: u64) -> Figure {
    let x_label = format!("training games (each point: the last {window})");
    let series = |name: &str, value: fn(&CurvePoint) -> f64| {
        Series::from_pairs(name, curve.iter().map(|p| (p.episode as f64, value(p))))
    };
    Figure {
        title: format!("Q-learning against {opponent}"),
        panels: vec![
            Panel {
                title: "results".into(),
                x_label: x_label.clone(),
                y_label: "share of games (%)".into(),
                y_range: Some((0.0, 100.0)),
                series: vec![
                    series("wins", |p| 100.0 * p.win_rate),
                    series("draws", |p| 100.0 * p.draw_rate),
                ],
                ..Panel::default()
            },
            Panel {
                title: "reward".into(),
                x_label: x_label.clone(),
                y_label: "mean reward".into(),
                series: vec![series("mean reward", |p| p.mean_reward)],
                ..Panel::default()
            },
            Panel {
                title: "game length".into(),
                x_label,
                y_label: "moves per game".into(),
                series: vec![series("mean length", |p| p.mean_length)],
                ..Panel::default()
            },
        ],
        notes: vec![format!(
            "Each point sums the last {window} training games against {opponent}, \
             played while the agent learned."
        )],
    }
}
