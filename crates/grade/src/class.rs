//! `grade --submissions DIR`: a whole class at once. Every folder in `DIR`
//! is one student's submission, graded as `grade --submission` grades it,
//! each grading a process of its own (so one submission that crashes or
//! hangs the grader costs its own row, not the class's), up to `--jobs` at
//! once. Into `--out` go, per student, `NAME/results.json` (Gradescope's),
//! `NAME/games.jsonl` (every game the tests counted, for `serve --log` and
//! `report`) and `NAME/grade.log` (what the grading printed); for the
//! class, `grades.csv` (a score per test and the total, one row per
//! student) and `index.html` (the class's results, every student's
//! feedback readable in the browser; a file, no server).
//!
//! A submission that already has its `results.json` is not graded again
//! unless `--regrade` says so: a class interrupted part way goes on where
//! it stopped. `--shard I/N` grades every N-th submission from the I-th,
//! for a Slurm job array whose tasks share `--out`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::{Context, Result, bail};

use crate::class_page::{self, Graded};
use crate::grading::{Args, config};
use crate::report::GradescopeResults;

/// Grades every submission of `dir` into `args.out`, then writes the CSV
/// and the class page from every student's results there.
pub fn run(args: &Args, dir: &Path) -> Result<ExitCode> {
    let out = &args.out;
    check_folders(dir, out)?;
    let names = submissions(dir)?;
    if args.check {
        config(args)?;
        println!(
            "{} submission(s) in {}: {}; the config reads",
            names.len(),
            dir.display(),
            names.join(", ")
        );
        return Ok(ExitCode::SUCCESS);
    }
    isolation_asked(args)?;
    if args.isolate {
        hide_paths()?;
        connect4_match::sandbox::close_to_others(dir, "--submissions")?;
        if let Some(config) = &args.config {
            connect4_match::sandbox::close_to_others(config, "--config")?;
        }
    }
    create_out(args, out)?;
    let (shard, shards) = args.shard.map_or((1, 1), |s| (s.index, s.count));
    let mine: Vec<&String> = names
        .iter()
        .enumerate()
        .filter(|(i, _)| *i as u64 % shards == shard - 1)
        .map(|(_, n)| n)
        .collect();
    let todo: Vec<&String> = mine
        .into_iter()
        .filter(|n| args.regrade || !out.join(n).join("results.json").exists())
        .collect();
    println!(
        "grading {} of {} submission(s) in {} ({} job(s) at once)",
        todo.len(),
        names.len(),
        dir.display(),
        jobs(args)
    );
    let kept = grade_all(args, dir, &todo)?;
    // A row graded by this run is as its grading left it at its end (read
    // then, before the next student's code ran); the others from --out.
    let class: Vec<Graded> = names
        .iter()
        .map(|n| {
            kept.iter()
                .find(|g| &g.name == n)
                .cloned()
                .unwrap_or_else(|| read(out, n, args.no_isolation))
        })
        .collect();
    let csv = out.join("grades.csv");
    connect4::atomic_file::write(&csv, to_csv(&class))
        .with_context(|| format!("writing {}", csv.display()))?;
    let page = out.join("index.html");
    connect4::atomic_file::write(
        &page,
        class_page::page(
            &class,
            &dir.display().to_string(),
            args.no_isolation.then_some(NO_ISOLATION),
        ),
    )
    .with_context(|| format!("writing {}", page.display()))?;
    let graded = class.iter().filter(|g| g.results.is_some()).count();
    println!(
        "wrote {} and {} ({graded} of {} with results)",
        csv.display(),
        page.display(),
        class.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// The submissions folder and the output folder are apart: neither holds
/// the other (a grading writes nothing among the students' files, and
/// reads no output as a submission).
fn check_folders(dir: &Path, out: &Path) -> Result<()> {
    if !dir.is_dir() {
        bail!("--submissions {}: not a folder", dir.display());
    }
    let dir = dir
        .canonicalize()
        .with_context(|| format!("reading {}", dir.display()))?;
    let out_abs = resolved(out)?;
    if out_abs.starts_with(&dir) || dir.starts_with(&out_abs) {
        bail!(
            "--out {} and --submissions {} overlap: the grades would be written among the \
             submissions (or the submissions read from the grades); give two folders apart",
            out.display(),
            dir.display()
        );
    }
    Ok(())
}

/// `path` made absolute with its existing part's links resolved.
fn resolved(path: &Path) -> Result<PathBuf> {
    let absolute = std::path::absolute(path).with_context(|| format!("{}", path.display()))?;
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    while !existing.exists() {
        rest.push(existing.file_name().unwrap_or_default().to_owned());
        existing = existing.parent().unwrap_or(Path::new("/"));
    }
    let mut resolved = existing.canonicalize()?;
    resolved.extend(rest.iter().rev());
    Ok(resolved)
}

/// The names of the submission folders of `dir`, sorted (hidden ones and
/// files left out), none being an error.
fn submissions(dir: &Path) -> Result<Vec<String>> {
    let names = student_folders(dir)?;
    if names.is_empty() {
        bail!(
            "--submissions {}: no submission folders in it (one folder per student)",
            dir.display()
        );
    }
    Ok(names)
}

/// The names of the folders of `dir`, one per student, sorted: hidden
/// ones and files left out, and a name that is not UTF-8 left out with a
/// warning. The bulk grading and the league read a class's folder so.
pub fn student_folders(dir: &Path) -> Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let entry = entry.with_context(|| format!("reading {}", dir.display()))?;
        let Ok(name) = entry.file_name().into_string() else {
            eprintln!(
                "connect4-arena: {}: a folder name that is not UTF-8, left out",
                entry.path().display()
            );
            continue;
        };
        // The entry's own type: a link is not followed, so that a link to
        // another folder (a classmate's) never enters under a new name.
        let kind = entry
            .file_type()
            .with_context(|| format!("reading {}", entry.path().display()))?;
        if name.starts_with('.') {
            continue;
        }
        if kind.is_dir() {
            names.push(name);
        } else if !kind.is_file() {
            eprintln!(
                "connect4-arena: {}: {}, not a submission folder: left out",
                entry.path().display(),
                connect4_match::sandbox::kind_in_words(kind)
            );
        }
    }
    names.sort();
    Ok(names)
}

/// Gradings at once: `--jobs`, else one under `--isolate` (the gradings
/// take turns at the student's user) and otherwise as many as the cores
/// hold at each grading's concurrency.
fn jobs(args: &Args) -> usize {
    if let Some(jobs) = args.jobs {
        return jobs;
    }
    if args.isolate {
        return 1;
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (cores / args.concurrency.unwrap_or(cores).max(1)).max(1)
}

/// Whether the class may be graded as asked: under `--isolate` as root,
/// or without isolation only when `--no-isolation` says so in words.
fn isolation_asked(args: &Args) -> Result<()> {
    if args.no_isolation {
        eprintln!("grade: {NO_ISOLATION}");
        return Ok(());
    }
    if !args.isolate {
        bail!(
            "grading a class runs every student's code: give --isolate (as root: each \
             submission as its own user, apart from the others and the grades), or \
             --no-isolation to run it as your own user, where one student's code can read \
             and rewrite the others' rows"
        );
    }
    if let Err(why) = connect4_match::sandbox::isolation_available() {
        bail!(
            "--isolate: {why}; run the class's grading as root, or give --no-isolation \
             instead of --isolate to grade without it"
        );
    }
    Ok(())
}

/// The options whose paths a student's code must not learn, and the
/// variables that carry them instead.
const HIDDEN: [(&str, &str); 3] = [
    ("--submissions", "CONNECT4_GRADE_SUBMISSIONS"),
    ("--out", "CONNECT4_GRADE_OUT"),
    ("--config", "CONNECT4_GRADE_CONFIG"),
];

/// Starts this program again with the class folder, `--out` and
/// `--config` moved from its command line (every user's to read in
/// `/proc`) into its environment (root's alone), when the command line
/// holds them; returns when it does not.
fn hide_paths() -> Result<()> {
    let argv: Vec<OsString> = std::env::args_os().collect();
    let mut kept = Vec::new();
    let mut moved = Vec::new();
    let mut words = argv.iter().skip(1);
    while let Some(word) = words.next() {
        let text = word.to_string_lossy();
        let flag = HIDDEN
            .iter()
            .find(|(flag, _)| text == *flag || text.starts_with(&format!("{flag}=")));
        match flag {
            Some((flag, variable)) if text == *flag => match words.next() {
                Some(value) => moved.push((*variable, value.clone())),
                None => kept.push(word.clone()),
            },
            Some((flag, variable)) => {
                moved.push((*variable, OsString::from(&text[flag.len() + 1..])));
            }
            None => kept.push(word.clone()),
        }
    }
    if moved.is_empty() {
        return Ok(());
    }
    use std::os::unix::process::CommandExt;
    let program = std::env::current_exe().context("finding this program")?;
    let error = Command::new(program).args(kept).envs(moved).exec();
    Err(anyhow::Error::new(error)
        .context("starting the grading again without its paths on the command line"))
}

/// What every row and the class page say of a class graded with
/// `--no-isolation`.
pub const NO_ISOLATION: &str = "isolation was off (--no-isolation): each student's code ran \
    as the grader's own user and could have read or changed other students' files and results";

/// Makes `out`; under isolation, closed to every other user (the
/// students' code runs as other users and must not read a row).
fn create_out(args: &Args, out: &Path) -> Result<()> {
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    if args.isolate {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(out, std::fs::Permissions::from_mode(0o700))
            .with_context(|| format!("closing {} to other users", out.display()))?;
    }
    Ok(())
}

/// Grades `todo` on [`jobs`] threads, each grading a process of its own;
/// the rows as each grading wrote them, read when it ended.
fn grade_all(args: &Args, dir: &Path, todo: &[&String]) -> Result<Vec<Graded>> {
    let program = std::env::current_exe().context("finding this program")?;
    let next = AtomicUsize::new(0);
    let kept = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..jobs(args).min(todo.len()) {
            scope.spawn(|| {
                while let Some(name) = todo.get(next.fetch_add(1, Ordering::Relaxed)) {
                    match grade_one(&program, args, dir, name) {
                        Ok(graded) => kept.lock().unwrap_or_else(|e| e.into_inner()).push(graded),
                        Err(e) => eprintln!("grade: {name}: {e:#}"),
                    }
                }
            });
        }
    });
    Ok(kept.into_inner().unwrap_or_else(|e| e.into_inner()))
}

/// Grades submission `name` in a process of its own, stopped past
/// `--grading-limit`; says how it went, and gives the row as it stands
/// when the grading ended.
fn grade_one(program: &Path, args: &Args, dir: &Path, name: &str) -> Result<Graded> {
    let folder = args.out.join(name);
    std::fs::create_dir_all(&folder).with_context(|| format!("creating {}", folder.display()))?;
    let log = std::fs::File::create(folder.join("grade.log"))
        .with_context(|| format!("creating {}", folder.join("grade.log").display()))?;
    let mut command = grading_command(program, args, &dir.join(name), &folder);
    command
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log);
    connect4_match::group::own_group(&mut command);
    let started = Instant::now();
    let child = connect4_match::group::spawn_held(&mut command)
        .with_context(|| format!("starting {}", program.display()))?;
    let pid = child.id();
    let status = wait_at_most(child, std::time::Duration::from_secs(args.grading_limit));
    connect4_match::group::let_go(pid);
    // What the grading left running outside its group (a stopped grading's
    // engines, a daemon) came back to this process: it ends here.
    connect4_match::group::end_orphans();
    let status = status?;
    if args.isolate {
        // Whatever of the student's the stopped grading left running.
        if let Ok(student) = connect4_match::sandbox::Account::lookup(&args.student_user) {
            connect4_match::sandbox::kill_user(student.uid);
        }
    }
    let Some(status) = status else {
        let message = format!(
            "The grading was stopped after {} s, the most a grading may take here \
             (--grading-limit): no points. Please tell your instructor.",
            args.grading_limit
        );
        crate::report::write(
            &crate::report::failed(&message),
            &folder.join("results.json"),
        )?;
        println!(
            "{name}: stopped after {} s (--grading-limit)",
            args.grading_limit
        );
        return kept(&args.out, name, args.no_isolation);
    };
    let graded = kept(&args.out, name, args.no_isolation)?;
    match (&graded.results, status.success()) {
        (Some(r), _) => println!(
            "{name}: {:.2} / {} ({:.0} s)",
            r.score,
            r.tests.iter().map(|t| t.max_score).sum::<f64>(),
            started.elapsed().as_secs_f64()
        ),
        (None, _) => println!(
            "{name}: no results ({status}; see {})",
            folder.join("grade.log").display()
        ),
    }
    Ok(graded)
}

/// The command that grades `submission` into `folder`, with the options
/// every grading of the class gets.
fn grading_command(program: &Path, args: &Args, submission: &Path, folder: &Path) -> Command {
    let mut command = Command::new(program);
    command
        .arg("grade")
        .env_remove("CONNECT4_GRADE_SUBMISSIONS")
        .env_remove("CONNECT4_GRADE_OUT");
    // The paths go in the grading's environment, which only root can read
    // (its command line is every user's to read in /proc, and would name
    // the class's folder, the config and the outputs to the student).
    let paths = [
        (
            "--submission",
            "CONNECT4_GRADE_SUBMISSION",
            submission.to_path_buf(),
        ),
        (
            "--results",
            "CONNECT4_GRADE_RESULTS",
            folder.join("results.json"),
        ),
        ("--log", "CONNECT4_GRADE_LOG", folder.join("games.jsonl")),
    ];
    let config = args
        .config
        .iter()
        .map(|c| ("--config", "CONNECT4_GRADE_CONFIG", c.clone()));
    for (flag, variable, path) in paths.into_iter().chain(config) {
        match args.isolate {
            true => _ = command.env(variable, path),
            false => _ = command.arg(flag).arg(path),
        }
    }
    command.args(passed_on(args));
    command
}

/// Waits for `child` (the leader of its process group) for at most
/// `limit`; past it, kills the group: the status, or `None` when killed.
fn wait_at_most(
    mut child: std::process::Child,
    limit: std::time::Duration,
) -> Result<Option<std::process::ExitStatus>> {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if started.elapsed() > limit {
            connect4_match::group::kill_group(&child);
            child.wait()?;
            return Ok(None);
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// The options of `grade` each student's grading gets as they were given.
fn passed_on(args: &Args) -> Vec<OsString> {
    let mut out: Vec<OsString> = Vec::new();
    let mut pass = |flag: &str, value: Option<String>| {
        if let Some(v) = value {
            out.push(flag.into());
            out.push(v.into());
        }
    };
    pass("--kind", args.kind.map(|k| k.name().to_string()));
    pass("--games", args.games.map(|n| n.to_string()));
    pass("--pass-rate", args.pass_rate.map(|n| n.to_string()));
    pass("--match-games", args.match_games.map(|n| n.to_string()));
    pass("--tactics", args.tactics.map(|n| n.to_string()));
    pass("--seed", args.seed.map(|n| n.to_string()));
    pass("--concurrency", args.concurrency.map(|n| n.to_string()));
    pass("--time-margin", args.time_margin.map(|n| n.to_string()));
    pass("--student-user", Some(args.student_user.clone()));
    pass("--reference-user", Some(args.reference_user.clone()));
    pass("--python", Some(args.python.clone()));
    if args.isolate {
        out.push("--isolate".into());
    }
    out
}

/// Student `name`'s row as their grading left it; without isolation,
/// its `results.json` says so too.
fn kept(out: &Path, name: &str, unisolated: bool) -> Result<Graded> {
    let graded = read(out, name, unisolated);
    if let (true, Some(results)) = (unisolated, &graded.results) {
        crate::report::write(results, &out.join(name).join("results.json"))?;
    }
    Ok(graded)
}

/// Student `name`'s results in `out`, or why there are none; with
/// `unisolated`, saying that isolation was off.
fn read(out: &Path, name: &str, unisolated: bool) -> Graded {
    let path = out.join(name).join("results.json");
    let (results, trouble) = match std::fs::read_to_string(&path) {
        Err(_) => (None, Some("not graded: no results.json".to_string())),
        Ok(text) => match serde_json::from_str::<GradescopeResults>(&text) {
            Ok(r) => (Some(r), None),
            Err(e) => (None, Some(format!("{}: {e}", path.display()))),
        },
    };
    let results = results.map(|mut r| {
        if unisolated && !r.output.contains(NO_ISOLATION) {
            r.output = format!("{}\n\n{NO_ISOLATION}", r.output.trim_end());
        }
        r
    });
    Graded {
        name: name.to_string(),
        results,
        trouble,
    }
}

/// The class as CSV: a column per test (the names of the first results
/// that have tests), the total and its maximum, and a note.
fn to_csv(class: &[Graded]) -> String {
    let tests: Vec<String> = class
        .iter()
        .filter_map(|g| g.results.as_ref())
        .find(|r| !r.tests.is_empty())
        .map(|r| r.tests.iter().map(|t| t.name.clone()).collect())
        .unwrap_or_default();
    let mut head = vec!["student".to_string()];
    head.extend(tests.iter().cloned());
    head.extend(["total".to_string(), "max".to_string(), "note".to_string()]);
    let mut lines = vec![csv_line(&head)];
    for g in class {
        let mut row = vec![g.name.clone()];
        match &g.results {
            Some(r) => {
                for name in &tests {
                    let score = r.tests.iter().find(|t| &t.name == name);
                    row.push(score.map_or(String::new(), |t| format!("{}", t.score)));
                }
                let max: f64 = r.tests.iter().map(|t| t.max_score).sum();
                row.extend([format!("{}", r.score), format!("{max}")]);
                row.push(if r.tests.is_empty() {
                    r.output.lines().next().unwrap_or("").to_string()
                } else {
                    String::new()
                });
            }
            None => {
                row.extend(tests.iter().map(|_| String::new()));
                row.extend([String::new(), String::new()]);
                row.push(g.trouble.clone().unwrap_or_default());
            }
        }
        lines.push(csv_line(&row));
    }
    lines.join("\n") + "\n"
}

/// One CSV line: fields quoted when they hold a comma, a quote or a line
/// break, and a leading `=`, `+`, `-` or `@` kept from becoming a formula
/// in a spreadsheet (a student names their own folder).
pub fn csv_line(fields: &[String]) -> String {
    fields
        .iter()
        .map(|f| {
            let f = if f.starts_with(['=', '+', '@'])
                || (f.starts_with('-') && f.parse::<f64>().is_err())
            {
                format!("'{f}")
            } else {
                f.clone()
            };
            if f.contains([',', '"', '\n', '\r']) {
                format!("\"{}\"", f.replace('"', "\"\""))
            } else {
                f
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::TestResult;

    fn results(scores: &[(&str, f64, f64)]) -> GradescopeResults {
        GradescopeResults {
            score: scores.iter().map(|s| s.1).sum(),
            output: String::new(),
            output_format: None,
            test_output_format: None,
            execution_time: None,
            stdout_visibility: None,
            tests: scores
                .iter()
                .map(|(name, score, max)| TestResult {
                    name: name.to_string(),
                    score: *score,
                    max_score: *max,
                    status: "passed".into(),
                    output: String::new(),
                    visibility: None,
                })
                .collect(),
            leaderboard: Vec::new(),
        }
    }

    #[test]
    fn the_csv_has_a_column_per_test_and_a_row_per_student() {
        let class = [
            Graded {
                name: "alice".into(),
                results: Some(results(&[
                    ("Wins, first", 20.0, 20.0),
                    ("Tactics", 7.5, 15.0),
                ])),
                trouble: None,
            },
            Graded {
                name: "=HYPERLINK(\"x\")".into(),
                results: None,
                trouble: Some("not graded: no results.json".into()),
            },
        ];
        let csv = to_csv(&class);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], "student,\"Wins, first\",Tactics,total,max,note");
        assert_eq!(lines[1], "alice,20,7.5,27.5,35,");
        assert_eq!(
            lines[2],
            "\"'=HYPERLINK(\"\"x\"\")\",,,,,not graded: no results.json"
        );
    }

    #[test]
    fn the_output_folder_may_not_hold_the_submissions_or_lie_among_them() {
        let dir = std::env::temp_dir().join(format!("c4-class-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("subs/alice")).unwrap();
        let inside = check_folders(&dir.join("subs"), &dir.join("subs/grades")).unwrap_err();
        assert!(inside.to_string().contains("overlap"), "{inside}");
        assert!(check_folders(&dir.join("subs"), &dir).is_err());
        assert!(check_folders(&dir.join("subs"), &dir.join("grades")).is_ok());
        let none = submissions(&dir.join("subs/alice")).unwrap_err();
        assert!(none.to_string().contains("no submission folders"), "{none}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
