//! A run of games between engines (a match or a tournament): the schedule,
//! resuming from the log, the shard's share, Ctrl-C, progress, SPRT, and
//! the final table and files.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use connect4::Rules;
use connect4::lab::progress::Progress;
use connect4::lab::stats::{Crossing, Decision, PairedTally, Sprt, SprtWatch, Tally};

use crate::confine::Confinement;
use crate::debug_log::DebugLog;
use crate::ending::Reason;
use crate::live::{Follow, InProgress, RunInfo};
use crate::log::{self, GameLine};
use crate::play::GameRecord;
use crate::process::EngineProcess;
use crate::results;
use crate::schedule::{self, Job, Mode, OpeningSource, Shard};
use crate::spec::EngineSpec;
use crate::stderr::StderrLog;
use crate::workers::{self, Control, Flags, RunConfig};

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
    #[arg(long, value_parser = at_least_one)]
    pub concurrency: Option<usize>,
    /// Time an engine may take beyond its movetime or clock before it
    /// forfeits on time, and beyond the 2 s a ping may wait for its pong
    /// during a search without a clock, for process and pipe overhead (ms).
    #[arg(long, default_value_t = 200)]
    pub time_margin: u64,
    /// Longest a search without a clock (a depth or node limit) may take
    /// before the engine loses on time, in seconds.
    #[arg(long, default_value_t = 60.0, value_parser = positive_seconds)]
    pub max_move_time: f64,
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
    /// Write every line to and from every engine here, with the time since
    /// the run began and the engine's name.
    #[arg(long, value_name = "FILE")]
    pub debug: Option<PathBuf>,
    /// Write the results as JSON.
    #[arg(long)]
    pub summary: Option<PathBuf>,
    /// Write the per-pairing results as CSV.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// Draw the run as an SVG picture: each pairing's Elo with its 95%
    /// interval over the games, and the SPRT's log-likelihood ratio.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Play only shard I of N of the schedule (pairs I, I+N, ...); combine
    /// the shards' logs with `merge`.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
    /// Start each engine once, print what the run would play (and what its
    /// log already holds), and stop without playing: for checking a command
    /// before sending it to a cluster.
    #[arg(long)]
    pub check: bool,
    /// Play every game even when an engine loses each of its first games
    /// by one forfeit (a broken student's engine): its games are lost with
    /// their reasons, and the run ends with the table, not an error.
    #[arg(long)]
    pub keep_going: bool,
    /// Follow the run on a local web page at this port (0: a free one): the
    /// standings, crosstable, ratings, Elo and SPRT curves, and the games
    /// under way (needs --log).
    #[arg(long, value_name = "PORT", requires = "log")]
    pub serve: Option<u16>,
    /// Contain every engine given as a program (students' engines; not
    /// `cmd=self`): as users of their own, with limits, a clean
    /// environment, their `dir=` folder copied for each alone, and every
    /// process of theirs ended with each game (needs root; see
    /// docs/league.md).
    #[arg(long)]
    pub isolate: bool,
    /// With --isolate: the first of the uids the engines run as (no
    /// account of the machine may use the 4000 from it).
    #[arg(long, default_value_t = crate::contain::DEFAULT_BASE_UID, requires = "isolate")]
    pub uid_base: u32,
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
            max_move_time: 60.0,
            adjudicate: None,
            rules: Rules::STANDARD,
            log: None,
            debug: None,
            summary: None,
            csv: None,
            plot: None,
            shard: None,
            check: false,
            keep_going: false,
            serve: None,
            isolate: false,
            uid_base: crate::contain::DEFAULT_BASE_UID,
        }
    }
}

/// A whole number of at least 1.
pub fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("'{text}': expected a whole number of at least 1")),
    }
}

/// A positive, finite number of seconds.
pub fn positive_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 => Ok(s),
        _ => Err(format!("'{text}': expected a positive number of seconds")),
    }
}

/// Writes `--summary` and `--csv` if asked.
pub fn write_outputs(
    results: &results::Results,
    summary: Option<&Path>,
    csv: Option<&Path>,
) -> Result<()> {
    if let Some(path) = summary {
        connect4::atomic_file::write(path, results.summary_json())
            .with_context(|| format!("writing the summary {}", path.display()))?;
    }
    if let Some(path) = csv {
        connect4::atomic_file::write(path, results.csv())
            .with_context(|| format!("writing the CSV {}", path.display()))?;
    }
    Ok(())
}

/// The first pairing's tally, kept as games arrive (for progress and SPRT).
#[derive(Default)]
struct Live {
    paired: PairedTally,
    /// The SPRT, when one runs: it keeps its first crossing.
    watch: Option<SprtWatch>,
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
        self.paired.add(line.pair, points);
        if let Some(w) = &mut self.watch {
            w.observe(&self.paired.tally);
        }
    }

    fn tally(&self) -> &Tally {
        &self.paired.tally
    }

    /// The SPRT's verdict, once it crossed a bound.
    fn verdict(&self) -> Option<Crossing> {
        self.watch.and_then(|w| w.verdict)
    }
}

/// A run's plan: the engines, the schedule, and its fingerprint.
struct Plan {
    specs: Vec<EngineSpec>,
    names: Vec<String>,
    mode: Mode,
    rounds: usize,
    pairings: Vec<(usize, usize)>,
    jobs: Vec<Job>,
    run_id: String,
}

impl Plan {
    /// Checks the engines' names and builds the schedule.
    fn new(specs: &[EngineSpec], mode: Mode, args: &RunArgs) -> Result<Plan> {
        let names: Vec<String> = specs.iter().map(|s| s.name.clone()).collect();
        let mut unique = HashSet::new();
        for n in &names {
            if !unique.insert(n) {
                bail!("two engines are named '{n}': give each a distinct name=");
            }
        }
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
        let mut identity: Vec<String> = specs.iter().map(|s| s.text.clone()).collect();
        identity.push(format!(
            "seed={} margin={} adjudicate={:?}",
            args.seed, args.time_margin, args.adjudicate
        ));
        // The first round identifies the run: a larger --games on the same
        // log extends it (later rounds add games, they change none).
        let first_round = &jobs[..(2 * pairings.len()).min(jobs.len())];
        let run_id = schedule::fingerprint(args.rules, &identity, first_round);
        Ok(Plan {
            specs: specs.to_vec(),
            names,
            mode,
            rounds,
            pairings,
            jobs,
            run_id,
        })
    }

    /// The games of this shard.
    fn share<'a>(&'a self, shard: Option<Shard>) -> impl Iterator<Item = &'a Job> + 'a {
        self.jobs
            .iter()
            .filter(move |j| shard.is_none_or(|s| s.owns(j)))
    }

    fn title(&self) -> String {
        if self.specs.len() == 2 {
            format!("{} vs {}", self.names[0], self.names[1])
        } else {
            format!(
                "{} engines, {}",
                self.names.len(),
                match self.mode {
                    Mode::RoundRobin => "round robin",
                    Mode::Gauntlet => "gauntlet",
                }
            )
        }
    }

    /// The games of this run already in the log, each once; a game of
    /// another run is an error. Games beyond this schedule (a log of a run
    /// with more games) are left out.
    fn logged_games(&self, log: Option<&Path>) -> Result<Vec<GameLine>> {
        let Some(path) = log else {
            return Ok(Vec::new());
        };
        let mut games = log::read(path)?;
        for g in &games {
            if g.run != self.run_id {
                bail!(
                    "the log {} holds games of another run ({} in its game {}, this run is {}): \
                     the engines, openings or settings differ; use another --log",
                    path.display(),
                    g.run,
                    g.game,
                    self.run_id
                );
            }
            let job = self.jobs.get((g.game as usize).wrapping_sub(1));
            if let Some(j) = job {
                let (first, second) = (&self.names[j.first], &self.names[j.second]);
                if j.opening != g.opening || *first != g.first || *second != g.second {
                    bail!(
                        "the log {}'s game {} is {} vs {} from opening '{}', where this run's \
                         game {} is {first} vs {second} from opening '{}': the log was changed; \
                         use another --log",
                        path.display(),
                        g.game,
                        g.first,
                        g.second,
                        g.opening,
                        g.game,
                        j.opening
                    );
                }
            }
            if let Err(why) = g.check() {
                bail!(
                    "the log {}'s game {} cannot be resumed: {why}; the log was changed or \
                     damaged: remove that line to play the game again, or use another --log",
                    path.display(),
                    g.game
                );
            }
        }
        games.retain(|g| (g.game as usize) <= self.jobs.len());
        Ok(games)
    }
}

/// Games after which an engine that forfeited every one of them for the
/// same reason stops the run.
const FAIL_FAST_GAMES: usize = 3;

/// The run's engines contained under `--isolate` (from their first start
/// on, the preflight's), for `concurrency` games at once.
fn confinement(
    specs: &[EngineSpec],
    args: &RunArgs,
    concurrency: usize,
) -> Result<Option<Arc<Confinement>>> {
    Ok(match args.isolate {
        true => Some(Arc::new(Confinement::new(
            specs,
            concurrency,
            args.uid_base,
        )?)),
        false => None,
    })
}

/// Starts each engine once, greets and configures it, before any game: a
/// mistake in a spec (a wrong path, a bad option) stops the run at once;
/// with `keep_going` (a class's tournament, where a student's engine that
/// does not start is the common case) it is said, and that engine loses
/// its games by forfeit with the reason.
fn preflight(specs: &[EngineSpec], keep_going: bool, confine: Option<&Confinement>) -> Result<()> {
    for (i, spec) in specs.iter().enumerate() {
        let contained = confine.map(|c| c.enter(i, 0)).transpose()?.flatten();
        let started = match &contained {
            Some((spec, _cell)) => EngineProcess::check_starts(spec),
            None => EngineProcess::check_starts(spec),
        };
        drop(contained);
        if let Err(e) = started {
            let why = format!(
                "engine '{}' ({}) does not start: {}: {}{}",
                spec.name,
                spec.command_line(),
                e.reason(),
                e.detail(),
                spec.cmd_hint()
            );
            if !keep_going {
                bail!("{why}");
            }
            eprintln!("connect4-arena: {why}; it loses its games by forfeit (--keep-going)");
        }
    }
    Ok(())
}

/// The flags of a new run: its own `stop` (an SPRT or a failing engine
/// stops this run only), and the process's interrupt flags, which Ctrl-C
/// or SIGTERM (or SIGHUP) set: once, every run of the process stops
/// starting games; twice, running games are abandoned. A process that
/// plays several matches (an experiment) stops them all.
fn run_flags() -> Flags {
    static INTERRUPT: OnceLock<(Arc<AtomicBool>, Arc<AtomicBool>)> = OnceLock::new();
    let (interrupted, abort) = INTERRUPT.get_or_init(|| {
        let flags = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(false)));
        let (interrupted, abort) = flags.clone();
        ctrlc::set_handler(move || {
            if interrupted.swap(true, Ordering::SeqCst) {
                abort.store(true, Ordering::SeqCst);
                eprintln!("\nconnect4-arena: abandoning the running games");
            } else {
                eprintln!(
                    "\nconnect4-arena: stopping: finishing the running games (Ctrl-C or SIGTERM again abandons them)"
                );
            }
        })
        .ok();
        flags
    });
    Flags {
        stop: Arc::new(AtomicBool::new(false)),
        abort: Arc::clone(abort),
        interrupted: Some(Arc::clone(interrupted)),
    }
}

/// What happens as each game ends: the log line, the live tally, progress
/// and the SPRT.
struct Recorder<'a> {
    plan: &'a Plan,
    args: &'a RunArgs,
    sprt: Option<Sprt>,
    writer: Option<log::Writer>,
    live: Live,
    /// Each engine's forfeits in its first games, while all are forfeits
    /// for one reason.
    early: Vec<Vec<(Reason, String)>>,
    /// Games each engine has finished.
    finished: Vec<usize>,
    /// Each engine that lost its first games by one forfeit, and how: the
    /// first stops the run, unless it keeps going.
    failing: Vec<String>,
    /// Points and games of each engine in this run's new games.
    standing: Vec<(f64, u32)>,
    progress: Progress,
    games: Vec<GameLine>,
    played: u64,
    new_moves: usize,
    write_error: Option<anyhow::Error>,
}

impl<'a> Recorder<'a> {
    /// A recorder that starts from the games already logged (which count
    /// for the live tally and the SPRT) and expects `todo` more.
    fn new(
        plan: &'a Plan,
        args: &'a RunArgs,
        sprt: Option<Sprt>,
        logged: Vec<GameLine>,
        todo: usize,
        writer: Option<log::Writer>,
    ) -> Recorder<'a> {
        let index: HashMap<&str, usize> = plan
            .names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i))
            .collect();
        let mut live = Live {
            paired: PairedTally::default(),
            watch: sprt.map(SprtWatch::new),
        };
        for g in &logged {
            if let (Some(&f), Some(&s)) =
                (index.get(g.first.as_str()), index.get(g.second.as_str()))
            {
                live.add(plan.pairings[0], f, s, g);
            }
        }
        Recorder {
            plan,
            args,
            sprt,
            writer,
            live,
            early: vec![Vec::new(); plan.specs.len()],
            finished: vec![0; plan.specs.len()],
            failing: Vec::new(),
            standing: vec![(0.0, 0); plan.specs.len()],
            progress: Progress::new("games", todo as u64),
            games: logged,
            played: 0,
            new_moves: 0,
            write_error: None,
        }
    }

    /// Logs and tallies one finished game; says whether to go on.
    fn record(&mut self, job: &Job, game: GameRecord) -> Control {
        // What the game's engines left behind when they left their group.
        crate::group::end_orphans();
        self.played += 1;
        let names = (
            self.plan.names[job.first].clone(),
            self.plan.names[job.second].clone(),
        );
        let run = self.plan.run_id.clone();
        let mut line = GameLine::of_game(run, job, names, self.args.rules, game, self.args.seed);
        line.zero_based = [job.first, job.second]
            .iter()
            .filter(|&&e| self.plan.specs[e].counts_columns_from_zero())
            .map(|&e| self.plan.names[e].clone())
            .collect();
        if let Some(w) = &mut self.writer
            && let Err(e) = w.append(&line)
        {
            self.write_error = Some(e);
            return Control::Stop;
        }
        self.live
            .add(self.plan.pairings[0], job.first, job.second, &line);
        self.watch_forfeits(job, &line);
        for (engine, points) in [
            (job.first, line.first_points()),
            (job.second, 1.0 - line.first_points()),
        ] {
            self.standing[engine].0 += points;
            self.standing[engine].1 += 1;
        }
        self.new_moves += line.plies.len();
        self.games.push(line);
        self.show_progress();
        let broken = !self.failing.is_empty() && !self.args.keep_going;
        if self.live.verdict().is_some() || broken {
            Control::Stop
        } else {
            Control::Continue
        }
    }

    /// Notes the loser's forfeit; an engine whose first games all end in a
    /// forfeit for one reason stops the run.
    fn watch_forfeits(&mut self, job: &Job, line: &GameLine) {
        let loser = line.result.loser().map(|p| match p {
            connect4::Player::First => job.first,
            connect4::Player::Second => job.second,
        });
        for engine in [job.first, job.second] {
            self.finished[engine] += 1;
            let early = &mut self.early[engine];
            if self.finished[engine] > FAIL_FAST_GAMES {
                continue;
            }
            let same = early.first().is_none_or(|(r, _)| *r == line.reason);
            if loser == Some(engine) && line.reason.is_forfeit() && same {
                early.push((line.reason, line.detail.clone().unwrap_or_default()));
            } else {
                // A game without such a forfeit: this engine does work.
                self.finished[engine] = FAIL_FAST_GAMES + 1;
            }
            if early.len() == FAIL_FAST_GAMES {
                let early = early.clone();
                let spec = &self.plan.specs[engine];
                let (reason, detail) = &early[FAIL_FAST_GAMES - 1];
                let hint = self.one_based_hint(engine, &early);
                self.failing.push(format!(
                    "engine '{}' ({}) lost each of its first {FAIL_FAST_GAMES} games by {reason}; \
                     the last: {detail}{}{hint}",
                    spec.name,
                    spec.command_line(),
                    spec.cmd_hint()
                ));
            }
        }
    }

    /// For a Python player whose every value returned (its moves in the
    /// games so far, and those refused in `early`) lies in 1 to the
    /// board's columns: the question whether its code counts columns from
    /// 1 (empty otherwise).
    fn one_based_hint(&self, engine: usize, early: &[(Reason, String)]) -> String {
        let spec = &self.plan.specs[engine];
        let columns = i64::from(self.args.rules.columns());
        if !spec.counts_columns_from_zero() {
            return String::new();
        }
        let refused: Vec<i64> = early
            .iter()
            .filter(|(r, _)| *r == Reason::IllegalMove)
            .filter_map(|(_, d)| crate::play::returned_value(d))
            .collect();
        let name = &self.plan.names[engine];
        // Its own moves after each opening, as the values its code returned.
        let played = self
            .games
            .iter()
            .filter(|g| g.first == *name || g.second == *name)
            .flat_map(|g| {
                let own_parity = usize::from(g.first != *name);
                let moves = g.moves.columns().enumerate().skip(g.opening.len());
                moves
                    .filter(move |(i, _)| i % 2 == own_parity)
                    .map(|(_, column)| i64::from(column))
            });
        let values: Vec<i64> = refused.iter().copied().chain(played).collect();
        let one_based = !refused.is_empty() && values.iter().all(|v| (1..=columns).contains(v));
        if one_based {
            format!(
                "\n  every column its code returned lies in 1 to {columns}: does it count columns \
                 from 1? A policy's columns are 0 to {}",
                columns - 1
            )
        } else {
            String::new()
        }
    }

    /// The progress line (and the SPRT's decision, which it shows): the
    /// first pairing's score in a match, every engine's in a tournament.
    fn show_progress(&mut self) {
        if self.plan.specs.len() > 2 {
            let mut order: Vec<usize> = (0..self.standing.len()).collect();
            order.sort_by(|&a, &b| self.standing[b].0.total_cmp(&self.standing[a].0));
            let message = order
                .iter()
                .map(|&i| {
                    let (points, games) = self.standing[i];
                    format!("{} {points}/{games}", self.plan.names[i])
                })
                .collect::<Vec<_>>()
                .join(", ");
            self.progress.update(self.played, &message);
            return;
        }
        let t = self.live.tally();
        let mut message = format!(
            "{}: +{} ={} -{} ({:.1}%, Elo {})",
            self.plan.names[self.plan.pairings[0].0],
            t.wins,
            t.draws,
            t.losses,
            100.0 * t.score(),
            results::elo_text(t.elo().0)
        );
        if let Some(s) = self.sprt {
            let llr = s.llr(&t.penta);
            message.push_str(&format!(" LLR {llr:.2}"));
        }
        self.progress.update(self.played, &message);
    }
}

/// Plays (or resumes) the games of `specs` and prints the results; with
/// `--serve`, `follow` starts the page that follows the run.
pub fn run_games(
    specs: &[EngineSpec],
    mode: Mode,
    args: &RunArgs,
    sprt: Option<Sprt>,
    follow: Option<&Follow>,
) -> Result<ExitCode> {
    run_files(specs, args).check()?;
    let plan = Plan::new(specs, mode, args)?;
    // The log is locked before it is read, so that two runs never share it
    // (a check only reads it).
    let writer = if args.check {
        None
    } else {
        args.log.as_deref().map(log::Writer::open).transpose()?
    };
    let logged = plan.logged_games(args.log.as_deref())?;
    let concurrency = args
        .concurrency
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let confine = confinement(&plan.specs, args, concurrency)?;
    preflight(&plan.specs, args.keep_going, confine.as_deref())?;
    let done: HashSet<u64> = logged.iter().map(|g| g.game).collect();
    let todo: Vec<Job> = plan
        .share(args.shard)
        .filter(|j| !done.contains(&j.game))
        .cloned()
        .collect();
    let share = plan.share(args.shard).count();
    print_header(
        &plan,
        args,
        concurrency.min(todo.len().max(1)),
        share,
        done.len(),
    )?;
    if args.check {
        println!(
            "check passed: every engine starts and answers; {} of {share} games to play",
            todo.len()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let flags = run_flags();
    let mut recorder = Recorder::new(&plan, args, sprt, logged, todo.len(), writer);
    let mut config = run_config(&plan, args, concurrency)?;
    config.confine = confine;
    let page = serve_the_run(&plan, args, sprt, &mut config, follow)?;
    let started = std::time::Instant::now();
    let cpu_before = connect4::lab::cpu_time::own_seconds();
    if recorder.live.verdict().is_none() {
        workers::run(&config, todo, &flags, |job, game| {
            recorder.record(job, game)
        });
    }
    recorder.progress.finish();
    crate::group::end_orphans();
    let speed = Speed {
        played: recorder.played,
        moves: recorder.new_moves,
        wall: started.elapsed().as_secs_f64(),
        cpu: connect4::lab::cpu_time::own_seconds()
            .zip(cpu_before)
            .map(|(after, before)| after - before),
    };
    if let Some(e) = recorder.write_error.take() {
        return Err(e);
    }
    broken_engines(&recorder.failing, args.keep_going)?;
    let decided = recorder.live.verdict();
    drop(recorder.writer.take());
    let code = report_run(&plan, args, sprt, recorder.games, decided, &speed)?;
    if let Some(page) = page {
        page.keep_serving(&flags);
    }
    Ok(code)
}

/// The engines that lost their first games by one forfeit (`failing`):
/// the run's error, or with `keep_going` a note for each.
fn broken_engines(failing: &[String], keep_going: bool) -> Result<()> {
    if let Some(why) = failing.first()
        && !keep_going
    {
        bail!("stopped: {why} (--keep-going plays on)");
    }
    for why in failing {
        eprintln!("connect4-arena: note: {why}");
    }
    Ok(())
}

/// The page of a run that serves it (`--serve`).
struct Page {
    /// Its address.
    url: String,
    /// Raised when the run is over (the page says so).
    finished: Arc<AtomicBool>,
}

impl Page {
    /// The run is over: the page shows it finished, and stays until Ctrl-C
    /// or SIGTERM (at once if one came during the run).
    fn keep_serving(&self, flags: &Flags) {
        self.finished.store(true, Ordering::SeqCst);
        let Some(interrupted) = &flags.interrupted else {
            return;
        };
        if interrupted.load(Ordering::SeqCst) {
            return;
        }
        println!(
            "the run is over; its page stays at {} until Ctrl-C",
            self.url
        );
        std::io::stdout().flush().ok();
        while !interrupted.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// The files a run reads (the log, the openings, the engines' own files)
/// and writes (the log's stderr file and the outputs asked for).
fn run_files(specs: &[EngineSpec], args: &RunArgs) -> crate::outputs::Files {
    let stderr = args.log.as_deref().map(StderrLog::path_beside);
    let files = crate::outputs::Files::new()
        .input("--log", args.log.as_deref())
        .input("--openings", args.openings.as_deref());
    specs
        .iter()
        .fold(files, crate::outputs::Files::engine)
        .output("the engines' stderr file", stderr.as_deref())
        .output("--debug", args.debug.as_deref())
        .output("--summary", args.summary.as_deref())
        .output("--csv", args.csv.as_deref())
        .output("--plot", args.plot.as_deref())
}

/// With `--serve PORT`, serves the page that follows the run (from its log
/// and the games under way, which `config`'s workers then tell it).
fn serve_the_run(
    plan: &Plan,
    args: &RunArgs,
    sprt: Option<Sprt>,
    config: &mut RunConfig,
    follow: Option<&Follow>,
) -> Result<Option<Page>> {
    let (Some(port), Some(log)) = (args.serve, args.log.as_deref()) else {
        return Ok(None);
    };
    let follow = follow.context("--serve: this program has no web page to serve")?;
    let in_progress = Arc::new(InProgress::default());
    config.in_progress = Some(Arc::clone(&in_progress));
    let finished = Arc::new(AtomicBool::new(false));
    let run = RunInfo {
        engines: plan.names.clone(),
        pairings: plan.pairings.clone(),
        sprt,
        in_progress,
        finished: Arc::clone(&finished),
    };
    let url = follow(port, log, run)?;
    println!("following the run on {url}");
    Ok(Some(Page { url, finished }))
}

/// How the workers play `plan`'s games, `concurrency` at a time: the
/// engines' stderr and the debug transcript open beside the log.
fn run_config(plan: &Plan, args: &RunArgs, concurrency: usize) -> Result<RunConfig> {
    let stderr_log = args.log.as_deref().map(StderrLog::beside).transpose()?;
    let debug = args.debug.as_deref().map(DebugLog::create).transpose()?;
    Ok(RunConfig {
        rules: args.rules,
        specs: plan.specs.clone(),
        concurrency,
        margin: Duration::from_millis(args.time_margin),
        adjudicate: args.adjudicate,
        seed: args.seed,
        stderr_log: stderr_log.map(Arc::new),
        max_move_time: Duration::from_secs_f64(args.max_move_time),
        debug: debug.map(Arc::new),
        in_progress: None,
        confine: None,
    })
}

/// Prints what the run is about to do.
fn print_header(
    plan: &Plan,
    args: &RunArgs,
    at_once: usize,
    share: usize,
    logged: usize,
) -> Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{}: {} games ({} colour-swapped pair{} per pairing), {at_once} at once, rules {}{}{}",
        plan.title(),
        plan.jobs.len(),
        plan.rounds,
        if plan.rounds == 1 { "" } else { "s" },
        args.rules,
        args.shard.map_or(String::new(), |s| format!(
            ", shard {}/{} ({share} games)",
            s.index, s.count
        )),
        if logged == 0 {
            String::new()
        } else {
            format!(", resuming: {logged} games already in the log")
        }
    )?;
    out.flush()?;
    Ok(())
}

/// Nodes the solver may spend on one opening's value for
/// [`lost_openings_note`]: every 2-ply opening of the standard board is in
/// the book; a larger board's may be left unlabelled.
const OPENING_NODES: u64 = 2_000_000;
/// Nodes the solver may spend on all of a run's openings for
/// [`lost_openings_note`] (a few seconds at the most): the openings of a
/// long run on a large board beyond it are left unlabelled, so the note
/// never holds up the end of a run.
const OPENINGS_NODES: u64 = 40_000_000;

/// For each engine that lost games from openings already lost for it (by
/// the solver's labels, the side to move after the opening): how many of
/// its losses those were. A perfect player loses those too, so a run's
/// first reader should not take them for mistakes. Empty when none.
fn lost_openings_note(games: &[GameLine], names: &[String], rules: Rules) -> String {
    let mut solver = connect4::search::Solver::new(16);
    let mut values: HashMap<connect4::MoveList, Option<i32>> = HashMap::new();
    let mut counts: HashMap<&str, (usize, usize)> = HashMap::new();
    let mut spent = 0;
    for g in games {
        let Some(loser) = g.loser() else { continue };
        let entry = counts.entry(loser).or_default();
        entry.1 += 1;
        let value = *values.entry(g.opening.clone()).or_insert_with(|| {
            let game = connect4::Game::from_moves(rules, &g.opening).ok()?;
            let left = OPENINGS_NODES.saturating_sub(spent).min(OPENING_NODES);
            if left == 0 {
                return None;
            }
            solver.set_limits(&connect4::search::Limits::nodes(left), None);
            let value = solver.solve_within(game.position(), true);
            spent += solver.nodes();
            value
        });
        // The value is the side to move's; the loser moved first or not.
        let loser_moves_next = (g.opening.len() % 2 == 0) == (g.first == loser);
        let for_loser = value.map(|v| if loser_moves_next { v } else { -v });
        if for_loser.is_some_and(|v| v < 0) {
            entry.0 += 1;
        }
    }
    let mut note = String::new();
    for name in names {
        if let Some(&(from_lost, losses)) = counts.get(name.as_str())
            && from_lost > 0
        {
            note.push_str(&format!(
                "{name}: {from_lost} of its {losses} lost game(s) began from an opening already \
                 lost for it (by the solver; a perfect player loses those too)\n"
            ));
        }
    }
    if note.is_empty() {
        note
    } else {
        format!("\n{note}")
    }
}

/// For each engine that lost games by a crash: the first of them, with
/// the last lines the engine wrote on stderr (its traceback), and where
/// the rest are kept. Empty when no engine crashed.
fn crash_notes(games: &[GameLine], names: &[String], log: Option<&Path>) -> String {
    let mut notes = String::new();
    for name in names {
        let crashes: Vec<&GameLine> = games
            .iter()
            .filter(|g| g.reason == Reason::Crash && g.loser() == Some(name.as_str()))
            .collect();
        let Some(first) = crashes.iter().min_by_key(|g| g.game) else {
            continue;
        };
        let detail = first.detail.as_deref().unwrap_or("no detail");
        let (what, stderr) = detail
            .split_once(crate::process::STDERR_ENDS)
            .unwrap_or((detail, ""));
        notes.push_str(&format!(
            "\n{name} crashed in {} game(s); the first, game {}: {}\n",
            crashes.len(),
            first.game,
            what.trim_end_matches([';', ' '])
        ));
        if !stderr.is_empty() {
            notes.push_str("  the last lines it wrote on stderr:\n");
            // The detail holds them on one line, joined by " | ".
            for line in stderr.split(" | ") {
                notes.push_str(&format!("    {line}\n"));
            }
        }
        notes.push_str(&match log {
            Some(log) => format!(
                "  every engine's stderr is kept in {}\n",
                StderrLog::path_beside(log).display()
            ),
            None => "  give --log to keep every engine's stderr beside the log\n".to_string(),
        });
    }
    notes
}

/// How fast the games of this run went.
struct Speed {
    played: u64,
    moves: usize,
    wall: f64,
    cpu: Option<f64>,
}

impl Speed {
    /// The run's speed in one line.
    fn line(&self) -> String {
        let moves = self.moves.max(1) as f64;
        format!(
            "{} games in {:.2} s: {:.1} games/s, {:.3} ms of wall time per move{}",
            self.played,
            self.wall,
            self.played as f64 / self.wall,
            1e3 * self.wall / moves,
            self.cpu.map_or(String::new(), |c| format!(
                ", arena CPU {:.3} ms per move",
                1e3 * c / moves
            ))
        )
    }
}

/// Prints the tables, writes the files, and says how the run ended.
fn report_run(
    plan: &Plan,
    args: &RunArgs,
    sprt: Option<Sprt>,
    mut games: Vec<GameLine>,
    decided: Option<Crossing>,
    speed: &Speed,
) -> Result<ExitCode> {
    // In the order logged, which is the order the SPRT saw them.
    let results = results::collect(&plan.names, &plan.pairings, &games, sprt);
    games.sort_by_key(|g| g.game);
    let mut out = std::io::stdout().lock();
    writeln!(out)?;
    writeln!(out, "{}", results.verdict_line())?;
    write!(out, "{}", results.table())?;
    if plan.specs.len() > 2 {
        writeln!(out)?;
        write!(out, "{}", results.crosstable())?;
        writeln!(out)?;
        write!(out, "{}", results.rating_table())?;
    }
    write!(
        out,
        "{}",
        lost_openings_note(&games, &plan.names, args.rules)
    )?;
    write!(
        out,
        "{}",
        crash_notes(&games, &plan.names, args.log.as_deref())
    )?;
    write_outputs(&results, args.summary.as_deref(), args.csv.as_deref())?;
    if let Some(path) = &args.plot {
        crate::figures::run_figure(&plan.title(), &plan.names, &plan.pairings, &games, sprt)
            .save(path)?;
        writeln!(out, "drew the run in {}", path.display())?;
    }
    if speed.played > 0 {
        writeln!(out, "\n{}", speed.line())?;
    }
    let share = plan.share(args.shard).count();
    let missing = share.saturating_sub(
        games
            .iter()
            .filter(|g| {
                plan.jobs
                    .get(g.game as usize - 1)
                    .is_some_and(|j| args.shard.is_none_or(|s| s.owns(j)))
            })
            .count(),
    );
    if let Some(v) = decided {
        writeln!(
            out,
            "SPRT decided: {} accepted after {} games (LLR {:.2}); {} games in all, \
             {missing} scheduled games not played",
            match v.decision {
                Decision::H1 => "H1",
                Decision::H0 => "H0",
            },
            v.games,
            v.llr,
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
