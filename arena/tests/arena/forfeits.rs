//! Engines that misbehave on cue (`examples/fake_engine.rs`) and how a run
//! survives them: forfeits with their reasons, clocks, crashes, floods,
//! signals, processes that must not outlive the arena, and specs that are
//! wrong.

use std::process::Stdio;
use std::time::{Duration, Instant};

use connect4_match::ending::Reason;
use connect4_match::log::GameLine;
use predicates::prelude::*;

use crate::common;
use common::*;

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
            assert_eq!(g.loser(), Some("bad"), "{mode}");
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

/// A clock test: an engine that takes 700 ms of a 50 ms move time (and
/// the 100 ms margin) loses on time, however loaded the machine; one that
/// overruns its clock loses on time on the move it overruns.
#[test]
fn clock_an_engine_over_its_clock_or_its_movetime_loses_on_time() {
    let (out, log) = against_fake("slow-move=700", "movetime=50");
    assert_eq!(log.len(), 2, "{out}");
    for g in &log {
        assert_eq!(g.reason, Reason::Time, "{g:?}");
        assert_eq!(g.loser(), Some("bad"), "{g:?}");
    }
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
        // margin) for the second move, which it loses on time. On a machine
        // so loaded that the first move alone took the 400 ms, it loses on
        // that one: still on time, and never later.
        let bad_moves = g
            .plies
            .iter()
            .enumerate()
            .filter(|(i, _)| (i % 2 == 0) == (g.first == "bad"))
            .count();
        assert!(bad_moves <= 1, "{g:?}");
        let detail = g.detail.as_deref().unwrap();
        assert!(
            detail.contains("budget") || detail.contains("allowed"),
            "{g:?}"
        );
    }
}

#[test]
fn clock_a_pong_only_engine_loses_on_time_after_the_max_move_time() {
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
        ))
        .stderr(predicate::str::contains("--keep-going plays on"));
    assert!(read_log(&log).len() < 40);
}

/// Issue #47, item 1: with --keep-going a tournament plays every game of
/// a broken engine (lost with their reasons) and ends with the table.
#[test]
fn keep_going_plays_every_game_of_a_broken_engine() {
    let dir = scratch("keep-going");
    let log = dir.join("games.jsonl");
    arena()
        .args(["tournament", "--engine", &fake("illegal")])
        .args(["--engine", "name=good,cmd=self,depth=1"])
        .args(["--engine", "name=greedy,cmd=self,option.agent=greedy"])
        .args(["--games", "4", "--keep-going", "--log"])
        .arg(&log)
        .assert()
        .success()
        .stdout(predicate::str::contains("illegal move: 8"))
        .stderr(predicate::str::contains("note: engine 'bad' ("))
        .stderr(predicate::str::contains(
            "lost each of its first 3 games by illegal move",
        ));
    let games = read_log(&log);
    assert_eq!(games.len(), 12);
    let bad: Vec<&GameLine> = games
        .iter()
        .filter(|g| g.first == "bad" || g.second == "bad")
        .collect();
    assert_eq!(bad.len(), 8);
    assert!(
        bad.iter()
            .all(|g| g.reason == Reason::IllegalMove && g.loser() == Some("bad"))
    );
}

/// Issue #69, item 7: `tournament --keep-going` stopped at the first
/// engine that could not start (a missing program, a syntax error: the
/// common case in a class); now that engine loses its games by forfeit,
/// with the reason, and the others play on.
#[test]
fn keep_going_plays_on_past_an_engine_that_cannot_start() {
    let dir = scratch("keep-going-start");
    let log = dir.join("games.jsonl");
    arena()
        .args(["tournament", "--engine", "name=missing,cmd=/no/such/engine"])
        .args(["--engine", "name=good,cmd=self,depth=1"])
        .args(["--engine", "name=greedy,cmd=self,option.agent=greedy"])
        .args(["--games", "2", "--keep-going", "--log"])
        .arg(&log)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "engine 'missing' (/no/such/engine) does not start",
        ))
        .stderr(predicate::str::contains(
            "it loses its games by forfeit (--keep-going)",
        ));
    let games = read_log(&log);
    assert_eq!(games.len(), 6);
    let missing: Vec<&GameLine> = games
        .iter()
        .filter(|g| g.first == "missing" || g.second == "missing")
        .collect();
    assert_eq!(missing.len(), 4);
    assert!(
        missing
            .iter()
            .all(|g| g.reason == Reason::Crash && g.loser() == Some("missing"))
    );
}

/// Issue #69, item 2: a double-forked `setsid` daemon left its engine's
/// process group and outlived everything (a tournament left 29 such
/// sleepers). The arena is now their subreaper and ends them after each
/// game, whatever group or session they moved to.
#[test]
fn a_daemon_that_leaves_its_group_does_not_outlive_the_run() {
    let dir = scratch("setsid-daemon");
    let engine = dir.join("engine");
    write_script(
        &engine,
        &format!(
            "#!/bin/sh\n(setsid sh -c 'sleep 311' </dev/null >/dev/null 2>&1 &)\nexec '{}' --agent random\n",
            built("connect4").display()
        ),
    );
    arena()
        .args(["match", "--engine"])
        .arg(format!("name=daemon,cmd={}", engine.display()))
        .args(["--engine", "name=good,cmd=self,depth=1"])
        .args(["--games", "4", "--concurrency", "2"])
        .assert()
        .success();
    assert_eq!(processes_with(&["sleep 311"]), Vec::<u32>::new());
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
fn ctrl_c_finishes_running_games_and_the_log_resumes() {
    interrupt_finishes_running_games("-INT", false);
}

#[test]
fn sigterm_to_every_process_as_from_scancel_stops_the_run_and_scores_no_crash() {
    interrupt_finishes_running_games("-TERM", true);
}

/// The games of the interrupted match.
const GAMES: &str = "100000";

/// Sends `signal` to a match once two games are logged (with `everyone`,
/// to its engines too, as Slurm's `scancel` does): it stops with 130, says
/// how to resume, and its log holds each finished game once, none lost to
/// a crash or stall the signal caused.
fn interrupt_finishes_running_games(signal: &str, everyone: bool) {
    let dir = scratch(&format!("signal{signal}"));
    let log = dir.join("games.jsonl");
    // Far more games than any machine plays before the signal arrives (40
    // took 1.5 s in a CI run, which then ended before its Ctrl-C), so that
    // the test never races the engines.
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin!("connect4-arena"))
        .args([
            "match", "--engine", DEEP, "--engine", MCTS, "--games", GAMES, "--log",
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
    assert!(games.len() < GAMES.parse().unwrap());
    let mut numbers = game_numbers(&games);
    numbers.dedup();
    assert_eq!(numbers.len(), games.len(), "no game twice");
    let lost = games
        .iter()
        .filter(|g| matches!(g.reason, Reason::Crash | Reason::Stall))
        .count();
    assert_eq!(lost, 0, "no game scored as lost to the signal");
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
    // An option the engine refuses: its message whole, with the names it
    // knows (it was cut at 120 characters, before them).
    arena()
        .args(["match", "--engine", "name=a,cmd=self,option.agent=nope"])
        .args(["--engine", "name=b,cmd=self"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "unknown agent 'nope'; agents: solver, random, greedy, minimax, alphabeta, \
             expectimax, mcts, qlearning",
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

/// Issue #43, item 3: a match whose engine crashed shows why: the first
/// crash's last lines of stderr (its traceback), and where the rest are.
#[test]
fn a_crash_shows_its_traceback_after_the_table() {
    let dir = common::scratch("crash-traceback");
    let log = dir.join("games.jsonl");
    common::arena()
        .args(["match", "--engine", &common::fake("traceback")])
        .args([
            "--engine",
            "name=g,cmd=self,option.agent=greedy",
            "--games",
            "2",
            "--log",
        ])
        .arg(&log)
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "bad crashed in 2 game(s); the first, game",
        ))
        .stdout(predicates::str::contains(
            "    Traceback (most recent call last):",
        ))
        .stdout(predicates::str::contains(
            "    ZeroDivisionError: division by zero",
        ))
        .stdout(predicates::str::contains(format!(
            "every engine's stderr is kept in {}.stderr",
            log.display()
        )));
}
