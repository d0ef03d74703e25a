//! `serve`: a local web page to see games. Play and analyse a position on
//! a board (each column's exact score from the book and the solver, the
//! position in the URL), and replay the games of match, tournament,
//! grading and experiment logs move by move, with the solver's verdict on
//! every move ([`connect4::search::verdict`], the grader's own).
//!
//! The page (HTML, CSS and JavaScript modules with one job each) is
//! embedded in the binary and loads nothing from elsewhere; it holds no
//! rules of its own (the server says which columns can be played and
//! whether the game is over). The server binds to loopback unless told
//! otherwise, answers only GET, reads nothing but the logs it was given,
//! bounds the work a request may cause (a time cap per position, a cache
//! of verdicts per game), and answers the requests that take work on a
//! fixed number of threads with a bounded queue before them (503 when it
//! is full). A request that another site's page makes, or that comes
//! under another host name (DNS rebinding), is refused (see `guard`).
//! Every error is an `error::ApiError`: its status and the command
//! line's words.
//!
//! The map, from the bottom: `error`; `guard`, `prover`, `opponents`,
//! `replay`; `analysis` (on `prover`), `standings` (on `replay`); `api`
//! (the handlers, on all of them); `server` (the routes and the accept
//! loop, on `api` and `guard`); `report` (the page as a file, on `replay`
//! and `standings`).

mod analysis;
mod api;
mod error;
mod guard;
mod opponents;
mod prover;
mod replay;
pub mod report;
mod report_tables;
mod server;
mod standings;

use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result};
use serde_json::Value;

pub use connect4_match::live::RunInfo;
use opponents::Opponents;
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
struct Served {
    library: Library,
    opponents: Opponents,
    run: Option<RunInfo>,
}

/// Serves until killed.
pub fn run(args: &Args) -> Result<ExitCode> {
    let state = Arc::new(Served {
        library: Library::load(&args.log)?,
        opponents: Opponents::new(&args.engine),
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
    server::serve(listener, address.port(), state)?;
    Ok(ExitCode::SUCCESS)
}

/// Serves the page of a run under way (`match|tournament --serve PORT`) on
/// loopback, on a thread of its own, from the run's `log` as it grows;
/// returns the page's address.
pub fn follow(port: u16, log: &std::path::Path, run: RunInfo) -> Result<String> {
    let state = Arc::new(Served {
        library: Library::load(&[log.to_path_buf()])?,
        opponents: Opponents::new(&[]),
        run: Some(run),
    });
    let (listener, address) = listen(IpAddr::V4(Ipv4Addr::LOCALHOST), port)?;
    std::thread::spawn(move || {
        if let Err(e) = server::serve(listener, address.port(), state) {
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

/// A JSON value, or the error that says why not, for the handlers.
pub(crate) type ApiResult = Result<Value, error::ApiError>;
