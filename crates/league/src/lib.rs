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
//! `intake`, `games` (on `store`); `ladder` (the tables); this file.

pub mod games;
pub mod intake;
pub mod ladder;
pub mod pairing;
pub mod rating;
pub mod store;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result};
use connect4::Rules;
use connect4::score::Outcome;
use connect4_grade::config::{Config, SubmissionKind};
use connect4_match::schedule::OpeningSource;

use crate::intake::{Entry, Intake};
use crate::rating::Rating;
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
    /// Print the ladder and play nothing.
    #[arg(long, conflicts_with_all = ["rounds", "final_round"])]
    pub status: bool,
}

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
/// Colour-swapped pairs of each pairing of anchors in their calibration.
const CALIBRATION_PAIRS: usize = 10;

/// Runs the league as the arguments say.
pub fn run(args: &Args) -> Result<ExitCode> {
    std::fs::create_dir_all(&args.dir)
        .with_context(|| format!("creating {}", args.dir.display()))?;
    let store = Mutex::new(Store::open(&args.dir.join("league.db"))?);
    if args.status {
        let s = store.lock().unwrap_or_else(|e| e.into_inner());
        print!("{}{}", ladder::table(&s, "ladder")?, ladder::audit(&s)?);
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
    let league = League {
        args,
        store: &store,
        config: &config,
        stop: &stop,
    };
    league.anchors()?;
    if args.final_round {
        return league.final_round();
    }
    league.rounds()
}

/// A running league.
struct League<'a> {
    args: &'a Args,
    store: &'a Mutex<Store>,
    config: &'a Config,
    /// Raised by Ctrl-C: no game starts, the ones under way end.
    stop: &'a AtomicBool,
}

impl League<'_> {
    fn store(&self) -> std::sync::MutexGuard<'_, Store> {
        self.store.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The anchors, rated once from a round robin among themselves.
    fn anchors(&self) -> Result<()> {
        if self.store().players()?.iter().all(|p| !p.anchor) {
            for (name, spec) in ANCHORS {
                self.store().add_player(&Player {
                    id: 0,
                    student: name.to_string(),
                    anchor: true,
                    version: 0,
                    fingerprint: String::new(),
                    spec: spec.to_string(),
                    state: "active".into(),
                    note: None,
                    rating: Rating::default(),
                })?;
            }
            let anchors: Vec<Player> = self.store().players()?;
            let refs: Vec<&Player> = anchors.iter().collect();
            let mut games = pairing::final_round(&refs, &openings(7)?, CALIBRATION_PAIRS);
            games.iter_mut().for_each(|g| g.kind = "calibration".into());
            self.store().schedule(&games)?;
        }
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

    /// Rates the anchors from their calibration games, in order, then
    /// fixes their ratings.
    fn calibrate(&self) -> Result<()> {
        let store = self.store();
        let players = store.players()?;
        let mut ratings: Vec<(i64, Rating)> = players
            .iter()
            .filter(|p| p.anchor)
            .map(|p| (p.id, Rating::default()))
            .collect();
        for line in store.played_lines(Some("calibration"))? {
            let g: connect4_match::log::GameLine = serde_json::from_str(&line)?;
            let id = |name: &str| {
                players
                    .iter()
                    .find(|p| p.anchor && games::label(p) == name)
                    .map(|p| p.id)
            };
            let (Some(a), Some(b)) = (id(&g.first), id(&g.second)) else {
                continue;
            };
            let get = |id| {
                ratings
                    .iter()
                    .find(|(i, _)| *i == id)
                    .map(|(_, r)| *r)
                    .unwrap_or_default()
            };
            let outcome = match g.result.as_str() {
                "1-0" => Outcome::Win,
                "0-1" => Outcome::Loss,
                _ => Outcome::Draw,
            };
            let (ra, rb) = rating::rate(get(a), get(b), outcome);
            for (id, r) in [(a, ra), (b, rb)] {
                if let Some(slot) = ratings.iter_mut().find(|(i, _)| *i == id) {
                    slot.1 = r;
                }
            }
        }
        for (id, r) in &ratings {
            store.set_rating(*id, *r)?;
        }
        store.set_note("calibrated", "yes")?;
        Ok(())
    }

    /// Ladder rounds until `--rounds` or Ctrl-C.
    fn rounds(&self) -> Result<ExitCode> {
        let mut round = self
            .store()
            .note("rounds")?
            .map_or(0, |r| r.parse().unwrap_or(0));
        let mut played_here = 0;
        while !self.stop.load(Ordering::Relaxed) && self.args.rounds.is_none_or(|n| played_here < n)
        {
            self.intake()?;
            self.play_unplayed()?;
            let players = self.store().players()?;
            let active: Vec<&Player> = players.iter().filter(|p| p.state == "active").collect();
            if active.iter().all(|p| p.anchor) {
                if self.args.submissions.is_none() {
                    anyhow::bail!(
                        "no student in the league: give --submissions, a folder of submission folders"
                    );
                }
                println!("league: no submission yet; looking again in 10 s");
                std::thread::sleep(Duration::from_secs(10));
                continue;
            }
            round += 1;
            let tallies = self.store().tallies("ladder")?;
            let games_of = |id| {
                tallies
                    .iter()
                    .find(|t| t.player == id)
                    .map_or(0, |t| t.games)
            };
            let games = pairing::round(&active, games_of, &openings(round)?, round);
            self.store().schedule(&games)?;
            self.play_unplayed()?;
            self.store().set_note("rounds", &round.to_string())?;
            played_here += 1;
            self.export()?;
            println!("league: round {round} done ({} games)", games.len());
        }
        print!("{}", ladder::table(&self.store(), "ladder")?);
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
                .filter(|p| p.state == "active" && !p.anchor)
                .collect();
            let games = pairing::final_round(&students, &openings(0)?, self.args.final_pairs);
            self.store().schedule(&games)?;
            self.store().set_note("final", "scheduled")?;
        }
        self.play_unplayed()?;
        self.export()?;
        let table = ladder::table(&self.store(), "final")?;
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
            copies: self.args.dir.join("submissions"),
            config: self.config,
            python: &self.args.python,
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
        games::play_all(self.store, &players, &games, concurrency, self.stop).map(|_| ())
    }

    /// Writes every played game to games.jsonl, for `serve` and `report`.
    fn export(&self) -> Result<()> {
        let lines = self.store().played_lines(None)?;
        let path = self.args.dir.join("games.jsonl");
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        connect4::atomic_file::write(&path, text)
            .with_context(|| format!("writing {}", path.display()))
    }
}

/// Every 2-ply opening of the standard board, in an order drawn from
/// `seed`.
fn openings(seed: u64) -> Result<Vec<String>> {
    let source = OpeningSource {
        file: None,
        plies: 2,
        all: true,
        undecided: None,
        seed,
    };
    connect4_match::schedule::openings(Rules::STANDARD, &source, 49)
}

/// The league's folder's database, for the page and the tests.
pub fn database(dir: &Path) -> PathBuf {
    dir.join("league.db")
}
