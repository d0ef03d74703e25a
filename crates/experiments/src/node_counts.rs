//! E: the nodes minimax and alpha-beta visit on the same positions, depth by
//! depth, beside the slides' b^d for minimax and the best case of alpha-beta
//! with perfect ordering, b^ceil(d/2) + b^floor(d/2) - 1 (Knuth and Moore),
//! with b the positions' mean number of legal moves. Since the agents count
//! every node they visit, not only the leaves, the predictions are summed
//! over the levels 1 to d: the full tree's sum of b^i, and the minimal
//! tree's sum of b^ceil(i/2) + b^floor(i/2) - 1.
//!
//! Both agents deepen one ply at a time, so the nodes of the depth-d search
//! alone are the count at depth d minus the count at depth d - 1. They run
//! in process with the windows evaluator, one position at a time.

use anyhow::{Result, bail};
use connect4::lab::plot::{Figure, Panel, Point, Series};
use connect4::lab::progress::Progress;
use connect4::openings::random_openings;
use connect4::{Game, Rules};

use crate::harness::{Context, Outputs};

/// The deepest depth measured.
const MAX_DEPTH: u32 = 7;
/// Plies of the random positions.
const PLIES: u32 = 6;

/// The nodes counted: cumulative (deepening 1..d) per agent and depth,
/// summed over the positions, and how often both agents chose the same
/// move at each depth.
struct Counts {
    /// Positions measured.
    positions: usize,
    /// `[agent][depth]`: minimax first, alpha-beta second.
    cumulative: [[u64; MAX_DEPTH as usize + 1]; 2],
    /// Per depth.
    same_move: [u32; MAX_DEPTH as usize + 1],
}

impl Counts {
    /// Mean nodes of the depth-`d` iteration alone of agent `a`.
    fn per_depth(&self, a: usize, d: u32) -> f64 {
        let c = &self.cumulative[a];
        (c[d as usize] - c[d as usize - 1]) as f64 / self.positions as f64
    }
}

/// Runs E on `positions` random positions.
pub fn run(ctx: &Context, positions: u32) -> Result<Outputs> {
    let games = random_openings(Rules::STANDARD, PLIES, positions as usize, ctx.seed);
    if games.is_empty() {
        bail!("no positions to measure");
    }
    let b = games
        .iter()
        .map(|g| g.position().legal_moves().len() as f64)
        .sum::<f64>()
        / games.len() as f64;
    let counts = count_nodes(ctx, &games)?;
    let mut csv = String::from(
        "depth,minimax_nodes,full_tree,alphabeta_nodes,minimal_tree,alphabeta_over_minimax,alphabeta_over_minimal,same_move\n",
    );
    let mut table = String::from(
        "| depth | minimax | full tree: sum of b^i | alpha-beta | minimal tree: sum of b^ceil(i/2) + b^floor(i/2) - 1 | alpha-beta / minimax | alpha-beta / minimal | same move |\n|---|---|---|---|---|---|---|---|\n",
    );
    let mut series = [
        Series::from_pairs("minimax (measured)", []),
        Series::from_pairs("alpha-beta (measured)", []),
        Series::from_pairs("full tree, sum of b^i", []),
        Series::from_pairs("minimal tree (perfect ordering)", []),
    ];
    let level_full = |i: u32| b.powi(i as i32);
    let level_minimal = |i: u32| b.powi(i.div_ceil(2) as i32) + b.powi((i / 2) as i32) - 1.0;
    for d in ctx.depths(MAX_DEPTH) {
        let (mm, ab) = (counts.per_depth(0, d), counts.per_depth(1, d));
        let full: f64 = (1..=d).map(level_full).sum();
        let best: f64 = (1..=d).map(level_minimal).sum();
        let same = counts.same_move[d as usize];
        csv.push_str(&format!(
            "{d},{mm:.1},{full:.1},{ab:.1},{best:.1},{:.4},{:.3},{same}\n",
            ab / mm,
            ab / best,
        ));
        table.push_str(&format!(
            "| {d} | {mm:.0} | {full:.0} | {ab:.0} | {best:.0} | {:.3} | {:.2} | {same} of {} |\n",
            ab / mm,
            ab / best,
            games.len()
        ));
        let x = f64::from(d);
        for (s, y) in series.iter_mut().zip([mm, ab, full, best]) {
            s.points.push(Point::new(x, y.max(1.0)));
        }
    }
    let markdown = format!(
        "### E. Nodes of minimax and alpha-beta per depth\n\n\
         {} random positions of {PLIES} plies (seed {}), windows evaluator, nodes of the \
         depth-d iteration alone, mean per position; b = {b:.2}, the positions' mean \
         number of legal moves.\n\n{table}",
        games.len(),
        ctx.seed
    );
    let figure = nodes_figure(games.len(), b, series.into_iter().collect());
    Ok(Outputs {
        csv,
        markdown,
        figures: vec![("nodes".into(), figure)],
    })
}

/// Both agents at every depth on every one of `games`' positions.
fn count_nodes(ctx: &Context, games: &[Game]) -> Result<Counts> {
    let mut counts = Counts {
        positions: games.len(),
        cumulative: [[0; MAX_DEPTH as usize + 1]; 2],
        same_move: [0; MAX_DEPTH as usize + 1],
    };
    let mut progress = Progress::new("E: positions", games.len() as u64);
    for (n, game) in games.iter().enumerate() {
        let p = game.position();
        for depth in ctx.depths(MAX_DEPTH) {
            let mut columns = [0u32; 2];
            for (a, name) in ["minimax", "alphabeta"].iter().enumerate() {
                let m = connect4::lab::selfplay::one_move(&format!("{name}:depth={depth}"), p)?;
                counts.cumulative[a][depth as usize] += m.nodes;
                columns[a] = m.column;
            }
            counts.same_move[depth as usize] += u32::from(columns[0] == columns[1]);
        }
        progress.update(n as u64 + 1, "");
    }
    progress.finish();
    Ok(counts)
}

/// The measured counts beside the two predictions.
fn nodes_figure(positions: usize, b: f64, series: Vec<Series>) -> Figure {
    Figure {
        title: "Nodes per move against depth, on the same positions".into(),
        panels: vec![Panel {
            x_label: "depth (plies)".into(),
            y_label: "nodes (log scale)".into(),
            log_y: true,
            series,
            ..Panel::default()
        }],
        notes: vec![format!(
            "Mean over {positions} random {PLIES}-ply positions of the nodes of the depth-d search \
             alone; b = {b:.2}, the positions' mean number of legal moves."
        )],
    }
}
