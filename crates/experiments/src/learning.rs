//! C: the course's learning players against its Gradescope bar. Q-learning
//! trains for 12,000 games against the tactical greedy player with the
//! report's settings (UCB1 exploration with c = 1.4, discount 0.95, rewards
//! +1 / -1 / 0), drawing its learning curve; then the Q-learning player and
//! MCTS at several simulation budgets play a random mover as each colour.
//! The bar: beating random as each colour, here read strictly as a win
//! rate whose 95% interval lies above one half.

use anyhow::{Context as _, Result};
use connect4::Rules;
use connect4::lab::plot::{Figure, Panel, Point, Series};
use connect4::lab::train::{Hyperparameters, TrainOptions, curve_figure, train};

use crate::harness::{Context, MatchSetup, Outputs, own_limit, play};
use crate::tally::{Record, sides};

/// Training games, as in the report.
const EPISODES: u64 = 12_000;
/// Games per point of the learning curve.
const WINDOW: u64 = 500;
/// MCTS budgets tried.
const SIMULATIONS: [u32; 4] = [10, 50, 200, 1000];

/// Runs C with `games` games per player against random.
pub fn run(ctx: &Context, games: u32) -> Result<Outputs> {
    let model_path = std::path::absolute(ctx.out.join("C-qlearning.json"))
        .context("finding the model's path")?;
    let options = TrainOptions {
        rules: Rules::STANDARD,
        hyper: Hyperparameters {
            episodes: EPISODES,
            opponent: "greedy".into(),
            explore: "ucb:c=1.4".into(),
            gamma: 0.95,
            alpha: 0.2,
            seed: ctx.seed,
        },
        window: WINDOW,
    };
    println!("C: training Q-learning for {EPISODES} games against greedy");
    let (model, curve) = train(&options, |_, _| {})?;
    model.save(&model_path)?;
    let last = curve.last().expect("at least one window");

    let players = players(&model_path);
    let mut csv = format!("player,colour,{}\n", Record::CSV_COLUMNS);
    let mut table = String::from(
        "| player | as first: W-D-L | win rate [95%] | as second: W-D-L | win rate [95%] | beats random as each colour |\n|---|---|---|---|---|---|\n",
    );
    let mut results: Vec<(String, Record, Record)> = Vec::new();
    for (name, spec) in &players {
        let log = play(
            ctx,
            &MatchSetup {
                label: &format!("C-{name}"),
                engines: [spec, &own_limit("random", "random")],
                games,
                rules: Rules::STANDARD,
                opening_plies: 0,
            },
        )?;
        let s = sides(&log, name);
        for (colour, r) in [("first", s.first), ("second", s.second)] {
            csv.push_str(&format!("{name},{colour},{}\n", r.csv()));
        }
        let passes = s.first.win_interval().0 > 0.5 && s.second.win_interval().0 > 0.5;
        table.push_str(&format!(
            "| {name} | {} | {} | {} | {} | {} |\n",
            s.first.text(),
            s.first.win_text(),
            s.second.text(),
            s.second.win_text(),
            if passes { "yes" } else { "no" }
        ));
        results.push((name.clone(), s.first, s.second));
    }
    let markdown = format!(
        "### C. Q-learning and MCTS against the course's bar\n\n\
         Q-learning: {EPISODES} training games against greedy (UCB1, c = 1.4, discount 0.95, \
         learning rate 0.2, seed {}); {} states learnt; over its last {WINDOW} training games it \
         won {:.1}% and drew {:.1}% against greedy. Then {games} games per player against a \
         random mover from the empty board, half as each colour.\n\n{table}",
        ctx.seed,
        model.states(),
        100.0 * last.win_rate,
        100.0 * last.draw_rate
    );
    Ok(Outputs {
        csv,
        markdown,
        figures: vec![
            (
                "learning-curve".into(),
                curve_figure(&curve, "greedy", WINDOW),
            ),
            ("budgets".into(), budget_figure(&results)),
        ],
    })
}

/// The players measured against random: the trained model in
/// `model_path` and MCTS at every budget, names and specs.
fn players(model_path: &std::path::Path) -> Vec<(String, String)> {
    let model = format!("qlearning:model={}", model_path.display());
    let mut players = vec![("qlearning".to_string(), own_limit("qlearning", &model))];
    for n in SIMULATIONS {
        let name = format!("mcts-{n}");
        let spec = own_limit(&name, &format!("mcts:simulations={n}"));
        players.push((name, spec));
    }
    players
}

/// MCTS's win rate against random per simulation budget and colour, with
/// the Q-learning player's as reference lines.
fn budget_figure(results: &[(String, Record, Record)]) -> Figure {
    let mut series = Vec::new();
    let mut guides = Vec::new();
    let budgets: Vec<u64> = results
        .iter()
        .filter_map(|r| r.0.strip_prefix("mcts-")?.parse().ok())
        .collect();
    for (colour, pick) in [("as first", 0usize), ("as second", 1usize)] {
        let record = |r: &(String, Record, Record)| if pick == 0 { r.1 } else { r.2 };
        let points = results
            .iter()
            .filter(|r| r.0.starts_with("mcts-"))
            .zip(0..)
            .map(|(r, i)| {
                let rec = record(r);
                let (lo, hi) = rec.win_interval();
                // Side by side at the budget's tick: first left, second right.
                Point::with_interval(
                    f64::from(i) + if pick == 0 { -0.06 } else { 0.06 },
                    100.0 * rec.win_rate(),
                    100.0 * lo,
                    100.0 * hi,
                )
            })
            .collect();
        series.push(Series::new(&format!("MCTS {colour}"), points));
        if let Some(q) = results.iter().find(|r| r.0 == "qlearning") {
            guides.push((
                format!("Q-learning {colour} ({:.0}%)", 100.0 * record(q).win_rate()),
                100.0 * record(q).win_rate(),
            ));
        }
    }
    Figure {
        title: "Against a random mover: win rate by MCTS budget".into(),
        panels: vec![Panel {
            x_label: "simulations per move".into(),
            y_label: "win rate (%)".into(),
            x_ticks: (0..).zip(budgets.iter().map(u64::to_string)).collect(),
            guides,
            series,
            ..Panel::default()
        }],
        notes: vec![
            "Bars: 95% intervals (Wilson). Dashed lines: the trained Q-learning player's win \
             rate against the same random mover, for comparison."
                .into(),
        ],
    }
}
