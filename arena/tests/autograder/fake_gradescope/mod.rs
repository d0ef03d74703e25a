//! A fake Gradescope root (`FakeRoot`: the autograder unpacked, `setup.sh`
//! run, submissions graded as Gradescope grades them), the files a
//! submission is made of, and the turn the isolation tests take; the tests,
//! by subject, in the files beside it.

mod class;
mod engines;
mod grader;
mod policies;
mod red_team;

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
