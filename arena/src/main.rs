//! `connect4-arena`: matches, tournaments and grading between engine
//! processes that speak the connect4 protocol.
//!
//! With no arguments it plays a short demonstration match between two
//! engines built from this repository: the arena binary serves the engine
//! protocol itself (`connect4-arena engine`) and spawns copies of itself.
//!
//! The binary wires the arena's crates (arena/tests/arena/layers.rs checks the
//! map: a crate depends only on those below it, and only the web links
//! the web server):
//!
//! ```text
//! connect4-arena        the command line; hands the web's page to a run's and a league's --serve
//!   |              |                 |                    |             |
//!   |        connect4-league         |                    |             |
//!   |        (the class league:      |                    |             |
//!   |         SQLite, ratings)       |                    |             |
//!   |              |                 |                    |             |
//! connect4-grade     connect4-web          connect4-experiments   connect4-llm
//! (grade, autograder, (serve, report:       (the course reports'   (language models:
//!  kit, compliance,    axum and tokio)       experiments)           their chat API,
//!  the memory watch)                                                judged games)
//!   |         |                 |                                     |
//! connect4-match        engine processes, games, runs, logs, results
//!   |
//! connect4              the engine: rules, book, search, agents, protocol, lab
//! ```

mod league_page;

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::{Parser, Subcommand};

use connect4::lab::stats::Sprt;
use connect4_experiments as experiment;
use connect4_grade::{self as grade, compliance};
use connect4_match::merge::{self, MergeOptions};
use connect4_match::run::{RunArgs, run_games};
use connect4_match::schedule::Mode;
use connect4_match::spec::EngineSpec;

/// Matches, tournaments and grading between Connect-4 engine processes that
/// speak the connect4 protocol. With no subcommand, a short demonstration
/// match between two engines built from this repository.
#[derive(Parser)]
#[command(name = "connect4-arena", version, after_help = MAIN_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Option<Action>,
}

/// Under the top-level help: what no arguments does, then the engines.
const MAIN_HELP: &str = concat!(
    "With no arguments: a 20-game demonstration match (10 colour-swapped pairs from\n",
    "random 2-ply openings) between this repository's engine at 50 ms a move\n",
    "(name=solver,cmd=self,movetime=50) and the course's alphabeta:depth=4 agent\n",
    "(name=alphabeta-4,cmd=self,movetime=1000,option.agent=alphabeta:depth=4), both\n",
    "as engine processes, as many games at once as there are cores.\n\n",
    "Example: connect4-arena match --engine name=a,cmd=self --engine \"name=b,cmd=self,option.agent='mcts'\"\n\n",
    "Engines: --engine 'name=NAME,cmd=PROGRAM,arg=ARG,...,LIMIT,option.NAME=VALUE'; see\n",
    "connect4-arena match --help."
);

#[derive(Subcommand)]
enum Action {
    /// Play a match between two engines: game pairs from the same opening
    /// with colours swapped.
    #[command(after_help = concat!(
        "Example: connect4-arena match --engine 'name=new,cmd=target/release/connect4,movetime=100' \\\n",
        "  --engine \"name=ab4,cmd=self,option.agent='alphabeta:depth=4'\" --games 200 --log games.jsonl\n\n",
        "Engines: --engine 'name=NAME,cmd=PROGRAM,arg=ARG,...,LIMIT,option.NAME=VALUE'\n",
        "  LIMIT: movetime=MS | depth=N | nodes=N | tc=SECONDS+INCREMENT (default movetime=100);\n",
        "  margin=MS overrides --time-margin; option.agent='alphabeta:depth=4' sets an engine\n",
        "  option; quote values that hold commas; cmd=self runs this binary's built-in engine.\n",
        "Forfeits: illegal move, time, crash, stall (no reply, or no pong during a search),\n",
        "  protocol (unreadable, over 1 MiB, or out-of-turn reply); an engine that loses each of\n",
        "  its first 3 games by one of them stops the run (--keep-going plays on).\n",
        "Ctrl-C (or SIGTERM, as sent by Slurm's scancel) stops starting games and finishes the\n",
        "  running ones (twice: abandons them); the log keeps every finished game and running\n",
        "  again with the same --log resumes."
    ))]
    Match(MatchArgs),
    /// A round robin or gauntlet between three or more engines, with a
    /// crosstable and a rating list.
    #[command(
        after_help = "Example: connect4-arena tournament --engine name=a,cmd=self \\\n  \
        --engine \"name=b,cmd=self,option.agent='mcts'\" --engine \"name=c,cmd=self,option.agent=greedy\" --games 10\n\n\
        Engines as in connect4-arena match --help."
    )]
    Tournament(TournamentArgs),
    /// Combine the logs of shards (or of any runs of the same schedule) and
    /// print their results.
    #[command(
        after_help = "Example: connect4-arena merge part1.jsonl part2.jsonl part3.jsonl --summary all.json"
    )]
    Merge(MergeArgs),
    /// Grade an engine, a course policy or a Kaggle agent as a course
    /// autograder does and write Gradescope's results.json.
    #[command(
        after_help = "Examples:\n  connect4-arena grade --engine 'cmd=./student-engine' --results results.json\n  \
        connect4-arena grade --config grader.toml --submission groups/Mine --python .venv/bin/python3\n\n\
        Engines as in connect4-arena match --help; the config in docs/grading.md."
    )]
    Grade(Box<grade::Args>),
    /// Write a Gradescope autograder (a zip to upload as it is): the
    /// scripts, this binary, the Python bridge, the config.
    #[command(
        after_help = "Examples:\n  connect4-arena autograder --kind engine --out autograder.zip\n  \
        connect4-arena autograder --config grader.toml --include course/ --out autograder.zip\n\n\
        docs/grading.md walks from the config to the upload."
    )]
    Autograder(grade::autograder::Args),
    /// Write the students' kit: one wheel with the engine, the arena and
    /// the Python bridges (pip installs it without Rust), and the grading
    /// config's visible tests.
    #[command(
        after_help = "Example: connect4-arena kit --config grader.toml --out kit\n\n\
                      Needs the Rust toolchain (one release build of the programs); \
                      students then need only Python: pip install kit/connect4_kit-*.whl"
    )]
    Kit(connect4_grade::kit::Args),
    /// Serve a local web page: play and analyse positions, replay logs'
    /// games with the solver's verdict on every move.
    #[command(
        after_help = "Example: connect4-arena serve --log games.jsonl --port 8080\n\n\
                      Then open the address it prints (http://127.0.0.1:PORT/)."
    )]
    Serve(connect4_web::Args),
    /// Write one self-contained HTML file of logs' results: tables, the Elo
    /// picture, and every game replayable with the solver's verdicts.
    #[command(
        after_help = "Example: connect4-arena report games.jsonl --html report.html

                      The file loads nothing from elsewhere: post it or mail it."
    )]
    Report(connect4_web::report::Args),
    /// Check an engine's protocol compliance and print each check.
    #[command(
        after_help = "Example: connect4-arena compliance --engine 'cmd=python3,arg=engine.py'\n\n\
        Engines as in connect4-arena match --help."
    )]
    Compliance(compliance::Args),
    /// Rerun one of the course reports' experiments and write its CSV,
    /// markdown table and SVG pictures.
    #[command(
        after_help = "Example: connect4-arena experiment vs-random --games 1000 --out experiments

        connect4-arena experiment --list names them; docs/experiments.md has the results."
    )]
    Experiment(ExperimentArgs),
    /// Run a class league all term: submissions dropped into a folder are
    /// checked, rated with an uncertainty against fixed anchors, and play
    /// the players rated nearest; a final round freezes the ranking.
    #[command(
        after_help = "Examples:\n  connect4-arena league --dir league --submissions dropbox --kind policy --python .venv/bin/python3\n  \
        connect4-arena league --dir league --status\n  connect4-arena league --dir league --final\n\n\
        docs/league.md has the rest."
    )]
    League(Box<connect4_league::Args>),
    /// Play a language model (any chat-completions server) against the
    /// project's players, the solver judging each of its moves.
    #[command(
        after_help = "Examples:\n  connect4-arena llm stand-in --listen 127.0.0.1:8199\n  \
        connect4-arena llm play --base-url http://127.0.0.1:8199/v1 --model perfect --games 4\n  \
        connect4-arena llm report llm-games.jsonl\n\n\
        docs/llm.md has the prompts, the answers' form and the rest."
    )]
    Llm(connect4_llm::Args),
    /// Serve the engine protocol on stdin/stdout (used to spawn copies of
    /// this binary as engines: cmd=self in a spec).
    #[command(hide = true)]
    Engine,
}

#[derive(clap::Args)]
struct MatchArgs {
    /// An engine (see below). Give it twice.
    #[arg(long = "engine", required = true)]
    engines: Vec<EngineSpec>,
    /// Stop early once an SPRT decides: elo0=0,elo1=10[,alpha=0.05,beta=0.05]
    /// (logistic Elo; pentanomial model).
    #[arg(long)]
    sprt: Option<Sprt>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(clap::Args)]
struct TournamentArgs {
    /// An engine (see below). Give it three or more times.
    #[arg(long = "engine", required = true)]
    engines: Vec<EngineSpec>,
    /// round-robin: everyone against everyone; gauntlet: the first engine
    /// against each of the others.
    #[arg(long, default_value = "round-robin", value_parser = ["round-robin", "gauntlet"])]
    mode: String,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(clap::Args)]
struct MergeArgs {
    /// The logs to combine.
    #[arg(required = true)]
    logs: Vec<PathBuf>,
    /// Apply an SPRT to the merged results: elo0=..,elo1=..[,alpha=..,beta=..].
    #[arg(long)]
    sprt: Option<Sprt>,
    /// Write the results as JSON.
    #[arg(long)]
    summary: Option<PathBuf>,
    /// Write the per-pairing results as CSV.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Draw the merged run as an SVG picture (Elo and SPRT over the games).
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
}

#[derive(clap::Args)]
struct ExperimentArgs {
    /// The experiment: its name or letter (see --list).
    #[arg(required_unless_present = "list")]
    name: Option<String>,
    /// List the experiments.
    #[arg(long)]
    list: bool,
    /// Games per match (positions for node-counts); default: the
    /// experiment's own.
    #[arg(long)]
    games: Option<u32>,
    /// The folder for its files and its matches' logs (running again
    /// resumes them).
    #[arg(long, default_value = "experiments")]
    out: PathBuf,
    /// Games played at once (default: the number of cores).
    #[arg(long, value_parser = connect4_match::run::at_least_one)]
    concurrency: Option<usize>,
    /// Seed of openings, games, training and samples.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The deepest depth of the experiments that go depth by depth
    /// (depth-tables, node-counts; default 7): for a quick look.
    #[arg(long)]
    max_depth: Option<u32>,
}

/// A language model's figures for the report of its log (none for other
/// logs).
fn model_figures(log: &std::path::Path) -> Result<Option<connect4_web::report::Extra>> {
    use connect4_llm::judge;
    Ok(
        judge::summary_of_log(log)?.map(|s| connect4_web::report::Extra {
            title: format!("The model {}, judged by the solver", s.model),
            lines: judge::lines(&s),
            table: judge::table(&s),
        }),
    )
}

fn experiment_command(args: &ExperimentArgs) -> Result<ExitCode> {
    if args.list {
        print!("{}", experiment::list());
        return Ok(ExitCode::SUCCESS);
    }
    let name = args
        .name
        .as_deref()
        .expect("clap requires a name without --list");
    let chosen = experiment::find(name)?;
    let started = std::time::Instant::now();
    let written = experiment::run(
        chosen,
        &experiment::Context {
            out: args.out.clone(),
            games: args.games,
            concurrency: args.concurrency,
            seed: args.seed,
            max_depth: args.max_depth,
        },
    )?;
    println!(
        "\nexperiment {} ({}) done in {:.0} s; wrote:",
        chosen.letter,
        chosen.name,
        started.elapsed().as_secs_f64()
    );
    for path in written {
        println!("  {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // What an engine leaves running when it leaves its group comes back to
    // this process (runs end it after each game), not to init.
    if !matches!(cli.command, Some(Action::Engine)) {
        connect4_match::group::adopt_orphans();
    }
    let result = match cli.command {
        Some(Action::Engine) => connect4::protocol::run_session(
            io::BufReader::new(io::stdin()),
            io::stdout(),
            connect4::protocol::SessionOptions {
                on_output_closed: Box::new(|| std::process::exit(0)),
                ..connect4::protocol::SessionOptions::default()
            },
        )
        .map(|()| ExitCode::SUCCESS)
        .map_err(Into::into),
        Some(Action::Match(args)) => match_command(&args),
        Some(Action::Tournament(args)) => tournament_command(&args),
        Some(Action::Merge(args)) => merge_command(&args),
        Some(Action::Grade(args)) => grade::run(&args),
        Some(Action::Autograder(args)) => grade::autograder::run(&args),
        Some(Action::Kit(args)) => connect4_grade::kit::run(&args),
        Some(Action::Serve(args)) => {
            let league = args.league.as_deref().map(league_page::shown);
            connect4_web::run(&args, league)
        }
        Some(Action::Report(args)) => connect4_web::report::run_with(&args, Some(&model_figures)),
        Some(Action::Compliance(args)) => compliance::run(&args),
        Some(Action::Experiment(args)) => experiment_command(&args),
        Some(Action::League(args)) => connect4_league::run(&args, Some(&league_page::follow)),
        Some(Action::Llm(args)) => connect4_llm::command(&args),
        None => match_command(&MatchArgs {
            engines: [
                "name=solver,cmd=self,movetime=50",
                "name=alphabeta-4,cmd=self,movetime=1000,option.agent=alphabeta:depth=4",
            ]
            .map(|s| s.parse().expect("the demonstration's specs are valid"))
            .into(),
            sprt: None,
            run: RunArgs::demo(),
        }),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("connect4-arena: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn match_command(args: &MatchArgs) -> Result<ExitCode> {
    if args.engines.len() != 2 {
        bail!(
            "a match needs exactly two --engine specs, found {} (use tournament for more)",
            args.engines.len()
        );
    }
    run_games(
        &args.engines,
        Mode::RoundRobin,
        &args.run,
        args.sprt,
        Some(&connect4_web::follow),
    )
}

fn tournament_command(args: &TournamentArgs) -> Result<ExitCode> {
    if args.engines.len() < 3 {
        bail!(
            "a tournament needs three or more --engine specs, found {} (use match for two)",
            args.engines.len()
        );
    }
    let mode = if args.mode == "gauntlet" {
        Mode::Gauntlet
    } else {
        Mode::RoundRobin
    };
    run_games(
        &args.engines,
        mode,
        &args.run,
        None,
        Some(&connect4_web::follow),
    )
}

fn merge_command(args: &MergeArgs) -> Result<ExitCode> {
    merge::run(&MergeOptions {
        logs: &args.logs,
        sprt: args.sprt,
        summary: args.summary.as_deref(),
        csv: args.csv.as_deref(),
        plot: args.plot.as_deref(),
    })
}
