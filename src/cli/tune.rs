//! `connect4 tune`: self-play tuning of an evaluator's weights (see
//! [`connect4::lab::tune`]), writing the weights file after every kept
//! candidate so an interrupted run keeps its progress.

use std::io::Write;
use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Result, bail};
use connect4::Rules;
use connect4::agents::evaluators::{EvalKind, Weights};
use connect4::lab::progress::Progress;
use connect4::lab::tune::{Step, TuneOptions, run_figure, tune};

/// Arguments of `tune`.
#[derive(clap::Args)]
pub struct Args {
    /// The evaluator to tune from its defaults: windows, local or features.
    #[arg(long, default_value = "windows", conflicts_with = "weights")]
    eval: String,
    /// Start from this weights file instead (its evaluator is tuned).
    #[arg(long)]
    weights: Option<PathBuf>,
    /// The searching agent, without evaluator parameters.
    #[arg(long, default_value = "alphabeta:depth=2")]
    agent: String,
    /// Candidates to try.
    #[arg(long, default_value_t = 10)]
    iterations: u32,
    /// Game pairs (two games, colours swapped) per comparison.
    #[arg(long, default_value_t = 100)]
    pairs: u32,
    /// Plies of each random opening.
    #[arg(long, default_value_t = 4)]
    opening_plies: u32,
    /// Largest relative change of a weight per candidate.
    #[arg(long, default_value_t = 0.5)]
    factor: f64,
    /// Standard errors a candidate's score must clear above 50% to be kept.
    #[arg(long, default_value_t = 1.0)]
    z: f64,
    /// Seed of the perturbations and openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Threads playing games (default: the number of cores).
    #[arg(long)]
    threads: Option<NonZeroUsize>,
    /// Board as COLUMNSxROWSxINAROW.
    #[arg(long, default_value = "7x6x4")]
    rules: Rules,
    /// The weights file to write.
    #[arg(long, default_value = "weights.json")]
    out: PathBuf,
    /// Also draw the run as an SVG picture here: each candidate's score
    /// with its 95% interval, and the kept weights per iteration.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
}

/// Tunes and writes.
pub fn run(args: &Args, out: &mut impl Write) -> Result<ExitCode> {
    let start = match &args.weights {
        Some(path) => Weights::load(path)?,
        None => match EvalKind::from_name(&args.eval) {
            Some(kind) => Weights::defaults(kind),
            None => bail!("--eval {}: expected windows, local or features", args.eval),
        },
    };
    if !(0.0..1.0).contains(&args.factor) {
        bail!("--factor {}: expected at least 0 and below 1", args.factor);
    }
    if args.pairs == 0 {
        bail!("--pairs 0: expected at least 1");
    }
    let options = TuneOptions {
        agent: args.agent.clone(),
        start: start.clone(),
        rules: args.rules,
        iterations: args.iterations,
        pairs: args.pairs,
        opening_plies: args.opening_plies,
        factor: args.factor,
        z: args.z,
        seed: args.seed,
        threads: args
            .threads
            .or_else(|| std::thread::available_parallelism().ok())
            .unwrap_or(NonZeroUsize::MIN),
    };
    options.check()?;
    start.save(&args.out)?;
    writeln!(out, "start: {}", start.to_params())?;
    let mut progress = Progress::new("tune", u64::from(args.iterations));
    let mut saved = Ok(());
    let mut steps: Vec<(Step, Weights)> = Vec::new();
    let end = tune(&options, |step, incumbent| {
        let s = &step.score;
        let line = format!(
            "iteration {}: {} scored {:.1}% +- {:.1}% over {} games (+{} ={} -{}): {}",
            step.iteration,
            step.candidate.to_params(),
            100.0 * s.score(),
            100.0 * 1.96 * s.std_error(),
            2 * s.pairs(),
            s.wins,
            s.draws,
            s.losses,
            if step.kept { "kept" } else { "rejected" }
        );
        progress.println(&line);
        if step.kept && saved.is_ok() {
            saved = incumbent.save(&args.out);
        }
        progress.update(u64::from(step.iteration), "");
        steps.push((step.clone(), incumbent.clone()));
    })?;
    progress.finish();
    saved?;
    if let Some(path) = &args.plot {
        run_figure(&start, &steps, &args.agent, args.pairs).save(path)?;
        writeln!(out, "drew the run in {}", path.display())?;
    }
    writeln!(out, "end:   {}", end.to_params())?;
    let sep = if args.agent.contains(':') { ',' } else { ':' };
    writeln!(
        out,
        "wrote {}; play it as {}{sep}weights={}",
        args.out.display(),
        args.agent,
        args.out.display()
    )?;
    Ok(ExitCode::SUCCESS)
}
