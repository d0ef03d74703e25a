//! `compliance`: the protocol checks a harness relies on, each run against a
//! fresh engine process and reported with pass or fail and why.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Result;
use connect4::protocol::messages::{Command, GoLimits, Moves, PositionRequest};
use connect4::protocol::{ErrorCode, Reply};
use serde::Serialize;

use crate::process::{EngineProcess, Failure, shorten};
use crate::spec::EngineSpec;

/// Arguments of `compliance`.
#[derive(clap::Args)]
pub struct Args {
    /// The engine to check (see below).
    #[arg(long)]
    pub engine: String,
    /// Time an engine may take beyond a movetime (ms).
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

/// A check's body: `Ok(detail)` passes, `Err(detail)` fails.
type Outcome = Result<String, String>;

/// A named check, run on a fresh process.
type CheckFn = Box<dyn Fn(&mut EngineProcess) -> Outcome>;

fn fail(f: Failure) -> String {
    format!("{}: {}", f.reason(), f.detail())
}

fn position(moves: &str) -> Command {
    Command::Position(PositionRequest {
        moves: Some(Moves::Text(moves.into())),
        board: None,
    })
}

fn expect_ok(p: &mut EngineProcess, c: Command, what: &str) -> Result<(), String> {
    match p.ask(c, ANSWER).map_err(fail)? {
        Reply::Ok { .. } => Ok(()),
        other => Err(format!(
            "{what}: expected ok, got {}",
            shorten(&other.to_line())
        )),
    }
}

/// A bestmove's column, or why there is none.
fn bestmove(r: Reply) -> Result<u32, String> {
    match r {
        Reply::Bestmove { column, .. } => Ok(column),
        other => Err(format!(
            "expected bestmove, got {}",
            shorten(&other.to_line())
        )),
    }
}

/// Every check, in order; each starts its own process.
pub fn checks(spec: &EngineSpec, margin: Duration) -> Vec<Check> {
    let start = |spec: &EngineSpec| -> Result<EngineProcess, String> {
        let (program, args) = spec.command().map_err(|e| e.to_string())?;
        let mut p = EngineProcess::start(&program, &args)
            .map_err(|e| format!("cannot start {program}: {e}"))?;
        for (name, value) in &spec.options {
            expect_ok(
                &mut p,
                Command::SetOption {
                    name: name.clone(),
                    value: value.clone(),
                },
                &format!("setoption {name}"),
            )?;
        }
        Ok(p)
    };
    let list: Vec<(&'static str, CheckFn)> = vec![
        (
            "hello: answers with the protocol's name and version",
            Box::new(|p| {
                match p
                    .ask(Command::Hello, Duration::from_secs(10))
                    .map_err(fail)?
                {
                    Reply::Hello {
                        protocol,
                        version,
                        engine,
                        ..
                    } if protocol == connect4::protocol::messages::PROTOCOL => Ok(format!(
                        "{} {} speaks {protocol} version {version}",
                        engine.name, engine.version
                    )),
                    other => Err(format!("got {}", shorten(&other.to_line()))),
                }
            }),
        ),
        (
            "ping: pong echoing the request's id",
            Box::new(|p| {
                let t = Instant::now();
                p.ask(Command::Ping, ANSWER).map_err(fail)?;
                Ok(format!("in {:.1} ms", t.elapsed().as_secs_f64() * 1e3))
            }),
        ),
        (
            "newgame and position: ok",
            Box::new(|p| {
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
            }),
        ),
        (
            "go movetime 100: one legal bestmove in time",
            Box::new(move |p| {
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
                let game =
                    connect4::Game::from_move_string(Default::default(), "4453").expect("legal");
                let mut g = game.clone();
                g.play(i64::from(column))
                    .map_err(|e| format!("illegal bestmove: {e}"))?;
                // Exactly one reply: nothing else may follow.
                match p
                    .recv_any(Instant::now() + Duration::from_millis(50))
                    .map_err(fail)?
                {
                    None => Ok(format!("column {column} in {ms} ms")),
                    Some(extra) => Err(format!(
                        "a second reply after bestmove: {}",
                        shorten(&extra.to_line())
                    )),
                }
            }),
        ),
        (
            "go depth 2: bestmove",
            Box::new(|p| {
                expect_ok(p, position("44"), "position")?;
                let go = Command::Go(GoLimits {
                    depth: Some(2),
                    ..GoLimits::default()
                });
                let column = bestmove(p.ask(go, Duration::from_secs(30)).map_err(fail)?)?;
                Ok(format!("column {column}"))
            }),
        ),
        (
            "ping during a search: answered at once",
            Box::new(|p| {
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
                        Some(Reply::Pong { id: Some(i) }) if i == ping.into_id() => {
                            pong_at = Some(at)
                        }
                        Some(Reply::Bestmove { id: Some(i), .. }) if i == go.into_id() => {
                            best_at = Some(at)
                        }
                        Some(other) => {
                            return Err(format!("unexpected {}", shorten(&other.to_line())));
                        }
                        None => {
                            return Err(format!(
                                "within 3 s: pong {}, bestmove {}",
                                if pong_at.is_some() {
                                    "received"
                                } else {
                                    "missing"
                                },
                                if best_at.is_some() {
                                    "received"
                                } else {
                                    "missing"
                                }
                            ));
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
                    Err(format!(
                        "the pong waited for the search: bestmove after {:.0} ms, pong after {:.0} ms",
                        ms(best),
                        ms(pong)
                    ))
                }
            }),
        ),
        (
            "stop: ends an infinite search with a bestmove",
            Box::new(|p| {
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
                while !(ok && best) {
                    match p
                        .recv_any(Instant::now() + Duration::from_secs(2))
                        .map_err(fail)?
                    {
                        Some(Reply::Info { .. }) => {}
                        Some(Reply::Ok { id: Some(i), .. }) if i == stop.into_id() => ok = true,
                        Some(Reply::Bestmove { id: Some(i), .. }) if i == go.into_id() => {
                            best = true
                        }
                        Some(other) => {
                            return Err(format!("unexpected {}", shorten(&other.to_line())));
                        }
                        None => {
                            return Err(format!("after stop: ok {ok}, bestmove {best} within 2 s"));
                        }
                    }
                }
                Ok(format!(
                    "bestmove {:.1} ms after stop",
                    t.elapsed().as_secs_f64() * 1e3
                ))
            }),
        ),
        (
            "bad input: an error reply, then still answering",
            Box::new(|p| {
                p.send_raw("this is not json").map_err(fail)?;
                match p.recv_any(Instant::now() + ANSWER).map_err(fail)? {
                    Some(Reply::Error {
                        code: ErrorCode::BadJson,
                        ..
                    }) => {}
                    Some(other) => {
                        return Err(format!(
                            "for a non-JSON line: {}",
                            shorten(&other.to_line())
                        ));
                    }
                    None => return Err("no reply to a non-JSON line".into()),
                }
                match p.ask(position("48"), ANSWER).map_err(fail)? {
                    Reply::Error {
                        code: ErrorCode::IllegalMove,
                        message,
                        ..
                    } => {
                        p.ask(Command::Ping, ANSWER).map_err(fail)?;
                        Ok(format!("illegal move refused: {message}"))
                    }
                    other => Err(format!("for column 8: {}", shorten(&other.to_line()))),
                }
            }),
        ),
        (
            "end of input: exits with status 0",
            Box::new(|p| match p.finish(Duration::from_secs(5)) {
                (_, Some(true)) => Ok("exited cleanly".into()),
                (_, Some(false)) => Err("exited with a failure status".into()),
                (_, None) => Err("still running 5 s after its input closed".into()),
            }),
        ),
    ];
    list.into_iter()
        .map(|(name, check)| {
            let result = start(spec).and_then(|mut p| check(&mut p));
            Check {
                name,
                passed: result.is_ok(),
                detail: result.unwrap_or_else(|e| e),
            }
        })
        .collect()
}

/// An id as the protocol's `Id`.
trait IntoId {
    fn into_id(self) -> connect4::protocol::Id;
}

impl IntoId for u64 {
    fn into_id(self) -> connect4::protocol::Id {
        connect4::protocol::Id::Number(self.into())
    }
}

/// Runs the checks and prints them.
pub fn run(args: &Args) -> Result<ExitCode> {
    let spec: EngineSpec = args
        .engine
        .parse()
        .map_err(|e| anyhow::anyhow!("--engine {}: {e}", args.engine))?;
    let checks = checks(&spec, Duration::from_millis(args.time_margin));
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
    Ok(if passed == checks.len() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
