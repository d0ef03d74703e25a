//! One grading: the `grade` command's arguments, the grading of one
//! submission or engine (its sandboxes, its tests, its results), and the
//! containment of the student's code that every grading shares with the
//! league.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::config::{Config, SubmissionKind, Test, TestKind, Visibility};
use crate::games::Grader;
use crate::memory_watch::MemoryWatch;
use crate::report::{GradescopeResults, LeaderboardValue, TestOutcome, TestResult, markdown};
use crate::{contain, game_log, memory_watch, mistakes, report, submission, tactics, terms};
use connect4_match::sandbox::{Account, Reserve, Sandbox};
use connect4_match::spec::EngineSpec;

/// Arguments of `grade`.
#[derive(clap::Args)]
pub struct Args {
    /// The engine to grade, as an engine spec (local runs).
    #[arg(
        long,
        required_unless_present_any = ["submission", "submissions", "feedback"],
        conflicts_with_all = ["submission", "submissions", "feedback"]
    )]
    pub engine: Option<EngineSpec>,
    /// A submission folder, graded as the config's kind says (the engine's
    /// program, a policy's file or a Kaggle agent's file in it).
    #[arg(long, conflicts_with_all = ["submissions", "feedback"], env = "CONNECT4_GRADE_SUBMISSION", hide_env = true)]
    pub submission: Option<PathBuf>,
    /// A folder of submission folders, one per student: grades each (as
    /// --submission does) into --out, with a CSV of the class's scores and
    /// a page of their feedback (see docs/grading.md).
    #[arg(
        long,
        conflicts_with = "feedback",
        env = "CONNECT4_GRADE_SUBMISSIONS",
        hide_env = true
    )]
    pub submissions: Option<PathBuf>,
    /// With --submissions: where each student's results, games and log go,
    /// with grades.csv and index.html.
    #[arg(
        long,
        default_value = "grades",
        requires = "submissions",
        env = "CONNECT4_GRADE_OUT",
        hide_env = true
    )]
    pub out: PathBuf,
    /// With --submissions: gradings at once (default: one under --isolate,
    /// else the cores over each grading's --concurrency).
    #[arg(long, requires = "submissions", value_parser = connect4_match::run::at_least_one)]
    pub jobs: Option<usize>,
    /// With --submissions: grade again the submissions --out has results
    /// of (otherwise they are kept, and an interrupted class goes on).
    #[arg(long, requires = "submissions")]
    pub regrade: bool,
    /// With --submissions: grade every N-th submission from the I-th
    /// (`I/N`), one task of a job array sharing --out.
    #[arg(long, requires = "submissions")]
    pub shard: Option<connect4_match::schedule::Shard>,
    /// With --submissions: check the folders and the config, list the
    /// submissions and grade nothing (what a job array is checked with
    /// before it is submitted).
    #[arg(long, requires = "submissions")]
    pub check: bool,
    /// With --submissions: the most one student's grading may take, in
    /// seconds; a grading that takes longer is stopped, and its row says
    /// so (the others go on).
    #[arg(long, default_value_t = 1200, requires = "submissions", value_parser = clap::value_parser!(u64).range(1..))]
    pub grading_limit: u64,
    /// With --submissions: grade without isolation, the students' code
    /// running as this program's user, able to read and rewrite every
    /// other row (every row and the class page say so). Without it a
    /// class is graded only under --isolate, as root.
    #[arg(long, requires = "submissions", conflicts_with = "isolate")]
    pub no_isolation: bool,
    /// Print a results.json's feedback (each test's score and what it
    /// says) and grade nothing.
    #[arg(long)]
    pub feedback: Option<PathBuf>,
    /// The grading config (TOML; see docs/grading.md). Without one, the
    /// standard tests.
    #[arg(long, env = "CONNECT4_GRADE_CONFIG", hide_env = true)]
    pub config: Option<PathBuf>,
    /// Without a config: the kind of submission (engine, policy, kaggle).
    #[arg(long, conflicts_with = "config")]
    pub kind: Option<SubmissionKind>,
    /// Where to write Gradescope's results.
    #[arg(
        long,
        default_value = "results.json",
        env = "CONNECT4_GRADE_RESULTS",
        hide_env = true
    )]
    pub results: PathBuf,
    /// Where to write every game the tests counted, as a game log that
    /// `serve --log` replays (replaced by each grading; never a match's,
    /// tournament's or experiment's log).
    #[arg(long, env = "CONNECT4_GRADE_LOG", hide_env = true)]
    pub log: Option<PathBuf>,
    /// Games of each `wins` test (overrides the config).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub games: Option<u32>,
    /// Share of wins needed in each `wins` test (overrides the config).
    #[arg(long)]
    pub pass_rate: Option<f64>,
    /// Games of each `openings` test (overrides the config).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub match_games: Option<u32>,
    /// Positions of each kind in `tactics` tests (overrides the config).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub tactics: Option<u32>,
    /// Seed of the openings, the positions and the opponents (overrides
    /// the config).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Games played at once (default: the config's, or the number of
    /// cores).
    #[arg(long, value_parser = connect4_match::run::at_least_one)]
    pub concurrency: Option<usize>,
    /// Time an engine may take beyond its movetime or clock (ms; overrides
    /// the config).
    #[arg(long)]
    pub time_margin: Option<u64>,
    /// Run the student's code as --student-user and the references as
    /// --reference-user, with the config's limits (needs root; without
    /// root the grading goes on and says isolation is off).
    #[arg(long)]
    pub isolate: bool,
    /// The user student code runs as under --isolate.
    #[arg(long, default_value = "c4student")]
    pub student_user: String,
    /// The user reference engines run as under --isolate.
    #[arg(long, default_value = "c4ref")]
    pub reference_user: String,
    /// The folder the submission is copied to and run in (default: a
    /// temporary folder).
    #[arg(long)]
    pub work: Option<PathBuf>,
    /// The Python that runs policies and Kaggle agents (with the bridge
    /// `c4bridge` installed).
    #[arg(long, default_value = "python3")]
    pub python: String,
}

/// Runs one grading and writes the results. If grading fails part way,
/// the results file still holds valid JSON: no points, and what went
/// wrong, so that Gradescope shows the student a message and not a missing
/// file.
pub fn run(args: &Args) -> Result<ExitCode> {
    let started = Instant::now();
    // Checked before anything is written: the results must not replace
    // the config or the student's own files.
    grade_files(args).check()?;
    if let Some(log) = &args.log {
        game_log::check(log)?;
    }
    let results_dir = args
        .results
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    std::fs::create_dir_all(&results_dir)
        .with_context(|| format!("creating {}", results_dir.display()))?;
    let isolation = Isolation::new(args, &results_dir);
    let reserve = match &isolation {
        Ok(Isolation::On { .. }) => Reserve::hold(&results_dir)
            .map_err(|e| eprintln!("grade: {e} (going on without the reserve)"))
            .ok(),
        _ => None,
    };
    let outcome = isolation
        .as_ref()
        .map_err(|e| anyhow::anyhow!("{e:#}"))
        .and_then(|i| grade(args, i));
    // Nothing of the student's may outlive the grading, nor write once the
    // results are out.
    if let Ok(Isolation::On { student, .. }) = &isolation {
        let killed = connect4_match::sandbox::kill_user(student.uid);
        if killed > 0 {
            eprintln!(
                "grade: killed {killed} process(es) of user {} left running",
                student.name
            );
        }
        let cleared = crate::shared_memory::clear(student.uid);
        if cleared != crate::shared_memory::Cleared::default() {
            eprintln!(
                "grade: removed {} /dev/shm file(s) and {} shared memory segment(s) of user {}",
                cleared.files, cleared.segments, student.name
            );
        }
    }
    if let Some(r) = reserve {
        r.release();
    }
    match outcome {
        Ok(mut results) => {
            results.execution_time = Some((started.elapsed().as_secs_f64() * 10.0).round() / 10.0);
            print_summary(&results);
            report::write(&results, &args.results)?;
            println!("wrote {}", args.results.display());
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            let failed = report::failed(&format!(
                "The grader could not finish: {e:#}. Please tell your instructor."
            ));
            report::write(&failed, &args.results)?;
            Err(e)
        }
    }
}

/// The files a grading reads (the config, the engine's files, the
/// submission) and writes (the results, the games).
fn grade_files(args: &Args) -> connect4_match::outputs::Files {
    let files = connect4_match::outputs::Files::new()
        .input("--config", args.config.as_deref())
        .input_folder("--submission", args.submission.as_deref())
        .output("--results", Some(&args.results))
        .output("--log", args.log.as_deref());
    match &args.engine {
        Some(spec) => files.engine(spec),
        None => files,
    }
}

/// Who runs what.
enum Isolation {
    /// The student's code and the references run as other users.
    On {
        /// The student's user.
        student: Account,
        /// The references' user.
        reference: Account,
        /// This grading's hold on the student's user.
        _lock: connect4_match::sandbox::UserLock,
    },
    /// Everything runs as the grader's user; the reason, if isolation was
    /// asked for.
    Off(Option<String>),
}

impl Isolation {
    fn new(args: &Args, results_dir: &Path) -> Result<Isolation> {
        if !args.isolate {
            return Ok(Isolation::Off(None));
        }
        if let Err(why) = connect4_match::sandbox::isolation_available() {
            eprintln!("grade: {why}");
            return Ok(Isolation::Off(Some(why.to_string())));
        }
        let student = Account::lookup(&args.student_user)?;
        let reference = Account::lookup(&args.reference_user)?;
        if student.uid == 0 || reference.uid == 0 || student.uid == reference.uid {
            anyhow::bail!(
                "--student-user {} and --reference-user {} must be two users other than root",
                student.name,
                reference.name
            );
        }
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(results_dir)
            .with_context(|| format!("reading {}", results_dir.display()))?;
        if meta.uid() != 0 || meta.mode() & 0o022 != 0 {
            anyhow::bail!(
                "the results folder {} can be written by users other than root (owner {}, \
                 mode {:o}): student code could write its own results there",
                results_dir.display(),
                meta.uid(),
                meta.mode() & 0o7777
            );
        }
        // No other grading runs as this student user from here on.
        let lock = connect4_match::sandbox::UserLock::take(&student)?;
        // Left over from an earlier run, they could still act (and hold
        // memory the watch would count against this one).
        connect4_match::sandbox::kill_user(student.uid);
        crate::shared_memory::clear(student.uid);
        Ok(Isolation::On {
            student,
            reference,
            _lock: lock,
        })
    }

    fn student(&self) -> Option<&Account> {
        match self {
            Isolation::On { student, .. } => Some(student),
            Isolation::Off(_) => None,
        }
    }
}

/// A folder of the grader's own, removed when the grading ends.
struct TempFolder(PathBuf);

impl Drop for TempFolder {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.0).ok();
    }
}

/// The config the arguments ask for, with their overrides.
pub(crate) fn config(args: &Args) -> Result<Config> {
    let mut config = match &args.config {
        Some(path) => Config::load(path)?,
        None => Config::defaults(args.kind.unwrap_or_default()),
    };
    if let Some(rate) = args.pass_rate
        && !(0.0..=1.0).contains(&rate)
    {
        anyhow::bail!("--pass-rate {rate}: expected 0 to 1");
    }
    for t in &mut config.tests {
        match t.kind {
            TestKind::Wins => {
                t.games = args.games.unwrap_or(t.games);
                t.pass_rate = args.pass_rate.unwrap_or(t.pass_rate);
            }
            TestKind::Openings => t.games = args.match_games.unwrap_or(t.games),
            TestKind::Tactics => t.positions = args.tactics.unwrap_or(t.positions),
            TestKind::Compliance | TestKind::Discipline => {}
        }
    }
    if let Some(seed) = args.seed {
        config.reseed(seed);
    }
    config.margin_ms = args.time_margin.unwrap_or(config.margin_ms);
    Ok(config)
}

/// A fresh sandbox folder of `account`'s under `work`.
fn sandbox_dir(work: &Path, name: &str, account: Option<&Account>) -> Result<PathBuf> {
    let dir = work.join(name);
    connect4_match::sandbox::fresh_folder(&dir, account)?;
    Ok(dir)
}

/// Grades: the results, not yet written.
fn grade(args: &Args, isolation: &Isolation) -> Result<GradescopeResults> {
    let config = config(args)?;
    let work = match &args.work {
        Some(w) => {
            std::fs::create_dir_all(w).with_context(|| format!("creating {}", w.display()))?;
            w.clone()
        }
        None => connect4_match::sandbox::private_folder(&std::env::temp_dir(), "connect4-grade")?,
    };
    let _cleanup = args.work.is_none().then(|| TempFolder(work.clone()));
    if let Isolation::On { .. } = isolation {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&work, std::fs::Permissions::from_mode(0o755))
            .with_context(|| format!("opening {} to the sandbox users", work.display()))?;
    }
    // The student's code runs in its own copy of the submission (or an
    // empty folder of its own for --engine).
    let mut copied = Ok(Ok(()));
    let student_dir = match &args.submission {
        Some(s) => {
            let dir = work.join("submission");
            copied = copy_submission(s, &dir, isolation.student());
            dir
        }
        None => sandbox_dir(&work, "student", isolation.student())?,
    };
    let copied = copied?;
    let (student_sandbox, reference_sandbox) = sandboxes(&config, isolation, &work, &student_dir)?;
    // From the build on, the student's processes together stay under the
    // total memory limit.
    let memory_watch = isolation
        .student()
        .map(|student| MemoryWatch::start(student.uid, total_memory_bytes(&config)));
    let prepared = copied.and_then(|()| prepare(args, &config, &student_dir, student_sandbox));
    let mut notes = Vec::new();
    if let Isolation::Off(Some(why)) = isolation {
        notes.push(why.clone());
    }
    let outcomes = match prepared {
        Ok(student) => run_tests(&config, args, student, reference_sandbox)?,
        Err(refusal) => {
            notes.push(refusal.0.clone());
            config
                .tests
                .iter()
                .map(|t| TestOutcome::not_run(t, &format!("not run: {}", refusal.0)))
                .collect()
        }
    };
    if let Some(report) = memory_watch.map(MemoryWatch::finish) {
        eprintln!(
            "grade: the student's processes held at most {} MiB in all (limit {} MiB, {} kill(s))",
            report.peak_bytes >> 20,
            report.limit_bytes >> 20,
            report.kills
        );
        notes.extend(report.message());
    }
    Ok(results(&config, outcomes, &notes))
}

/// Copies the submission `from` into `to` for `account`: a submission
/// that cannot be copied as it is (a link, a FIFO, too large) is refused,
/// with why, in the inner `Err`; the outer one is the grader's trouble.
fn copy_submission(
    from: &Path,
    to: &Path,
    account: Option<&Account>,
) -> Result<Result<(), submission::Refusal>> {
    use connect4_match::sandbox::SandboxError;
    match connect4_match::sandbox::copy_for(from, to, account) {
        Ok(()) => Ok(Ok(())),
        Err(e @ (SandboxError::NotCopied { .. } | SandboxError::TooBig { .. })) => {
            let relative = e.to_string().replace(&format!("{}/", from.display()), "");
            Ok(Err(submission::Refusal(format!(
                "your submission cannot be graded: {relative}"
            ))))
        }
        Err(e) => Err(e.into()),
    }
}

/// The config's limits of one of the student's processes.
pub fn limits(config: &Config) -> connect4_match::group::ResourceLimits {
    connect4_match::group::ResourceLimits {
        memory_bytes: config.limits.memory_mb << 20,
        processes: config.limits.processes,
        file_bytes: config.limits.file_mb << 20,
    }
}

/// The containment of students' code with `config`'s limits and the uids
/// from `base` (see [`contain`]).
pub fn containment(
    config: &Config,
    base: u32,
) -> Result<contain::Containment, contain::ContainError> {
    contain::Containment::new(limits(config), total_memory_bytes(config), base)
}

/// The config's bound on the memory of all of a student's processes
/// together, in bytes (half of the machine's when it gives none).
fn total_memory_bytes(config: &Config) -> u64 {
    let total_mb = config
        .limits
        .total_memory_mb
        .unwrap_or_else(memory_watch::half_the_machine_mb);
    total_mb << 20
}

/// Where the student's code and the references run under isolation (as
/// their users, the student's under the config's limits); none without it.
fn sandboxes(
    config: &Config,
    isolation: &Isolation,
    work: &Path,
    student_dir: &Path,
) -> Result<(Option<Sandbox>, Option<Sandbox>)> {
    let Isolation::On {
        student, reference, ..
    } = isolation
    else {
        return Ok((None, None));
    };
    let limits = limits(config);
    let env = contain::bridge_env();
    Ok((
        Some(Sandbox {
            account: student.clone(),
            limits: Some(limits),
            dir: student_dir.to_path_buf(),
            home: None,
            env: env.clone(),
        }),
        Some(Sandbox {
            account: reference.clone(),
            limits: None,
            dir: sandbox_dir(work, "reference", Some(reference))?,
            home: None,
            env,
        }),
    ))
}

/// The student's engine, ready to play: `--engine` as given, or the
/// submission built and found; either checked to start (one that cannot is
/// told at once, with its stderr, and no game is played).
fn prepare(
    args: &Args,
    config: &Config,
    student_dir: &Path,
    sandbox: Option<Sandbox>,
) -> Result<EngineSpec, submission::Refusal> {
    let terms = terms::Terms::of(config.submission.kind);
    match &args.engine {
        Some(engine) => {
            let mut engine = engine.clone();
            if engine.name == "random" || engine.name.starts_with("random:") {
                engine.name = format!("{} (graded)", engine.name);
            }
            engine.sandbox = sandbox;
            submission::starts(&engine, terms).map(|()| engine)
        }
        None => submission::build(config, student_dir, sandbox.as_ref())
            .and_then(|()| submission::spec(config, student_dir, &args.python, sandbox))
            .map(|mut spec| {
                spec.name = player_name(args.submission.as_deref(), config);
                spec
            })
            .and_then(|spec| submission::starts(&spec, terms).map(|()| spec)),
    }
}

/// The name a submission plays under in the games and the grading log:
/// its folder's (a class's folders are named after the students), or
/// `submission` for a folder without a name; with ` (graded)` added when
/// that is the name of one of the config's opponents.
fn player_name(folder: Option<&Path>, config: &Config) -> String {
    let name = folder
        .and_then(|f| f.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "submission".to_string());
    let taken = config
        .tests
        .iter()
        .filter_map(|t| t.opponent.as_ref())
        .any(|o| o.label() == name);
    match taken {
        true => format!("{name} (graded)"),
        false => name,
    }
}

/// Runs every test of `config` on `student`; with `--log`, writes their
/// games.
fn run_tests(
    config: &Config,
    args: &Args,
    student: EngineSpec,
    reference_sandbox: Option<Sandbox>,
) -> Result<Vec<TestOutcome>> {
    if let Some(path) = &args.log {
        game_log::check(path)?;
    }
    let margin = Duration::from_millis(config.margin_ms);
    let mut grader = Grader {
        config,
        student,
        reference_sandbox,
        python: args.python.clone(),
        margin,
        concurrency: args
            .concurrency
            .or(config.grading.concurrency)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        played: Vec::new(),
        gave_up: None,
        judge: mistakes::judge(),
        terms: terms::Terms::of(config.submission.kind),
    };
    grader.check_opponents()?;
    let mut outcomes: Vec<Option<TestOutcome>> = Vec::new();
    let mut tactic_forfeits = Vec::new();
    for test in &config.tests {
        let outcome = match test.kind {
            TestKind::Wins => Some(grader.wins(test)),
            TestKind::Openings => Some(grader.openings(test)?),
            TestKind::Tactics => Some(tactics_test(&grader, test, margin, &mut tactic_forfeits)),
            TestKind::Compliance => Some(grader.compliance(test)),
            // Last, when every game is known.
            TestKind::Discipline => None,
        };
        outcomes.push(outcome);
    }
    let outcomes = config
        .tests
        .iter()
        .zip(outcomes)
        .map(|(test, o)| o.unwrap_or_else(|| grader.discipline(test, &tactic_forfeits)))
        .collect();
    if let Some(path) = &args.log {
        let lines = game_log::lines(&grader.played, &grader.student.name);
        // The grade stands without its games' log.
        match game_log::write(path, &lines) {
            Ok(()) => eprintln!("grade: wrote {} game(s) to {}", lines.len(), path.display()),
            Err(e) => eprintln!("grade: {e:#}"),
        }
    }
    Ok(outcomes)
}

/// A `tactics` test: the student's move in each solved position, unless
/// an earlier test showed that no move would come in time; the forfeits go
/// in `tactic_forfeits`, with the test's visibility.
fn tactics_test(
    grader: &Grader,
    test: &Test,
    margin: Duration,
    tactic_forfeits: &mut Vec<(Visibility, String)>,
) -> TestOutcome {
    if let Some(why) = grader.skipped(test) {
        eprintln!("grade: {}: not played ({why})", test.name);
        let output = format!("the positions were not played and count as missed: {why}");
        return TestOutcome::new(test, 0.0, output);
    }
    eprintln!("grade: {}", test.name);
    let t = tactics::play(
        &grader.student,
        margin,
        &test.tactics,
        test.positions,
        grader.config.test_seed(test),
        grader.terms,
    );
    tactic_forfeits.extend(t.forfeits.iter().map(|f| (test.visibility, f.clone())));
    TestOutcome::new(test, t.fraction(), t.output(&test.tactics))
}

/// The results file's content from the tests' outcomes; `notes` go at the
/// top of the output.
fn results(config: &Config, outcomes: Vec<TestOutcome>, notes: &[String]) -> GradescopeResults {
    let score: f64 = outcomes.iter().map(|o| o.result.score).sum::<f64>() + 0.0;
    let score = (score * 100.0).round() / 100.0;
    let max: f64 = outcomes.iter().map(|o| o.result.max_score).sum();
    let leaderboard = config
        .leaderboard
        .iter()
        .filter_map(|entry| {
            report::leaderboard_value(entry.value, entry.test.as_deref(), &outcomes, score).map(
                |value| LeaderboardValue {
                    name: entry.name.clone(),
                    value,
                    order: entry.order,
                },
            )
        })
        .collect();
    let mut summary = format!("Graded: {score:.2} of {max} points");
    for n in notes {
        summary.push('\n');
        summary.push_str(n);
    }
    GradescopeResults {
        score,
        output: markdown(&summary),
        output_format: Some("md".into()),
        test_output_format: Some("md".into()),
        execution_time: None,
        stdout_visibility: Some(config.grading.stdout_visibility),
        tests: outcomes
            .into_iter()
            .map(|o| TestResult {
                output: markdown(&o.result.output),
                ..o.result
            })
            .collect(),
        leaderboard,
    }
}

/// Prints each test's first line and the total.
fn print_summary(results: &GradescopeResults) {
    for t in &results.tests {
        println!(
            "{:>6.2} / {:<3} {}: {}",
            t.score,
            t.max_score,
            t.name,
            t.output.lines().next().unwrap_or("")
        );
    }
    let max: f64 = results.tests.iter().map(|t| t.max_score).sum();
    println!("total {:.2} / {max}", results.score);
}
