//! No output may overwrite an input: a run's log, a report's logs, a
//! grading's config or the student's own files are refused as outputs,
//! before anything is written, and left as they were.

use crate::common;

use std::path::Path;

use common::{arena, grading_with_log, scratch};
use predicates::prelude::*;

/// A short match of two quick engines logged to `log`.
fn short_match(log: &Path) -> assert_cmd::Command {
    let mut cmd = arena();
    cmd.args([
        "match",
        "--engine",
        "name=a,cmd=self,option.agent=greedy",
        "--engine",
        "name=b,cmd=self,option.agent=random",
        "--games",
        "2",
        "--log",
    ])
    .arg(log);
    cmd
}

#[test]
fn a_match_refuses_every_output_on_its_log() {
    let dir = scratch("outputs-match");
    let log = dir.join("games.jsonl");
    short_match(&log).assert().success();
    let before = std::fs::read(&log).unwrap();
    for flag in ["--summary", "--csv", "--plot", "--debug"] {
        short_match(&log)
            .arg(flag)
            .arg(dir.join(".").join("games.jsonl"))
            .assert()
            .failure()
            .stderr(predicate::str::contains(format!("{flag} ")))
            .stderr(predicate::str::contains("is the same file as --log"));
        assert_eq!(std::fs::read(&log).unwrap(), before, "{flag}");
    }
    // Two outputs on one file.
    short_match(&log)
        .arg("--summary")
        .arg(dir.join("out"))
        .arg("--csv")
        .arg(dir.join("out"))
        .assert()
        .failure()
        .stderr(predicate::str::contains("--summary and --csv both name"));
}

#[test]
fn a_report_and_a_merge_refuse_to_write_over_a_log() {
    let dir = scratch("outputs-report");
    let log = dir.join("games.jsonl");
    short_match(&log).assert().success();
    let before = std::fs::read(&log).unwrap();
    arena()
        .arg("report")
        .arg(&log)
        .arg("--html")
        .arg(&log)
        .assert()
        .failure()
        .stderr(predicate::str::contains("--html"))
        .stderr(predicate::str::contains("same file as the log"));
    arena()
        .arg("merge")
        .arg(&log)
        .arg("--csv")
        .arg(&log)
        .assert()
        .failure()
        .stderr(predicate::str::contains("same file as the log"));
    assert_eq!(std::fs::read(&log).unwrap(), before);
}

#[test]
fn a_grading_never_writes_over_its_config_the_submission_or_a_file_that_is_no_grading_log() {
    let dir = scratch("outputs-grade");
    let config = dir.join("grader.toml");
    std::fs::write(&config, "kind = \"engine\"\n").unwrap();
    let submission = dir.join("submission");
    std::fs::create_dir_all(&submission).unwrap();
    let policy = submission.join("policy.py");
    let source = "def policy(board):\n    return 3\n";
    std::fs::write(&policy, source).unwrap();
    // --log onto the config.
    grading_with_log(&dir, &config)
        .assert()
        .failure()
        .stderr(predicate::str::contains("not a game of a grading log"));
    // --results onto the config.
    arena()
        .args(["grade", "--engine", "name=s,cmd=self,option.agent=greedy"])
        .arg("--config")
        .arg(&config)
        .arg("--results")
        .arg(&config)
        .assert()
        .failure()
        .stderr(predicate::str::contains("same file as --config"));
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        "kind = \"engine\"\n"
    );
    // --log onto the student's own policy.
    arena()
        .args(["grade", "--kind", "policy", "--submission"])
        .arg(&submission)
        .arg("--results")
        .arg(dir.join("results.json"))
        .arg("--log")
        .arg(&policy)
        .assert()
        .failure()
        .stderr(predicate::str::contains("lies inside --submission"));
    assert_eq!(std::fs::read_to_string(&policy).unwrap(), source);
    // Any other file that is not a grading log.
    let notes = dir.join("notes.txt");
    std::fs::write(&notes, "my notes\n").unwrap();
    grading_with_log(&dir, &notes)
        .assert()
        .failure()
        .stderr(predicate::str::contains("line 1 is not a game"));
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "my notes\n");
    assert!(!dir.join("results.json").exists());
}

/// Issue #42, item 8: a log changed by hand is not resumed (nor merged)
/// silently: a swapped result, a result the arena never writes, illegal
/// moves, and another engine's name are each named.
#[test]
fn a_tampered_log_is_refused_with_what_is_wrong() {
    let dir = scratch("tampered");
    let log = dir.join("games.jsonl");
    short_match(&log).assert().success();
    let text = std::fs::read_to_string(&log).unwrap();
    let mut first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    // A game won on the board (greedy against random, seeded): its result
    // swapped no longer fits.
    assert_eq!(first["reason"], "line", "{first}");
    let swapped = match first["result"].as_str().unwrap() {
        "1-0" => "0-1",
        "0-1" => "1-0",
        _ => "1-0",
    };
    let cases: Vec<(&str, serde_json::Value, &str)> = vec![
        (
            "result",
            serde_json::json!(swapped),
            "does not fit the final position",
        ),
        (
            "result",
            serde_json::json!("2-0"),
            "result '2-0' is none of",
        ),
        ("moves", serde_json::json!("8888"), "moves '8888'"),
        ("first", serde_json::json!("mallory"), "is mallory vs"),
    ];
    let rest: String = text.lines().skip(1).map(|l| format!("{l}\n")).collect();
    for (field, value, says) in cases {
        let saved = first[field].clone();
        first[field] = value;
        std::fs::write(&log, format!("{first}\n{rest}")).unwrap();
        let out = short_match(&log).assert().failure();
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(stderr.contains(says), "{field}: {stderr}");
        assert!(!stderr.contains("another run"), "{field}: {stderr}");
        if field != "first" {
            arena()
                .arg("merge")
                .arg(&log)
                .assert()
                .failure()
                .stderr(predicate::str::contains(says));
        }
        first[field] = saved;
    }
}
