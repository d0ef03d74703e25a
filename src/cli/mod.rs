//! The subcommands for people: `solve`, `bench`, `perft`, `train`, `tune`
//! and `play`.
//!
//! Each takes its parsed arguments and writes to stdout; errors travel as
//! `anyhow` chains to `main`, which prints them.

use std::io::{self, Write};
use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};

pub mod bench;
pub mod book;
pub mod perft;
pub mod play;
pub mod solve;
pub mod train;
pub mod tune;

/// A perfect Connect-4 engine. With no subcommand it speaks the line-based
/// JSON protocol on stdin and stdout.
#[derive(Parser)]
#[command(name = "connect4", version)]
pub struct Cli {
    /// What to do; none runs a protocol session.
    #[command(subcommand)]
    pub command: Option<Action>,
    /// The player that answers `go` in a protocol session: solver, random,
    /// greedy, minimax, alphabeta, expectimax, mcts or qlearning, with
    /// parameters as NAME:key=value,... (for example
    /// alphabeta:depth=6,eval=windows or qlearning:model=q.json).
    #[arg(long, default_value = "solver")]
    pub agent: String,
}

/// The subcommands.
#[derive(Subcommand)]
pub enum Action {
    /// Solve positions exactly: one move string per argument or stdin line.
    #[command(
        after_help = "Example: connect4 solve 4453 7422341   (prints '4453 -2' and '7422341 13')"
    )]
    Solve(solve::Args),
    /// Solve labelled positions, check every score, and report the speed.
    #[command(after_help = "Example: connect4 bench ../shared/bench/Test_L2_R2 --limit 100")]
    Bench(bench::Args),
    /// Count the distinct positions reachable after exactly N plies.
    #[command(after_help = "Example: connect4 perft 9   (558186 positions)")]
    Perft(perft::Args),
    /// Train a learning agent.
    #[command(
        subcommand,
        after_help = "Example: connect4 train qlearning --episodes 12000 --out q.json, then \
                      connect4 play --agent qlearning:model=q.json"
    )]
    Train(train::What),
    /// Tune an evaluator's weights by self-play.
    #[command(
        after_help = "Example: connect4 tune --eval local --iterations 6 --pairs 100 --out w.json, \
                            then connect4 --agent alphabeta:eval=local,weights=w.json"
    )]
    Tune(tune::Args),
    /// Play a game in the terminal against any agent.
    #[command(after_help = "Example: connect4 play --agent mcts:simulations=5000 --human second")]
    Play(play::Args),
    /// Build, merge, verify and describe opening books.
    #[command(
        subcommand,
        after_help = "Example: connect4 book build --out book.c4book --depth 10 --time 3600"
    )]
    Book(book::What),
}

/// Runs a subcommand.
pub fn run(command: Action) -> Result<ExitCode> {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let result = match command {
        Action::Solve(args) => solve::run(&args, &mut out),
        Action::Bench(args) => bench::run(&args, &mut out),
        Action::Perft(args) => perft::run(&args, &mut out),
        Action::Train(what) => train::run(&what, &mut out),
        Action::Tune(args) => tune::run(&args, &mut out),
        Action::Book(what) => book::run(&what, &mut out),
        Action::Play(args) => {
            drop(out);
            play::run(&args)
        }
    };
    match result {
        Err(e) if is_broken_pipe(&e) => Ok(ExitCode::SUCCESS),
        other => other,
    }
}

/// Whether an error comes from writing to a closed pipe: the reader went
/// away, so the quiet thing is to stop.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// Writes one line and flushes it, so that pipes see each answer at once.
pub fn line(out: &mut (impl Write + ?Sized), text: &str) -> io::Result<()> {
    writeln!(out, "{text}")?;
    out.flush()
}
