//! The Gradescope autograder end to end: zips written by `connect4-arena
//! autograder` are unpacked into fake Gradescope roots (AUTOGRADER_ROOT in
//! a temporary folder), `setup.sh` runs once, and `run_autograder` grades
//! submissions written here: the perfect player, an honest engine and
//! hostile ones, a build that fails, weak, crashing and slow policies.
//!
//! Isolation needs root (the grader starts student code as another user),
//! so these tests run as root, as CI does here, and are skipped with a
//! message otherwise.

mod common;

/// The tests, each in a fake Gradescope root of its own. They sit in one
/// module so that `scripts/test` can run them beside the rest (`--skip
/// fake_gradescope::` there, `--test autograder` here).
mod fake_gradescope {
    use std::os::unix::fs::PermissionsExt;
    use std::path::{Path, PathBuf};
    use std::process::Command;
    use std::time::{Duration, Instant};

    use connect4_grade::GradescopeResults;
    use connect4_match::sandbox::Account;

    use super::common::{arena_path as arena, built, is_root, open_to_all, write_script};

    /// The isolation tests share the users, and a grader kills every process
    /// of the student's user: they take turns.
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());

    /// Waits for the turn of an isolation test; `None` (with a message) if they
    /// cannot run here.
    fn isolated() -> Option<std::sync::MutexGuard<'static, ()>> {
        can_isolate().then(|| TURN.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Whether the isolation tests can run: as root, with useradd.
    fn can_isolate() -> bool {
        let root = is_root();
        let useradd = ["/usr/sbin/useradd", "/sbin/useradd"]
            .iter()
            .any(|p| Path::new(p).exists());
        if !(root && useradd) {
            eprintln!(
                "skipped: the autograder's isolation tests need root and useradd \
             (they create the users c4student and c4ref)"
            );
        }
        root && useradd
    }

    /// Creates the sandbox users if setup.sh has not yet (tests that run the
    /// grader without the zip).
    fn ensure_users() {
        for user in ["c4student", "c4ref"] {
            if Account::lookup(user).is_err() {
                let ok = Command::new("useradd")
                    .args([
                        "--system",
                        "--no-create-home",
                        "--shell",
                        "/usr/sbin/nologin",
                        user,
                    ])
                    .status()
                    .unwrap()
                    .success();
                assert!(ok || Account::lookup(user).is_ok(), "useradd {user} failed");
            }
        }
    }

    /// The live processes of `user` now (a zombie is dead already: it only
    /// waits for its new parent to reap it, and can do nothing).
    fn processes_of(user: &str) -> Vec<String> {
        let Ok(account) = Account::lookup(user) else {
            return Vec::new();
        };
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| {
                let pid = e.file_name().to_string_lossy().into_owned();
                pid.parse::<u32>().ok()?;
                let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
                let zombie = status
                    .lines()
                    .find(|l| l.starts_with("State:"))
                    .is_some_and(|l| l.contains('Z'));
                if zombie {
                    return None;
                }
                let uid: u32 = status
                    .lines()
                    .find(|l| l.starts_with("Uid:"))?
                    .split_whitespace()
                    .nth(1)?
                    .parse()
                    .ok()?;
                (uid == account.uid).then_some(pid)
            })
            .collect()
    }

    /// A file of a submission: its name, bytes and whether it is executable
    /// (or, for a symbolic link, the path it points to).
    struct File {
        name: &'static str,
        bytes: Vec<u8>,
        executable: bool,
        link: Option<PathBuf>,
    }

    /// A symbolic link `name` to `target`.
    fn link(name: &'static str, target: &Path) -> File {
        File {
            name,
            bytes: Vec::new(),
            executable: false,
            link: Some(target.to_path_buf()),
        }
    }

    fn text(name: &'static str, content: &str) -> File {
        File {
            name,
            bytes: content.as_bytes().to_vec(),
            executable: false,
            link: None,
        }
    }

    fn program(name: &'static str, path: &Path) -> File {
        File {
            name,
            bytes: std::fs::read(path).unwrap(),
            executable: true,
            link: None,
        }
    }

    /// A fake Gradescope root: /tmp/..., with source/ from a zip.
    struct FakeRoot {
        dir: PathBuf,
    }

    impl FakeRoot {
        fn new(name: &str) -> FakeRoot {
            // Under /tmp, open to the sandbox users (a CI clone may be 0700).
            let dir =
                PathBuf::from("/tmp").join(format!("c4-gradescope-{name}-{}", std::process::id()));
            std::fs::remove_dir_all(&dir).ok();
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
            FakeRoot { dir }
        }

        fn results_path(&self) -> PathBuf {
            self.dir.join("results/results.json")
        }

        /// Writes an autograder zip with `args` into this folder; returns what
        /// the command said and the zip, opened.
        fn zip(&self, args: &[&str]) -> (String, zip::ZipArchive<std::fs::File>) {
            let zip = self.dir.join("autograder.zip");
            let out = Command::new(arena())
                .arg("autograder")
                .args(args)
                .arg("--out")
                .arg(&zip)
                .output()
                .unwrap();
            let said = String::from_utf8_lossy(&out.stdout).into_owned();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let archive = zip::ZipArchive::new(std::fs::File::open(&zip).unwrap()).unwrap();
            (said, archive)
        }

        /// Writes an autograder zip with `args` (and `--no-source`: the binary
        /// runs here, and the bundled source has a test of its own) and
        /// unpacks it as source/.
        fn install(&self, args: &[&str]) -> String {
            self.install_with(args, &[])
        }

        /// As [`FakeRoot::install`], with `env` set for setup.sh.
        fn install_with(&self, args: &[&str], env: &[(&str, &str)]) -> String {
            let mut args = args.to_vec();
            args.push("--no-source");
            let (said, mut archive) = self.zip(&args);
            let source = self.dir.join("source");
            std::fs::remove_dir_all(&source).ok();
            archive.extract(&source).unwrap();
            let started = Instant::now();
            let out = Command::new("bash")
                .arg(source.join("setup.sh"))
                .env("AUTOGRADER_ROOT", &self.dir)
                .envs(env.iter().copied())
                .current_dir(&source)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "setup.sh failed:\n{}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            eprintln!("setup.sh took {:.1} s", started.elapsed().as_secs_f64());
            said
        }

        /// Puts `files` in submission/ and runs run_autograder; returns the
        /// results and the grader's stderr. Checks that nothing of the student
        /// is left running and that the results stay as written.
        fn grade(&self, files: &[File]) -> (GradescopeResults, String) {
            let submission = self.dir.join("submission");
            std::fs::remove_dir_all(&submission).ok();
            std::fs::create_dir_all(&submission).unwrap();
            for f in files {
                let path = submission.join(f.name);
                if let Some(target) = &f.link {
                    std::os::unix::fs::symlink(target, &path).unwrap();
                    continue;
                }
                std::fs::write(&path, &f.bytes).unwrap();
                let mode = if f.executable { 0o755 } else { 0o644 };
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
            }
            std::fs::remove_file(self.results_path()).ok();
            let started = Instant::now();
            let out = Command::new(self.dir.join("source/run_autograder"))
                .env("AUTOGRADER_ROOT", &self.dir)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
            eprintln!(
                "run_autograder took {:.1} s",
                started.elapsed().as_secs_f64()
            );
            assert!(
                out.status.success(),
                "run_autograder failed:\n{}\n{stderr}",
                String::from_utf8_lossy(&out.stdout)
            );
            let left = processes_of("c4student");
            assert!(left.is_empty(), "student processes left running: {left:?}");
            let written = std::fs::read_to_string(self.results_path()).unwrap();
            // A process left behind would rewrite the file now.
            std::thread::sleep(Duration::from_millis(300));
            assert_eq!(
                std::fs::read_to_string(self.results_path()).unwrap(),
                written,
                "results.json changed after the grader ended"
            );
            let results: GradescopeResults = serde_json::from_str(&written)
                .unwrap_or_else(|e| panic!("results.json is not valid: {e}\n{written}"));
            let sum: f64 = results.tests.iter().map(|t| t.score).sum();
            assert!((results.score - sum).abs() < 0.011, "{results:?}");
            (results, stderr)
        }
    }

    impl Drop for FakeRoot {
        fn drop(&mut self) {
            std::fs::remove_dir_all(&self.dir).ok();
        }
    }

    /// The per-test scores.
    fn scores(r: &GradescopeResults) -> Vec<f64> {
        r.tests.iter().map(|t| t.score).collect()
    }

    const ENGINE_CONFIG: &str = include_str!("fixtures/engine.toml");

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

    const POLICY_CONFIG: &str = include_str!("fixtures/policy.toml");

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

    const RED_TEAM_CONFIG: &str = include_str!("fixtures/red-team.toml");

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
                        .filter_map(|pid| {
                            std::fs::read_to_string(format!("/proc/{pid}/statm")).ok()
                        })
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
        let killed =
            connect4_match::sandbox::kill_stopped_children(student.uid, std::process::id());
        assert_eq!(killed, 1);
        assert_eq!(child.wait().unwrap().signal(), Some(9));
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
    const PATIENT_CONFIG: &str = include_str!("fixtures/patient.toml");

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
}
