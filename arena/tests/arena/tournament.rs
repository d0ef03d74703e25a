//! Tournaments: the crosstable, and a gauntlet that plays only the first
//! engine; every command's help.

use connect4_match::results::Summary;
use predicates::prelude::*;

use crate::common;
use common::*;

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
