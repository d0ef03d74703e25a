//! Python policies: graded with their tracebacks and time forfeits, a
//! carried numpy wheel installed without the network, and two gradings at
//! once that never kill each other's student.

use super::*;

/// A course policy that plays the leftmost legal column.
const WEAK_POLICY: &str = "from connect4.policy import Policy


class Leftmost(Policy):
    def mount(self):
        pass

    def act(self, s):
        return [c for c in range(7) if s[0][c] == 0][0]
";

/// A course policy that fails at its first move.
const CRASHING_POLICY: &str = "from connect4.policy import Policy


class Crashing(Policy):
    def mount(self):
        pass

    def act(self, s):
        return helper(s)


def helper(s):
    return 1 // 0
";

/// A course policy that thinks too long.
const SLOW_POLICY: &str = "import time

from connect4.policy import Policy


class Slow(Policy):
    def mount(self):
        pass

    def act(self, s):
        time.sleep(1.5)
        return 3
";

const POLICY_CONFIG: &str = include_str!("../../fixtures/policy.toml");

#[test]
fn clock_policies_are_graded_with_their_tracebacks_and_time_forfeits_shown() {
    let Some(_turn) = isolated() else {
        return;
    };
    let root = FakeRoot::new("policy");
    let course = concat!(env!("CARGO_MANIFEST_DIR"), "/../python/tests/course");
    // The zip as built with the defaults, unchanged.
    root.install(&["--kind", "policy", "--include", course]);
    let (weak, _) = root.grade(&[text("policy.py", WEAK_POLICY)]);
    assert_eq!(weak.tests.len(), 7, "{weak:?}");
    assert!(weak.score > 0.0 && weak.score < 100.0, "{weak:?}");
    assert!(
        weak.tests[6]
            .output
            .starts_with("no game lost by an error or the clock"),
        "{:?}",
        weak.tests[6]
    );
    // A Python student reads no protocol words.
    let all = serde_json::to_string(&weak).unwrap().to_lowercase();
    for word in ["hello", "bestmove", "forfeit", "protocol", "stall"] {
        assert!(!all.contains(word), "'{word}' in {all}");
    }

    // The instructor's own config, uploaded again.
    let config = root.dir.join("grader.toml");
    std::fs::write(&config, POLICY_CONFIG).unwrap();
    let refs = root.dir.join("refs");
    std::fs::create_dir_all(&refs).unwrap();
    std::fs::write(refs.join("leftmost.py"), WEAK_POLICY).unwrap();
    let refs = refs.to_str().unwrap();
    root.install(&[
        "--config",
        config.to_str().unwrap(),
        "--include",
        course,
        "--include",
        refs,
    ]);
    // The instructor's own policy as the opponent, run by the reference
    // user with the course package on its path.
    let (weak_again, _) = root.grade(&[text("policy.py", WEAK_POLICY)]);
    let against = &weak_again.tests[1];
    assert!(
        against.output.starts_with("held ") && !against.output.contains("lost by an error"),
        "{against:?}"
    );
    let (crashing, _) = root.grade(&[text("policy.py", CRASHING_POLICY)]);
    assert_eq!(crashing.score, 0.0);
    let output = &crashing.tests[0].output;
    assert!(
        output.contains("ZeroDivisionError") && output.contains("helper"),
        "the traceback shows: {output}"
    );
    let (slow, _) = root.grade(&[text("policy.py", SLOW_POLICY)]);
    assert_eq!(slow.score, 0.0);
    assert!(slow.tests[1].output.contains("time"), "{:?}", slow.tests[1]);
    let (missing, _) = root.grade(&[text("agent.py", WEAK_POLICY)]);
    assert!(
        missing.tests[0].output.contains("no 'policy.py'")
            && missing.tests[0].output.contains("agent.py"),
        "{:?}",
        missing.tests[0]
    );
}

/// Issue #43, item 9: numpy carried in the zip (`--wheels`) installs with
/// no package index at all (setup.sh fetched it each time: 128 s under
/// load), and the policy is graded.
#[test]
fn a_carried_numpy_wheel_installs_without_the_network() {
    let Some(_turn) = isolated() else {
        return;
    };
    let root = FakeRoot::new("wheels");
    let wheels = root.dir.join("wheels");
    let fetched = Command::new("python3")
        .args([
            "-m",
            "pip",
            "download",
            "--quiet",
            "--only-binary=:all:",
            "numpy",
            "-d",
        ])
        .arg(&wheels)
        .status()
        .is_ok_and(|s| s.success());
    if !fetched {
        eprintln!("skipped: pip cannot download numpy's wheel here");
        return;
    }
    let course = concat!(env!("CARGO_MANIFEST_DIR"), "/../python/tests/course");
    root.install_with(
        &[
            "--kind",
            "policy",
            "--include",
            course,
            "--wheels",
            wheels.to_str().unwrap(),
        ],
        &[("PIP_INDEX_URL", "http://127.0.0.1:9/simple")],
    );
    let (graded, _) = root.grade(&[text("policy.py", WEAK_POLICY)]);
    assert!(graded.score > 0.0, "{graded:?}");
}

/// A random course policy that takes a tenth of a second a move.
const PATIENT_POLICY: &str = "import random
import time
from connect4.policy import Policy


class Patient(Policy):
    def mount(self):
        pass

    def act(self, s):
        time.sleep(0.1)
        return random.choice([c for c in range(7) if s[0][c] == 0])
";

/// One test of a few slow games, so that a grading lasts some seconds.
const PATIENT_CONFIG: &str = include_str!("../../fixtures/patient.toml");

/// Issue #43, item 1: two isolated gradings at once with the same student
/// user. Each grading ends every process of that user when it starts and
/// ends, so the second's start killed the first's student mid-game (a
/// crash with no traceback, charged to the student). Now the second waits
/// for the first, and neither loses a game to the other.
#[test]
fn two_gradings_at_once_never_kill_each_other_s_student() {
    let Some(_turn) = isolated() else {
        return;
    };
    let course = concat!(env!("CARGO_MANIFEST_DIR"), "/../python/tests/course");
    let roots: Vec<FakeRoot> = (0..2)
        .map(|i| {
            let root = FakeRoot::new(&format!("two-at-once-{i}"));
            let config = root.dir.join("grader.toml");
            std::fs::write(&config, PATIENT_CONFIG).unwrap();
            root.install(&["--config", config.to_str().unwrap(), "--include", course]);
            let submission = root.dir.join("submission");
            std::fs::create_dir_all(&submission).unwrap();
            std::fs::write(submission.join("policy.py"), PATIENT_POLICY).unwrap();
            root
        })
        .collect();
    let runs: Vec<_> = roots
        .iter()
        .enumerate()
        .map(|(i, root)| {
            let dir = root.dir.clone();
            std::thread::spawn(move || {
                // The second starts while the first plays its games.
                std::thread::sleep(Duration::from_millis(2500 * i as u64));
                let out = Command::new(dir.join("source/run_autograder"))
                    .env("AUTOGRADER_ROOT", &dir)
                    .output()
                    .unwrap();
                let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
                assert!(out.status.success(), "{stderr}");
                let text = std::fs::read_to_string(dir.join("results/results.json")).unwrap();
                let results: GradescopeResults = serde_json::from_str(&text).unwrap();
                (results, stderr)
            })
        })
        .collect();
    let graded: Vec<(GradescopeResults, String)> =
        runs.into_iter().map(|r| r.join().unwrap()).collect();
    for (i, (results, stderr)) in graded.iter().enumerate() {
        let output = &results.tests[0].output;
        assert!(
            !output.contains("lost by") && !output.contains("raised an exception"),
            "grading {i}: {output}\n{stderr}"
        );
    }
    assert!(
        graded[1].1.contains("waiting for another grading"),
        "{}",
        graded[1].1
    );
    assert!(processes_of("c4student").is_empty());
}
