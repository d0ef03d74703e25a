//! Results from the game log: per pairing (score, Elo, pentanomial counts,
//! SPRT), per engine (the figures the course reports printed), the
//! crosstable, and the `--summary` JSON and `--csv` files.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use connect4::Player;
use connect4::lab::stats::{Crossing, Decision, PairedTally, Sprt, SprtWatch, Tally, ratings};

use crate::log::GameLine;

/// One pairing's result, from engine `a`'s view.
#[derive(Clone, Debug, Serialize)]
pub struct PairingResult {
    /// The first engine's name.
    pub a: String,
    /// The second engine's name.
    pub b: String,
    /// Wins, draws, losses and pentanomial counts of `a`.
    pub tally: Tally,
    /// The SPRT's state, when one runs.
    pub sprt: Option<SprtState>,
}

/// An SPRT's parameters and where it stands.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct SprtState {
    /// The test.
    pub test: Sprt,
    /// The log-likelihood ratio over every game counted.
    pub llr: f64,
    /// The (lower, upper) bounds.
    pub bounds: (f64, f64),
    /// The first crossing of a bound, in the order the games were logged.
    pub verdict: Option<Crossing>,
}

/// One engine's figures over every game it played.
#[derive(Clone, Debug, Default, Serialize)]
pub struct EngineFigures {
    /// Its name.
    pub name: String,
    /// Games played.
    pub games: u32,
    /// Points scored (1 per win, 1/2 per draw).
    pub points: f64,
    /// Its own moves.
    pub moves: u32,
    /// Sum of the time of its moves, in ms.
    pub time_ms: f64,
    /// Sum of the nodes it reported.
    pub nodes: u64,
    /// Sum of the depths it reported.
    pub depth: u64,
    /// Games lost by forfeit, by reason.
    pub forfeits: BTreeMap<String, u32>,
}

impl EngineFigures {
    fn per_move(&self, total: f64) -> f64 {
        total / f64::from(self.moves.max(1))
    }
}

/// Engines in a crosstable at most.
pub const CROSSTABLE_MOST: usize = 40;

/// Everything a run's table shows.
#[derive(Clone, Debug, Serialize)]
pub struct Results {
    /// Games counted.
    pub games: usize,
    /// Per pairing, in the schedule's order.
    pub pairings: Vec<PairingResult>,
    /// Per engine, in the order given.
    pub engines: Vec<EngineFigures>,
}

/// Computes the results of `games` between `engines` (names) over
/// `pairings` (indices), with `sprt` applied to every pairing if given.
/// `games` come in the order they were logged: the SPRT's verdict is its
/// first crossing in that order, as the run that played them saw it.
pub fn collect(
    engines: &[String],
    pairings: &[(usize, usize)],
    games: &[GameLine],
    sprt: Option<Sprt>,
) -> Results {
    let index: HashMap<&str, usize> = engines
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let mut figures: Vec<EngineFigures> = engines
        .iter()
        .map(|n| EngineFigures {
            name: n.clone(),
            ..EngineFigures::default()
        })
        .collect();
    let scheduled: std::collections::HashSet<(usize, usize)> = pairings.iter().copied().collect();
    let mut tallies: HashMap<(usize, usize), PairedTally> = HashMap::new();
    let mut watches: HashMap<(usize, usize), SprtWatch> = HashMap::new();
    for g in games {
        let (Some(&f), Some(&s)) = (index.get(g.first.as_str()), index.get(g.second.as_str()))
        else {
            continue;
        };
        // The pairing as scheduled decides whose view the tally takes.
        let (a, b) = if scheduled.contains(&(f, s)) {
            (f, s)
        } else {
            (s, f)
        };
        let a_points = if a == f {
            g.first_points()
        } else {
            1.0 - g.first_points()
        };
        let paired = tallies.entry((a, b)).or_default();
        paired.add(g.pair, a_points);
        if let Some(test) = sprt {
            watches
                .entry((a, b))
                .or_insert_with(|| SprtWatch::new(test))
                .observe(&paired.tally);
        }
        figures[f].add_game(g, Player::First);
        figures[s].add_game(g, Player::Second);
    }
    let pairings = pairings
        .iter()
        .map(|&(a, b)| {
            let tally = tallies.get(&(a, b)).map(|t| t.tally).unwrap_or_default();
            PairingResult {
                a: engines[a].clone(),
                b: engines[b].clone(),
                tally,
                sprt: sprt.map(|test| SprtState {
                    test,
                    llr: test.llr(&tally.penta),
                    bounds: test.bounds(),
                    verdict: watches.get(&(a, b)).and_then(|w| w.verdict),
                }),
            }
        })
        .collect();
    Results {
        games: games.len(),
        pairings,
        engines: figures,
    }
}

impl SprtState {
    /// The verdict in words: which hypothesis, at which game, and where
    /// the LLR stands now when later games moved it.
    pub fn verdict_text(&self) -> String {
        let Some(v) = self.verdict else {
            return "undecided".into();
        };
        let (name, bound) = match v.decision {
            Decision::H1 => ("H1", self.bounds.1),
            Decision::H0 => ("H0", self.bounds.0),
        };
        format!(
            "{name} accepted after {} games (LLR {:.2} reached {bound:.2}; later games are counted but do not undo it)",
            v.games, v.llr
        )
    }
}

impl EngineFigures {
    /// Adds game `g`, in which this engine played `side`.
    fn add_game(&mut self, g: &GameLine, side: Player) {
        let points = match side {
            Player::First => g.first_points(),
            Player::Second => 1.0 - g.first_points(),
        };
        self.games += 1;
        self.points += points;
        let own_parity = usize::from(side == Player::Second);
        let opening_len = g.opening.len();
        for (ply, m) in g.plies.iter().enumerate() {
            if (opening_len + ply) % 2 == own_parity {
                self.moves += 1;
                self.time_ms += m.time_ms;
                self.nodes = self.nodes.saturating_add(m.nodes);
                self.depth += u64::from(m.depth);
            }
        }
        if points == 0.0 && g.reason.is_forfeit() {
            *self.forfeits.entry(g.reason.to_string()).or_default() += 1;
        }
    }
}

impl PairingResult {
    /// The pairing's lines of the table.
    fn lines(&self) -> String {
        let mut out = String::new();
        let p = self;
        let t = &p.tally;
        let _ = writeln!(
            out,
            "{} vs {}: +{} ={} -{} ({} games), score {:.3}",
            p.a,
            p.b,
            t.wins,
            t.draws,
            t.losses,
            t.games(),
            t.score()
        );
        let (elo, low, high) = t.elo();
        let _ = writeln!(
            out,
            "  Elo difference {} [95%: {}, {}], LOS {:.1}%, draw ratio {:.1}%",
            elo_text(elo),
            elo_text(low),
            elo_text(high),
            t.los() * 100.0,
            t.draw_ratio() * 100.0
        );
        let [ll, ld, dd, wd, ww] = t.penta;
        let _ = writeln!(out, "  pairs (LL LD DD+WL WD WW): {ll} {ld} {dd} {wd} {ww}");
        if let Some(s) = &p.sprt {
            let _ = writeln!(
                out,
                "  SPRT elo0={} elo1={} alpha={} beta={}: LLR {:.2} [{:.2}, {:.2}] {}",
                s.test.elo0,
                s.test.elo1,
                s.test.alpha,
                s.test.beta,
                s.llr,
                s.bounds.0,
                s.bounds.1,
                s.verdict_text()
            );
        }
        out
    }
}

/// An Elo figure as text (`+inf` for a perfect score).
pub fn elo_text(e: f64) -> String {
    if e.is_infinite() {
        if e > 0.0 {
            "+inf".into()
        } else {
            "-inf".into()
        }
    } else {
        format!("{e:+.1}")
    }
}

impl Results {
    /// The run in one line, before the statistics: a match's wins, draws
    /// and losses from the first engine's side, or a tournament's leader.
    pub fn verdict_line(&self) -> String {
        if self.engines.len() == 2
            && let Some(p) = self.pairings.first()
        {
            let t = &p.tally;
            return format!(
                "result: {} {} win(s), {} draw(s), {} loss(es) against {} ({:.1}% of the points)",
                p.a,
                t.wins,
                t.draws,
                t.losses,
                p.b,
                100.0 * t.score()
            );
        }
        let best = self
            .engines
            .iter()
            .max_by(|x, y| x.points.total_cmp(&y.points));
        match best {
            Some(e) => format!(
                "result: {} leads with {} point(s) of {} game(s), among {} engines",
                e.name,
                e.points,
                e.games,
                self.engines.len()
            ),
            None => "result: no game".to_string(),
        }
    }

    /// The final table.
    pub fn table(&self) -> String {
        let mut out = String::new();
        for p in &self.pairings {
            out.push_str(&p.lines());
        }
        out.push_str(&self.engine_table());
        out
    }

    /// The width of the engines' column: the longest name, at least 6.
    fn name_width(&self) -> usize {
        self.engines
            .iter()
            .map(|e| e.name.len())
            .max()
            .unwrap_or(6)
            .max(6)
    }

    /// The per-engine table.
    fn engine_table(&self) -> String {
        let mut out = String::new();
        let width = self.name_width();
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "{:<width$} {:>6} {:>7} {:>11} {:>9} {:>12} {:>7}  forfeits",
            "engine", "games", "score", "moves/game", "ms/move", "nodes/move", "depth"
        );
        for e in &self.engines {
            let forfeits: Vec<String> = e
                .forfeits
                .iter()
                .map(|(r, n)| format!("{r}: {n}"))
                .collect();
            let _ = writeln!(
                out,
                "{:<width$} {:>6} {:>7.3} {:>11.1} {:>9.2} {:>12.0} {:>7.1}  {}",
                e.name,
                e.games,
                e.points / f64::from(e.games.max(1)),
                f64::from(e.moves) / f64::from(e.games.max(1)),
                e.per_move(e.time_ms),
                e.per_move(e.nodes as f64),
                e.per_move(e.depth as f64),
                if forfeits.is_empty() {
                    "none".to_string()
                } else {
                    forfeits.join(", ")
                }
            );
        }
        out
    }

    /// The engines a crosstable shows, by score (best first): at most
    /// [`CROSSTABLE_MOST`], so that a log of thousands of names gives a
    /// table of a readable and bounded size.
    pub fn crosstable_order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.engines.len()).collect();
        let score = |i: usize| self.engines[i].points / f64::from(self.engines[i].games.max(1));
        order.sort_by(|&x, &y| score(y).total_cmp(&score(x)));
        order.truncate(CROSSTABLE_MOST);
        order
    }

    /// The crosstable's cells between the engines of `order` (indices in
    /// the order given), in that order: row engine's points against the
    /// column engine and the games they played, `None` where they did not
    /// meet.
    pub fn crosstable_cells(&self, order: &[usize]) -> Vec<Vec<Option<(f64, u32)>>> {
        let index: HashMap<&str, usize> = order
            .iter()
            .enumerate()
            .map(|(k, &i)| (self.engines[i].name.as_str(), k))
            .collect();
        let n = order.len();
        let mut cells = vec![vec![None; n]; n];
        for p in &self.pairings {
            let (Some(&a), Some(&b)) = (index.get(p.a.as_str()), index.get(p.b.as_str())) else {
                continue;
            };
            let t = &p.tally;
            let pts = f64::from(t.wins) + f64::from(t.draws) / 2.0;
            cells[a][b] = Some((pts, t.games()));
            cells[b][a] = Some((f64::from(t.games()) - pts, t.games()));
        }
        cells
    }

    /// The crosstable of a tournament: engines by score, each cell the row
    /// engine's points against the column engine and the games played (at
    /// most [`CROSSTABLE_MOST`] engines, and a line says how many more).
    pub fn crosstable(&self) -> String {
        let order = self.crosstable_order();
        let score = |i: usize| self.engines[i].points / f64::from(self.engines[i].games.max(1));
        let width = self.name_width();
        let cells = self.crosstable_cells(&order);
        let mut out = String::new();
        let _ = write!(
            out,
            "{:>3} {:<width$} {:>7} {:>6}",
            "#", "engine", "points", "score"
        );
        for (k, _) in order.iter().enumerate() {
            let _ = write!(out, " {:>9}", k + 1);
        }
        let _ = writeln!(out);
        for (rank, &i) in order.iter().enumerate() {
            let e = &self.engines[i];
            let _ = write!(
                out,
                "{:>3} {:<width$} {:>7.1} {:>5.1}%",
                rank + 1,
                e.name,
                e.points,
                100.0 * score(i)
            );
            for (col, _) in order.iter().enumerate() {
                let text = match cells[rank][col] {
                    _ if rank == col => "-".to_string(),
                    Some((pts, games)) => format!("{pts}/{games}"),
                    None => ".".to_string(),
                };
                let _ = write!(out, " {text:>9}");
            }
            let _ = writeln!(out);
        }
        let hidden = self.engines.len() - order.len();
        if hidden > 0 {
            let _ = writeln!(
                out,
                "... and {hidden} more engines (the crosstable shows the {CROSSTABLE_MOST} best; \
                 the standings and ratings list every engine)"
            );
        }
        out
    }

    /// The rating list of three or more engines: maximum-likelihood Elo
    /// over every game, best first, with 95% intervals.
    pub fn rating_list(&self) -> Vec<RatingEntry> {
        let by_name: HashMap<&str, usize> = self
            .engines
            .iter()
            .enumerate()
            .map(|(i, e)| (e.name.as_str(), i))
            .collect();
        let index = |name: &str| by_name.get(name).copied();
        let results: Vec<(usize, usize, f64, u32)> = self
            .pairings
            .iter()
            .filter_map(|p| {
                let t = &p.tally;
                let points = f64::from(t.wins) + f64::from(t.draws) / 2.0;
                Some((index(&p.a)?, index(&p.b)?, points, t.games()))
            })
            .collect();
        let mut list: Vec<RatingEntry> = ratings(self.engines.len(), &results)
            .into_iter()
            .zip(&self.engines)
            .map(|(r, e)| RatingEntry {
                name: e.name.clone(),
                // + 0.0 turns -0.0 into 0.0 for display.
                elo: r.elo + 0.0,
                low: r.low,
                high: r.high,
                games: e.games,
                points: e.points,
            })
            .collect();
        list.sort_by(|x, y| y.elo.total_cmp(&x.elo));
        list
    }

    /// The rating list as a table.
    pub fn rating_table(&self) -> String {
        let list = self.rating_list();
        let width = list.iter().map(|e| e.name.len()).max().unwrap_or(6).max(6);
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:>3} {:<width$} {:>7} {:>17} {:>6} {:>7}",
            "#", "engine", "Elo", "95%", "games", "points"
        );
        for (rank, e) in list.iter().enumerate() {
            let _ = writeln!(
                out,
                "{:>3} {:<width$} {:>+7.1} [{:>+7.1}, {:>+7.1}] {:>6} {:>7.1}",
                rank + 1,
                e.name,
                e.elo,
                e.low,
                e.high,
                e.games,
                e.points
            );
        }
        out
    }

    /// The `--csv` file: one row per pairing.
    pub fn csv(&self) -> String {
        let mut out = String::from(
            "a,b,games,wins,draws,losses,score,elo,elo_low,elo_high,los,draw_ratio,\
             ll,ld,dd_wl,wd,ww,llr,sprt\n",
        );
        for p in &self.pairings {
            let t = &p.tally;
            let (elo, low, high) = t.elo();
            let [ll, ld, dd, wd, ww] = t.penta;
            let quote = |s: &str| format!("\"{}\"", csv_text(s).replace('"', "\"\""));
            let _ = writeln!(
                out,
                "{},{},{},{},{},{},{:.4},{:.2},{:.2},{:.2},{:.4},{:.4},{ll},{ld},{dd},{wd},{ww},{},{}",
                quote(&p.a),
                quote(&p.b),
                t.games(),
                t.wins,
                t.draws,
                t.losses,
                t.score(),
                elo,
                low,
                high,
                t.los(),
                t.draw_ratio(),
                p.sprt.map_or(String::new(), |s| format!("{:.3}", s.llr)),
                p.sprt
                    .and_then(|s| s.verdict)
                    .map_or("", |v| if v.decision == Decision::H1 {
                        "H1"
                    } else {
                        "H0"
                    })
            );
        }
        out
    }

    /// The `--summary` file's contents.
    pub fn summary(&self) -> Summary {
        Summary {
            games: self.games,
            pairings: self.pairings.iter().map(PairingSummary::of).collect(),
            engines: self.engines.iter().map(EngineSummary::of).collect(),
            ratings: if self.engines.len() > 2 {
                self.rating_list()
            } else {
                Vec::new()
            },
        }
    }

    /// The `--summary` file.
    pub fn summary_json(&self) -> String {
        serde_json::to_string_pretty(&self.summary()).expect("a summary serialises") + "\n"
    }
}

/// The `--summary` file: the results as JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Games counted.
    pub games: usize,
    /// Per pairing, in the schedule's order.
    pub pairings: Vec<PairingSummary>,
    /// Per engine, in the order given.
    pub engines: Vec<EngineSummary>,
    /// With three or more engines, the rating list, best first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ratings: Vec<RatingEntry>,
}

/// One engine on the rating list.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatingEntry {
    /// Its name.
    pub name: String,
    /// Maximum-likelihood Elo, relative to the pool's mean.
    pub elo: f64,
    /// 95% interval, low end.
    pub low: f64,
    /// 95% interval, high end.
    pub high: f64,
    /// Games played.
    pub games: u32,
    /// Points scored.
    pub points: f64,
}

/// A CSV cell's text, made inert for spreadsheets: a leading `=`, `+`, `-`
/// or `@` would start a formula, so it gets a `'` in front.
fn csv_text(s: &str) -> String {
    if s.starts_with(['=', '+', '-', '@']) {
        format!("'{s}")
    } else {
        s.to_string()
    }
}

/// One pairing in the summary, from engine `a`'s view.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairingSummary {
    /// The first engine.
    pub a: String,
    /// The second engine.
    pub b: String,
    /// Games played.
    pub games: u32,
    /// Games `a` won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games `a` lost.
    pub losses: u32,
    /// `a`'s points per game.
    pub score: f64,
    /// Elo difference; null at a score of 0 or 1, where it is infinite.
    pub elo: Option<f64>,
    /// Its 95% interval, each end null where infinite.
    pub elo_95: [Option<f64>; 2],
    /// Likelihood of superiority.
    pub los: f64,
    /// Draws per game.
    pub draw_ratio: f64,
    /// Completed pairs by `a`'s points.
    pub pentanomial: Pentanomial,
    /// The SPRT, when one ran.
    pub sprt: Option<SprtSummary>,
}

/// Pairs by the first engine's points over both games.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[allow(non_snake_case)]
pub struct Pentanomial {
    /// Lost both.
    pub LL: u32,
    /// Lost one, drew one.
    pub LD: u32,
    /// Drew both, or won one and lost one.
    pub DD_WL: u32,
    /// Won one, drew one.
    pub WD: u32,
    /// Won both.
    pub WW: u32,
}

/// An SPRT in the summary.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtSummary {
    /// Elo of H0.
    pub elo0: f64,
    /// Elo of H1.
    pub elo1: f64,
    /// False positive rate.
    pub alpha: f64,
    /// False negative rate.
    pub beta: f64,
    /// The log-likelihood ratio.
    pub llr: f64,
    /// H0 is accepted at or below this.
    pub lower: f64,
    /// H1 is accepted at or above this.
    pub upper: f64,
    /// `H0`, `H1`, or null while undecided.
    pub decision: Option<String>,
    /// Games of the pairing counted when the LLR first crossed a bound
    /// (null while undecided).
    #[serde(default)]
    pub decided_at: Option<u32>,
}

/// One engine in the summary.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EngineSummary {
    /// Its name.
    pub name: String,
    /// Games played.
    pub games: u32,
    /// Points scored.
    pub points: f64,
    /// Its own moves per game.
    pub moves_per_game: f64,
    /// Milliseconds per move.
    pub ms_per_move: f64,
    /// Nodes per move.
    pub nodes_per_move: f64,
    /// Depth per move.
    pub depth_per_move: f64,
    /// Games lost by forfeit, by reason.
    pub forfeits: BTreeMap<String, u32>,
}

/// A finite number, or `None`.
fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

impl PairingSummary {
    fn of(p: &PairingResult) -> PairingSummary {
        let t = &p.tally;
        let (elo, low, high) = t.elo();
        let [ll, ld, dd, wd, ww] = t.penta;
        PairingSummary {
            a: p.a.clone(),
            b: p.b.clone(),
            games: t.games(),
            wins: t.wins,
            draws: t.draws,
            losses: t.losses,
            score: t.score(),
            elo: finite(elo),
            elo_95: [finite(low), finite(high)],
            los: t.los(),
            draw_ratio: t.draw_ratio(),
            pentanomial: Pentanomial {
                LL: ll,
                LD: ld,
                DD_WL: dd,
                WD: wd,
                WW: ww,
            },
            sprt: p.sprt.map(|s| SprtSummary {
                elo0: s.test.elo0,
                elo1: s.test.elo1,
                alpha: s.test.alpha,
                beta: s.test.beta,
                llr: s.llr,
                lower: s.bounds.0,
                upper: s.bounds.1,
                decided_at: s.verdict.map(|v| v.games),
                decision: s
                    .verdict
                    .map(|v| v.decision)
                    .map(|d| if d == Decision::H1 { "H1" } else { "H0" }.to_string()),
            }),
        }
    }
}

impl EngineSummary {
    fn of(e: &EngineFigures) -> EngineSummary {
        EngineSummary {
            name: e.name.clone(),
            games: e.games,
            points: e.points,
            moves_per_game: f64::from(e.moves) / f64::from(e.games.max(1)),
            ms_per_move: e.per_move(e.time_ms),
            nodes_per_move: e.per_move(e.nodes as f64),
            depth_per_move: e.per_move(e.depth as f64),
            forfeits: e.forfeits.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_cells_never_start_a_formula() {
        assert_eq!(csv_text("=HYPERLINK(1)"), "'=HYPERLINK(1)");
        assert_eq!(csv_text("-2+3"), "'-2+3");
        assert_eq!(csv_text("@SUM"), "'@SUM");
        assert_eq!(csv_text("+1"), "'+1");
        assert_eq!(csv_text("alphabeta"), "alphabeta");
    }
}
