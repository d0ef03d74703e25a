//! The `connect4` binary: with no arguments, a protocol session on stdin and
//! stdout; with a subcommand, a tool for people (see [`cli`]).

use std::process::ExitCode;

use clap::Parser;

mod cli;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    let result = match args.command {
        Some(command) => cli::run(command),
        None => Err(anyhow::anyhow!(
            "the protocol session is not built yet; see --help"
        )),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("connect4: {e:#}");
            ExitCode::FAILURE
        }
    }
}
