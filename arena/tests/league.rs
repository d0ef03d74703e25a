//! `league` end to end: submissions checked before they enter (a broken
//! one refused with why), anchors rated once and never moved, ladder
//! rounds that survive a `kill -9` with no game lost or counted twice, a
//! resubmission starting afresh, and a final round.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::prelude::*;
use predicates::prelude::*;

mod common;
use common::*;

/// A submission folder whose `engine` runs `program` with `args`.
fn submission(dir: &Path, program: &Path, args: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(dir).unwrap();
    let script = dir.join("engine");
    std::fs::write(
        &script,
        format!("#!/bin/sh\nexec '{}' {args}\n", program.display()),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The league's command on `dir` with the drop folder and config of
/// `root`.
fn league(root: &Path, extra: &[&str]) -> Command {
    let mut command = Command::new(arena_path());
    command
        .args(["league", "--dir"])
        .arg(root.join("league"))
        .arg("--submissions")
        .arg(root.join("drop"))
        .arg("--config")
        .arg(root.join("league.toml"))
        .args(["--concurrency", "2", "--calibration-pairs", "2"])
        .args(extra);
    command
}

/// The game numbers of the league's games.jsonl.
fn game_ids(root: &Path) -> Vec<u64> {
    let mut ids = game_numbers(&read_log(&root.join("league/games.jsonl")));
    ids.sort();
    ids
}

#[test]
fn a_league_checks_rates_survives_a_kill_and_ends_with_a_final_round() {
    let root = scratch("league");
    let c4 = built("connect4");
    submission(&root.join("drop/alice"), &c4, "--agent greedy");
    submission(&root.join("drop/bob"), &c4, "--agent random");
    submission(
        &root.join("drop/carol"),
        &built("examples/fake_engine"),
        "illegal",
    );
    // The margin: a loaded CI machine stalls a process for hundreds of ms,
    // and a validation game lost on time would refuse alice.
    std::fs::write(
        root.join("league.toml"),
        "[submission]\nkind = \"engine\"\n\n[time]\nmove_ms = 20\nmargin_ms = 3000\n",
    )
    .unwrap();
    let first = league(&root, &["--rounds", "1"]).output().unwrap();
    let out = String::from_utf8_lossy(&first.stdout);
    assert!(
        first.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert!(out.contains("alice: a new submission entered"), "{out}");
    assert!(
        out.contains("carol: refused: the validation game against itself was lost"),
        "{out}"
    );
    assert!(out.contains("perfect (anchor)"), "{out}");
    // The anchors are rated once: their ratings stay.
    let status = |root: &Path| {
        let out = Command::new(arena_path())
            .args(["league", "--dir"])
            .arg(root.join("league"))
            .arg("--status")
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let anchors = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.contains("(anchor)"))
            .map(|l| l[4..60].to_string())
            .collect()
    };
    let before = status(&root);
    // A run killed part way (kill -9) loses nothing and counts nothing twice.
    let mut running = league(&root, &["--rounds", "5"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let db_games = || game_ids(&root).len();
    let at_start = db_games();
    while db_games() == at_start && started.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(200));
    }
    std::thread::sleep(Duration::from_millis(300));
    running.kill().unwrap();
    running.wait().unwrap();
    league(&root, &["--rounds", "1"]).assert().success();
    let ids = game_ids(&root);
    let mut unique = ids.clone();
    unique.dedup();
    assert_eq!(ids, unique, "a game was recorded twice");
    let after = status(&root);
    assert!(
        after.contains("replayed in order: each counted once"),
        "{after}"
    );
    let mut sorted_before = anchors(&before);
    let mut sorted_after = anchors(&after);
    sorted_before.sort();
    sorted_after.sort();
    let rating_of = |rows: &[String]| -> Vec<String> {
        rows.iter()
            .map(|r| {
                r.split_whitespace()
                    .skip(1)
                    .take(3)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    };
    assert_eq!(
        rating_of(&sorted_before),
        rating_of(&sorted_after),
        "the anchors moved:\n{before}\n{after}"
    );
    // Every ladder game counts once for each side.
    let log = read_log(&root.join("league/games.jsonl"));
    let ladder_games = log.iter().filter(|g| !g.first.contains("anchor")).count();
    assert!(ladder_games > 0);
    // A resubmission starts afresh.
    std::fs::write(root.join("drop/bob/notes.txt"), "v2").unwrap();
    league(&root, &["--rounds", "1"])
        .assert()
        .success()
        .stdout(predicate::str::contains("bob: a new submission entered"));
    let now = status(&root);
    assert!(now.contains("bob v2"), "{now}");
    assert!(!now.contains("bob v1"), "{now}");
    // The final round: every pairing of the latest submissions.
    league(&root, &["--final"])
        .assert()
        .success()
        .stdout(predicate::str::contains("alice v1").and(predicate::str::contains("bob v2")));
    let table = std::fs::read_to_string(root.join("league/final.txt")).unwrap();
    assert!(table.lines().nth(2).unwrap().contains(" v"), "{table}");
}
