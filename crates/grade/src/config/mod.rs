//! The grader's configuration: what students submit, the clock, the limits
//! their code runs under, the tests with their points and visibility, and
//! the leaderboard. It is a TOML file (every field is documented with an
//! example in docs/grading.md); each kind of submission has defaults, so an
//! empty file, or none, grades with the standard tests.

//!
//! Its parts: `sections` holds the sections as written and their
//! defaults, `validate` checks them one section at a time, and `specs`
//! turns opponents and submissions into the specs the arena starts.

use std::path::{Path, PathBuf};

mod kind;
mod sections;
mod specs;
mod validate;

pub use kind::SubmissionKind;
pub use sections::{
    DEFAULT_TESTS, Grading, LeaderboardEntry, Metric, Order, Scoring, Side, StudentLimits,
    Submission, Tactic, Test, TestKind, Time, UnknownKind, Visibility,
};
pub use specs::{FILE_PARAMS, Opponent, OpponentError, bridge_spec, map_files, program_spec};

use sections::RawConfig;

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
        let raw = with_default_tests(raw);
        let kind = raw.submission.kind;
        validate::submission(&raw.submission)?;
        let move_ms = validate::move_ms(&raw.time, kind)?;
        validate::limits(&raw.limits)?;
        validate::grading(&raw.grading)?;
        let tests = validate::tests(&raw.tests, &base, raw.grading.visibility, kind)?;
        validate::leaderboard(&raw.leaderboard, &tests)?;
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

    /// The seed of `test`'s openings, positions and random opponents: its
    /// own `seed`, or one derived from the grading's seed and the test's
    /// name. So a test's games do not move when another test is added or
    /// dropped, and a test's seed (which the students' kit carries for the
    /// visible tests) does not tell the grading's seed, nor the hidden
    /// tests' seeds.
    pub fn test_seed(&self, test: &Test) -> u64 {
        test.seed.unwrap_or_else(|| {
            derived_seed(self.grading.key.as_deref(), self.grading.seed, &test.name)
        })
    }

    /// A grading seed given on the command line: every test's seed is
    /// derived from it, the config's own test seeds set aside.
    pub fn reseed(&mut self, seed: u64) {
        self.grading.seed = seed;
        for test in &mut self.tests {
            test.seed = None;
        }
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

/// The fewest characters a `[grading] key` may have.
pub const KEY_CHARS: usize = 32;

/// A new random key for `[grading] key`: 64 hexadecimal digits.
pub fn fresh_key() -> String {
    (0..32)
        .map(|_| format!("{:02x}", rand::random::<u8>()))
        .collect()
}

/// A test's seed from the grading's seed, its key and the test's name:
/// the first 63 bits of their SHA-256 (TOML's integers are signed
/// 64-bit). Without the key, a small grading seed is found again from a
/// test's seed by trying them all; with it, not.
fn derived_seed(key: Option<&str>, grading_seed: u64, name: &str) -> u64 {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    hash.update(b"connect4-grade-test-seed\0");
    if let Some(key) = key {
        hash.update(b"key\0");
        hash.update((key.len() as u64).to_le_bytes());
        hash.update(key.as_bytes());
    }
    hash.update(grading_seed.to_le_bytes());
    hash.update(name.as_bytes());
    let digest = hash.finalize();
    let bytes: [u8; 8] = digest[..8].try_into().expect("32 bytes");
    u64::from_le_bytes(bytes) >> 1
}

/// `raw` with the standard tests when it lists none (and their leaderboard
/// column when it has none either).
fn with_default_tests(raw: RawConfig) -> RawConfig {
    if !raw.tests.is_empty() {
        return raw;
    }
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(text, Path::new("grader.toml"), PathBuf::from("/course"))
    }

    /// Issue #69, item 7: an unkeyed derivation let a student try every
    /// small grading seed against a visible test's seed (2.2 s) and replay
    /// the hidden tests' games; a key changes every seed, and a short one
    /// is refused.
    #[test]
    fn a_key_changes_the_seeds_and_a_short_one_is_refused() {
        let plain = parse("").unwrap();
        let key = format!("[grading]\nkey = \"{}\"\n", fresh_key());
        let keyed = parse(&key).unwrap();
        let seeds = |c: &Config| c.tests.iter().map(|t| c.test_seed(t)).collect::<Vec<_>>();
        let (a, b) = (seeds(&plain), seeds(&keyed));
        assert!(a.iter().zip(&b).all(|(x, y)| x != y), "{a:?} {b:?}");
        // Without the key, the visible seed is the unkeyed one of seed 1.
        let found = (0..1000u64).find(|s| derived_seed(None, *s, &plain.tests[0].name) == a[0]);
        assert_eq!(found, Some(1));
        let none = (0..1000u64).find(|s| derived_seed(None, *s, &keyed.tests[0].name) == b[0]);
        assert_eq!(none, None);
        let short = parse("[grading]\nkey = \"hunter2\"\n")
            .unwrap_err()
            .to_string();
        assert!(short.contains("key of 7 characters"), "{short}");
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
    fn the_documented_example_config_is_valid() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../docs/grading/grader.toml"
        ))
        .unwrap();
        let c = parse(&text).unwrap();
        assert!(c.tests.len() >= 7);
        assert!(!c.leaderboard.is_empty());
    }
}
