//! A match between engine processes: its games and log, adjudication, resume
//! after a kill, shards, the SPRT, the log's lock, `--check`, `--debug` and
//! `--plot`.

use std::path::Path;
use std::process::Stdio;

use connect4_match::ending::{GameResult, Reason};
use connect4_match::log::GameLine;
use connect4_match::results::Summary;
use predicates::prelude::*;

use crate::common;
use common::*;

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
        let game = connect4::Game::from_moves(connect4::Rules::STANDARD, moves).unwrap();
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
        let game = connect4::Game::from_moves(connect4::Rules::STANDARD, moves).unwrap();
        assert!(
            !game.position().is_over(),
            "adjudicated before the end: {moves}"
        );
        assert!(g.detail.as_ref().unwrap().contains("the solver proves"));
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
            "--time-margin".into(),
            UNHURRIED_MARGIN_MS.into(),
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
        let mut m: Vec<(u64, String, String)> = log
            .iter()
            .map(|g| {
                (
                    g.game,
                    g.moves.to_string(),
                    format!("{} {:?}", g.reason, g.detail),
                )
            })
            .collect();
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
                1.0 => GameResult::FirstWon,
                0.0 => GameResult::SecondWon,
                _ => GameResult::Draw,
            };
            // As an adjudication from the opening, the result fits the
            // position (a log's results must fit its moves to be resumed).
            g.moves = g.opening.clone();
            g.plies.clear();
            g.reason = Reason::Adjudicated;
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

/// Issue #43, item 9: a match opens its report with a one-line result, and
/// says how many of an engine's losses began from openings already lost
/// for it (the perfect player loses those too).
#[test]
fn a_match_says_its_result_first_and_which_losses_were_lost_openings() {
    arena()
        .args(["match", "--engine", "name=perfect,cmd=self,movetime=20"])
        .args(["--engine", "name=ab2,cmd=self,option.agent='alphabeta:depth=2'"])
        .args(["--games", "20", "--seed", "3"])
        .args(["--time-margin", UNHURRIED_MARGIN_MS])
        .assert()
        .success()
        .stdout(predicate::str::contains("\nresult: perfect 20 win(s), 0 draw(s), 0 loss(es) against ab2 (100.0% of the points)\n"))
        .stdout(predicate::str::contains(
            "ab2: 7 of its 20 lost game(s) began from an opening already lost for it",
        ));
}
