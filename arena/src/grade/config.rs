//! The grader's configuration: what students submit, the clock, the limits
//! their code runs under, the tests with their points and visibility, and
//! the leaderboard. It is a TOML file (every field is documented with an
//! example in docs/grading.md); each kind of submission has defaults, so an
//! empty file, or none, grades with the standard tests.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::spec::{EngineSpec, quote};

/// What is wrong with a configuration; each message names the field and
/// quotes the value at fault.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file cannot be read.
    #[error("cannot read the grading config {path}: {error}")]
    Read {
        /// The file.
        path: PathBuf,
        /// What the system said.
        error: std::io::Error,
    },
    /// The file is not valid TOML or has a field of the wrong type.
    #[error("grading config {path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message, with the line and column.
        message: String,
    },
    /// A value out of its range or a field that does not apply.
    #[error("grading config, {place}: {message}")]
    Invalid {
        /// Where: `[time]`, `test 3 ("Openings held against greedy")`, ...
        place: String,
        /// What is wrong, quoting the value.
        message: String,
    },
}

/// What students submit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SubmissionKind {
    /// A program speaking the connect4 protocol.
    #[default]
    Engine,
    /// A course `Policy` class (`mount()`, `act(board)`) in Python.
    Policy,
    /// A Kaggle ConnectX `agent(obs, config)` in Python.
    Kaggle,
}

impl SubmissionKind {
    /// The kind's name in configs and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            SubmissionKind::Engine => "engine",
            SubmissionKind::Policy => "policy",
            SubmissionKind::Kaggle => "kaggle",
        }
    }

    /// The file in the submission graded when the config names none.
    pub fn default_executable(self) -> &'static str {
        match self {
            SubmissionKind::Engine => "engine",
            SubmissionKind::Policy => "policy.py",
            SubmissionKind::Kaggle => "main.py",
        }
    }

    /// The bridge module that serves a Python player of this kind (none
    /// for engines).
    fn bridge_module(self) -> Option<&'static str> {
        match self {
            SubmissionKind::Engine => None,
            SubmissionKind::Policy => Some("c4bridge.policy"),
            SubmissionKind::Kaggle => Some("c4bridge.kaggle"),
        }
    }

    /// Time per move when the config gives none: Python starts slower and
    /// course policies are not tuned for speed.
    fn default_move_ms(self) -> u64 {
        match self {
            SubmissionKind::Engine => 100,
            SubmissionKind::Policy | SubmissionKind::Kaggle => 1000,
        }
    }
}

impl std::str::FromStr for SubmissionKind {
    type Err = String;

    fn from_str(s: &str) -> Result<SubmissionKind, String> {
        match s {
            "engine" => Ok(SubmissionKind::Engine),
            "policy" => Ok(SubmissionKind::Policy),
            "kaggle" => Ok(SubmissionKind::Kaggle),
            other => Err(format!("'{other}': expected engine, policy or kaggle")),
        }
    }
}

/// `[submission]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Submission {
    /// What students submit.
    #[serde(default)]
    pub kind: SubmissionKind,
    /// Engines: a command (program and arguments, no shell) run in the
    /// submission's folder before grading, such as `["make"]`.
    #[serde(default)]
    pub build: Vec<String>,
    /// The file graded, relative to the submission: the engine's program,
    /// the policy's file (or folder with `policy.py`, optionally
    /// `:ClassName`), or the Kaggle agent's file.
    pub executable: Option<String>,
    /// Engines: arguments to the program.
    #[serde(default)]
    pub args: Vec<String>,
    /// Folders put on Python's import path for Python submissions and the
    /// instructor's reference policies, relative to the config's folder
    /// (the autograder puts each `--include` folder there).
    #[serde(default)]
    pub python_path: Vec<String>,
}

/// `[time]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Time {
    /// Milliseconds per move (default 100 for engines, 1000 for Python).
    pub move_ms: Option<u64>,
    /// A time bank in milliseconds: with one, each game is played on a
    /// clock that starts at the bank and gains `move_ms` per move, so a
    /// move may take longer when the bank allows.
    #[serde(default)]
    pub bank_ms: u64,
    /// Milliseconds allowed beyond the clock for process and pipe overhead.
    #[serde(default = "default_margin")]
    pub margin_ms: u64,
}

fn default_margin() -> u64 {
    200
}

impl Default for Time {
    fn default() -> Time {
        Time {
            move_ms: None,
            bank_ms: 0,
            margin_ms: default_margin(),
        }
    }
}

/// `[limits]`: what the student's processes may use.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StudentLimits {
    /// Address space of each process, in MiB.
    #[serde(default = "default_memory")]
    pub memory_mb: u64,
    /// Resident memory of all the student's processes together, in MiB
    /// (default: half of the machine's memory).
    #[serde(default)]
    pub total_memory_mb: Option<u64>,
    /// Processes and threads the student's user may have at once.
    #[serde(default = "default_processes")]
    pub processes: u64,
    /// Largest file a student's process may write, in MiB.
    #[serde(default = "default_file")]
    pub file_mb: u64,
    /// Seconds the build may take.
    #[serde(default = "default_build")]
    pub build_seconds: u64,
}

fn default_memory() -> u64 {
    2048
}
fn default_processes() -> u64 {
    256
}
fn default_file() -> u64 {
    64
}
fn default_build() -> u64 {
    600
}

impl Default for StudentLimits {
    fn default() -> StudentLimits {
        StudentLimits {
            memory_mb: default_memory(),
            total_memory_mb: None,
            processes: default_processes(),
            file_mb: default_file(),
            build_seconds: default_build(),
        }
    }
}

/// Who sees a test, or the output, on Gradescope.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    /// Always.
    #[default]
    Visible,
    /// Never (instructors only).
    Hidden,
    /// After the due date.
    AfterDueDate,
    /// After the grades are published.
    AfterPublished,
}

/// `[grading]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Grading {
    /// Seed of the openings, the positions and the random opponents.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Games played at once (default: the number of cores).
    pub concurrency: Option<usize>,
    /// The tests' visibility when a test gives none.
    #[serde(default)]
    pub visibility: Visibility,
    /// Who sees the grader's own output (its log) on Gradescope.
    #[serde(default = "hidden")]
    pub stdout_visibility: Visibility,
}

fn default_seed() -> u64 {
    1
}
fn hidden() -> Visibility {
    Visibility::Hidden
}

impl Default for Grading {
    fn default() -> Grading {
        Grading {
            seed: default_seed(),
            concurrency: None,
            visibility: Visibility::Visible,
            stdout_visibility: Visibility::Hidden,
        }
    }
}

/// What a test checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TestKind {
    /// Games from the empty board; the share won.
    Wins,
    /// Colour-swapped pairs from solver-labelled openings; the share held
    /// at the opening's value.
    Openings,
    /// Set positions: win in one, block, convert a proven win, avoid a
    /// losing move; the share passed.
    Tactics,
    /// The protocol compliance checks; the share passed.
    Compliance,
    /// No forfeit in any game of the other tests.
    Discipline,
}

/// The colour the student plays in a `wins` test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// First player in every game.
    First,
    /// Second player in every game.
    Second,
    /// Alternating, first in the odd games.
    Both,
}

/// A kind of tactical position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tactic {
    /// A win at once is there: take it.
    Win,
    /// The opponent threatens to win and one move stops it: play it.
    Block,
    /// A proven win within 11 plies: win by the ply perfect play reaches.
    Convert,
    /// Some moves hand the opponent a win at once: play none of them.
    Avoid,
}

impl Tactic {
    /// Every kind, in the order they are played.
    pub const ALL: [Tactic; 4] = [Tactic::Win, Tactic::Block, Tactic::Convert, Tactic::Avoid];
}

/// How a test's share becomes points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scoring {
    /// Points times the share.
    Proportional,
    /// All the points at the pass rate, none below.
    Threshold,
}

/// One `[[test]]` as written: every field but `kind` is optional and the
/// ones that do not apply to the kind are refused.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTest {
    kind: TestKind,
    name: Option<String>,
    points: Option<f64>,
    visibility: Option<Visibility>,
    opponent: Option<String>,
    games: Option<u32>,
    side: Option<Side>,
    plies: Option<u32>,
    positions: Option<u32>,
    tactics: Option<Vec<Tactic>>,
    pass_rate: Option<f64>,
    scoring: Option<Scoring>,
}

/// One test, checked and with its defaults filled in.
#[derive(Clone, Debug)]
pub struct Test {
    /// What the test checks.
    pub kind: TestKind,
    /// Its name on Gradescope (unique).
    pub name: String,
    /// Points possible.
    pub points: f64,
    /// Who sees it.
    pub visibility: Visibility,
    /// The opponent (`wins`, `openings`).
    pub opponent: Option<Opponent>,
    /// Games (`wins`, `openings`; an odd count of openings games is rounded
    /// up to whole pairs).
    pub games: u32,
    /// The student's colour (`wins`).
    pub side: Side,
    /// Plies of the openings (`openings`).
    pub plies: u32,
    /// Positions of each kind (`tactics`).
    pub positions: u32,
    /// The kinds of position (`tactics`).
    pub tactics: Vec<Tactic>,
    /// The share that passes.
    pub pass_rate: f64,
    /// How the share becomes points.
    pub scoring: Scoring,
}

/// What a leaderboard column shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Metric {
    /// The total score.
    Score,
    /// A test's share held at the openings' values (or passed), in percent.
    Held,
    /// A test's share of games won, in percent.
    Wins,
    /// A test's share of the points (a draw is half), in percent.
    Points,
    /// An Elo difference against a test's opponent, from its share of the
    /// points (within plus or minus 800).
    Elo,
}

/// Sort order of a leaderboard column.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// Highest first.
    #[default]
    Desc,
    /// Lowest first.
    Asc,
}

/// One `[[leaderboard]]` column.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeaderboardEntry {
    /// The column's title.
    pub name: String,
    /// What it shows.
    pub value: Metric,
    /// The test it is taken from (all but `score`).
    pub test: Option<String>,
    /// Sort order.
    #[serde(default)]
    pub order: Order,
}

/// A reference opponent.
#[derive(Clone, Debug, PartialEq)]
pub enum Opponent {
    /// One of this program's agents (`random`, `greedy`,
    /// `alphabeta:depth=4`, `mcts:simulations=1000`, ...).
    Agent(String),
    /// The perfect player (solver and book) at a time per move.
    Perfect {
        /// Milliseconds per move.
        movetime_ms: u64,
    },
    /// The instructor's own engine: a program and its arguments.
    Engine(PathBuf, Vec<String>),
    /// The instructor's own course policy.
    Policy(PathBuf),
    /// The instructor's own Kaggle agent.
    Kaggle(PathBuf),
}

impl Opponent {
    /// Whether it is one of the instructor's files (an engine, a policy, an
    /// agent), not a player this program has.
    pub fn is_a_file(&self) -> bool {
        matches!(
            self,
            Opponent::Engine(..) | Opponent::Policy(_) | Opponent::Kaggle(_)
        )
    }

    /// Reads `text` (see docs/grading.md); paths are relative to `base`.
    pub fn parse(text: &str, base: &Path) -> Result<Opponent, String> {
        let text = text.trim();
        let path = |rest: &str| {
            let p = Path::new(rest);
            if p.is_absolute() {
                p.to_path_buf()
            } else {
                base.join(p)
            }
        };
        if let Some(rest) = text.strip_prefix("engine:") {
            let mut words = rest.split_whitespace();
            let program = words
                .next()
                .ok_or_else(|| format!("'{text}': engine: needs a program"))?;
            return Ok(Opponent::Engine(
                path(program),
                words.map(str::to_string).collect(),
            ));
        }
        if let Some(rest) = text.strip_prefix("policy:") {
            return Ok(Opponent::Policy(path(rest)));
        }
        if let Some(rest) = text.strip_prefix("kaggle:") {
            return Ok(Opponent::Kaggle(path(rest)));
        }
        if text == "perfect" {
            return Ok(Opponent::Perfect { movetime_ms: 100 });
        }
        if let Some(rest) = text.strip_prefix("perfect:") {
            let ms = rest
                .strip_prefix("movetime=")
                .and_then(|v| v.parse::<u64>().ok())
                .filter(|&ms| ms > 0)
                .ok_or_else(|| {
                    format!("'{text}': expected perfect or perfect:movetime=MS (MS at least 1)")
                })?;
            return Ok(Opponent::Perfect { movetime_ms: ms });
        }
        connect4::engine::check_player_spec(text).map_err(|e| {
            format!(
                "'{text}': {e} (opponents: an agent such as random, greedy, \
                 alphabeta:depth=4, mcts:simulations=1000; perfect:movetime=MS; \
                 engine:PROGRAM; policy:FILE; kaggle:FILE)"
            )
        })?;
        Ok(Opponent::Agent(text.to_string()))
    }

    /// The instructor's file it runs, if it is one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Opponent::Engine(p, _) | Opponent::Policy(p) | Opponent::Kaggle(p) => Some(p),
            Opponent::Agent(_) | Opponent::Perfect { .. } => None,
        }
    }

    /// A short name for test names and messages.
    pub fn label(&self) -> String {
        match self {
            Opponent::Agent(a) => a.clone(),
            Opponent::Perfect { movetime_ms } => format!("perfect:movetime={movetime_ms}"),
            Opponent::Engine(p, _) | Opponent::Policy(p) | Opponent::Kaggle(p) => p
                .file_name()
                .map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into()),
        }
    }

    /// How the arena starts it; `python` runs the Python bridges, with the
    /// folders of `python_path` on the import path.
    pub fn spec(&self, python: &str, python_path: &[PathBuf]) -> EngineSpec {
        let name = self.label();
        let text = match self {
            Opponent::Agent(agent) => format!(
                "name={},cmd=self,movetime=2000,option.agent={}",
                quote(agent),
                quote(agent)
            ),
            Opponent::Perfect { movetime_ms } => {
                format!("name=perfect,cmd=self,movetime={movetime_ms}")
            }
            Opponent::Engine(program, args) => {
                program_spec(&name, &program.display().to_string(), args) + ",movetime=2000"
            }
            Opponent::Policy(file) | Opponent::Kaggle(file) => {
                let kind = if matches!(self, Opponent::Policy(_)) {
                    SubmissionKind::Policy
                } else {
                    SubmissionKind::Kaggle
                };
                let file = file.display().to_string();
                bridge_spec(&name, kind, python, &file, python_path) + ",movetime=2000"
            }
        };
        text.parse().expect("a valid built-in spec")
    }
}

/// The start of a spec (no limit yet) for `name` running `program` with
/// `args`.
pub fn program_spec(name: &str, program: &str, args: &[String]) -> String {
    let mut text = format!("name={},cmd={}", quote(name), quote(program));
    for a in args {
        text.push_str(&format!(",arg={}", quote(a)));
    }
    text
}

/// The start of a spec (no limit yet) for `name`, a Python player of
/// `kind` in `file` served by its bridge module under `python`, with the
/// folders of `python_path` on the import path.
pub fn bridge_spec(
    name: &str,
    kind: SubmissionKind,
    python: &str,
    file: &str,
    python_path: &[PathBuf],
) -> String {
    let module = kind.bridge_module().expect("a Python kind");
    let mut args = vec!["-m".to_string(), module.to_string(), file.to_string()];
    for folder in python_path {
        args.push("--path".into());
        args.push(folder.display().to_string());
    }
    program_spec(name, python, &args)
}

/// The whole configuration, checked, with its defaults filled in.
#[derive(Clone, Debug)]
pub struct Config {
    /// What students submit.
    pub submission: Submission,
    /// Milliseconds per move.
    pub move_ms: u64,
    /// The time bank (0: none).
    pub bank_ms: u64,
    /// Milliseconds allowed beyond the clock.
    pub margin_ms: u64,
    /// What the student's processes may use.
    pub limits: StudentLimits,
    /// Seed, concurrency, visibility.
    pub grading: Grading,
    /// The tests, in order.
    pub tests: Vec<Test>,
    /// The leaderboard's columns.
    pub leaderboard: Vec<LeaderboardEntry>,
    /// The config's folder: instructor files are relative to it.
    pub base: PathBuf,
}

/// The file as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    submission: Submission,
    #[serde(default)]
    time: Time,
    #[serde(default)]
    limits: StudentLimits,
    #[serde(default)]
    grading: Grading,
    #[serde(default, rename = "test")]
    tests: Vec<RawTest>,
    #[serde(default)]
    leaderboard: Vec<LeaderboardEntry>,
}

/// The standard tests, used when a config lists none.
pub const DEFAULT_TESTS: &str = r#"
[[test]]
kind = "wins"
name = "Wins as first player against random"
opponent = "random"
side = "first"
games = 100
pass_rate = 0.95
scoring = "threshold"
points = 20

[[test]]
kind = "wins"
name = "Wins as second player against random"
opponent = "random"
side = "second"
games = 100
pass_rate = 0.95
scoring = "threshold"
points = 20

[[test]]
kind = "openings"
opponent = "greedy"
games = 20
points = 15

[[test]]
kind = "openings"
opponent = "alphabeta:depth=4"
games = 20
points = 15

[[test]]
kind = "tactics"
positions = 10
points = 15

[[test]]
kind = "compliance"
points = 10

[[test]]
kind = "discipline"
points = 5

[[leaderboard]]
name = "Openings held against alphabeta:depth=4 (%)"
value = "held"
test = "Openings held against alphabeta:depth=4"
"#;

impl Config {
    /// Reads and checks the config at `path`.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|error| ConfigError::Read {
            path: path.to_path_buf(),
            error,
        })?;
        let base = path
            .parent()
            .map(Path::to_path_buf)
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or_else(|| PathBuf::from("."));
        let base = std::fs::canonicalize(&base).unwrap_or(base);
        Config::parse(&text, path, base)
    }

    /// The defaults for a kind of submission (no file).
    pub fn defaults(kind: SubmissionKind) -> Config {
        let text = format!("[submission]\nkind = \"{}\"\n{DEFAULT_TESTS}", kind.name());
        Config::parse(&text, Path::new("(defaults)"), PathBuf::from("."))
            .expect("the defaults are valid")
    }

    /// Checks `text` (read from `path`, for messages).
    pub fn parse(text: &str, path: &Path, base: PathBuf) -> Result<Config, ConfigError> {
        let raw: RawConfig = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: path.to_path_buf(),
            message: e.to_string().trim_end().to_string(),
        })?;
        let raw = if raw.tests.is_empty() {
            let defaults: RawConfig = toml::from_str(DEFAULT_TESTS).expect("valid defaults");
            RawConfig {
                tests: defaults.tests,
                leaderboard: if raw.leaderboard.is_empty() {
                    defaults.leaderboard
                } else {
                    raw.leaderboard
                },
                ..raw
            }
        } else {
            raw
        };
        let invalid = |place: &str, message: String| ConfigError::Invalid {
            place: place.to_string(),
            message,
        };
        let kind = raw.submission.kind;
        if !raw.submission.build.is_empty() && kind != SubmissionKind::Engine {
            return Err(invalid(
                "[submission]",
                format!(
                    "build applies to engines, not to a {} submission",
                    kind.name()
                ),
            ));
        }
        if !raw.submission.args.is_empty() && kind != SubmissionKind::Engine {
            return Err(invalid(
                "[submission]",
                format!("args apply to engines, not to a {} submission", kind.name()),
            ));
        }
        let move_ms = raw.time.move_ms.unwrap_or(kind.default_move_ms());
        if move_ms == 0 {
            return Err(invalid("[time]", "move_ms = 0: expected at least 1".into()));
        }
        for (field, value, least) in [
            ("memory_mb", raw.limits.memory_mb, 64),
            (
                "total_memory_mb",
                raw.limits.total_memory_mb.unwrap_or(64),
                64,
            ),
            ("processes", raw.limits.processes, 8),
            ("file_mb", raw.limits.file_mb, 1),
            ("build_seconds", raw.limits.build_seconds, 1),
        ] {
            if value < least {
                return Err(invalid(
                    "[limits]",
                    format!("{field} = {value}: expected at least {least}"),
                ));
            }
        }
        if raw.grading.concurrency == Some(0) {
            return Err(invalid(
                "[grading]",
                "concurrency = 0: expected at least 1".into(),
            ));
        }
        let mut tests = Vec::new();
        let mut names = HashSet::new();
        for (i, t) in raw.tests.iter().enumerate() {
            let test = check_test(t, &base, raw.grading.visibility, kind).map_err(|message| {
                let place = match &t.name {
                    Some(name) => format!("test {} (\"{name}\")", i + 1),
                    None => format!("test {}", i + 1),
                };
                invalid(&place, message)
            })?;
            if !names.insert(test.name.clone()) {
                return Err(invalid(
                    &format!("test {}", i + 1),
                    format!(
                        "the name \"{}\" is taken by an earlier test (give each a name)",
                        test.name
                    ),
                ));
            }
            tests.push(test);
        }
        for (i, entry) in raw.leaderboard.iter().enumerate() {
            let place = format!("leaderboard column {} (\"{}\")", i + 1, entry.name);
            match (&entry.test, entry.value) {
                (None, Metric::Score) => {}
                (Some(_), Metric::Score) => {
                    return Err(invalid(&place, "value = \"score\" takes no test".into()));
                }
                (None, _) => {
                    return Err(invalid(&place, "test is missing (the test's name)".into()));
                }
                (Some(name), value) => {
                    let Some(test) = tests.iter().find(|t| &t.name == name) else {
                        return Err(invalid(
                            &place,
                            format!(
                                "test = \"{name}\": no test has that name (tests: {})",
                                tests
                                    .iter()
                                    .map(|t| format!("\"{}\"", t.name))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        ));
                    };
                    let games = matches!(test.kind, TestKind::Wins | TestKind::Openings);
                    let fits = match value {
                        Metric::Held => test.kind != TestKind::Discipline,
                        Metric::Wins | Metric::Points | Metric::Elo => games,
                        Metric::Score => true,
                    };
                    if !fits {
                        return Err(invalid(
                            &place,
                            format!("a {:?} test has no {:?} value", test.kind, value)
                                .to_lowercase(),
                        ));
                    }
                }
            }
        }
        Ok(Config {
            submission: raw.submission,
            move_ms,
            bank_ms: raw.time.bank_ms,
            margin_ms: raw.time.margin_ms,
            limits: raw.limits,
            grading: raw.grading,
            tests,
            leaderboard: raw.leaderboard,
            base,
        })
    }

    /// The folders of `[submission] python_path`, resolved against the
    /// config's folder.
    pub fn python_path(&self) -> Vec<PathBuf> {
        self.submission
            .python_path
            .iter()
            .map(|p| self.base.join(p))
            .collect()
    }

    /// The clock part of the student's spec: `movetime=MS`, or a clock
    /// starting at the bank and gaining `move_ms` a move.
    pub fn clock_spec(&self) -> String {
        if self.bank_ms == 0 {
            format!("movetime={}", self.move_ms)
        } else {
            format!(
                "tc={}+{}",
                self.bank_ms as f64 / 1000.0,
                self.move_ms as f64 / 1000.0
            )
        }
    }
}

/// Checks one test and fills in its defaults.
fn check_test(
    t: &RawTest,
    base: &Path,
    visibility: Visibility,
    submission: SubmissionKind,
) -> Result<Test, String> {
    let kind = t.kind;
    let kind_name = format!("{kind:?}").to_lowercase();
    let refuse = |field: &str, present: bool| {
        if present {
            Err(format!("{field} does not apply to a {kind_name} test"))
        } else {
            Ok(())
        }
    };
    let games = matches!(kind, TestKind::Wins | TestKind::Openings);
    refuse("opponent", t.opponent.is_some() && !games)?;
    refuse("games", t.games.is_some() && !games)?;
    refuse("side", t.side.is_some() && kind != TestKind::Wins)?;
    refuse("plies", t.plies.is_some() && kind != TestKind::Openings)?;
    refuse(
        "positions",
        t.positions.is_some() && kind != TestKind::Tactics,
    )?;
    refuse("tactics", t.tactics.is_some() && kind != TestKind::Tactics)?;
    let opponent = match (&t.opponent, games) {
        (Some(o), true) => Some(Opponent::parse(o, base)?),
        (None, true) if kind == TestKind::Wins => Some(Opponent::Agent("random".into())),
        (None, true) => return Err("opponent is missing".into()),
        _ => None,
    };
    let count = |field: &str, value: Option<u32>, default: u32, most: u32| {
        let v = value.unwrap_or(default);
        if (1..=most).contains(&v) {
            Ok(v)
        } else {
            Err(format!("{field} = {v}: expected 1 to {most}"))
        }
    };
    let games_count = count(
        "games",
        t.games,
        if kind == TestKind::Wins { 100 } else { 20 },
        100_000,
    )?;
    let plies = count("plies", t.plies, 2, 12)?;
    let positions = count("positions", t.positions, 10, 1000)?;
    let tactics = t.tactics.clone().unwrap_or_else(|| Tactic::ALL.to_vec());
    if tactics.is_empty() {
        return Err("tactics = []: name at least one of win, block, convert, avoid".into());
    }
    let points = t.points.unwrap_or(10.0);
    if !(points.is_finite() && points >= 0.0) {
        return Err(format!("points = {points}: expected 0 or more"));
    }
    let (default_rate, default_scoring) = match kind {
        TestKind::Wins => (0.95, Scoring::Threshold),
        TestKind::Openings => (0.5, Scoring::Proportional),
        TestKind::Tactics | TestKind::Compliance => (1.0, Scoring::Proportional),
        TestKind::Discipline => (1.0, Scoring::Threshold),
    };
    let pass_rate = t.pass_rate.unwrap_or(default_rate);
    if !(0.0..=1.0).contains(&pass_rate) {
        return Err(format!("pass_rate = {pass_rate}: expected 0 to 1"));
    }
    let side = t.side.unwrap_or(Side::First);
    let name = t.name.clone().unwrap_or_else(|| {
        let against = opponent.as_ref().map(Opponent::label).unwrap_or_default();
        match kind {
            TestKind::Wins => match side {
                Side::First => format!("Wins as first player against {against}"),
                Side::Second => format!("Wins as second player against {against}"),
                Side::Both => format!("Wins against {against}"),
            },
            TestKind::Openings => format!("Openings held against {against}"),
            TestKind::Tactics => "Tactics from solved positions".into(),
            TestKind::Compliance if submission == SubmissionKind::Engine => {
                "Protocol compliance".into()
            }
            TestKind::Compliance => "Your code's checks".into(),
            TestKind::Discipline if submission == SubmissionKind::Engine => {
                "Time and protocol discipline in every game".into()
            }
            TestKind::Discipline => "No lost game by error or time".into(),
        }
    });
    Ok(Test {
        kind,
        name,
        points,
        visibility: t.visibility.unwrap_or(visibility),
        opponent,
        games: games_count,
        side,
        plies,
        positions,
        tactics,
        pass_rate,
        scoring: t.scoring.unwrap_or(default_scoring),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(text, Path::new("grader.toml"), PathBuf::from("/course"))
    }

    #[test]
    fn an_empty_config_grades_with_the_standard_tests_worth_100() {
        let c = parse("").unwrap();
        assert_eq!(c.tests.len(), 7);
        assert_eq!(c.tests.iter().map(|t| t.points).sum::<f64>(), 100.0);
        assert_eq!(c.move_ms, 100);
        assert_eq!(c.margin_ms, 200);
        assert_eq!(c.tests[2].name, "Openings held against greedy");
        assert_eq!(c.leaderboard.len(), 1);
        let policy = Config::defaults(SubmissionKind::Policy);
        assert_eq!(policy.move_ms, 1000);
        assert_eq!(policy.clock_spec(), "movetime=1000");
    }

    #[test]
    fn tests_get_their_defaults_and_opponents_their_paths() {
        let c = parse(
            r#"
            [time]
            move_ms = 500
            bank_ms = 10000
            [grading]
            visibility = "after_due_date"
            [[test]]
            kind = "openings"
            opponent = "perfect:movetime=50"
            visibility = "hidden"
            [[test]]
            kind = "wins"
            opponent = "engine:bin/ref --fast"
            [[test]]
            kind = "tactics"
            tactics = ["avoid"]
            "#,
        )
        .unwrap();
        assert_eq!(c.clock_spec(), "tc=10+0.5");
        assert_eq!(c.tests[0].name, "Openings held against perfect:movetime=50");
        assert_eq!(c.tests[0].visibility, Visibility::Hidden);
        assert_eq!(c.tests[0].games, 20);
        assert_eq!(c.tests[1].visibility, Visibility::AfterDueDate);
        assert_eq!(
            c.tests[1].opponent,
            Some(Opponent::Engine(
                PathBuf::from("/course/bin/ref"),
                vec!["--fast".into()]
            ))
        );
        assert_eq!(c.tests[2].tactics, vec![Tactic::Avoid]);
        // The leaderboard's default column names a test that is gone.
        assert!(c.leaderboard.is_empty());
    }

    #[test]
    fn mistakes_are_named_with_their_place_and_value() {
        let cases = [
            ("[time]\nmove_ms = 0", "[time]: move_ms = 0"),
            (
                "[submision]\nkind = \"engine\"",
                "unknown field `submision`",
            ),
            ("[submission]\nkind = \"java\"", "unknown variant `java`"),
            (
                "[submission]\nkind = \"policy\"\nbuild = [\"make\"]",
                "build applies to engines",
            ),
            (
                "[[test]]\nkind = \"compliance\"\nopponent = \"greedy\"",
                "test 1: opponent does not apply to a compliance test",
            ),
            (
                "[[test]]\nkind = \"wins\"\nopponent = \"grandmaster\"",
                "'grandmaster'",
            ),
            (
                "[[test]]\nkind = \"openings\"\nname = \"O\"",
                "test 1 (\"O\"): opponent is missing",
            ),
            (
                "[[test]]\nkind = \"wins\"\ngames = 0",
                "games = 0: expected 1 to 100000",
            ),
            (
                "[[test]]\nkind = \"wins\"\npass_rate = 1.5",
                "pass_rate = 1.5: expected 0 to 1",
            ),
            (
                "[[test]]\nkind = \"tactics\"\n[[test]]\nkind = \"tactics\"",
                "test 2: the name \"Tactics from solved positions\" is taken",
            ),
            (
                "[[test]]\nkind = \"tactics\"\n[[leaderboard]]\nname = \"x\"\nvalue = \"held\"\ntest = \"Nope\"",
                "test = \"Nope\": no test has that name",
            ),
            (
                "[[test]]\nkind = \"tactics\"\n[[leaderboard]]\nname = \"x\"\nvalue = \"elo\"\ntest = \"Tactics from solved positions\"",
                "a tactics test has no elo value",
            ),
            (
                "[[test]]\nkind = \"wins\"\nopponent = \"perfect:movetime=0\"",
                "perfect:movetime=MS",
            ),
            (
                "[limits]\nprocesses = 2",
                "processes = 2: expected at least 8",
            ),
            (
                "[limits]\ntotal_memory_mb = 10",
                "total_memory_mb = 10: expected at least 64",
            ),
        ];
        for (text, expected) in cases {
            let e = parse(text).expect_err(text).to_string();
            assert!(e.contains(expected), "{text:?}: {e}");
        }
        let e = parse("[time]\nmove_ms = \"fast\"").unwrap_err().to_string();
        assert!(e.contains("grader.toml") && e.contains("line 2"), "{e}");
    }

    #[test]
    fn players_become_specs_with_their_arguments_in_order() {
        let engine: EngineSpec = (program_spec("me", "/sub/engine", &["a,b".into()])
            + ",movetime=5")
            .parse()
            .unwrap();
        assert_eq!(
            (engine.name.as_str(), engine.cmd.as_str()),
            ("me", "/sub/engine")
        );
        assert_eq!(engine.args, vec!["a,b".to_string()]);
        let policy = Opponent::Policy(PathBuf::from("/course/ref.py"))
            .spec("/venv/python3", &[PathBuf::from("/course/include")]);
        assert_eq!(policy.name, "ref.py");
        assert_eq!(policy.cmd, "/venv/python3");
        assert_eq!(
            policy.args,
            [
                "-m",
                "c4bridge.policy",
                "/course/ref.py",
                "--path",
                "/course/include"
            ]
        );
        assert_eq!(policy.movetime_ms, Some(2000));
    }

    #[test]
    fn the_documented_example_config_is_valid() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../docs/grading/grader.toml"
        ))
        .unwrap();
        let c = parse(&text).unwrap();
        assert!(c.tests.len() >= 7);
        assert!(!c.leaderboard.is_empty());
    }
}
