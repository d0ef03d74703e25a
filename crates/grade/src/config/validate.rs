//! Checking a configuration as written, one function per section: each
//! refuses a value out of its range or a field that does not apply, with the
//! section (or the test, or the leaderboard column) and the value quoted,
//! and fills in the defaults.

use std::collections::HashSet;
use std::path::Path;

use super::ConfigError;
use super::kind::SubmissionKind;
use super::sections::{
    Grading, LeaderboardEntry, Metric, RawTest, Scoring, Side, StudentLimits, Submission, Tactic,
    Test, TestKind, Time, Visibility,
};
use super::specs::Opponent;

/// A [`ConfigError::Invalid`] at `place`.
fn invalid(place: &str, message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        place: place.to_string(),
        message: message.into(),
    }
}

/// `[submission]`: `build` and `args` are for engines only.
pub(super) fn submission(s: &Submission) -> Result<(), ConfigError> {
    let kind = s.kind.name();
    if !s.build.is_empty() && s.kind != SubmissionKind::Engine {
        let message = format!("build applies to engines, not to a {kind} submission");
        return Err(invalid("[submission]", message));
    }
    if !s.args.is_empty() && s.kind != SubmissionKind::Engine {
        let message = format!("args apply to engines, not to a {kind} submission");
        return Err(invalid("[submission]", message));
    }
    Ok(())
}

/// `[time]`: the time per move, the kind's default when none is given.
pub(super) fn move_ms(time: &Time, kind: SubmissionKind) -> Result<u64, ConfigError> {
    let move_ms = time.move_ms.unwrap_or(kind.default_move_ms());
    if move_ms == 0 {
        return Err(invalid("[time]", "move_ms = 0: expected at least 1"));
    }
    Ok(move_ms)
}

/// `[limits]`: every limit at least its floor.
pub(super) fn limits(limits: &StudentLimits) -> Result<(), ConfigError> {
    let total = limits.total_memory_mb.unwrap_or(64);
    for (field, value, least) in [
        ("memory_mb", limits.memory_mb, 64),
        ("total_memory_mb", total, 64),
        ("processes", limits.processes, 8),
        ("file_mb", limits.file_mb, 1),
        ("build_seconds", limits.build_seconds, 1),
    ] {
        if value < least {
            let message = format!("{field} = {value}: expected at least {least}");
            return Err(invalid("[limits]", message));
        }
    }
    Ok(())
}

/// `[grading]`: at least one game at a time.
pub(super) fn grading(grading: &Grading) -> Result<(), ConfigError> {
    if grading.concurrency == Some(0) {
        return Err(invalid("[grading]", "concurrency = 0: expected at least 1"));
    }
    if let Some(key) = &grading.key
        && key.chars().count() < super::KEY_CHARS
    {
        return Err(invalid(
            "[grading]",
            format!(
                "key of {} characters: expected at least {} (a guessable key keeps nothing \
                 secret; for instance key = \"{}\")",
                key.chars().count(),
                super::KEY_CHARS,
                super::fresh_key()
            ),
        ));
    }
    Ok(())
}

/// Every `[[test]]`, checked and with its defaults, names unique;
/// opponents' files are relative to `base`.
pub(super) fn tests(
    raw: &[RawTest],
    base: &Path,
    visibility: Visibility,
    submission: SubmissionKind,
) -> Result<Vec<Test>, ConfigError> {
    let mut tests = Vec::new();
    let mut names = HashSet::new();
    for (i, t) in raw.iter().enumerate() {
        let place = match &t.name {
            Some(name) => format!("test {} (\"{name}\")", i + 1),
            None => format!("test {}", i + 1),
        };
        let test = self::test(t, base, visibility, submission, &place)?;
        if !names.insert(test.name.clone()) {
            let message = format!(
                "the name \"{}\" is taken by an earlier test (give each a name)",
                test.name
            );
            return Err(invalid(&format!("test {}", i + 1), message));
        }
        tests.push(test);
    }
    Ok(tests)
}

/// One test, at `place`: the fields that apply to its kind, in their
/// ranges, with the kind's defaults.
fn test(
    t: &RawTest,
    base: &Path,
    visibility: Visibility,
    submission: SubmissionKind,
    place: &str,
) -> Result<Test, ConfigError> {
    let kind = t.kind;
    fields_apply(t, place)?;
    let games = matches!(kind, TestKind::Wins | TestKind::Openings);
    let opponent = match (&t.opponent, games) {
        (Some(o), true) => {
            Some(Opponent::parse(o, base).map_err(|e| invalid(place, e.to_string()))?)
        }
        (None, true) if kind == TestKind::Wins => Some(Opponent::Agent("random".into())),
        (None, true) => return Err(invalid(place, "opponent is missing")),
        _ => None,
    };
    let default_games = if kind == TestKind::Wins { 100 } else { 20 };
    let count = |field, value, default, most| count(field, value, default, most, place);
    let games = count("games", t.games, default_games, 100_000)?;
    let plies = count("plies", t.plies, 2, 12)?;
    let positions = count("positions", t.positions, 10, 1000)?;
    let tactics = t.tactics.clone().unwrap_or_else(|| Tactic::ALL.to_vec());
    if tactics.is_empty() {
        let message = "tactics = []: name at least one of win, block, convert, avoid";
        return Err(invalid(place, message));
    }
    let points = t.points.unwrap_or(10.0);
    if !(points.is_finite() && points >= 0.0) {
        return Err(invalid(
            place,
            format!("points = {points}: expected 0 or more"),
        ));
    }
    let (default_rate, default_scoring) = match kind {
        TestKind::Wins => (0.95, Scoring::Threshold),
        TestKind::Openings => (0.5, Scoring::Proportional),
        TestKind::Tactics | TestKind::Compliance => (1.0, Scoring::Proportional),
        TestKind::Discipline => (1.0, Scoring::Threshold),
    };
    let pass_rate = t.pass_rate.unwrap_or(default_rate);
    if !(0.0..=1.0).contains(&pass_rate) {
        return Err(invalid(
            place,
            format!("pass_rate = {pass_rate}: expected 0 to 1"),
        ));
    }
    let side = t.side.unwrap_or(Side::First);
    let name = t
        .name
        .clone()
        .unwrap_or_else(|| default_name(kind, side, opponent.as_ref(), submission));
    Ok(Test {
        kind,
        name,
        points,
        visibility: t.visibility.unwrap_or(visibility),
        opponent,
        games,
        side,
        plies,
        positions,
        tactics,
        pass_rate,
        scoring: t.scoring.unwrap_or(default_scoring),
        seed: t.seed,
    })
}

/// Refuses the fields a test (at `place`) of its kind has no use for.
fn fields_apply(t: &RawTest, place: &str) -> Result<(), ConfigError> {
    let kind = t.kind;
    let games = matches!(kind, TestKind::Wins | TestKind::Openings);
    let fields = [
        ("opponent", t.opponent.is_some() && !games),
        ("games", t.games.is_some() && !games),
        ("side", t.side.is_some() && kind != TestKind::Wins),
        ("plies", t.plies.is_some() && kind != TestKind::Openings),
        (
            "positions",
            t.positions.is_some() && kind != TestKind::Tactics,
        ),
        ("tactics", t.tactics.is_some() && kind != TestKind::Tactics),
    ];
    match fields.iter().find(|(_, wrong)| *wrong) {
        Some((field, _)) => Err(invalid(
            place,
            format!(
                "{field} does not apply to a {} test",
                format!("{kind:?}").to_lowercase()
            ),
        )),
        None => Ok(()),
    }
}

/// A count field of the test at `place`: `value` or `default`, from 1 to
/// `most`.
fn count(
    field: &str,
    value: Option<u32>,
    default: u32,
    most: u32,
    place: &str,
) -> Result<u32, ConfigError> {
    let v = value.unwrap_or(default);
    if (1..=most).contains(&v) {
        Ok(v)
    } else {
        Err(invalid(
            place,
            format!("{field} = {v}: expected 1 to {most}"),
        ))
    }
}

/// The name of a test that gives none, in the words of its submission.
fn default_name(
    kind: TestKind,
    side: Side,
    opponent: Option<&Opponent>,
    submission: SubmissionKind,
) -> String {
    let against = opponent.map(Opponent::label).unwrap_or_default();
    let engine = submission == SubmissionKind::Engine;
    match kind {
        TestKind::Wins => match side {
            Side::First => format!("Wins as first player against {against}"),
            Side::Second => format!("Wins as second player against {against}"),
            Side::Both => format!("Wins against {against}"),
        },
        TestKind::Openings => format!("Openings held against {against}"),
        TestKind::Tactics => "Tactics from solved positions".into(),
        TestKind::Compliance if engine => "Protocol compliance".into(),
        TestKind::Compliance => "Your code's checks".into(),
        TestKind::Discipline if engine => "Time and protocol discipline in every game".into(),
        TestKind::Discipline => "No lost game by error or time".into(),
    }
}

/// Every `[[leaderboard]]` column names a test of `tests` that has its
/// value (all but `score`, which takes none).
pub(super) fn leaderboard(entries: &[LeaderboardEntry], tests: &[Test]) -> Result<(), ConfigError> {
    for (i, entry) in entries.iter().enumerate() {
        let place = format!("leaderboard column {} (\"{}\")", i + 1, entry.name);
        let name = match (&entry.test, entry.value) {
            (None, Metric::Score) => continue,
            (Some(_), Metric::Score) => {
                return Err(invalid(&place, "value = \"score\" takes no test"));
            }
            (None, _) => return Err(invalid(&place, "test is missing (the test's name)")),
            (Some(name), _) => name,
        };
        let Some(test) = tests.iter().find(|t| &t.name == name) else {
            let names: Vec<String> = tests.iter().map(|t| format!("\"{}\"", t.name)).collect();
            let message = format!(
                "test = \"{name}\": no test has that name (tests: {})",
                names.join(", ")
            );
            return Err(invalid(&place, message));
        };
        let games = matches!(test.kind, TestKind::Wins | TestKind::Openings);
        let fits = match entry.value {
            Metric::Held => test.kind != TestKind::Discipline,
            Metric::Wins | Metric::Points | Metric::Elo => games,
            Metric::Score => true,
        };
        if !fits {
            let message = format!("a {:?} test has no {:?} value", test.kind, entry.value);
            return Err(invalid(&place, message.to_lowercase()));
        }
    }
    Ok(())
}
