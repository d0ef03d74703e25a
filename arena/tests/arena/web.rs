//! `serve` end to end: under load, requests beyond its threads and its
//! bounded queue are answered 503 at once, not held, and the server goes
//! on; a grading's games are replayed with their tests' names; Ctrl-C or
//! SIGTERM ends the server and every engine it started.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common;
use common::{arena_path, children_of, fake, grading_with_log, scratch};

/// The status line's code and the body of `GET path` on `port`.
fn get(port: u16, path: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        // A bound against a hang, not a measure of speed.
        .set_read_timeout(Some(Duration::from_secs(120)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).ok();
    let code = reply
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = reply.split("\r\n\r\n").nth(1).unwrap_or("").to_string();
    (code, body)
}

/// `serve` with `args` on a free port, and its port.
fn serve(args: &[&str]) -> (Child, u16) {
    start(serve_command(args))
}

/// The command of `serve` on a free port with `args`.
fn serve_command(args: &[&str]) -> Command {
    let mut command = Command::new(arena_path());
    command.args(["serve", "--port", "0"]).args(args);
    command
}

/// Starts a `serve` command; the server and its port.
fn start(mut command: Command) -> (Child, u16) {
    let mut server = command
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port: u16 = line
        .trim()
        .trim_end_matches(|c: char| !c.is_ascii_digit())
        .rsplit(':')
        .next()
        .and_then(|p| p.split('/').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {line:?}"));
    (server, port)
}

/// A clock test (run apart, one at a time): the 503s must come at once.
#[test]
fn clock_a_flood_of_requests_is_turned_away_not_queued_without_end() {
    // An engine that never answers `go`: every move request holds a
    // thread for its time (100 ms and the margin).
    let (mut server, port) = serve(&["--engine", &(fake("pong-only") + ",movetime=100")]);
    // What comes back within 5 s: the 503s all must (the others wait
    // their turn at the one engine, 68 of them, each for its time).
    let started = Instant::now();
    let (answered, answers) = std::sync::mpsc::channel();
    let flood: Vec<_> = (0..120)
        .map(|_| {
            let answered = answered.clone();
            std::thread::spawn(move || {
                let asked = Instant::now();
                let (code, body) = get(port, "/api/move?engine=1&moves=4");
                answered.send((code, body, asked.elapsed())).ok();
            })
        })
        .collect();
    // The page itself is served while every thread is taken.
    std::thread::sleep(Duration::from_millis(200));
    let (page, _) = get(port, "/");
    let mut busy = Vec::new();
    while let Ok(answer) =
        answers.recv_timeout(Duration::from_secs(5).saturating_sub(started.elapsed()))
    {
        if answer.0 == 503 {
            busy.push(answer);
        }
    }
    server.kill().ok();
    server.wait().ok();
    for t in flood {
        t.join().unwrap();
    }
    assert!(
        busy.len() >= 30,
        "{} of 120 were turned away within 5 s",
        busy.len()
    );
    assert_eq!(page, 200, "the page while the engine is flooded");
    for (_, body, took) in &busy {
        assert!(body.contains("busy"), "{body}");
        assert!(*took < Duration::from_secs(5), "a 503 took {took:?}");
    }
}

#[test]
fn a_grading_s_games_are_replayed_with_their_tests() {
    let dir = scratch("web-grade");
    let log = dir.join("graded.jsonl");
    grading_with_log(&dir, &log).assert().success();
    let (mut server, port) = serve(&["--log", log.to_str().unwrap()]);
    let (code, list) = get(port, "/api/games");
    let (game_code, game) = get(port, "/api/game?log=1&game=1");
    // The server judges every game in the background, and says how far
    // (five minutes: a bound against a hang, not a measure of speed).
    let judged_all = (0..3000).any(|_| {
        let (_, list) = get(port, "/api/games");
        let list: serde_json::Value = serde_json::from_str(&list).unwrap();
        let log = &list["logs"][0];
        let done = log["judged"].as_u64() == Some(log["games"].as_array().unwrap().len() as u64);
        if !done {
            std::thread::sleep(Duration::from_millis(100));
        }
        done
    });
    server.kill().ok();
    server.wait().ok();
    assert!(judged_all, "the games were not all judged in five minutes");
    assert_eq!(code, 200, "{list}");
    let list: serde_json::Value = serde_json::from_str(&list).unwrap();
    let games = list["logs"][0]["games"].as_array().unwrap();
    assert!(!games.is_empty(), "{list}");
    assert!(
        games
            .iter()
            .all(|g| g["test"].as_str().is_some_and(|t| !t.is_empty())),
        "{list}"
    );
    assert_eq!(games[0]["test"], "Wins as first player against random");
    assert_eq!(game_code, 200, "{game}");
    let game: serde_json::Value = serde_json::from_str(&game).unwrap();
    let moves = game["moves"].as_array().unwrap().len();
    assert_eq!(game["verdicts"].as_array().unwrap().len(), moves);
    assert_eq!(game["first"], "student");
}

#[test]
fn ctrl_c_or_sigterm_stops_the_server_and_its_engines() {
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // A depth limit, not a time: the move is never late however
        // loaded the machine.
        let mut command = serve_command(&[
            "--engine",
            "name=greedy,cmd=self,option.agent=greedy,depth=1",
        ]);
        // Started as a script's `serve &` starts it, with SIGINT and
        // SIGTERM ignored: the server must still stop at them.
        // SAFETY: only async-signal-safe calls between fork and exec.
        #[allow(unsafe_code)]
        unsafe {
            command.pre_exec(|| {
                libc::signal(libc::SIGINT, libc::SIG_IGN);
                libc::signal(libc::SIGTERM, libc::SIG_IGN);
                Ok(())
            });
        }
        let (mut server, port) = start(command);
        let (code, body) = get(port, "/api/move?engine=1&moves=4");
        assert_eq!(code, 200, "{body}");
        let engines = children_of(server.id());
        assert_eq!(engines.len(), 1, "the engine runs: {engines:?}");
        // SAFETY: a signal to the server this test started.
        #[allow(unsafe_code)]
        unsafe {
            libc::kill(server.id() as libc::pid_t, signal);
        }
        let started = Instant::now();
        // The waits below are bounds against a hang, not measures of speed.
        while server.try_wait().unwrap().is_none() && started.elapsed() < Duration::from_secs(120) {
            std::thread::sleep(Duration::from_millis(20));
        }
        let ended = server.try_wait().unwrap().is_some();
        server.kill().ok();
        server.wait().ok();
        assert!(ended, "signal {signal}: the server went on");
        let gone = |pid: &u32| {
            // Gone, or a zombie waiting for init to reap it.
            std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
                stat.rsplit_once(')')
                    .is_some_and(|(_, r)| r.trim_start().starts_with('Z'))
            })
        };
        let started = Instant::now();
        while !engines.iter().all(gone) && started.elapsed() < Duration::from_secs(120) {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(
            engines.iter().all(gone),
            "signal {signal}: an engine outlived the server"
        );
    }
}

/// Issue #42, item 8: clients that open connections and send nothing, or
/// half a request's head, are closed by the server (they held it for as
/// long as they liked); the page is answered meanwhile.
#[test]
fn clock_slow_and_idle_connections_are_closed() {
    let (mut server, port) = serve(&[]);
    let mut slow: Vec<TcpStream> = (0..100)
        .map(|i| {
            let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
            if i % 2 == 0 {
                write!(s, "GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n").unwrap();
            }
            s
        })
        .collect();
    let (code, _) = get(port, "/");
    assert_eq!(code, 200);
    for (i, s) in slow.iter_mut().enumerate() {
        // The server closes it (perhaps with a 408 first) long before this.
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let mut rest = Vec::new();
        let read = s.read_to_end(&mut rest);
        assert!(
            read.is_ok()
                || read
                    .as_ref()
                    .is_err_and(|e| e.kind() == std::io::ErrorKind::ConnectionReset),
            "connection {i} was not closed: {read:?}"
        );
    }
    server.kill().ok();
    server.wait().ok();
}

/// `--host` other than loopback says that the page is open to the network.
#[test]
fn serving_beyond_loopback_warns() {
    let mut server = Command::new(arena_path())
        .args(["serve", "--port", "0", "--host", "0.0.0.0"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(server.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    server.kill().ok();
    server.wait().ok();
    assert!(
        line.contains("warning: serving on 0.0.0.0, not on loopback"),
        "{line}"
    );
}

/// Issue #42, item 2: a report of 1,000 games between 2,000 names stays
/// small (it wrote 42 MB, a crosstable of every name against every other).
#[test]
fn a_report_of_thousands_of_names_stays_small() {
    let dir = scratch("report-names");
    let log = dir.join("names.jsonl");
    let mut text = String::new();
    for g in 1..=1000u64 {
        let line = serde_json::json!({
            "run": "r", "game": g, "pair": g, "first": format!("first-{g}"),
            "second": format!("second-{g}"), "result": "1-0", "reason": "line",
            "moves": "4535464", "opening": "", "rules": "7x6x4", "seed": 1, "plies": []
        });
        text.push_str(&format!("{line}\n"));
    }
    std::fs::write(&log, text).unwrap();
    let html = dir.join("report.html");
    let out = Command::new(arena_path())
        .arg("report")
        .arg(&log)
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let size = std::fs::metadata(&html).unwrap().len();
    assert!(size < 8 << 20, "the report is {size} bytes");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("1960 more engines"),
        "no word of the engines left out"
    );
}
