//! The session loop: reads requests, drives the [`Engine`], writes replies.
//!
//! Four threads take part. A reader thread reads and splits input lines; the
//! caller's thread runs the session loop, which parses requests and calls
//! the engine; the engine's worker searches; one writer thread owns the
//! output and writes each reply as one flushed line. Replies reach the writer
//! over one channel, so they never interleave.
//!
//! `ping`, `hello` and `stop` are answered at once. Every other request
//! runs in order: one that arrives while a search runs waits in a queue
//! until the search has answered, and so does the error of a line that is
//! no request. `quit` waits its turn too (a search without limits is
//! stopped at once, and any started after it), so that every request sent
//! before it is answered; lines after it are not read.
//!
//! Every queue is bounded: at most [`MAX_QUEUED`] requests wait (more get
//! a `busy` error, so that a `stop` behind them is still read), the reader
//! is at most `MAX_UNREAD` lines ahead of the session loop, and replies
//! wait for the writer (which waits for the client to read; then nothing
//! more is read); `info` lines are dropped rather than waited for.

use std::collections::VecDeque;
use std::io::{self, BufRead, Write};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender, TrySendError};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::engine::{AgentError, DEFAULT_HASH_MB, Engine, GoRequest, Report, SearchScore};
use crate::game::Game;
use crate::grid;
use crate::position::{Player, Position, Status};
use crate::protocol::lines::{Line, LineReader};
use crate::protocol::messages::{
    Board, BookInfo, Command, EngineInfo, ErrorCode, GameStatus, GoLimits, Id, LayerInfo,
    MAX_LINE_BYTES, MoveScore, Moves, PROTOCOL, PositionRequest, PositionState, Reply, Request,
    VERSION, WireScore, parse_request,
};
use crate::protocol::options::{self, OptionValue};
use crate::score::end_ply;

/// Least time between two `info` replies of one search.
const INFO_INTERVAL: Duration = Duration::from_millis(100);
/// Requests waiting for a search, at most; more get a `busy` error.
pub const MAX_QUEUED: usize = 256;
/// Lines read and not yet taken by the session loop, at most; the reader
/// waits beyond (the loop is then held up by a client that does not read).
const MAX_UNREAD: usize = 64;
/// Replies waiting for the writer, at most.
const MAX_UNWRITTEN: usize = 1024;
/// After end of input, how long a search with limits may still run by
/// default: nobody may be left to read its answer.
pub const AFTER_INPUT_GRACE: Duration = Duration::from_secs(60);

/// Settings of a session.
pub struct SessionOptions {
    /// Table size in MiB at start.
    pub hash_mb: usize,
    /// The agent spec that answers `go` at start (as `setoption agent`).
    pub agent: String,
    /// Called once if writing a reply fails (the reader went away); the
    /// binary exits quietly there.
    pub on_output_closed: Box<dyn Fn() + Send>,
    /// After end of input, how long a search with limits may still run.
    pub after_input: Duration,
}

impl Default for SessionOptions {
    fn default() -> Self {
        SessionOptions {
            hash_mb: DEFAULT_HASH_MB,
            agent: "solver".into(),
            on_output_closed: Box::new(|| {}),
            after_input: AFTER_INPUT_GRACE,
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

/// What the session loop waits for.
enum Event {
    /// A line of input.
    Line(Vec<u8>),
    /// A line over the limit, skipped.
    TooLong,
    /// The end of input (or an error reading it).
    End(Option<io::Error>),
    /// The running search has written its final reply.
    SearchDone,
}

/// A reply for the writer, with the warnings of its request.
struct Outgoing {
    reply: Reply,
    warnings: Vec<String>,
}

impl Outgoing {
    fn line(&self) -> String {
        let mut line = self.reply.to_line();
        if !self.warnings.is_empty() && line.ends_with('}') {
            // Spliced in as text, so that the id stays exactly as written.
            line.pop();
            let warnings = serde_json::to_string(&self.warnings).expect("strings serialise");
            line.push_str(&format!(",\"warnings\":{warnings}}}"));
        }
        line
    }
}

/// How many lines were read and not yet taken by the session loop; the
/// reader waits while there are [`MAX_UNREAD`].
#[derive(Default)]
struct Waiting {
    count: Mutex<usize>,
    changed: Condvar,
}

impl Waiting {
    fn add(&self) {
        let mut n = self.count.lock().unwrap_or_else(|e| e.into_inner());
        while *n >= MAX_UNREAD {
            n = self.changed.wait(n).unwrap_or_else(|e| e.into_inner());
        }
        *n += 1;
    }

    fn done(&self) {
        let mut n = self.count.lock().unwrap_or_else(|e| e.into_inner());
        *n = n.saturating_sub(1);
        self.changed.notify_one();
    }
}

/// Reads lines into `events` until end of input.
fn read_input<R: BufRead>(input: R, events: &Sender<Event>, waiting: &Waiting) {
    let mut reader = LineReader::new(input, MAX_LINE_BYTES);
    loop {
        let event = match reader.next_line() {
            Ok(Line::Eof) => Event::End(None),
            Err(e) => Event::End(Some(e)),
            Ok(Line::TooLong { .. }) => Event::TooLong,
            Ok(Line::Text(bytes)) => {
                if bytes.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                waiting.add();
                Event::Line(bytes)
            }
        };
        let end = matches!(event, Event::End(_));
        if events.send(event).is_err() || end {
            return;
        }
    }
}

/// Runs a session until `quit` or end of input. At end of input the
/// requests already read still run; a search without limits is stopped, one
/// with limits may run [`AFTER_INPUT_GRACE`] more; every final reply is
/// written before this returns.
pub fn run_session<R, W>(input: R, output: W, options: SessionOptions) -> Result<(), SessionError>
where
    R: BufRead + Send + 'static,
    W: Write + Send + 'static,
{
    let mut engine = Engine::new(options.hash_mb);
    engine.set_agent(&options.agent)?;
    let (tx, rx) = mpsc::sync_channel::<Outgoing>(MAX_UNWRITTEN);
    let on_closed = options.on_output_closed;
    let writer = thread::spawn(move || {
        let mut output = output;
        for outgoing in rx {
            let ok = writeln!(output, "{}", outgoing.line()).and_then(|()| output.flush());
            if ok.is_err() {
                on_closed();
                return;
            }
        }
    });
    let (events_tx, events) = mpsc::channel();
    let waiting = Arc::new(Waiting::default());
    {
        let (events_tx, waiting) = (events_tx.clone(), Arc::clone(&waiting));
        thread::spawn(move || read_input(input, &events_tx, &waiting));
    }
    let mut session = Session {
        engine,
        tx,
        events_tx,
        waiting,
        info: true,
        searching: false,
        queued: VecDeque::new(),
        quitting: false,
        input_ended: None,
        after_input: options.after_input,
    };
    let result = session.run(&events);
    session.engine.finish();
    drop(session);
    writer.join().ok();
    result
}

/// Whether the session goes on after a request.
#[derive(PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

/// What waits its turn behind a running search.
enum Queued {
    /// A request.
    Request(Request),
    /// The error of a line that is no request.
    Error(Box<Reply>),
}

struct Session {
    engine: Engine,
    tx: SyncSender<Outgoing>,
    /// For the search's done callback, to say it has answered.
    events_tx: Sender<Event>,
    waiting: Arc<Waiting>,
    info: bool,
    /// Whether a search runs (and has not yet answered).
    searching: bool,
    /// Requests (and errors of lines that are none) waiting for the
    /// running search to answer.
    queued: VecDeque<Queued>,
    /// Whether `quit` has come (it waits its turn in the queue).
    quitting: bool,
    /// When the input ended.
    input_ended: Option<Instant>,
    /// How long a search may run after that.
    after_input: Duration,
}

fn error(id: Option<Id>, code: ErrorCode, message: impl Into<String>) -> Reply {
    Reply::Error {
        id,
        code,
        message: message.into(),
    }
}

impl Session {
    /// The loop: events until `quit`, or until the input has ended and
    /// every request read has been answered.
    fn run(&mut self, events: &Receiver<Event>) -> Result<(), SessionError> {
        loop {
            if self.input_ended.is_some() && !self.searching && self.queued.is_empty() {
                return Ok(());
            }
            // After end of input or `quit`, a search without limits
            // (perhaps one that waited its turn) has nobody to wait for it.
            let ending = self.input_ended.is_some() || self.quitting;
            if ending && self.searching && self.engine.is_unbounded() {
                self.engine.stop();
            }
            let event = match self.input_ended {
                Some(at) if self.searching => {
                    let left = (at + self.after_input).saturating_duration_since(Instant::now());
                    match events.recv_timeout(left) {
                        Ok(e) => e,
                        Err(_) => {
                            // Nobody is left to wait for this search.
                            self.engine.stop();
                            continue;
                        }
                    }
                }
                _ => match events.recv() {
                    Ok(e) => e,
                    Err(_) => return Ok(()),
                },
            };
            match event {
                Event::Line(bytes) => {
                    self.waiting.done();
                    if self.line(&bytes) == Flow::Quit {
                        return Ok(());
                    }
                }
                Event::TooLong => self.send(error(
                    None,
                    ErrorCode::LineTooLong,
                    format!("line longer than {MAX_LINE_BYTES} bytes; skipped"),
                )),
                Event::End(e) => {
                    self.input_ended = Some(Instant::now());
                    if self.engine.is_unbounded() {
                        self.engine.stop();
                    }
                    if let Some(e) = e {
                        self.engine.finish();
                        return Err(e.into());
                    }
                }
                Event::SearchDone => {
                    self.searching = false;
                    if self.run_queued() == Flow::Quit {
                        return Ok(());
                    }
                }
            }
        }
    }

    fn send(&self, reply: Reply) {
        self.send_with(reply, Vec::new());
    }

    fn send_with(&self, reply: Reply, warnings: Vec<String>) {
        // A closed channel means the writer is gone; nothing is left to tell.
        self.tx.send(Outgoing { reply, warnings }).ok();
    }

    /// One input line: answered at once, or queued behind the search.
    fn line(&mut self, line: &[u8]) -> Flow {
        if self.quitting {
            // The session ends at `quit`: what comes after it is not read.
            return Flow::Continue;
        }
        let request = match parse_request(line) {
            Ok(r) => r,
            Err(e) if self.searching => {
                self.enqueue(Queued::Error(Box::new(e.reply())));
                return Flow::Continue;
            }
            Err(e) => {
                self.send(e.reply());
                return Flow::Continue;
            }
        };
        for w in &request.warnings {
            eprintln!("connect4: warning: {w}");
        }
        let at_once = matches!(
            request.command,
            Command::Hello | Command::Ping | Command::Stop
        );
        if at_once || !self.searching {
            return self.handle(request);
        }
        if request.command == Command::Quit {
            // Waits its turn, however full the queue: nothing after it is
            // read. A search without limits would never let it come.
            self.quitting = true;
            if self.engine.is_unbounded() {
                self.engine.stop();
            }
            self.queued.push_back(Queued::Request(request));
            return Flow::Continue;
        }
        self.enqueue(Queued::Request(request));
        Flow::Continue
    }

    /// Queues what waits for the search, or answers `busy` when
    /// [`MAX_QUEUED`] wait already.
    fn enqueue(&mut self, queued: Queued) {
        if self.queued.len() < MAX_QUEUED {
            self.queued.push_back(queued);
            return;
        }
        let (id, warnings) = match queued {
            Queued::Request(r) => (r.id, r.warnings),
            Queued::Error(reply) => return self.send(*reply),
        };
        self.send_with(
            error(
                id,
                ErrorCode::Busy,
                format!("{MAX_QUEUED} requests already wait for the running search; send stop, or wait for its reply"),
            ),
            warnings,
        );
    }

    /// Runs queued requests until one starts a search (or none is left, or
    /// `quit` came).
    fn run_queued(&mut self) -> Flow {
        while !self.searching {
            match self.queued.pop_front() {
                None => return Flow::Continue,
                Some(Queued::Error(reply)) => self.send(*reply),
                Some(Queued::Request(request)) => {
                    if self.handle(request) == Flow::Quit {
                        return Flow::Quit;
                    }
                }
            }
        }
        Flow::Continue
    }

    fn handle(&mut self, request: Request) -> Flow {
        let Request {
            id,
            command,
            warnings,
        } = request;
        let reply = match command {
            Command::Hello => Some(self.hello(id)),
            Command::Ping => Some(Reply::Pong { id }),
            Command::Stop => {
                self.engine.stop();
                Some(Reply::Ok { id, state: None })
            }
            Command::Quit => {
                // Nothing waits behind `quit`: it runs when the requests
                // before it are done, and nothing after it is read.
                self.engine.stop();
                self.send_with(Reply::Ok { id, state: None }, warnings);
                return Flow::Quit;
            }
            Command::NewGame { rules, seed } => {
                self.engine.new_game(rules, seed);
                Some(self.state_reply(id))
            }
            Command::Position(p) => Some(self.position(id, p)),
            Command::SetOption { name, value } => match options::parse(&name, &value) {
                Ok(OptionValue::HashMb(mb)) => self.resize(id, mb, warnings.clone()),
                Ok(value) => Some(self.set_option(id, value)),
                Err(e) => Some(error(id, ErrorCode::BadOption, e.to_string())),
            },
            Command::Go(limits) => self.go(id, &limits, warnings.clone()),
            Command::Analyze(limits) => self.analyze(id, &limits, warnings.clone()),
        };
        if let Some(reply) = reply {
            self.send_with(reply, warnings);
        }
        Flow::Continue
    }

    fn hello(&mut self, id: Option<Id>) -> Reply {
        let book = self.engine.book().map(|b| BookInfo {
            board: b.rules().to_string(),
            plies: b.complete_ply(),
            positions: b.len(),
            deviations: b.deviations(),
            layers: b
                .layers()
                .iter()
                .map(|l| LayerInfo {
                    ply: l.ply(),
                    positions: l.known(),
                })
                .collect(),
        });
        Reply::Hello {
            id,
            protocol: PROTOCOL.into(),
            version: VERSION,
            engine: EngineInfo {
                name: "connect4".into(),
                version: env!("CARGO_PKG_VERSION").into(),
            },
            options: options::infos(),
            book,
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

    /// Sets an option other than `hash_mb` (which [`Session::resize`]
    /// sets), its value checked by [`options::parse`].
    fn set_option(&mut self, id: Option<Id>, value: OptionValue) -> Reply {
        match value {
            OptionValue::Threads(n) => self.engine.set_threads(n),
            OptionValue::Book(on) => self.engine.set_book(on),
            OptionValue::Info(on) => self.info = on,
            OptionValue::Agent(spec) => {
                if let Err(e) = self.engine.set_agent(&spec) {
                    return error(id, ErrorCode::BadOption, format!("option 'agent': {e}"));
                }
            }
            OptionValue::HashMb(_) => unreachable!("hash_mb is set by resize"),
        }
        Reply::Ok { id, state: None }
    }

    /// `setoption hash_mb`: the tables are resized on the search thread, so
    /// that `ping` is answered meanwhile; the reply comes when it is done.
    fn resize(&mut self, id: Option<Id>, mb: usize, warnings: Vec<String>) -> Option<Reply> {
        let tx = self.tx.clone();
        let events = self.events_tx.clone();
        self.searching = true;
        self.engine.resize(
            mb,
            Box::new(move |result| {
                let reply = match result {
                    Ok(()) => Reply::Ok { id, state: None },
                    Err(e) => error(id, ErrorCode::BadOption, format!("option 'hash_mb': {e}")),
                };
                tx.send(Outgoing { reply, warnings }).ok();
                events.send(Event::SearchDone).ok();
            }),
        );
        None
    }

    /// Checks that the game goes on; the error reply otherwise.
    fn playable(&self, id: &Option<Id>) -> Result<Position, Box<Reply>> {
        let p = *self.engine.game().position();
        let why = match p.status() {
            Status::Ongoing => return Ok(p),
            Status::Won(player) => format!("the game is over: the {player} won"),
            Status::Draw => "the game is over: draw".to_string(),
        };
        Err(Box::new(error(id.clone(), ErrorCode::GameOver, why)))
    }

    fn go(&mut self, id: Option<Id>, wire: &GoLimits, warnings: Vec<String>) -> Option<Reply> {
        let p = match self.playable(&id) {
            Ok(p) => p,
            Err(reply) => return Some(*reply),
        };
        if let Err(why) = self.engine.check_agent() {
            return Some(error(id, ErrorCode::BadOption, why.to_string()));
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
            let info = Reply::Info {
                id: info_id.clone(),
                depth: r.depth,
                score: wire_score(&p, r),
                nodes: r.nodes,
                time_ms: r.time.as_millis() as u64,
                nps: r.nodes_per_second(),
                pv: r.pv.iter().map(|c| c + 1).collect(),
            };
            // A client that does not read misses progress, not answers.
            if let Err(TrySendError::Full(_)) = tx.try_send(Outgoing {
                reply: info,
                warnings: Vec::new(),
            }) {
                last_info = None;
            }
        });
        let tx = self.tx.clone();
        let events = self.events_tx.clone();
        let done = Box::new(move |report: Option<Report>| {
            let reply = match report {
                Some(r) => Reply::Bestmove {
                    id,
                    column: r.best + 1,
                    score: wire_score(&p, &r),
                    depth: r.depth,
                    nodes: r.nodes,
                    time_ms: r.time.as_millis() as u64,
                    pv: r.pv.iter().map(|c| c + 1).collect(),
                },
                None => error(id, ErrorCode::GameOver, "the game is over"),
            };
            tx.send(Outgoing { reply, warnings }).ok();
            events.send(Event::SearchDone).ok();
        });
        self.searching = true;
        self.engine.go(&request, on_report, done);
        None
    }

    fn analyze(&mut self, id: Option<Id>, wire: &GoLimits, warnings: Vec<String>) -> Option<Reply> {
        let p = match self.playable(&id) {
            Ok(p) => p,
            Err(reply) => return Some(*reply),
        };
        let tx = self.tx.clone();
        let events = self.events_tx.clone();
        self.searching = true;
        self.engine.analyze(
            &go_request(wire),
            Box::new(move |scores| {
                let moves = scores
                    .into_iter()
                    .map(|(c, s)| MoveScore {
                        column: c + 1,
                        score: score_on_wire(&p, s, None),
                    })
                    .collect();
                let reply = Reply::Analysis { id, moves };
                tx.send(Outgoing { reply, warnings }).ok();
                events.send(Event::SearchDone).ok();
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
        infinite: wire.infinite,
        clock: wire.clock.map(|c| {
            (
                Duration::from_millis(c.time_ms),
                Duration::from_millis(c.inc_ms),
            )
        }),
    }
}

/// A report's score on the wire.
fn wire_score(p: &Position, r: &Report) -> WireScore {
    score_on_wire(p, r.score, r.agent_value)
}

/// A search score on the wire, with the outcome and distance when exact.
fn score_on_wire(p: &Position, s: SearchScore, agent_value: Option<i32>) -> WireScore {
    WireScore {
        agent_value,
        exact: s.exact,
        value: s.value,
        outcome: s.outcome,
        plies_to_end: if s.exact {
            end_ply(p, s.value).map(|end| end - p.moves_played())
        } else {
            None
        },
    }
}

/// Output shared with a test.
#[cfg(test)]
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

/// Everything a session given `input` writes.
#[cfg(test)]
fn output_of(input: String, options: SessionOptions) -> String {
    let out = Shared::default();
    run_session(io::Cursor::new(input), out.clone(), options).unwrap();
    let bytes = out.0.lock().unwrap().clone();
    String::from_utf8(bytes).unwrap()
}

#[cfg(test)]
impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn session(input: &'static str, after_input: Duration) -> Vec<Value> {
        let options = SessionOptions {
            after_input,
            ..SessionOptions::default()
        };
        output_of(input.to_string(), options)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .filter(|v: &Value| v["type"] != "info")
            .collect()
    }

    #[test]
    fn piped_searches_run_in_order_after_end_of_input() {
        let replies = session(
            "{\"cmd\":\"position\",\"moves\":\"4453\"}\n\
             {\"cmd\":\"go\",\"depth\":6,\"id\":\"d\"}\n\
             {\"cmd\":\"go\",\"movetime_ms\":200,\"id\":\"t\"}\n",
            AFTER_INPUT_GRACE,
        );
        let kinds: Vec<(&str, &str)> = replies
            .iter()
            .map(|r| (r["type"].as_str().unwrap(), r["id"].as_str().unwrap_or("")))
            .collect();
        assert_eq!(kinds, [("ok", ""), ("bestmove", "d"), ("bestmove", "t")]);
    }

    #[test]
    fn a_search_without_readers_is_stopped_after_the_grace() {
        let start = Instant::now();
        let replies = session(
            "{\"cmd\":\"go\",\"depth\":60,\"nodes\":9000000000000000000,\"id\":1}\n",
            Duration::from_millis(300),
        );
        assert_eq!(replies.len(), 1);
        assert_eq!(replies[0]["type"], "bestmove");
        assert!(start.elapsed() < Duration::from_secs(30));
    }

    #[test]
    fn unknown_fields_come_back_as_warnings_on_the_final_reply() {
        let replies = session(
            "{\"cmd\":\"go\",\"movetime\":500,\"depth\":2,\"id\":1}\n\
             {\"cmd\":\"position\",\"move\":\"4453\"}\n",
            AFTER_INPUT_GRACE,
        );
        assert_eq!(replies[0]["type"], "bestmove");
        assert_eq!(
            replies[0]["warnings"],
            serde_json::json!(["unknown field 'movetime' (did you mean 'movetime_ms'?)"])
        );
        assert_eq!(
            replies[1]["warnings"],
            serde_json::json!(["unknown field 'move' (did you mean 'moves'?)"])
        );
    }

    /// `quit` stops a search without limits and ends the session once the
    /// requests before it are answered; nothing after it is read.
    #[test]
    fn quit_answers_what_waits_then_ends() {
        let replies = session(
            "{\"cmd\":\"go\",\"infinite\":true,\"id\":1}\n\
             {\"cmd\":\"position\",\"id\":2}\n\
             {\"cmd\":\"quit\",\"id\":3}\n\
             {\"cmd\":\"ping\",\"id\":4}\n",
            AFTER_INPUT_GRACE,
        );
        let kinds: Vec<(&str, i64)> = replies
            .iter()
            .map(|r| (r["type"].as_str().unwrap(), r["id"].as_i64().unwrap()))
            .collect();
        assert_eq!(kinds, [("bestmove", 1), ("ok", 2), ("ok", 3)]);
    }
}

#[cfg(test)]
mod id_tests {
    use super::*;

    #[test]
    fn ids_come_back_exactly_as_written() {
        // Numbers keep their spelling; strings are the same string (here
        // one that only JSON text can hold).
        for id in ["1e2", "-0", "18446744073709551616", "0.10", "\"\\ud800\""] {
            let line =
                format!("{{\"cmd\":\"ping\",\"id\":{id}}}\n{{\"cmd\":\"nonsense\",\"id\":{id}}}\n");
            let text = output_of(line, SessionOptions::default());
            for reply in text.lines() {
                assert!(reply.contains(&format!("\"id\":{id}")), "{id}: {reply}");
            }
        }
        // A line that is not JSON because of its lone surrogate still gets
        // its id back.
        let line = "{\"cmd\":\"ping\",\"id\":\"\\ud800\",\"x\":\"\\udc00\"}\n";
        let text = output_of(line.to_string(), SessionOptions::default());
        assert!(text.contains("\"code\":\"bad_json\""), "{text}");
        assert!(text.contains("\"id\":\"\\ud800\""), "{text}");
    }
}
