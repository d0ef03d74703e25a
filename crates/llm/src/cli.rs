//! The `llm` command: `llm play`, `llm report` and `llm stand-in`, on the
//! crate's modules.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use connect4::Rules;

use crate::chat::{Client, Settings};
use crate::prompt::{Format, Style};
use crate::{judge, run, stand_in};

/// Arguments of `llm`.
#[derive(clap::Args)]
pub struct Args {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The `llm` subcommands.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Play a chat model against the project's players and judge its
    /// moves; running again with the same --log goes on where it stopped.
    #[command(after_help = "Examples:\n  \
        connect4-arena llm play --base-url http://127.0.0.1:11434/v1 --model llama3.2 --games 4\n  \
        connect4-arena llm play --stand-in --model second-try --against random --games 2\n\n\
        docs/llm.md has the prompts, the answers' form and the rest.")]
    Play(Box<PlayArgs>),
    /// Print the summary of a model's log again (`--json` for the data).
    Report(ReportArgs),
    /// Serve a scripted stand-in of a model's chat-completions API on
    /// loopback, for trying `llm play` without a model.
    StandIn(stand_in::Args),
}

/// Arguments of `llm play`.
#[derive(clap::Args)]
pub struct PlayArgs {
    /// The API's base URL, ending before /chat/completions
    /// (`https://api.openai.com/v1`, `http://127.0.0.1:8000/v1` for vLLM,
    /// `http://127.0.0.1:11434/v1` for Ollama).
    #[arg(
        long,
        required_unless_present = "stand_in",
        conflicts_with = "stand_in"
    )]
    pub base_url: Option<String>,
    /// Play the scripted stand-in server (`llm stand-in`, run inside this
    /// command) in place of a model's: `--model` names its script.
    #[arg(long)]
    pub stand_in: bool,
    /// The model, as the server names it.
    #[arg(long)]
    pub model: String,
    /// The environment variable holding the API key (unset or empty: no
    /// key is sent). The key is never written or printed.
    #[arg(long, default_value = "OPENAI_API_KEY", value_name = "NAME")]
    pub api_key_env: String,
    /// The opponents, as agent specs, comma-separated.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "random,greedy,alphabeta:depth=4,solver"
    )]
    pub against: Vec<String>,
    /// Games against each opponent, the model first in one and second in
    /// the next: with the opponents, the cap on the run's games.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub games: u32,
    /// The JSON-lines log: one line per game, with every prompt and
    /// answer and the solver's verdicts.
    #[arg(long, default_value = "llm-games.jsonl")]
    pub log: PathBuf,
    /// Games (so requests) at once.
    #[arg(long, default_value_t = 2, value_parser = connect4_match::run::at_least_one)]
    pub concurrency: usize,
    /// How the position is shown: a text grid and the moves, or the moves
    /// alone.
    #[arg(long, value_enum, default_value_t = Format::Board)]
    pub prompt: Format,
    /// Leave the legal moves out of the prompt.
    #[arg(long)]
    pub no_legal_moves: bool,
    /// The first column's number in prompts and answers (0 as TextArena
    /// and Kaggle's ConnectX, or 1).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=1))]
    pub columns_from: u32,
    /// Answers asked for again after one that is no legal move, before the
    /// model forfeits the game.
    #[arg(long, default_value_t = 2)]
    pub retries: u32,
    /// Tries of a request again after a failure that may pass (a lost
    /// connection, a timeout, 429, 5xx, a body that is not the API's).
    #[arg(long, default_value_t = 5)]
    pub http_retries: u32,
    /// The wait before the first such retry, in milliseconds; each retry
    /// doubles it, up to a minute (a server's Retry-After comes first).
    #[arg(long, default_value_t = 1000)]
    pub backoff_ms: u64,
    /// The longest one request may take, in seconds.
    #[arg(long, default_value_t = 120.0, value_parser = connect4_match::run::positive_seconds)]
    pub timeout: f64,
    /// The most tokens one answer may have (the API's max_tokens).
    #[arg(long, default_value_t = 1024)]
    pub max_tokens: u32,
    /// Stop starting games once the log's games have spent this many
    /// tokens (prompts and answers, as the server counts them).
    #[arg(long)]
    pub max_total_tokens: Option<u64>,
    /// Sampling temperature.
    #[arg(long, default_value_t = 0.0)]
    pub temperature: f64,
    /// The opponents' time per move, in milliseconds.
    #[arg(long, default_value_t = 1000)]
    pub opponent_movetime_ms: u64,
    /// The seed each game's seed comes from (the opponents' choices).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The board, COLUMNSxROWSxINAROW.
    #[arg(long, default_value = "7x6x4")]
    pub rules: Rules,
}

/// Arguments of `llm report`.
#[derive(clap::Args)]
pub struct ReportArgs {
    /// The model's log.
    pub log: PathBuf,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs an `llm` subcommand.
pub fn command(args: &Args) -> Result<ExitCode> {
    match &args.command {
        Command::Play(play) => play_command(play),
        Command::Report(report) => report_command(report),
        Command::StandIn(stand) => stand_in::run(stand).map(|()| ExitCode::SUCCESS),
    }
}

/// `llm play`.
fn play_command(args: &PlayArgs) -> Result<ExitCode> {
    for spec in &args.against {
        connect4::agents::from_spec(spec).with_context(|| format!("--against {spec}"))?;
    }
    if !args.temperature.is_finite() || !(0.0..=2.0).contains(&args.temperature) {
        bail!("--temperature {}: expected 0 to 2", args.temperature);
    }
    let key = std::env::var(&args.api_key_env)
        .ok()
        .filter(|k| !k.is_empty());
    let base_url = match &args.base_url {
        Some(url) => url.clone(),
        None => stand_in::start_in_background(3000)?,
    };
    let client = Client::new(Settings {
        base_url,
        model: args.model.clone(),
        key,
        timeout: Duration::from_secs_f64(args.timeout),
        retries: args.http_retries,
        backoff: Duration::from_millis(args.backoff_ms),
        max_tokens: args.max_tokens,
        temperature: args.temperature,
    })?;
    let style = Style {
        format: args.prompt,
        legal_moves: !args.no_legal_moves,
        first_column: args.columns_from,
    };
    let terms = run::Terms {
        model: &args.model,
        against: &args.against,
        games: args.games,
        style,
        retries: args.retries,
        seed: args.seed,
        rules: args.rules,
        opponent_movetime_ms: args.opponent_movetime_ms,
        temperature: Some(args.temperature),
    };
    let plan = run::Plan::new(
        &terms,
        &client,
        args.concurrency,
        args.max_total_tokens,
        None,
    );
    let ended = run::play(&plan, &args.log)?;
    print!("{}", judge::markdown(&judge::summary(&ended.lines)));
    if ended.left > 0 {
        eprintln!(
            "connect4-arena: {} of {} games left unplayed: {}; the log {} keeps every finished \
             game, and the same command goes on from it",
            ended.left,
            plan.jobs.len(),
            ended.why_left.as_deref().unwrap_or("stopped"),
            args.log.display()
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// `llm report`.
fn report_command(args: &ReportArgs) -> Result<ExitCode> {
    let summary = judge::report_of(&args.log)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print!("{}", judge::markdown(&summary));
    }
    Ok(ExitCode::SUCCESS)
}
