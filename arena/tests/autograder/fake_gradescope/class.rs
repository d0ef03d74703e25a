//! A class graded under isolation: each student closed to the others.

use super::*;

/// Issue #69, items 5 and 6: a class graded under `--isolate`. Before,
/// a student's code (as the student user) read a classmate's
/// `policy.py`, their results and games, and the config with its
/// hidden test, all found from the grader's command line in /proc; and
/// it could rewrite another row. Now the paths travel in the
/// grading's environment, the class folder and the config are closed
/// to other users, --out is root's alone, and each row is kept as its
/// grading left it.
#[test]
fn a_class_graded_under_isolation_is_closed_to_each_student() {
    let Some(_turn) = isolated() else {
        return;
    };
    ensure_users();
    let root = FakeRoot::new("class");
    let binary = root.dir.join("connect4-arena");
    std::fs::copy(arena(), &binary).unwrap();
    let loot = open_to_all(&root.dir.join("loot"));
    let (subs, out, config) = (
        root.dir.join("subs"),
        root.dir.join("grades"),
        root.dir.join("grader.toml"),
    );
    std::fs::write(
        &config,
        "# hidden-test-marker\n[submission]\nkind = \"engine\"\n\n[time]\nmove_ms = 50\n\
         margin_ms = 1000\n\n[[test]]\nkind = \"wins\"\nside = \"first\"\ngames = 2\npoints = 10\n",
    )
    .unwrap();
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o644)).unwrap();
    let write_engine = |name: &str, text: String| {
        std::fs::create_dir_all(subs.join(name)).unwrap();
        write_script(&subs.join(name).join("engine"), &text);
    };
    write_engine(
        "alice",
        format!("#!/bin/sh\nexec '{}' engine\n", binary.display()),
    );
    write_engine(
        "mallory",
        format!(
            "#!/bin/sh\nloot='{loot}'\n\
             cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\\\0' ' ' > \"$loot/cmdlines\"\n\
             cat '{subs}/alice/engine' > \"$loot/alice\" 2>/dev/null\n\
             cat '{config}' > \"$loot/config\" 2>/dev/null\n\
             cat '{out}/alice/results.json' > \"$loot/results\" 2>/dev/null\n\
             (echo '{{\"score\": 0}}' > '{out}/alice/results.json') 2>/dev/null\n\
             exec '{arena}' engine\n",
            loot = loot.display(),
            subs = subs.display(),
            config = config.display(),
            out = out.display(),
            arena = binary.display(),
        ),
    );
    let graded = Command::new(&binary)
        .args(["grade", "--isolate", "--submissions"])
        .arg(&subs)
        .arg("--out")
        .arg(&out)
        .arg("--config")
        .arg(&config)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&graded.stdout);
    assert!(
        graded.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&graded.stderr)
    );
    let got = |name: &str| std::fs::read_to_string(loot.join(name)).unwrap_or_default();
    assert!(!got("cmdlines").is_empty(), "the attack did not run");
    for secret in [
        subs.display().to_string(),
        config.display().to_string(),
        out.display().to_string(),
    ] {
        assert!(
            !got("cmdlines").contains(&secret),
            "a command line names {secret}"
        );
    }
    assert_eq!(got("alice"), "", "a classmate's engine was read");
    assert_eq!(got("config"), "", "the config was read");
    assert_eq!(got("results"), "", "a classmate's results were read");
    let alice: GradescopeResults =
        serde_json::from_str(&std::fs::read_to_string(out.join("alice/results.json")).unwrap())
            .unwrap();
    assert_eq!(alice.score, 10.0, "{alice:?}");
    assert!(said.contains("alice: 10.00 / 10"), "{said}");
    assert!(processes_of("c4student").is_empty());
    // Without --isolate or --no-isolation, a class is not graded.
    let refused = Command::new(&binary)
        .args(["grade", "--submissions"])
        .arg(&subs)
        .arg("--out")
        .arg(root.dir.join("other"))
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("give --isolate"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
}
