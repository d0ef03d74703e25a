//! Results from the game log: per pairing (score, Elo, pentanomial counts,
//! SPRT), per engine (the figures the course reports printed), the
//! crosstable, and the `--summary` JSON and `--csv` files.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use serde::Serialize;

use crate::log::GameLine;
use crate::play::FORFEITS;
use crate::stats::{Decision, Sprt, Tally};

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
    /// The log-likelihood ratio.
    pub llr: f64,
    /// The (lower, upper) bounds.
    pub bounds: (f64, f64),
    /// The decision, once made.
    pub decision: Option<Decision>,
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
    let mut tallies: HashMap<(usize, usize), Tally> = HashMap::new();
    // Points of the pairing's first engine per pair, to complete pairs.
    let mut pairs: HashMap<u64, (usize, usize, f64, u32)> = HashMap::new();
    for g in games {
        let (Some(&f), Some(&s)) = (index.get(g.first.as_str()), index.get(g.second.as_str()))
        else {
            continue;
        };
        let first_points = g.first_points();
        // The pairing as scheduled: (lower, higher) index order in
        // `pairings` decides whose view the tally takes.
        let (a, b) = if pairings.contains(&(f, s)) {
            (f, s)
        } else {
            (s, f)
        };
        let a_points = if a == f {
            first_points
        } else {
            1.0 - first_points
        };
        tallies.entry((a, b)).or_default().add_game(a_points);
        let entry = pairs.entry(g.pair).or_insert((a, b, 0.0, 0));
        entry.2 += a_points;
        entry.3 += 1;
        for (engine, points, mover_parity) in [(f, first_points, 0), (s, 1.0 - first_points, 1)] {
            let fig = &mut figures[engine];
            fig.games += 1;
            fig.points += points;
            let opening_len = g.opening.len();
            for (ply, m) in g.plies.iter().enumerate() {
                if (opening_len + ply) % 2 == mover_parity {
                    fig.moves += 1;
                    fig.time_ms += m.time_ms;
                    fig.nodes += m.nodes;
                    fig.depth += u64::from(m.depth);
                }
            }
            if points == 0.0 && FORFEITS.contains(&g.reason.as_str()) {
                *fig.forfeits.entry(g.reason.clone()).or_default() += 1;
            }
        }
    }
    for (a, b, points, count) in pairs.into_values() {
        if count == 2 {
            tallies.entry((a, b)).or_default().add_pair(points);
        }
    }
    let pairings = pairings
        .iter()
        .map(|&(a, b)| {
            let tally = tallies.get(&(a, b)).copied().unwrap_or_default();
            PairingResult {
                a: engines[a].clone(),
                b: engines[b].clone(),
                tally,
                sprt: sprt.map(|test| {
                    let llr = test.llr(&tally.penta);
                    SprtState {
                        test,
                        llr,
                        bounds: test.bounds(),
                        decision: test.decide(llr),
                    }
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
    /// The final table.
    pub fn table(&self) -> String {
        let mut out = String::new();
        for p in &self.pairings {
            let t = &p.tally;
            let (elo, low, high) = t.elo();
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
                    match s.decision {
                        Some(Decision::H1) => "H1 accepted",
                        Some(Decision::H0) => "H0 accepted",
                        None => "undecided",
                    }
                );
            }
        }
        let width = self
            .engines
            .iter()
            .map(|e| e.name.len())
            .max()
            .unwrap_or(6)
            .max(6);
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

    /// The crosstable of a tournament: engines by score, each cell the row
    /// engine's points against the column engine and the games played.
    pub fn crosstable(&self) -> String {
        let mut order: Vec<usize> = (0..self.engines.len()).collect();
        let score = |i: usize| self.engines[i].points / f64::from(self.engines[i].games.max(1));
        order.sort_by(|&x, &y| score(y).total_cmp(&score(x)));
        let names: Vec<&str> = self.engines.iter().map(|e| e.name.as_str()).collect();
        let width = names.iter().map(|n| n.len()).max().unwrap_or(6).max(6);
        let mut cell: HashMap<(&str, &str), (f64, u32)> = HashMap::new();
        for p in &self.pairings {
            let t = &p.tally;
            let pts = f64::from(t.wins) + f64::from(t.draws) / 2.0;
            cell.insert((&p.a, &p.b), (pts, t.games()));
            cell.insert((&p.b, &p.a), (f64::from(t.games()) - pts, t.games()));
        }
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
            for &j in &order {
                let text = if i == j {
                    "-".to_string()
                } else {
                    match cell.get(&(names[i], names[j])) {
                        Some((pts, games)) => format!("{pts}/{games}"),
                        None => ".".to_string(),
                    }
                };
                let _ = write!(out, " {text:>9}");
            }
            let _ = writeln!(out);
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
            let quote = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
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
                    .and_then(|s| s.decision)
                    .map_or("", |d| if d == Decision::H1 { "H1" } else { "H0" })
            );
        }
        out
    }

    /// The `--summary` file.
    pub fn summary_json(&self) -> String {
        let pairings: Vec<serde_json::Value> = self
            .pairings
            .iter()
            .map(|p| {
                let t = &p.tally;
                let (elo, low, high) = t.elo();
                let finite = |x: f64| if x.is_finite() { serde_json::json!(x) } else { serde_json::json!(if x > 0.0 { "+inf" } else { "-inf" }) };
                serde_json::json!({
                    "a": p.a, "b": p.b,
                    "games": t.games(), "wins": t.wins, "draws": t.draws, "losses": t.losses,
                    "score": t.score(), "elo": finite(elo), "elo_95": [finite(low), finite(high)],
                    "los": t.los(), "draw_ratio": t.draw_ratio(),
                    "pentanomial": {"LL": t.penta[0], "LD": t.penta[1], "DD_WL": t.penta[2], "WD": t.penta[3], "WW": t.penta[4]},
                    "sprt": p.sprt.map(|s| serde_json::json!({
                        "elo0": s.test.elo0, "elo1": s.test.elo1, "alpha": s.test.alpha, "beta": s.test.beta,
                        "llr": s.llr, "lower": s.bounds.0, "upper": s.bounds.1,
                        "decision": s.decision.map(|d| if d == Decision::H1 { "H1" } else { "H0" }),
                    })),
                })
            })
            .collect();
        let engines: Vec<serde_json::Value> = self
            .engines
            .iter()
            .map(|e| {
                serde_json::json!({
                    "name": e.name, "games": e.games, "points": e.points,
                    "moves_per_game": f64::from(e.moves) / f64::from(e.games.max(1)),
                    "ms_per_move": e.per_move(e.time_ms),
                    "nodes_per_move": e.per_move(e.nodes as f64),
                    "depth_per_move": e.per_move(e.depth as f64),
                    "forfeits": e.forfeits,
                })
            })
            .collect();
        let doc =
            serde_json::json!({"games": self.games, "pairings": pairings, "engines": engines});
        serde_json::to_string_pretty(&doc).expect("a summary serialises") + "\n"
    }
}
