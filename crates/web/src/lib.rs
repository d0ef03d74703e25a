//! `serve`: a local web page to see games. Play and analyse a position on
//! a board (each column's exact score from the book and the solver, the
//! position in the URL), and replay the games of match, tournament,
//! grading and experiment logs move by move, with the solver's verdict on
//! every move ([`connect4::search::verdict`], the grader's own).
//!
//! The page (HTML, CSS and a JavaScript module) is embedded in the binary
//! and loads nothing from elsewhere. The server binds to loopback unless
//! told otherwise, answers only GET, reads nothing but the logs it was
//! given, bounds the work a request may cause (a time cap per position, a
//! cache of verdicts per game), and answers each request on one of a fixed
//! number of threads with a bounded queue before them (503 when it is
//! full). A request that another site's page makes, or that comes under
//! another host name (DNS rebinding), is refused (see `guard`).

mod analysis;
mod guard;
mod players;
mod prover;
mod replay;
pub mod report;
mod standings;

use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderMap, Method, Response, Uri};
use tokio::sync::Semaphore;

use anyhow::{Context, Result};
use connect4::{Rules, RulesError};
use serde_json::{Value, json};

pub use connect4_match::live::RunInfo;
use players::Players;
use replay::Library;

use connect4_match::spec::EngineSpec;

/// Arguments of `serve`.
#[derive(clap::Args)]
pub struct Args {
    /// A game log to replay (repeatable): match, tournament, grading and
    /// experiment logs.
    #[arg(long)]
    pub log: Vec<PathBuf>,
    /// An engine the page may have play either side (repeatable); without
    /// a limit of its own it gets a second a move.
    #[arg(long)]
    pub engine: Vec<EngineSpec>,
    /// The port (0: a free one).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// The address to listen on; loopback unless told otherwise.
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    pub host: IpAddr,
}

/// What the requests read: the logs' games, the engines, and the run
/// that serves the page, if one does.
struct State {
    library: Library,
    players: Players,
    run: Option<RunInfo>,
}

/// Threads answering requests.
const WORKERS: usize = 4;
/// Requests waiting for a thread, at most; more are answered 503 at once.
const QUEUE: usize = 64;
/// The content type of the API's answers.
const JSON: &str = "application/json";
/// Connections open at once, at most; more are closed as they come.
const CONNECTIONS: usize = 1024;
/// Time a client has to send a request's head, and the longest a kept-alive
/// connection waits idle for the next one, before it is closed.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest a connection stays open in all.
const CONNECTION_TIMEOUT: Duration = Duration::from_secs(600);

/// Serves until killed.
pub fn run(args: &Args) -> Result<ExitCode> {
    let state = Arc::new(State {
        library: Library::load(&args.log)?,
        players: Players::new(&args.engine),
        run: None,
    });
    let (listener, address) = listen(args.host, args.port)?;
    if !args.host.is_loopback() {
        eprintln!(
            "connect4-arena: warning: serving on {}, not on loopback: anyone who can reach \
             this machine can open the page, read the logs given with --log and have the \
             engines given with --engine play (leave --host out to serve this machine alone)",
            args.host
        );
    }
    let judging = Arc::clone(&state);
    std::thread::spawn(move || judging.library.judge_all());
    println!("serving on http://{address}/ (Ctrl-C to stop)");
    serve(listener, address.port(), state)?;
    Ok(ExitCode::SUCCESS)
}

/// Serves the page of a run under way (`match|tournament --serve PORT`) on
/// loopback, on a thread of its own, from the run's `log` as it grows;
/// returns the page's address.
pub fn follow(port: u16, log: &std::path::Path, run: RunInfo) -> Result<String> {
    let state = Arc::new(State {
        library: Library::load(&[log.to_path_buf()])?,
        players: Players::new(&[]),
        run: Some(run),
    });
    let (listener, address) = listen(IpAddr::V4(Ipv4Addr::LOCALHOST), port)?;
    std::thread::spawn(move || {
        if let Err(e) = serve(listener, address.port(), state) {
            eprintln!("connect4-arena: the page of the run stopped: {e:#}");
        }
    });
    Ok(format!("http://{address}/live"))
}

/// A socket listening on `host:port` (0: a free port) and its address.
fn listen(host: IpAddr, port: u16) -> Result<(TcpListener, SocketAddr)> {
    let at = SocketAddr::new(host, port);
    let listener = TcpListener::bind(at).with_context(|| format!("listening on {at}"))?;
    let address = listener.local_addr().context("the server's address")?;
    Ok((listener, address))
}

/// The bound on the work in hand: [`WORKERS`] requests answered at once,
/// [`QUEUE`] more waiting at most.
struct Gate {
    permits: Arc<Semaphore>,
    /// Requests answered or waiting.
    taken: Arc<AtomicUsize>,
}

/// A place taken at the [`Gate`], given back when dropped.
struct Place(Arc<AtomicUsize>);

impl Drop for Place {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Answers the requests on `listener` until the process ends: on an
/// asynchronous HTTP stack (axum on tokio: a connection costs a task, not
/// a thread), each request checked by the guard, then answered on one of
/// [`WORKERS`] threads with at most [`QUEUE`] waiting (503 beyond).
/// Nagle's algorithm is off on every connection: an answer's head and
/// body go apart, and the body would wait for the client's delayed
/// acknowledgement of the head (40 ms on Linux).
fn serve(listener: TcpListener, port: u16, state: Arc<State>) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(WORKERS)
        // The answering threads keep their solvers: they are not let go.
        .thread_keep_alive(Duration::from_secs(24 * 3600))
        .enable_io()
        .enable_time()
        .build()
        .context("starting the server's runtime")?;
    let gate = Arc::new(Gate {
        permits: Arc::new(Semaphore::new(WORKERS)),
        taken: Arc::new(AtomicUsize::new(0)),
    });
    runtime.block_on(async move {
        warm_up().await;
        listener.set_nonblocking(true)?;
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let app = axum::Router::new().fallback(move |method, uri, headers| {
            handle(
                Arc::clone(&state),
                Arc::clone(&gate),
                port,
                method,
                uri,
                headers,
            )
        });
        accept(listener, app).await;
        Ok::<(), std::io::Error>(())
    })?;
    Ok(())
}

/// Takes connections for ever: at most [`CONNECTIONS`] open at once (more
/// are closed at once), each closed if its request's head takes over
/// [`HEAD_TIMEOUT`] or it waits idle as long, and after
/// [`CONNECTION_TIMEOUT`] in all; so slow or idle clients cannot hold the
/// server. An error accepting (no file descriptors left) waits a moment.
async fn accept(listener: tokio::net::TcpListener, app: axum::Router) {
    let open = Arc::new(Semaphore::new(CONNECTIONS));
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(place) = Arc::clone(&open).try_acquire_owned() else {
            continue;
        };
        stream.set_nodelay(true).ok();
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEAD_TIMEOUT);
            let connection = http.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
            tokio::time::timeout(CONNECTION_TIMEOUT, connection)
                .await
                .ok();
            drop(place);
        });
    }
}

/// Makes the solvers of the [`WORKERS`] answering threads before the first
/// request: each thread's first analysis would otherwise pay for them.
async fn warm_up() {
    let ready = Arc::new(std::sync::Barrier::new(WORKERS));
    let threads: Vec<_> = (0..WORKERS)
        .map(|_| {
            let ready = Arc::clone(&ready);
            tokio::task::spawn_blocking(move || {
                analysis::warm_up();
                // Every thread holds one of these tasks at once.
                ready.wait();
            })
        })
        .collect();
    for thread in threads {
        thread.await.ok();
    }
}

/// One request: refused unless it comes from the page of `port` (403);
/// the page's files at once; the rest turned away when [`QUEUE`] requests
/// wait already (503), else answered on an answering thread.
async fn handle(
    state: Arc<State>,
    gate: Arc<Gate>,
    port: u16,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response<Body> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let allowed = guard::allowed(
        header("host"),
        header("origin"),
        header("sec-fetch-site"),
        port,
    );
    if let Err(why) = allowed {
        return respond(403, JSON, error(&why));
    }
    // The page's own files cost nothing: they never wait behind the work.
    if method == Method::GET
        && let Some((_, kind, body)) = PAGE.iter().find(|(p, _, _)| *p == uri.path())
    {
        return respond(200, kind, (*body).to_string());
    }
    if gate.taken.fetch_add(1, Ordering::AcqRel) >= WORKERS + QUEUE {
        gate.taken.fetch_sub(1, Ordering::AcqRel);
        let why = format!("busy: {QUEUE} requests are waiting; try again in a moment");
        return respond(503, JSON, error(&why));
    }
    let place = Place(Arc::clone(&gate.taken));
    let Ok(permit) = Arc::clone(&gate.permits).acquire_owned().await else {
        return respond(503, JSON, error("the server is stopping"));
    };
    let url = uri.to_string();
    // A client that leaves drops this future, and with it `departure`: the
    // work in hand stops (an analysis' solver polls the flag).
    let left = Arc::new(AtomicBool::new(false));
    let departure = Departure(Arc::clone(&left));
    // The place and the permit go with the work: a client that leaves
    // does not free them before the work has stopped.
    let work = tokio::task::spawn_blocking(move || {
        let answer = route(&method, &url, &state, &left);
        drop((permit, place));
        answer
    });
    let _departure = departure;
    match work.await {
        Ok((status, kind, body)) => respond(status, kind, body),
        Err(_) => respond(500, JSON, error("the answer failed; see the server's log")),
    }
}

/// Raises its flag when dropped: when the request's future is dropped
/// (its client went away) or done.
struct Departure(Arc<AtomicBool>);

impl Drop for Departure {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// The embedded page's files: path, content type, body (`/replay` is the
/// page opened on its replay view).
const PAGE: [(&str, &str, &str); 7] = [
    (
        "/",
        "text/html; charset=utf-8",
        include_str!("page/index.html"),
    ),
    (
        "/replay",
        "text/html; charset=utf-8",
        include_str!("page/index.html"),
    ),
    (
        "/live",
        "text/html; charset=utf-8",
        include_str!("page/index.html"),
    ),
    (
        "/app.js",
        "text/javascript; charset=utf-8",
        include_str!("page/app.js"),
    ),
    (
        "/board.js",
        "text/javascript; charset=utf-8",
        include_str!("page/board.js"),
    ),
    (
        "/replay.js",
        "text/javascript; charset=utf-8",
        include_str!("page/replay.js"),
    ),
    (
        "/style.css",
        "text/css; charset=utf-8",
        include_str!("page/style.css"),
    ),
];

/// `body` with the page's safety headers.
fn respond(status: u16, content_type: &str, body: String) -> Response<Body> {
    Response::builder()
        .status(status)
        .header("Content-Type", content_type)
        .header("X-Content-Type-Options", "nosniff")
        .header(
            "Content-Security-Policy",
            "default-src 'self'; object-src 'none'; frame-ancestors 'none'",
        )
        .header("Cache-Control", "no-store")
        .body(Body::from(body))
        .unwrap_or_else(|_| Response::new(Body::from("bad header")))
}

/// Status, content type and body for a request that is not for one of
/// the page's files (`handle` answers those).
/// `left` is raised when the client goes away: a long analysis stops.
fn route(
    method: &Method,
    url: &str,
    state: &State,
    left: &Arc<AtomicBool>,
) -> (u16, &'static str, String) {
    if *method != Method::GET {
        return (405, JSON, error("only GET is answered"));
    }
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    if path == "/favicon.ico" {
        return (204, "image/x-icon", String::new());
    }
    let reply = match path {
        "/api/analyze" => question(query, left).and_then(|q| analysis::analyze(&q)),
        "/api/games" => Ok(state.library.list()),
        "/api/game" => game_params(query).and_then(|(log, game)| state.library.game(log, game)),
        "/api/engines" => Ok(state.players.list()),
        "/api/live" => {
            let log = number_param(query, "log").unwrap_or(1) as usize;
            standings::standings(&state.library, state.run.as_ref(), log)
        }
        "/api/move" => move_params(query)
            .and_then(|(i, moves)| state.players.play(i, rules_param(query)?, &moves)),
        _ => return (404, JSON, error(&format!("no page {}", shorten(path)))),
    };
    match reply {
        Ok(value) => (200, JSON, value.to_string()),
        Err(why) => (400, JSON, error(&why)),
    }
}

/// `{"error": why}`.
fn error(why: &str) -> String {
    json!({ "error": why }).to_string()
}

/// A path or value cut short for a message.
fn shorten(text: &str) -> String {
    connect4::protocol::lines::shorten(text, 60)
}

/// The value of `name` in a query string (`a=1&b=2`), percent-decoded.
fn param(query: &str, name: &str) -> Result<String, String> {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| decode(v))
        .ok_or_else(|| format!("the request has no '{name}'"))
}

/// The position of a query: `moves` (the command line's move string),
/// or `pos` as the page's address writes it.
fn moves_param(query: &str) -> Result<String, String> {
    param(query, "moves").or_else(|_| param(query, "pos"))
}

/// The board of a query: `rules` (`7x6x4`, `7x7`), the standard one if
/// not given.
fn rules_param(query: &str) -> Result<Rules, String> {
    match param(query, "rules") {
        Ok(text) => text.parse().map_err(|e: RulesError| e.to_string()),
        Err(_) => Ok(Rules::STANDARD),
    }
}

/// What `/api/analyze` is asked: the board, the position, one column or
/// all, and whether to prove.
fn question(query: &str, left: &Arc<AtomicBool>) -> Result<analysis::Question, String> {
    let rules = rules_param(query)?;
    let column = match param(query, "column") {
        Ok(_) => {
            let n = number_param(query, "column")?;
            let columns = u64::from(rules.columns());
            if !(1..=columns).contains(&n) {
                return Err(format!("column {n}: the board has columns 1 to {columns}"));
            }
            Some(n as u32)
        }
        Err(_) => None,
    };
    Ok(analysis::Question {
        rules,
        moves: moves_param(query)?,
        column,
        deep: param(query, "deep").is_ok_and(|d| d == "1"),
        stop: Some(Arc::clone(left)),
    })
}

/// The number `name` of a query.
fn number_param(query: &str, name: &str) -> Result<u64, String> {
    let text = param(query, name)?;
    text.parse()
        .map_err(|_| format!("{name} = '{}': expected a number", shorten(&text)))
}

/// `log` (1-based) and `game` (as the log numbers it) of a query.
fn game_params(query: &str) -> Result<(usize, u64), String> {
    Ok((
        number_param(query, "log")? as usize,
        number_param(query, "game")?,
    ))
}

/// `engine` (1-based) and the position of a query.
fn move_params(query: &str) -> Result<(usize, String), String> {
    Ok((number_param(query, "engine")? as usize, moves_param(query)?))
}

/// `text` with `%XX` and `+` decoded (bytes that are not UTF-8 replaced).
fn decode(text: &str) -> String {
    let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%' && i + 2 < bytes.len())
            .then(|| Some(hex(bytes[i + 1])? * 16 + hex(bytes[i + 2])?))
            .flatten();
        match (escaped, bytes[i]) {
            (Some(b), _) => {
                out.push(b);
                i += 3;
                continue;
            }
            (None, b'+') => out.push(b' '),
            (None, b) => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A JSON value, for the handlers.
pub(crate) type Reply = Result<Value, String>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_are_read_and_bad_ones_named() {
        assert_eq!(param("pos=4453&x=1", "pos").unwrap(), "4453");
        assert_eq!(param("pos=%34%34", "pos").unwrap(), "44");
        assert!(param("x=1", "pos").unwrap_err().contains("'pos'"));
        assert_eq!(decode("%zz%4"), "%zz%4");
        assert_eq!(decode("%é%41"), "%éA");
        assert!(game_params("log=0&game=abc").unwrap_err().contains("'abc'"));
        let state = State {
            library: Library::load(&[]).unwrap(),
            players: Players::new(&[]),
            run: None,
        };
        let (status, _, body) = route(&Method::POST, "/", &state, &Arc::default());
        assert_eq!(status, 405, "{body}");
        let (status, _, body) = route(&Method::GET, "/../etc/passwd", &state, &Arc::default());
        assert_eq!(status, 404, "{body}");
        let (status, _, body) = route(
            &Method::GET,
            "/api/move?engine=1&moves=4",
            &state,
            &Arc::default(),
        );
        assert_eq!(status, 400);
        assert!(body.contains("0 engine(s) were given"), "{body}");
        let (status, _, body) = route(
            &Method::GET,
            "/api/analyze?moves=48",
            &state,
            &Arc::default(),
        );
        assert_eq!(status, 400);
        assert!(body.contains("'8'"), "{body}");
        let (status, _, body) = route(
            &Method::GET,
            "/api/analyze?moves=4&rules=12x6x4",
            &state,
            &Arc::default(),
        );
        assert_eq!(status, 400);
        assert!(body.contains("columns = 12"), "{body}");
        let (status, _, body) = route(
            &Method::GET,
            "/api/analyze?moves=4&column=4294967297",
            &state,
            &Arc::default(),
        );
        assert_eq!(status, 400, "{body}");
        assert!(
            body.contains("column 4294967297: the board has columns 1 to 7"),
            "{body}"
        );
        let (status, _, body) = route(
            &Method::GET,
            "/api/analyze?moves=4&column=x",
            &state,
            &Arc::default(),
        );
        assert_eq!(status, 400);
        assert!(body.contains("column = 'x'"), "{body}");
    }
}
