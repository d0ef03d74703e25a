//! A stand-in for a model's server: it speaks the chat-completions API
//! (streaming off) on loopback and answers as the request's `model` names
//! it, so that every path of the client and the games runs without a
//! network or a model:
//!
//! | model | answers |
//! |---|---|
//! | `perfect` | the solver's move, as `[N]` |
//! | `lowest` | the lowest legal column (legal, and weak) |
//! | `thinker` | the solver's move after a `<think>` naming another |
//! | `illegal` | column 99, always |
//! | `babble` | words and no move, always |
//! | `second-try` | column 99 on a turn's first answer, the solver's move when told it was wrong |
//! | `slow` | the solver's move after `--slow-ms` |
//! | `rate-limited` | 429 (`Retry-After: 0`) on every other request, else as `perfect` |
//! | `garbled` | a body that is not JSON on every other request, else as `perfect` |
//! | `down` | 503, always |
//!
//! Any other model is 404, and with `--key` a request without that key is
//! 401, as a hosted server answers. `GET /stats` gives the requests seen
//! and the most in flight at once.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result};
use axum::Router;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use connect4::agents::Agent;
use connect4::search::Limits;
use connect4::{Position, Rules};
use serde::Deserialize;
use serde_json::json;

use crate::model::Message;
use crate::prompt;

/// Arguments of `llm stand-in`.
#[derive(clap::Args)]
pub struct Args {
    /// The address to listen on (port 0: any free one; the address taken
    /// is the first line printed).
    #[arg(long, default_value = "127.0.0.1:0")]
    pub listen: SocketAddr,
    /// The API key to ask for (none: any request is taken).
    #[arg(long)]
    pub key: Option<String>,
    /// How long `slow` waits before answering, in milliseconds.
    #[arg(long, default_value_t = 3000)]
    pub slow_ms: u64,
}

/// What the server keeps between requests.
struct Stand {
    solver: Mutex<Box<dyn Agent>>,
    key: Option<String>,
    slow: Duration,
    requests: AtomicU64,
    in_flight: AtomicU64,
    most_in_flight: AtomicU64,
}

/// A request's parts read here.
#[derive(Deserialize)]
struct Request {
    model: String,
    messages: Vec<Message>,
}

/// Serves until killed; prints the address it listens on first.
pub fn run(args: &Args) -> Result<()> {
    let runtime = runtime()?;
    runtime.block_on(async {
        let listener = bind(args).await?;
        println!("http://{}/v1", listener.local_addr()?);
        serve(listener, args).await
    })
}

/// Starts a stand-in on a free loopback port, served by a thread of its
/// own for as long as the process lives; its base URL.
pub fn start_in_background(slow_ms: u64) -> Result<String> {
    let args = Args {
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        key: None,
        slow_ms,
    };
    let runtime = runtime()?;
    let listener = runtime.block_on(bind(&args))?;
    let url = format!("http://{}/v1", listener.local_addr()?);
    std::thread::spawn(move || {
        if let Err(e) = runtime.block_on(serve(listener, &args)) {
            eprintln!("connect4-arena: the stand-in server stopped: {e:#}");
        }
    });
    Ok(url)
}

/// The server's runtime.
fn runtime() -> Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?)
}

/// The listening socket `args` ask for.
async fn bind(args: &Args) -> Result<tokio::net::TcpListener> {
    tokio::net::TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("listening on {}", args.listen))
}

/// Serves the stand-in on `listener`.
async fn serve(listener: tokio::net::TcpListener, args: &Args) -> Result<()> {
    let stand = Arc::new(Stand {
        solver: Mutex::new(connect4::agents::from_spec("solver").expect("the solver exists")),
        key: args.key.clone(),
        slow: Duration::from_millis(args.slow_ms),
        requests: AtomicU64::new(0),
        in_flight: AtomicU64::new(0),
        most_in_flight: AtomicU64::new(0),
    });
    let app = Router::new()
        .route("/v1/chat/completions", post(completion))
        .route("/stats", get(stats))
        .layer(DefaultBodyLimit::max(4 << 20))
        .with_state(stand);
    axum::serve(listener, app).await.context("serving")
}

/// `GET /stats`.
async fn stats(State(stand): State<Arc<Stand>>) -> Response {
    axum::Json(json!({
        "requests": stand.requests.load(Ordering::SeqCst),
        "most_in_flight": stand.most_in_flight.load(Ordering::SeqCst),
    }))
    .into_response()
}

/// `POST /v1/chat/completions`.
async fn completion(
    State(stand): State<Arc<Stand>>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    let n = stand.requests.fetch_add(1, Ordering::SeqCst);
    let now = stand.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    stand.most_in_flight.fetch_max(now, Ordering::SeqCst);
    let response = answer(&stand, &headers, &body, n).await;
    stand.in_flight.fetch_sub(1, Ordering::SeqCst);
    response
}

/// An API error of `status` saying `message`.
fn error(status: StatusCode, message: &str) -> Response {
    (status, axum::Json(json!({"error": {"message": message}}))).into_response()
}

/// The answer to request number `n` (from 0).
async fn answer(stand: &Stand, headers: &HeaderMap, body: &[u8], n: u64) -> Response {
    if let Some(key) = &stand.key {
        let given = headers.get("authorization").and_then(|v| v.to_str().ok());
        if given != Some(&format!("Bearer {key}")) {
            return error(StatusCode::UNAUTHORIZED, "Incorrect API key provided");
        }
    }
    let Ok(request) = serde_json::from_slice::<Request>(body) else {
        return error(
            StatusCode::BAD_REQUEST,
            "the body is not a chat-completions request",
        );
    };
    let texts: Vec<&str> = request
        .messages
        .iter()
        .map(|m| m.content.as_str())
        .collect();
    let text = match scripted(stand, &request, &texts, n).await {
        Ok(Some(text)) => text,
        Ok(None) => return error(StatusCode::BAD_REQUEST, "no position in the messages"),
        Err(response) => return response,
    };
    let prompt_tokens = texts.iter().map(|t| t.len()).sum::<usize>() / 4;
    let completion_tokens = text.len() / 4 + 1;
    axum::Json(json!({
        "id": format!("stand-in-{n}"),
        "object": "chat.completion",
        "model": request.model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }))
    .into_response()
}

/// What the model the request names answers (none: no position in the
/// messages), or the failure it is scripted to give.
async fn scripted(
    stand: &Stand,
    request: &Request,
    texts: &[&str],
    n: u64,
) -> Result<Option<String>, Response> {
    let corrected = request
        .messages
        .last()
        .is_some_and(|m| m.role == "user" && m.content.starts_with("That is not a legal move"));
    let best = || best_move(stand, texts);
    Ok(match request.model.as_str() {
        "perfect" => best(),
        "lowest" => lowest_move(texts),
        "thinker" => best().map(|m| format!("<think>Maybe [99]? No.</think> I play {m}.")),
        "illegal" => Some("[99]".into()),
        "babble" => Some("The centre is a fine place to be.".into()),
        "second-try" if !corrected => Some("[99]".into()),
        "second-try" => best(),
        "slow" => {
            tokio::time::sleep(stand.slow).await;
            best()
        }
        "rate-limited" if n.is_multiple_of(2) => {
            let mut r = error(StatusCode::TOO_MANY_REQUESTS, "Rate limit reached");
            r.headers_mut()
                .insert("retry-after", "0".parse().expect("a header value"));
            return Err(r);
        }
        "garbled" if n.is_multiple_of(2) => {
            return Err((StatusCode::OK, "{\"choices\": [").into_response());
        }
        "rate-limited" | "garbled" => best(),
        "down" => {
            return Err(error(
                StatusCode::SERVICE_UNAVAILABLE,
                "The server is overloaded",
            ));
        }
        other => {
            return Err(error(
                StatusCode::NOT_FOUND,
                &format!("The model '{other}' does not exist"),
            ));
        }
    })
}

/// The position the messages give, and the first column's number.
fn position_of(texts: &[&str]) -> Option<(u32, Position)> {
    let (first, moves) = prompt::moves_in(texts)?;
    let mut p = Position::new(Rules::STANDARD);
    for m in moves {
        if !p.can_play(m) || p.is_over() {
            return None;
        }
        p.play(m);
    }
    (!p.is_over()).then_some((first, p))
}

/// The solver's move, as `[N]` in the prompt's numbers.
fn best_move(stand: &Stand, texts: &[&str]) -> Option<String> {
    let (first, p) = position_of(texts)?;
    let column = stand
        .solver
        .lock()
        .unwrap()
        .choose(&p, &Limits::none(), None)
        .column;
    Some(format!("[{}]", column + first))
}

/// The lowest legal column, as `[N]`.
fn lowest_move(texts: &[&str]) -> Option<String> {
    let (first, p) = position_of(texts)?;
    Some(format!("[{}]", p.legal_moves()[0] + first))
}
