//! The configuration's sections as the TOML file writes them (`[submission]`,
//! `[time]`, `[limits]`, `[grading]`, `[[test]]`, `[[leaderboard]]`), each
//! with its defaults, and the checked test the grader runs.

use serde::Deserialize;

use super::kind::SubmissionKind;
use super::specs::Opponent;

/// A kind of submission this grader does not know.
#[derive(Debug, thiserror::Error)]
#[error("'{0}': expected engine, policy or kaggle")]
pub struct UnknownKind(pub String);

impl std::str::FromStr for SubmissionKind {
    type Err = UnknownKind;

    fn from_str(s: &str) -> Result<SubmissionKind, UnknownKind> {
        match s {
            "engine" => Ok(SubmissionKind::Engine),
            "policy" => Ok(SubmissionKind::Policy),
            "kaggle" => Ok(SubmissionKind::Kaggle),
            other => Err(UnknownKind(other.to_string())),
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
    /// Largest file a student's process may write, in MiB: room for an
    /// engine built on this one, whose binary embeds the 58 MiB book.
    #[serde(default = "default_file")]
    pub file_mb: u64,
    /// Seconds the build may take.
    #[serde(default = "default_build")]
    pub build_seconds: u64,
}

// The limits a student's process gets when the config gives none: those
// a tournament's contained engines get (one set of defaults).
fn default_memory() -> u64 {
    connect4_match::confine::LIMITS.memory_bytes >> 20
}
fn default_processes() -> u64 {
    connect4_match::confine::LIMITS.processes
}
fn default_file() -> u64 {
    connect4_match::confine::LIMITS.file_bytes >> 20
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
    /// A secret the tests' seeds are derived with, besides the seed: the
    /// students' kit carries the visible tests' seeds, from which an
    /// unkeyed derivation gives the grading seed (and so the hidden tests'
    /// games) back in seconds. It stays with the instructor and in the
    /// autograder (whose config only root reads), never in the kit.
    #[serde(default)]
    pub key: Option<String>,
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
            key: None,
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
pub(super) struct RawTest {
    pub(super) kind: TestKind,
    pub(super) name: Option<String>,
    pub(super) points: Option<f64>,
    pub(super) visibility: Option<Visibility>,
    pub(super) opponent: Option<String>,
    pub(super) games: Option<u32>,
    pub(super) side: Option<Side>,
    pub(super) plies: Option<u32>,
    pub(super) positions: Option<u32>,
    pub(super) tactics: Option<Vec<Tactic>>,
    pub(super) pass_rate: Option<f64>,
    pub(super) scoring: Option<Scoring>,
    pub(super) seed: Option<u64>,
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
    /// The test's own seed, if the config gives one; otherwise
    /// [`super::Config::test_seed`] derives it from the grading's seed and
    /// the test's name.
    pub seed: Option<u64>,
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

/// The file as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawConfig {
    #[serde(default)]
    pub(super) submission: Submission,
    #[serde(default)]
    pub(super) time: Time,
    #[serde(default)]
    pub(super) limits: StudentLimits,
    #[serde(default)]
    pub(super) grading: Grading,
    #[serde(default, rename = "test")]
    pub(super) tests: Vec<RawTest>,
    #[serde(default)]
    pub(super) leaderboard: Vec<LeaderboardEntry>,
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
