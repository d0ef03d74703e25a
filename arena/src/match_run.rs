//! A run of games between engines (a match or a tournament): the schedule,
//! resuming from the log, the shard's share, Ctrl-C, progress, SPRT, and
//! the final table and files.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use connect4::Player;
use connect4::Rules;
use connect4::progress::Progress;

use crate::log::{self, GameLine};
use crate::report;
use crate::runner::{self, Control, Flags, RunConfig};
use crate::schedule::{self, Mode, OpeningSource, Shard};
use crate::spec::EngineSpec;
use crate::stats::{Decision, Sprt, Tally};

/// Options shared by `match` and `tournament`.
#[derive(clap::Args, Clone)]
pub struct RunArgs {
    /// Games per pairing (rounded up to whole colour-swapped pairs).
    #[arg(long, default_value_t = 20)]
    pub games: u32,
    /// Colour-swapped pairs per pairing (instead of --games).
    #[arg(long, conflicts_with = "games")]
    pub pairs: Option<u32>,
    /// A file of opening move strings, one per line (else generated).
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Plies of each generated opening.
    #[arg(long, default_value_t = 2)]
    pub opening_plies: u32,
    /// Generate every opening of --opening-plies plies (mirror images once)
    /// instead of random ones.
    #[arg(long)]
    pub all_openings: bool,
    /// Keep only openings the solver does not decide within this many nodes
    /// (or proves drawn).
    #[arg(long, value_name = "NODES")]
    pub undecided: Option<u64>,
    /// Seed of the generated openings and of each game's newgame seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Games played at once, each with its own engine processes (default:
    /// the number of cores).
    #[arg(long)]
    pub concurrency: Option<usize>,
    /// Time an engine may take beyond its movetime or clock before it
    /// forfeits on time, for process and pipe overhead (ms).
    #[arg(long, default_value_t = 200)]
    pub time_margin: u64,
    /// End games the arena's solver proves within this many nodes per
    /// position (reason: adjudicated).
    #[arg(long, value_name = "NODES")]
    pub adjudicate: Option<u64>,
    /// Board as COLUMNSxROWSxINAROW.
    #[arg(long, default_value = "7x6x4")]
    pub rules: Rules,
    /// The JSON-lines game log: one line per finished game. Running again
    /// with the same log resumes the run.
    #[arg(long)]
    pub log: Option<PathBuf>,
    /// Write the results as JSON.
    #[arg(long)]
    pub summary: Option<PathBuf>,
    /// Write the per-pairing results as CSV.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// Play only shard I of N of the schedule (pairs I, I+N, ...); combine
    /// the shards' logs with `merge`.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
}

impl RunArgs {
    /// The demonstration's settings: 20 games, defaults otherwise.
    pub fn demo() -> RunArgs {
        RunArgs {
            games: 20,
            pairs: None,
            openings: None,
            opening_plies: 2,
            all_openings: false,
            undecided: None,
            seed: 1,
            concurrency: None,
            time_margin: 200,
            adjudicate: None,
            rules: Rules::STANDARD,
            log: None,
            summary: None,
            csv: None,
            shard: None,
        }
    }
}

/// Writes `--summary` and `--csv` if asked.
pub fn write_outputs(
    results: &report::Results,
    summary: Option<&Path>,
    csv: Option<&Path>,
) -> Result<()> {
    if let Some(path) = summary {
        std::fs::write(path, results.summary_json())
            .with_context(|| format!("writing the summary {}", path.display()))?;
    }
    if let Some(path) = csv {
        std::fs::write(path, results.csv())
            .with_context(|| format!("writing the CSV {}", path.display()))?;
    }
    Ok(())
}

/// The first pairing's tally, kept as games arrive (for progress and SPRT).
#[derive(Default)]
struct Live {
    tally: Tally,
    pairs: HashMap<u64, (f64, u32)>,
}

impl Live {
    /// Adds a game of engines (`first`, `second`) if it belongs to pairing
    /// (`a`, `b`), from `a`'s view.
    fn add(&mut self, (a, b): (usize, usize), first: usize, second: usize, line: &GameLine) {
        if (first, second) != (a, b) && (first, second) != (b, a) {
            return;
        }
        let points = if first == a {
            line.first_points()
        } else {
            1.0 - line.first_points()
        };
        self.tally.add_game(points);
        let p = self.pairs.entry(line.pair).or_default();
        p.0 += points;
        p.1 += 1;
        if p.1 == 2 {
            self.tally.add_pair(p.0);
        }
    }
}

/// Plays (or resumes) the games of `engines` and prints the results.
pub fn run_games(
    engines: &[String],
    mode: Mode,
    args: &RunArgs,
    sprt: Option<Sprt>,
) -> Result<ExitCode> {
    // Step 1. The engines, with distinct names.
    let specs: Vec<EngineSpec> = engines
        .iter()
        .map(|s| {
            s.parse::<EngineSpec>()
                .map_err(|e| anyhow::anyhow!("--engine {s}: {e}"))
        })
        .collect::<Result<_>>()?;
    let names: Vec<String> = specs.iter().map(|s| s.name.clone()).collect();
    let mut unique = HashSet::new();
    for n in &names {
        if !unique.insert(n) {
            bail!("two engines are named '{n}': give each a distinct name=");
        }
    }
    // Step 2. The schedule and its fingerprint.
    let rounds = match args.pairs {
        Some(0) => bail!("--pairs 0: expected at least 1"),
        Some(p) => p as usize,
        None if args.games == 0 => bail!("--games 0: expected at least 1"),
        None => args.games.div_ceil(2) as usize,
    };
    let pairings = schedule::pairings(specs.len(), mode);
    let source = OpeningSource {
        file: args.openings.clone(),
        plies: args.opening_plies,
        all: args.all_openings,
        undecided: args.undecided,
        seed: args.seed,
    };
    let openings = schedule::openings(args.rules, &source, rounds)?;
    let jobs = schedule::schedule(&pairings, rounds, &openings);
    let mut identity: Vec<String> = engines.to_vec();
    identity.push(format!(
        "seed={} margin={} adjudicate={:?}",
        args.seed, args.time_margin, args.adjudicate
    ));
    let run_id = schedule::fingerprint(args.rules, &identity, &jobs);

    // Step 3. Resume: the games the log already holds, and this shard's
    // share of the rest.
    let mut games: Vec<GameLine> = Vec::new();
    if let Some(path) = &args.log {
        for g in log::read(path)? {
            if g.run != run_id {
                bail!(
                    "the log {} holds games of another run ({} in its game {}, this run is {}): \
                     the engines, openings, games or settings differ; use another --log",
                    path.display(),
                    g.run,
                    g.game,
                    run_id
                );
            }
            games.push(g);
        }
    }
    let done: HashSet<u64> = games.iter().map(|g| g.game).collect();
    let todo: Vec<schedule::Job> = jobs
        .iter()
        .filter(|j| args.shard.is_none_or(|s| s.owns(j)) && !done.contains(&j.game))
        .cloned()
        .collect();
    let share = jobs
        .iter()
        .filter(|j| args.shard.is_none_or(|s| s.owns(j)))
        .count();
    let concurrency = args
        .concurrency
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let title = if specs.len() == 2 {
        format!("{} vs {}", names[0], names[1])
    } else {
        format!(
            "{} engines, {}",
            names.len(),
            match mode {
                Mode::RoundRobin => "round robin",
                Mode::Gauntlet => "gauntlet",
            }
        )
    };
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{title}: {} games ({} colour-swapped pair{} per pairing), {} at once, rules {}{}{}",
        jobs.len(),
        rounds,
        if rounds == 1 { "" } else { "s" },
        concurrency.min(todo.len().max(1)),
        args.rules,
        args.shard.map_or(String::new(), |s| format!(
            ", shard {}/{} ({share} games)",
            s.index, s.count
        )),
        if done.is_empty() {
            String::new()
        } else {
            format!(", resuming: {} games already in the log", done.len())
        }
    )?;
    out.flush()?;
    drop(out);

    // Step 4. Ctrl-C, the log, and the live tally (from the logged games).
    let flags = Flags::default();
    {
        let flags = flags.clone();
        // Only the first run of a process installs the handler; the others
        // keep it (a process runs one match).
        ctrlc::set_handler(move || {
            if flags.stop.swap(true, Ordering::SeqCst) {
                flags.abort.store(true, Ordering::SeqCst);
                eprintln!("\nconnect4-arena: abandoning the running games");
            } else {
                eprintln!(
                    "\nconnect4-arena: stopping: finishing the running games (Ctrl-C again abandons them)"
                );
            }
        })
        .ok();
    }
    let mut writer = match &args.log {
        Some(path) => Some(log::Writer::open(path)?),
        None => None,
    };
    let index: HashMap<&str, usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let mut live = Live::default();
    for g in &games {
        if let (Some(&f), Some(&s)) = (index.get(g.first.as_str()), index.get(g.second.as_str())) {
            live.add(pairings[0], f, s, g);
        }
    }
    let mut decided = sprt.and_then(|s| s.decide(s.llr(&live.tally.penta)));
    let config = RunConfig {
        rules: args.rules,
        specs: specs.clone(),
        concurrency,
        margin: Duration::from_millis(args.time_margin),
        adjudicate: args.adjudicate,
        seed: args.seed,
    };
    // Step 5. Play, logging and tallying each game as it ends.
    let mut progress = Progress::new("games", todo.len() as u64);
    let started = std::time::Instant::now();
    let cpu_before = connect4::cpu_time::own_seconds();
    let mut played = 0u64;
    let mut new_moves = 0usize;
    let mut write_error = None;
    if decided.is_none() {
        runner::run(&config, todo.clone(), &flags, |job, record| {
            played += 1;
            let result = match record.outcome.winner {
                Some(Player::First) => "1-0",
                Some(Player::Second) => "0-1",
                None => "1/2-1/2",
            };
            let line = GameLine {
                run: run_id.clone(),
                game: job.game,
                pair: job.pair,
                first: names[job.first].clone(),
                second: names[job.second].clone(),
                rules: args.rules.to_string(),
                opening: job.opening.clone(),
                moves: record.moves,
                result: result.into(),
                reason: record.outcome.reason,
                detail: record.outcome.detail,
                seed: runner::seed_of(args.seed, job.game),
                plies: record.plies,
            };
            if let Some(w) = &mut writer
                && let Err(e) = w.append(&line)
            {
                write_error = Some(e);
                return Control::Stop;
            }
            live.add(pairings[0], job.first, job.second, &line);
            new_moves += line.plies.len();
            games.push(line);
            let t = &live.tally;
            let mut message = format!(
                "{}: +{} ={} -{} ({:.1}%, Elo {})",
                names[pairings[0].0],
                t.wins,
                t.draws,
                t.losses,
                100.0 * t.score(),
                report::elo_text(t.elo().0)
            );
            if let Some(s) = sprt {
                let llr = s.llr(&t.penta);
                message.push_str(&format!(" LLR {llr:.2}"));
                decided = s.decide(llr);
            }
            progress.update(played, &message);
            if decided.is_some() {
                Control::Stop
            } else {
                Control::Continue
            }
        });
    }
    progress.finish();
    let wall = started.elapsed().as_secs_f64();
    let cpu = connect4::cpu_time::own_seconds()
        .zip(cpu_before)
        .map(|(after, before)| after - before);
    if let Some(e) = write_error {
        return Err(e);
    }
    games.sort_by_key(|g| g.game);
    // Step 6. The results of every logged game, and how the run ended.
    let results = report::collect(&names, &pairings, &games, sprt);
    let mut out = std::io::stdout().lock();
    writeln!(out)?;
    write!(out, "{}", results.table())?;
    if specs.len() > 2 {
        writeln!(out)?;
        write!(out, "{}", results.crosstable())?;
    }
    write_outputs(&results, args.summary.as_deref(), args.csv.as_deref())?;
    if played > 0 {
        let moves = new_moves.max(1) as f64;
        writeln!(
            out,
            "\n{played} games in {wall:.2} s: {:.1} games/s, {:.3} ms of wall time per move{}",
            played as f64 / wall,
            1e3 * wall / moves,
            cpu.map_or(String::new(), |c| format!(
                ", arena CPU {:.3} ms per move",
                1e3 * c / moves
            ))
        )?;
    }
    let missing = share.saturating_sub(
        games
            .iter()
            .filter(|g| {
                jobs.get(g.game as usize - 1)
                    .is_some_and(|j| args.shard.is_none_or(|s| s.owns(j)))
            })
            .count(),
    );
    if let Some(d) = decided {
        writeln!(
            out,
            "SPRT decided ({}) after {} games; {missing} scheduled games not played",
            match d {
                Decision::H1 => "H1",
                Decision::H0 => "H0",
            },
            games.len()
        )?;
    } else if missing > 0 {
        writeln!(
            out,
            "stopped with {missing} of {share} games not played{}",
            if args.log.is_some() {
                "; run the same command again to resume"
            } else {
                " (give --log to be able to resume)"
            }
        )?;
        return Ok(ExitCode::from(130));
    }
    Ok(ExitCode::SUCCESS)
}
