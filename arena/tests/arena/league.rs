//! `league` end to end: submissions checked before they enter (a broken
//! one refused with why), anchors rated once and never moved, ladder
//! rounds that survive a `kill -9` with no game lost or counted twice, a
//! resubmission starting afresh, and a final round.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::prelude::*;
use predicates::prelude::*;

use crate::common;
use common::*;

/// A submission folder whose `engine` runs `program` with `args`.
fn submission(dir: &Path, program: &Path, args: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let text = format!("#!/bin/sh\nexec '{}' {args}\n", program.display());
    write_script(&dir.join("engine"), &text);
}

/// A copy in `root` of the binary cargo built at `path` in its target
/// folder: the students' users run it, and a CI clone may lie in a
/// folder closed to them (mktemp's are 0700).
fn reachable(root: &Path, path: &str) -> std::path::PathBuf {
    let copy = root.join(path.replace('/', "-"));
    std::fs::copy(built(path), &copy).unwrap();
    copy
}

/// Writes the league's config of engines into `root`: 20 ms a move, and
/// the margin of the tests of play ([`UNHURRIED_MARGIN_MS`]), so that no
/// game is lost on time and no student refused for a slow machine.
fn engine_config(root: &Path) {
    let config = format!(
        "[submission]\nkind = \"engine\"\n\n[time]\nmove_ms = 20\nmargin_ms = {UNHURRIED_MARGIN_MS}\n"
    );
    std::fs::write(root.join("league.toml"), config).unwrap();
}

/// The league's command on `dir` with the drop folder and config of
/// `root`.
fn league(root: &Path, extra: &[&str]) -> Command {
    let mut command = Command::new(arena_path());
    command
        .args(["league", "--dir"])
        .arg(root.join("league"))
        .arg("--submissions")
        .arg(root.join("drop"))
        .arg("--config")
        .arg(root.join("league.toml"))
        .args(["--concurrency", "2", "--calibration-pairs", "2"])
        .args(extra);
    command
}

/// The game numbers of the league's games.jsonl.
fn game_ids(root: &Path) -> Vec<u64> {
    let mut ids = game_numbers(&read_log(&root.join("league/games.jsonl")));
    ids.sort();
    ids
}

#[test]
fn a_league_checks_rates_survives_a_kill_and_ends_with_a_final_round() {
    let root = scratch("league");
    let c4 = reachable(&root, "connect4");
    submission(&root.join("drop/alice"), &c4, "--agent greedy");
    submission(&root.join("drop/bob"), &c4, "--agent random");
    submission(
        &root.join("drop/carol"),
        &reachable(&root, "examples/fake_engine"),
        "illegal",
    );
    engine_config(&root);
    let first = league(&root, &["--rounds", "1"]).output().unwrap();
    let out = String::from_utf8_lossy(&first.stdout);
    assert!(
        first.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert!(out.contains("alice: a new submission entered"), "{out}");
    assert!(
        out.contains("carol: refused: the validation game against itself was lost"),
        "{out}"
    );
    assert!(out.contains("perfect (anchor)"), "{out}");
    // The anchors are rated once: their ratings stay.
    let status = |root: &Path| {
        let out = Command::new(arena_path())
            .args(["league", "--dir"])
            .arg(root.join("league"))
            .arg("--status")
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let anchors = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.contains("(anchor)"))
            .map(|l| l[4..60].to_string())
            .collect()
    };
    let before = status(&root);
    // A run killed part way (kill -9) loses nothing and counts nothing twice.
    let mut running = league(&root, &["--rounds", "5"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let db_games = || game_ids(&root).len();
    let at_start = db_games();
    while db_games() == at_start && started.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(200));
    }
    std::thread::sleep(Duration::from_millis(300));
    running.kill().unwrap();
    running.wait().unwrap();
    league(&root, &["--rounds", "1"]).assert().success();
    let ids = game_ids(&root);
    let mut unique = ids.clone();
    unique.dedup();
    assert_eq!(ids, unique, "a game was recorded twice");
    let after = status(&root);
    assert!(
        after.contains("replayed in order: each counted once"),
        "{after}"
    );
    let mut sorted_before = anchors(&before);
    let mut sorted_after = anchors(&after);
    sorted_before.sort();
    sorted_after.sort();
    let rating_of = |rows: &[String]| -> Vec<String> {
        rows.iter()
            .map(|r| {
                r.split_whitespace()
                    .skip(1)
                    .take(3)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    };
    assert_eq!(
        rating_of(&sorted_before),
        rating_of(&sorted_after),
        "the anchors moved:\n{before}\n{after}"
    );
    // Every ladder game counts once for each side.
    let log = read_log(&root.join("league/games.jsonl"));
    let ladder_games = log.iter().filter(|g| !g.first.contains("anchor")).count();
    assert!(ladder_games > 0);
    // A resubmission starts afresh.
    std::fs::write(root.join("drop/bob/notes.txt"), "v2").unwrap();
    league(&root, &["--rounds", "1"])
        .assert()
        .success()
        .stdout(predicate::str::contains("bob: a new submission entered"));
    let now = status(&root);
    assert!(now.contains("bob v2"), "{now}");
    assert!(!now.contains("bob v1"), "{now}");
    // One copy a student: the one in play (issue #69, item 7: every
    // version's copy was kept).
    let copies: Vec<_> = std::fs::read_dir(root.join("league/submissions/bob"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(copies, vec![std::ffi::OsString::from("v2")]);
    // The final round: every pairing of the latest submissions.
    league(&root, &["--final"])
        .assert()
        .success()
        .stdout(predicate::str::contains("alice v1").and(predicate::str::contains("bob v2")));
    let table = std::fs::read_to_string(root.join("league/final.txt")).unwrap();
    assert!(table.lines().nth(2).unwrap().contains(" v"), "{table}");
    // Issue #75, item 4: the ladder and the final round as CSV files, in
    // a folder the league does not read.
    let csv_dir = root.join("tables");
    Command::new(arena_path())
        .args(["league", "--dir"])
        .arg(root.join("league"))
        .arg("--status")
        .arg("--csv")
        .arg(&csv_dir)
        .assert()
        .success()
        .stdout(predicate::str::contains("ladder.csv"));
    let ladder = std::fs::read_to_string(csv_dir.join("ladder.csv")).unwrap();
    let lines: Vec<&str> = ladder.lines().collect();
    assert_eq!(
        lines[0],
        "rank,student,version,anchor,rating,low,high,games,points,judged,kept,lost by"
    );
    // The four anchors and the two students in play.
    assert_eq!(lines.len(), 7, "{ladder}");
    assert!(
        lines.iter().any(|l| l.contains(",bob,2,false,")),
        "{ladder}"
    );
    let last = std::fs::read_to_string(csv_dir.join("final.csv")).unwrap();
    assert_eq!(last.lines().count(), 3, "{last}");
    assert!(
        !last.contains(",true,"),
        "no anchor plays the final round: {last}"
    );
    Command::new(arena_path())
        .args(["league", "--dir"])
        .arg(root.join("league"))
        .args(["--status", "--csv"])
        .arg(root.join("league"))
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "that is a folder the league reads",
        ));
}

/// Whether the isolation tests can run here (as root); says why not.
fn as_root() -> bool {
    let root = is_root();
    if !root {
        eprintln!("skipped: the league's isolation needs root");
    }
    root
}

/// The live processes whose command line holds `word` and whose user is
/// in `uids`.
fn processes_of_users(uids: std::ops::Range<u32>, word: &str) -> Vec<u32> {
    processes_with(&[word])
        .into_iter()
        .filter(|pid| uid_of(&pid.to_string()).is_some_and(|uid| uids.contains(&uid)))
        .collect()
}

/// Issue #69, items 1 and 2: a hostile submission in the league. Before,
/// its code ran as the league's user: it read a classmate's copy and
/// replaced it with an illegal mover (she then lost 14 of 18 games),
/// wiped the database, read the league's environment and /etc/shadow,
/// froze the anchors (winning by their stalls), and left a `setsid`
/// daemon running after the league. Now each student runs as a user of
/// their own, in a cell that ends with every game.
#[test]
fn a_hostile_submission_reaches_nothing_and_leaves_nothing_running() {
    if !as_root() {
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let root = scratch("league-hostile");
    let c4 = reachable(&root, "connect4");
    let league_dir = root.join("league");
    // Where the attacks put what they got: open to every user.
    let loot = open_to_all(&root.join("loot"));
    std::fs::set_permissions(&*root, std::fs::Permissions::from_mode(0o755)).unwrap();
    submission(&root.join("drop/alice"), &c4, "--agent greedy");
    let alice_engine = std::fs::read_to_string(root.join("drop/alice/engine")).unwrap();
    let mallory = root.join("drop/mallory");
    std::fs::create_dir_all(&mallory).unwrap();
    let illegal = built("examples/fake_engine");
    write_script(
        &mallory.join("engine"),
        &format!(
            "#!/bin/sh
loot='{loot}'
league='{league}'
cat /etc/shadow > \"$loot/shadow\" 2>/dev/null
env > \"$loot/env\" 2>/dev/null
cat \"$league\"/submissions/alice/*/engine > \"$loot/alice\" 2>/dev/null
ls '{drop}' > \"$loot/drop\" 2>/dev/null
for f in \"$league\"/submissions/alice/*/engine; do
  (printf '#!/bin/sh\\nexec {illegal} illegal\\n' > \"$f\") 2>/dev/null
done
(true > \"$league/league.db\") 2>/dev/null
pkill -STOP -f 'connect4-arena engine' 2>/dev/null
setsid sh -c 'sleep 307' </dev/null >/dev/null 2>&1 &
exec '{c4}' --agent random
",
            loot = loot.display(),
            league = league_dir.display(),
            drop = root.join("drop").display(),
            illegal = illegal.display(),
            c4 = c4.display(),
        ),
    );
    engine_config(&root);
    let out = league(&root, &["--rounds", "1", "--uid-base", "57000"])
        .env("C4_LEAGUE_SECRET", "hunter2-secret")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("mallory: a new submission entered"),
        "{stdout}"
    );
    assert!(
        stdout.contains("alice: a new submission entered"),
        "{stdout}"
    );
    let got = |name: &str| std::fs::read_to_string(loot.join(name)).unwrap_or_default();
    assert_eq!(got("shadow"), "", "/etc/shadow was read");
    assert!(
        got("env").contains("HOME="),
        "the attack ran: {}",
        got("env")
    );
    assert!(
        !got("env").contains("hunter2"),
        "the league's environment leaked"
    );
    assert_eq!(got("alice"), "", "a classmate's copy was read");
    assert_eq!(got("drop"), "", "the drop folder was listed");
    // Alice's copy is hers as she wrote it, and she never forfeited.
    for entry in std::fs::read_dir(league_dir.join("submissions/alice")).unwrap() {
        let copy = entry.unwrap().path().join("engine");
        assert_eq!(std::fs::read_to_string(copy).unwrap(), alice_engine);
    }
    let log = read_log(&league_dir.join("games.jsonl"));
    assert!(log.iter().any(|g| g.first.starts_with("mallory")));
    for g in &log {
        if g.loser().is_some_and(|l| !l.starts_with("mallory")) {
            assert!(
                !g.reason.is_forfeit(),
                "{} lost by {} against {} / {}",
                g.loser().unwrap(),
                g.reason,
                g.first,
                g.second
            );
        }
    }
    // The database is whole, and nothing of the students' is left running.
    let status = Command::new(arena_path())
        .args(["league", "--dir"])
        .arg(&league_dir)
        .arg("--status")
        .output()
        .unwrap();
    let status = String::from_utf8_lossy(&status.stdout);
    assert!(
        status.contains("mallory v1") && status.contains("alice v1"),
        "{status}"
    );
    assert!(!status.contains("WARNING"), "{status}");
    assert_eq!(
        processes_of_users(57000..61000, "sleep 307"),
        Vec::<u32>::new()
    );
}

/// Issue #69, item 1: without root the league refuses to run student
/// code unless told `--no-isolation` in words, and then the ladder says
/// so.
#[test]
fn without_isolation_the_league_says_so_on_the_ladder() {
    let root = scratch("league-open");
    submission(
        &root.join("drop/alice"),
        &built("connect4"),
        "--agent greedy",
    );
    // Item 7: a folder named o'brien lost its quote and never entered.
    submission(
        &root.join("drop/o'brien"),
        &built("connect4"),
        "--agent random",
    );
    engine_config(&root);
    let out = league(&root, &["--rounds", "1", "--no-isolation"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("o'brien: a new submission entered"),
        "{stdout}"
    );
    assert!(
        stdout.contains("WARNING: isolation was off (--no-isolation)"),
        "{stdout}"
    );
    // Item 7: a second run on the same --dir while one holds it is refused
    // (two took students in twice and played rounds twice).
    let held = std::fs::File::open(root.join("league/league.lock")).unwrap();
    held.try_lock().unwrap();
    let second = league(&root, &["--rounds", "1", "--no-isolation"])
        .output()
        .unwrap();
    assert!(!second.status.success());
    let said = String::from_utf8_lossy(&second.stderr);
    assert!(said.contains("another league run is using --dir"), "{said}");
}

/// Issue #69, item 1: `match --isolate` (and `tournament`) with students'
/// engines: before, a student's engine ran as the arena's user, read and
/// replaced a classmate's, stopped the other engines and left a daemon.
/// Now each engine given as a program runs contained, its `dir=` copied
/// for it alone, everything of it ended with each game.
#[test]
fn a_hostile_engine_in_an_isolated_match_reaches_nothing() {
    if !as_root() {
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let root = scratch("match-hostile");
    std::fs::set_permissions(&*root, std::fs::Permissions::from_mode(0o755)).unwrap();
    let c4 = reachable(&root, "connect4");
    let loot = open_to_all(&root.join("loot"));
    submission(&root.join("students/alice"), &c4, "--agent greedy");
    let alice = std::fs::read_to_string(root.join("students/alice/engine")).unwrap();
    let mallory = root.join("students/mallory");
    std::fs::create_dir_all(&mallory).unwrap();
    write_script(
        &mallory.join("engine"),
        &format!(
            "#!/bin/sh
loot='{loot}'
cat '{students}/alice/engine' > \"$loot/original\" 2>/dev/null
pwd > \"$loot/where\"
cat ../engine-0/engine > \"$loot/copy\" 2>/dev/null
(echo 'exit 1' > ../engine-0/engine) 2>/dev/null
(echo 'exit 1' > '{students}/alice/engine') 2>/dev/null
pkill -STOP -f 'greedy' 2>/dev/null
(setsid sh -c 'sleep 317' </dev/null >/dev/null 2>&1 &)
exec '{c4}' --agent random
",
            loot = loot.display(),
            students = root.join("students").display(),
            c4 = c4.display(),
        ),
    );
    let spec = |name: &str| {
        let dir = root.join("students").join(name);
        format!(
            "name={name},dir={},cmd={},movetime=20",
            dir.display(),
            dir.join("engine").display()
        )
    };
    let out = Command::new(arena_path())
        .args([
            "match",
            "--engine",
            &spec("alice"),
            "--engine",
            &spec("mallory"),
        ])
        .args([
            "--games",
            "4",
            "--concurrency",
            "2",
            "--time-margin",
            UNHURRIED_MARGIN_MS,
        ])
        .args(["--isolate", "--uid-base", "53000", "--log"])
        .arg(root.join("games.jsonl"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = |name: &str| std::fs::read_to_string(loot.join(name)).unwrap_or_default();
    // It ran in its own copy, beside the classmate's.
    assert!(
        got("where").trim_end().ends_with("/engine-1"),
        "{}",
        got("where")
    );
    assert_eq!(got("original"), "", "the classmate's folder was read");
    assert_eq!(got("copy"), "", "the classmate's copy was read");
    assert_eq!(
        std::fs::read_to_string(root.join("students/alice/engine")).unwrap(),
        alice
    );
    let log = read_log(&root.join("games.jsonl"));
    assert_eq!(log.len(), 4);
    for g in &log {
        assert!(
            !(g.reason.is_forfeit() && g.loser() == Some("alice")),
            "alice lost by {}: {:?}",
            g.reason,
            g.detail
        );
    }
    assert_eq!(
        processes_of_users(53000..57000, "sleep 317"),
        Vec::<u32>::new()
    );
}

/// Issue #70, item 3: a league's folder from before the database's schema
/// had a version: its status is what that program printed, games and
/// ratings unchanged.
#[test]
fn a_league_of_the_unversioned_schema_shows_the_same_status() {
    let root = scratch("league-schema-0");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/league/fixtures");
    std::fs::create_dir_all(root.join("league")).unwrap();
    std::fs::copy(
        fixtures.join("league-schema-0.db"),
        root.join("league/league.db"),
    )
    .unwrap();
    let before = std::fs::read_to_string(fixtures.join("league-schema-0.status.txt")).unwrap();
    let status = Command::new(arena_path())
        .args(["league", "--dir"])
        .arg(root.join("league"))
        .arg("--status")
        .output()
        .unwrap();
    assert!(status.status.success(), "{status:?}");
    assert_eq!(String::from_utf8(status.stdout).unwrap(), before);
}
