//! `grade`: the checks a course autograder runs on a student's engine, with
//! Gradescope's `results.json` (a top-level score and output, and a `tests`
//! list with name, score, max_score, status and output for each).
//!
//! | test | points |
//! |---|---|
//! | wins as first player against `random` (pass at `--pass-rate`) | 20 |
//! | wins as second player against `random` (pass at `--pass-rate`) | 20 |
//! | openings held against `greedy`: colour-swapped pairs from 2-ply openings the solver labels; a game is held when it ends at least at the opening's value for the engine (a won opening won, a drawn one drawn) | 15 |
//! | openings held against `alphabeta:depth=4`, likewise | 15 |
//! | tactics from solved positions: win in one, block the only threat, convert a proven win within its distance | 15 |
//! | protocol compliance (the `compliance` checks) | 10 |
//! | time discipline: no forfeit in any game above | 5 |

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use connect4::score::end_ply;
use connect4::search::{DEFAULT_HASH_MB, Solver};
use connect4::{Game, Player, Position, Rules, Status};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::ending::Reason;
use crate::play::{GameRecord, Seat};
use crate::schedule::{self, Job, Mode, OpeningSource};
use crate::spec::EngineSpec;
use crate::workers::{self, Control, Flags, RunConfig};

/// Arguments of `grade`.
#[derive(clap::Args)]
pub struct Args {
    /// The engine to grade (see below).
    #[arg(long)]
    pub engine: EngineSpec,
    /// Where to write Gradescope's results.
    #[arg(long, default_value = "results.json")]
    pub results: PathBuf,
    /// Games against random on each side.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..))]
    pub games: u32,
    /// Share of wins against random needed on each side.
    #[arg(long, default_value_t = 0.95)]
    pub pass_rate: f64,
    /// Games against greedy and against alphabeta:depth=4 (colour-swapped
    /// pairs from random 2-ply openings).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    pub match_games: u32,
    /// Tactical positions of each kind.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    pub tactics: u32,
    /// Seed of the openings, the positions and the opponents.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Games played at once (default: the number of cores).
    #[arg(long, value_parser = crate::run::at_least_one)]
    pub concurrency: Option<usize>,
    /// Time an engine may take beyond its movetime or clock (ms).
    #[arg(long, default_value_t = 200)]
    pub time_margin: u64,
}

/// One Gradescope test.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TestResult {
    /// What was tested.
    pub name: String,
    /// Points earned.
    pub score: f64,
    /// Points possible.
    pub max_score: f64,
    /// `passed` or `failed`.
    pub status: String,
    /// What happened, for the student.
    pub output: String,
}

impl TestResult {
    fn new(name: &str, max: f64, fraction: f64, passed: bool, output: String) -> TestResult {
        TestResult {
            name: name.into(),
            score: (max * fraction.clamp(0.0, 1.0) * 100.0).round() / 100.0,
            max_score: max,
            status: if passed { "passed" } else { "failed" }.into(),
            output,
        }
    }
}

/// Gradescope's results file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GradescopeResults {
    /// The total: the sum of the tests' scores.
    pub score: f64,
    /// A summary line.
    pub output: String,
    /// How Gradescope renders `output` (`md`: markdown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_format: Option<String>,
    /// How Gradescope renders each test's output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_output_format: Option<String>,
    /// Each test.
    pub tests: Vec<TestResult>,
}

/// A reference opponent: this binary's engine as the given agent.
fn reference(agent: &str) -> EngineSpec {
    format!("name={agent},cmd=self,movetime=2000,option.agent='{agent}'")
        .parse()
        .expect("a valid built-in spec")
}

/// The value of each opening for the side to move after it (1 win, 0
/// draw, -1 loss), from the solver (the book answers 2-ply openings at
/// once).
fn opening_values(openings: &[String]) -> HashMap<String, i32> {
    let mut solver = Solver::new(DEFAULT_HASH_MB);
    openings
        .iter()
        .map(|o| {
            let game = Game::from_move_string(Rules::STANDARD, o).expect("openings are checked");
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

/// Points of engine 0 in a game.
/// Times a game voided by a reference engine's failure is played again.
const REPLAYS: usize = 2;

/// Whether the reference engine (engine 1) lost `r` by a crash, a stall or
/// its clock: a built-in reference does none of these on its own.
fn reference_failed(job: &Job, r: &GameRecord) -> bool {
    points(job, r) == 1.0 && matches!(r.end.reason, Reason::Crash | Reason::Stall | Reason::Time)
}

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

/// The games of one test, against one opponent.
struct Played {
    opponent: String,
    games: Vec<(Job, GameRecord)>,
    /// Games the reference engine lost by a crash, a stall or its clock,
    /// and that were voided: what happened in each (replays included).
    voided: Vec<String>,
    /// Games left out after every replay was voided too.
    given_up: usize,
}

impl Played {
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
        match lost.first() {
            None => String::new(),
            Some(first) => format!(
                "\n{} game(s) lost by forfeit; the first: {first}{}",
                lost.len(),
                if lost.len() > 1 {
                    " (the others are listed under time and protocol discipline)"
                } else {
                    ""
                }
            ),
        }
    }

    /// The forfeits engine 0 lost games by, as text naming the opponent.
    fn forfeits(&self) -> Vec<String> {
        self.games
            .iter()
            .filter(|(job, r)| points(job, r) == 0.0 && r.end.reason.is_forfeit())
            .map(|(job, r)| {
                format!(
                    "game {} against {} (moves {}): {}{}",
                    job.game,
                    self.opponent,
                    if r.moves.is_empty() { "none" } else { &r.moves },
                    r.end.reason,
                    r.end
                        .detail
                        .as_ref()
                        .map_or(String::new(), |d| format!(": {d}"))
                )
            })
            .collect()
    }
}

/// A grading run: the engine, the settings, and the games played so far.
struct Grader<'a> {
    args: &'a Args,
    engine: EngineSpec,
    margin: Duration,
    concurrency: usize,
    played: Vec<Played>,
}

impl Grader<'_> {
    /// Plays `jobs` between the engine (0) and `opponent` (1). A game the
    /// reference engine loses by a crash, a stall or its clock is no result
    /// (a submission may kill or stop it): it is voided and played again,
    /// up to [`REPLAYS`] times, and left out after that.
    fn play(&mut self, opponent: &str, jobs: Vec<Job>) -> &Played {
        let config = RunConfig {
            rules: Rules::STANDARD,
            specs: vec![self.engine.clone(), reference(opponent)],
            concurrency: self.concurrency,
            margin: self.margin,
            adjudicate: None,
            seed: self.args.seed,
            stderr_log: None,
            max_move_time: crate::play::MAX_MOVE_TIME,
            debug: None,
        };
        let mut games = Vec::new();
        let mut voided = Vec::new();
        let mut todo = jobs;
        for round in 0..=REPLAYS {
            let mut again = Vec::new();
            workers::run(&config, todo, &Flags::default(), |job, record| {
                if reference_failed(job, &record) {
                    voided.push(format!(
                        "game {} ({}): {} lost by {}: {}{}",
                        job.game,
                        if job.first == 0 {
                            "you first"
                        } else {
                            "you second"
                        },
                        opponent,
                        record.end.reason,
                        record.end.detail.as_deref().unwrap_or(""),
                        if round == 0 { "" } else { " (a replay)" }
                    ));
                    again.push(job.clone());
                } else {
                    games.push((job.clone(), record));
                }
                Control::Continue
            });
            todo = again;
            if todo.is_empty() {
                break;
            }
        }
        games.sort_by_key(|(j, _)| j.game);
        self.played.push(Played {
            opponent: opponent.to_string(),
            games,
            voided,
            given_up: todo.len(),
        });
        self.played.last().expect("just pushed")
    }

    /// Tests 1 and 2: wins against random from the empty board, as each
    /// colour.
    fn against_random(&mut self) -> Vec<TestResult> {
        let random = format!("random:seed={}", self.args.seed);
        let mut tests = Vec::new();
        for (side, first) in [("first", true), ("second", false)] {
            let jobs: Vec<Job> = (0..u64::from(self.args.games))
                .map(|i| Job {
                    game: i + 1,
                    pair: i + 1,
                    first: if first { 0 } else { 1 },
                    second: if first { 1 } else { 0 },
                    opening: String::new(),
                })
                .collect();
            eprintln!(
                "grade: {} games as {side} player against {random}",
                jobs.len()
            );
            let pass_rate = self.args.pass_rate;
            let scheduled = jobs.len();
            let played = self.play(&random, jobs);
            let games = &played.games;
            let wins = games.iter().filter(|(j, r)| points(j, r) == 1.0).count();
            // Voided games count as not won: failing the reference cannot help.
            let rate = wins as f64 / scheduled.max(1) as f64;
            let passed = rate >= pass_rate;
            tests.push(TestResult::new(
                &format!("Wins as {side} player against random"),
                20.0,
                if passed { 1.0 } else { 0.0 },
                passed,
                format!(
                    "won {wins} of {scheduled} games ({:.1}%); the bar is {:.1}%{}{}",
                    100.0 * rate,
                    100.0 * pass_rate,
                    played.forfeit_note(),
                    played.void_note()
                ),
            ));
        }
        tests
    }

    /// Tests 3 and 4: colour-swapped matches from random 2-ply openings.
    fn matches(&mut self) -> Result<Vec<TestResult>> {
        let pairs = self.args.match_games.div_ceil(2).max(1) as usize;
        let source = OpeningSource {
            file: None,
            plies: 2,
            all: false,
            undecided: None,
            seed: self.args.seed,
        };
        let openings = schedule::openings(Rules::STANDARD, &source, pairs)?;
        let values = opening_values(&openings);
        let mut tests = Vec::new();
        for opponent in ["greedy", "alphabeta:depth=4"] {
            let jobs =
                schedule::schedule(&schedule::pairings(2, Mode::RoundRobin), pairs, &openings);
            eprintln!("grade: {} games against {opponent}", jobs.len());
            let scheduled = jobs.len();
            let played = self.play(opponent, jobs);
            let note = played.forfeit_note() + &played.void_note();
            let games = &played.games;
            // Voided games count as not held: failing the reference cannot help.
            let n = scheduled.max(1) as f64;
            // A forfeit holds nothing, even in an opening that was lost
            // anyway: the student has to play the game out.
            let held = games
                .iter()
                .filter(|(j, r)| {
                    let forfeited = points(j, r) == 0.0 && r.end.reason.is_forfeit();
                    !forfeited && points(j, r) >= due(j, values[&j.opening])
                })
                .count();
            // Plus 0.0: an empty sum of floats is -0.0.
            let pts: f64 = games.iter().map(|(j, r)| points(j, r)).sum::<f64>() + 0.0;
            let w = games.iter().filter(|(j, r)| points(j, r) == 1.0).count();
            let d = games.iter().filter(|(j, r)| points(j, r) == 0.5).count();
            let l = games.len() - w - d;
            tests.push(TestResult::new(
                &format!("Openings held against {opponent}"),
                15.0,
                held as f64 / n,
                held as f64 / n >= 0.5,
                format!(
                    "held {held} of {scheduled} colour-swapped games at the opening's value (won \
                     a won opening, drew a drawn one, as the solver labels them); +{w} ={d} -{l}, \
                     {:.1}% of the points{note}",
                    100.0 * pts / n
                ),
            ));
        }
        Ok(tests)
    }

    /// Test 6: every compliance check, listed.
    fn compliance(&self) -> TestResult {
        eprintln!("grade: protocol compliance");
        let checks = crate::compliance::checks(&self.engine, self.margin);
        let passed = checks.iter().filter(|c| c.passed).count();
        let mut lines: Vec<String> = checks
            .iter()
            .map(|c| {
                format!(
                    "{} {}: {}",
                    if c.passed { "pass" } else { "FAIL" },
                    c.name,
                    c.detail
                )
            })
            .collect();
        lines.extend(
            crate::compliance::advice(&self.engine)
                .into_iter()
                .map(|a| format!("advice: {a}")),
        );
        TestResult::new(
            "Protocol compliance",
            10.0,
            passed as f64 / checks.len() as f64,
            passed == checks.len(),
            lines.join("\n"),
        )
    }

    /// Test 7: no forfeit in any game played, tactics included.
    fn discipline(&self, tactic_forfeits: Vec<String>) -> TestResult {
        let mut lost: Vec<String> = self.played.iter().flat_map(Played::forfeits).collect();
        lost.extend(tactic_forfeits);
        let games: usize = self.played.iter().map(|p| p.games.len()).sum();
        TestResult::new(
            "Time and protocol discipline in every game",
            5.0,
            if lost.is_empty() { 1.0 } else { 0.0 },
            lost.is_empty(),
            if lost.is_empty() {
                format!("no forfeit in {games} games and the tactical positions")
            } else {
                format!("{} forfeits:\n{}", lost.len(), lost.join("\n"))
            },
        )
    }
}

/// Runs the grading and writes the results. If grading fails part way, the
/// results file still holds valid JSON: no points, and what went wrong, so
/// that Gradescope shows the student a message and not a missing file.
pub fn run(args: &Args) -> Result<ExitCode> {
    match grade(args) {
        Ok((name, tests)) => {
            write_results(&name, tests, &args.results)?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            let failed = GradescopeResults {
                score: 0.0,
                output: markdown(&format!(
                    "The grader could not finish: {e:#}. Please tell your instructor."
                )),
                output_format: Some("md".into()),
                test_output_format: None,
                tests: Vec::new(),
            };
            let text = serde_json::to_string_pretty(&failed).expect("results serialise") + "\n";
            connect4::atomic_file::write(&args.results, text)
                .with_context(|| format!("writing {}", args.results.display()))?;
            Err(e)
        }
    }
}

/// Grades: the engine's name and the tests.
fn grade(args: &Args) -> Result<(String, Vec<TestResult>)> {
    let mut engine = args.engine.clone();
    if engine.name == "random" || engine.name.starts_with("random:") {
        engine.name = format!("{} (graded)", engine.name);
    }
    if !(0.0..=1.0).contains(&args.pass_rate) {
        anyhow::bail!("--pass-rate {}: expected 0 to 1", args.pass_rate);
    }
    let margin = Duration::from_millis(args.time_margin);
    let mut grader = Grader {
        args,
        engine,
        margin,
        concurrency: args
            .concurrency
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        played: Vec::new(),
    };
    let mut tests = grader.against_random();
    tests.extend(grader.matches()?);
    eprintln!("grade: tactical positions");
    let tactics = tactics(&grader.engine, margin, args.tactics, args.seed);
    tests.push(TestResult::new(
        "Tactics from solved positions",
        15.0,
        tactics.fraction(),
        tactics.passed == tactics.total,
        tactics.output(),
    ));
    tests.push(grader.compliance());
    tests.push(grader.discipline(tactics.forfeits));
    Ok((grader.engine.name.clone(), tests))
}

/// A test's text as markdown: its first line a paragraph, each further line
/// an item of a list, ```` ``` ```` blocks (positions) kept as they are, and
/// the characters markdown would read as formatting escaped (a traceback's
/// `__init__` stays as it is).
fn markdown(text: &str) -> String {
    let escape = |line: &str| {
        line.chars().fold(String::new(), |mut out, ch| {
            if "\\`*_[]<>#|".contains(ch) {
                out.push('\\');
            }
            out.push(ch);
            out
        })
    };
    let mut out = String::new();
    let mut in_block = false;
    for (i, line) in text.lines().enumerate() {
        if line.starts_with("```") {
            in_block = !in_block;
            out.push_str(line);
        } else if in_block {
            out.push_str(line);
        } else if i == 0 {
            out.push_str(&escape(line));
            out.push('\n');
        } else {
            out.push_str("- ");
            out.push_str(&escape(line));
        }
        out.push('\n');
    }
    out.trim_end().to_string()
}

/// Prints the tests and writes them as Gradescope's results file.
fn write_results(name: &str, tests: Vec<TestResult>, path: &std::path::Path) -> Result<()> {
    let score: f64 = tests.iter().map(|t| t.score).sum();
    let max: f64 = tests.iter().map(|t| t.max_score).sum();
    for t in &tests {
        println!(
            "{:>6.2} / {:<3} {}: {}",
            t.score,
            t.max_score,
            t.name,
            t.output.lines().next().unwrap_or("")
        );
    }
    println!("total {score:.2} / {max}");
    let results = GradescopeResults {
        score: (score * 100.0).round() / 100.0,
        output: markdown(&format!("{name} graded: {score:.2} of {max} points")),
        output_format: Some("md".into()),
        test_output_format: Some("md".into()),
        tests: tests
            .into_iter()
            .map(|t| TestResult {
                output: markdown(&t.output),
                ..t
            })
            .collect(),
    };
    let text = serde_json::to_string_pretty(&results).expect("results serialise") + "\n";
    // Whole or not at all: Gradescope reads whatever is there at the end.
    connect4::atomic_file::write(path, text)
        .with_context(|| format!("writing {}", path.display()))?;
    println!("wrote {}", path.display());
    Ok(())
}

/// Random positions of a kind, reproducible from `seed`.
fn positions(count: u32, seed: u64, want: impl Fn(&Position) -> bool) -> Vec<Game> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::new();
    let mut tries = 0;
    while out.len() < count as usize && tries < 100_000 {
        tries += 1;
        let mut g = Game::new(Rules::STANDARD);
        let plies = rng.random_range(6..30);
        for _ in 0..plies {
            let p = g.position();
            // Random moves that do not end the game or hand over a win at
            // once, so positions stay natural.
            let safe = p.non_losing_moves();
            let moves: Vec<u32> = p
                .legal_moves()
                .into_iter()
                .filter(|&c| !p.is_winning_move(c) && (safe == 0 || safe & p.column_mask(c) != 0))
                .collect();
            if moves.is_empty() {
                break;
            }
            g.play(i64::from(moves[rng.random_range(0..moves.len())]) + 1)
                .expect("legal");
        }
        if !g.position().is_over() && want(g.position()) {
            out.push(g);
        }
    }
    out
}

/// What the tactical positions gave.
#[derive(Default)]
struct Tactics {
    passed: u32,
    total: u32,
    /// One line per position missed.
    misses: Vec<String>,
    /// One line per forfeit.
    forfeits: Vec<String>,
}

impl Tactics {
    fn fraction(&self) -> f64 {
        f64::from(self.passed) / f64::from(self.total.max(1))
    }

    fn output(&self) -> String {
        let mut output = format!(
            "{} of {} positions (win in one, block, convert a proven win)",
            self.passed, self.total
        );
        for l in &self.misses {
            output.push('\n');
            output.push_str(l);
        }
        output
    }

    /// Counts one position: passed, or missed with `why`, which is shown
    /// with a picture of the position (X moved first).
    fn count(&mut self, position: &Position, verdict: Result<(), String>) {
        self.total += 1;
        match verdict {
            Ok(()) => self.passed += 1,
            Err(why) => self.misses.push(format!(
                "{why}, in this position ({} to move):\n```\n{}```",
                if position.side_to_move() == Player::First {
                    "X"
                } else {
                    "O"
                },
                connect4::grid::to_ascii(position)
            )),
        }
    }
}

/// The graded engine, asked for single moves in set positions.
struct TacticSeat<'a> {
    seat: Seat,
    engine: &'a EngineSpec,
    seed: u64,
}

impl TacticSeat<'_> {
    /// The engine's move (1-based column) in `g`, or `None` after a forfeit
    /// (recorded in `forfeits`).
    fn ask(&mut self, g: &Game, forfeits: &mut Vec<String>) -> Option<u32> {
        let result = self
            .seat
            .new_game(Rules::STANDARD, self.seed)
            .and_then(|()| self.seat.best_move(g, self.engine.clock));
        match result {
            Ok((m, _)) => Some(m.column),
            Err(e) => {
                forfeits.push(format!(
                    "tactical position {}: {}: {}",
                    g.move_string(),
                    e.reason(),
                    e.detail()
                ));
                None
            }
        }
    }
}

/// A move as text: the column, or "nothing" after a forfeit.
fn played(c: Option<u32>) -> String {
    c.map_or("nothing (forfeit)".into(), |c| format!("column {c}"))
}

/// Plays the tactical positions of each kind.
fn tactics(engine: &EngineSpec, margin: Duration, count: u32, seed: u64) -> Tactics {
    let mut seat = TacticSeat {
        seat: Seat::new(engine.clone(), margin),
        engine,
        seed,
    };
    let mut t = Tactics::default();
    win_in_one(&mut seat, &mut t, count, seed);
    block(&mut seat, &mut t, count, seed + 1);
    convert(&mut seat, &mut t, count, seed + 2);
    t
}

/// Positions with a win at once: the engine must take one.
fn win_in_one(seat: &mut TacticSeat, t: &mut Tactics, count: u32, seed: u64) {
    for g in positions(count, seed, |p| p.winning_moves() != 0) {
        let c = seat.ask(&g, &mut t.forfeits);
        let ok = c.is_some_and(|c| (1..=7).contains(&c) && g.position().is_winning_move(c - 1));
        t.count(
            g.position(),
            if ok {
                Ok(())
            } else {
                Err(format!(
                    "win in one after {}: played {}",
                    g.move_string(),
                    played(c)
                ))
            },
        );
    }
}

/// Positions with one move that stops the opponent's win: the engine must
/// play it.
fn block(seat: &mut TacticSeat, t: &mut Tactics, count: u32, seed: u64) {
    for g in positions(count, seed, |p| {
        p.winning_moves() == 0
            && p.opponent_winning_cells() & p.possible() != 0
            && p.non_losing_moves().count_ones() == 1
    }) {
        let p = *g.position();
        let block = (0..7)
            .find(|&c| p.non_losing_moves() & p.column_mask(c) != 0)
            .expect("one");
        let c = seat.ask(&g, &mut t.forfeits);
        t.count(
            &p,
            if c == Some(block + 1) {
                Ok(())
            } else {
                Err(format!(
                    "block after {}: played {}, the block is column {}",
                    g.move_string(),
                    played(c),
                    block + 1
                ))
            },
        );
    }
}

/// Proven wins within 11 plies: the engine must win by the ply perfect play
/// reaches, against the solver's longest defence.
fn convert(seat: &mut TacticSeat, t: &mut Tactics, count: u32, seed: u64) {
    let mut solver = Solver::new(DEFAULT_HASH_MB);
    let mut conversions = 0;
    for g in positions(20 * count, seed, |p| {
        p.empty_cells() <= 22 && p.winning_moves() == 0
    }) {
        if conversions == count {
            break;
        }
        let p = *g.position();
        let score = solver.solve(&p);
        let Some(end) = end_ply(&p, score).filter(|_| score > 0) else {
            continue;
        };
        if end - p.moves_played() > 11 {
            continue;
        }
        conversions += 1;
        let verdict = play_out_win(seat, &mut solver, &g, end, &mut t.forfeits);
        t.count(
            &p,
            verdict.map_err(|why| {
                format!(
                    "convert the win after {} within ply {end}: {why}",
                    g.move_string()
                )
            }),
        );
    }
}

/// Plays from `g` (a win for the side to move, the engine) against the
/// solver's longest defence; `Ok` if the engine wins by ply `end`.
fn play_out_win(
    seat: &mut TacticSeat,
    solver: &mut Solver,
    g: &Game,
    end: u32,
    forfeits: &mut Vec<String>,
) -> Result<(), String> {
    let engine_side = g.side_to_move();
    let mut game = g.clone();
    loop {
        match game.status() {
            Status::Won(w) if w == engine_side => {
                return if game.moves().len() as u32 <= end {
                    Ok(())
                } else {
                    Err(format!(
                        "won at ply {} instead of {end}",
                        game.moves().len()
                    ))
                };
            }
            Status::Won(_) | Status::Draw => {
                return Err(format!("did not win: {}", game.move_string()));
            }
            Status::Ongoing => {}
        }
        let column = if game.side_to_move() == engine_side {
            seat.ask(&game, forfeits).ok_or("forfeited")?
        } else {
            // The defender delays the loss as long as it can.
            let best = solver
                .analyze(game.position())
                .into_iter()
                .enumerate()
                .filter_map(|(c, s)| s.map(|s| (c, s)))
                .max_by_key(|&(_, s)| s)
                .map(|(c, _)| c as u32)
                .expect("a legal move");
            best + 1
        };
        game.play(i64::from(column))
            .map_err(|e| format!("illegal move: {e}"))?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(first: usize, opening: &str) -> Job {
        Job {
            game: 1,
            pair: 1,
            first,
            second: 1 - first,
            opening: opening.into(),
        }
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

    #[test]
    fn outputs_become_markdown_with_positions_kept_and_formatting_escaped() {
        let text = "won 0 of 2 games\nFile \"__init__.py\", line *7*\nblock after 44: played 3, in this position (X to move):\n```\nX . .\n1 2 3\n```";
        assert_eq!(
            markdown(text),
            "won 0 of 2 games\n\n- File \"\\_\\_init\\_\\_.py\", line \\*7\\*\n- block after 44: played 3, in this position (X to move):\n```\nX . .\n1 2 3\n```"
        );
    }
}
