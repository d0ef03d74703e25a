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
    /// was built from).
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
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join(".."),
    };
    let kit = source.join("kit");
    if !kit.join("pyproject.toml").is_file() || !source.join("python/src/c4bridge").is_dir() {
        bail!(
            "{}: expected the connect4 repository (kit/pyproject.toml, python/src/c4bridge); \
             give it with --source",
            source.display()
        );
    }
    let visible = args.config.as_deref().map(visible_tests).transpose()?;
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    stage_bridges(&source)?;
    build_wheel(&args.maturin, &kit, &args.out)?;
    if let Some(text) = &visible {
        let path = args.out.join("visible-tests.toml");
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    let readme = args.out.join("README.txt");
    std::fs::write(&readme, readme_text(visible.is_some()))
        .with_context(|| format!("writing {}", readme.display()))?;
    println!(
        "wrote the kit in {}: the wheel, {}README.txt; students install it with \
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
        .arg(kit.join("Cargo.toml"));
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

/// The instructor's config with its visible tests only, as TOML: hidden
/// tests and those seen later stay out, and so do tests whose opponent is
/// one of the instructor's files (not in the kit).
fn visible_tests(path: &Path) -> Result<String> {
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
    let kept: Vec<toml::Value> = tests
        .into_iter()
        .zip(&config.tests)
        .filter(|(_, test)| {
            test.visibility == crate::grade::config::Visibility::Visible
                && !test.opponent.as_ref().is_some_and(|o| o.is_a_file())
        })
        .map(|(raw, _)| raw)
        .collect();
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
    table.remove("leaderboard");
    let body = toml::to_string(&table).context("writing the visible tests")?;
    let text = format!(
        "# The visible tests of the course's grader, for grading yourself:\n\
         #   connect4-arena grade --config visible-tests.toml --submission YOUR-FOLDER\n{body}"
    );
    // What a student runs must load.
    Config::parse(&text, Path::new("visible-tests.toml"), PathBuf::from("."))
        .context("the visible tests do not load as a config (please report it)")?;
    Ok(text)
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
         docs/students.md of the repository explains each step.\n"
    )
}
