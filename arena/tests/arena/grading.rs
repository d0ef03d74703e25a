//! Grading an engine without the Gradescope sandbox: the results for a good
//! and a bad engine, a reference that dies or does not start, a grader cut
//! short, and the protocol compliance checks.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use connect4_grade::GradescopeResults;
use connect4_match::ending::Reason;
use predicates::prelude::*;

use crate::common;
use common::*;

/// Grades `engine` with `settings`, writing and reading back `results`;
/// the run must succeed and print its total.
fn grade_with(results: &Path, engine: &str, settings: &[&str]) -> GradescopeResults {
    arena()
        .args(["grade", "--engine", engine])
        .args(["--time-margin", UNHURRIED_MARGIN_MS])
        .args(settings)
        .arg("--results")
        .arg(results)
        .assert()
        .success()
        .stdout(predicate::str::contains("total"));
    serde_json::from_str(&std::fs::read_to_string(results).unwrap()).unwrap()
}

#[test]
fn grade_writes_gradescope_results_for_a_good_and_a_bad_engine() {
    let dir = scratch("grade");
    let settings = ["--games", "4", "--match-games", "2", "--tactics", "2"];
    let grade = |engine: &str, file: &str| grade_with(&dir.join(file), engine, &settings);
    let check = |r: &GradescopeResults| {
        assert_eq!(r.tests.len(), 7);
        let mut sum = 0.0;
        for t in &r.tests {
            assert!(!t.name.is_empty() && !t.output.is_empty());
            assert!((0.0..=t.max_score).contains(&t.score), "{t:?}");
            sum += t.score;
        }
        assert!((r.score - sum).abs() < 0.011);
    };
    // Time enough to solve every position it meets (it answers as soon as
    // it has): a loaded machine must not make it miss a held opening.
    let good = grade("name=solver,cmd=self,movetime=2000", "good.json");
    check(&good);
    assert_eq!(good.tests[0].status, "passed");
    // Fair by construction: the engine holds every labelled opening, so it
    // gets the full marks whatever the openings' values.
    for t in &good.tests[2..4] {
        assert!(t.output.starts_with("held 2 of 2"), "{t:?}");
        assert_eq!(t.score, 15.0, "{t:?}");
    }
    assert_eq!(good.tests[5].score, 10.0, "compliance: {:?}", good.tests[5]);
    let bad = grade(&fake("illegal"), "bad.json");
    check(&bad);
    assert_eq!(bad.tests[0].score, 0.0);
    assert!(
        bad.tests[0]
            .output
            .contains("lost by forfeit; the first (the others are listed in the test of every game): game 1 against random"),
        "a failed test says why: {:?}",
        bad.tests[0]
    );
    assert_eq!(bad.output_format.as_deref(), Some("md"));
    assert!(
        bad.tests[4].output.contains("(you are X):\n```\n"),
        "a missed tactic shows its position: {:?}",
        bad.tests[4]
    );
    for t in &bad.tests[2..4] {
        assert_eq!(
            t.score, 0.0,
            "a forfeit holds no opening, lost or not: {t:?}"
        );
    }
    assert_eq!(bad.tests[6].score, 0.0, "it forfeits: {:?}", bad.tests[6]);
    assert!(
        bad.tests[6].output.contains("against"),
        "forfeits name the opponent: {:?}",
        bad.tests[6]
    );
    assert!(bad.score < good.score);
}

#[test]
fn killing_the_reference_engine_voids_games_and_never_raises_the_grade() {
    let dir = scratch("grade-hostile");
    let settings = [
        "--games",
        "2",
        "--match-games",
        "2",
        "--tactics",
        "1",
        "--concurrency",
        "1",
    ];
    let grade = |engine: &str, file: &str| grade_with(&dir.join(file), engine, &settings);
    let honest = grade(&fake("good"), "honest.json");
    let hostile = grade(&fake("kill-opponent=KILL"), "hostile.json");
    assert!(
        hostile.score <= honest.score,
        "killing the opponent paid: {} against {}",
        hostile.score,
        honest.score
    );
    // Against random, every game's reference was killed: none counts as won.
    assert_eq!(hostile.tests[0].score, 0.0, "{:?}", hostile.tests[0]);
    assert!(
        hostile.tests[0].output.contains("voided and replayed"),
        "{:?}",
        hostile.tests[0]
    );
    assert!(
        hostile.tests[2].output.contains("held 0 of 2"),
        "{:?}",
        hostile.tests[2]
    );
}

#[test]
fn a_grader_that_cannot_finish_still_leaves_valid_results() {
    let dir = scratch("grade-fails");
    let path = dir.join("results.json");
    arena()
        .args([
            "grade",
            "--engine",
            "cmd=self",
            "--pass-rate",
            "2",
            "--results",
        ])
        .arg(&path)
        .assert()
        .failure()
        .stderr(predicate::str::contains("--pass-rate 2: expected 0 to 1"));
    let r: GradescopeResults =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).expect("valid results");
    assert_eq!(r.score, 0.0);
    assert!(r.tests.is_empty());
    assert!(
        r.output.contains("could not finish: --pass-rate 2"),
        "{}",
        r.output
    );
}

#[test]
fn a_reference_that_does_not_start_is_the_instructor_s_error_said_at_once() {
    let dir = scratch("grade-no-reference");
    let config = dir.join("grader.toml");
    std::fs::write(
        &config,
        "[[test]]\nkind = \"openings\"\nname = \"Mine\"\nopponent = \"engine:bin/missing\"\ngames = 2\n",
    )
    .unwrap();
    let results = dir.join("results.json");
    let started = Instant::now();
    arena()
        .args(["grade", "--engine", "cmd=self", "--config"])
        .arg(&config)
        .arg("--results")
        .arg(&results)
        .assert()
        .failure()
        .stderr(predicate::str::contains("the opponent of test \"Mine\""))
        .stderr(predicate::str::contains("bin/missing"));
    assert!(started.elapsed() < Duration::from_secs(30));
    let r: GradescopeResults =
        serde_json::from_str(&std::fs::read_to_string(&results).unwrap()).unwrap();
    assert_eq!(r.score, 0.0);
    assert!(r.output.contains("does not start"), "{}", r.output);
}

#[test]
fn compliance_reports_each_check() {
    arena()
        .args(["compliance", "--engine", "cmd=self"])
        .args(["--time-margin", UNHURRIED_MARGIN_MS])
        .assert()
        .success()
        .stdout(predicate::str::contains("9 of 9 checks passed"));
    arena()
        .args(["compliance", "--engine", &fake("illegal")])
        .assert()
        .failure()
        .stdout(predicate::str::contains("FAIL go movetime 100"))
        .stdout(predicate::str::contains("illegal bestmove"))
        .stdout(predicate::str::contains("pass ping: pong"));
}

/// The minimal Python engine of protocol/README.md, written to `dir`.
fn minimal_engine(dir: &Path) -> PathBuf {
    let readme = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../protocol/README.md"),
    )
    .unwrap();
    let block = readme
        .split("<!-- minimal-engine:start -->")
        .nth(1)
        .and_then(|rest| rest.split("<!-- minimal-engine:end -->").next())
        .expect("the README holds the minimal engine");
    let code = block
        .split("```python\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("a python block");
    let path = dir.join("minimal_engine.py");
    std::fs::write(&path, code).unwrap();
    path
}

#[test]
fn the_minimal_engine_of_the_protocol_readme_plays_and_passes_compliance() {
    let dir = scratch("minimal");
    let engine = minimal_engine(&dir);
    let spec = format!("name=minimal,cmd=python3,arg={},depth=1", engine.display());
    let log = dir.join("games.jsonl");
    arena()
        .args(["match", "--engine", &spec, "--engine"])
        .arg("name=ab2,cmd=self,option.agent='alphabeta:depth=2'")
        .args(["--time-margin", UNHURRIED_MARGIN_MS])
        .args(["--games", "4", "--concurrency", "2", "--log"])
        .arg(&log)
        .assert()
        .success()
        .stdout(predicate::str::contains("(4 games)"));
    let games = read_log(&log);
    assert_eq!(games.len(), 4);
    for g in &games {
        assert!(
            matches!(g.reason, Reason::Line | Reason::FullBoard),
            "no forfeit for a minimal engine: {g:?}"
        );
    }
    arena()
        .args(["compliance", "--engine", &spec])
        .args(["--time-margin", UNHURRIED_MARGIN_MS])
        .assert()
        .success()
        .stdout(predicate::str::contains("9 of 9 checks passed"))
        .stdout(predicate::str::contains(
            "advice: bestmove could also send 'score' (optional)",
        ));
}

#[test]
fn a_grading_logs_its_games_and_never_replaces_another_run_s_log() {
    let dir = scratch("grade-log");
    let log = dir.join("graded.jsonl");
    let grade = |log: &Path| grading_with_log(&dir, log);
    grade(&log).assert().success();
    let games = read_log(&log);
    let numbers: Vec<u64> = games.iter().map(|g| g.game).collect();
    assert_eq!(numbers, (1..=games.len() as u64).collect::<Vec<_>>());
    let mut per_test = std::collections::BTreeMap::new();
    for g in &games {
        assert!(g.first == "student" || g.second == "student", "{g:?}");
        assert_eq!(g.run, "grade");
        *per_test.entry(g.test.clone().unwrap()).or_insert(0) += 1;
    }
    // Two games in each of the two `wins` tests and of the two `openings`
    // tests (one colour-swapped pair).
    assert_eq!(per_test.len(), 4, "{per_test:?}");
    assert!(per_test.values().all(|&n| n == 2), "{per_test:?}");
    assert_eq!(per_test["Wins as first player against random"], 2);
    // The next grading replaces the log, not adds to it.
    grade(&log).assert().success();
    assert_eq!(read_log(&log).len(), games.len());
    // A match's log is never replaced.
    let match_log = dir.join("match.jsonl");
    arena()
        .args(["match", "--engine", "name=a,cmd=self,option.agent=greedy"])
        .args([
            "--engine",
            "name=b,cmd=self,option.agent=greedy",
            "--games",
            "2",
        ])
        .arg("--log")
        .arg(&match_log)
        .assert()
        .success();
    let before = std::fs::read(&match_log).unwrap();
    grade(&match_log)
        .assert()
        .failure()
        .stderr(predicate::str::contains("holds the games of another run"));
    assert_eq!(std::fs::read(&match_log).unwrap(), before);
}

/// A submission whose only file's name holds line breaks, a longer fence
/// than its opening one, a heading and an image tag: the refusal names the
/// file, and nothing of the name renders as markup in results.json.
#[test]
fn a_hostile_file_name_renders_as_text() {
    let dir = scratch("hostile-name");
    let submission = dir.join("submission");
    std::fs::create_dir_all(&submission).unwrap();
    let name = "x\n```\n````\n## Graded: 100.00 of 100 points\n<img src=x onerror=alert(1)>\n```";
    std::fs::write(submission.join(name), "").unwrap();
    let results = dir.join("results.json");
    arena()
        .args(["grade", "--kind", "policy", "--submission"])
        .arg(&submission)
        .arg("--results")
        .arg(&results)
        .assert()
        .success();
    let text = std::fs::read_to_string(&results).unwrap();
    let parsed: GradescopeResults = serde_json::from_str(&text).unwrap();
    let mut outputs = vec![parsed.output.clone()];
    outputs.extend(parsed.tests.iter().map(|t| t.output.clone()));
    assert!(outputs.iter().any(|o| o.contains("has no")), "{text}");
    for output in outputs {
        assert!(
            !output.lines().any(|l| l.trim_start().starts_with('#')),
            "{output}"
        );
        assert!(
            !output.lines().any(|l| l.trim_start().starts_with("```")),
            "{output}"
        );
        assert!(
            !output.contains(" <img") && !output.contains("\n<img"),
            "{output}"
        );
    }
    assert_eq!(parsed.score, 0.0);
}

/// The kit's visible tests score exactly what Gradescope's visible tests
/// score, though a hidden test comes first in the instructor's config; the
/// kit carries neither the grading's seed nor a path of the instructor's
/// machine (an opponent's weights file is copied into the kit).
#[test]
fn the_kit_s_visible_tests_score_what_gradescope_s_score() {
    let dir = scratch("kit-visible");
    let instructor = dir.join("instructor");
    std::fs::create_dir_all(&instructor).unwrap();
    let weights = instructor.join("tuned.json");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/experiments/D-tuned.json"),
        &weights,
    )
    .unwrap();
    let opponent = format!(
        "alphabeta:depth=2,eval=features,weights={}",
        weights.display()
    );
    let config = instructor.join("grader.toml");
    let test = |kind: &str, name: &str, visibility: &str, extra: &str| {
        format!(
            "[[test]]\nkind = \"{kind}\"\nname = \"{name}\"\nvisibility = \"{visibility}\"\n{extra}\n"
        )
    };
    let openings = format!("opponent = \"{opponent}\"\ngames = 2\nplies = 4");
    let text = [
        "[submission]\nkind = \"engine\"\n[grading]\nseed = 7\n".to_string(),
        test("tactics", "Hidden tactics", "hidden", "positions = 2"),
        test("openings", "Hidden openings", "hidden", &openings),
        test("tactics", "Tactics", "visible", "positions = 2"),
        test("openings", "Openings", "visible", &openings),
    ]
    .concat();
    std::fs::write(&config, &text).unwrap();
    let kit = dir.join("kit");
    std::fs::create_dir_all(&kit).unwrap();
    // Issue #69, item 7: without a key the visible tests' seeds gave the
    // grading seed back (in 2.2 s) and with it the hidden tests' games.
    let unkeyed = connect4_grade::kit::visible_tests(&config, &kit).unwrap_err();
    assert!(format!("{unkeyed:#}").contains("secret key"), "{unkeyed:#}");
    let key = "5e1f0c3a9b7d2e4f6a8c0b1d3f5e7a9c2b4d6f8e0a1c3e5b7d9f1a3c5e7b9d1f";
    let text = text.replace("seed = 7\n", &format!("seed = 7\nkey = \"{key}\"\n"));
    std::fs::write(&config, text).unwrap();
    let visible = connect4_grade::kit::visible_tests(&config, &kit).unwrap();
    assert!(!visible.contains(key), "{visible}");
    assert!(
        !visible.contains(&instructor.display().to_string()),
        "{visible}"
    );
    assert!(!visible.contains("seed = 7"), "{visible}");
    assert!(!visible.contains("Hidden"), "{visible}");
    assert!(kit.join("opponents/tuned.json").is_file());
    std::fs::write(kit.join("visible-tests.toml"), &visible).unwrap();
    let student = "name=student,cmd=self,option.agent='random:seed=3'";
    let full = grade_with(
        &dir.join("full.json"),
        student,
        &["--config", config.to_str().unwrap()],
    );
    let own = grade_with(
        &dir.join("own.json"),
        student,
        &["--config", kit.join("visible-tests.toml").to_str().unwrap()],
    );
    for name in ["Tactics", "Openings"] {
        let find = |r: &GradescopeResults| {
            r.tests
                .iter()
                .find(|t| t.name == name)
                .unwrap_or_else(|| panic!("{name} missing: {r:?}"))
                .clone()
        };
        let (a, b) = (find(&full), find(&own));
        assert_eq!((a.score, &a.output), (b.score, &b.output), "{name}");
    }
}

/// Issue #43, item 9: a missed conversion says which moves were the
/// student's and which were the defence's, and the first move that let
/// the win slip with the one that would have won.
#[test]
fn a_missed_conversion_names_the_move_that_let_the_win_slip() {
    let dir = scratch("convert-feedback");
    let config = dir.join("grader.toml");
    std::fs::write(
        &config,
        "[submission]\nkind = \"engine\"\n[[test]]\nkind = \"tactics\"\ntactics = [\"convert\"]\npositions = 3\n",
    )
    .unwrap();
    let results = grade_with(
        &dir.join("results.json"),
        "name=student,cmd=self,option.agent='random:seed=5'",
        &["--config", config.to_str().unwrap()],
    );
    let output = &results.tests[0].output;
    assert!(output.contains("(yours: "), "{output}");
    assert!(output.contains("the defence's: "), "{output}");
    assert!(output.contains("let the win slip: column "), "{output}");
}

/// A submission folder whose `engine` is a script running `program` with
/// `args` (the engine kind's default file).
fn engine_submission(dir: &Path, program: &Path, args: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let text = format!("#!/bin/sh\nexec '{}' {args}\n", program.display());
    write_script(&dir.join("engine"), &text);
}

/// Issue #69, item 4: one stuck grading held up the class for ever; now
/// each grading has `--grading-limit` seconds, its row says it was
/// stopped, and nothing it started is left running.
#[test]
fn a_grading_past_its_limit_is_stopped_and_costs_only_its_row() {
    let dir = scratch("grade-limit");
    let subs = dir.join("subs");
    // An engine that never answers: the grading waits for it past 1 s.
    std::fs::create_dir_all(subs.join("sleepy")).unwrap();
    write_script(&subs.join("sleepy/engine"), "#!/bin/sh\nexec sleep 313\n");
    let out = dir.join("grades");
    arena()
        .args(["grade", "--submissions"])
        .arg(&subs)
        .arg("--out")
        .arg(&out)
        .args(["--no-isolation", "--grading-limit", "1"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "sleepy: stopped after 1 s (--grading-limit)",
        ));
    let results = std::fs::read_to_string(out.join("sleepy/results.json")).unwrap();
    assert!(results.contains("stopped after 1 s"), "{results}");
    assert!(results.contains("isolation was off"), "{results}");
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        page.contains("\"warning\":\"isolation was off"),
        "the page says so"
    );
    assert_eq!(processes_with(&["sleep 313"]), Vec::<u32>::new());
}

#[test]
fn a_class_is_graded_in_one_command_and_a_broken_submission_costs_only_its_row() {
    let dir = scratch("grade-class");
    let subs = dir.join("subs");
    engine_submission(&subs.join("alice"), &arena_path(), "engine");
    engine_submission(&subs.join("bob"), &built("examples/fake_engine"), "illegal");
    // A folder name a spreadsheet would take for a formula, a file and a
    // hidden folder, which are no submissions.
    engine_submission(&subs.join("=1+1"), &arena_path(), "engine");
    std::fs::write(subs.join("notes.txt"), "not a submission").unwrap();
    std::fs::create_dir_all(subs.join(".git")).unwrap();
    let out = dir.join("grades");
    let class = |extra: &[&str]| {
        arena()
            .args(["grade", "--submissions"])
            .arg(&subs)
            .arg("--out")
            .arg(&out)
            .args(["--games", "2", "--match-games", "2", "--tactics", "1"])
            .args(["--concurrency", "1", "--jobs", "2", "--no-isolation"])
            .args(["--time-margin", UNHURRIED_MARGIN_MS])
            .args(extra)
            .assert()
            .success()
    };
    class(&[]).stdout(predicate::str::contains("grading 3 of 3 submission(s)"));
    let csv = std::fs::read_to_string(out.join("grades.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 4, "{csv}");
    assert!(
        rows[0].starts_with("student,Wins as first player against random,"),
        "{csv}"
    );
    assert!(rows[1].starts_with("'=1+1,"), "{csv}");
    let total = |row: &str| -> f64 {
        let fields: Vec<&str> = row.split(',').collect();
        fields[fields.len() - 3].parse().unwrap()
    };
    assert!(total(rows[2]) > 80.0, "alice: {csv}");
    assert!(total(rows[3]) < 20.0, "bob: {csv}");
    for name in ["alice", "bob", "=1+1"] {
        for file in ["results.json", "games.jsonl", "grade.log"] {
            assert!(out.join(name).join(file).is_file(), "{name}/{file}");
        }
    }
    // Each grading log's player is the student, by their folder's name.
    let games = read_log(&out.join("alice").join("games.jsonl"));
    assert!(!games.is_empty());
    assert!(
        games
            .iter()
            .all(|g| g.first == "alice" || g.second == "alice"),
        "{games:?}"
    );
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        page.contains("\"name\":\"bob\""),
        "the class page holds bob's results"
    );
    // Nothing is graded twice unless asked; the feedback reads in the terminal.
    class(&[]).stdout(predicate::str::contains("grading 0 of 3 submission(s)"));
    class(&["--regrade", "--shard", "2/2"])
        .stdout(predicate::str::contains("grading 1 of 3 submission(s)"));
    arena()
        .args(["grade", "--feedback"])
        .arg(out.join("bob").join("results.json"))
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "== Wins as first player against random (0.00 / 20, failed)",
        ));
    // The grades never go among the submissions.
    arena()
        .args(["grade", "--submissions"])
        .arg(&subs)
        .arg("--out")
        .arg(subs.join("grades"))
        .assert()
        .failure()
        .stderr(predicate::str::contains("overlap"));
}
