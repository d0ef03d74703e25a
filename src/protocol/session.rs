//! The session loop: reads requests, drives the [`Engine`], writes replies.
//!
//! Three threads take part. The caller's thread reads and parses input and
//! calls the engine; the engine's worker searches; one writer thread owns the
//! output and writes each reply as one flushed line. Everything that replies
//! sends a [`Reply`] to the writer over a channel, so replies never interleave.

use std::io::{self, BufRead, Write};
use std::sync::mpsc::{self, Sender};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::engine::{AgentError, DEFAULT_HASH_MB, Engine, GoRequest, Report, SearchScore};
use crate::game::Game;
use crate::grid;
use crate::position::{Player, Position, Status};
use crate::protocol::lines::{Line, LineReader};
use crate::protocol::messages::{
    Board, Command, EngineInfo, ErrorCode, GameStatus, GoLimits, Id, MAX_LINE_BYTES, MoveScore,
    Moves, OptionInfo, PROTOCOL, PositionRequest, PositionState, Reply, VERSION, WireScore,
    parse_request,
};
use crate::score::{Outcome, end_ply};

/// Least time between two `info` replies of one search.
const INFO_INTERVAL: Duration = Duration::from_millis(100);
/// Largest table size `hash_mb` accepts, in MiB.
const MAX_HASH_MB: i64 = 16 * 1024;

/// Settings of a session.
pub struct SessionOptions {
    /// Table size in MiB at start.
    pub hash_mb: usize,
    /// The agent spec that answers `go` at start (as `setoption agent`).
    pub agent: String,
    /// Called once if writing a reply fails (the reader went away); the
    /// binary exits quietly there.
    pub on_output_closed: Box<dyn Fn() + Send>,
}

impl Default for SessionOptions {
    fn default() -> Self {
        SessionOptions {
            hash_mb: DEFAULT_HASH_MB,
            agent: "solver".into(),
            on_output_closed: Box::new(|| {}),
        }
    }
}

/// Why a session could not run.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The agent given at start is not valid.
    #[error("the agent to start with: {0}")]
    Agent(#[from] AgentError),
    /// Reading the input failed.
    #[error("reading requests: {0}")]
    Input(#[from] io::Error),
}

/// Runs a session until `quit` or end of input. At end of input a running
/// search with limits is allowed to finish, one without is stopped; either
/// way its final reply is written before this returns.
pub fn run_session<R, W>(input: R, output: W, options: SessionOptions) -> Result<(), SessionError>
where
    R: BufRead,
    W: Write + Send + 'static,
{
    let mut engine = Engine::new(options.hash_mb);
    engine.set_agent(&options.agent)?;
    let (tx, rx) = mpsc::channel::<Reply>();
    let on_closed = options.on_output_closed;
    let writer = thread::spawn(move || {
        let mut output = output;
        for reply in rx {
            let ok = writeln!(output, "{}", reply.to_line()).and_then(|()| output.flush());
            if ok.is_err() {
                on_closed();
                return;
            }
        }
    });
    let mut session = Session {
        engine,
        tx,
        info: true,
    };
    let mut reader = LineReader::new(input, MAX_LINE_BYTES);
    loop {
        match reader.next_line()? {
            Line::Eof => break,
            Line::TooLong { .. } => session.send(Reply::Error {
                id: None,
                code: ErrorCode::LineTooLong,
                message: format!("line longer than {MAX_LINE_BYTES} bytes; skipped"),
            }),
            Line::Text(bytes) => {
                if bytes.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                if session.handle(&bytes) == Flow::Quit {
                    break;
                }
            }
        }
    }
    session.engine.finish();
    drop(session);
    writer.join().ok();
    Ok(())
}

#[derive(PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

struct Session {
    engine: Engine,
    tx: Sender<Reply>,
    info: bool,
}

fn error(id: Option<Id>, code: ErrorCode, message: impl Into<String>) -> Reply {
    Reply::Error {
        id,
        code,
        message: message.into(),
    }
}

impl Session {
    fn send(&self, reply: Reply) {
        // A closed channel means the writer is gone; nothing is left to tell.
        self.tx.send(reply).ok();
    }

    fn handle(&mut self, line: &[u8]) -> Flow {
        let request = match parse_request(line) {
            Ok(r) => r,
            Err(e) => {
                self.send(e.reply());
                return Flow::Continue;
            }
        };
        let id = request.id;
        let needs_idle = matches!(
            request.command,
            Command::NewGame { .. }
                | Command::Position(_)
                | Command::Go(_)
                | Command::Analyze(_)
                | Command::SetOption { .. }
        );
        if needs_idle && self.engine.is_searching() {
            self.send(error(
                id,
                ErrorCode::Busy,
                "a search is running; send stop first (or wait for its reply)",
            ));
            return Flow::Continue;
        }
        let reply = match request.command {
            Command::Hello => Some(self.hello(id)),
            Command::Ping => Some(Reply::Pong { id }),
            Command::Stop => {
                self.engine.stop();
                Some(Reply::Ok { id, state: None })
            }
            Command::Quit => {
                self.engine.stop();
                self.send(Reply::Ok { id, state: None });
                return Flow::Quit;
            }
            Command::NewGame { rules, seed } => {
                self.engine.new_game(rules, seed);
                Some(self.state_reply(id))
            }
            Command::Position(p) => Some(self.position(id, p)),
            Command::SetOption { name, value } => Some(self.set_option(id, &name, &value)),
            Command::Go(limits) => self.go(id, &limits),
            Command::Analyze(limits) => self.analyze(id, &limits),
        };
        if let Some(reply) = reply {
            self.send(reply);
        }
        Flow::Continue
    }

    fn hello(&self, id: Option<Id>) -> Reply {
        Reply::Hello {
            id,
            protocol: PROTOCOL.into(),
            version: VERSION,
            engine: EngineInfo {
                name: "connect4".into(),
                version: env!("CARGO_PKG_VERSION").into(),
            },
            options: vec![
                OptionInfo {
                    name: "hash_mb".into(),
                    kind: "int".into(),
                    default: DEFAULT_HASH_MB.into(),
                    min: Some(1),
                    max: Some(MAX_HASH_MB),
                    choices: None,
                    help: "transposition table size in MiB (clears the table)".into(),
                },
                OptionInfo {
                    name: "agent".into(),
                    kind: "string".into(),
                    default: "solver".into(),
                    min: None,
                    max: None,
                    choices: Some(Engine::agent_names()),
                    help: format!(
                        "which player answers go: NAME or NAME:key=value,...; {}",
                        Engine::agent_help().replace('\n', "; ")
                    ),
                },
                OptionInfo {
                    name: "info".into(),
                    kind: "bool".into(),
                    default: true.into(),
                    min: None,
                    max: None,
                    choices: None,
                    help: "send info replies during go".into(),
                },
            ],
        }
    }

    fn state_reply(&self, id: Option<Id>) -> Reply {
        let game = self.engine.game();
        let status = match game.status() {
            Status::Ongoing => GameStatus::Ongoing,
            Status::Won(Player::First) => GameStatus::FirstWon,
            Status::Won(Player::Second) => GameStatus::SecondWon,
            Status::Draw => GameStatus::Draw,
        };
        Reply::Ok {
            id,
            state: Some(PositionState {
                moves: game.move_string(),
                ply: game.position().moves_played(),
                to_move: game.side_to_move(),
                status,
            }),
        }
    }

    fn position(&mut self, id: Option<Id>, p: PositionRequest) -> Reply {
        let rules = self.engine.game().rules();
        let game = match (p.moves, p.board) {
            (Some(Moves::Text(s)), _) => Game::from_move_string(rules, &s)
                .map_err(|e| (ErrorCode::IllegalMove, e.to_string())),
            (Some(Moves::Columns(c)), _) => {
                Game::from_columns(rules, &c).map_err(|e| (ErrorCode::IllegalMove, e.to_string()))
            }
            (None, Some(Board::Rows(rows))) => grid::game_from_rows(rules, &rows)
                .map_err(|e| (ErrorCode::BadPosition, e.to_string())),
            (None, Some(Board::Flat(cells))) => grid::game_from_flat(rules, &cells)
                .map_err(|e| (ErrorCode::BadPosition, e.to_string())),
            (None, None) => Ok(Game::new(rules)),
        };
        match game {
            Ok(game) => {
                self.engine.set_game(game);
                self.state_reply(id)
            }
            Err((code, message)) => error(id, code, message),
        }
    }

    fn set_option(&mut self, id: Option<Id>, name: &str, value: &Value) -> Reply {
        let bad = |m: String| error(id.clone(), ErrorCode::BadOption, m);
        match name {
            "hash_mb" => match value.as_i64() {
                Some(mb) if (1..=MAX_HASH_MB).contains(&mb) => {
                    self.engine.set_hash_mb(mb as usize);
                    Reply::Ok { id, state: None }
                }
                _ => bad(format!(
                    "option 'hash_mb': expected an integer from 1 to {MAX_HASH_MB}, found {value}"
                )),
            },
            "info" => match value.as_bool() {
                Some(on) => {
                    self.info = on;
                    Reply::Ok { id, state: None }
                }
                None => bad(format!(
                    "option 'info': expected true or false, found {value}"
                )),
            },
            "agent" => match value.as_str().map(|spec| self.engine.set_agent(spec)) {
                Some(Ok(())) => Reply::Ok { id, state: None },
                Some(Err(e)) => bad(format!("option 'agent': {e}")),
                None => bad(format!(
                    "option 'agent': expected a string such as \"alphabeta:depth=4\", found {value}"
                )),
            },
            other => bad(format!(
                "unknown option '{other}'; options: hash_mb, agent, info"
            )),
        }
    }

    /// Checks that the game goes on; the error reply otherwise.
    fn playable(&self, id: &Option<Id>) -> Result<Position, Reply> {
        let p = *self.engine.game().position();
        match p.status() {
            Status::Ongoing => Ok(p),
            Status::Won(player) => Err(error(
                id.clone(),
                ErrorCode::GameOver,
                format!("the game is over: the {player} won"),
            )),
            Status::Draw => Err(error(
                id.clone(),
                ErrorCode::GameOver,
                "the game is over: draw",
            )),
        }
    }

    fn go(&mut self, id: Option<Id>, wire: &GoLimits) -> Option<Reply> {
        let p = match self.playable(&id) {
            Ok(p) => p,
            Err(reply) => return Some(reply),
        };
        if let Err(why) = self.engine.check_agent() {
            return Some(error(id, ErrorCode::BadOption, why));
        }
        let request = go_request(wire);
        let tx = self.tx.clone();
        let info_id = id.clone();
        let mut last_info: Option<Instant> = None;
        let info_on = self.info;
        let on_report = Box::new(move |r: &Report| {
            if !info_on || last_info.is_some_and(|t| t.elapsed() < INFO_INTERVAL) {
                return;
            }
            last_info = Some(Instant::now());
            tx.send(Reply::Info {
                id: info_id.clone(),
                depth: r.depth,
                score: wire_score(&p, r.score),
                nodes: r.nodes,
                time_ms: r.time.as_millis() as u64,
                nps: r.nodes_per_second(),
                pv: r.pv.iter().map(|c| c + 1).collect(),
            })
            .ok();
        });
        let tx = self.tx.clone();
        let done = Box::new(move |report: Option<Report>| {
            let reply = match report {
                Some(r) => Reply::Bestmove {
                    id,
                    column: r.best + 1,
                    score: wire_score(&p, r.score),
                    depth: r.depth,
                    nodes: r.nodes,
                    time_ms: r.time.as_millis() as u64,
                    pv: r.pv.iter().map(|c| c + 1).collect(),
                },
                None => error(id, ErrorCode::GameOver, "the game is over"),
            };
            tx.send(reply).ok();
        });
        self.engine.go(&request, on_report, done);
        None
    }

    fn analyze(&mut self, id: Option<Id>, wire: &GoLimits) -> Option<Reply> {
        let p = match self.playable(&id) {
            Ok(p) => p,
            Err(reply) => return Some(reply),
        };
        let tx = self.tx.clone();
        self.engine.analyze(
            &go_request(wire),
            Box::new(move |scores| {
                let moves = scores
                    .into_iter()
                    .map(|(c, s)| MoveScore {
                        column: c + 1,
                        score: wire_score(&p, s),
                    })
                    .collect();
                tx.send(Reply::Analysis { id, moves }).ok();
            }),
        );
        None
    }
}

/// What a `go` or `analyze` on the wire asks of the engine.
fn go_request(wire: &GoLimits) -> GoRequest {
    GoRequest {
        depth: wire.depth.map(|d| d as u32),
        nodes: wire.nodes,
        movetime: wire.movetime_ms.map(Duration::from_millis),
        clock: wire.clock.map(|c| {
            (
                Duration::from_millis(c.time_ms),
                Duration::from_millis(c.inc_ms),
            )
        }),
    }
}

/// A search score on the wire, with the outcome and distance when exact.
fn wire_score(p: &Position, s: SearchScore) -> WireScore {
    WireScore {
        exact: s.exact,
        value: s.value,
        outcome: s.exact.then(|| Outcome::of(s.value)),
        plies_to_end: if s.exact {
            end_ply(p, s.value).map(|end| end - p.moves_played())
        } else {
            None
        },
    }
}
