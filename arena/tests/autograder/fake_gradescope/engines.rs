//! Engine submissions: the perfect player, an honest engine and every
//! attack on the grade (forged results, a lingering process, a killed or
//! stopped opponent, a fork bomb), and a build that fails.

use super::*;

const ENGINE_CONFIG: &str = include_str!("../../fixtures/engine.toml");

#[test]
fn engines_get_the_grade_their_play_deserves_whatever_they_try() {
    let Some(_turn) = isolated() else {
        return;
    };
    let root = FakeRoot::new("engine");
    let config = root.dir.join("grader.toml");
    std::fs::write(&config, ENGINE_CONFIG).unwrap();
    let said = root.install(&["--config", config.to_str().unwrap()]);
    assert!(
        said.contains("an autograder for engine submissions"),
        "{said}"
    );
    // The student cannot read the config (hidden tests) nor list the source.
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&root.dir.join("source/config.toml")), 0o600);
    assert_eq!(mode(&root.dir.join("source")), 0o711);

    let fake = built("examples/fake_engine");
    let engine = |mode: &str| vec![program("prebuilt", &fake), text("mode", mode)];

    let (perfect, _) = root.grade(&[program("prebuilt", &built("connect4"))]);
    for t in &perfect.tests {
        assert_eq!(t.score, t.max_score, "the perfect player: {t:?}");
    }
    assert_eq!(perfect.score, 100.0);
    assert_eq!(
        perfect.leaderboard[0].value, 100.0,
        "{:?}",
        perfect.leaderboard
    );
    assert_eq!(
        perfect.tests[3].visibility,
        Some(connect4_grade::config::Visibility::Hidden)
    );

    let (honest, _) = root.grade(&engine("good"));
    assert!(honest.score < 100.0 && honest.score > 0.0, "{honest:?}");
    let results = root.results_path();
    let results = results.to_str().unwrap();
    // (mode, the honest grade exactly, a reference may be outrun): the
    // fork bomb's hundreds of process starts take the processors for
    // a moment, and on a loaded machine a reference then answers late;
    // the grader voids and replays such a game, which is the defence.
    // The other attacks must not reach a reference at all.
    for (mode, same, may_void) in [
        (format!("forge-results={results}"), true, false),
        (format!("linger={results}"), true, false),
        ("kill-opponent=KILL".to_string(), false, false),
        ("kill-opponent=STOP".to_string(), false, false),
        ("fork-bomb".to_string(), false, true),
    ] {
        let (hostile, stderr) = root.grade(&engine(&mode));
        eprintln!("{mode}: {} (honest {})", hostile.score, honest.score);
        assert!(
            !hostile.output.contains("forged") && !hostile.tests.is_empty(),
            "{mode}: {hostile:?}"
        );
        for t in &hostile.tests {
            let voided = t.output.contains("voided");
            assert!(
                !voided || (may_void && t.output.contains("voided and replayed")),
                "{mode}: a reference was hurt: {hostile:?}"
            );
        }
        if same {
            assert_eq!(
                scores(&hostile),
                scores(&honest),
                "{mode}: {hostile:?}\n{stderr}"
            );
        } else {
            assert!(hostile.score <= honest.score, "{mode}: {hostile:?}");
        }
    }

    // A build that fails: every test shows its output.
    let (broken, _) = root.grade(&[text("README", "no engine here")]);
    assert_eq!(broken.score, 0.0);
    assert!(
        broken.tests[0]
            .output
            .contains("cp prebuilt engine\\` failed")
            && broken.tests[0].output.contains("cannot stat 'prebuilt'"),
        "{:?}",
        broken.tests[0]
    );
}
