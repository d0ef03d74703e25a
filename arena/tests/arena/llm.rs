//! `connect4-arena llm`: a model played through the chat-completions API,
//! against the stand-in server (`llm stand-in`), which answers well,
//! badly, illegally, with no move, slowly, with 429s, with bodies that are
//! not JSON and with 503s, as its model's name says. The real client runs
//! unchanged; nothing here needs a network.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Stdio};

use serde_json::Value;

use crate::common::{arena, arena_path, scratch};

/// A stand-in server, ended with the test.
struct StandIn {
    child: Child,
    url: String,
}

impl Drop for StandIn {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl StandIn {
    /// A stand-in on a free loopback port, with `args`.
    fn start(args: &[&str]) -> StandIn {
        let mut child = std::process::Command::new(arena_path())
            .args(["llm", "stand-in", "--listen", "127.0.0.1:0"])
            .args(args)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        StandIn {
            child,
            url: first.trim().to_string(),
        }
    }

    /// `GET /stats`.
    fn stats(&self) -> Value {
        let address = self
            .url
            .trim_start_matches("http://")
            .trim_end_matches("/v1");
        let mut stream = TcpStream::connect(address).unwrap();
        write!(stream, "GET /stats HTTP/1.0\r\nHost: {address}\r\n\r\n").unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        let body = response.split("\r\n\r\n").nth(1).unwrap();
        serde_json::from_str(body).unwrap()
    }

    /// `llm play` of `model` against it: 2 games against random unless
    /// `args` say otherwise, the log at `log`.
    fn play(&self, model: &str, log: &Path, args: &[&str]) -> assert_cmd::Command {
        let mut command = arena();
        command
            .args(["llm", "play", "--base-url", &self.url, "--model", model])
            .args(["--against", "random", "--opponent-movetime-ms", "20"])
            .args(["--backoff-ms", "1", "--log"])
            .arg(log)
            .args(args)
            .env_remove("OPENAI_API_KEY");
        if !args.contains(&"--games") {
            command.args(["--games", "2"]);
        }
        command
    }
}

/// What a finished command wrote on its standard output.
fn stdout_of(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stdout).into_owned()
}

/// What a finished command wrote on its standard error.
fn stderr_of(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stderr).into_owned()
}

/// The log's lines.
fn lines(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Each answer of a line.
fn answers(line: &Value) -> Vec<&Value> {
    line["llm"]["turns"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["answers"].as_array().unwrap())
        .collect()
}

#[test]
fn a_perfect_model_keeps_every_value_and_the_log_holds_each_prompt_and_answer() {
    let dir = scratch("llm-perfect");
    let server = StandIn::start(&[]);
    let log = dir.join("games.jsonl");
    let out = server
        .play("perfect", &log, &["--concurrency", "2"])
        .assert()
        .success();
    let stdout = stdout_of(&out);
    assert!(
        stdout.contains("Model perfect: 2 games; accuracy 100.0%"),
        "{stdout}"
    );
    assert!(
        stdout.contains("| random | 2 | 2 | 0 | 0 | 0 |"),
        "{stdout}"
    );
    let games = lines(&log);
    assert_eq!(games.len(), 2);
    for game in &games {
        assert_eq!(
            game["result"],
            if game["llm"]["seat"] == "first" {
                "1-0"
            } else {
                "0-1"
            }
        );
        let turns = game["llm"]["turns"].as_array().unwrap();
        let first = &turns[0]["messages"];
        assert_eq!(first[0]["role"], "user");
        assert!(
            first[0]["content"]
                .as_str()
                .unwrap()
                .contains("Moves so far (columns from 0): ")
        );
        assert_eq!(first[1]["role"], "assistant");
        assert!(
            game["llm"]["system"]
                .as_str()
                .unwrap()
                .contains("7 columns and 6 rows")
        );
        let verdicts = game["llm"]["verdicts"].as_array().unwrap();
        assert_eq!(verdicts.len(), turns.len());
        assert!(verdicts.iter().all(|v| v["kept"] != false), "{verdicts:?}");
        assert!(verdicts.iter().any(|v| v["kept"] == true));
        // The model's columns are read as it was told them: from 0.
        assert_eq!(game["zero_based"][0], "llm:perfect");
    }
    // The arena reads the log as any other: its report page takes it.
    arena()
        .arg("report")
        .arg(&log)
        .arg("--html")
        .arg(dir.join("report.html"))
        .assert()
        .success();
    // With the model's figures above the arena's tables.
    let page = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(page.contains("<h3>The model perfect, judged by the solver</h3>"));
    assert!(page.contains("<p>Model perfect: 2 games; accuracy 100.0%"));
    assert!(page.contains("<td class=\"name\">random</td><td>2</td><td>2</td>"));
    // Read again, the summary is the same.
    let again = arena().args(["llm", "report"]).arg(&log).assert().success();
    assert_eq!(stdout_of(&again), stdout);
}

#[test]
fn answers_that_are_no_legal_move_are_asked_again_then_forfeit_and_are_counted() {
    let dir = scratch("llm-illegal");
    let server = StandIn::start(&[]);
    for (model, reason) in [("illegal", "illegal move"), ("babble", "protocol")] {
        let log = dir.join(format!("{model}.jsonl"));
        let out = server
            .play(model, &log, &["--retries", "2"])
            .assert()
            .success();
        let stdout = stdout_of(&out);
        assert!(
            stdout.contains("6 illegal answers of 6 (100.0%)"),
            "{stdout}"
        );
        assert!(
            stdout.contains("| random | 2 | 0 | 0 | 2 | 2 |"),
            "{stdout}"
        );
        for game in lines(&log) {
            assert_eq!(game["reason"], reason);
            let detail = game["detail"].as_str().unwrap();
            assert!(
                detail.starts_with("3 answers, none a legal move; the last: "),
                "{detail}"
            );
            assert_eq!(answers(&game).len(), 3);
            // Each answer but the last was followed by what was wrong.
            let messages = game["llm"]["turns"][0]["messages"].as_array().unwrap();
            let roles: Vec<&str> = messages
                .iter()
                .map(|m| m["role"].as_str().unwrap())
                .collect();
            assert_eq!(
                roles,
                [
                    "user",
                    "assistant",
                    "user",
                    "assistant",
                    "user",
                    "assistant"
                ]
            );
            assert!(
                messages[2]["content"]
                    .as_str()
                    .unwrap()
                    .starts_with("That is not a legal move")
            );
        }
    }
    // Told what was wrong, the second try is a move: no forfeit, one
    // illegal answer a turn.
    let log = dir.join("second-try.jsonl");
    server.play("second-try", &log, &[]).assert().success();
    for game in lines(&log) {
        assert!(game["detail"].is_null(), "{game}");
        let turns = game["llm"]["turns"].as_array().unwrap();
        for turn in turns {
            let a = turn["answers"].as_array().unwrap();
            assert_eq!(a.len(), 2);
            assert_eq!(
                a[0]["problem"],
                "column 99 does not exist: the columns are 0 to 6"
            );
            assert!(a[1]["problem"].is_null());
        }
    }
    // A move weighed while thinking is not the move.
    let log = dir.join("thinker.jsonl");
    let out = server.play("thinker", &log, &[]).assert().success();
    let stdout = stdout_of(&out);
    assert!(
        stdout.contains("accuracy 100.0%") && stdout.contains(" 0 illegal answers"),
        "{stdout}"
    );
}

#[test]
fn rate_limits_and_bodies_that_are_not_json_are_tried_again() {
    let dir = scratch("llm-retries");
    let server = StandIn::start(&[]);
    for model in ["rate-limited", "garbled"] {
        let before = server.stats()["requests"].as_u64().unwrap();
        let log = dir.join(format!("{model}.jsonl"));
        server
            .play(model, &log, &["--concurrency", "1"])
            .assert()
            .success();
        let games = lines(&log);
        let answered: u64 = games
            .iter()
            .flat_map(answers)
            .map(|a| a["requests"].as_u64().unwrap())
            .sum();
        let count = games.iter().flat_map(answers).count() as u64;
        // Every other request failed and was made again.
        assert_eq!(answered, 2 * count, "{model}");
        assert_eq!(
            server.stats()["requests"].as_u64().unwrap() - before,
            answered
        );
    }
}

#[test]
fn a_server_that_stays_down_stops_the_run_and_the_same_command_goes_on() {
    let dir = scratch("llm-down");
    let server = StandIn::start(&[]);
    let log = dir.join("down.jsonl");
    let out = server
        .play("down", &log, &["--http-retries", "2"])
        .assert()
        .failure();
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("no answer after 3 tries; the last: HTTP 503: "),
        "{stderr}"
    );
    assert!(stderr.contains("2 of 2 games left unplayed"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "");
    // A token cap stops a run between games; run again with a larger one,
    // it plays the games left and no other.
    let log = dir.join("capped.jsonl");
    let args = ["--games", "4", "--concurrency", "1", "--max-total-tokens"];
    let out = server
        .play("perfect", &log, &[&args[..], &["1"]].concat())
        .assert()
        .failure();
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("3 of 4 games left unplayed: the token cap is spent"),
        "{stderr}"
    );
    assert_eq!(lines(&log).len(), 1);
    server
        .play("perfect", &log, &[&args[..], &["100000000"]].concat())
        .assert()
        .success();
    let numbers: Vec<u64> = lines(&log)
        .iter()
        .map(|g| g["game"].as_u64().unwrap())
        .collect();
    assert_eq!(numbers, [1, 2, 3, 4]);
    let before = server.stats()["requests"].as_u64().unwrap();
    server
        .play("perfect", &log, &[&args[..], &["100000000"]].concat())
        .assert()
        .success();
    assert_eq!(
        server.stats()["requests"].as_u64().unwrap(),
        before,
        "nothing played again"
    );
    // The log of other settings is not continued.
    let out = server
        .play("perfect", &log, &["--games", "6"])
        .assert()
        .failure();
    let stderr = stderr_of(&out);
    assert!(stderr.contains("holds games of another run"), "{stderr}");
}

#[test]
fn a_wrong_key_or_model_is_refused_at_once_and_no_key_is_ever_written() {
    let dir = scratch("llm-key");
    let server = StandIn::start(&["--key", "sk-right-1234"]);
    let log = dir.join("key.jsonl");
    let out = server
        .play(
            "perfect",
            &log,
            &["--api-key-env", "C4_TEST_KEY", "--concurrency", "1"],
        )
        .env("C4_TEST_KEY", "sk-wrong-5678")
        .assert()
        .failure();
    let refused = [stdout_of(&out), stderr_of(&out)].concat();
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("the server refused the request: HTTP 401"),
        "{stderr}"
    );
    assert_eq!(server.stats()["requests"], 1, "not asked again");
    let out = server
        .play("nonesuch", &log, &["--api-key-env", "C4_TEST_KEY"])
        .env("C4_TEST_KEY", "sk-right-1234")
        .assert()
        .failure();
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("HTTP 404") && stderr.contains("The model 'nonesuch' does not exist"),
        "{stderr}"
    );
    let out = server
        .play("perfect", &log, &["--api-key-env", "C4_TEST_KEY"])
        .env("C4_TEST_KEY", "sk-right-1234")
        .assert()
        .success();
    let all = [
        refused,
        stdout_of(&out),
        stderr_of(&out),
        std::fs::read_to_string(&log).unwrap(),
    ]
    .concat();
    assert!(!all.contains("sk-right") && !all.contains("sk-wrong"));
}

#[test]
fn a_server_that_does_not_answer_in_time_is_given_up_on() {
    let dir = scratch("llm-slow");
    let server = StandIn::start(&["--slow-ms", "600000"]);
    let log = dir.join("slow.jsonl");
    let out = server
        .play("slow", &log, &["--timeout", "1", "--http-retries", "1"])
        .assert()
        .failure();
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("no answer after 2 tries; the last: no answer within 1 s (--timeout)"),
        "{stderr}"
    );
}

#[test]
fn no_more_requests_are_in_flight_than_the_concurrency_allows() {
    let dir = scratch("llm-concurrency");
    let server = StandIn::start(&["--slow-ms", "50"]);
    let log = dir.join("one.jsonl");
    server
        .play("slow", &log, &["--games", "4", "--concurrency", "1"])
        .assert()
        .success();
    assert_eq!(server.stats()["most_in_flight"], 1);
}

#[test]
fn a_log_of_the_arena_s_games_is_not_taken_for_a_model_s() {
    let dir = scratch("llm-not-a-model");
    let log = dir.join("arena.jsonl");
    arena()
        .args([
            "match",
            "--engine",
            "name=a,cmd=self,depth=1",
            "--engine",
            "name=b,cmd=self,depth=1",
        ])
        .args(["--games", "2", "--concurrency", "1", "--log"])
        .arg(&log)
        .assert()
        .success();
    // Its report has no model's figures.
    arena()
        .arg("report")
        .arg(&log)
        .arg("--html")
        .arg(dir.join("arena.html"))
        .assert()
        .success();
    let page = std::fs::read_to_string(dir.join("arena.html")).unwrap();
    assert!(!page.contains("log-extra"));
    let out = arena().args(["llm", "report"]).arg(&log).assert().failure();
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("line 1 is not a game the arena could have logged: missing field `llm`"),
        "{stderr}"
    );
}

#[test]
fn the_stand_in_runs_inside_the_command_when_asked() {
    let dir = scratch("llm-inside");
    let log = dir.join("inside.jsonl");
    arena()
        .args(["llm", "play", "--stand-in", "--model", "second-try"])
        .args([
            "--against",
            "random",
            "--games",
            "2",
            "--backoff-ms",
            "1",
            "--log",
        ])
        .arg(&log)
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "Model second-try: 2 games; accuracy 100.0%",
        ));
    assert_eq!(lines(&log).len(), 2);
    // Either a server or the stand-in, not both.
    arena()
        .args([
            "llm",
            "play",
            "--stand-in",
            "--base-url",
            "http://127.0.0.1:9/v1",
        ])
        .args(["--model", "perfect"])
        .assert()
        .failure()
        .stderr(predicates::str::contains("cannot be used with"));
}
