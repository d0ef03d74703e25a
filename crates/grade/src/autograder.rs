//! `autograder`: writes a Gradescope autograder as one zip that instructors
//! upload as it is.
//!
//! | in the zip | what it is |
//! |---|---|
//! | `setup.sh` | run once by Gradescope as root: Python venv, numpy, the bridge, two users |
//! | `run_autograder` | run per submission: `connect4-arena grade --isolate` with the config |
//! | `config.toml` | the grading config (the one given, or the kind's defaults) |
//! | `bin/connect4-arena` | this binary (the grader, the reference engines) |
//! | `python/*.whl` | the Python bridge as a wheel, installed offline, and the `--wheels` given (numpy's) |
//! | `include/NAME/` | each `--include` folder (on a policy's import path by default) |
//! | `rust/` | the workspace this binary was built from (every crate, no tests), built by `setup.sh` if the binary does not run there |
//!
//! Every path in the scripts derives from `AUTOGRADER_ROOT` (default
//! `/autograder`), so the zip runs unchanged in a test folder.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use zip::write::SimpleFileOptions;

use super::config::{Config, DEFAULT_TESTS, SubmissionKind};

/// Arguments of `autograder`.
#[derive(clap::Args)]
pub struct Args {
    /// What students submit: engine, policy or kaggle (the config's kind
    /// when a config is given).
    #[arg(long, required_unless_present = "config")]
    pub kind: Option<SubmissionKind>,
    /// The grading config (TOML; see docs/grading.md); default: the kind's
    /// standard tests.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// A folder to bundle as include/NAME (repeatable): the course's own
    /// package, the instructor's reference engines or policies.
    #[arg(long)]
    pub include: Vec<PathBuf>,
    /// The zip to write.
    #[arg(long, default_value = "autograder.zip")]
    pub out: PathBuf,
    /// The source to bundle for images where the binary does not run
    /// (default: the one this binary was built from, if it is there).
    #[arg(long)]
    pub source: Option<PathBuf>,
    /// Bundle no source (a smaller zip; the image must run the binary).
    #[arg(long, conflicts_with = "source")]
    pub no_source: bool,
    /// Carry every wheel in this folder (numpy's for the image's Python,
    /// from `pip download numpy --only-binary=:all: --python-version 3.10
    /// --platform manylinux2014_x86_64 -d DIR`): setup.sh installs numpy
    /// from it without the network.
    #[arg(long, value_name = "DIR")]
    pub wheels: Option<PathBuf>,
}

const SETUP: &str = include_str!("gradescope/setup.sh");
const RUN: &str = include_str!("gradescope/run_autograder");

/// The zip as it is made, in memory.
type InMemory = std::io::Cursor<Vec<u8>>;

/// Adds every `.whl` of `dir` as `python/NAME`; a folder with none is an
/// error (the flag was given for a reason).
fn add_wheels(
    zip: &mut zip::ZipWriter<InMemory>,
    dir: &Path,
    options: SimpleFileOptions,
) -> Result<()> {
    let mut wheels: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("--wheels {}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "whl") && p.is_file())
        .collect();
    wheels.sort();
    if wheels.is_empty() {
        bail!(
            "--wheels {}: no .whl file there (pip download numpy --only-binary=:all: -d {} \
             fetches numpy's)",
            dir.display(),
            dir.display()
        );
    }
    for wheel in wheels {
        let name = wheel
            .file_name()
            .expect("a file")
            .to_string_lossy()
            .into_owned();
        let bytes =
            std::fs::read(&wheel).with_context(|| format!("reading {}", wheel.display()))?;
        put(zip, &format!("python/{name}"), options, &bytes)?;
    }
    Ok(())
}

/// The files of the workspace that build the binary (no tests, no data):
/// every member's manifest and source, and of `book/` only the shipped
/// book the library embeds (never a layer still being built beside it).
const SOURCE_PARTS: [&str; 10] = [
    "Cargo.toml",
    "Cargo.lock",
    "src",
    "book/7x6x4.c4book",
    "arena/Cargo.toml",
    "arena/src",
    "crates",
    // The protocol's schema and README, which the library embeds.
    "protocol",
    // What the build reads of the bridge (its wheel is made from these),
    // never pip's leftovers or the tests.
    "python/pyproject.toml",
    "python/src",
];

/// The workspace whose source goes in the zip: `--source`, checked; none
/// with `--no-source`; else the one this program was built in, if found.
fn source_to_bundle(args: &Args) -> Result<Option<PathBuf>> {
    Ok(match (&args.source, args.no_source) {
        (_, true) => None,
        (Some(s), false) => {
            if !s.join("Cargo.lock").is_file() || !s.join("arena/Cargo.toml").is_file() {
                bail!(
                    "--source {}: expected the connect4 workspace (Cargo.lock, arena/Cargo.toml)",
                    s.display()
                );
            }
            Some(s.clone())
        }
        (None, false) => crate::kit::built_from()
            .filter(|s| s.join("Cargo.lock").is_file())
            .map(|s| s.canonicalize().unwrap_or(s)),
    })
}

/// Writes the zip.
pub fn run(args: &Args) -> Result<ExitCode> {
    let includes = check_includes(&args.include)?;
    let (config_text, kind) = config_text(args, &includes)?;
    let me = std::env::current_exe().context("finding this program")?;
    let source = source_to_bundle(args)?;
    connect4_match::outputs::Files::new()
        .input("--config", args.config.as_deref())
        .output("--out", Some(&args.out))
        .check()?;
    // Made in memory, then written whole: a zip cut short is never left.
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let deflated = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .large_file(false);
    let text = deflated.unix_permissions(0o644);
    let exec = deflated.unix_permissions(0o755);
    put(&mut zip, "setup.sh", exec, SETUP.as_bytes())?;
    put(&mut zip, "run_autograder", exec, RUN.as_bytes())?;
    put(&mut zip, "config.toml", text, config_text.as_bytes())?;
    let binary = std::fs::read(&me).with_context(|| format!("reading {}", me.display()))?;
    put(&mut zip, "bin/connect4-arena", exec, &binary)?;
    let wheel = super::bridges::build();
    put(
        &mut zip,
        &format!("python/{}", wheel.file_name),
        text,
        &wheel.bytes,
    )?;
    if let Some(dir) = &args.wheels {
        add_wheels(&mut zip, dir, text)?;
    }
    for (name, dir) in &includes {
        let root = format!("include/{name}");
        add_folder(&mut zip, dir, (&root, &root), text, exec)?;
    }
    let readable = student_readable(&config_text, &includes);
    put(
        &mut zip,
        "student-readable.txt",
        text,
        readable.join("\n").as_bytes(),
    )?;
    if let Some(root) = &source {
        for part in SOURCE_PARTS {
            let path = root.join(part);
            if path.is_dir() {
                add_folder(
                    &mut zip,
                    &path,
                    ("rust", &format!("rust/{part}")),
                    text,
                    exec,
                )?;
            } else if path.is_file() {
                add_file(&mut zip, &path, &format!("rust/{part}"), text, exec)?;
            }
        }
    }
    let bytes = zip
        .finish()
        .with_context(|| format!("writing {}", args.out.display()))?
        .into_inner();
    connect4::atomic_file::write(&args.out, bytes)
        .with_context(|| format!("writing {}", args.out.display()))?;
    let size = std::fs::metadata(&args.out).map(|m| m.len()).unwrap_or(0);
    println!(
        "wrote {} ({:.1} MB), an autograder for {} submissions: upload it as the \
         assignment's autograder (Ubuntu 22.04 base image){}",
        args.out.display(),
        size as f64 / 1e6,
        kind.name(),
        if source.is_some() {
            ""
        } else {
            "; no source bundled"
        }
    );
    Ok(ExitCode::SUCCESS)
}

/// The included folders (`include/NAME`) that student code may read: all
/// but those holding a reference player of the config, which only the
/// references' user may read (setup.sh closes the rest of the source,
/// the grader and its perfect player included, to the student). A folder
/// both on the students' import path and holding a reference is closed,
/// with a warning: students could otherwise read the reference.
fn student_readable(config_text: &str, includes: &[(String, PathBuf)]) -> Vec<String> {
    let Ok(config) = Config::parse(config_text, Path::new("config.toml"), PathBuf::new()) else {
        return Vec::new();
    };
    let private: Vec<&str> = config
        .tests
        .iter()
        .filter_map(|t| t.opponent.as_ref()?.path())
        .filter_map(|p| {
            let mut parts = p.components().filter(|c| c.as_os_str() != ".");
            (parts.next()?.as_os_str() == "include").then_some(())?;
            parts.next()?.as_os_str().to_str()
        })
        .filter_map(|name| {
            includes
                .iter()
                .find(|(n, _)| n == name)
                .map(|(n, _)| n.as_str())
        })
        .collect();
    for name in &private {
        let folder = format!("include/{name}");
        if config
            .submission
            .python_path
            .iter()
            .any(|p| p.trim_end_matches('/') == folder)
        {
            eprintln!(
                "warning: {folder} holds a reference player and is on the students' import \
                 path; it is closed to students, so they cannot import from it: put reference \
                 players in a folder of their own"
            );
        }
    }
    includes
        .iter()
        .filter(|(n, _)| !private.contains(&n.as_str()))
        .map(|(n, _)| format!("include/{n}"))
        .collect()
}

/// Each `--include` folder with its name in the zip; names must differ.
fn check_includes(folders: &[PathBuf]) -> Result<Vec<(String, PathBuf)>> {
    let mut out: Vec<(String, PathBuf)> = Vec::new();
    for dir in folders {
        if !dir.is_dir() {
            bail!("--include {}: not a folder", dir.display());
        }
        let canonical = dir
            .canonicalize()
            .with_context(|| format!("--include {}", dir.display()))?;
        let name = canonical
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .with_context(|| format!("--include {}: a folder with a name", dir.display()))?;
        if out.iter().any(|(n, _)| n == &name) {
            bail!(
                "--include {}: another included folder is also named '{name}'",
                dir.display()
            );
        }
        out.push((name, canonical));
    }
    Ok(out)
}

/// The config to bundle and its kind: the file given (checked), or the
/// kind's defaults with the included folders on the import path.
fn config_text(args: &Args, includes: &[(String, PathBuf)]) -> Result<(String, SubmissionKind)> {
    match &args.config {
        Some(path) => {
            let config = Config::load(path)?;
            let kind = config.submission.kind;
            if let Some(k) = args.kind
                && k != kind
            {
                bail!(
                    "--kind {} but the config {} says kind = \"{}\"",
                    k.name(),
                    path.display(),
                    kind.name()
                );
            }
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            Ok((text, kind))
        }
        None => {
            let kind = args.kind.unwrap_or_default();
            let mut text = format!(
                "# The standard tests for a {} submission (see docs/grading.md).\n\
                 [submission]\nkind = \"{}\"\n",
                kind.name(),
                kind.name()
            );
            if kind != SubmissionKind::Engine && !includes.is_empty() {
                let mut paths = vec!["\"include\"".to_string()];
                paths.extend(includes.iter().map(|(n, _)| format!("\"include/{n}\"")));
                text.push_str(&format!("python_path = [{}]\n", paths.join(", ")));
            }
            text.push_str(DEFAULT_TESTS);
            Config::parse(&text, Path::new("(defaults)"), PathBuf::from("."))
                .expect("the defaults are valid");
            Ok((text, kind))
        }
    }
}

/// Adds the files under `dir` as `prefix/...`, in the bundle's folder
/// `root` (executables stay executable; `target` folders, caches and
/// hidden files are left out; a link to a place inside `root`, such as
/// crates/grade/python to python/, stays a link).
fn add_folder(
    zip: &mut zip::ZipWriter<InMemory>,
    dir: &Path,
    (root, prefix): (&str, &str),
    text: SimpleFileOptions,
    exec: SimpleFileOptions,
) -> Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .flatten()
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.')
            || name == "target"
            || name == "__pycache__"
            || name.ends_with(".egg-info")
        {
            continue;
        }
        let path = entry.path();
        let inner = format!("{prefix}/{name}");
        if let Some(target) = link_inside(&path, root, prefix) {
            zip.add_symlink(inner.as_str(), target, text)?;
            continue;
        }
        let meta =
            std::fs::metadata(&path).with_context(|| format!("reading {}", path.display()))?;
        if meta.is_dir() {
            add_folder(zip, &path, (root, &inner), text, exec)?;
        } else if meta.is_file() {
            add_file(zip, &path, &inner, text, exec)?;
        }
    }
    Ok(())
}

/// The target of `path` when it is a link, in the bundle's folder `prefix`,
/// to a place inside the bundle's folder `root`, as written (relative).
fn link_inside(path: &Path, root: &str, prefix: &str) -> Option<String> {
    use std::path::Component;
    if !std::fs::symlink_metadata(path)
        .ok()?
        .file_type()
        .is_symlink()
    {
        return None;
    }
    let target = std::fs::read_link(path).ok()?;
    let mut depth = prefix
        .strip_prefix(root)?
        .split('/')
        .filter(|p| !p.is_empty())
        .count();
    for part in target.components() {
        match part {
            Component::ParentDir => depth = depth.checked_sub(1)?,
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    target.to_str().map(str::to_string)
}

/// Adds the file at `path` as `name`, executable (`exec`) if it is one.
fn add_file(
    zip: &mut zip::ZipWriter<InMemory>,
    path: &Path,
    name: &str,
    text: SimpleFileOptions,
    exec: SimpleFileOptions,
) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(path).with_context(|| format!("reading {}", path.display()))?;
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let options = if meta.permissions().mode() & 0o111 != 0 {
        exec
    } else {
        text
    };
    put(zip, name, options, &bytes)
}

/// Adds `bytes` as the file `name`.
fn put(
    zip: &mut zip::ZipWriter<InMemory>,
    name: &str,
    options: SimpleFileOptions,
    bytes: &[u8],
) -> Result<()> {
    zip.start_file(name, options)?;
    zip.write_all(bytes)?;
    Ok(())
}
