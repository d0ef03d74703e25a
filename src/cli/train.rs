//! `connect4 train qlearning`: learns a Q-table against an agent and writes
//! the model and its learning curve.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use connect4::Rules;
use connect4::agents::qlearning::model::Hyperparameters;
use connect4::lab::progress::Progress;
use connect4::lab::train::{CurvePoint, TrainOptions, curve_figure, train};

/// What to train.
#[derive(clap::Subcommand)]
pub enum What {
    /// A tabular Q-learning player (`qlearning:model=FILE`).
    #[command(
        after_help = "Example: connect4 train qlearning --episodes 12000 --out q.json, \
                            then connect4 play --agent qlearning:model=q.json"
    )]
    Qlearning(Args),
}

/// Arguments of `train qlearning`.
#[derive(clap::Args)]
pub struct Args {
    /// Training games.
    #[arg(long, default_value_t = 12000)]
    episodes: u64,
    /// The opponent, as an agent spec (give `solver` a limit, as in
    /// solver:movetime=10).
    #[arg(long, default_value = "greedy")]
    opponent: String,
    /// Exploration: ucb:c=C, epsilon:START..END (linear decay) or epsilon:P.
    #[arg(long, default_value = "ucb:c=1.4")]
    explore: String,
    /// Discount per move.
    #[arg(long, default_value_t = 0.95)]
    gamma: f64,
    /// Learning rate.
    #[arg(long, default_value_t = 0.2)]
    alpha: f64,
    /// Seed of the learner's randomness.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Board as COLUMNSxROWSxINAROW.
    #[arg(long, default_value = "7x6x4")]
    rules: Rules,
    /// Games per point of the learning curve.
    #[arg(long, default_value_t = 500)]
    window: u64,
    /// The model file to write.
    #[arg(long, default_value = "q.json")]
    out: PathBuf,
    /// The learning curve (CSV) to write; default: the model's name with
    /// `.csv`.
    #[arg(long)]
    curve: Option<PathBuf>,
    /// Also draw the learning curve (win and draw rates, reward, game
    /// length per window) as an SVG picture here.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
}

/// Trains and writes.
pub fn run(what: &What, out: &mut impl Write) -> Result<ExitCode> {
    let What::Qlearning(args) = what;
    let curve_path = args
        .curve
        .clone()
        .unwrap_or_else(|| args.out.with_extension("csv"));
    let options = TrainOptions {
        rules: args.rules,
        hyper: Hyperparameters {
            episodes: args.episodes,
            opponent: args.opponent.clone(),
            explore: args.explore.clone(),
            gamma: args.gamma,
            alpha: args.alpha,
            seed: args.seed,
        },
        window: args.window,
    };
    // Fail before a long training run, not after it.
    for path in [&args.out, &curve_path].into_iter().chain(&args.plot) {
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(std::path::Path::new("."));
        if !dir.is_dir() {
            anyhow::bail!(
                "{}: the directory {} does not exist",
                path.display(),
                dir.display()
            );
        }
    }
    let mut progress = Progress::new("train", args.episodes);
    let (model, curve) = train(&options, |point, done| {
        progress.update(
            done,
            &format!(
                "win rate {:.1}%, mean reward {:+.3}",
                100.0 * point.win_rate,
                point.mean_reward
            ),
        )
    })?;
    progress.finish();
    model.save(&args.out)?;
    let mut csv = String::from(CurvePoint::CSV_HEADER);
    csv.push('\n');
    for point in &curve {
        csv.push_str(&point.csv_row());
        csv.push('\n');
    }
    std::fs::write(&curve_path, csv)
        .with_context(|| format!("writing the learning curve {}", curve_path.display()))?;
    if let Some(path) = &args.plot {
        curve_figure(&curve, &args.opponent, args.window).save(path)?;
        writeln!(out, "drew the learning curve in {}", path.display())?;
    }
    let last = curve.last().expect("at least one episode");
    writeln!(
        out,
        "wrote {} ({} states) and {} ({} points); last {} games: win rate {:.1}%, draws {:.1}%, mean reward {:+.3}",
        args.out.display(),
        model.states(),
        curve_path.display(),
        curve.len(),
        args.window.min(args.episodes),
        100.0 * last.win_rate,
        100.0 * last.draw_rate,
        last.mean_reward
    )?;
    writeln!(
        out,
        "play it: connect4 play --agent qlearning:model={0}; in a match: connect4-arena match \
         --engine \"name=q,cmd=self,option.agent='qlearning:model={0}'\" --engine name=solver,cmd=self",
        args.out.display()
    )?;
    Ok(ExitCode::SUCCESS)
}
