//! The `connect4` binary's subcommands, driven as a user would.

use assert_cmd::Command;
use predicates::prelude::*;

fn connect4() -> Command {
    Command::cargo_bin("connect4").expect("the binary is built")
}

#[test]
fn perft_prints_the_count() {
    connect4()
        .args(["perft", "5"])
        .assert()
        .success()
        .stdout(predicate::str::contains("perft 5 (7x6x4): 4263 positions"));
    connect4()
        .args(["perft", "2", "--rules", "4x4x3"])
        .assert()
        .success()
        .stdout(predicate::str::contains("16 positions"));
}

#[test]
fn bad_rules_say_which_bound() {
    connect4()
        .args(["perft", "2", "--rules", "10x6x4"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "columns = 10: must be between 4 and 9",
        ));
}
