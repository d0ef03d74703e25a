//! The arena binary: real matches between engine processes, forfeits by
//! engines that misbehave on cue, resume, shards, SPRT, tournaments and
//! grading.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use assert_cmd::Command;
use connect4_arena::ending::Reason;
use connect4_arena::grade::GradescopeResults;
use connect4_arena::log::GameLine;
use connect4_arena::results::Summary;
use predicates::prelude::*;

fn arena() -> Command {
    Command::new(assert_cmd::cargo::cargo_bin!("connect4-arena"))
}

/// The misbehaving engine (`examples/fake_engine.rs`), which `cargo test`
/// builds beside the tests.
fn fake(mode: &str) -> String {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap();
    let path = dir.join("examples").join("fake_engine");
    assert!(
        path.exists(),
        "{} is missing: build it with cargo build -p connect4-arena --examples",
        path.display()
    );
    format!("name=bad,cmd={},arg={mode}", path.display())
}

/// A fresh scratch directory.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("arena-{name}-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn read_log(path: &Path) -> Vec<GameLine> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Waits until the log holds `n` games (at most 60 s).
fn wait_for_games(log: &Path, n: usize) {
    let start = Instant::now();
    while std::fs::read_to_string(log).map_or(0, |t| t.lines().count()) < n {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{n} games not logged in 60 s"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn game_numbers(log: &[GameLine]) -> Vec<u64> {
    let mut n: Vec<u64> = log.iter().map(|g| g.game).collect();
    n.sort();
    n
}

const DEEP: &str = "name=ab3,cmd=self,option.agent='alphabeta:depth=3'";
const MCTS: &str = "name=mcts,cmd=self,option.agent='mcts:simulations=200'";

#[test]
fn a_match_between_two_engine_processes_logs_every_game() {
    let dir = scratch("match");
    let log = dir.join("games.jsonl");
    let summary = dir.join("summary.json");
    let csv = dir.join("results.csv");
    arena()
        .args(["match", "--engine", "name=deep,cmd=self,depth=4"])
        .args(["--engine", "name=shallow,cmd=self,depth=1"])
        .args(["--games", "6", "--concurrency", "2", "--log"])
        .arg(&log)
        .arg("--summary")
        .arg(&summary)
        .arg("--csv")
        .arg(&csv)
        .assert()
        .success()
        .stdout(predicate::str::contains("deep vs shallow: +"))
        .stdout(predicate::str::contains("(6 games)"))
        .stdout(predicate::str::contains("Elo difference"))
        .stdout(predicate::str::contains("pairs (LL LD DD+WL WD WW)"));
    let games = read_log(&log);
    assert_eq!(game_numbers(&games), vec![1, 2, 3, 4, 5, 6]);
    for g in &games {
        // Every game replays legally and ends as recorded.
        let moves = &g.moves;
        let game = connect4::Game::from_move_string(connect4::Rules::STANDARD, moves).unwrap();
        assert!(game.position().is_over(), "{moves}");
        assert!(moves.starts_with(&g.opening));
        assert_eq!(g.plies.len() + g.opening.len(), moves.len());
    }
    // Pairs share an opening with colours swapped.
    for pair in game_numbers(&games).chunks(2) {
        let a = games.iter().find(|g| g.game == pair[0]).unwrap();
        let b = games.iter().find(|g| g.game == pair[1]).unwrap();
        assert_eq!(a.opening, b.opening);
        assert_eq!(a.first, b.second);
        assert_eq!(a.pair, b.pair);
    }
    let s: Summary = serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
    let p = &s.pairings[0];
    assert_eq!(p.games, 6);
    let k = p.pentanomial;
    assert_eq!(k.LL + k.LD + k.DD_WL + k.WD + k.WW, 3);
    assert_eq!(s.engines[0].name, "deep");
    let csv = std::fs::read_to_string(&csv).unwrap();
    assert!(
        csv.starts_with("a,b,games,wins,draws,losses,score,elo"),
        "{csv}"
    );
    assert!(
        csv.lines()
            .nth(1)
            .unwrap()
            .starts_with("\"deep\",\"shallow\",6,"),
        "{csv}"
    );
}

/// Plays 2 games of `bad` against a good engine; returns the stdout and
/// the log.
fn against_fake(mode: &str, limits: &str) -> (String, Vec<GameLine>) {
    let dir = scratch(&format!("fake-{}", mode.replace(['=', '/'], "-")));
    let log = dir.join("games.jsonl");
    let out = arena()
        .args([
            "match",
            "--engine",
            "name=good,cmd=self,depth=1",
            "--engine",
        ])
        .arg(format!("{},{limits}", fake(mode)))
        .args([
            "--games",
            "2",
            "--concurrency",
            "1",
            "--time-margin",
            "100",
            "--log",
        ])
        .arg(&log)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    (String::from_utf8(out).unwrap(), read_log(&log))
}

#[test]
fn misbehaving_engines_forfeit_with_the_right_reason_and_the_match_goes_on() {
    for (mode, limits, reason) in [
        ("crash-at=2", "depth=1", Reason::Crash),
        ("illegal", "depth=1", Reason::IllegalMove),
        ("garbage", "depth=1", Reason::Protocol),
        ("out-of-turn", "depth=1", Reason::Protocol),
        ("huge", "depth=1", Reason::Protocol),
        ("slow-move=700", "movetime=50", Reason::Time),
        ("hang", "movetime=50", Reason::Stall),
        // No time limit: the quiet engine is pinged and does not answer.
        ("hang", "depth=3", Reason::Stall),
    ] {
        let (out, log) = against_fake(mode, limits);
        assert_eq!(log.len(), 2, "{mode}: every game is logged\n{out}");
        let lost: Vec<&GameLine> = log.iter().filter(|g| g.reason == reason).collect();
        // crash-at=2 crashes on its second move of the process, which
        // restarts for the next game: at least one game ends that way.
        assert!(!lost.is_empty(), "{mode}: no '{reason}' forfeit\n{out}");
        for g in &lost {
            let bad_first = g.first == "bad";
            assert_eq!(g.result, if bad_first { "0-1" } else { "1-0" }, "{mode}");
            assert!(g.detail.as_ref().is_some_and(|d| !d.is_empty()), "{mode}");
        }
        assert!(
            out.contains(&format!("{reason}: {}", lost.len())),
            "{mode}\n{out}"
        );
    }
    // A slow start within the handshake timeout is no fault.
    let (out, log) = against_fake("slow-start=500", "depth=1");
    assert!(
        log.iter()
            .all(|g| matches!(g.reason, Reason::Line | Reason::FullBoard)),
        "{out}"
    );
}

#[test]
fn clocks_are_kept_and_an_engine_over_its_clock_loses_on_time() {
    let dir = scratch("clock");
    let log = dir.join("games.jsonl");
    arena()
        .args(["match", "--engine", "name=a,cmd=self,tc=2+0.05", "--engine"])
        .arg(format!("{},tc=0.4+0.01", fake("slow-move=250")))
        .args(["--games", "2", "--time-margin", "50", "--log"])
        .arg(&log)
        .assert()
        .success()
        .stdout(predicate::str::contains("time: 2"));
    for g in read_log(&log) {
        assert_eq!(g.reason, Reason::Time, "{g:?}");
        // 400 ms, 250 ms a move, 10 ms back each: about 160 ms left (and a 50 ms
        // margin) for the second move, which it loses on time.
        let bad_moves = g
            .plies
            .iter()
            .enumerate()
            .filter(|(i, _)| (i % 2 == 0) == (g.first == "bad"))
            .count();
        assert_eq!(bad_moves, 1, "{g:?}");
        let detail = g.detail.as_deref().unwrap();
        assert!(
            detail.contains("budget") || detail.contains("allowed"),
            "{g:?}"
        );
    }
}

#[test]
fn a_killed_run_resumes_without_losing_or_repeating_a_game() {
    let dir = scratch("resume");
    let log = dir.join("games.jsonl");
    let args = |log: &Path| -> Vec<String> {
        vec![
            "match".into(),
            "--engine".into(),
            DEEP.into(),
            "--engine".into(),
            MCTS.into(),
            "--games".into(),
            "24".into(),
            "--concurrency".into(),
            "2".into(),
            "--log".into(),
            log.display().to_string(),
        ]
    };
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin!("connect4-arena"))
        .args(args(&log))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for_games(&log, 4);
    child.kill().unwrap();
    child.wait().unwrap();
    let before = read_log(&log).len();
    assert!(before < 24, "killed after {before} games");
    arena()
        .args(args(&log))
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "resuming: {before} games already in the log"
        )));
    let games = read_log(&log);
    assert_eq!(game_numbers(&games), (1..=24).collect::<Vec<u64>>());
    // The games replay exactly (per-game seeds), so the resumed log equals
    // an uninterrupted run.
    let fresh = dir.join("fresh.jsonl");
    arena().args(args(&fresh)).assert().success();
    let moves = |log: &[GameLine]| {
        let mut m: Vec<(u64, String)> = log.iter().map(|g| (g.game, g.moves.clone())).collect();
        m.sort();
        m
    };
    assert_eq!(moves(&games), moves(&read_log(&fresh)));
    // Another run's log is refused, not mixed in.
    arena()
        .args([
            "match",
            "--engine",
            DEEP,
            "--engine",
            "name=other,cmd=self,depth=1",
        ])
        .arg("--log")
        .arg(&log)
        .assert()
        .failure()
        .stderr(predicate::str::contains("holds games of another run"));
}

#[test]
fn shards_merged_equal_the_unsharded_run() {
    let dir = scratch("shards");
    let run = |extra: &[&str], log: &Path| {
        arena()
            .args([
                "match", "--engine", DEEP, "--engine", MCTS, "--games", "12", "--seed", "5",
            ])
            .args(extra)
            .arg("--log")
            .arg(log)
            .assert()
            .success();
    };
    let whole = dir.join("whole.jsonl");
    run(&[], &whole);
    let mut shards = Vec::new();
    for i in 1..=3 {
        let log = dir.join(format!("shard{i}.jsonl"));
        run(&["--shard", &format!("{i}/3")], &log);
        assert_eq!(read_log(&log).len(), 4, "shard {i}: two of the six pairs");
        shards.push(log);
    }
    let merged_summary = dir.join("merged.json");
    arena()
        .arg("merge")
        .args(&shards)
        .arg("--summary")
        .arg(&merged_summary)
        .assert()
        .success()
        .stdout(predicate::str::contains("merged 12 games from 3 logs"));
    let whole_summary = dir.join("whole.json");
    arena()
        .arg("merge")
        .arg(&whole)
        .arg("--summary")
        .arg(&whole_summary)
        .assert()
        .success();
    let load = |p: &Path| -> Summary {
        let mut v: Summary = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
        // Times differ between runs; results must not.
        for e in &mut v.engines {
            e.ms_per_move = 0.0;
        }
        v
    };
    assert_eq!(load(&merged_summary), load(&whole_summary));
    // Logs of different schedules do not merge.
    let other = dir.join("other.jsonl");
    arena()
        .args([
            "match", "--engine", DEEP, "--engine", MCTS, "--games", "2", "--log",
        ])
        .arg(&other)
        .assert()
        .success();
    arena()
        .arg("merge")
        .arg(&whole)
        .arg(&other)
        .assert()
        .failure()
        .stderr(predicate::str::contains("only logs of the same schedule"));
}

#[test]
fn an_sprt_stops_the_match_once_it_decides() {
    let dir = scratch("sprt");
    let log = dir.join("games.jsonl");
    arena()
        .args(["match", "--engine", DEEP, "--engine"])
        .arg("name=random,cmd=self,option.agent=random")
        .args([
            "--games",
            "400",
            "--opening-plies",
            "4",
            "--sprt",
            "elo0=0,elo1=50",
            "--log",
        ])
        .arg(&log)
        .assert()
        .success()
        .stdout(predicate::str::contains("H1 accepted"))
        .stdout(predicate::str::contains("SPRT decided: H1 accepted after"));
    let n = read_log(&log).len();
    assert!(n < 400, "the SPRT stopped the match after {n} games");
    arena()
        .args([
            "match",
            "--engine",
            DEEP,
            "--engine",
            MCTS,
            "--sprt",
            "elo0=10,elo1=0",
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains("elo0 = 10 must be below elo1 = 0"));
}

/// An SPRT that crossed a bound and then came back inside stays decided:
/// a sequential test ends at its first crossing. The log is a real run's,
/// with results rewritten so that engine `a` wins the first 9 pairs (LLR
/// 3.3 past 2.94) and loses the next 6 (LLR back to about 0); resuming it
/// with an SPRT must play nothing more, say which hypothesis it accepted
/// at which game, and exit 0 (130 would read as a kill to Slurm and CI).
#[test]
fn an_sprt_keeps_its_first_crossing_when_later_games_undo_it() {
    let dir = scratch("sprt-crossing");
    let log = dir.join("games.jsonl");
    let run = |games: &str, sprt: bool| {
        let mut cmd = arena();
        cmd.args(["match", "--engine", "name=a,cmd=self,option.agent=random"])
            .args(["--engine", "name=b,cmd=self,option.agent=random"])
            .args(["--games", games, "--concurrency", "1", "--log"])
            .arg(&log);
        if sprt {
            cmd.args(["--sprt", "elo0=0,elo1=50"]);
        }
        cmd.assert()
    };
    run("30", false).success();
    let rewritten: Vec<String> = read_log(&log)
        .into_iter()
        .map(|mut g| {
            // a's points in this game: pairs 1-9 alternate won-won and
            // won-drawn, pairs 10-15 are lost-lost.
            let a_points = match g.pair {
                p if p <= 9 && (p % 2 == 1 || g.game % 2 == 1) => 1.0,
                p if p <= 9 => 0.5,
                _ => 0.0,
            };
            let first_points = if g.first == "a" {
                a_points
            } else {
                1.0 - a_points
            };
            g.result = match first_points {
                1.0 => "1-0",
                0.0 => "0-1",
                _ => "1/2-1/2",
            }
            .into();
            serde_json::to_string(&g).unwrap()
        })
        .collect();
    std::fs::write(&log, rewritten.join("\n") + "\n").unwrap();
    run("40", true)
        .success()
        .stdout(predicate::str::contains("H1 accepted after 18 games"))
        .stdout(predicate::str::contains(
            "SPRT decided: H1 accepted after 18 games",
        ));
    assert_eq!(
        read_log(&log).len(),
        30,
        "no game is played after the verdict"
    );
}

#[test]
fn ctrl_c_finishes_running_games_and_the_log_resumes() {
    interrupt_finishes_running_games("-INT", false);
}

#[test]
fn sigterm_to_every_process_as_from_scancel_stops_the_run_and_scores_no_crash() {
    interrupt_finishes_running_games("-TERM", true);
}

/// Sends `signal` to a match once two games are logged (with `everyone`,
/// to its engines too, as Slurm's `scancel` does): it stops with 130, says
/// how to resume, and its log holds each finished game once, none lost to
/// a crash or stall the signal caused.
fn interrupt_finishes_running_games(signal: &str, everyone: bool) {
    let dir = scratch(&format!("signal{signal}"));
    let log = dir.join("games.jsonl");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin!("connect4-arena"))
        .args([
            "match", "--engine", DEEP, "--engine", MCTS, "--games", "40", "--log",
        ])
        .arg(&log)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for_games(&log, 2);
    let mut pids = vec![child.id()];
    if everyone {
        pids.extend(children_of(child.id()));
        assert!(pids.len() > 1, "the arena runs its engines");
    }
    for pid in pids {
        // An engine may have ended since the listing; that is no failure.
        std::process::Command::new("kill")
            .args([signal, &pid.to_string()])
            .stderr(Stdio::null())
            .status()
            .unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(130), "{text}");
    assert!(
        text.contains("run the same command again to resume"),
        "{text}"
    );
    let games = read_log(&log);
    assert!(games.len() < 40);
    let mut numbers = game_numbers(&games);
    numbers.dedup();
    assert_eq!(numbers.len(), games.len(), "no game twice");
    let lost = games
        .iter()
        .filter(|g| matches!(g.reason, Reason::Crash | Reason::Stall))
        .count();
    assert_eq!(lost, 0, "no game scored as lost to the signal");
}

/// The processes whose parent is `pid` (from /proc).
fn children_of(pid: u32) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|p| {
            std::fs::read_to_string(format!("/proc/{p}/stat")).is_ok_and(|stat| {
                // The parent is the second field after the command's ')'.
                stat.rsplit_once(')')
                    .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<u32>().ok())
                    == Some(pid)
            })
        })
        .collect()
}

#[test]
fn a_tournament_prints_a_crosstable_and_a_gauntlet_plays_only_the_first_engine() {
    let engines = [
        "name=greedy,cmd=self,option.agent=greedy",
        "name=random,cmd=self,option.agent=random",
        "name=ab2,cmd=self,option.agent='alphabeta:depth=2'",
    ];
    let dir = scratch("tournament");
    let summary = dir.join("summary.json");
    let mut cmd = arena();
    cmd.arg("tournament");
    for e in engines {
        cmd.args(["--engine", e]);
    }
    let assert = cmd
        .args(["--games", "2", "--summary"])
        .arg(&summary)
        .env("NO_COLOR", "1")
        .assert()
        .success()
        .stdout(predicate::str::contains("3 engines, round robin: 6 games"))
        .stdout(predicate::str::contains("greedy vs random"))
        .stdout(predicate::str::contains("random vs ab2"))
        .stdout(predicate::str::contains("# engine  points"))
        .stdout(predicate::str::contains("95%  games  points"));
    // Progress names every engine, not only the first pairing.
    let stderr = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    let last = stderr
        .lines()
        .rev()
        .find(|l| l.starts_with("games:"))
        .unwrap_or("");
    for name in ["greedy", "random", "ab2"] {
        assert!(last.contains(name), "{stderr}");
    }
    let s: Summary = serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
    assert_eq!(s.ratings.len(), 3);
    assert!(s.ratings[0].elo >= s.ratings[2].elo);
    let mut cmd = arena();
    cmd.args(["tournament", "--mode", "gauntlet"]);
    for e in engines {
        cmd.args(["--engine", e]);
    }
    cmd.args(["--games", "2"])
        .assert()
        .success()
        .stdout(predicate::str::contains("gauntlet: 4 games"))
        .stdout(predicate::str::contains("random vs ab2").not());
    arena()
        .args(["tournament", "--engine", DEEP, "--engine", MCTS])
        .assert()
        .failure()
        .stderr(predicate::str::contains("three or more --engine specs"));
}

#[test]
fn adjudication_ends_games_the_solver_proves() {
    let dir = scratch("adjudicate");
    let log = dir.join("games.jsonl");
    arena()
        .args(["match", "--engine", DEEP, "--engine", MCTS, "--games", "4"])
        .args(["--adjudicate", "200000", "--log"])
        .arg(&log)
        .assert()
        .success();
    let games = read_log(&log);
    assert!(
        games.iter().any(|g| g.reason == Reason::Adjudicated),
        "{games:?}"
    );
    for g in games.iter().filter(|g| g.reason == Reason::Adjudicated) {
        let moves = &g.moves;
        let game = connect4::Game::from_move_string(connect4::Rules::STANDARD, moves).unwrap();
        assert!(
            !game.position().is_over(),
            "adjudicated before the end: {moves}"
        );
        assert!(g.detail.as_ref().unwrap().contains("the solver proves"));
    }
}

/// Grades `engine` with `settings`, writing and reading back `results`;
/// the run must succeed and print its total.
fn grade_with(results: &Path, engine: &str, settings: &[&str]) -> GradescopeResults {
    arena()
        .args(["grade", "--engine", engine])
        .args(settings)
        .arg("--results")
        .arg(results)
        .assert()
        .success()
        .stdout(predicate::str::contains("total"));
    serde_json::from_str(&std::fs::read_to_string(results).unwrap()).unwrap()
}

/// The texts of an SVG picture (trimmed), which must be well-formed XML.
fn svg_texts(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("well-formed XML");
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .map(|t| t.trim().to_string())
        .collect()
}

#[test]
fn grade_writes_gradescope_results_for_a_good_and_a_bad_engine() {
    let dir = scratch("grade");
    let settings = ["--games", "4", "--match-games", "2", "--tactics", "2"];
    let grade = |engine: &str, file: &str| grade_with(&dir.join(file), engine, &settings);
    let check = |r: &GradescopeResults| {
        assert_eq!(r.tests.len(), 7);
        let mut sum = 0.0;
        for t in &r.tests {
            assert!(!t.name.is_empty() && !t.output.is_empty());
            assert!((0.0..=t.max_score).contains(&t.score), "{t:?}");
            sum += t.score;
        }
        assert!((r.score - sum).abs() < 0.011);
    };
    let good = grade("name=solver,cmd=self,movetime=30", "good.json");
    check(&good);
    assert_eq!(good.tests[0].status, "passed");
    // Fair by construction: the engine holds every labelled opening, so it
    // gets the full marks whatever the openings' values.
    for t in &good.tests[2..4] {
        assert!(t.output.starts_with("held 2 of 2"), "{t:?}");
        assert_eq!(t.score, 15.0, "{t:?}");
    }
    assert_eq!(good.tests[5].score, 10.0, "compliance: {:?}", good.tests[5]);
    let bad = grade(&fake("illegal"), "bad.json");
    check(&bad);
    assert_eq!(bad.tests[0].score, 0.0);
    assert!(
        bad.tests[0]
            .output
            .contains("lost by forfeit; the first (the others are listed in the test of every game): game 1 against random"),
        "a failed test says why: {:?}",
        bad.tests[0]
    );
    assert_eq!(bad.output_format.as_deref(), Some("md"));
    assert!(
        bad.tests[4].output.contains("(you are X):\n```\n"),
        "a missed tactic shows its position: {:?}",
        bad.tests[4]
    );
    for t in &bad.tests[2..4] {
        assert_eq!(
            t.score, 0.0,
            "a forfeit holds no opening, lost or not: {t:?}"
        );
    }
    assert_eq!(bad.tests[6].score, 0.0, "it forfeits: {:?}", bad.tests[6]);
    assert!(
        bad.tests[6].output.contains("against"),
        "forfeits name the opponent: {:?}",
        bad.tests[6]
    );
    assert!(bad.score < good.score);
}

#[test]
fn killing_the_reference_engine_voids_games_and_never_raises_the_grade() {
    let dir = scratch("grade-hostile");
    let settings = [
        "--games",
        "2",
        "--match-games",
        "2",
        "--tactics",
        "1",
        "--concurrency",
        "1",
    ];
    let grade = |engine: &str, file: &str| grade_with(&dir.join(file), engine, &settings);
    let honest = grade(&fake("good"), "honest.json");
    let hostile = grade(&fake("kill-opponent=KILL"), "hostile.json");
    assert!(
        hostile.score <= honest.score,
        "killing the opponent paid: {} against {}",
        hostile.score,
        honest.score
    );
    // Against random, every game's reference was killed: none counts as won.
    assert_eq!(hostile.tests[0].score, 0.0, "{:?}", hostile.tests[0]);
    assert!(
        hostile.tests[0].output.contains("voided and replayed"),
        "{:?}",
        hostile.tests[0]
    );
    assert!(
        hostile.tests[2].output.contains("held 0 of 2"),
        "{:?}",
        hostile.tests[2]
    );
}

#[test]
fn a_grader_that_cannot_finish_still_leaves_valid_results() {
    let dir = scratch("grade-fails");
    let path = dir.join("results.json");
    arena()
        .args([
            "grade",
            "--engine",
            "cmd=self",
            "--pass-rate",
            "2",
            "--results",
        ])
        .arg(&path)
        .assert()
        .failure()
        .stderr(predicate::str::contains("--pass-rate 2: expected 0 to 1"));
    let r: GradescopeResults =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).expect("valid results");
    assert_eq!(r.score, 0.0);
    assert!(r.tests.is_empty());
    assert!(
        r.output.contains("could not finish: --pass-rate 2"),
        "{}",
        r.output
    );
}

#[test]
fn a_reference_that_does_not_start_is_the_instructor_s_error_said_at_once() {
    let dir = scratch("grade-no-reference");
    let config = dir.join("grader.toml");
    std::fs::write(
        &config,
        "[[test]]\nkind = \"openings\"\nname = \"Mine\"\nopponent = \"engine:bin/missing\"\ngames = 2\n",
    )
    .unwrap();
    let results = dir.join("results.json");
    let started = Instant::now();
    arena()
        .args(["grade", "--engine", "cmd=self", "--config"])
        .arg(&config)
        .arg("--results")
        .arg(&results)
        .assert()
        .failure()
        .stderr(predicate::str::contains("the opponent of test \"Mine\""))
        .stderr(predicate::str::contains("bin/missing"));
    assert!(started.elapsed() < Duration::from_secs(30));
    let r: GradescopeResults =
        serde_json::from_str(&std::fs::read_to_string(&results).unwrap()).unwrap();
    assert_eq!(r.score, 0.0);
    assert!(r.output.contains("does not start"), "{}", r.output);
}

#[test]
fn compliance_reports_each_check() {
    arena()
        .args(["compliance", "--engine", "cmd=self"])
        .assert()
        .success()
        .stdout(predicate::str::contains("9 of 9 checks passed"));
    arena()
        .args(["compliance", "--engine", &fake("illegal")])
        .assert()
        .failure()
        .stdout(predicate::str::contains("FAIL go movetime 100"))
        .stdout(predicate::str::contains("illegal bestmove"))
        .stdout(predicate::str::contains("pass ping: pong"));
}

#[test]
fn bad_specs_are_clear_errors() {
    arena()
        .args([
            "match",
            "--engine",
            "name=a,cmd=self",
            "--engine",
            "cmd=self,depth=zero",
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "'depth=zero': expected a positive integer",
        ));
    arena()
        .args(["match", "--engine", DEEP, "--engine", MCTS, "--pairs", "1"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "2 games (1 colour-swapped pair per pairing)",
        ));
    arena()
        .args(["match", "--engine", DEEP, "--engine", MCTS, "--pairs", "0"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("--pairs 0: expected at least 1"));
    arena()
        .args(["match", "--engine", "cmd=self"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("exactly two --engine specs"));
    arena()
        .args([
            "match",
            "--engine",
            "name=a,cmd=self",
            "--engine",
            "name=a,cmd=self",
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains("two engines are named 'a'"));
    arena()
        .args([
            "match", "--engine", DEEP, "--engine", MCTS, "--shard", "4/3",
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains("'4/3': expected I/N"));
    arena()
        .args(["merge", "/nonexistent/log.jsonl"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "/nonexistent/log.jsonl: no such log",
        ));
}

/// The minimal Python engine of protocol/README.md, written to `dir`.
fn minimal_engine(dir: &Path) -> PathBuf {
    let readme = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../protocol/README.md"),
    )
    .unwrap();
    let block = readme
        .split("<!-- minimal-engine:start -->")
        .nth(1)
        .and_then(|rest| rest.split("<!-- minimal-engine:end -->").next())
        .expect("the README holds the minimal engine");
    let code = block
        .split("```python\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("a python block");
    let path = dir.join("minimal_engine.py");
    std::fs::write(&path, code).unwrap();
    path
}

#[test]
fn the_minimal_engine_of_the_protocol_readme_plays_and_passes_compliance() {
    let dir = scratch("minimal");
    let engine = minimal_engine(&dir);
    let spec = format!("name=minimal,cmd=python3,arg={},depth=1", engine.display());
    let log = dir.join("games.jsonl");
    arena()
        .args(["match", "--engine", &spec, "--engine"])
        .arg("name=ab2,cmd=self,option.agent='alphabeta:depth=2'")
        .args(["--games", "4", "--concurrency", "2", "--log"])
        .arg(&log)
        .assert()
        .success()
        .stdout(predicate::str::contains("(4 games)"));
    let games = read_log(&log);
    assert_eq!(games.len(), 4);
    for g in &games {
        assert!(
            matches!(g.reason, Reason::Line | Reason::FullBoard),
            "no forfeit for a minimal engine: {g:?}"
        );
    }
    arena()
        .args(["compliance", "--engine", &spec])
        .assert()
        .success()
        .stdout(predicate::str::contains("9 of 9 checks passed"))
        .stdout(predicate::str::contains(
            "advice: bestmove could also send 'score' (optional)",
        ));
}

/// Processes whose command line holds every one of `words`.
fn processes_with(words: &[&str]) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if words.iter().all(|w| text.contains(w)) {
            found.push(pid);
        }
    }
    found
}

#[test]
fn a_crash_quotes_the_engine_s_traceback_and_keeps_its_stderr_beside_the_log() {
    let (out, log) = against_fake("traceback", "depth=1");
    assert_eq!(log.len(), 2, "{out}");
    for g in &log {
        assert_eq!(g.reason, Reason::Crash, "{g:?}");
        let detail = g.detail.as_deref().unwrap();
        assert!(
            detail.contains("ZeroDivisionError: division by zero"),
            "{detail}"
        );
    }
    let dir = scratch("stderr-file");
    let log = dir.join("games.jsonl");
    arena()
        .args(["match", "--engine", &fake("traceback"), "--engine"])
        .arg("name=good,cmd=self,depth=1")
        .args(["--games", "2", "--log"])
        .arg(&log)
        .assert()
        .success();
    let stderr = std::fs::read_to_string(dir.join("games.jsonl.stderr")).unwrap();
    assert!(stderr.contains("=== bad (process "), "{stderr}");
    assert!(
        stderr.contains("Traceback (most recent call last):"),
        "{stderr}"
    );
}

#[test]
fn mistakes_in_a_spec_stop_the_run_at_once_and_say_why() {
    let good = "name=good,cmd=self,depth=1";
    let cases: [(&str, &[&str]); 3] = [
        (
            "name=a,cmd=/nonexistent/engine",
            &["engine 'a' (/nonexistent/engine) does not start", "crash"],
        ),
        (
            "name=p,cmd=python3 engine.py",
            &["does not start", "cmd=python3,arg=engine.py"],
        ),
        (
            "name=t,cmd=self,option.agent=alphabet",
            &["engine 't'", "unknown agent 'alphabet'"],
        ),
    ];
    for (spec, says) in cases {
        let start = Instant::now();
        let mut assert = arena()
            .args(["match", "--engine", spec, "--engine", good])
            .args(["--games", "20"])
            .assert()
            .failure();
        for s in says {
            assert = assert.stderr(predicate::str::contains(*s));
        }
        assert!(start.elapsed() < Duration::from_secs(20), "{spec}");
    }
}

#[test]
fn an_engine_that_fails_every_game_stops_the_run() {
    let dir = scratch("fail-fast");
    let log = dir.join("games.jsonl");
    arena()
        .args(["match", "--engine", &fake("crash-at=1"), "--engine"])
        .arg("name=good,cmd=self,depth=1")
        .args(["--games", "40", "--concurrency", "1", "--log"])
        .arg(&log)
        .assert()
        .failure()
        .stderr(predicate::str::contains("engine 'bad'"))
        .stderr(predicate::str::contains(
            "lost each of its first 3 games by crash",
        ));
    assert!(read_log(&log).len() < 40);
}

#[test]
fn a_pong_only_engine_loses_on_time_after_the_max_move_time() {
    let dir = scratch("pong-only");
    let log = dir.join("games.jsonl");
    let start = Instant::now();
    arena()
        .args([
            "match",
            "--engine",
            &format!("{},depth=2", fake("pong-only")),
        ])
        .args(["--engine", "name=good,cmd=self,depth=1"])
        .args(["--games", "2", "--max-move-time", "1.5", "--log"])
        .arg(&log)
        .assert()
        .success();
    let games = read_log(&log);
    assert_eq!(games.len(), 2);
    for g in &games {
        assert_eq!(g.reason, Reason::Time, "{g:?}");
        assert!(g.detail.as_ref().unwrap().contains("--max-move-time"));
    }
    assert!(start.elapsed() < Duration::from_secs(30));
}

#[test]
fn an_info_flood_is_bounded_and_the_flooder_stalls() {
    let dir = scratch("flood");
    let log = dir.join("games.jsonl");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin!("connect4-arena"))
        .args(["match", "--engine", &format!("{},depth=2", fake("flood"))])
        .args(["--engine", "name=good,cmd=self,depth=1"])
        .args(["--games", "2", "--concurrency", "1", "--log"])
        .arg(&log)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The arena's peak resident memory while the engine floods it.
    let status = format!("/proc/{}/status", child.id());
    let mut peak_kb = 0u64;
    let exit = loop {
        if let Some(exit) = child.try_wait().unwrap() {
            break exit;
        }
        if let Ok(text) = std::fs::read_to_string(&status)
            && let Some(line) = text.lines().find(|l| l.starts_with("VmHWM:"))
        {
            peak_kb = line
                .split_whitespace()
                .nth(1)
                .and_then(|v| v.parse().ok())
                .unwrap_or(peak_kb);
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(exit.success());
    assert!(peak_kb < 200_000, "the arena peaked at {peak_kb} kB");
    for g in read_log(&log) {
        assert_eq!(g.reason, Reason::Stall, "{g:?}");
    }
}

#[test]
fn engines_and_their_children_do_not_outlive_the_arena() {
    let exe = fake("x");
    let path = exe
        .split("cmd=")
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .to_string();
    // A child that holds the engine's pipes is killed with its group.
    let (_, log) = against_fake("fork-and-exit", "depth=1");
    assert_eq!(log.len(), 2);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(processes_with(&[&path, "sleep"]), Vec::<u32>::new());
    // After kill -9 of the arena, engines that ignore their input die too.
    let dir = scratch("kill9-engines");
    let log = dir.join("games.jsonl");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin!("connect4-arena"))
        .args([
            "match",
            "--engine",
            &format!("{},depth=1", fake("ignore-stdin")),
        ])
        .args([
            "--engine",
            &format!("name=bad2,cmd={path},arg=ignore-stdin,depth=1"),
        ])
        .args(["--games", "200", "--concurrency", "2", "--log"])
        .arg(&log)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for_games(&log, 2);
    assert!(!processes_with(&[&path, "ignore-stdin"]).is_empty());
    child.kill().unwrap();
    child.wait().unwrap();
    let start = Instant::now();
    while !processes_with(&[&path, "ignore-stdin"]).is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "engines outlived the arena: {:?}",
            processes_with(&[&path, "ignore-stdin"])
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_log_is_locked_counted_once_regular_and_extensible() {
    let dir = scratch("log-rules");
    let log = dir.join("games.jsonl");
    let run = |games: &str| {
        let mut cmd = arena();
        cmd.args([
            "match",
            "--engine",
            DEEP,
            "--engine",
            "name=r,cmd=self,option.agent=random",
        ])
        .args(["--games", games, "--log"])
        .arg(&log);
        cmd
    };
    run("4").assert().success();
    assert_eq!(read_log(&log).len(), 4);
    // A larger --games on the same log plays the rest.
    run("8").assert().success().stdout(predicate::str::contains(
        "resuming: 4 games already in the log",
    ));
    let games = read_log(&log);
    assert_eq!(game_numbers(&games), (1..=8).collect::<Vec<u64>>());
    // Lines written twice count once.
    let text = std::fs::read_to_string(&log).unwrap();
    std::fs::write(&log, format!("{text}{text}")).unwrap();
    run("8")
        .assert()
        .success()
        .stdout(predicate::str::contains("(8 games)"));
    // A second run on a log that another run is writing is refused.
    let mut first = std::process::Command::new(assert_cmd::cargo::cargo_bin!("connect4-arena"))
        .args([
            "match", "--engine", DEEP, "--engine", MCTS, "--games", "400", "--log",
        ])
        .arg(dir.join("busy.jsonl"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for_games(&dir.join("busy.jsonl"), 1);
    arena()
        .args([
            "match", "--engine", DEEP, "--engine", MCTS, "--games", "400", "--log",
        ])
        .arg(dir.join("busy.jsonl"))
        .assert()
        .failure()
        .stderr(predicate::str::contains("being written by another run"));
    first.kill().unwrap();
    first.wait().unwrap();
    // Only regular files.
    arena()
        .args([
            "match",
            "--engine",
            DEEP,
            "--engine",
            MCTS,
            "--log",
            "/dev/full",
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains("not a regular file"));
}

#[test]
fn every_command_s_help_has_an_example_and_no_arguments_is_explained() {
    for sub in [
        "match",
        "tournament",
        "merge",
        "grade",
        "autograder",
        "kit",
        "serve",
        "compliance",
    ] {
        let out = arena().args([sub, "--help"]).output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains(&format!("Example: connect4-arena {sub} "))
                || text.contains(&format!("Examples:\n  connect4-arena {sub} ")),
            "{sub} --help:\n{text}"
        );
    }
    arena()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "With no arguments: a 20-game demonstration match",
        ));
    for (args, says) in [
        (
            &[
                "match",
                "--engine",
                "cmd=self",
                "--engine",
                "cmd=self",
                "--concurrency",
                "0",
            ][..],
            "at least 1",
        ),
        (&["grade", "--engine", "cmd=self", "--games", "0"], "0"),
        (&["grade", "--engine", "cmd=self", "--tactics", "0"], "0"),
    ] {
        arena()
            .args(args)
            .assert()
            .failure()
            .stderr(predicate::str::contains(says));
    }
}

#[test]
fn debug_writes_every_line_to_and_from_every_engine() {
    let dir = scratch("debug");
    let debug = dir.join("debug.txt");
    arena()
        .args(["match", "--engine", "name=one,cmd=self,depth=1"])
        .args([
            "--engine",
            "name=two,cmd=self,depth=1",
            "--games",
            "2",
            "--debug",
        ])
        .arg(&debug)
        .assert()
        .success();
    let text = std::fs::read_to_string(&debug).unwrap();
    for (engine, arrow, what) in [
        ("one", ">", r#""cmd":"hello""#),
        ("one", "<", r#""type":"hello""#),
        ("two", ">", r#""cmd":"go""#),
        ("two", "<", r#""type":"bestmove""#),
    ] {
        assert!(
            text.lines()
                .any(|l| l.contains(&format!(" {engine} {arrow} ")) && l.contains(what)),
            "no {engine} {arrow} {what} in:\n{text}"
        );
    }
}

#[test]
fn check_starts_the_engines_and_plays_nothing() {
    let dir = scratch("check");
    let log = dir.join("games.jsonl");
    arena()
        .args(["match", "--engine", MCTS, "--engine", DEEP, "--games", "8"])
        .args(["--shard", "2/3", "--check", "--log"])
        .arg(&log)
        .assert()
        .success()
        .stdout(predicate::str::contains("shard 2/3 (2 games)"))
        .stdout(predicate::str::contains("check passed"));
    assert!(!log.exists(), "a check writes no log");
    arena()
        .args([
            "match",
            "--engine",
            MCTS,
            "--engine",
            "name=x,cmd=/no/such/engine",
        ])
        .arg("--check")
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "engine 'x' (/no/such/engine) does not start",
        ));
}

#[test]
fn plot_draws_the_elo_and_the_sprt_of_a_match_and_of_a_merge() {
    let dir = scratch("plot");
    let (plot, merged, log) = (
        dir.join("m.svg"),
        dir.join("merged.svg"),
        dir.join("g.jsonl"),
    );
    arena()
        .args(["match", "--engine", DEEP, "--engine", MCTS, "--games", "12"])
        .args(["--sprt", "elo0=0,elo1=20", "--plot"])
        .arg(&plot)
        .arg("--log")
        .arg(&log)
        .assert()
        .success()
        .stdout(predicate::str::contains("drew the run in"));
    arena()
        .args(["merge", "--sprt", "elo0=0,elo1=20", "--plot"])
        .arg(&merged)
        .arg(&log)
        .assert()
        .success();
    for path in [&plot, &merged] {
        let texts = svg_texts(path);
        // The pairing in both panels' legends (the match's title is the
        // pairing too), and the SPRT's bounds.
        let legends = texts
            .iter()
            .skip(1)
            .filter(|t| **t == "ab3 vs mcts")
            .count();
        assert_eq!(legends, 2, "{texts:?}");
        for bound in [
            "upper bound: accept H1",
            "lower bound: accept H0",
            "SPRT: H0 says",
        ] {
            assert!(texts.iter().any(|t| t.starts_with(bound)), "{texts:?}");
        }
    }
}

/// A picture an experiment draws (its file name without `.svg`) and the
/// series, ticks and notes it must show.
type Picture = (&'static str, &'static [&'static str]);

#[test]
fn each_experiment_at_a_tiny_size_writes_its_table_and_pictures() {
    let dir = scratch("experiments");
    // (experiment, extra arguments, its pictures and the series each shows)
    let cases: [(&str, &[&str], &[Picture]); 5] = [
        (
            "vs-random",
            &["--games", "2"],
            &[(
                "A-win-rate",
                &[
                    "ours: 2 games, both colours",
                    "the report: 100 games as first",
                    "alphabeta-4",
                    "expectimax-2",
                ],
            )],
        ),
        (
            "B",
            &["--games", "2"],
            &[("B-elo", &["local-4 vs greedy", "local-4 vs windows-4"])],
        ),
        (
            "learning",
            &["--games", "2"],
            &[
                (
                    "C-learning-curve",
                    &["wins", "draws", "mean reward", "mean length"],
                ),
                (
                    "C-budgets",
                    &["MCTS as first", "MCTS as second", "simulations per move"],
                ),
            ],
        ),
        (
            "depth-tables",
            &["--games", "2", "--max-depth", "2"],
            &[
                (
                    "D-win-rate",
                    &[
                        "1: untuned vs random evaluator",
                        "2: untuned vs tuned",
                        "3: tuned vs random evaluator",
                        "Each pairing E1 vs E2",
                    ],
                ),
                (
                    "D-nodes",
                    &["untuned, with pruning", "untuned, without pruning"],
                ),
                (
                    "D-tuning",
                    &["kept", "rejected", "consecutive", "alignment"],
                ),
            ],
        ),
        (
            "E",
            &["--games", "2", "--max-depth", "3"],
            &[(
                "E-nodes",
                &[
                    "minimax (measured)",
                    "alpha-beta (measured)",
                    "full tree, sum of b^i",
                    "minimal tree (perfect ordering)",
                ],
            )],
        ),
    ];
    for (name, extra, pictures) in cases {
        arena()
            .args(["experiment", name, "--out"])
            .arg(&dir)
            .args(extra)
            .assert()
            .success()
            .stdout(predicate::str::contains("done in"));
        let letter = &pictures[0].0[..1];
        let table = std::fs::read_to_string(dir.join(format!("{letter}.md"))).unwrap();
        assert!(table.starts_with(&format!("### {letter}.")), "{table}");
        assert!(table.contains("|---|"), "{table}");
        let csv = std::fs::read_to_string(dir.join(format!("{letter}.csv"))).unwrap();
        assert!(csv.lines().count() >= 2, "{csv}");
        for (picture, series) in pictures {
            let texts = svg_texts(&dir.join(format!("{picture}.svg")));
            for s in series.iter() {
                // A series' name whole, or a note's first words.
                assert!(
                    texts.iter().any(|t| t.starts_with(s)),
                    "{picture}: no '{s}' in {texts:?}"
                );
            }
        }
    }
    arena()
        .args(["experiment", "--list"])
        .assert()
        .success()
        .stdout(predicate::str::contains("E  node-counts"));
    arena()
        .args(["experiment", "F"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "no experiment 'F'; the experiments: vs-random (A)",
        ));
}
