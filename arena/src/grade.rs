//! `grade`: the checks a course autograder runs on a student's engine, with
//! Gradescope's `results.json` (a top-level score and output, and a `tests`
//! list with name, score, max_score, status and output for each).
//!
//! | test | points |
//! |---|---|
//! | wins as first player against `random` (pass at `--pass-rate`) | 20 |
//! | wins as second player against `random` (pass at `--pass-rate`) | 20 |
//! | score against `greedy`, colour-swapped pairs | 15 |
//! | score against `alphabeta:depth=4`, colour-swapped pairs | 15 |
//! | tactics from solved positions: win in one, block the only threat, convert a proven win within its distance | 15 |
//! | protocol compliance (the `compliance` checks) | 10 |
//! | time discipline: no forfeit in any game above | 5 |

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use connect4::search::Solver;
use connect4::search::score::end_ply;
use connect4::{Game, Player, Position, Rules, Status};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use serde::Serialize;

use crate::play::{FORFEITS, GameRecord, Seat};
use crate::runner::{self, Control, Flags, RunConfig};
use crate::schedule::{self, Job, Mode, OpeningSource};
use crate::spec::EngineSpec;

/// Arguments of `grade`.
#[derive(clap::Args)]
pub struct Args {
    /// The engine to grade (see below).
    #[arg(long)]
    pub engine: String,
    /// Where to write Gradescope's results.
    #[arg(long, default_value = "results.json")]
    pub results: PathBuf,
    /// Games against random on each side.
    #[arg(long, default_value_t = 100)]
    pub games: u32,
    /// Share of wins against random needed on each side.
    #[arg(long, default_value_t = 0.95)]
    pub pass_rate: f64,
    /// Games against greedy and against alphabeta:depth=4 (colour-swapped
    /// pairs from random 2-ply openings).
    #[arg(long, default_value_t = 20)]
    pub match_games: u32,
    /// Tactical positions of each kind.
    #[arg(long, default_value_t = 10)]
    pub tactics: u32,
    /// Seed of the openings, the positions and the opponents.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Games played at once (default: the number of cores).
    #[arg(long)]
    pub concurrency: Option<usize>,
    /// Time an engine may take beyond its movetime or clock (ms).
    #[arg(long, default_value_t = 200)]
    pub time_margin: u64,
}

/// One Gradescope test.
#[derive(Clone, Debug, Serialize)]
struct TestResult {
    name: String,
    score: f64,
    max_score: f64,
    status: &'static str,
    output: String,
}

impl TestResult {
    fn new(name: &str, max: f64, fraction: f64, passed: bool, output: String) -> TestResult {
        TestResult {
            name: name.into(),
            score: (max * fraction.clamp(0.0, 1.0) * 100.0).round() / 100.0,
            max_score: max,
            status: if passed { "passed" } else { "failed" },
            output,
        }
    }
}

/// Gradescope's results file.
#[derive(Serialize)]
struct Results {
    score: f64,
    output: String,
    tests: Vec<TestResult>,
}

/// A reference opponent: this binary's engine as the given agent.
fn reference(agent: &str) -> EngineSpec {
    format!("name={agent},cmd=self,movetime=2000,option.agent='{agent}'")
        .parse()
        .expect("a valid built-in spec")
}

/// Plays `jobs` between `specs`; returns each game with its job.
fn play(config: &RunConfig, jobs: Vec<Job>) -> Vec<(Job, GameRecord)> {
    let mut out = Vec::new();
    runner::run(config, jobs, &Flags::default(), |job, record| {
        out.push((job.clone(), record));
        Control::Continue
    });
    out
}

/// Points of engine 0 in a game.
fn points(job: &Job, r: &GameRecord) -> f64 {
    match r.outcome.winner {
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

/// The forfeits engine 0 lost games by, as text.
fn forfeits(games: &[(Job, GameRecord)]) -> Vec<String> {
    games
        .iter()
        .filter(|(job, r)| points(job, r) == 0.0 && FORFEITS.contains(&r.outcome.reason.as_str()))
        .map(|(job, r)| {
            format!(
                "game {} ({}): {}{}",
                job.game,
                r.moves,
                r.outcome.reason,
                r.outcome
                    .detail
                    .as_ref()
                    .map_or(String::new(), |d| format!(": {d}"))
            )
        })
        .collect()
}

/// Runs the grading and writes the results.
pub fn run(args: &Args) -> Result<ExitCode> {
    let mut engine: EngineSpec = args
        .engine
        .parse()
        .map_err(|e| anyhow::anyhow!("--engine {}: {e}", args.engine))?;
    if engine.name == "random" || engine.name.starts_with("random:") {
        engine.name = format!("{} (graded)", engine.name);
    }
    if !(0.0..=1.0).contains(&args.pass_rate) {
        anyhow::bail!("--pass-rate {}: expected 0 to 1", args.pass_rate);
    }
    let rules = Rules::STANDARD;
    let margin = Duration::from_millis(args.time_margin);
    let concurrency = args
        .concurrency
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let config = |opponent: &str| RunConfig {
        rules,
        specs: vec![engine.clone(), reference(opponent)],
        concurrency,
        margin,
        adjudicate: None,
        seed: args.seed,
    };
    let mut tests = Vec::new();
    let mut all_games = Vec::new();

    // 1 and 2: random, each side from the empty board.
    let random = format!("random:seed={}", args.seed);
    for (side, first) in [("first", true), ("second", false)] {
        let jobs: Vec<Job> = (0..u64::from(args.games))
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
        let games = play(&config(&random), jobs);
        let wins = games.iter().filter(|(j, r)| points(j, r) == 1.0).count();
        let n = games.len().max(1);
        let rate = wins as f64 / n as f64;
        let passed = rate >= args.pass_rate;
        tests.push(TestResult::new(
            &format!("Wins as {side} player against random"),
            20.0,
            if passed { 1.0 } else { 0.0 },
            passed,
            format!(
                "won {wins} of {n} games ({:.1}%); the bar is {:.1}%",
                100.0 * rate,
                100.0 * args.pass_rate
            ),
        ));
        all_games.extend(games);
    }

    // 3 and 4: matches from random 2-ply openings.
    let pairs = args.match_games.div_ceil(2).max(1) as usize;
    let source = OpeningSource {
        file: None,
        plies: 2,
        all: false,
        undecided: None,
        seed: args.seed,
    };
    let openings = schedule::openings(rules, &source, pairs)?;
    for opponent in ["greedy", "alphabeta:depth=4"] {
        let jobs = schedule::schedule(&schedule::pairings(2, Mode::RoundRobin), pairs, &openings);
        eprintln!("grade: {} games against {opponent}", jobs.len());
        let games = play(&config(opponent), jobs);
        let n = games.len().max(1) as f64;
        let pts: f64 = games.iter().map(|(j, r)| points(j, r)).sum();
        let w = games.iter().filter(|(j, r)| points(j, r) == 1.0).count();
        let d = games.iter().filter(|(j, r)| points(j, r) == 0.5).count();
        let l = games.len() - w - d;
        tests.push(TestResult::new(
            &format!("Score against {opponent}"),
            15.0,
            pts / n,
            pts / n >= 0.5,
            format!(
                "+{w} ={d} -{l} over {} colour-swapped games: {:.1}% of the points",
                games.len(),
                100.0 * pts / n
            ),
        ));
        all_games.extend(games);
    }

    // 5: tactics.
    eprintln!("grade: tactical positions");
    let (tactic_fraction, tactic_output, tactic_forfeits) =
        tactics(&engine, margin, args.tactics, args.seed);
    tests.push(TestResult::new(
        "Tactics from solved positions",
        15.0,
        tactic_fraction,
        tactic_fraction >= 1.0,
        tactic_output,
    ));

    // 6: compliance.
    eprintln!("grade: protocol compliance");
    let checks = crate::compliance::checks(&engine, margin);
    let passed = checks.iter().filter(|c| c.passed).count();
    tests.push(TestResult::new(
        "Protocol compliance",
        10.0,
        passed as f64 / checks.len() as f64,
        passed == checks.len(),
        checks
            .iter()
            .map(|c| {
                format!(
                    "{} {}: {}",
                    if c.passed { "pass" } else { "FAIL" },
                    c.name,
                    c.detail
                )
            })
            .collect::<Vec<_>>()
            .join("\n"),
    ));

    // 7: time discipline.
    let mut lost = forfeits(&all_games);
    lost.extend(tactic_forfeits);
    tests.push(TestResult::new(
        "Time and protocol discipline in every game",
        5.0,
        if lost.is_empty() { 1.0 } else { 0.0 },
        lost.is_empty(),
        if lost.is_empty() {
            format!(
                "no forfeit in {} games and the tactical positions",
                all_games.len()
            )
        } else {
            format!("{} forfeits:\n{}", lost.len(), lost.join("\n"))
        },
    ));

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
    let results = Results {
        score: (score * 100.0).round() / 100.0,
        output: format!("{} graded: {score:.2} of {max} points", engine.name),
        tests,
    };
    let text = serde_json::to_string_pretty(&results).expect("results serialise") + "\n";
    std::fs::write(&args.results, text)
        .with_context(|| format!("writing {}", args.results.display()))?;
    println!("wrote {}", args.results.display());
    Ok(ExitCode::SUCCESS)
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

/// Plays the tactical positions; returns the share passed, the report and
/// the engine's forfeits.
fn tactics(
    engine: &EngineSpec,
    margin: Duration,
    count: u32,
    seed: u64,
) -> (f64, String, Vec<String>) {
    let mut seat = Seat::new(engine.clone(), margin);
    let mut lines = Vec::new();
    let mut forfeits = Vec::new();
    let (mut passed, mut total) = (0u32, 0u32);
    let ask = |seat: &mut Seat, g: &Game, forfeits: &mut Vec<String>| -> Option<u32> {
        if let Err(e) = seat.new_game(Rules::STANDARD, seed) {
            forfeits.push(format!(
                "{}: {}: {}",
                g.move_string(),
                e.reason(),
                e.detail()
            ));
            return None;
        }
        match seat.best_move(g, engine.clock) {
            Ok((column, _, _)) => Some(column),
            Err((reason, detail)) => {
                forfeits.push(format!("{}: {reason}: {detail}", g.move_string()));
                None
            }
        }
    };
    // Win in one.
    for g in positions(count, seed, |p| p.winning_moves() != 0) {
        total += 1;
        let c = ask(&mut seat, &g, &mut forfeits);
        let ok = c.is_some_and(|c| (1..=7).contains(&c) && g.position().is_winning_move(c - 1));
        passed += u32::from(ok);
        if !ok {
            lines.push(format!(
                "win in one after {}: played {c:?}",
                g.move_string()
            ));
        }
    }
    // Block the only threat.
    for g in positions(count, seed + 1, |p| {
        p.winning_moves() == 0
            && p.opponent_winning_cells() & p.possible() != 0
            && p.non_losing_moves().count_ones() == 1
    }) {
        total += 1;
        let p = *g.position();
        let block = (0..7)
            .find(|&c| p.non_losing_moves() & p.column_mask(c) != 0)
            .expect("one");
        let c = ask(&mut seat, &g, &mut forfeits);
        let ok = c == Some(block + 1);
        passed += u32::from(ok);
        if !ok {
            lines.push(format!(
                "block after {}: played {c:?}, the block is {}",
                g.move_string(),
                block + 1
            ));
        }
    }
    // Convert a proven win within its distance, against the solver.
    let mut solver = Solver::new(64);
    let mut conversions = 0;
    for g in positions(20 * count, seed + 2, |p| {
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
        total += 1;
        conversions += 1;
        let engine_side = p.side_to_move();
        let mut game = g.clone();
        let verdict = loop {
            match game.status() {
                Status::Won(w) if w == engine_side => {
                    break if game.moves().len() as u32 <= end {
                        Ok(())
                    } else {
                        Err(format!(
                            "won at ply {} instead of {end}",
                            game.moves().len()
                        ))
                    };
                }
                Status::Won(_) | Status::Draw => {
                    break Err(format!("did not win: {}", game.move_string()));
                }
                Status::Ongoing => {}
            }
            let mover = game.side_to_move();
            let column = if mover == engine_side {
                match ask(&mut seat, &game, &mut forfeits) {
                    Some(c) => c,
                    None => break Err("forfeited".into()),
                }
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
            if let Err(e) = game.play(i64::from(column)) {
                break Err(format!("illegal move: {e}"));
            }
        };
        match verdict {
            Ok(()) => passed += 1,
            Err(why) => lines.push(format!(
                "convert the win after {} within ply {end}: {why}",
                g.move_string()
            )),
        }
    }
    let fraction = f64::from(passed) / f64::from(total.max(1));
    let mut output =
        format!("{passed} of {total} positions (win in one, block, convert a proven win)");
    for l in lines {
        output.push('\n');
        output.push_str(&l);
    }
    (fraction, output, forfeits)
}
