//! `grade --feedback results.json`: a grading's feedback in the terminal,
//! as the student reads it on Gradescope: the total, then each test with
//! its score and everything it says (where the value was lost, the
//! boards, the tracebacks), not only its first line.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::report::GradescopeResults;

/// Prints the feedback of the results file at `path`.
pub fn print(path: &Path) -> Result<ExitCode> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let results: GradescopeResults = serde_json::from_str(&text).with_context(|| {
        format!(
            "{}: not a grading's results.json (as grade --results writes it)",
            path.display()
        )
    })?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match write(&mut out, &results) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        other => other
            .map(|()| ExitCode::SUCCESS)
            .context("writing the feedback"),
    }
}

/// The feedback of `results`, as text.
fn write(out: &mut impl Write, results: &GradescopeResults) -> std::io::Result<()> {
    let max: f64 = results.tests.iter().map(|t| t.max_score).sum();
    writeln!(out, "total {:.2} / {max}", results.score)?;
    if !results.output.trim().is_empty() {
        writeln!(out, "\n{}", results.output.trim_end())?;
    }
    for t in &results.tests {
        writeln!(
            out,
            "\n== {} ({:.2} / {}, {})",
            t.name, t.score, t.max_score, t.status
        )?;
        for line in t.output.trim_end().lines() {
            writeln!(out, "  {line}")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::TestResult;

    #[test]
    fn every_line_of_every_test_is_shown() {
        let results = GradescopeResults {
            score: 12.5,
            output: "Graded in 3 s.".into(),
            output_format: None,
            test_output_format: None,
            execution_time: None,
            stdout_visibility: None,
            tests: vec![TestResult {
                name: "Tactics".into(),
                score: 12.5,
                max_score: 15.0,
                status: "failed".into(),
                output: "missed one:\n```\n. X .\n```\nTraceback (most recent call last):".into(),
                visibility: None,
            }],
            leaderboard: Vec::new(),
        };
        let mut out = Vec::new();
        write(&mut out, &results).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("total 12.50 / 15\n"), "{text}");
        assert!(text.contains("== Tactics (12.50 / 15, failed)"), "{text}");
        assert!(text.contains("  . X .\n"), "{text}");
        assert!(text.contains("  Traceback"), "{text}");
    }
}
