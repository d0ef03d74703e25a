//! The `connect4` binary: with no arguments, a protocol session on stdin and
//! stdout; with a subcommand, a tool for people (see [`cli`]).

use std::io::{self, IsTerminal};
use std::process::ExitCode;

use clap::Parser;
use connect4::protocol::{SessionError, SessionOptions, run_session};

mod cli;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    let result = match args.command {
        Some(command) => cli::run(command),
        None => session(args.agent),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("connect4: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// A protocol session on stdin and stdout.
fn session(agent: String) -> anyhow::Result<ExitCode> {
    if io::stdin().is_terminal() {
        eprintln!(r#"connect4: reading JSON commands, one per line; try {{"cmd":"hello"}}"#);
    }
    let options = SessionOptions {
        agent,
        // The reader of our output went away: nobody is left to answer.
        on_output_closed: Box::new(|| std::process::exit(0)),
        ..SessionOptions::default()
    };
    run_session(io::BufReader::new(io::stdin()), io::stdout(), options).map_err(|e| match e {
        SessionError::Agent(e) => anyhow::anyhow!("--agent: {e}"),
        other => other.into(),
    })?;
    Ok(ExitCode::SUCCESS)
}
