//! The arena binary: a real match between engine processes, and forfeits
//! by engines that misbehave.

use assert_cmd::Command;
use predicates::prelude::*;

fn arena() -> Command {
    Command::new(assert_cmd::cargo::cargo_bin!("connect4-arena"))
}

#[test]
fn a_match_between_two_engine_processes_logs_every_game() {
    let log = std::env::temp_dir().join(format!("arena-log-{}.jsonl", std::process::id()));
    std::fs::remove_file(&log).ok();
    arena()
        .args([
            "match",
            "--engine",
            "name=deep,cmd=self,depth=4",
            "--engine",
            "name=shallow,cmd=self,depth=1",
            "--games",
            "6",
            "--concurrency",
            "2",
            "--log",
        ])
        .arg(&log)
        .assert()
        .success()
        .stdout(predicate::str::contains("deep vs shallow: +"))
        .stdout(predicate::str::contains("(6 games)"))
        .stdout(predicate::str::contains("Elo difference"));
    let text = std::fs::read_to_string(&log).unwrap();
    let games: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(games.len(), 6);
    let mut numbers: Vec<u64> = games.iter().map(|g| g["game"].as_u64().unwrap()).collect();
    numbers.sort();
    assert_eq!(numbers, vec![1, 2, 3, 4, 5, 6]);
    for g in &games {
        // Every game replays legally and ends as recorded.
        let moves = g["moves"].as_str().unwrap();
        let game = connect4::Game::from_move_string(connect4::Rules::STANDARD, moves).unwrap();
        assert!(game.position().is_over(), "{moves}");
        assert!(moves.starts_with(g["opening"].as_str().unwrap()));
    }
    // Pairs share an opening with colours swapped.
    for pair in numbers.chunks(2) {
        let a = games.iter().find(|g| g["game"] == pair[0]).unwrap();
        let b = games.iter().find(|g| g["game"] == pair[1]).unwrap();
        assert_eq!(a["opening"], b["opening"]);
        assert_eq!(a["first"], b["second"]);
    }
    std::fs::remove_file(&log).ok();
}

#[test]
fn misbehaving_engines_forfeit_with_a_reason() {
    // /bin/false exits at once (crash); /bin/cat echoes requests, which are
    // not replies (protocol error).
    for (cmd, reason) in [
        ("cmd=/bin/false", "crash: 2"),
        ("cmd=/bin/cat", "protocol: 2"),
    ] {
        arena()
            .args([
                "match",
                "--engine",
                "name=good,cmd=self,depth=1",
                "--engine",
            ])
            .arg(format!("name=bad,{cmd}"))
            .args(["--games", "2", "--concurrency", "1"])
            .assert()
            .success()
            .stdout(predicate::str::contains("good vs bad: +2 =0 -0"))
            .stdout(predicate::str::contains(reason));
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
    arena()
        .args(["match", "--engine", "cmd=self"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("exactly two --engine specs"));
}
