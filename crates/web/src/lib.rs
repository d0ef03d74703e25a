//! `serve`: a local web page to see games. Play and analyse a position on
//! a board (each column's exact score from the book and the solver, the
//! position in the URL), and replay the games of match, tournament,
//! grading and experiment logs move by move, with the solver's verdict on
//! every move ([`connect4::search::verdict`], the grader's own). `/solve`
//! answers other programs (TextArena's and SPIN-Bench's solver agents) a
//! position's exact scores in the shape of Pons' web solver.
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
mod solve;
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
    /// The folder of a class league (`league --dir`) whose page to show:
    /// the ladder live, each student's games and feedback, every game
    /// replayed.
    #[arg(long, value_name = "DIR")]
    pub league: Option<PathBuf>,
}

/// What went wrong reading a league for its page.
pub type LeagueError = Box<dyn std::error::Error + Send + Sync>;

/// A class league as its page reads it (the league's crate answers it):
/// its game log, its ladder and each student's page, as JSON, read again
/// at each request.
pub trait League: Send + Sync {
    /// The league's game log, which the page replays.
    fn log(&self) -> PathBuf;
    /// The ladder, the refused submissions, the final round's table.
    fn ladder(&self) -> Result<Value, LeagueError>;
    /// The page of the student `name` (of the anchor so named when
    /// `anchor`), or `None` if there is no such player.
    fn student(&self, name: &str, anchor: bool) -> Result<Option<Value>, LeagueError>;
}

/// The league a server shows, and the number of its game log among the
/// logs served.
struct Shown {
    league: Arc<dyn League>,
    log: usize,
}

/// What the requests read: the logs' games, the engines, and the run
/// that serves the page, if one does.
struct Served {
    library: Library,
    opponents: Opponents,
    run: Option<RunInfo>,
    league: Option<Shown>,
}

/// Serves until killed; `league` is the league of `--league`, opened by
/// the caller.
pub fn run(args: &Args, league: Option<Arc<dyn League>>) -> Result<ExitCode> {
    let mut logs = args.log.clone();
    if let (Some(dir), Some(league)) = (&args.league, &league) {
        if !league.log().exists() {
            anyhow::bail!(
                "--league {}: no league has started there (no games.jsonl); start one with \
                 connect4-arena league --dir {}",
                dir.display(),
                dir.display()
            );
        }
        logs.push(league.log());
    }
    let league = league.map(|league| Shown {
        league,
        log: logs.len(),
    });
    let state = Arc::new(Served {
        library: Library::load(&logs)?,
        opponents: Opponents::new(&args.engine),
        run: None,
        league,
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
    match &state.league {
        Some(_) => println!(
            "serving on http://{address}/ (Ctrl-C to stop); the league's page: http://{address}/league"
        ),
        None => println!("serving on http://{address}/ (Ctrl-C to stop)"),
    }
    server::serve(listener, address.port(), state, server::Until::Signalled)?;
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
        league: None,
    });
    let address = serve_aside(state, port, "the page of the run")?;
    Ok(format!("http://{address}/live"))
}

/// Serves the page of a league under way (`league --serve PORT`) on
/// loopback, on a thread of its own; returns the page's address.
pub fn follow_league(port: u16, league: Arc<dyn League>) -> Result<String> {
    let state = Arc::new(Served {
        library: Library::load(&[league.log()])?,
        opponents: Opponents::new(&[]),
        run: None,
        league: Some(Shown { league, log: 1 }),
    });
    let judging = Arc::clone(&state);
    std::thread::spawn(move || judging.library.judge_all());
    let address = serve_aside(state, port, "the league's page")?;
    Ok(format!("http://{address}/league"))
}

/// Serves `state` on loopback's `port` on a thread of its own; the
/// address. What stops it is said as `what` stopped.
fn serve_aside(state: Arc<Served>, port: u16, what: &'static str) -> Result<SocketAddr> {
    let (listener, address) = listen(IpAddr::V4(Ipv4Addr::LOCALHOST), port)?;
    std::thread::spawn(move || {
        if let Err(e) = server::serve(listener, address.port(), state, server::Until::ProcessEnds) {
            eprintln!("connect4-arena: {what} stopped: {e:#}");
        }
    });
    Ok(address)
}

/// A socket listening on `host:port` (0: a free port) and its address.
fn listen(host: IpAddr, port: u16) -> Result<(TcpListener, SocketAddr)> {
    let at = SocketAddr::new(host, port);
    let listener = TcpListener::bind(at).with_context(|| format!("listening on {at}"))?;
    let address = listener.local_addr().context("the server's address")?;
    Ok((listener, address))
}
