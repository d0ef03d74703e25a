//! `connect4-arena`: matches between engine processes that speak the
//! connect4 protocol.
//!
//! With no arguments it plays a short demonstration match between two
//! engines built from this repository: the arena binary serves the engine
//! protocol itself (`connect4-arena engine`) and spawns copies of itself.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use connect4::{Game, Player, Rules};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

mod play;
mod process;
mod spec;
mod stats;

use play::{GameRecord, Seat, play_game};
use spec::EngineSpec;
use stats::Tally;

/// Matches between Connect-4 engine processes. With no subcommand, a short
/// demonstration match between two engines built from this repository.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Cmd>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Play a match between two engines: game pairs from the same opening
    /// with colours swapped.
    Match(MatchArgs),
    /// Serve the engine protocol on stdin/stdout (used to spawn copies of
    /// this binary as engines: cmd=self in a spec).
    #[command(hide = true)]
    Engine,
}

#[derive(clap::Args)]
struct MatchArgs {
    /// An engine: name=X,cmd=PATH,arg=A,...,movetime=MS|depth=D|nodes=N,option.NAME=V
    /// (cmd=self runs this binary's built-in engine). Give it twice.
    #[arg(long = "engine", required = true, num_args = 1)]
    engines: Vec<String>,
    /// Games to play (rounded up to whole colour-swapped pairs).
    #[arg(long, default_value_t = 20)]
    games: u32,
    /// A file of opening move strings, one per line (else generated).
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Plies of each generated opening.
    #[arg(long, default_value_t = 2)]
    opening_plies: u32,
    /// Seed of the generated openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Games played at once (each with its own engine processes).
    #[arg(long)]
    concurrency: Option<usize>,
    /// Board as COLUMNSxROWSxINAROW.
    #[arg(long, default_value = "7x6x4")]
    rules: Rules,
    /// Append one JSON line per finished game to this file.
    #[arg(long)]
    log: Option<PathBuf>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Cmd::Engine) => connect4::protocol::run_session(
            io::stdin().lock(),
            io::stdout(),
            connect4::protocol::SessionOptions::default(),
        )
        .map_err(Into::into),
        Some(Cmd::Match(args)) => run_match(&args),
        None => run_match(&MatchArgs {
            engines: vec![
                "name=solver,cmd=self,movetime=50".into(),
                "name=alphabeta-4,cmd=self,movetime=1000,option.agent=alphabeta:depth=4".into(),
            ],
            games: 20,
            openings: None,
            opening_plies: 2,
            seed: 1,
            concurrency: None,
            rules: Rules::STANDARD,
            log: None,
        }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("connect4-arena: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The openings of the match: from a file, or `count` distinct random
/// openings of `plies` plies that do not end the game.
fn openings(args: &MatchArgs, count: usize) -> Result<Vec<String>> {
    if let Some(path) = &args.openings {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let mut out = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let moves = line.split_whitespace().next().unwrap_or("");
            if line.trim().is_empty() || line.trim_start().starts_with('#') {
                continue;
            }
            let game = Game::from_move_string(args.rules, moves)
                .with_context(|| format!("{}:{}: opening '{moves}'", path.display(), i + 1))?;
            if game.position().is_over() {
                bail!(
                    "{}:{}: opening '{moves}' already ends the game",
                    path.display(),
                    i + 1
                );
            }
            out.push(game.move_string());
        }
        if out.is_empty() {
            bail!("{}: no openings", path.display());
        }
        return Ok(out);
    }
    let mut rng = StdRng::seed_from_u64(args.seed);
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut tries = 0;
    while out.len() < count && tries < count * 100 {
        tries += 1;
        let mut game = Game::new(args.rules);
        for _ in 0..args.opening_plies {
            let moves = game.position().legal_moves();
            if moves.is_empty() {
                break;
            }
            let c = moves[rng.random_range(0..moves.len())];
            game.play(i64::from(c) + 1).expect("a legal move");
        }
        if !game.position().is_over() && seen.insert(game.move_string()) {
            out.push(game.move_string());
        }
    }
    // Fewer distinct openings than pairs: cycle through them.
    let distinct = out.len().max(1);
    while out.len() < count {
        out.push(out[out.len() % distinct].clone());
    }
    Ok(out)
}

/// A finished game of the schedule.
struct Finished {
    index: usize,
    first: usize,
    record: GameRecord,
}

fn run_match(args: &MatchArgs) -> Result<()> {
    if args.engines.len() != 2 {
        bail!(
            "a match needs exactly two --engine specs, found {}",
            args.engines.len()
        );
    }
    let specs: Vec<EngineSpec> = args
        .engines
        .iter()
        .map(|s| s.parse::<EngineSpec>().map_err(anyhow::Error::msg))
        .collect::<Result<_>>()
        .context("--engine")?;
    let pairs = args.games.div_ceil(2).max(1) as usize;
    let openings = openings(args, pairs)?;
    // Game 2k and 2k+1 share opening k; engine 0 moves first in the even one.
    let schedule: VecDeque<(usize, String, usize)> = (0..pairs * 2)
        .map(|i| (i, openings[(i / 2) % openings.len()].clone(), i % 2))
        .collect();
    let total = schedule.len();
    let workers = args
        .concurrency
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, total);
    println!(
        "{} vs {}: {total} games ({pairs} colour-swapped pairs), {workers} at once, rules {}",
        specs[0].name, specs[1].name, args.rules
    );
    let queue = Arc::new(Mutex::new(schedule));
    let (tx, rx) = mpsc::channel::<Finished>();
    let mut handles = Vec::new();
    for _ in 0..workers {
        let queue = Arc::clone(&queue);
        let tx = tx.clone();
        let specs = specs.clone();
        let rules = args.rules;
        handles.push(std::thread::spawn(move || {
            let mut seats = [Seat::new(specs[0].clone()), Seat::new(specs[1].clone())];
            loop {
                let job = queue.lock().map(|mut q| q.pop_front()).unwrap_or(None);
                let Some((index, opening, first)) = job else {
                    break;
                };
                let [a, b] = &mut seats;
                let record = if first == 0 {
                    play_game(rules, &opening, a, b)
                } else {
                    play_game(rules, &opening, b, a)
                };
                if tx
                    .send(Finished {
                        index,
                        first,
                        record,
                    })
                    .is_err()
                {
                    break;
                }
            }
        }));
    }
    drop(tx);
    let mut log = match &args.log {
        Some(path) => Some(BufWriter::new(
            File::options()
                .create(true)
                .append(true)
                .open(path)
                .with_context(|| format!("opening the log {}", path.display()))?,
        )),
        None => None,
    };
    let mut tally = Tally::default();
    let mut per_engine: [EngineFigures; 2] = Default::default();
    let mut done = 0;
    for f in rx {
        done += 1;
        let names = [&specs[f.first].name, &specs[1 - f.first].name];
        let result = match f.record.outcome.winner {
            Some(Player::First) => "1-0",
            Some(Player::Second) => "0-1",
            None => "1/2-1/2",
        };
        // From engine 0's view.
        let engine0_won = f
            .record
            .outcome
            .winner
            .map(|w| (w == Player::First) == (f.first == 0));
        match engine0_won {
            Some(true) => tally.wins += 1,
            Some(false) => tally.losses += 1,
            None => tally.draws += 1,
        }
        for (ply, m) in f.record.plies.iter().enumerate() {
            // Plies alternate starting with the side to move after the opening.
            let opening_len = f.record.opening.len();
            let mover_is_first = (opening_len + ply) % 2 == 0;
            let engine = if mover_is_first == (f.first == 0) {
                0
            } else {
                1
            };
            per_engine[engine].add_move(m);
        }
        for (seat, engine) in [(Player::First, f.first), (Player::Second, 1 - f.first)] {
            per_engine[engine].games += 1;
            if f.record.outcome.winner == Some(seat.other())
                && !matches!(f.record.outcome.reason.as_str(), "line")
            {
                *per_engine[engine]
                    .forfeits
                    .entry(f.record.outcome.reason.clone())
                    .or_default() += 1;
            }
        }
        if let Some(log) = &mut log {
            let line = serde_json::json!({
                "game": f.index + 1,
                "first": names[0],
                "second": names[1],
                "opening": f.record.opening,
                "moves": f.record.moves,
                "result": result,
                "reason": f.record.outcome.reason,
                "detail": f.record.outcome.detail,
                "plies": f.record.plies,
            });
            writeln!(log, "{line}")?;
            log.flush()?;
        }
        eprintln!(
            "game {done}/{total}: {} vs {} {result} ({}) after {} | {} score {:.1}/{}",
            names[0],
            names[1],
            f.record.outcome.reason,
            f.record.moves,
            specs[0].name,
            f64::from(tally.wins) + f64::from(tally.draws) / 2.0,
            tally.games()
        );
    }
    for h in handles {
        h.join().ok();
    }
    print_table(&specs, &tally, &per_engine);
    Ok(())
}

/// What one engine did over the match.
#[derive(Default)]
struct EngineFigures {
    games: u32,
    moves: u32,
    time_ms: f64,
    nodes: u64,
    depth: u64,
    forfeits: BTreeMap<String, u32>,
}

impl EngineFigures {
    fn add_move(&mut self, m: &play::MoveRecord) {
        self.moves += 1;
        self.time_ms += m.time_ms;
        self.nodes += m.nodes;
        self.depth += u64::from(m.depth);
    }
}

fn print_table(specs: &[EngineSpec], tally: &Tally, per_engine: &[EngineFigures; 2]) {
    let (elo, low, high) = tally.elo();
    println!();
    println!(
        "{} vs {}: +{} ={} -{} ({} games), score {:.3}",
        specs[0].name,
        specs[1].name,
        tally.wins,
        tally.draws,
        tally.losses,
        tally.games(),
        tally.score()
    );
    println!(
        "Elo difference {elo:+.1} [95%: {low:+.1}, {high:+.1}], LOS {:.1}%, draw ratio {:.1}%",
        tally.los() * 100.0,
        f64::from(tally.draws) * 100.0 / f64::from(tally.games().max(1))
    );
    println!();
    println!(
        "{:<16} {:>6} {:>11} {:>13} {:>14} {:>10}  forfeits",
        "engine", "games", "moves/game", "ms/move", "nodes/move", "depth"
    );
    for (spec, f) in specs.iter().zip(per_engine) {
        let moves = f64::from(f.moves.max(1));
        let forfeits: Vec<String> = f
            .forfeits
            .iter()
            .map(|(r, n)| format!("{r}: {n}"))
            .collect();
        println!(
            "{:<16} {:>6} {:>11.1} {:>13.2} {:>14.0} {:>10.1}  {}",
            spec.name,
            f.games,
            f64::from(f.moves) / f64::from(f.games.max(1)),
            f.time_ms / moves,
            f.nodes as f64 / moves,
            f.depth as f64 / moves,
            if forfeits.is_empty() {
                "none".to_string()
            } else {
                forfeits.join(", ")
            }
        );
    }
}
