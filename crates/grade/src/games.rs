//! The tests made of games: wins from the empty board, and colour-swapped
//! pairs from solver-labelled openings, where a game is held when the
//! student reaches the opening's value for its side; then the protocol
//! compliance and discipline tests, which look at the same engine. A game
//! a reference engine loses by a crash, a stall or its clock is voided and
//! played again, never scored as the student's win.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use anyhow::Result;
use connect4::search::{DEFAULT_HASH_MB, Solver};
use connect4::{Game, MoveList, Player, Rules};

use super::config::{Config, Opponent, Side, Test, Visibility};
use super::report::TestOutcome;
use super::terms::Terms;
use connect4_match::ending::Reason;
use connect4_match::log::GameLine;
use connect4_match::play::{GameRecord, MoveRecord};
use connect4_match::sandbox::Sandbox;
use connect4_match::schedule::{self, Job, Mode, OpeningSource};
use connect4_match::spec::EngineSpec;
use connect4_match::workers::{self, Control, Flags, RunConfig};

/// The `run` of a grading log's lines.
pub const RUN: &str = "grade";

/// The value of each opening for the side to move after it (1 win, 0
/// draw, -1 loss), from the solver (the book answers 2-ply openings at
/// once).
fn opening_values(openings: &[MoveList]) -> HashMap<MoveList, i32> {
    let mut solver = Solver::new(DEFAULT_HASH_MB);
    openings
        .iter()
        .map(|o| {
            let game = Game::from_moves(Rules::STANDARD, o).expect("openings are checked");
            (o.clone(), solver.solve_weak(game.position()))
        })
        .collect()
}

/// The points engine 0 is due in a game of `job` under perfect play from
/// its opening, whose value for the side to move after it is `value`.
fn due(job: &Job, value: i32) -> f64 {
    let to_move_first = job.opening.len().is_multiple_of(2);
    let engine0_first = job.first == 0;
    let v = if to_move_first == engine0_first {
        value
    } else {
        -value
    };
    f64::from(v.signum() + 1) / 2.0
}

/// Forfeits of each test listed in the discipline test (the rest are
/// counted).
const SHOWN_FORFEITS: usize = 5;

/// Times a game voided by a reference engine's failure is played again.
const REPLAYS: usize = 2;

/// Whether the reference engine (engine 1) lost `r` by a crash, a stall or
/// its clock: a reference does none of these on its own (a built-in one
/// never; the instructor's own is trusted not to).
fn reference_failed(job: &Job, r: &GameRecord) -> bool {
    points(job, r) == 1.0 && matches!(r.end.reason, Reason::Crash | Reason::Stall | Reason::Time)
}

/// What happened in a game `opponent`, the reference, lost by its own
/// failure (voided), `replay` or not.
fn voided_game(job: &Job, opponent: &str, r: &GameRecord, replay: bool) -> String {
    format!(
        "game {} ({}): {opponent} lost by {}: {}{}",
        job.game,
        if job.first == 0 {
            "you first"
        } else {
            "you second"
        },
        r.end.reason,
        r.end.detail.as_deref().unwrap_or(""),
        if replay { " (a replay)" } else { "" }
    )
}

/// Points of engine 0 (the student) in a game.
fn points(job: &Job, r: &GameRecord) -> f64 {
    match r.end.winner {
        None => 0.5,
        Some(w) => {
            let engine0 = if job.first == 0 {
                Player::First
            } else {
                Player::Second
            };
            if w == engine0 { 1.0 } else { 0.0 }
        }
    }
}

/// Whether engine 0 (the student) lost `r` by a forfeit.
fn forfeited(job: &Job, r: &GameRecord) -> bool {
    points(job, r) == 0.0 && r.end.reason.is_forfeit()
}

/// The plies engine 0 (the student) played in `r`, an illegal one
/// included: of the engines' plies after the opening, those of its side.
fn student_plies<'a>(job: &Job, r: &'a GameRecord) -> impl Iterator<Item = &'a MoveRecord> {
    let opening = job.opening.len();
    let student_first = job.first == 0;
    r.plies
        .iter()
        .enumerate()
        .filter(move |(i, _)| (opening + i).is_multiple_of(2) == student_first)
        .map(|(_, ply)| ply)
}

/// The moves engine 0 (the student) made in `r` ([`student_plies`]).
fn student_moves(job: &Job, r: &GameRecord) -> usize {
    student_plies(job, r).count()
}

/// The Python checks over `games`: each check and the number of games
/// that failed it, or `None` where nothing could be judged (whether act
/// returns a free column, when act returned no move in any game).
fn python_verdicts(games: &[&(Job, GameRecord)]) -> [(&'static str, Option<usize>); 3] {
    let count = |reasons: &[Reason]| {
        games
            .iter()
            .filter(|(j, r)| forfeited(j, r) && reasons.contains(&r.end.reason))
            .count()
    };
    let moved = games.iter().any(|(j, r)| student_moves(j, r) > 0);
    [
        (
            "act returns a free column (an int from 0 to 6 with board[0][c] == 0)",
            moved.then(|| count(&[Reason::IllegalMove, Reason::Protocol])),
        ),
        (
            "act returns within the time per move",
            Some(count(&[Reason::Time, Reason::Stall])),
        ),
        (
            "your code runs every game to its end without an exception",
            Some(count(&[Reason::Crash])),
        ),
    ]
}

/// The student's moves' times (ms) over `games`, each with the game it was
/// played in (`test`, game number): the median and the slowest, if the
/// student moved at all.
fn move_times<'a>(
    games: impl Iterator<Item = (&'a str, &'a (Job, GameRecord))>,
) -> Option<(f64, f64, String)> {
    let mut times: Vec<(f64, String)> = Vec::new();
    for (test, (job, r)) in games {
        for ply in student_plies(job, r) {
            times.push((ply.time_ms, format!("{test}, game {}", job.game)));
        }
    }
    let mut sorted: Vec<f64> = times.iter().map(|(t, _)| *t).collect();
    sorted.sort_by(f64::total_cmp);
    let median = *sorted.get(sorted.len() / 2)?;
    let (slowest, at) = times.into_iter().max_by(|a, b| a.0.total_cmp(&b.0))?;
    Some((median, slowest, at))
}

/// Games lost on the clock before the student's first move that, making
/// up a whole test, show that every game would end so.
pub const GIVE_UP_AFTER: usize = 3;

/// Whether every game of a test (at least [`GIVE_UP_AFTER`]) was lost by
/// a stall or on time before the student's first move: a `mount()` or an
/// `act()` that outlasts the time per move, which each later game would
/// wait for again.
fn never_moved_in_time(games: &[(Job, GameRecord)]) -> bool {
    games.len() >= GIVE_UP_AFTER
        && games.iter().all(|(j, r)| {
            forfeited(j, r)
                && matches!(r.end.reason, Reason::Stall | Reason::Time)
                && student_moves(j, r) == 0
        })
}

/// Games in a row the student loses by forfeit for one reason before the
/// rest of a test is not played: a policy whose every move stalls would
/// otherwise take minutes per test, past the platform's time limit.
pub const FORFEIT_STREAK: usize = 5;

/// How far a test's output may be seen; a test may speak only of tests seen
/// at least as widely as itself (a visible one of visible ones only).
fn openness(v: Visibility) -> u8 {
    match v {
        Visibility::Visible => 0,
        Visibility::AfterDueDate => 1,
        Visibility::AfterPublished => 2,
        Visibility::Hidden => 3,
    }
}

/// Whether a test seen as `reader` may speak of one seen as `subject`.
pub fn may_speak_of(reader: Visibility, subject: Visibility) -> bool {
    openness(subject) <= openness(reader)
}

/// The games of one test, against one opponent.
pub struct Played {
    /// The test's name.
    test: String,
    /// Who may see the test the games belong to.
    visibility: Visibility,
    opponent: String,
    games: Vec<(Job, GameRecord)>,
    /// Games the reference engine lost by a crash, a stall or its clock,
    /// and that were voided: what happened in each (replays included).
    voided: Vec<String>,
    /// Games left out after every replay was voided too.
    given_up: usize,
    /// Why the test stopped before its last game, if it did.
    stopped: Option<String>,
    /// How the output speaks to the student.
    terms: Terms,
    /// The test's seed (each game's `newgame` seed).
    seed: u64,
}

impl Played {
    /// The games as a game log's lines, numbered from `first_number` on in
    /// the order they were scheduled; the student's engine is `student`.
    pub fn lines(&self, student: &str, first_number: u64) -> Vec<GameLine> {
        let seed = self.seed;
        let name = |engine: usize| {
            if engine == 0 {
                student.to_string()
            } else {
                self.opponent.clone()
            }
        };
        self.games
            .iter()
            .zip(first_number..)
            .map(|((job, record), number)| {
                let run = RUN.to_string();
                let names = (name(job.first), name(job.second));
                let game = record.clone();
                let zero_based = if self.terms == Terms::Python {
                    vec![student.to_string()]
                } else {
                    Vec::new()
                };
                GameLine {
                    game: number,
                    pair: number,
                    test: Some(self.test.clone()),
                    zero_based,
                    ..GameLine::of_game(run, job, names, Rules::STANDARD, game, seed)
                }
            })
            .collect()
    }

    /// What the student should know of voided games: nothing if none.
    fn void_note(&self) -> String {
        if self.voided.is_empty() {
            return String::new();
        }
        let shown: Vec<&str> = self.voided.iter().take(5).map(String::as_str).collect();
        format!(
            "\n{} game(s) voided and replayed because the reference engine {} crashed, \
             stalled or ran out of time (a reference engine does none of these on its own: \
             a submission that signals or starves other processes is suspected){}: {}{}",
            self.voided.len(),
            self.opponent,
            if self.given_up > 0 {
                format!(
                    "; {} game(s) still voided after {REPLAYS} replays are left out",
                    self.given_up
                )
            } else {
                String::new()
            },
            shown.join("; "),
            if self.voided.len() > shown.len() {
                "; ..."
            } else {
                ""
            }
        )
    }

    /// What the student should know of the games it forfeited here: how
    /// many, and the first in full (stderr included); nothing if none.
    fn forfeit_note(&self) -> String {
        let lost = self.forfeits();
        let Some(first) = lost.first() else {
            return self
                .stopped
                .as_ref()
                .map_or(String::new(), |why| format!("\n{why}"));
        };
        // The position the student was asked to move in, as a picture.
        let picture = self
            .games
            .iter()
            .find(|(job, r)| forfeited(job, r))
            .and_then(|(_, r)| Game::from_moves(Rules::STANDARD, &r.moves).ok())
            .map(|g| {
                format!(
                    "\nthe position you were to move in (you are {}):\n{}",
                    self.terms.pieces(g.side_to_move()),
                    self.terms.board(g.position())
                )
            })
            .unwrap_or_default();
        format!(
            "\n{}; the first{}: {first}{picture}{}",
            self.terms.lost_by_forfeit(lost.len()),
            if lost.len() > 1 {
                " (the others are listed in the test of every game)"
            } else {
                ""
            },
            self.stopped
                .as_ref()
                .map_or(String::new(), |why| format!("\n{why}"))
        )
    }

    /// The forfeits engine 0 lost games by, as text naming the opponent.
    fn forfeits(&self) -> Vec<String> {
        self.games
            .iter()
            .filter(|(job, r)| forfeited(job, r))
            .map(|(job, r)| {
                format!(
                    "game {} against {} (moves: {}): {}",
                    job.game,
                    self.opponent,
                    self.terms.moves(r.moves.as_str()),
                    self.terms
                        .failure(r.end.reason, r.end.detail.as_deref().unwrap_or(""))
                )
            })
            .collect()
    }
}

/// The student's forfeits in a row for one reason, as games arrive.
#[derive(Default)]
struct Streak {
    reason: Option<Reason>,
    length: usize,
}

impl Streak {
    /// Counts the game; says whether the streak is now long enough to stop.
    fn add(&mut self, job: &Job, record: &GameRecord) -> bool {
        if forfeited(job, record) {
            let reason = record.end.reason;
            if self.reason == Some(reason) {
                self.length += 1;
            } else {
                (self.reason, self.length) = (Some(reason), 1);
            }
        } else {
            (self.reason, self.length) = (None, 0);
        }
        self.full()
    }

    fn full(&self) -> bool {
        self.length >= FORFEIT_STREAK
    }
}

/// A grading run: the student's engine, the settings, and the games
/// played so far.
pub struct Grader<'a> {
    /// The configuration.
    pub config: &'a Config,
    /// How the student's engine starts.
    pub student: EngineSpec,
    /// Where reference engines run (another user), if isolated.
    pub reference_sandbox: Option<Sandbox>,
    /// The Python that runs the instructor's policies.
    pub python: String,
    /// Time allowed beyond the clock.
    pub margin: Duration,
    /// Games at once.
    pub concurrency: usize,
    /// The games of each test so far.
    pub played: Vec<Played>,
    /// Why no more games are played, once a test's games were all lost on
    /// the clock before the student's first move ([`never_moved_in_time`]):
    /// every later game would end so too, each paying the wait again.
    /// The test's visibility, its name and the forfeits' reason.
    pub gave_up: Option<(Visibility, String, Option<Reason>)>,
    /// The solver that finds the move that lost each game.
    pub judge: connect4::search::verdict::Judge,
    /// How the output speaks to the student.
    pub terms: super::terms::Terms,
}

impl Grader<'_> {
    /// Starts each test's opponent once: a reference that cannot start (a
    /// wrong path, a binary the reference user cannot run) is the
    /// instructor's mistake, said at once, not games voided one by one.
    pub fn check_opponents(&self) -> Result<()> {
        let mut checked = HashSet::new();
        for test in &self.config.tests {
            let Some(opponent) = &test.opponent else {
                continue;
            };
            let spec = self.opponent_spec(test, opponent);
            if !checked.insert(spec.text.clone()) {
                continue;
            }
            connect4_match::process::EngineProcess::check_starts(&spec).map_err(|e| {
                anyhow::anyhow!(
                    "the opponent of test \"{}\" ({}) does not start: {}: {}",
                    test.name,
                    spec.command_line(),
                    e.reason(),
                    e.detail()
                )
            })?;
        }
        Ok(())
    }

    /// How `opponent` starts: random opponents get the test's seed.
    fn opponent_spec(&self, test: &Test, opponent: &Opponent) -> EngineSpec {
        let seeded = match opponent {
            Opponent::Agent(a) if a == "random" => {
                Opponent::Agent(format!("random:seed={}", self.config.test_seed(test)))
            }
            other => other.clone(),
        };
        let mut spec = seeded.spec(&self.python, &self.config.python_path());
        spec.name = opponent.label();
        spec.sandbox = self.reference_sandbox.clone();
        spec
    }

    /// Plays `jobs` between the student (0) and `opponent` (1). A game the
    /// reference engine loses by a crash, a stall or its clock is no result
    /// (a submission may kill or stop it): it is voided and played again,
    /// up to [`REPLAYS`] times, and left out after that.
    /// After [`FORFEIT_STREAK`] forfeits in a row for one reason, the rest
    /// is not played (and counts as lost), and the note says why.
    fn play(&mut self, test: &Test, opponent: &Opponent, jobs: Vec<Job>) {
        let label = opponent.label();
        let scheduled = jobs.len();
        if let Some(why) = self.skipped(test) {
            return self.not_played(test, label, scheduled, why);
        }
        let mut streak = Streak::default();
        let config = RunConfig {
            rules: Rules::STANDARD,
            specs: vec![self.student.clone(), self.opponent_spec(test, opponent)],
            concurrency: self.concurrency,
            margin: self.margin,
            adjudicate: None,
            seed: self.config.test_seed(test),
            stderr_log: None,
            max_move_time: connect4_match::play::MAX_MOVE_TIME,
            debug: None,
            in_progress: None,
            confine: None,
        };
        let mut games = Vec::new();
        let mut voided = Vec::new();
        let mut todo = jobs;
        for round in 0..=REPLAYS {
            let mut again = Vec::new();
            workers::run(&config, todo, &Flags::default(), |job, record| {
                if reference_failed(job, &record) {
                    voided.push(voided_game(job, &label, &record, round > 0));
                    again.push(job.clone());
                    return Control::Continue;
                }
                let full = streak.add(job, &record);
                games.push((job.clone(), record));
                if full {
                    Control::Stop
                } else {
                    Control::Continue
                }
            });
            todo = again;
            if todo.is_empty() || streak.full() {
                break;
            }
        }
        games.sort_by_key(|(j, _)| j.game);
        let stopped = streak.full().then(|| {
            format!(
                "stopped after {FORFEIT_STREAK} games in a row lost by {}; the other {} of \
                 {scheduled} games were not played and count as lost",
                streak
                    .reason
                    .map_or("forfeit".into(), |r| self.terms.reason(r)),
                scheduled - games.len()
            )
        });
        if never_moved_in_time(&games) {
            self.gave_up = Some((test.visibility, test.name.clone(), streak.reason));
        }
        self.played.push(Played {
            test: test.name.clone(),
            visibility: test.visibility,
            opponent: label,
            games,
            voided,
            given_up: if streak.full() { 0 } else { todo.len() },
            stopped,
            terms: self.terms,
            seed: self.config.test_seed(test),
        });
    }

    /// The record of `test`, whose `scheduled` games against `label` are
    /// not played, for the reason `why` ([`Grader::skipped`]).
    fn not_played(&mut self, test: &Test, label: String, scheduled: usize, why: String) {
        eprintln!("grade: {}: not played ({why})", test.name);
        self.played.push(Played {
            test: test.name.clone(),
            visibility: test.visibility,
            opponent: label,
            games: Vec::new(),
            voided: Vec::new(),
            given_up: 0,
            stopped: Some(format!(
                "the {scheduled} games were not played and count as lost: {why}"
            )),
            terms: self.terms,
            seed: self.config.test_seed(test),
        });
    }

    /// Why `test` is not played, if an earlier test's games were all lost
    /// on the clock before the student's first move: that test named
    /// where `test` may speak of it.
    pub fn skipped(&self, test: &Test) -> Option<String> {
        let (visibility, name, reason) = self.gave_up.as_ref()?;
        let which = if may_speak_of(test.visibility, *visibility) {
            format!("in test \"{name}\"")
        } else {
            "in an earlier test".to_string()
        };
        Some(format!(
            "{which} every game was lost before your code's first move ({}), and every game \
             would end so",
            reason.map_or("forfeit".into(), |r| self.terms.reason(r))
        ))
    }

    /// A `wins` test: games from the empty board; the share won.
    pub fn wins(&mut self, test: &Test) -> TestOutcome {
        let opponent = test.opponent.clone().expect("checked: wins tests have one");
        let jobs: Vec<Job> = (0..u64::from(test.games))
            .map(|i| {
                let first = match test.side {
                    Side::First => true,
                    Side::Second => false,
                    Side::Both => i % 2 == 0,
                };
                Job {
                    game: i + 1,
                    pair: i + 1,
                    first: if first { 0 } else { 1 },
                    second: if first { 1 } else { 0 },
                    opening: MoveList::new(),
                }
            })
            .collect();
        eprintln!("grade: {}: {} games", test.name, jobs.len());
        let scheduled = jobs.len();
        self.play(test, &opponent, jobs);
        let played = self.played.last().expect("just played");
        let games = &played.games;
        let wins = games.iter().filter(|(j, r)| points(j, r) == 1.0).count();
        // Voided games count as not won: failing the reference cannot help.
        let n = scheduled.max(1) as f64;
        let pts: f64 = games.iter().map(|(j, r)| points(j, r)).sum::<f64>() + 0.0;
        let rate = wins as f64 / n;
        let not_won: Vec<&(Job, GameRecord)> = games
            .iter()
            .filter(|(j, r)| points(j, r) < 1.0 && !forfeited(j, r))
            .collect();
        let mistakes =
            super::mistakes::note(&mut self.judge, &not_won, &played.opponent, self.terms);
        let output = format!(
            "won {wins} of {scheduled} games ({:.1}%); the bar is {:.1}%{}{}{mistakes}",
            100.0 * rate,
            100.0 * test.pass_rate,
            played.forfeit_note(),
            played.void_note()
        );
        let mut outcome = TestOutcome::new(test, rate, output);
        outcome.wins = Some(rate);
        outcome.points = Some(pts / n);
        outcome
    }

    /// An `openings` test: colour-swapped pairs from random openings the
    /// solver labels; the share held at the opening's value.
    pub fn openings(&mut self, test: &Test) -> Result<TestOutcome> {
        let opponent = test
            .opponent
            .clone()
            .expect("checked: openings tests have one");
        let pairs = test.games.div_ceil(2).max(1) as usize;
        let source = OpeningSource {
            file: None,
            plies: test.plies,
            all: false,
            undecided: None,
            seed: self.config.test_seed(test),
        };
        let openings = schedule::openings(Rules::STANDARD, &source, pairs)?;
        let values = opening_values(&openings);
        let jobs = schedule::schedule(&schedule::pairings(2, Mode::RoundRobin), pairs, &openings);
        eprintln!("grade: {}: {} games", test.name, jobs.len());
        let scheduled = jobs.len();
        self.play(test, &opponent, jobs);
        let played = self.played.last().expect("just played");
        let note = played.forfeit_note() + &played.void_note();
        let games = &played.games;
        // Voided games count as not held: failing the reference cannot help.
        let n = scheduled.max(1) as f64;
        // A forfeit holds nothing, even in an opening that was lost
        // anyway: the student has to play the game out.
        let held = games
            .iter()
            .filter(|(j, r)| !forfeited(j, r) && points(j, r) >= due(j, values[&j.opening]))
            .count();
        // Plus 0.0: an empty sum of floats is -0.0.
        let pts: f64 = games.iter().map(|(j, r)| points(j, r)).sum::<f64>() + 0.0;
        let w = games.iter().filter(|(j, r)| points(j, r) == 1.0).count();
        let d = games.iter().filter(|(j, r)| points(j, r) == 0.5).count();
        let l = games.len() - w - d;
        let not_held: Vec<&(Job, GameRecord)> = games
            .iter()
            .filter(|(j, r)| !forfeited(j, r) && points(j, r) < due(j, values[&j.opening]))
            .collect();
        let mistakes =
            super::mistakes::note(&mut self.judge, &not_held, &played.opponent, self.terms);
        let output = format!(
            "held {held} of {scheduled} colour-swapped games at the opening's value (won \
             a won opening, drew a drawn one, as the solver labels them); +{w} ={d} -{l}, \
             {:.1}% of the points{note}{mistakes}",
            100.0 * pts / n
        );
        let mut outcome = TestOutcome::new(test, held as f64 / n, output);
        outcome.wins = Some(w as f64 / n);
        outcome.points = Some(pts / n);
        Ok(outcome)
    }

    /// A `compliance` test: every check, listed.
    pub fn compliance(&mut self, test: &Test) -> TestOutcome {
        eprintln!("grade: {}", test.name);
        if self.terms == Terms::Python {
            return self.python_checks(test);
        }
        let checks = crate::compliance::checks(&self.student, self.margin);
        let passed = checks.iter().filter(|c| c.passed).count();
        let mut lines: Vec<String> = vec![format!("{passed} of {} checks passed", checks.len())];
        lines.extend(checks.iter().map(|c| {
            format!(
                "{} {}: {}",
                if c.passed { "pass" } else { "FAIL" },
                c.name,
                c.detail
            )
        }));
        lines.extend(
            crate::compliance::advice(&self.student)
                .into_iter()
                .map(|a| format!("advice: {a}")),
        );
        TestOutcome::new(
            test,
            passed as f64 / checks.len().max(1) as f64,
            lines.join("\n"),
        )
    }

    /// A `compliance` test for Python code, whose protocol the bridge
    /// speaks: the checks a student can act on, from the games of the
    /// tests it may speak of (or, if there are none, from 4 games against
    /// random played for it).
    fn python_checks(&mut self, test: &Test) -> TestOutcome {
        if !self
            .played
            .iter()
            .any(|p| may_speak_of(test.visibility, p.visibility))
        {
            let jobs = (0..4)
                .map(|i| Job {
                    game: i + 1,
                    pair: i / 2 + 1,
                    first: (i % 2) as usize,
                    second: 1 - (i % 2) as usize,
                    opening: MoveList::new(),
                })
                .collect();
            self.play(test, &Opponent::Agent("random".into()), jobs);
        }
        let games: Vec<&(Job, GameRecord)> = self
            .played
            .iter()
            .filter(|p| may_speak_of(test.visibility, p.visibility))
            .flat_map(|p| p.games.iter())
            .collect();
        let checks = python_verdicts(&games);
        let passed = checks
            .iter()
            .filter(|(_, failed)| *failed == Some(0))
            .count();
        let mut lines = vec![format!(
            "{passed} of {} checks passed, over {} games",
            checks.len(),
            games.len()
        )];
        for (check, failed) in checks {
            lines.push(match failed {
                Some(0) => format!("pass: {check}"),
                Some(failed) => format!(
                    "FAIL: {check}: not in {failed} game(s) (listed in the test of every game)"
                ),
                None => format!(
                    "FAIL: {check}: not judged, since act returned no move in any of the {} \
                     games",
                    games.len()
                ),
            });
        }
        lines.push(
            "print() is harmless: what your code prints goes to the grader's log, never into \
             the game"
                .into(),
        );
        TestOutcome::new(test, passed as f64 / checks.len() as f64, lines.join("\n"))
    }

    /// A `discipline` test: no forfeit in any game played, tactics
    /// included, of the tests it may speak of (a visible discipline test
    /// counts the visible tests' games only: hidden tests stay hidden).
    pub fn discipline(&self, test: &Test, tactic_forfeits: &[(Visibility, String)]) -> TestOutcome {
        let seen: Vec<&Played> = self
            .played
            .iter()
            .filter(|p| may_speak_of(test.visibility, p.visibility))
            .collect();
        // Each test's lost games under its name, the first of each shown:
        // a test's pointer here always finds its own.
        let mut groups: Vec<(String, Vec<String>)> = seen
            .iter()
            .map(|p| (p.test.clone(), p.forfeits()))
            .collect();
        groups.push((
            "Tactical positions".to_string(),
            tactic_forfeits
                .iter()
                .filter(|(v, _)| may_speak_of(test.visibility, *v))
                .map(|(_, f)| f.clone())
                .collect(),
        ));
        groups.retain(|(_, lost)| !lost.is_empty());
        let lost: usize = groups.iter().map(|(_, l)| l.len()).sum();
        let games: usize = seen.iter().map(|p| p.games.len()).sum();
        let output = if lost == 0 {
            format!(
                "{} in {games} games and the tactical positions",
                self.terms.no_forfeit()
            )
        } else {
            let mut text = format!("{}:", self.terms.lost_by_forfeit(lost));
            for (name, games) in &groups {
                text.push_str(&format!("\n{name}: {}", games.len()));
                for line in games.iter().take(SHOWN_FORFEITS) {
                    text.push('\n');
                    text.push_str(line);
                }
                if games.len() > SHOWN_FORFEITS {
                    let more = games.len() - SHOWN_FORFEITS;
                    text.push_str(&format!("\n... and {more} more in this test"));
                }
            }
            text
        };
        let all = seen
            .iter()
            .flat_map(|p| p.games.iter().map(|g| (p.test.as_str(), g)));
        let times = move_times(all).map_or(String::new(), |(median, slowest, at)| {
            let allowed = self
                .student
                .movetime_ms
                .map_or(String::new(), |ms| format!(", of the {ms} ms per move"));
            format!(
                "\nyour moves took {median:.0} ms at the median and {slowest:.0} ms at the \
                 slowest ({at}){allowed}"
            )
        });
        TestOutcome::new(test, f64::from(u8::from(lost == 0)), output + &times)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use connect4::protocol::messages::WireScore;
    use connect4_match::ending::GameEnd;

    fn job(first: usize, opening: &str) -> Job {
        Job {
            game: 1,
            pair: 1,
            first,
            second: 1 - first,
            opening: opening.parse().unwrap(),
        }
    }

    /// A game of `job` whose engines played `plies` after the opening and
    /// which ended as `end`.
    fn game(job: &Job, plies: &str, end: GameEnd) -> (Job, GameRecord) {
        let ply = |c: char| MoveRecord {
            column: c.to_digit(10).unwrap(),
            time_ms: 1.0,
            nodes: 0,
            depth: 0,
            score: WireScore::default(),
        };
        let moves = format!("{}{plies}", job.opening).parse().unwrap();
        let record = GameRecord {
            moves,
            end,
            plies: plies.chars().map(ply).collect(),
        };
        (job.clone(), record)
    }

    #[test]
    fn a_free_column_is_not_passed_when_act_never_returned() {
        // Issue #75, item 1: a mount() that outlasts the time per move
        // stalls every game before the student's first move.
        let first = game(
            &job(0, ""),
            "",
            GameEnd::forfeit(Player::First, Reason::Stall, "no bestmove".into()),
        );
        let stalled = [&first];
        let verdicts = python_verdicts(&stalled);
        assert_eq!(verdicts[0].1, None, "{verdicts:?}");
        assert_eq!(verdicts[1].1, Some(1), "{verdicts:?}");
        // The student second: the opponent's move is not the student's.
        let second = game(
            &job(1, ""),
            "4",
            GameEnd::forfeit(Player::Second, Reason::Stall, "no bestmove".into()),
        );
        assert_eq!(python_verdicts(&[&second])[0].1, None);
        // One move made, then a stall: the free-column check is judged.
        let moved = game(
            &job(0, ""),
            "45",
            GameEnd::forfeit(Player::First, Reason::Stall, "no bestmove".into()),
        );
        assert_eq!(python_verdicts(&[&first, &moved])[0].1, Some(0));
    }

    #[test]
    fn the_student_s_move_times_are_its_own_with_the_slowest_named() {
        // Issue #75, item 5: how close to the clock a student is.
        let end = GameEnd::forfeit(Player::Second, Reason::Crash, String::new());
        let mut first = game(&job(0, ""), "4455", end.clone());
        let mut second = game(&job(1, "4"), "455", end);
        for (record, times) in [
            (&mut first.1, [10.0, 900.0, 30.0, 900.0]),
            (&mut second.1, [5.0, 70.0, 5.0, 0.0]),
        ] {
            for (ply, t) in record.plies.iter_mut().zip(times) {
                ply.time_ms = t;
            }
        }
        second.0.game = 2;
        // The student's plies: 1st and 3rd of game 1; after a 1-ply
        // opening, playing second, the 1st and 3rd of game 2.
        let (median, slowest, at) =
            move_times([("wins", &first), ("openings", &second)].into_iter()).unwrap();
        assert_eq!((median, slowest), (10.0, 30.0));
        assert_eq!(at, "wins, game 1");
        assert!(move_times(std::iter::empty()).is_none());
    }

    #[test]
    fn the_points_due_follow_the_opening_s_value_and_the_colours() {
        // After 2 plies the first player moves: a won opening is due 1
        // point to engine 0 playing first, none playing second.
        assert_eq!(due(&job(0, "44"), 1), 1.0);
        assert_eq!(due(&job(1, "44"), 1), 0.0);
        assert_eq!(due(&job(0, "44"), 0), 0.5);
        assert_eq!(due(&job(1, "44"), -1), 1.0);
        // After 1 ply the second player moves.
        assert_eq!(due(&job(1, "4"), 1), 1.0);
        assert_eq!(due(&job(0, "4"), 1), 0.0);
    }
}
