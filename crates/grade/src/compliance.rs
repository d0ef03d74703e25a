//! `compliance`: the protocol checks a harness relies on, each run against a
//! fresh engine process and reported with pass or fail and why.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Result;
use connect4::Game;
use connect4::protocol::lines::shorten;
use connect4::protocol::messages::{Command, GoLimits, Moves, PROTOCOL, PositionRequest};
use connect4::protocol::{ErrorCode, Id, Reply};
use serde::Serialize;

use connect4_match::process::{EngineProcess, Failure, REPLY_CHARS};
use connect4_match::spec::EngineSpec;

/// Arguments of `compliance`.
#[derive(clap::Args)]
pub struct Args {
    /// The engine to check (see below).
    #[arg(long)]
    pub engine: EngineSpec,
    /// Time an engine may take beyond a movetime, and beyond the waits
    /// for a stop's and a bad line's replies (ms): more on a loaded
    /// machine.
    #[arg(long, default_value_t = 200)]
    pub time_margin: u64,
}

/// One check's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct Check {
    /// What was checked.
    pub name: &'static str,
    /// Whether it passed.
    pub passed: bool,
    /// What happened.
    pub detail: String,
}

/// How long an answer to a simple request may take.
const ANSWER: Duration = Duration::from_secs(5);

/// A check's verdict: `Ok(detail)` passes, `Err` fails with what happened.
type CheckResult = Result<String, Failed>;

/// What happened where a check failed, for the report.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Failed(String);

fn fail(f: Failure) -> Failed {
    Failed(format!("{}: {}", f.reason(), f.detail()))
}

fn position(moves: &str) -> Command {
    Command::Position(PositionRequest {
        moves: Some(Moves::Text(moves.into())),
        board: None,
    })
}

fn expect_ok(p: &mut EngineProcess, c: Command, what: &str) -> Result<(), Failed> {
    match p.ask(c, ANSWER).map_err(fail)? {
        Reply::Ok { .. } => Ok(()),
        other => Err(Failed(format!(
            "{what}: expected ok, got {}",
            shorten(&other.to_line(), REPLY_CHARS)
        ))),
    }
}

/// A bestmove's column, or why there is none.
fn bestmove(r: Reply) -> Result<u32, Failed> {
    match r {
        Reply::Bestmove { column, .. } => Ok(column),
        other => Err(Failed(format!(
            "expected bestmove, got {}",
            shorten(&other.to_line(), REPLY_CHARS)
        ))),
    }
}

/// What a check gets: the engine process, started and configured, and the
/// time margin beyond a movetime.
type CheckFn = fn(&mut EngineProcess, Duration) -> CheckResult;

/// Every check, in order, with its name; each runs on a fresh process.
const CHECKS: &[(&str, CheckFn)] = &[
    ("hello: answers with the protocol's name and version", hello),
    ("ping: pong echoing the request's id", ping),
    ("newgame and position: ok", newgame_and_position),
    ("go movetime 100: one legal bestmove in time", go_movetime),
    ("go depth 2: bestmove", go_depth),
    ("ping during a search: answered at once", ping_during_search),
    (
        "stop: ends an infinite search with a bestmove",
        stop_ends_search,
    ),
    ("bad input: an error reply, then still answering", bad_input),
    ("end of input: exits with status 0", end_of_input),
];

/// Runs every check, each on its own process.
pub fn checks(spec: &EngineSpec, margin: Duration) -> Vec<Check> {
    CHECKS
        .iter()
        .map(|&(name, check)| {
            let result = EngineProcess::start_spec(spec)
                .and_then(|mut p| p.configure(spec).map(|()| p))
                .map_err(fail)
                .and_then(|mut p| check(&mut p, margin));
            Check {
                name,
                passed: result.is_ok(),
                detail: result.unwrap_or_else(|e| e.0),
            }
        })
        .collect()
}

fn hello(p: &mut EngineProcess, _: Duration) -> CheckResult {
    match p
        .ask(Command::Hello, Duration::from_secs(10))
        .map_err(fail)?
    {
        Reply::Hello {
            protocol,
            version,
            engine,
            ..
        } if protocol == PROTOCOL => Ok(if engine.name.is_empty() {
            format!("an unnamed engine speaks {protocol} version {version}")
        } else {
            format!(
                "{} {} speaks {protocol} version {version}",
                engine.name, engine.version
            )
        }),
        other => Err(Failed(format!(
            "got {}",
            shorten(&other.to_line(), REPLY_CHARS)
        ))),
    }
}

fn ping(p: &mut EngineProcess, _: Duration) -> CheckResult {
    let t = Instant::now();
    p.ask(Command::Ping, ANSWER).map_err(fail)?;
    Ok(format!("in {:.1} ms", t.elapsed().as_secs_f64() * 1e3))
}

fn newgame_and_position(p: &mut EngineProcess, _: Duration) -> CheckResult {
    expect_ok(
        p,
        Command::NewGame {
            rules: Default::default(),
            seed: Some(1),
        },
        "newgame",
    )?;
    expect_ok(p, position("4453"), "position 4453")?;
    Ok("ok".into())
}

fn go_movetime(p: &mut EngineProcess, margin: Duration) -> CheckResult {
    expect_ok(p, position("4453"), "position")?;
    let t = Instant::now();
    let go = Command::Go(GoLimits {
        movetime_ms: Some(100),
        ..GoLimits::default()
    });
    let column = bestmove(
        p.ask(go, Duration::from_millis(100) + margin)
            .map_err(fail)?,
    )?;
    let ms = t.elapsed().as_millis();
    let mut game = Game::from_move_string(Default::default(), "4453").expect("legal");
    game.play(i64::from(column))
        .map_err(|e| Failed(format!("illegal bestmove: {e}")))?;
    // Exactly one reply: nothing else may follow.
    match p
        .recv_any(Instant::now() + Duration::from_millis(50))
        .map_err(fail)?
    {
        None => Ok(format!("column {column} in {ms} ms")),
        Some(extra) => Err(Failed(format!(
            "a second reply after bestmove: {}",
            shorten(&extra.to_line(), REPLY_CHARS)
        ))),
    }
}

fn go_depth(p: &mut EngineProcess, _: Duration) -> CheckResult {
    expect_ok(p, position("44"), "position")?;
    let go = Command::Go(GoLimits {
        depth: Some(2),
        ..GoLimits::default()
    });
    let column = bestmove(p.ask(go, Duration::from_secs(30)).map_err(fail)?)?;
    Ok(format!("column {column}"))
}

fn ping_during_search(p: &mut EngineProcess, _: Duration) -> CheckResult {
    expect_ok(p, position(""), "position")?;
    let go = p
        .send(Command::Go(GoLimits {
            movetime_ms: Some(500),
            ..GoLimits::default()
        }))
        .map_err(fail)?;
    std::thread::sleep(Duration::from_millis(50));
    let ping = p.send(Command::Ping).map_err(fail)?;
    let sent = Instant::now();
    let (mut pong_at, mut best_at) = (None, None);
    while pong_at.is_none() || best_at.is_none() {
        let reply = p.recv_any(sent + Duration::from_secs(3)).map_err(fail)?;
        let at = sent.elapsed();
        match reply {
            Some(Reply::Info { .. }) => {}
            Some(Reply::Pong { id: Some(i) }) if i == id(ping) => pong_at = Some(at),
            Some(Reply::Bestmove { id: Some(i), .. }) if i == id(go) => best_at = Some(at),
            Some(other) => {
                return Err(Failed(format!(
                    "unexpected {}",
                    shorten(&other.to_line(), REPLY_CHARS)
                )));
            }
            None => {
                let seen = |x: Option<Duration>| if x.is_some() { "received" } else { "missing" };
                return Err(Failed(format!(
                    "within 3 s: pong {}, bestmove {}",
                    seen(pong_at),
                    seen(best_at)
                )));
            }
        }
    }
    let (pong, best) = (pong_at.expect("seen"), best_at.expect("seen"));
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    if pong <= best {
        Ok(format!(
            "pong {:.1} ms after the ping, before the bestmove",
            ms(pong)
        ))
    } else if best < Duration::from_millis(100) {
        Ok(format!(
            "the search had ended; pong {:.1} ms after the ping",
            ms(pong)
        ))
    } else {
        Err(Failed(format!(
            "the pong waited for the search: bestmove after {:.0} ms, pong after {:.0} ms",
            ms(best),
            ms(pong)
        )))
    }
}

fn stop_ends_search(p: &mut EngineProcess, margin: Duration) -> CheckResult {
    expect_ok(p, position(""), "position")?;
    let go = p
        .send(Command::Go(GoLimits {
            infinite: true,
            ..GoLimits::default()
        }))
        .map_err(fail)?;
    std::thread::sleep(Duration::from_millis(100));
    let t = Instant::now();
    let stop = p.send(Command::Stop).map_err(fail)?;
    // The stop's ok and the go's bestmove, in either order.
    let (mut ok, mut best) = (false, false);
    let wait = Duration::from_secs(2) + margin;
    while !(ok && best) {
        match p.recv_any(Instant::now() + wait).map_err(fail)? {
            Some(Reply::Info { .. }) => {}
            Some(Reply::Ok { id: Some(i), .. }) if i == id(stop) => ok = true,
            Some(Reply::Bestmove { id: Some(i), .. }) if i == id(go) => best = true,
            Some(other) => {
                return Err(Failed(format!(
                    "unexpected {}",
                    shorten(&other.to_line(), REPLY_CHARS)
                )));
            }
            None => {
                return Err(Failed(format!(
                    "after stop: ok {ok}, bestmove {best} within {} ms",
                    wait.as_millis()
                )));
            }
        }
    }
    Ok(format!(
        "bestmove {:.1} ms after stop",
        t.elapsed().as_secs_f64() * 1e3
    ))
}

fn bad_input(p: &mut EngineProcess, margin: Duration) -> CheckResult {
    let answer = ANSWER + margin;
    p.send_raw("this is not json").map_err(fail)?;
    match p.recv_any(Instant::now() + answer).map_err(fail)? {
        Some(Reply::Error {
            code: ErrorCode::BadJson,
            ..
        }) => {}
        Some(other) => {
            return Err(Failed(format!(
                "for a non-JSON line: {}",
                shorten(&other.to_line(), REPLY_CHARS)
            )));
        }
        None => return Err(Failed("no reply to a non-JSON line".into())),
    }
    match p.ask(position("48"), answer).map_err(fail)? {
        Reply::Error {
            code: ErrorCode::IllegalMove,
            message,
            ..
        } => {
            p.ask(Command::Ping, answer).map_err(fail)?;
            Ok(format!("illegal move refused: {message}"))
        }
        other => Err(Failed(format!(
            "for column 8: {}",
            shorten(&other.to_line(), REPLY_CHARS)
        ))),
    }
}

fn end_of_input(p: &mut EngineProcess, _: Duration) -> CheckResult {
    match p.finish(Duration::from_secs(5)) {
        (_, Some(true)) => Ok("exited cleanly".into()),
        (_, Some(false)) => Err(Failed("exited with a failure status".into())),
        (_, None) => Err(Failed("still running 5 s after its input closed".into())),
    }
}

/// A request number as the protocol's id.
fn id(n: u64) -> Id {
    Id::Number(n.into())
}

/// Fields the protocol lets an engine leave out, by reply type; `compliance`
/// suggests them, and nothing is forfeited for their absence.
const OPTIONAL_FIELDS: &[(&str, &[&str])] = &[
    ("hello", &["engine", "options"]),
    ("bestmove", &["score", "depth", "nodes", "time_ms", "pv"]),
];

/// Advice on optional fields the engine leaves out, from one short session:
/// `hello`, then a 100 ms `go`. Empty when it sends them all (or cannot be
/// asked: the checks report that).
pub fn advice(spec: &EngineSpec) -> Vec<String> {
    let Ok(mut p) = EngineProcess::start_spec(spec) else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    if p.ask(Command::Hello, ANSWER).is_ok() {
        lines.push(p.last_line().to_string());
    }
    let go = Command::Go(GoLimits {
        movetime_ms: Some(100),
        ..GoLimits::default()
    });
    if p.configure(spec).is_ok() && p.ask(go, Duration::from_secs(5)).is_ok() {
        lines.push(p.last_line().to_string());
    }
    lines.iter().flat_map(|l| missing_fields(l)).collect()
}

/// The optional fields a reply line leaves out, as advice.
fn missing_fields(line: &str) -> Vec<String> {
    let Ok(serde_json::Value::Object(map)) = serde_json::from_str(line) else {
        return Vec::new();
    };
    let kind = map.get("type").and_then(|t| t.as_str()).unwrap_or("");
    let mut out = Vec::new();
    for (reply, fields) in OPTIONAL_FIELDS {
        if *reply == kind {
            for f in *fields {
                if !map.contains_key(*f) {
                    out.push(format!("{reply} could also send '{f}' (optional)"));
                }
            }
        }
    }
    if kind == "hello"
        && let Some(options) = map.get("options").and_then(|o| o.as_array())
    {
        for o in options {
            let name = o.get("name").and_then(|n| n.as_str()).unwrap_or("?");
            for f in ["default", "help"] {
                if o.get(f).is_none() {
                    out.push(format!(
                        "hello: option '{name}' could also give '{f}' (optional)"
                    ));
                }
            }
        }
    }
    out
}

/// Runs the checks and prints them.
pub fn run(args: &Args) -> Result<ExitCode> {
    let checks = checks(&args.engine, Duration::from_millis(args.time_margin));
    let passed = checks.iter().filter(|c| c.passed).count();
    for c in &checks {
        println!(
            "{} {}: {}",
            if c.passed { "pass" } else { "FAIL" },
            c.name,
            c.detail
        );
    }
    println!("{passed} of {} checks passed", checks.len());
    for a in advice(&args.engine) {
        println!("advice: {a}");
    }
    Ok(if passed == checks.len() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
