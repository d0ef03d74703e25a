//! `kit`: what an instructor hands students who have Python and no Rust.
//!
//! One wheel holding the engine's and the arena's programs (built once, by
//! cargo, from the repository's one lock file), the `c4engine` Python
//! module (its extension built by maturin from the repository's
//! pyproject.toml, as `pip install .` builds it) and the Python bridges
//! beside them, so that `pip
//! install` puts `connect4`, `connect4-arena`, `connect4-policy` and
//! `connect4-kaggle` on the PATH and `import c4engine` in Python; and, from the
//! instructor's grading config, its visible tests, so that a student
//! grades with exactly those in one command.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Context, Result, bail};

use crate::config::Config;
use crate::wheel::{Entry, Tag, this_platform};

/// The kit's distribution name: pip installs it as `connect4-kit`.
const KIT_NAME: &str = "connect4-kit";

/// What the kit says it is, on pip's page of it.
const KIT_SUMMARY: &str = "Connect 4 for the course without Rust: the engine (connect4), the \
     arena and grader (connect4-arena), and the bridges that run a Python policy or Kaggle \
     agent (connect4-policy, connect4-kaggle)";

/// The programs the kit carries, each built from the repository's
/// workspace.
const PROGRAMS: [&str; 2] = ["connect4", "connect4-arena"];

/// The c4engine extension in the wheel maturin builds, and in the kit's.
const EXTENSION: &str = "c4engine/_native.abi3.so";

/// Arguments of `kit`.
#[derive(clap::Args)]
pub struct Args {
    /// The folder the kit is written to (made if missing).
    #[arg(long, required_unless_present = "print_rustflags")]
    pub out: Option<PathBuf>,
    /// The instructor's grading config: its visible tests go in the kit as
    /// visible-tests.toml.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// The repository the kit is built from (default: the one this program
    /// was built in, found above the program's own path).
    #[arg(long)]
    pub source: Option<PathBuf>,
    /// The cargo program that builds the kit's programs.
    #[arg(long, default_value = "cargo")]
    pub cargo: String,
    /// The maturin program that builds the c4engine extension (`pip
    /// install maturin`).
    #[arg(long, default_value = "maturin")]
    pub maturin: String,
    /// Cargo's folder for the kit's build (default: `target/kit` in the
    /// repository, a folder of its own: the kit's flags differ from a plain
    /// `cargo build --release`, and two builds with different flags in one
    /// folder rebuild each other). Another folder is for builds that all
    /// use the kit's flags there (see --print-rustflags): scripts/test
    /// gives `target`, where its release build is the kit's.
    #[arg(long, env = "CONNECT4_KIT_TARGET_DIR", value_name = "DIR")]
    pub target_dir: Option<PathBuf>,
    /// Prints the variable that carries the kit's compiler flags and its
    /// value, as `NAME=FLAGS` (the flags set already, then the build
    /// machine's paths rewritten), and builds nothing: a release build with
    /// that variable set and `CARGO_PROFILE_RELEASE_STRIP=true` builds the
    /// kit's programs as the kit does, and the kit then adds nothing to
    /// them.
    #[arg(long)]
    pub print_rustflags: bool,
}

/// Builds the wheel and writes the kit (or prints its flags).
pub fn run(args: &Args) -> Result<ExitCode> {
    let source = repository(args)?;
    match &args.out {
        Some(out) if !args.print_rustflags => build(args, &source, out),
        _ => {
            let flags = KitFlags::for_source(&source);
            println!("{}={}", flags.variable, flags.value);
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The repository the kit is built from: `--source`, else the one this
/// program was built in.
fn repository(args: &Args) -> Result<PathBuf> {
    let source = match &args.source {
        Some(s) => s.clone(),
        None => built_from().context(
            "this program was not run from a build of the connect4 repository (the kit's \
             programs hold no path of the machine they were built on): give it with --source",
        )?,
    };
    if !is_repository(&source) {
        bail!(
            "{}: expected the connect4 repository (Cargo.lock, python/src/c4bridge); \
             give it with --source",
            source.display()
        );
    }
    Ok(source)
}

/// Builds the wheel from `source` and writes the kit in `out`.
fn build(args: &Args, source: &Path, out: &Path) -> Result<ExitCode> {
    let tag = Tag::Abi3(
        this_platform()
            .context("the kit's programs run on Linux and macOS only, and this is neither")?,
    );
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let visible = args
        .config
        .as_deref()
        .map(|config| visible_tests(config, out))
        .transpose()?;
    let target = match &args.target_dir {
        Some(dir) => std::path::absolute(dir)
            .with_context(|| format!("--target-dir {}: not a usable folder", dir.display()))?,
        None => source.join("target/kit"),
    };
    let programs = build_programs(&args.cargo, source, &target)?;
    let extension = build_extension(&args.maturin, source, &target)?;
    let wheel = kit_wheel(source, &programs, extension, &tag)?;
    write(&out.join(&wheel.file_name), wheel.bytes)?;
    if let Some(text) = &visible {
        write(&out.join("visible-tests.toml"), text)?;
    }
    // The students' page: a student with the kit alone has no repository.
    let page = source.join("docs/students.md");
    let students = std::fs::read(&page).with_context(|| format!("reading {}", page.display()))?;
    write(&out.join("students.md"), students)?;
    write(&out.join("README.txt"), readme_text(visible.is_some()))?;
    println!(
        "wrote the kit in {}: {}, {}students.md, README.txt; students install it with \
         pip install {}/connect4_kit-*.whl",
        out.display(),
        wheel.file_name,
        if visible.is_some() {
            "visible-tests.toml, "
        } else {
            ""
        },
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Writes one of the kit's files whole.
fn write(path: &Path, bytes: impl AsRef<[u8]>) -> Result<()> {
    connect4::atomic_file::write(path, bytes).with_context(|| format!("writing {}", path.display()))
}

/// Whether `folder` is the connect4 repository the kit is built from.
fn is_repository(folder: &Path) -> bool {
    folder.join("Cargo.lock").is_file()
        && folder.join("arena/Cargo.toml").is_file()
        && folder.join("python/src/c4bridge").is_dir()
}

/// The repository this program was built in: the folder above its
/// `target/` (cargo's build of `target/release/connect4-arena`), found
/// from the program's path so that no path of the build machine is
/// compiled into it.
pub fn built_from() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    exe.ancestors()
        .find(|folder| is_repository(folder))
        .map(Path::to_path_buf)
}

/// Builds the kit's programs once, with the repository's lock file, in
/// cargo's folder `target` (by default `target/kit/`, their own folder:
/// the build machine's paths are rewritten in them, which the usual
/// release build does not do, and sharing a folder would rebuild one or
/// the other every time); the folder the programs are in.
fn build_programs(cargo: &str, source: &Path, target: &Path) -> Result<PathBuf> {
    let mut command = Command::new(cargo);
    command
        .args(["build", "--release", "--locked"])
        .arg("--manifest-path")
        .arg(source.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(target);
    for program in PROGRAMS {
        command.args(["--bin", program]);
    }
    kit_flags(&mut command, source);
    let status = command.status().with_context(|| {
        format!("running {cargo}: the kit's programs are built with the Rust toolchain")
    })?;
    if !status.success() {
        bail!("{cargo} build failed ({status}); its output is above");
    }
    Ok(target.join("release"))
}

/// Builds the c4engine extension with maturin from the repository's
/// pyproject.toml (what `pip install .` builds) in the programs' folder
/// `target`, where the libraries it shares with them are built already,
/// with the same flags; the extension, from the wheel maturin writes.
fn build_extension(maturin: &str, source: &Path, target: &Path) -> Result<Vec<u8>> {
    let wheels = target.join("maturin-wheels");
    remove_wheels(&wheels)?;
    let mut command = Command::new(maturin);
    command
        .args(["build", "--release", "--locked", "--out"])
        .arg(&wheels)
        .arg("--target-dir")
        .arg(target);
    kit_flags(&mut command, source);
    let status = command.status().with_context(|| {
        format!(
            "running {maturin}: the kit's c4engine extension is built by maturin \
             (pip install maturin, or give its path with --maturin)"
        )
    })?;
    if !status.success() {
        bail!("{maturin} build failed ({status}); its output is above");
    }
    let wheel = std::fs::read_dir(&wheels)
        .with_context(|| format!("reading {}", wheels.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|e| e == "whl"))
        .with_context(|| format!("{maturin} wrote no wheel in {}", wheels.display()))?;
    let read = |wheel: &Path| -> Result<Vec<u8>> {
        let mut archive = zip::ZipArchive::new(std::fs::File::open(wheel)?)?;
        let mut entry = archive.by_name(EXTENSION)?;
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut entry, &mut bytes)?;
        Ok(bytes)
    };
    read(&wheel).with_context(|| format!("reading {EXTENSION} from {}", wheel.display()))
}

/// What the kit's two builds share, so that the second reuses what the
/// first built: the repository as the working folder, the compiler's
/// flags (the build machine's paths rewritten), no symbols (a smaller
/// download, and no names of the build machine), and a process group of
/// their own.
fn kit_flags(command: &mut Command, source: &Path) {
    let flags = KitFlags::for_source(source);
    command
        .current_dir(source)
        .env(flags.variable, flags.value)
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env("CARGO_PROFILE_RELEASE_STRIP", "true");
    connect4_match::group::own_group(command);
}

/// The kit's wheel: the bridges' package from the repository, its
/// commands as console scripts, the c4engine package with its
/// `extension`, and the programs from `built` (cargo's folder of the
/// release).
fn kit_wheel(
    source: &Path,
    built: &Path,
    extension: Vec<u8>,
    tag: &Tag,
) -> Result<crate::wheel::Wheel> {
    let mut project = crate::bridges::project();
    project.name = KIT_NAME.into();
    project.description = KIT_SUMMARY.into();
    let mut files = Vec::new();
    python_files(&source.join("python/src/c4bridge"), "c4bridge", &mut files)?;
    python_files(&source.join("python/src/c4engine"), "c4engine", &mut files)?;
    files.push(Entry::file(EXTENSION, extension));
    for program in PROGRAMS {
        let path = built.join(program);
        let bytes = std::fs::read(&path)
            .with_context(|| format!("reading the built program {}", path.display()))?;
        files.push(Entry::script(&project, program, bytes));
    }
    Ok(crate::wheel::write(&project, tag, files))
}

/// The Python files of `folder` and its folders (modules, type stubs and
/// the typed marker), as wheel entries under `prefix`, in name order (no
/// caches).
fn python_files(folder: &Path, prefix: &str, files: &mut Vec<Entry>) -> Result<()> {
    let mut entries = std::fs::read_dir(folder)
        .and_then(|read| read.collect::<std::io::Result<Vec<_>>>())
        .with_context(|| format!("reading {}", folder.display()))?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() && name != "__pycache__" {
            python_files(&path, &format!("{prefix}/{name}"), files)?;
        } else if name.ends_with(".py") || name.ends_with(".pyi") || name == "py.typed" {
            let bytes =
                std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
            files.push(Entry::file(format!("{prefix}/{name}"), bytes));
        }
    }
    Ok(())
}

/// Removes the wheels an earlier build left in `wheels` (maturin's
/// folder), so that the one read next is this build's: its `.whl` files
/// alone, since the folder may be in a cargo folder the caller named.
fn remove_wheels(wheels: &Path) -> Result<()> {
    let entries = match std::fs::read_dir(wheels) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e).with_context(|| format!("reading {}", wheels.display())),
    };
    for entry in entries {
        let path = entry
            .with_context(|| format!("reading {}", wheels.display()))?
            .path();
        if path.extension().is_some_and(|e| e == "whl") {
            std::fs::remove_file(&path)
                .with_context(|| format!("removing the old wheel {}", path.display()))?;
        }
    }
    Ok(())
}

/// The compiler's flags for the kit's programs, and the cargo variable
/// that carries them.
struct KitFlags {
    /// `CARGO_TARGET_<TARGET>_RUSTFLAGS`, which cargo joins with the
    /// repository's own flags for the target (.cargo/config.toml: the
    /// solver's popcnt), or `RUSTFLAGS` where it is set already (which
    /// replaces those flags, as whoever set it chose).
    variable: String,
    /// The variable's value: what it held already, then the build
    /// machine's folders (the repository, cargo's home) written as neutral
    /// names in the binaries' messages, so that no path of the
    /// instructor's machine goes into the wheel.
    value: String,
}

impl KitFlags {
    /// The flags for a kit built from the repository at `source`, for the
    /// target this program was built for.
    fn for_source(source: &Path) -> KitFlags {
        let variable = if std::env::var_os("RUSTFLAGS").is_some() {
            "RUSTFLAGS".to_string()
        } else {
            target_flags_variable(env!("CONNECT4_BUILT_FOR"))
        };
        let mut value = std::env::var(&variable).unwrap_or_default();
        let source = std::path::absolute(source).unwrap_or_else(|_| source.to_path_buf());
        let cargo_home = std::env::var_os("CARGO_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
        let mut remap = |from: &Path, to: &str| {
            let flag = format!("--remap-path-prefix={}={to}", from.display());
            // Flags printed by --print-rustflags and set already stay once.
            if !value.split_whitespace().any(|f| f == flag) {
                value.push(' ');
                value.push_str(&flag);
            }
        };
        if let Some(home) = cargo_home {
            remap(&home, "cargo");
        }
        remap(&source, "connect4");
        KitFlags {
            variable,
            value: value.trim().to_string(),
        }
    }
}

/// Cargo's variable for a target's compiler flags: its name in capitals,
/// `-` and `.` as `_` (`CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUSTFLAGS`).
fn target_flags_variable(target: &str) -> String {
    let name: String = target
        .chars()
        .map(|c| match c {
            '-' | '.' => '_',
            c => c.to_ascii_uppercase(),
        })
        .collect();
    format!("CARGO_TARGET_{name}_RUSTFLAGS")
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
    let count = config.tests.len();
    for (raw, test) in tests.into_iter().zip(&config.tests) {
        let visible = test.visibility == crate::config::Visibility::Visible;
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
    if kept.len() < count && config.grading.key.is_none() {
        bail!(
            "{}: the kit would carry the visible tests' seeds, from which the grading seed, and \
             so the games of the tests left out of the kit, can be found again: give [grading] a \
             secret key (kept with you and in the autograder, never in the kit), for instance \
             key = \"{}\"",
            path.display(),
            crate::config::fresh_key()
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
        grading.remove("key");
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
    test: &crate::config::Test,
    config: &Config,
    out: &Path,
) -> Result<toml::Value> {
    let toml::Value::Table(mut raw) = raw else {
        bail!("test \"{}\" is not a table", test.name);
    };
    let seed = i64::try_from(config.test_seed(test)).context("a test's seed over 2^63")?;
    raw.insert("seed".into(), toml::Value::Integer(seed));
    if let Some(crate::config::Opponent::Agent(spec)) = &test.opponent {
        let mut failed = None;
        let rewritten = crate::config::map_files(spec, |file| {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_s_flags_variable_is_cargo_s_name_for_it() {
        assert_eq!(
            target_flags_variable("x86_64-unknown-linux-gnu"),
            "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUSTFLAGS"
        );
        assert_eq!(
            target_flags_variable("thumbv7em-none-eabihf.2"),
            "CARGO_TARGET_THUMBV7EM_NONE_EABIHF_2_RUSTFLAGS"
        );
    }
}
