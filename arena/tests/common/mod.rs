//! What the arena's integration tests share: the binaries cargo built for
//! them (the arena, the misbehaving engine), scratch folders, logs read back,
//! processes looked for, and the specs of two quick engines. Each test file
//! uses a part of it.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use connect4_match::log::GameLine;

/// The arena binary cargo built for the tests.
pub fn arena_path() -> PathBuf {
    PathBuf::from(assert_cmd::cargo::cargo_bin!("connect4-arena"))
}

/// target/debug (or release), where cargo puts the binaries.
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_path_buf()
}

/// A binary cargo built for the tests (the engine, the fake engine).
pub fn built(path: &str) -> PathBuf {
    let p = target_dir().join(path);
    assert!(
        p.exists(),
        "{} is missing: build it with cargo build --workspace --examples",
        p.display()
    );
    p
}

/// The arena, as a command to run.
pub fn arena() -> Command {
    Command::new(assert_cmd::cargo::cargo_bin!("connect4-arena"))
}

/// The time beyond its move time that the tests of play (not of the
/// clock) give every engine, in milliseconds: ten seconds, which no engine
/// that answers reaches however loaded the machine, so that a game's
/// result never depends on the machine's speed; only a hung engine would
/// reach it. The clock's own tests (named `clock_...`, run on their own
/// after the others) keep tight margins.
pub const UNHURRIED_MARGIN_MS: &str = "10000";

/// The misbehaving engine (`examples/fake_engine.rs`), which `cargo test`
/// builds beside the tests.
pub fn fake(mode: &str) -> String {
    let path = built("examples/fake_engine");
    format!("name=bad,cmd={},arg={mode}", path.display())
}

/// A short grading of the greedy agent, named `student` (two games in
/// each test that plays, one position of each tactic), its results in
/// `dir` and its games written to `log`.
pub fn grading_with_log(dir: &Path, log: &Path) -> Command {
    let mut command = arena();
    command
        .args([
            "grade",
            "--engine",
            "name=student,cmd=self,option.agent=greedy",
        ])
        .args(["--games", "2", "--match-games", "2", "--tactics", "1"])
        .args(["--time-margin", UNHURRIED_MARGIN_MS])
        .arg("--results")
        .arg(dir.join("results.json"))
        .arg("--log")
        .arg(log);
    command
}

/// A fresh scratch directory, removed with what is in it when the test
/// that made it ends (passing or failing: a failing test's assertion
/// quotes what it needs).
pub fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("arena-{name}-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

/// A scratch directory (see [`scratch`]): a path while the test runs.
pub struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.0).ok();
    }
}

/// The games of a log.
pub fn read_log(path: &Path) -> Vec<GameLine> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Waits until the log holds `n` games (at most 60 s).
pub fn wait_for_games(log: &Path, n: usize) {
    let start = Instant::now();
    while std::fs::read_to_string(log).map_or(0, |t| t.lines().count()) < n {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{n} games not logged in 60 s"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The games' numbers, in order.
pub fn game_numbers(log: &[GameLine]) -> Vec<u64> {
    let mut n: Vec<u64> = log.iter().map(|g| g.game).collect();
    n.sort();
    n
}

/// Alpha-beta at depth 3, the arena's built-in engine.
pub const DEEP: &str = "name=ab3,cmd=self,option.agent='alphabeta:depth=3'";

/// MCTS with 200 simulations a move.
pub const MCTS: &str = "name=mcts,cmd=self,option.agent='mcts:simulations=200'";

/// The processes whose parent is `pid` (from /proc).
pub fn children_of(pid: u32) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|p| {
            std::fs::read_to_string(format!("/proc/{p}/stat")).is_ok_and(|stat| {
                // The parent is the second field after the command's ')'.
                stat.rsplit_once(')')
                    .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<u32>().ok())
                    == Some(pid)
            })
        })
        .collect()
}

/// Processes whose command line holds every one of `words`.
pub fn processes_with(words: &[&str]) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if words.iter().all(|w| text.contains(w)) {
            found.push(pid);
        }
    }
    found
}

/// The texts of an SVG picture (trimmed), which must be well-formed XML.
pub fn svg_texts(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("well-formed XML");
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .map(|t| t.trim().to_string())
        .collect()
}

/// Writes the executable script `path` holding `text` (a submission's
/// engine, a hostile one).
pub fn write_script(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Makes `dir` a folder every user may write into (sticky, as /tmp): where
/// a hostile submission running as another user puts what it could read.
pub fn open_to_all(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(dir).unwrap();
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o1777)).unwrap();
    dir.to_path_buf()
}

/// Whether the tests run as root (the isolation tests need it).
pub fn is_root() -> bool {
    uid_of("self") == Some(0)
}

/// The real user id of process `pid` ("self" for this one).
pub fn uid_of(pid: &str) -> Option<u32> {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()?
        .lines()
        .find(|l| l.starts_with("Uid:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}
