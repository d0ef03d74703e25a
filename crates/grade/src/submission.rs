//! The student's submission made ready to grade, once copied into a folder
//! of the student's user (`sandbox::copy_for`): built when it is an engine
//! with a build command, and described as an engine spec (the program
//! itself, or the Python bridge around a policy or a Kaggle agent), run in
//! the student's sandbox.
//!
//! What goes wrong here is the student's to fix, not the grader's: it is
//! told as a [`Refusal`] that every test shows.

use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use super::config::{Config, SubmissionKind, bridge_spec, program_spec};
use super::terms::Terms;
use connect4_match::sandbox::Sandbox;
use connect4_match::spec::EngineSpec;
use connect4_match::stderr::Tail;

/// Why the submission cannot be graded, in the student's terms.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct Refusal(pub String);

/// How long the build's output is read after the build ended.
const OUTPUT_GRACE: Duration = Duration::from_secs(2);

/// Lines of build output shown to the student.
const BUILD_LINES: usize = 30;

/// The files at the top of `dir`, for a message.
fn listing(dir: &Path) -> String {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| super::report::one_line(&e.file_name().to_string_lossy()))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

/// Runs the config's build command in `dir` in `sandbox`; `Err` holds
/// what the student should read.
pub fn build(config: &Config, dir: &Path, sandbox: Option<&Sandbox>) -> Result<(), Refusal> {
    let Some((program, args)) = config.submission.build.split_first() else {
        return Ok(());
    };
    let line = config.submission.build.join(" ");
    eprintln!("grade: building the submission: {line}");
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    connect4_match::sandbox::apply_or_group(&mut command, sandbox);
    command.current_dir(dir);
    let mut child = command
        .spawn()
        .map_err(|e| Refusal(format!("the build command `{line}` does not start: {e}")))?;
    let output = OutputReaders::start(&mut child);
    let limit = Duration::from_secs(config.limits.build_seconds);
    let status = wait_within(&mut child, limit);
    connect4_match::group::kill_group(&child);
    // What the build left running (`setsid cmd &` leaves the group) would
    // hold the output pipes open, and could act on the files to grade.
    if let Some(s) = sandbox {
        connect4_match::sandbox::kill_user(s.account.uid);
    }
    child.wait().ok();
    let text = output.text_by(Instant::now() + OUTPUT_GRACE);
    let lines: Vec<&str> = text.lines().collect();
    let shown = lines[lines.len().saturating_sub(BUILD_LINES)..].join("\n");
    let quote = |why: String| {
        Refusal(format!(
            "{why}; its last lines:\n{}",
            super::report::code_block(if shown.is_empty() {
                "(no output)"
            } else {
                &shown
            })
        ))
    };
    match status {
        None => Err(quote(format!(
            "the build command `{line}` took over {} s and was stopped",
            limit.as_secs()
        ))),
        Some(s) if !s.success() => Err(quote(format!("the build command `{line}` failed ({s})"))),
        Some(_) => Ok(()),
    }
}

/// The child's exit status if it ends within `limit` (`None` if it does
/// not, or cannot be waited for).
fn wait_within(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if started.elapsed() > limit => return None,
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(_) => return None,
        }
    }
}

/// Threads reading a child's stdout and stderr into one bounded tail.
struct OutputReaders {
    /// What they read.
    output: Tail,
    /// A message from each reader when its stream closes.
    finished: Receiver<()>,
    /// How many readers there are.
    readers: usize,
}

impl OutputReaders {
    /// Starts a reader on each of the child's output streams.
    fn start(child: &mut Child) -> OutputReaders {
        let output = Tail::default();
        let (done, finished) = std::sync::mpsc::channel();
        let streams = [
            child
                .stdout
                .take()
                .map(|s| Box::new(s) as Box<dyn Read + Send>),
            child
                .stderr
                .take()
                .map(|s| Box::new(s) as Box<dyn Read + Send>),
        ];
        let mut readers = 0;
        for stream in streams.into_iter().flatten() {
            let (tail, done) = (output.clone(), done.clone());
            std::thread::spawn(move || {
                tail.collect(stream);
                done.send(()).ok();
            });
            readers += 1;
        }
        OutputReaders {
            output,
            finished,
            readers,
        }
    }

    /// The output, once every stream has closed or at `deadline`: a
    /// process that left the group may still hold the pipes open, so the
    /// output is read until a deadline, not until they close.
    fn text_by(self, deadline: Instant) -> String {
        for _ in 0..self.readers {
            let left = deadline.saturating_duration_since(Instant::now());
            if self.finished.recv_timeout(left).is_err() {
                break;
            }
        }
        self.output.text()
    }
}

/// How the student's engine starts: from the submission copied to `dir`,
/// as `config` says, with the config's clock; `python` runs the bridges.
pub fn spec(
    config: &Config,
    dir: &Path,
    python: &str,
    sandbox: Option<Sandbox>,
) -> Result<EngineSpec, Refusal> {
    let kind = config.submission.kind;
    let executable = config
        .submission
        .executable
        .clone()
        .unwrap_or_else(|| kind.default_executable().to_string());
    // A policy may name its class after a colon.
    let (file, class) = match executable.split_once(':') {
        Some((file, class)) => (file, Some(class)),
        None => (executable.as_str(), None),
    };
    let path = dir.join(file);
    if std::fs::symlink_metadata(&path).is_err() {
        return Err(Refusal(format!(
            "your submission has no '{file}' (the grader runs {}; your submission's files: {})",
            match kind {
                SubmissionKind::Engine => "that program",
                SubmissionKind::Policy => "the Policy class in that file",
                SubmissionKind::Kaggle => "the agent in that file",
            },
            listing(dir)
        )));
    }
    let path = inside(dir, file)?;
    let target = match class {
        Some(class) => format!("{}:{class}", path.display()),
        None => path.display().to_string(),
    };
    let clock = format!("{},margin={}", config.clock_spec(), config.margin_ms);
    let start = match kind {
        SubmissionKind::Engine => {
            // Uploads often lose the executable bit. `inside` resolved every
            // link, and no process of the student's runs now to swap one.
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                .map_err(|e| Refusal(format!("the grader cannot make '{file}' executable: {e}")))?;
            program_spec("submission", &target, &config.submission.args)
        }
        SubmissionKind::Policy | SubmissionKind::Kaggle => {
            bridge_spec("submission", kind, python, &target, &config.python_path())
        }
    };
    let text = format!("{start},{clock}");
    let mut spec: EngineSpec = text
        .parse()
        .map_err(|e| Refusal(format!("the submission cannot be run: {e}")))?;
    spec.sandbox = sandbox;
    Ok(spec)
}

/// The real path of the submission's `file` in `dir`: a regular file
/// inside the submission, links followed only as far as they stay inside.
/// The grader runs as root; a link to one of its own files (the config with
/// the hidden tests) must never be made executable or run.
fn inside(dir: &Path, file: &str) -> Result<std::path::PathBuf, Refusal> {
    let root = dir.canonicalize().map_err(|e| {
        Refusal(format!(
            "the grader cannot read its copy of your submission: {e}"
        ))
    })?;
    let real = dir.join(file).canonicalize().map_err(|e| {
        Refusal(format!(
            "'{file}' in your submission is a link to nothing the grader can reach ({e}); \
             upload the file itself"
        ))
    })?;
    if !real.starts_with(&root) {
        return Err(Refusal(format!(
            "'{file}' in your submission is a link to a file outside it; upload the file itself"
        )));
    }
    if !std::fs::metadata(&real).is_ok_and(|m| m.is_file()) {
        return Err(Refusal(format!(
            "'{file}' in your submission is not a regular file; upload the program or script itself"
        )));
    }
    Ok(real)
}

/// Whether the student's engine starts and answers `hello`: if not, every
/// test would fail for the same reason, which is said once, with the end
/// of its stderr (a Python traceback at import shows here).
pub fn starts(spec: &EngineSpec, terms: Terms) -> Result<(), Refusal> {
    connect4_match::process::EngineProcess::check_starts(spec).map_err(|e| {
        let why = terms.failure(e.reason(), e.detail());
        Refusal(match terms {
            Terms::Protocol => format!("your submission does not start and answer hello: {why}"),
            Terms::Python => format!(
                "your code could not be loaded (running your file and finding its class or \
                 agent failed), so no game was played: {why}"
            ),
        })
    })
}
