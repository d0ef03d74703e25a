//! The red team's attacks, a stalling engine, and the bounds on the
//! memory of the student's processes (resident and shared) and on a child
//! of the grader the student stops.

use super::*;

const RED_TEAM_CONFIG: &str = include_str!("../../fixtures/red-team.toml");

/// The red team's attacks on the grader (issue #32): the grader's own
/// perfect player within reach, a link to the hidden config, a build that
/// leaves a process holding its output, and hidden games told in a
/// visible test (the engine whose every move stalls has a clock test).
#[test]
fn red_team_submissions_get_nothing_they_should_not() {
    let Some(_turn) = isolated() else {
        return;
    };
    let root = FakeRoot::new("red-team");
    let config = root.dir.join("grader.toml");
    std::fs::write(&config, RED_TEAM_CONFIG).unwrap();
    root.install(&["--config", config.to_str().unwrap()]);
    let source = root.dir.join("source");
    let secret = source.join("config.toml");
    let fake = built("examples/fake_engine");
    let build = |script: &str| text("build.sh", script);
    let as_student = |path: &Path, test: &str| {
        Command::new("runuser")
            .args(["-u", "c4student", "--", "test", test])
            .arg(path)
            .status()
            .unwrap()
            .success()
    };

    // The grader and the perfect player are out of the student's reach.
    let arena_binary = source.join("bin/connect4-arena");
    assert!(
        !as_student(&arena_binary, "-x"),
        "the student can run the grader"
    );
    assert!(
        !as_student(&arena_binary, "-r"),
        "the student can read the grader"
    );
    assert!(!as_student(&secret, "-r"));
    assert!(as_student(&root.dir.join("venv/bin/python3"), "-x"));
    let (perfect, _) = root.grade(&[
        build("true"),
        text(
            "engine",
            "#!/bin/sh\nexec \"$(dirname \"$0\")/../../source/bin/connect4-arena\" engine\n",
        ),
    ]);
    assert_eq!(perfect.score, 0.0, "{perfect:?}");
    assert!(
        perfect.output.contains("Permission denied"),
        "{}",
        perfect.output
    );

    // An honest engine: the visible discipline test counts the visible
    // games only (12), never the hidden test's.
    let (honest, _) = root.grade(&[
        build("cp prebuilt engine"),
        program("prebuilt", &fake),
        text("mode", "good"),
    ]);
    let discipline = &honest.tests[2];
    assert!(
        discipline.output.contains("no forfeit in 12 games"),
        "{discipline:?}"
    );

    // A link to the config: refused, the config stays closed and unread,
    // also when the build keeps swapping the link in.
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let (linked, _) = root.grade(&[build("true"), link("engine", &secret)]);
    assert_eq!(linked.score, 0.0);
    assert!(
        linked.output.contains("engine is a symbolic link"),
        "{}",
        linked.output
    );
    let swapper = format!(
        "cp prebuilt engine\n(while true; do ln -sfn {} swap; mv -T swap engine; sleep 0.005; done) >/dev/null 2>&1 &\nsleep 0.2\n",
        secret.display()
    );
    let (swapped, _) = root.grade(&[
        build(&swapper),
        program("prebuilt", &fake),
        text("mode", "good"),
    ]);
    assert_eq!(mode(&secret), 0o600);
    let all = serde_json::to_string(&swapped).unwrap();
    for leak in ["[[test]]", "build_seconds", "visibility = "] {
        assert!(!all.contains(leak), "{leak} leaked: {all}");
    }

    // A build that leaves a process holding its output ends with the build.
    let started = Instant::now();
    let (lingering, _) = root.grade(&[
        build("setsid sleep 100000 &\ncp prebuilt engine\n"),
        program("prebuilt", &fake),
        text("mode", "good"),
    ]);
    assert!(started.elapsed().as_secs() < 120, "{:?}", started.elapsed());
    assert_eq!(scores(&lingering), scores(&honest));
}

/// A clock test: an engine whose every move stalls. Each test stops
/// after a streak of forfeits and says why, instead of playing all its
/// games (which, at the red team's margin, would take minutes: this
/// test gives the engines 200 ms beyond the move time, and an engine
/// that never answers stalls whatever the machine's load).
#[test]
fn clock_a_stalling_engine_stops_each_test_after_a_streak_and_says_why() {
    let Some(_turn) = isolated() else {
        return;
    };
    let root = FakeRoot::new("stall");
    let config = root.dir.join("grader.toml");
    let tight = RED_TEAM_CONFIG.replace("margin_ms = 10000", "margin_ms = 200");
    assert_ne!(tight, RED_TEAM_CONFIG);
    std::fs::write(&config, tight).unwrap();
    root.install(&["--config", config.to_str().unwrap()]);
    let started = Instant::now();
    let (stalling, _) = root.grade(&[
        text("build.sh", "cp prebuilt engine"),
        program("prebuilt", &built("examples/fake_engine")),
        text("mode", "hang"),
    ]);
    let wins = &stalling.tests[0];
    assert!(
        wins.output
            .contains("stopped after 5 games in a row lost by stall"),
        "{wins:?}"
    );
    assert_eq!(stalling.score, 0.0);
    eprintln!(
        "a stalling engine graded in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

/// The red team's config with a bound on the student's processes together.
fn memory_config() -> String {
    RED_TEAM_CONFIG.replace(
        "[limits]\n",
        "[limits]\nmemory_mb = 1024\ntotal_memory_mb = 600\n",
    )
}

/// Issue #32, item 13: each process is held by `memory_mb`, and all of the
/// student's processes together by `total_memory_mb`. An engine that starts
/// four detached processes of 300 MiB at each game's first move has them
/// all killed, is told why, and leaves nothing running; the grader lives on.
#[test]
fn the_memory_of_all_the_students_processes_together_is_bounded() {
    let Some(_turn) = isolated() else {
        return;
    };
    let root = FakeRoot::new("memory");
    let config = root.dir.join("grader.toml");
    std::fs::write(&config, memory_config()).unwrap();
    root.install(&["--config", config.to_str().unwrap()]);
    let fake = built("examples/fake_engine");
    let engine = |mode: &str| {
        vec![
            text("build.sh", "cp prebuilt engine"),
            program("prebuilt", &fake),
            text("mode", mode),
        ]
    };
    let (honest, _) = root.grade(&engine("good"));
    assert!(!honest.output.contains("MiB"), "{}", honest.output);

    // An independent look at what the student's user holds, meanwhile.
    let watching = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let sampler = {
        let watching = watching.clone();
        std::thread::spawn(move || {
            let mut peak = 0u64;
            while watching.load(std::sync::atomic::Ordering::Relaxed) {
                let held: u64 = processes_of("c4student")
                    .iter()
                    .filter_map(|pid| std::fs::read_to_string(format!("/proc/{pid}/statm")).ok())
                    .filter_map(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
                    .sum::<u64>()
                    * 4096;
                peak = peak.max(held);
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            peak
        })
    };
    let (hog, stderr) = root.grade(&engine("hog=300x4"));
    watching.store(false, std::sync::atomic::Ordering::Relaxed);
    let peak = sampler.join().unwrap();
    eprintln!(
        "hog=300x4 under total_memory_mb = 600: {} (honest {}); peak seen {} MiB\n{stderr}",
        hog.score,
        honest.score,
        peak >> 20
    );
    assert!(
        hog.output
            .contains("over the limit of 600 MiB for all of them together"),
        "{}",
        hog.output
    );
    assert!(hog.score <= honest.score, "{hog:?}");
    assert!(stderr.contains("kill(s)"), "{stderr}");
}

/// Issue #42, item 3: memory held outside the processes' resident pages
/// (a memfd kept open, a file in /dev/shm, a System V segment) counts
/// against `total_memory_mb`; the processes are killed, and what outlives
/// them (the /dev/shm file, the segment) is removed.
#[test]
fn shared_memory_counts_against_the_total_and_is_removed() {
    let Some(_turn) = isolated() else {
        return;
    };
    let root = FakeRoot::new("shared-memory");
    let config = root.dir.join("grader.toml");
    std::fs::write(&config, memory_config()).unwrap();
    root.install(&["--config", config.to_str().unwrap()]);
    let fake = built("examples/fake_engine");
    let student = Account::lookup("c4student").unwrap();
    for mode in ["memfd=768", "devshm=768", "sysv=768"] {
        let (graded, stderr) = root.grade(&[
            text("build.sh", "cp prebuilt engine"),
            program("prebuilt", &fake),
            text("mode", mode),
        ]);
        assert!(
            graded
                .output
                .contains("over the limit of 600 MiB for all of them together"),
            "{mode}: {}\n{stderr}",
            graded.output
        );
        let files = connect4_grade::shared_memory::held_bytes(student.uid, &[]);
        assert_eq!(
            files, 0,
            "{mode}: the student's user still holds shared memory"
        );
        assert!(connect4_grade::shared_memory::segments(student.uid).is_empty());
        assert!(processes_of("c4student").is_empty());
    }
}

/// A student's program that stops its user's processes (`kill-opponent=STOP`
/// in the test above) may stop one the grader has just forked, before it
/// runs the program; the grader would wait for it to start for ever. The
/// watch that looks at the student's processes kills such a one.
#[test]
fn a_child_of_the_grader_stopped_by_the_student_is_killed_not_waited_for() {
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    let Some(_turn) = isolated() else { return };
    ensure_users();
    let student = Account::lookup("c4student").unwrap();
    let mut child = Command::new("sh")
        .args(["-c", "kill -STOP $$; sleep 100"])
        .uid(student.uid)
        .gid(student.gid)
        .spawn()
        .unwrap();
    let stopped = || {
        std::fs::read_to_string(format!("/proc/{}/stat", child.id())).is_ok_and(|s| {
            s.rsplit_once(')')
                .is_some_and(|(_, r)| r.trim_start().starts_with('T'))
        })
    };
    let started = Instant::now();
    while !stopped() {
        assert!(started.elapsed().as_secs() < 10, "the child never stopped");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    // Another parent's stopped process is not the grader's to kill.
    assert_eq!(
        connect4_match::sandbox::kill_stopped_children(student.uid, 1),
        0
    );
    let killed = connect4_match::sandbox::kill_stopped_children(student.uid, std::process::id());
    assert_eq!(killed, 1);
    assert_eq!(child.wait().unwrap().signal(), Some(9));
}
