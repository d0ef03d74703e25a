//! `kit`: what an instructor hands students who have Python and no Rust.
//!
//! One wheel, built by maturin from the repository's `kit/` project (the
//! engine's and the arena's programs, with the Python bridges beside them),
//! so that `pip install` puts `connect4`, `connect4-arena`,
//! `connect4-policy` and `connect4-kaggle` on the PATH; and, from the
//! instructor's grading config, its visible tests, so that a student grades
//! with exactly those in one command.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Context, Result, bail};

use crate::grade::config::Config;

/// Arguments of `kit`.
#[derive(clap::Args)]
pub struct Args {
    /// The folder the kit is written to (made if missing).
    #[arg(long)]
    pub out: PathBuf,
    /// The instructor's grading config: its visible tests go in the kit as
    /// visible-tests.toml.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// The repository the kit is built from (default: the one this program
    /// was built in, found above the program's own path).
    #[arg(long)]
    pub source: Option<PathBuf>,
    /// The maturin program that builds the wheel.
    #[arg(long, default_value = "maturin")]
    pub maturin: String,
}

/// Builds the wheel and writes the kit.
pub fn run(args: &Args) -> Result<ExitCode> {
    let source = match &args.source {
        Some(s) => s.clone(),
        None => built_from().context(
            "this program was not run from a build of the connect4 repository (the kit's \
             programs hold no path of the machine they were built on): give it with --source",
        )?,
    };
    let kit = source.join("kit");
    if !kit.join("pyproject.toml").is_file() || !source.join("python/src/c4bridge").is_dir() {
        bail!(
            "{}: expected the connect4 repository (kit/pyproject.toml, python/src/c4bridge); \
             give it with --source",
            source.display()
        );
    }
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    let visible = args
        .config
        .as_deref()
        .map(|config| visible_tests(config, &args.out))
        .transpose()?;
    stage_bridges(&source)?;
    build_wheel(&args.maturin, &kit, &args.out)?;
    if let Some(text) = &visible {
        let path = args.out.join("visible-tests.toml");
        connect4::atomic_file::write(&path, text)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    // The students' page: a student with the kit alone has no repository.
    let page = source.join("docs/students.md");
    let students = std::fs::read(&page).with_context(|| format!("reading {}", page.display()))?;
    connect4::atomic_file::write(&args.out.join("students.md"), students)
        .with_context(|| format!("writing {}", args.out.join("students.md").display()))?;
    let readme = args.out.join("README.txt");
    connect4::atomic_file::write(&readme, readme_text(visible.is_some()))
        .with_context(|| format!("writing {}", readme.display()))?;
    println!(
        "wrote the kit in {}: the wheel, {}students.md, README.txt; students install it with \
         pip install {}/connect4_kit-*.whl",
        args.out.display(),
        if visible.is_some() {
            "visible-tests.toml, "
        } else {
            ""
        },
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The repository this program was built in: the folder above its
/// `target/` (cargo's build of `target/release/connect4-arena`), found
/// from the program's path so that no path of the build machine is
/// compiled into it.
pub fn built_from() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    exe.ancestors()
        .find(|folder| folder.join("kit/pyproject.toml").is_file())
        .map(Path::to_path_buf)
}

/// Copies the bridges' package into `kit/data/purelib/c4bridge` (maturin
/// follows no folder link), fresh, without caches.
fn stage_bridges(source: &Path) -> Result<()> {
    let from = source.join("python/src/c4bridge");
    let to = source.join("kit/data/purelib/c4bridge");
    if to.exists() {
        std::fs::remove_dir_all(&to).with_context(|| format!("clearing {}", to.display()))?;
    }
    copy_python(&from, &to)
}

/// Copies the `.py` files of `from` and its folders to `to`.
fn copy_python(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry.with_context(|| format!("reading {}", from.display()))?;
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() && name != "__pycache__" {
            copy_python(&path, &to.join(&name))?;
        } else if path.extension().is_some_and(|e| e == "py") {
            std::fs::copy(&path, to.join(&name))
                .with_context(|| format!("copying {}", path.display()))?;
        }
    }
    Ok(())
}

/// Runs maturin on `kit`, the wheel going to `out`.
fn build_wheel(maturin: &str, kit: &Path, out: &Path) -> Result<()> {
    let out = std::path::absolute(out).unwrap_or_else(|_| out.to_path_buf());
    let mut command = Command::new(maturin);
    command
        .args(["build", "--release", "--out"])
        .arg(&out)
        .arg("--manifest-path")
        .arg(kit.join("Cargo.toml"))
        .env("RUSTFLAGS", remapped_paths(kit));
    crate::group::own_group(&mut command);
    let status = command.status().with_context(|| {
        format!(
            "running {maturin}: the kit is built by maturin (pip install maturin), \
             with the Rust toolchain"
        )
    })?;
    if !status.success() {
        bail!("{maturin} build failed ({status}); its output is above");
    }
    Ok(())
}

/// The compiler's flags for the kit's programs: the build machine's
/// folders (the repository, cargo's home) written as neutral names in
/// the binaries' messages, so that no path of the instructor's machine
/// goes into the wheel; any `RUSTFLAGS` already set come first.
fn remapped_paths(kit: &Path) -> String {
    let source = kit
        .parent()
        .and_then(|s| std::path::absolute(s).ok())
        .unwrap_or_else(|| kit.join(".."));
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    let mut flags = std::env::var("RUSTFLAGS").unwrap_or_default();
    let mut remap = |from: &Path, to: &str| {
        flags.push_str(&format!(" --remap-path-prefix={}={to}", from.display()));
    };
    if let Some(home) = cargo_home {
        remap(&home, "cargo");
    }
    remap(&source, "connect4");
    flags.trim().to_string()
}

/// The instructor's config with its visible tests only, as TOML, for a
/// kit written to `out`: hidden tests and those seen later stay out, and
/// so do tests whose opponent is one of the instructor's programs (not in
/// the kit). Each test kept carries its own seed (so it plays exactly the
/// games Gradescope plays, whatever tests are left out, and the grading's
/// seed, which the hidden tests' games come from, stays out); an agent's
/// weights or model file is copied into `out/opponents/` and named
/// relative to the kit.
pub fn visible_tests(path: &Path, out: &Path) -> Result<String> {
    let config = Config::load(path)?;
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut table: toml::Table = text
        .parse()
        .with_context(|| format!("reading {}", path.display()))?;
    let tests = match table.remove("test") {
        Some(toml::Value::Array(tests)) => tests,
        _ => Vec::new(),
    };
    let mut kept = Vec::new();
    for (raw, test) in tests.into_iter().zip(&config.tests) {
        let visible = test.visibility == crate::grade::config::Visibility::Visible;
        if !visible || test.opponent.as_ref().is_some_and(|o| o.is_a_file()) {
            continue;
        }
        kept.push(kit_test(raw, test, &config, out)?);
    }
    if kept.is_empty() {
        bail!(
            "{}: no visible test with a built-in opponent to put in the kit",
            path.display()
        );
    }
    table.insert("test".into(), toml::Value::Array(kept));
    // Paths (a python_path, an include) are the instructor's, not the kit's,
    // and the leaderboard may name tests left out.
    if let Some(toml::Value::Table(submission)) = table.get_mut("submission") {
        submission.remove("python_path");
    }
    if let Some(toml::Value::Table(grading)) = table.get_mut("grading") {
        grading.remove("seed");
    }
    table.remove("leaderboard");
    let body = toml::to_string(&table).context("writing the visible tests")?;
    let text = format!(
        "# The visible tests of the course's grader, for grading yourself:\n\
         #   connect4-arena grade --config visible-tests.toml --submission YOUR-FOLDER\n{body}"
    );
    // What a student runs must load.
    let kit = std::path::absolute(out).unwrap_or_else(|_| out.to_path_buf());
    Config::parse(&text, Path::new("visible-tests.toml"), kit)
        .context("the visible tests do not load as a config (please report it)")?;
    Ok(text)
}

/// One visible test as the kit writes it: its seed given, its opponent's
/// files copied into `out/opponents/`.
fn kit_test(
    raw: toml::Value,
    test: &crate::grade::config::Test,
    config: &Config,
    out: &Path,
) -> Result<toml::Value> {
    let toml::Value::Table(mut raw) = raw else {
        bail!("test \"{}\" is not a table", test.name);
    };
    let seed = i64::try_from(config.test_seed(test)).context("a test's seed over 2^63")?;
    raw.insert("seed".into(), toml::Value::Integer(seed));
    if let Some(crate::grade::config::Opponent::Agent(spec)) = &test.opponent {
        let mut failed = None;
        let rewritten = crate::grade::config::map_files(spec, |file| {
            match copy_opponent_file(Path::new(file), out) {
                Ok(name) => name,
                Err(e) => {
                    failed.get_or_insert(e);
                    file.to_string()
                }
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        raw.insert("opponent".into(), toml::Value::String(rewritten));
    }
    Ok(toml::Value::Table(raw))
}

/// Copies an opponent's file into `out/opponents/`; its name there,
/// relative to the kit.
fn copy_opponent_file(file: &Path, out: &Path) -> Result<String> {
    let name = file
        .file_name()
        .with_context(|| format!("the opponent's file {} has no name", file.display()))?;
    let folder = out.join("opponents");
    std::fs::create_dir_all(&folder).with_context(|| format!("creating {}", folder.display()))?;
    let to = folder.join(name);
    let bytes = std::fs::read(file)
        .with_context(|| format!("reading the opponent's file {}", file.display()))?;
    if std::fs::read(&to).is_ok_and(|there| there != bytes) {
        bail!(
            "two opponents' files are called {}: rename one so that both fit in the kit's \
             opponents/ folder",
            name.to_string_lossy()
        );
    }
    connect4::atomic_file::write(&to, bytes).with_context(|| {
        format!(
            "copying the opponent's file {} into the kit",
            file.display()
        )
    })?;
    Ok(format!("opponents/{}", name.to_string_lossy()))
}

/// The kit's README.
fn readme_text(visible: bool) -> String {
    let grade = if visible {
        "connect4-arena grade --config visible-tests.toml --submission my-policy"
    } else {
        "connect4-arena grade --kind policy --submission my-policy"
    };
    format!(
        "Connect 4 for the course, without Rust\n\n\
         python3 -m venv c4env && . c4env/bin/activate\n\
         pip install connect4_kit-*.whl\n\
         connect4-policy new my-policy\n\
         connect4-arena match --engine 'name=mine,cmd=connect4-policy,arg=my-policy' \
         --engine 'name=greedy,cmd=self,option.agent=greedy' --games 10\n\
         {grade}\n\n\
         students.md, beside this file, explains each step.\n"
    )
}
