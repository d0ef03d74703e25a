//! Counting an experiment's games: an engine's results by colour, with a
//! 95% interval on its win rate, and the cost of its moves.

use connect4::lab::stats::wilson;

use connect4_match::log::GameLine;

/// Wins, draws and losses of one engine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Record {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

impl Record {
    /// Games counted.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// The share of games won, 0 with no games.
    pub fn win_rate(&self) -> f64 {
        f64::from(self.wins) / f64::from(self.games().max(1))
    }

    /// The win rate's 95% Wilson interval.
    pub fn win_interval(&self) -> (f64, f64) {
        wilson(self.wins, self.games())
    }

    /// Points per game (a draw is half a point).
    pub fn score(&self) -> f64 {
        (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / f64::from(self.games().max(1))
    }

    /// The columns [`Record::CSV_COLUMNS`] names, comma-separated.
    pub fn csv(&self) -> String {
        let (lo, hi) = self.win_interval();
        format!(
            "{},{},{},{},{:.4},{lo:.4},{hi:.4}",
            self.games(),
            self.wins,
            self.draws,
            self.losses,
            self.win_rate()
        )
    }

    /// The CSV columns of [`Record::csv`].
    pub const CSV_COLUMNS: &'static str = "games,wins,draws,losses,win_rate,win_low,win_high";

    /// `W-D-L`.
    pub fn text(&self) -> String {
        format!("{}-{}-{}", self.wins, self.draws, self.losses)
    }

    /// The win rate and its interval in percent, as `87.0% [80.1, 92.1]`.
    pub fn win_text(&self) -> String {
        let (lo, hi) = self.win_interval();
        format!(
            "{:.1}% [{:.1}, {:.1}]",
            100.0 * self.win_rate(),
            100.0 * lo,
            100.0 * hi
        )
    }

    fn add(&mut self, points: f64) {
        if points == 1.0 {
            self.wins += 1;
        } else if points == 0.0 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }
}

/// An engine's results as the first and as the second player.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sides {
    /// Games it started.
    pub first: Record,
    /// Games its opponent started.
    pub second: Record,
}

impl Sides {
    /// Both colours together.
    pub fn total(&self) -> Record {
        Record {
            wins: self.first.wins + self.second.wins,
            draws: self.first.draws + self.second.draws,
            losses: self.first.losses + self.second.losses,
        }
    }
}

/// The results of `engine` in `games`, by colour.
pub fn sides(games: &[GameLine], engine: &str) -> Sides {
    let mut s = Sides::default();
    for g in games {
        if g.first == engine {
            s.first.add(g.first_points());
        } else if g.second == engine {
            s.second.add(1.0 - g.first_points());
        }
    }
    s
}

/// What an engine's moves cost.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cost {
    /// Moves counted.
    pub moves: u64,
    /// Nodes reported over those moves.
    pub nodes: u64,
    /// Wall time over those moves, in milliseconds.
    pub time_ms: f64,
}

impl Cost {
    /// Mean nodes per move.
    pub fn nodes_per_move(&self) -> f64 {
        self.nodes as f64 / self.moves.max(1) as f64
    }

    /// Mean milliseconds per move.
    pub fn ms_per_move(&self) -> f64 {
        self.time_ms / self.moves.max(1) as f64
    }
}

/// The cost of the moves `engine` made in `games` (after the openings).
pub fn cost(games: &[GameLine], engine: &str) -> Cost {
    let mut c = Cost::default();
    for g in games {
        let opening = g.opening.len();
        for (i, ply) in g.plies.iter().enumerate() {
            let mover = if (opening + i).is_multiple_of(2) {
                &g.first
            } else {
                &g.second
            };
            if mover == engine {
                c.moves += 1;
                c.nodes += ply.nodes;
                c.time_ms += ply.time_ms;
            }
        }
    }
    c
}
