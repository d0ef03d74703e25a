//! The server's plumbing: the routes (axum's router), the guard and the
//! page's safety headers (axum middleware), the bound on the work in hand
//! (tower's load-shedding concurrency limit), and the accept loop.
//!
//! The accept loop is written here rather than taken from `axum::serve`,
//! which neither caps the connections open at once nor closes one whose
//! request head never comes: both are what keep slow or idle clients from
//! holding the server (`arena/tests/arena/web.rs` floods it).

use std::future::Future;
use std::net::TcpListener;
use std::sync::Arc;
use std::task::{self, Poll};
use std::time::Duration;

use anyhow::{Context, Result};
use axum::Router;
use axum::error_handling::HandleErrorLayer;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tokio::signal::unix::{Signal, SignalKind, signal};
use tokio::sync::Semaphore;
use tower::limit::GlobalConcurrencyLimitLayer;
use tower::{BoxError, ServiceBuilder};

use crate::error::ApiError;
use crate::{Served, analysis, api, guard};

/// Threads answering the requests that take work.
const WORKERS: usize = 4;
/// Requests waiting for a thread, at most; more are answered 503 at once.
const QUEUE: usize = 64;
/// Connections open at once, at most; more are closed as they come.
const CONNECTIONS: usize = 1024;
/// Time a client has to send a request's head, and the longest a kept-alive
/// connection waits idle for the next one, before it is closed.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest a connection stays open in all.
const CONNECTION_TIMEOUT: Duration = Duration::from_secs(600);

/// When the server stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Until {
    /// When the process ends (a page served beside a run, which handles
    /// the signals itself).
    ProcessEnds,
    /// At the first Ctrl-C (SIGINT) or SIGTERM, handled here even where
    /// the process was started with them ignored (a script's `serve &`
    /// inherits SIGINT ignored, and the default action would never come).
    Signalled,
}

/// Answers the requests on `listener` (which serves on `port`) until
/// `until`, on an asynchronous HTTP stack (axum on tokio: a connection
/// costs a task, not a thread), the work on [`WORKERS`] threads. Returns
/// without waiting for the work in hand, whose threads end with the
/// process.
pub fn serve(listener: TcpListener, port: u16, served: Arc<Served>, until: Until) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(WORKERS)
        // The answering threads keep their solvers: they are not let go.
        .thread_keep_alive(Duration::from_secs(24 * 3600))
        .enable_io()
        .enable_time()
        .build()
        .context("starting the server's runtime")?;
    let stopped = runtime.block_on(async move {
        let mut signals = match until {
            Until::Signalled => Some(Signals::new()?),
            Until::ProcessEnds => None,
        };
        warm_up().await;
        listener.set_nonblocking(true)?;
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let accepting = accept(listener, router(served, port));
        let mut accepting = std::pin::pin!(accepting);
        Ok::<_, std::io::Error>(
            std::future::poll_fn(|cx| {
                if let Some(name) = signals.as_mut().and_then(|s| s.poll(cx)) {
                    return Poll::Ready(Some(name));
                }
                accepting.as_mut().poll(cx).map(|()| None)
            })
            .await,
        )
    })?;
    if let Some(name) = stopped {
        eprintln!("connect4-arena: stopped by {name}");
    }
    runtime.shutdown_background();
    Ok(())
}

/// The signals that stop a server of its own: SIGINT and SIGTERM.
struct Signals {
    interrupt: Signal,
    terminate: Signal,
}

impl Signals {
    /// Listens for both (from now on, replacing an inherited "ignore").
    fn new() -> std::io::Result<Signals> {
        Ok(Signals {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
        })
    }

    /// The name of the signal that came, if one did.
    fn poll(&mut self, cx: &mut task::Context<'_>) -> Option<&'static str> {
        if self.interrupt.poll_recv(cx).is_ready() {
            Some("Ctrl-C (SIGINT)")
        } else if self.terminate.poll_recv(cx).is_ready() {
            Some("SIGTERM")
        } else {
            None
        }
    }
}

/// Every path the server answers. The page's files and what costs nothing
/// are answered at once; the routes that take work share one bound of
/// [`WORKERS`] + [`QUEUE`] requests in hand (answered on the threads or
/// waiting for one), and beyond it are answered 503 at once.
fn router(served: Arc<Served>, port: u16) -> Router {
    let bounded = ServiceBuilder::new()
        .layer(HandleErrorLayer::new(|_: BoxError| async {
            ApiError::Busy(QUEUE)
        }))
        .load_shed()
        .layer(GlobalConcurrencyLimitLayer::new(WORKERS + QUEUE));
    let work = Router::new()
        .route("/api/analyze", get(api::analyze))
        .route("/api/games", get(api::games))
        .route("/api/game", get(api::game))
        .route("/api/live", get(api::live))
        .route("/api/move", get(api::play))
        .route("/api/league", get(api::league))
        .route("/api/league/student", get(api::student))
        .route("/solve", get(api::solve))
        .route_layer(bounded);
    let mut app = Router::new()
        .route("/api/position", get(api::position))
        .route("/api/engines", get(api::engines))
        .route("/favicon.ico", get(|| async { StatusCode::NO_CONTENT }))
        .merge(work);
    for (path, kind, body) in PAGE {
        app = app.route(
            path,
            get(move || async move { ([(header::CONTENT_TYPE, kind)], body) }),
        );
    }
    app.fallback(api::elsewhere)
        .method_not_allowed_fallback(|| async { ApiError::Method })
        .with_state(served)
        .layer(middleware::from_fn_with_state(port, guarded))
        .layer(middleware::map_response(with_safety_headers))
}

/// Refuses a request unless it comes from the page of `port` (403; see
/// [`guard`]).
async fn guarded(State(port): State<u16>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let allowed = guard::allowed(
        header("host"),
        header("origin"),
        header("sec-fetch-site"),
        port,
    );
    match allowed {
        Ok(()) => next.run(request).await,
        Err(refused) => refused.into_response(),
    }
}

/// `response` with the page's safety headers: no sniffing, nothing loaded
/// from elsewhere, never framed, never cached.
async fn with_safety_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    for (name, value) in [
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'self'; object-src 'none'; frame-ancestors 'none'",
        ),
        (header::CACHE_CONTROL, "no-store"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

/// Takes connections for ever: at most [`CONNECTIONS`] open at once (more
/// are closed at once), each closed if its request's head takes over
/// [`HEAD_TIMEOUT`] or it waits idle as long, and after
/// [`CONNECTION_TIMEOUT`] in all. An error accepting (no file descriptors
/// left) waits a moment. Nagle's algorithm is off on every connection: an
/// answer's head and body go apart, and the body would wait for the
/// client's delayed acknowledgement of the head (40 ms on Linux).
async fn accept(listener: tokio::net::TcpListener, app: Router) {
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

/// The embedded page's files: path, content type, body (`/replay`,
/// `/live` and `/league` are the page opened on those views).
const PAGE: [(&str, &str, &str); 14] = [
    ("/", HTML, include_str!("page/index.html")),
    ("/league", HTML, include_str!("page/index.html")),
    ("/replay", HTML, include_str!("page/index.html")),
    ("/live", HTML, include_str!("page/index.html")),
    (
        "/style.css",
        "text/css; charset=utf-8",
        include_str!("page/style.css"),
    ),
    ("/api.js", JS, include_str!("page/api.js")),
    ("/board.js", JS, include_str!("page/board.js")),
    ("/play.js", JS, include_str!("page/play.js")),
    ("/replay.js", JS, include_str!("page/replay.js")),
    ("/games.js", JS, include_str!("page/games.js")),
    ("/live.js", JS, include_str!("page/live.js")),
    ("/chart.js", JS, include_str!("page/chart.js")),
    ("/tabs.js", JS, include_str!("page/tabs.js")),
    ("/league.js", JS, include_str!("page/league.js")),
];

/// The content type of the page.
const HTML: &str = "text/html; charset=utf-8";
/// The content type of the page's modules.
const JS: &str = "text/javascript; charset=utf-8";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opponents::Opponents;
    use crate::replay::Library;
    use axum::body::Body;
    use tower::ServiceExt;

    /// What a server without logs or engines answers `method path` asked
    /// under the host name `host` (its port is 8000).
    async fn answer(method: &str, path: &str, host: &str) -> Response {
        answer_showing(None, method, path, host).await
    }

    /// `answer`, of a server that shows `league`.
    async fn answer_showing(
        league: Option<Arc<dyn crate::League>>,
        method: &str,
        path: &str,
        host: &str,
    ) -> Response {
        let served = Arc::new(Served {
            library: Library::load(&[]).unwrap(),
            opponents: Opponents::new(&[]),
            run: None,
            league: league.map(|league| crate::Shown { league, log: 3 }),
        });
        let request = Request::builder()
            .method(method)
            .uri(path)
            .header("host", host)
            .body(Body::empty())
            .unwrap();
        router(served, 8000).oneshot(request).await.unwrap()
    }

    /// The status and body of `method path` asked of a server without logs
    /// or engines, as its own page asks.
    async fn ask(method: &str, path: &str) -> (u16, String) {
        let response = answer(method, path, "127.0.0.1:8000").await;
        let status = response.status().as_u16();
        let body = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .unwrap();
        (status, String::from_utf8_lossy(&body).into_owned())
    }

    /// `ask` on a runtime of its own.
    fn asked(method: &str, path: &str) -> (u16, String) {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap()
            .block_on(ask(method, path))
    }

    #[test]
    fn bad_requests_are_answered_with_the_command_line_s_words() {
        let cases = [
            ("POST", "/", 405, "only GET"),
            ("POST", "/api/analyze?moves=4", 405, "only GET"),
            ("GET", "/../etc/passwd", 404, "no page"),
            (
                "GET",
                "/api/move?engine=1&moves=4",
                400,
                "0 engine(s) were given",
            ),
            ("GET", "/api/analyze?moves=48", 400, "'8'"),
            (
                "GET",
                "/api/analyze?moves=4&rules=12x6x4",
                400,
                "columns = 12",
            ),
            (
                "GET",
                "/api/analyze?moves=4&column=4294967297",
                400,
                "column 4294967297: the board has columns 1 to 7",
            ),
            ("GET", "/api/analyze?moves=4&column=x", 400, "column = 'x'"),
            (
                "GET",
                "/api/analyze?rules=7x6",
                400,
                "the request has no 'moves'",
            ),
            ("GET", "/api/game?log=0&game=abc", 400, "game = 'abc'"),
            (
                "GET",
                "/api/game?log=1&game=1",
                400,
                "log 1: 0 log(s) were given",
            ),
            (
                "GET",
                "/api/position?pos=%34%34&moves=4444444",
                400,
                "column 4 is full",
            ),
            ("GET", "/api/league", 404, "this server shows no league"),
            (
                "GET",
                "/api/league/student?name=alice",
                404,
                "shows no league",
            ),
        ];
        for (method, path, status, words) in cases {
            let (code, body) = asked(method, path);
            assert_eq!(code, status, "{method} {path}: {body}");
            let error: serde_json::Value = serde_json::from_str(&body).unwrap();
            assert!(
                error["error"].as_str().unwrap().contains(words),
                "{method} {path}: {body}"
            );
        }
    }

    /// A league that has alice only, and whose ladder cannot be read.
    struct Alice;

    impl crate::League for Alice {
        fn log(&self) -> std::path::PathBuf {
            "games.jsonl".into()
        }
        fn ladder(&self) -> Result<serde_json::Value, crate::LeagueError> {
            Err("the league's database league.db: database is locked".into())
        }
        fn student(
            &self,
            name: &str,
            anchor: bool,
        ) -> Result<Option<serde_json::Value>, crate::LeagueError> {
            Ok((name == "alice" && !anchor).then(|| serde_json::json!({ "student": name })))
        }
    }

    #[test]
    fn the_league_s_answers_carry_its_log_and_say_what_is_missing() {
        let ask = |path: &str| {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async {
                let response =
                    answer_showing(Some(Arc::new(Alice)), "GET", path, "127.0.0.1:8000").await;
                let status = response.status().as_u16();
                let body = axum::body::to_bytes(response.into_body(), 1 << 20)
                    .await
                    .unwrap();
                let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
                (status, body)
            })
        };
        let (status, page) = ask("/api/league/student?name=alice");
        assert_eq!((status, page["log"].as_u64()), (200, Some(3)), "{page}");
        let (status, error) = ask("/api/league/student?name=alice&anchor=1");
        assert_eq!(status, 404);
        assert_eq!(error["error"], "the league has no anchor 'alice'");
        let (status, error) = ask("/api/league/student?name=bob");
        assert_eq!(
            (status, error["error"].as_str()),
            (404, Some("the league has no student 'bob'"))
        );
        let (status, error) = ask("/api/league/student");
        assert_eq!(
            (status, error["error"].as_str()),
            (400, Some("the request has no 'name'"))
        );
        let (status, error) = ask("/api/league");
        assert_eq!(status, 503);
        assert!(
            error["error"].as_str().unwrap().contains("locked"),
            "{error}"
        );
    }

    #[test]
    fn a_position_s_state_comes_from_the_server() {
        let (code, body) = asked("GET", "/api/position?pos=%34%34");
        assert_eq!(code, 200, "{body}");
        let p: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(p["moves"], "44");
        assert_eq!(p["over"], false);
        assert_eq!(p["playable"], serde_json::json!([1, 2, 3, 4, 5, 6, 7]));
        let (_, body) = asked("GET", "/api/position?rules=4x4x4&moves=1212121");
        let p: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(p["result"], "first");
        assert_eq!(p["playable"], serde_json::json!([]));
        assert_eq!(
            (p["columns"].as_u64(), p["rows"].as_u64()),
            (Some(4), Some(4))
        );
    }

    #[test]
    fn solve_answers_as_pons_web_solver_does_with_a_level_s_move() {
        let json = |path: &str| {
            let (code, body) = asked("GET", path);
            (
                code,
                serde_json::from_str::<serde_json::Value>(&body).unwrap(),
            )
        };
        // The empty board, as the agents ask it (no pos, or an empty one).
        for path in ["/solve", "/solve?pos="] {
            let (code, v) = json(path);
            assert_eq!(code, 200, "{v}");
            assert_eq!(v["score"], serde_json::json!([-2, -1, 0, 1, 0, -1, -2]));
        }
        let (_, v) = json("/solve?pos=4453");
        assert_eq!(v["pos"], "4453");
        assert_eq!(v["score"], serde_json::json!([-5, -5, -2, -3, -4, -2, -2]));
        // A full column scores below every move.
        let (_, v) = json("/solve?pos=444444");
        assert_eq!(v["score"][3], crate::solve::FULL);
        let best = |v: &serde_json::Value| {
            let score: Vec<i64> = v["score"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_i64().unwrap())
                .collect();
            let max = *score.iter().max().unwrap();
            (0..score.len())
                .filter(|&c| score[c] == max)
                .collect::<Vec<_>>()
        };
        assert!(!best(&v).contains(&3));
        // The perfect level plays a best move; every level plays a legal one.
        let (_, v) = json("/solve?pos=444444&level=7");
        assert_eq!(
            (v["level"].as_u64(), v["player"].as_str()),
            (Some(7), Some("perfect"))
        );
        assert!(
            best(&v).contains(&(v["move"].as_u64().unwrap() as usize)),
            "{v}"
        );
        for level in 1..=6 {
            let (code, v) = json(&format!("/solve?pos=444444&level={level}&seed=3"));
            assert_eq!(code, 200, "{v}");
            let column = v["move"].as_u64().unwrap();
            assert!(column < 7 && column != 3, "level {level}: {v}");
        }
        for (path, code, error) in [
            ("/solve?pos=4444444", 400, "moves '4444444': "),
            ("/solve?pos=1212121", 400, "the game is over"),
            (
                "/solve?pos=4&level=8",
                400,
                "level 8: the levels are 1 to 7",
            ),
            (
                "/solve?pos=4&level=one",
                400,
                "level = 'one': expected a number",
            ),
        ] {
            let (got, v) = json(path);
            assert_eq!(got, code, "{path}: {v}");
            assert!(v["error"].as_str().unwrap().contains(error), "{path}: {v}");
        }
    }

    #[test]
    fn another_host_name_is_refused_and_answers_carry_the_safety_headers() {
        let response = tokio::runtime::Runtime::new().unwrap().block_on(answer(
            "GET",
            "/",
            "evil.example:8000",
        ));
        assert_eq!(response.status(), 403);
        assert_eq!(response.headers()["cache-control"], "no-store");
        assert_eq!(response.headers()["x-content-type-options"], "nosniff");
    }
}
