//! Gradescope's `results.json`: the tests with their scores, visibility and
//! outputs (as markdown), the total, the leaderboard, written whole at the
//! very end so that Gradescope never reads half a file.

use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::config::{Metric, Order, Scoring, Test, Visibility};

/// One Gradescope test.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TestResult {
    /// What was tested.
    pub name: String,
    /// Points earned.
    pub score: f64,
    /// Points possible.
    pub max_score: f64,
    /// `passed` or `failed`.
    pub status: String,
    /// What happened, for the student.
    pub output: String,
    /// Who sees the test.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility: Option<Visibility>,
}

/// One leaderboard value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LeaderboardValue {
    /// The column.
    pub name: String,
    /// The value.
    pub value: f64,
    /// Sort order (`asc` or `desc`).
    pub order: Order,
}

/// Gradescope's results file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GradescopeResults {
    /// The total: the sum of the tests' scores.
    pub score: f64,
    /// A summary.
    pub output: String,
    /// How Gradescope renders `output` (`md`: markdown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_format: Option<String>,
    /// How Gradescope renders each test's output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_output_format: Option<String>,
    /// Seconds the grading took.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution_time: Option<f64>,
    /// Who sees the grader's own log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdout_visibility: Option<Visibility>,
    /// Each test.
    pub tests: Vec<TestResult>,
    /// The leaderboard's values.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub leaderboard: Vec<LeaderboardValue>,
}

/// What a test measured: the share its score is made from and, for tests
/// of games, the share of wins and of points.
#[derive(Clone, Debug)]
pub struct TestOutcome {
    /// The test's result as Gradescope shows it.
    pub result: TestResult,
    /// The share held, won or passed (0 to 1).
    pub share: f64,
    /// Games: the share won.
    pub wins: Option<f64>,
    /// Games: the share of the points (a draw is half).
    pub points: Option<f64>,
}

impl TestOutcome {
    /// Scores `share` as `test` says; `output` explains it to the student.
    pub fn new(test: &Test, share: f64, output: String) -> TestOutcome {
        let share = share.clamp(0.0, 1.0);
        let passed = share + 1e-9 >= test.pass_rate;
        let fraction = match test.scoring {
            Scoring::Proportional => share,
            Scoring::Threshold => f64::from(u8::from(passed)),
        };
        TestOutcome {
            result: TestResult {
                name: test.name.clone(),
                score: (test.points * fraction * 100.0).round() / 100.0,
                max_score: test.points,
                status: if passed { "passed" } else { "failed" }.into(),
                output,
                visibility: Some(test.visibility),
            },
            share,
            wins: None,
            points: None,
        }
    }

    /// The same, failed with no points: `why` says what kept the test from
    /// running (a build that failed, say).
    pub fn not_run(test: &Test, why: &str) -> TestOutcome {
        let mut o = TestOutcome::new(test, 0.0, why.to_string());
        o.result.score = 0.0;
        o.result.status = "failed".into();
        o
    }
}

/// The value of a leaderboard column from the outcomes (`None` if the
/// column's test did not run).
pub fn leaderboard_value(
    metric: Metric,
    test: Option<&str>,
    outcomes: &[TestOutcome],
    total: f64,
) -> Option<f64> {
    if metric == Metric::Score {
        return Some(total);
    }
    let o = outcomes
        .iter()
        .find(|o| Some(o.result.name.as_str()) == test)?;
    let percent = |x: f64| (x * 1000.0).round() / 10.0;
    match metric {
        Metric::Score => Some(total),
        Metric::Held => Some(percent(o.share)),
        Metric::Wins => o.wins.map(percent),
        Metric::Points => o.points.map(percent),
        Metric::Elo => o.points.map(|p| {
            let p = p.clamp(0.01, 0.99);
            (-400.0 * (1.0 / p - 1.0).log10())
                .clamp(-800.0, 800.0)
                .round()
        }),
    }
}

/// `content` (a position, a submission's output) as a fenced block for
/// [`markdown`]: the fence is longer than any run of backticks in it, so
/// no line of it can close the block, whatever its indentation (CommonMark
/// closes a fence only with one at least as long).
pub fn code_block(content: &str) -> String {
    let longest = content.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}\n{}\n{fence}", content.trim_end_matches('\n'))
}

/// The fence that opens a block of [`code_block`] at line `i` of `lines`:
/// a line of backticks alone, the same line further down, and no run of
/// as many backticks between them (which [`code_block`] guarantees, and
/// without which CommonMark would close the block early: text that looks
/// like a block but breaks this was not made by the grader).
fn fence_at<'a>(lines: &[&'a str], i: usize) -> Option<&'a str> {
    let line = lines[i];
    let is_fence = line.len() >= 3 && line.bytes().all(|b| b == b'`');
    if !is_fence {
        return None;
    }
    let close = i + 1 + lines[i + 1..].iter().position(|l| *l == line)?;
    let longest = |l: &str| l.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let sealed = lines[i + 1..close].iter().all(|l| longest(l) < line.len());
    sealed.then_some(line)
}

/// `text` (a file's name, a message a program sent) on one line: line
/// breaks and other control characters shown as escapes, so that it
/// cannot start a line of its own in a message (a fence, a heading).
pub fn one_line(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let shown: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            shown
        })
        .collect()
}

/// A test's text as markdown: its first line a paragraph, each further line
/// an item of a list, blocks made by [`code_block`] (positions, output)
/// kept as they are, and everything else escaped so that it renders as
/// the text it is: no heading, link, HTML or fence a submission prints
/// takes effect (a traceback's `__init__` stays as it is).
pub fn markdown(text: &str) -> String {
    // Punctuation markdown reads as formatting anywhere, and at the start
    // of a line as a list or a heading.
    let escape = |line: &str| {
        let mut out = String::new();
        for (k, ch) in line.chars().enumerate() {
            if "\\`*_[]<>#|~".contains(ch) || (k == 0 && "-+=".contains(ch)) {
                out.push('\\');
            }
            out.push(ch);
        }
        out
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::new();
    let mut open: Option<&str> = None;
    for (i, line) in lines.iter().enumerate() {
        match open {
            Some(fence) => {
                out.push_str(line);
                if *line == fence {
                    open = None;
                }
            }
            None if fence_at(&lines, i).is_some() => {
                open = fence_at(&lines, i);
                out.push_str(line);
            }
            None if i == 0 => {
                out.push_str(&escape(line.trim_start()));
                out.push('\n');
            }
            None => {
                out.push_str("- ");
                out.push_str(&escape(line.trim_start()));
            }
        }
        out.push('\n');
    }
    out.trim_end().to_string()
}

/// Writes `results` to `path` whole (a temporary file renamed into place).
pub fn write(results: &GradescopeResults, path: &Path) -> Result<()> {
    let text = serde_json::to_string_pretty(results).expect("results serialise") + "\n";
    connect4::atomic_file::write(path, text).with_context(|| format!("writing {}", path.display()))
}

/// Results that give no points and say why: what Gradescope shows when the
/// grader could not finish.
pub fn failed(message: &str) -> GradescopeResults {
    GradescopeResults {
        score: 0.0,
        output: markdown(message),
        output_format: Some("md".into()),
        test_output_format: None,
        execution_time: None,
        stdout_visibility: None,
        tests: Vec::new(),
        leaderboard: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_become_markdown_with_positions_kept_and_formatting_escaped() {
        let text = format!(
            "won 0 of 2 games\nFile \"__init__.py\", line *7*\nblock after 44: played 3, in this position (X to move):\n{}",
            code_block("X . .\n1 2 3\n")
        );
        assert_eq!(
            markdown(&text),
            "won 0 of 2 games\n\n- File \"\\_\\_init\\_\\_.py\", line \\*7\\*\n- block after 44: played 3, in this position (X to move):\n```\nX . .\n1 2 3\n```"
        );
    }

    /// Nothing a submission prints renders as markup: not inside a block
    /// (a fence indented by up to three spaces, or a longer one, would
    /// close it) and not outside one (headings, links, HTML, fences).
    #[test]
    fn a_submission_cannot_close_a_block_or_render_markup() {
        let hostile = "built\n   ```\n## Graded: 100.00 of 100 points\n[link](http://x)\n<img src=x>\n````\n```";
        let text = format!(
            "the build failed; its last lines:\n{}\n{hostile}",
            code_block(hostile)
        );
        let md = markdown(&text);
        let lines: Vec<&str> = md.lines().collect();
        // The block opens with a fence longer than any run inside it and
        // closes only at its own fence.
        let fence = lines[2];
        assert_eq!(fence, "`````", "{md}");
        let close = lines.iter().rposition(|l| *l == fence).unwrap();
        assert_eq!(lines[3..close].join("\n"), hostile);
        // Every line after the block is an escaped list item.
        for line in &lines[close + 1..] {
            assert!(line.starts_with("- "), "{line:?} in\n{md}");
            let chars: Vec<char> = line.chars().collect();
            for (k, c) in chars.iter().enumerate().skip(2) {
                if "[]<>#`".contains(*c) {
                    assert_eq!(chars[k - 1], '\\', "{c} unescaped in {line:?}");
                }
            }
        }
        assert!(md.contains("- \\#\\# Graded"), "{md}");
        assert!(md.contains("- \\`\\`\\`"), "{md}");
    }

    /// A submission's file name holding a longer fence than its own
    /// opening one: CommonMark would close the block there and render
    /// what follows, so it is no grader's block and is escaped.
    #[test]
    fn a_fence_the_grader_did_not_make_is_escaped() {
        let name =
            "a\n```\n````\n## Graded: 100.00 of 100 points\n<img src=x onerror=alert(1)>\n```";
        let md = markdown(&format!(
            "no policy.py in the submission; its files: {name}"
        ));
        assert!(!md.lines().any(|l| l.starts_with('#')), "{md}");
        assert!(md.contains("\\<img"), "{md}");
        assert!(!md.contains(" <img"), "{md}");
        assert!(!md.lines().any(|l| l.starts_with("```")), "{md}");
        // On one line, the name cannot even start a line.
        assert_eq!(one_line("a\n```\tb"), "a\\n```\\tb");
    }

    #[test]
    fn elo_follows_the_share_of_points_and_stays_finite() {
        let outcome = |points: f64| {
            let test = super::super::config::Config::defaults(
                super::super::config::SubmissionKind::Engine,
            )
            .tests[2]
                .clone();
            let mut o = TestOutcome::new(&test, points, String::new());
            o.points = Some(points);
            o
        };
        let elo = |p: f64| {
            let name = "Openings held against greedy";
            leaderboard_value(Metric::Elo, Some(name), &[outcome(p)], 0.0).unwrap()
        };
        assert_eq!(elo(0.5), 0.0);
        assert_eq!(elo(0.76), 200.0);
        assert_eq!(elo(1.0), 798.0);
        assert_eq!(elo(0.0), -798.0);
    }
}
