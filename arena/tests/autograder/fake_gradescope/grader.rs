//! The grader itself: its results written on a full disk, its grading
//! without root, and the source it bundles.

use super::*;

#[test]
fn a_full_disk_does_not_keep_the_results_from_being_written() {
    let Some(_turn) = isolated() else {
        return;
    };
    ensure_users();
    let root = FakeRoot::new("disk");
    let disk = root.dir.join("disk");
    std::fs::create_dir_all(&disk).unwrap();
    // Room for the engine's copy and 24 MiB more, which the engine fills.
    let engine = built("examples/fake_engine");
    let size = (std::fs::metadata(&engine).unwrap().len() >> 20) + 24;
    let mounted = Command::new("mount")
        .args([
            "-t",
            "tmpfs",
            "-o",
            &format!("size={size}m,mode=755"),
            "tmpfs",
        ])
        .arg(&disk)
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!("skipped: cannot mount a small tmpfs here");
        return;
    }
    struct Unmount<'a>(&'a Path);
    impl Drop for Unmount<'_> {
        fn drop(&mut self) {
            Command::new("umount").arg(self.0).status().ok();
        }
    }
    let _unmount = Unmount(&disk);
    let submission = root.dir.join("submission");
    std::fs::create_dir_all(&submission).unwrap();
    std::fs::copy(&engine, submission.join("engine")).unwrap();
    // The grader from a folder the reference user can reach (its engines
    // are this binary; a CI clone may be private to root).
    let binary = root.dir.join("connect4-arena");
    std::fs::copy(arena(), &binary).unwrap();
    let grade = |mode: &str| {
        std::fs::write(submission.join("mode"), mode).unwrap();
        let results = disk.join("results/results.json");
        std::fs::remove_file(&results).ok();
        let out = Command::new(&binary)
            .args([
                "grade",
                "--isolate",
                "--games",
                "2",
                "--match-games",
                "2",
                "--tactics",
                "1",
                "--concurrency",
                "1",
            ])
            .arg("--submission")
            .arg(&submission)
            .arg("--work")
            .arg(disk.join("work"))
            .arg("--results")
            .arg(&results)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{mode}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let r: GradescopeResults =
            serde_json::from_str(&std::fs::read_to_string(&results).unwrap()).unwrap();
        (r, String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (honest, _) = grade("good");
    assert!(honest.score > 0.0, "{honest:?}");
    let (filler, _) = grade("fill-disk");
    let filled = std::fs::read_dir(disk.join("work/submission"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("fill-"))
        .count();
    assert!(filled >= 10, "the filler wrote {filled} MiB");
    assert!(filler.score <= honest.score, "{filler:?}");
    assert!(processes_of("c4student").is_empty());
}

#[test]
fn without_root_the_grader_grades_and_says_isolation_is_off() {
    let Some(_turn) = isolated() else {
        return;
    };
    ensure_users();
    let root = FakeRoot::new("no-root");
    let binary = root.dir.join("connect4-arena");
    std::fs::copy(arena(), &binary).unwrap();
    let results = root.dir.join("results");
    std::fs::create_dir_all(&results).unwrap();
    let account = Account::lookup("c4ref").unwrap();
    std::os::unix::fs::chown(&results, Some(account.uid), Some(account.gid)).unwrap();
    let out = Command::new("runuser")
        .args(["-u", "c4ref", "--"])
        .arg(&binary)
        .args([
            "grade",
            "--isolate",
            "--engine",
            "name=solver,cmd=self,movetime=20",
        ])
        .args(["--games", "1", "--match-games", "1", "--tactics", "1"])
        .arg("--results")
        .arg(results.join("results.json"))
        .arg("--work")
        .arg(results.join("work"))
        .current_dir(&root.dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("isolation is off"), "{stderr}");
    let r: GradescopeResults =
        serde_json::from_str(&std::fs::read_to_string(results.join("results.json")).unwrap())
            .unwrap();
    assert!(r.output.contains("isolation is off"), "{}", r.output);
    assert!(r.score > 0.0);
}

/// The source bundled for images where the binary does not run (setup.sh
/// builds it with cargo) is a whole workspace: every member's manifest is
/// there, every file the code embeds resolves, and nothing else rides
/// along (no book layer still being built, no pip leftovers, no tests).
/// Needs no root: nothing is installed.
#[test]
fn the_bundled_source_is_a_whole_workspace_and_nothing_more() {
    let root = FakeRoot::new("bundle");
    let (said, mut archive) = root.zip(&["--kind", "engine"]);
    assert!(!said.contains("no source bundled"), "{said}");
    let names: Vec<String> = archive
        .file_names()
        .map(|n| n.unwrap().into_owned())
        .collect();
    assert!(names.iter().any(|n| n == "rust/Cargo.lock"), "{names:?}");
    for name in &names {
        let stray = [
            "rust/python/build",
            "rust/python/tests",
            "rust/book/in-progress",
            "rust/target",
        ];
        assert!(
            !stray.iter().any(|s| name.starts_with(s)) && !name.contains("/tests/"),
            "{name} in the zip"
        );
    }
    archive.extract(&root.dir).unwrap();
    let workspace = root.dir.join("rust");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--offline",
            "--no-deps",
            "--format-version",
            "1",
        ])
        .arg("--manifest-path")
        .arg(workspace.join("Cargo.toml"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the bundled workspace does not load:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let embedded = embedded_files(&workspace);
    assert!(embedded.len() > 10, "{embedded:?}");
    for (source, path) in embedded {
        assert!(
            path.is_file(),
            "{} embeds {}, which the zip does not carry",
            source.display(),
            path.display()
        );
    }
}

/// Every file that the Rust sources under `dir` embed with `include_str!`
/// or `include_bytes!` of a literal path, with the source that embeds it.
fn embedded_files(dir: &Path) -> Vec<(PathBuf, PathBuf)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(embedded_files(&path));
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let code = std::fs::read_to_string(&path).unwrap();
        for macro_name in ["include_str!(", "include_bytes!("] {
            for (at, _) in code.match_indices(macro_name) {
                let rest = code[at + macro_name.len()..].trim_start();
                let Some(literal) = rest.strip_prefix('"') else {
                    continue;
                };
                let target = &literal[..literal.find('"').unwrap()];
                found.push((path.clone(), path.parent().unwrap().join(target)));
            }
        }
    }
    found
}
