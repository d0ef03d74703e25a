//! `league`: a class league that runs all term. Students (or a Gradescope
//! hook) drop submissions into a folder, one folder per student; each new
//! one is checked (it starts, answers, and plays a game against itself)
//! before it enters, then plays ladder games against the players rated
//! nearest, more while its rating is unsure. Ratings are a mean and an
//! uncertainty ([`rating`]: Weng-Lin, as openskill computes it), ranked
//! by the conservative `mu - 3 sigma`, reset when a student resubmits.
//! Four anchors (random, greedy, alphabeta:depth=4 and the perfect
//! player) are rated once among themselves and never move, so that a
//! rating means the same all term. A final round (every pairing of the
//! students' latest submissions, colours swapped) freezes the ranking.
//!
//! Everything is in SQLite ([`store`]): a league killed at any moment
//! restarts with nothing lost or counted twice. Every game goes to
//! `games.jsonl` in the league's folder, which `serve --log` and `report`
//! replay with the solver's verdict on each move.
//!
//! The map, from the bottom: `rating`; `store` (on `rating`); `pairing`,
//! `intake`, `games` (on `store`); `batch` (games played away from the
//! database, on `games`); `ladder` (the tables); `view` (the page's JSON,
//! on `ladder`); this file.

pub mod batch;
pub mod games;
pub mod intake;
pub mod isolation;
pub mod kinds;
pub mod ladder;
pub mod pairing;
pub mod rating;
pub mod store;
pub mod view;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result};
use connect4::Rules;
use connect4_grade::config::{Config, SubmissionKind};
use connect4_match::schedule::OpeningSource;

use crate::intake::{Entry, Intake};
use crate::isolation::Isolation;
use crate::kinds::{GameKind, State};
use crate::rating::{Rating, Replayed};
use crate::store::{GameRow, Player, Store};

/// Arguments of `league`.
#[derive(clap::Args)]
pub struct Args {
    /// The league's folder: its database (league.db), its copies of the
    /// submissions, every game (games.jsonl); made if missing.
    #[arg(long)]
    pub dir: PathBuf,
    /// The folder submissions are dropped into, one folder per student;
    /// read again before every round.
    #[arg(long)]
    pub submissions: Option<PathBuf>,
    /// The grading config whose `[submission]` and `[time]` say how the
    /// submissions run (default: the standard one for --kind).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Without a config: the kind of submission (engine, policy, kaggle).
    #[arg(long, conflicts_with = "config")]
    pub kind: Option<SubmissionKind>,
    /// The Python that runs policies and Kaggle agents (with the bridge
    /// `c4bridge` installed).
    #[arg(long, default_value = "python3")]
    pub python: String,
    /// Rounds to play, then stop (default: until Ctrl-C).
    #[arg(long)]
    pub rounds: Option<u64>,
    /// Games played at once (default: the number of cores).
    #[arg(long, value_parser = connect4_match::run::at_least_one)]
    pub concurrency: Option<usize>,
    /// Play the final round (every pairing of the students' latest
    /// submissions, colours swapped, unrated) and print its table, the
    /// final ranking.
    #[arg(long = "final", conflicts_with = "rounds")]
    pub final_round: bool,
    /// Colour-swapped pairs of each pairing in the final round.
    #[arg(long, default_value_t = 1, value_parser = connect4_match::run::at_least_one)]
    pub final_pairs: usize,
    /// Colour-swapped pairs of each pairing of anchors in their
    /// calibration, the league's first games (fewer: a quicker start, less
    /// sure anchors).
    #[arg(long, default_value_t = 10, value_parser = connect4_match::run::at_least_one)]
    pub calibration_pairs: usize,
    /// Write the games to play to FILE, one JSON line each, and play none
    /// (the Slurm tasks play them): the new submissions are taken in
    /// first, and when nothing is left to play the anchors' calibration or
    /// the next ladder round is scheduled.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["status", "final_round", "rounds", "play", "record", "serve"])]
    pub export: Option<PathBuf>,
    /// Play the games of an --export FILE in --shard I/N, each appended to
    /// --results as it ends (games it holds already are not played again);
    /// reads and writes no database.
    #[arg(long, value_name = "FILE", requires = "results", conflicts_with_all = ["status", "final_round", "rounds", "record", "serve"])]
    pub play: Option<PathBuf>,
    /// With --play: the share of the games to play, every N-th from the
    /// I-th (default 1/1: all).
    #[arg(long, requires = "play")]
    pub shard: Option<connect4_match::schedule::Shard>,
    /// With --play: the file the games played are appended to.
    #[arg(long, value_name = "FILE", requires = "play")]
    pub results: Option<PathBuf>,
    /// Record the games of these --results files in the database, in the
    /// order of the games, each once (a game recorded before is left out),
    /// and play none.
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["status", "final_round", "rounds", "serve"])]
    pub record: Vec<PathBuf>,
    /// Run the students' code as the league's own user, without
    /// isolation: each student's code can then read and change the
    /// league's files and the other students' code (the ladder and the
    /// page say so). Without it the league contains every submission
    /// (as root: see docs/league.md) or refuses to run them.
    #[arg(long)]
    pub no_isolation: bool,
    /// The first of the uids the students' code runs as under isolation,
    /// one per student (no account of the machine may use them).
    #[arg(long, default_value_t = connect4_grade::contain::DEFAULT_BASE_UID)]
    pub uid_base: u32,
    /// Print the ladder and play nothing.
    #[arg(long, conflicts_with_all = ["rounds", "final_round"])]
    pub status: bool,
    /// With --status: write the ladder and the final round's table as
    /// ladder.csv and final.csv in this folder (made if missing).
    #[arg(long, value_name = "DIR", requires = "status")]
    pub csv: Option<PathBuf>,
    /// Serve the league's page (the ladder live, each student's games and
    /// feedback, every game replayed) on this port of loopback while the
    /// league runs, and after it until Ctrl-C (0: a free port).
    #[arg(long, value_name = "PORT", conflicts_with = "status")]
    pub serve: Option<u16>,
}

/// Serves the page of the league in a folder on a port, on threads of its
/// own; its address. The binary hands the web's to [`run`].
pub type Serve = dyn Fn(u16, &Path) -> Result<String>;

/// The anchors: name and spec. Their ratings are set once, from games
/// among themselves, and never move.
const ANCHORS: [(&str, &str); 4] = [
    (
        "random",
        "name=random,cmd=self,option.agent=random,movetime=100",
    ),
    (
        "greedy",
        "name=greedy,cmd=self,option.agent=greedy,movetime=100",
    ),
    (
        "alphabeta:depth=4",
        "name=alphabeta4,cmd=self,option.agent='alphabeta:depth=4',movetime=100",
    ),
    ("perfect", "name=perfect,cmd=self,movetime=100"),
];

/// Writes the ladder and the final round's table as CSV files in
/// `folder`, which may be neither the league's folder nor the
/// submissions' (the league reads those).
fn write_csv(args: &Args, store: &Store, folder: &Path) -> Result<()> {
    std::fs::create_dir_all(folder)
        .with_context(|| format!("--csv: creating {}", folder.display()))?;
    let real = |p: &Path| std::fs::canonicalize(p).ok();
    for input in [Some(&args.dir), args.submissions.as_ref()]
        .into_iter()
        .flatten()
    {
        if real(folder).is_some() && real(folder) == real(input) {
            anyhow::bail!(
                "--csv {}: that is a folder the league reads; give another",
                folder.display()
            );
        }
    }
    for (name, kind) in [
        ("ladder.csv", GameKind::Ladder),
        ("final.csv", GameKind::Final),
    ] {
        let path = folder.join(name);
        connect4::atomic_file::write(&path, ladder::csv(store, kind)?)
            .with_context(|| format!("writing {}", path.display()))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

/// Runs the league as the arguments say; `serve` serves its page when
/// `--serve` asks.
pub fn run(args: &Args, serve: Option<&Serve>) -> Result<ExitCode> {
    if let Some(exported) = &args.play {
        return play_exported(args, exported);
    }
    std::fs::create_dir_all(&args.dir)
        .with_context(|| format!("creating {}", args.dir.display()))?;
    let _lock = match args.status {
        true => None,
        false => Some(lock(&args.dir)?),
    };
    let store = Mutex::new(Store::open(&database(&args.dir))?);
    if args.status {
        let s = store.lock().unwrap_or_else(|e| e.into_inner());
        print!(
            "{}{}",
            ladder::table(&s, GameKind::Ladder)?,
            ladder::audit(&s)?
        );
        if let Some(folder) = &args.csv {
            write_csv(args, &s, folder)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let config = match &args.config {
        Some(path) => Config::load(path)?,
        None => Config::defaults(args.kind.unwrap_or_default()),
    };
    // Ctrl-C ends the league between moves: the games under way are
    // abandoned, not recorded, and played again when it runs again.
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = Arc::clone(&stop);
        ctrlc::set_handler(move || stop.store(true, Ordering::Relaxed)).ok();
    }
    let isolation = isolation(
        args,
        &config,
        Some(&store.lock().unwrap_or_else(|e| e.into_inner())),
    )?;
    let league = League {
        args,
        store: &store,
        config: &config,
        stop: &stop,
        isolation: &isolation,
    };
    league.rewrite_log()?;
    if let Some(path) = &args.export {
        return league.export_games(path);
    }
    if !args.record.is_empty() {
        return league.record_results();
    }
    let page = match (args.serve, serve) {
        (Some(port), Some(serve)) => Some(serve(port, &args.dir)?),
        (Some(_), None) => anyhow::bail!("--serve: this program has no web page to serve"),
        _ => None,
    };
    if let Some(url) = &page {
        println!("the league's page: {url}");
    }
    league.anchors()?;
    let code = match args.final_round {
        true => league.final_round()?,
        false => league.rounds()?,
    };
    if let Some(url) = &page
        && !stop.load(Ordering::Relaxed)
    {
        println!("the league's games are over; its page stays at {url} until Ctrl-C");
        while !stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    Ok(code)
}

/// A running league.
struct League<'a> {
    args: &'a Args,
    store: &'a Mutex<Store>,
    config: &'a Config,
    /// Raised by Ctrl-C: no game starts, the ones under way end.
    stop: &'a AtomicBool,
    /// How the students' code runs.
    isolation: &'a Isolation,
}

/// How the league (or a `--play` task) runs the students' code: contained
/// unless `--no-isolation`; contained, the league's folder and the drop
/// folder are closed to the students' users.
fn isolation(args: &Args, config: &Config, store: Option<&Store>) -> Result<Isolation> {
    let isolation = Isolation::new(args.no_isolation, config, args.uid_base, store)?;
    if isolation.is_on() {
        isolation::check_passable(&args.dir)?;
        isolation::close_league_folder(&args.dir)?;
        if let Some(drop) = &args.submissions {
            connect4_match::sandbox::close_to_others(drop, "--submissions")?;
        }
    }
    Ok(isolation)
}

impl League<'_> {
    fn store(&self) -> std::sync::MutexGuard<'_, Store> {
        self.store.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The anchors, rated once from a round robin among themselves.
    fn anchors(&self) -> Result<()> {
        self.schedule_anchors()?;
        if self.store().note("calibrated")?.is_none() {
            println!("league: rating the anchors from games among themselves");
            self.play_unplayed()?;
            if self.stop.load(Ordering::Relaxed) {
                anyhow::bail!("stopped before the anchors were rated; run the league again");
            }
            self.calibrate()?;
        }
        Ok(())
    }

    /// Adds the anchors and schedules their calibration, once.
    fn schedule_anchors(&self) -> Result<()> {
        if self.store().players()?.iter().any(|p| p.anchor) {
            return Ok(());
        }
        for (name, spec) in ANCHORS {
            self.store().add_player(&Player {
                id: 0,
                student: name.to_string(),
                anchor: true,
                version: 0,
                fingerprint: String::new(),
                spec: spec.to_string(),
                state: State::Active,
                note: None,
                rating: Rating::default(),
            })?;
        }
        let players: Vec<Player> = self.store().players()?;
        let refs: Vec<&Player> = players.iter().filter(|p| p.anchor).collect();
        let mut games = pairing::final_round(&refs, &openings(7)?, self.args.calibration_pairs);
        games
            .iter_mut()
            .for_each(|g| g.kind = GameKind::Calibration);
        self.store().schedule(&games)?;
        Ok(())
    }

    /// Rates the anchors from their calibration games, in order, then
    /// fixes their ratings.
    fn calibrate(&self) -> Result<()> {
        let store = self.store();
        let players = store.players()?;
        let anchors: Vec<&Player> = players.iter().filter(|p| p.anchor).collect();
        let mut ratings: BTreeMap<i64, Replayed> = anchors
            .iter()
            .map(|p| {
                (
                    p.id,
                    Replayed {
                        rating: Rating::default(),
                        fixed: false,
                    },
                )
            })
            .collect();
        rating::replay(&mut ratings, store.calibration_games()?);
        for (id, r) in &ratings {
            store.set_rating(*id, r.rating)?;
        }
        store.set_note("calibrated", "yes")?;
        Ok(())
    }

    /// Ladder rounds until `--rounds` or Ctrl-C.
    fn rounds(&self) -> Result<ExitCode> {
        let mut round = self.round()?;
        let mut played_here = 0;
        while !self.stop.load(Ordering::Relaxed) && self.args.rounds.is_none_or(|n| played_here < n)
        {
            self.intake()?;
            self.play_unplayed()?;
            let Some(games) = self.schedule_round(round + 1)? else {
                if self.args.submissions.is_none() {
                    anyhow::bail!(
                        "no student in the league: give --submissions, a folder of submission folders"
                    );
                }
                println!("league: no submission yet; looking again in 10 s");
                std::thread::sleep(Duration::from_secs(10));
                continue;
            };
            round += 1;
            self.play_unplayed()?;
            self.store().set_note("rounds", &round.to_string())?;
            played_here += 1;
            println!("league: round {round} done ({games} games)");
        }
        print!("{}", ladder::table(&self.store(), GameKind::Ladder)?);
        Ok(ExitCode::SUCCESS)
    }

    /// The ladder rounds scheduled so far.
    fn round(&self) -> Result<u64> {
        Ok(self
            .store()
            .note("rounds")?
            .map_or(0, |r| r.parse().unwrap_or(0)))
    }

    /// Schedules ladder round `round` among the active players: how many
    /// games, or `None` when no student is active.
    fn schedule_round(&self, round: u64) -> Result<Option<usize>> {
        let players = self.store().players()?;
        let active: Vec<&Player> = players
            .iter()
            .filter(|p| p.state == State::Active)
            .collect();
        if active.iter().all(|p| p.anchor) {
            return Ok(None);
        }
        let tallies = self.store().tallies(GameKind::Ladder)?;
        let games_of = |id| {
            tallies
                .iter()
                .find(|t| t.player == id)
                .map_or(0, |t| t.games)
        };
        let games = pairing::round(&active, games_of, &openings(round)?, round);
        self.store().schedule(&games)?;
        Ok(Some(games.len()))
    }

    /// `--export FILE`: takes in the new submissions, schedules what comes
    /// next when nothing is left to play, and writes the games to play.
    fn export_games(&self, path: &Path) -> Result<ExitCode> {
        self.intake()?;
        self.schedule_anchors()?;
        if self.store().unplayed()?.is_empty() {
            if self.store().note("calibrated")?.is_none() {
                self.calibrate()?;
            }
            let round = self.round()? + 1;
            if self.schedule_round(round)?.is_some() {
                self.store().set_note("rounds", &round.to_string())?;
            }
        }
        let count = batch::export(&self.store(), &copies(&self.args.dir), path)?;
        println!(
            "league: {count} game(s) to play written to {}",
            path.display()
        );
        Ok(ExitCode::SUCCESS)
    }

    /// `--record FILE...`: records the games the tasks played, then rates
    /// the anchors if their calibration is complete.
    fn record_results(&self) -> Result<ExitCode> {
        let files: Vec<&Path> = self.args.record.iter().map(PathBuf::as_path).collect();
        let log = self.log();
        let recorded = batch::record(&self.table(&log), &files)?;
        println!(
            "league: {} game(s) recorded, {} left out (recorded before, or dropped by a resubmission)",
            recorded.new, recorded.skipped
        );
        if recorded.refused > 0 {
            println!(
                "league: {} game(s) of the results refused (moves, players or a result that do \
                 not hold up: see above): those games stay to play",
                recorded.refused
            );
        }
        if recorded.unreadable > 0 {
            println!(
                "league: {} line(s) of the results could not be read (cut short by a killed task): \
                 those games stay to play",
                recorded.unreadable
            );
        }
        let calibrating = self
            .store()
            .unplayed()?
            .iter()
            .any(|g| g.kind == GameKind::Calibration);
        if self.store().note("calibrated")?.is_none() && !calibrating {
            self.calibrate()?;
        }
        print!("{}", ladder::table(&self.store(), GameKind::Ladder)?);
        Ok(ExitCode::SUCCESS)
    }

    /// The final round, scheduled once and played to its end (a league
    /// stopped part way plays the rest when run again), then its table.
    fn final_round(&self) -> Result<ExitCode> {
        self.intake()?;
        if self.store().note("final")?.is_none() {
            let players = self.store().players()?;
            let students: Vec<&Player> = players
                .iter()
                .filter(|p| p.state == State::Active && !p.anchor)
                .collect();
            let games = pairing::final_round(&students, &openings(0)?, self.args.final_pairs);
            self.store().schedule(&games)?;
            self.store().set_note("final", "scheduled")?;
        }
        self.play_unplayed()?;
        let table = ladder::table(&self.store(), GameKind::Final)?;
        let path = self.args.dir.join("final.txt");
        connect4::atomic_file::write(&path, &table)
            .with_context(|| format!("writing {}", path.display()))?;
        print!("{table}");
        println!("wrote {}", path.display());
        Ok(ExitCode::SUCCESS)
    }

    /// Takes in the new submissions, saying what became of each.
    fn intake(&self) -> Result<()> {
        let Some(drop) = &self.args.submissions else {
            return Ok(());
        };
        let intake = Intake {
            drop,
            copies: copies(&self.args.dir),
            config: self.config,
            python: &self.args.python,
            isolation: self.isolation,
        };
        for entry in intake.scan(&mut self.store())? {
            match entry {
                Entry::Entered(student) => println!("league: {student}: a new submission entered"),
                Entry::Rejected(student, why) => println!("league: {student}: refused: {why}"),
            }
        }
        Ok(())
    }

    /// Plays every game scheduled and not played yet.
    fn play_unplayed(&self) -> Result<()> {
        let games: Vec<GameRow> = self.store().unplayed()?;
        if games.is_empty() {
            return Ok(());
        }
        let players = self.store().players()?;
        let concurrency = self
            .args
            .concurrency
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        let log = self.log();
        games::play_all(&self.table(&log), &players, &games, concurrency).map(|_| ())
    }

    /// Where the games are recorded: the database and `log`.
    fn table<'b>(&'b self, log: &'b Path) -> games::Table<'b> {
        games::Table {
            store: self.store,
            log,
            stop: self.stop,
            isolation: self.isolation,
            copies: copies(&self.args.dir),
            margin: std::time::Duration::from_millis(self.config.margin_ms),
        }
    }

    /// The league's game log.
    fn log(&self) -> PathBuf {
        game_log(&self.args.dir)
    }

    /// Writes every played game to games.jsonl, for `serve` and `report`
    /// (whole, from the database: what a kill left out of it or cut is
    /// mended).
    fn rewrite_log(&self) -> Result<()> {
        let lines = self.store().played_lines(None)?;
        let path = self.log();
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        connect4::atomic_file::write(&path, text)
            .with_context(|| format!("writing {}", path.display()))
    }
}

/// `--play FILE`: plays the share of an exported file's games, touching
/// no database.
fn play_exported(args: &Args, exported: &Path) -> Result<ExitCode> {
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = Arc::clone(&stop);
        ctrlc::set_handler(move || stop.store(true, Ordering::Relaxed)).ok();
    }
    let shard = args
        .shard
        .unwrap_or(connect4_match::schedule::Shard { index: 1, count: 1 });
    let results = args
        .results
        .as_deref()
        .context("--play needs --results FILE")?;
    let concurrency = args
        .concurrency
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let config = match &args.config {
        Some(path) => Config::load(path)?,
        None => Config::defaults(args.kind.unwrap_or_default()),
    };
    let isolation = isolation(args, &config, None)?;
    let margin = std::time::Duration::from_millis(config.margin_ms);
    let played = batch::play(
        exported,
        shard,
        results,
        concurrency,
        &stop,
        &isolation,
        margin,
    )?;
    println!(
        "league: {played} game(s) of shard {}/{} played into {}",
        shard.index,
        shard.count,
        results.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Every 2-ply opening of the standard board, in an order drawn from
/// `seed`.
fn openings(seed: u64) -> Result<Vec<connect4::MoveList>> {
    let source = OpeningSource {
        file: None,
        plies: 2,
        all: true,
        undecided: None,
        seed,
    };
    connect4_match::schedule::openings(Rules::STANDARD, &source, 49)
}

/// Holds the league in `dir` for this run, or says that another run
/// holds it: two runs on one league would take the same students in
/// twice and play rounds twice. The hold ends with the run (or its
/// process).
fn lock(dir: &Path) -> Result<std::fs::File> {
    let path = dir.join("league.lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| format!("opening {}", path.display()))?;
    if file.try_lock().is_err() {
        anyhow::bail!(
            "another league run is using --dir {} (it holds {}): wait for it to end, or stop it; \
             --status reads the ladder meanwhile",
            dir.display(),
            path.display()
        );
    }
    Ok(file)
}

/// The database of the league in `dir`.
pub fn database(dir: &Path) -> PathBuf {
    dir.join("league.db")
}

/// The league's copies of the submissions in `dir`, one folder a student.
pub fn copies(dir: &Path) -> PathBuf {
    dir.join("submissions")
}

/// The game log of the league in `dir`: every game played, one line each.
pub fn game_log(dir: &Path) -> PathBuf {
    dir.join("games.jsonl")
}
