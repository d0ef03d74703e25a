//! The protocol through the real binary: transcripts, schemas, every error
//! code, go/stop sequences and a stream of garbage.

use crate::common;

use std::path::{Path, PathBuf};

use common::{Driver, matches};
use connect4::protocol::{ErrorCode, Id, Reply};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use serde_json::{Value, json};

fn protocol_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("protocol")
}

fn validator(name: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(protocol_dir().join("schema").join(name)).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn assert_valid(v: &jsonschema::Validator, value: &Value, what: &str) {
    if let Err(e) = v.validate(value) {
        panic!("{what} does not match its schema: {value}: {e}");
    }
}

/// Replays one transcript, reply by reply, and checks every message against
/// the schemas.
fn replay(path: &Path) {
    let requests = validator("request.schema.json");
    let replies = validator("reply.schema.json");
    let text = std::fs::read_to_string(path).unwrap();
    let mut engine = Driver::start();
    for (n, line) in text.lines().enumerate() {
        let where_ = format!("{}:{}", path.display(), n + 1);
        let entry: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{where_}: {e}"));
        if let Some(request) = entry.get("send") {
            assert_valid(&requests, request, &where_);
            engine.send(&request.to_string());
        } else if let Some(raw) = entry.get("send_raw").and_then(Value::as_str) {
            engine.send(raw);
        } else if let Some(expected) = entry.get("recv") {
            let wants_info = expected["type"] == "info";
            let actual = loop {
                let v = engine.recv_value();
                assert_valid(&replies, &v, &where_);
                if v["type"] != "info" || wants_info {
                    break v;
                }
            };
            assert!(
                matches(expected, &actual),
                "{where_}: expected (at least) {expected}\n got {actual}"
            );
        } else {
            panic!("{where_}: expected send, send_raw or recv");
        }
    }
    let (rest, status) = engine.finish();
    assert!(status.success(), "{}: exit {status}", path.display());
    assert!(
        rest.iter().all(|r| !r.is_final()),
        "{}: replies left over: {rest:?}",
        path.display()
    );
}

#[test]
fn transcripts_replay() {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(protocol_dir().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 5, "examples missing: {paths:?}");
    for path in paths {
        replay(&path);
    }
}

fn error_code(r: &Reply) -> Option<ErrorCode> {
    match r {
        Reply::Error { code, .. } => Some(*code),
        _ => None,
    }
}

#[test]
fn every_error_code_then_the_session_goes_on() {
    let mut e = Driver::start();
    let cases: Vec<(Vec<u8>, ErrorCode)> = vec![
        (b"{\"cmd\":\"ping\"".to_vec(), ErrorCode::BadJson),
        (vec![b'{', 0xff, 0xfe, b'}'], ErrorCode::BadJson),
        (b"\"just a string\"".to_vec(), ErrorCode::BadJson),
        (
            br#"{"cmd":"go","nodes":-5}"#.to_vec(),
            ErrorCode::BadRequest,
        ),
        (
            br#"{"cmd":"go","movetime_ms":"fast"}"#.to_vec(),
            ErrorCode::BadRequest,
        ),
        (
            br#"{"cmd":"setoption","name":"info"}"#.to_vec(),
            ErrorCode::BadRequest,
        ),
        (
            br#"{"cmd":"position","moves":{"a":1}}"#.to_vec(),
            ErrorCode::BadRequest,
        ),
        (
            br#"{"cmd":"go","depth":18446744073709551616}"#.to_vec(),
            ErrorCode::BadRequest,
        ),
        (br#"{"cmd":"GO"}"#.to_vec(), ErrorCode::UnknownCommand),
        (
            br#"{"cmd":"position","moves":"4444444"}"#.to_vec(),
            ErrorCode::IllegalMove,
        ),
        (
            br#"{"cmd":"position","moves":[1,2,3,99]}"#.to_vec(),
            ErrorCode::IllegalMove,
        ),
        (
            br#"{"cmd":"position","board":[1,2]}"#.to_vec(),
            ErrorCode::BadPosition,
        ),
        (
            br#"{"cmd":"setoption","name":"agent","value":"oracle"}"#.to_vec(),
            ErrorCode::BadOption,
        ),
    ];
    for (line, code) in cases {
        e.send_bytes(&line);
        let r = e.recv_final();
        assert_eq!(
            error_code(&r),
            Some(code),
            "{}: {r:?}",
            String::from_utf8_lossy(&line)
        );
        e.send(r#"{"cmd":"ping","id":"after"}"#);
        assert_eq!(
            e.recv_final(),
            Reply::Pong {
                id: Some(Id::Text("after".into()))
            }
        );
    }
    // game_over; then requests sent during a search wait their turn and
    // run in order once it has answered.
    e.send(r#"{"cmd":"position","moves":"1212121"}"#);
    e.recv_final();
    e.send(r#"{"cmd":"analyze"}"#);
    assert_eq!(error_code(&e.recv_final()), Some(ErrorCode::GameOver));
    e.send(r#"{"cmd":"position"}"#);
    e.recv_final();
    e.send(r#"{"cmd":"go","infinite":true,"id":"long"}"#);
    for queued in [
        r#"{"cmd":"go","depth":1,"id":1}"#,
        r#"{"cmd":"newgame","id":2}"#,
        r#"{"cmd":"setoption","name":"info","value":false,"id":3}"#,
        r#"{"cmd":"analyze","depth":1,"id":4}"#,
    ] {
        e.send(queued);
    }
    e.send(r#"{"cmd":"stop","id":"stop"}"#);
    let order: Vec<(String, Option<Id>)> = (0..6)
        .map(|_| {
            let r = e.recv_final();
            (
                format!("{r:?}")
                    .split([' ', '{'])
                    .next()
                    .unwrap()
                    .to_string(),
                r.id().cloned(),
            )
        })
        .collect();
    let ids: Vec<Option<Id>> = order.iter().map(|(_, id)| id.clone()).collect();
    assert_eq!(
        ids,
        vec![
            Some(Id::Text("long".into())),
            Some(Id::Text("stop".into())),
            Some(Id::Number(1.into())),
            Some(Id::Number(2.into())),
            Some(Id::Number(3.into())),
            Some(Id::Number(4.into())),
        ],
        "{order:?}"
    );
    // line_too_long: over 1 MiB, then a normal line still works.
    let mut long = br#"{"cmd":"ping","pad":""#.to_vec();
    long.extend(std::iter::repeat_n(b'x', (1 << 20) + 10));
    long.extend(b"\"}");
    e.send_bytes(&long);
    assert_eq!(error_code(&e.recv_final()), Some(ErrorCode::LineTooLong));
    e.send("{\"cmd\":\"ping\"}\r");
    assert_eq!(e.recv_final(), Reply::Pong { id: None });
    let (rest, status) = e.finish();
    assert!(status.success() && rest.is_empty(), "{rest:?}");
}

#[test]
fn go_and_stop_sequences_give_one_bestmove_per_go_in_order() {
    let mut e = Driver::start();
    e.send(r#"{"cmd":"setoption","name":"info","value":false}"#);
    e.recv_final();
    // stop right after go, twice.
    e.send(r#"{"cmd":"go","infinite":true,"id":1}"#);
    e.send(r#"{"cmd":"stop","id":2}"#);
    e.send(r#"{"cmd":"stop","id":3}"#);
    let got: Vec<Reply> = (0..3).map(|_| e.recv_final()).collect();
    assert!(
        matches!(&got[0], Reply::Bestmove { id: Some(Id::Number(n)), .. } if n.as_u64() == Some(1)),
        "{got:?}"
    );
    assert!(
        matches!(&got[1], Reply::Ok { id: Some(Id::Number(n)), .. } if n.as_u64() == Some(2)),
        "{got:?}"
    );
    assert!(
        matches!(&got[2], Reply::Ok { id: Some(Id::Number(n)), .. } if n.as_u64() == Some(3)),
        "{got:?}"
    );
    // go after bestmove, several times.
    for i in 10..15 {
        e.send(&json!({"cmd":"go","depth":3,"id":i}).to_string());
        match e.recv_final() {
            Reply::Bestmove {
                id: Some(Id::Number(n)),
                depth,
                ..
            } => {
                assert_eq!(n.as_u64(), Some(i));
                assert_eq!(depth, 3);
            }
            other => panic!("{other:?}"),
        }
    }
    // End of input during a search: its bestmove still comes, then exit 0.
    e.send(r#"{"cmd":"go","infinite":true,"id":"last"}"#);
    let (rest, status) = e.finish();
    assert!(status.success());
    assert_eq!(rest.len(), 1, "{rest:?}");
    assert!(matches!(&rest[0], Reply::Bestmove { id: Some(Id::Text(t)), .. } if t == "last"));
}

#[test]
fn quit_during_a_search_answers_it_first() {
    let mut e = Driver::start();
    e.send(r#"{"cmd":"setoption","name":"info","value":false}"#);
    e.recv_final();
    e.send(r#"{"cmd":"go","infinite":true}"#);
    e.send(r#"{"cmd":"quit"}"#);
    assert!(matches!(e.recv_final(), Reply::Bestmove { .. }));
    assert!(matches!(e.recv_final(), Reply::Ok { .. }));
    let (rest, status) = e.finish();
    assert!(status.success() && rest.is_empty());
}

#[test]
fn hello_ping_and_stop_never_wait_for_an_infinite_search() {
    let mut e = Driver::start();
    e.send(r#"{"cmd":"setoption","name":"info","value":false}"#);
    e.recv_final();
    // A large board: the search would run for hours.
    e.send(r#"{"cmd":"newgame","rules":{"columns":9,"rows":6,"inarow":4}}"#);
    e.recv_final();
    e.send(r#"{"cmd":"go","infinite":true,"id":"search"}"#);
    e.send(r#"{"cmd":"hello","id":"hello"}"#);
    assert!(
        matches!(e.recv_final(), Reply::Hello { id: Some(Id::Text(t)), .. } if t == "hello"),
        "{:?}",
        e.log
    );
    e.send(r#"{"cmd":"ping","id":"ping"}"#);
    assert_eq!(
        e.recv_final(),
        Reply::Pong {
            id: Some(Id::Text("ping".into()))
        }
    );
    e.send(r#"{"cmd":"hello","id":"again"}"#);
    assert!(matches!(e.recv_final(), Reply::Hello { .. }), "{:?}", e.log);
    e.send(r#"{"cmd":"stop","id":"stop"}"#);
    assert!(
        matches!(e.recv_final(), Reply::Bestmove { id: Some(Id::Text(t)), .. } if t == "search"),
        "{:?}",
        e.log
    );
    assert!(matches!(e.recv_final(), Reply::Ok { .. }), "{:?}", e.log);
    let (rest, status) = e.finish();
    assert!(status.success() && rest.is_empty(), "{rest:?}");
}

/// Issue #43, item 6: a script that ends in `quit` gets every answer: the
/// requests queued behind a search run before `quit` ends the session,
/// and the error of a malformed line comes in its turn.
#[test]
fn quit_ends_the_session_after_the_requests_before_it() {
    let mut e = Driver::start();
    for line in [
        r#"{"cmd":"setoption","name":"info","value":false,"id":0}"#,
        r#"{"cmd":"position","moves":"44","id":1}"#,
        r#"{"cmd":"go","movetime_ms":300,"id":2}"#,
        r#"{"cmd":"position","moves":"4455","id":3}"#,
        r#"{"cmd":"go","movetime_ms":300,"id":4}"#,
        r#"{"cmd":"ping""#,
        r#"{"cmd":"go","depth":2,"id":5}"#,
        r#"{"cmd":"quit","id":6}"#,
        r#"{"cmd":"ping","id":7}"#,
    ] {
        e.send(line);
    }
    let replies: Vec<Reply> = (0..8).map(|_| e.recv_final()).collect();
    let kinds: Vec<String> = replies
        .iter()
        .map(|r| {
            let kind = format!("{r:?}");
            kind.split([' ', '{']).next().unwrap().to_string()
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "Ok", "Ok", "Bestmove", "Ok", "Bestmove", "Error", "Bestmove", "Ok"
        ],
        "{replies:?}"
    );
    assert_eq!(error_code(&replies[5]), Some(ErrorCode::BadJson));
    assert_eq!(replies[7].id(), Some(&Id::Number(6.into())));
    // The ping after quit is not read: the session ended.
    let (rest, status) = e.finish();
    assert!(status.success() && rest.is_empty(), "{rest:?}");
}

/// Random and mutated lines: broken JSON, wrong types, huge numbers, deep
/// nesting, control characters, invalid UTF-8.
fn garbage(rng: &mut StdRng) -> Vec<u8> {
    const SEEDS: &[&str] = &[
        r#"{"cmd":"ping","id":1}"#,
        r#"{"cmd":"position","moves":"4453"}"#,
        r#"{"cmd":"position","moves":[4,4,5,3]}"#,
        r#"{"cmd":"position","board":[[0,0,0,0,0,0,0],[0,0,0,0,0,0,0],[0,0,0,0,0,0,0],[0,0,0,0,0,0,0],[0,0,0,2,0,0,0],[0,0,2,1,1,0,0]]}"#,
        r#"{"cmd":"go","depth":2,"id":"g"}"#,
        r#"{"cmd":"go","nodes":500}"#,
        r#"{"cmd":"go","movetime_ms":1}"#,
        r#"{"cmd":"analyze","depth":1}"#,
        r#"{"cmd":"newgame","rules":{"columns":5,"rows":4,"inarow":3}}"#,
        r#"{"cmd":"setoption","name":"info","value":true}"#,
        r#"{"cmd":"stop"}"#,
        r#"{"cmd":"hello"}"#,
    ];
    let base = SEEDS[rng.random_range(0..SEEDS.len())].as_bytes().to_vec();
    let mut line = base.clone();
    match rng.random_range(0..10) {
        0 => {
            // random bytes, avoiding newlines
            let n = rng.random_range(0..60);
            line = (0..n)
                .map(|_| rng.random_range(0..=255u8))
                .filter(|&b| b != b'\n')
                .collect();
        }
        1 => {
            let i = rng.random_range(0..line.len());
            line.truncate(i);
        }
        2 => {
            let i = rng.random_range(0..line.len());
            line[i] = rng.random_range(0..=255u8);
            line.retain(|&b| b != b'\n');
        }
        3 => {
            let depth = rng.random_range(1..5000);
            line = format!("{}{}", "[".repeat(depth), "]".repeat(depth)).into_bytes();
        }
        4 => line = br#"{"cmd":"go","depth":99999999999999999999999}"#.to_vec(),
        5 => {
            line = format!(r#"{{"cmd":"go","nodes":{}}}"#, rng.random_range(-5..3i64)).into_bytes()
        }
        6 => line = b"{\"cmd\":\"ping\",\"id\":\"a\x01\x02b\"}".to_vec(),
        7 => {
            line = br#"{"cmd":"position","moves":"1234567123456712345671234567123456712345671"}"#
                .to_vec()
        }
        8 => line = br#"{"cmd":["go"],"id":[1]}"#.to_vec(),
        _ => {}
    }
    line
}

#[test]
fn a_stream_of_garbage_gets_one_final_reply_per_request() {
    let mut rng = StdRng::seed_from_u64(2026);
    let mut e = Driver::start();
    let mut requests = 0;
    for _ in 0..3000 {
        let line = garbage(&mut rng);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        requests += 1;
        e.send_bytes(&line);
        // Wait for the final reply before the next line, so that every
        // reply belongs to the line just sent.
        let r = e.recv_final();
        if matches!(
            r,
            Reply::Error {
                code: ErrorCode::Busy,
                ..
            }
        ) {
            e.send(r#"{"cmd":"stop"}"#);
            assert!(matches!(
                e.recv_final(),
                Reply::Bestmove { .. } | Reply::Analysis { .. }
            ));
            assert!(matches!(e.recv_final(), Reply::Ok { .. }));
        }
        // A go or analyze is answered later: its reply is the final one.
        if line.windows(4).any(|w| w == b"\"go\"" || w == b"anal")
            && !matches!(r, Reply::Error { .. })
        {
            assert!(
                matches!(r, Reply::Bestmove { .. } | Reply::Analysis { .. }),
                "{}: {r:?}",
                String::from_utf8_lossy(&line)
            );
        }
    }
    assert!(requests > 2500);
    e.send(r#"{"cmd":"stop"}"#);
    e.recv_final();
    e.send(r#"{"cmd":"ping","id":"alive"}"#);
    assert_eq!(
        e.recv_final(),
        Reply::Pong {
            id: Some(Id::Text("alive".into()))
        }
    );
    let (rest, status) = e.finish();
    assert!(status.success(), "{status}");
    assert!(rest.iter().all(|r| !r.is_final()), "{rest:?}");
}

#[test]
fn a_terminal_on_stdin_gets_a_hint_on_stderr_and_pipes_do_not() {
    // util-linux `script` runs the engine with a pseudo-terminal on stdin.
    let bin = assert_cmd::cargo::cargo_bin!("connect4");
    let out = std::process::Command::new("script")
        .args(["-qec", &bin.display().to_string(), "/dev/null"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("util-linux script is installed");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(r#"reading JSON commands, one per line; try {"cmd":"hello"}"#),
        "{text}"
    );
    let piped = assert_cmd::Command::new(bin)
        .write_stdin("")
        .output()
        .unwrap();
    assert!(piped.status.success());
    assert!(piped.stderr.is_empty() && piped.stdout.is_empty());
}

#[test]
fn end_of_input_stops_an_unlimited_solver_search_whatever_the_spec_spelling() {
    // " solver " names the solver too: its unlimited search must be stopped
    // at end of input, not waited for.
    let mut e = Driver::start();
    e.send(r#"{"cmd":"setoption","name":"agent","value":" solver "}"#);
    assert!(matches!(e.recv_final(), Reply::Ok { .. }));
    e.send(r#"{"cmd":"go","id":"open"}"#);
    let (rest, status) = e.finish();
    assert!(status.success());
    assert!(
        rest.iter()
            .any(|r| matches!(r, Reply::Bestmove { id: Some(Id::Text(t)), .. } if t == "open")),
        "{rest:?}"
    );
}

#[test]
fn a_newgame_seed_replays_a_random_agent_whatever_came_before() {
    let mut e = Driver::start_with(&["--agent", "random:seed=3"]);
    let mut game = |seed: Option<u64>| {
        let newgame = match seed {
            Some(s) => format!(r#"{{"cmd":"newgame","seed":{s}}}"#),
            None => r#"{"cmd":"newgame"}"#.to_string(),
        };
        e.send(&newgame);
        assert!(matches!(e.recv_final(), Reply::Ok { .. }));
        let mut moves = String::new();
        // Six plies: no game can end before the seventh.
        for _ in 0..6 {
            e.send(&format!(r#"{{"cmd":"position","moves":"{moves}"}}"#));
            assert!(matches!(e.recv_final(), Reply::Ok { .. }));
            e.send(r#"{"cmd":"go"}"#);
            match e.recv_final() {
                Reply::Bestmove { column, .. } => moves.push_str(&column.to_string()),
                other => panic!("{other:?}"),
            }
        }
        moves
    };
    let a = game(Some(11));
    let noise = game(None);
    let b = game(Some(11));
    let c = game(Some(12));
    assert_eq!(
        a, b,
        "the same game seed replays the game ({noise} in between)"
    );
    assert_ne!(a, c);
}

#[test]
fn a_client_that_stops_reading_holds_the_engine_in_bounded_memory() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let mut child = Command::new(assert_cmd::cargo::cargo_bin!("connect4"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    const PINGS: usize = 100_000;
    let writer = std::thread::spawn(move || {
        let line = b"{\"cmd\":\"ping\",\"id\":1234567890}\n";
        for _ in 0..PINGS {
            stdin.write_all(line).unwrap();
        }
    });
    // Nobody reads: the engine must stop reading rather than pile up replies.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let rss_kb: u64 = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap();
    assert!(!writer.is_finished(), "the engine read everything unread");
    assert!(rss_kb < 100_000, "the engine holds {rss_kb} kB");
    // Reading again, every ping is answered.
    let pongs = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .take(PINGS)
        .filter(|l| l.as_ref().unwrap().contains("pong"))
        .count();
    assert_eq!(pongs, PINGS);
    writer.join().unwrap();
    child.kill().ok();
    child.wait().ok();
}

#[test]
fn agent_scores_stay_in_the_documented_range() {
    let replies = validator("reply.schema.json");
    for (agent, moves) in [
        ("alphabeta:depth=4", "112233"),
        ("expectimax:depth=3", "4453"),
        ("minimax:depth=2", "112233"),
    ] {
        let mut e = Driver::start_with(&["--agent", agent]);
        e.send(&format!(r#"{{"cmd":"position","moves":"{moves}"}}"#));
        e.recv_final();
        e.send(r#"{"cmd":"go","id":1}"#);
        let v = loop {
            let v = e.recv_value();
            if v["type"] != "info" {
                break v;
            }
        };
        assert_valid(&replies, &v, agent);
        let value = v["score"]["value"].as_i64().unwrap();
        assert!((-99..=99).contains(&value), "{agent}: {v}");
        assert!(v["score"]["agent_value"].is_i64(), "{agent}: {v}");
    }
}

#[test]
fn a_table_the_memory_cannot_hold_is_refused_and_ping_is_answered_while_resizing() {
    // Under a 3 GB address-space limit (the engine itself needs about 100 MB).
    let mut command = std::process::Command::new("sh");
    command.arg("-c").arg(format!(
        "ulimit -v 3000000 && exec '{}'",
        assert_cmd::cargo::cargo_bin!("connect4").display()
    ));
    let mut e = Driver::spawn(command);
    e.send(r#"{"cmd":"setoption","name":"hash_mb","value":16384,"id":"big"}"#);
    let Reply::Error { code, message, .. } = e.recv_final() else {
        panic!("16 GiB under a 3 GB limit was accepted");
    };
    assert_eq!(code, ErrorCode::BadOption);
    assert!(
        message.contains("16384 MiB")
            && message.contains("20484 MiB")
            && message.contains("stays at 16 MiB"),
        "{message}"
    );
    // The old table stays: the engine still searches.
    e.send(r#"{"cmd":"position","moves":"4453"}"#);
    e.recv_final();
    e.send(r#"{"cmd":"go","depth":4}"#);
    assert!(matches!(e.recv_final(), Reply::Bestmove { .. }));
    // A size that fits takes a while to fill; ping is answered meanwhile.
    e.send(r#"{"cmd":"setoption","name":"hash_mb","value":1024,"id":"fits"}"#);
    e.send(r#"{"cmd":"ping","id":"during"}"#);
    let first = e.recv_final();
    let second = e.recv_final();
    assert_eq!(
        first.id(),
        Some(&Id::Text("during".into())),
        "{first:?} {second:?}"
    );
    assert!(matches!(second, Reply::Ok { .. }), "{second:?}");
}
