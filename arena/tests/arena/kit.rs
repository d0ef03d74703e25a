//! `connect4-arena kit`: one build of the programs, from the repository's
//! one lock file, and the c4engine extension built by maturin, into a
//! wheel pip can install (issues #43, item 8, and #46). The real build and
//! install are python/tests/test_kit.py; here cargo and maturin are
//! stand-ins that record how they were called and leave two small
//! programs and a wheel with a stand-in extension.

use crate::common;

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use common::*;

/// The repository the tests run in.
fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// A cargo stand-in: writes its arguments, the variables of compiler
/// flags it was given (RUSTFLAGS, CARGO_TARGET_..._RUSTFLAGS) and whether
/// it strips to `$KIT_LOG`, one call per line, and puts a shell script for
/// each `--bin` in `TARGET-DIR/release/`.
const FAKE_CARGO: &str = r#"#!/bin/sh
flags=$(env | grep 'RUSTFLAGS=' | sort | tr '\n' ' ')
echo "cargo $* ${flags}strip=$CARGO_PROFILE_RELEASE_STRIP" >> "$KIT_LOG"
target=
while [ $# -gt 0 ]; do
    case "$1" in
        --target-dir) target=$2; shift ;;
        --bin) bins="$bins $2"; shift ;;
    esac
    shift
done
mkdir -p "$target/release"
for b in $bins; do
    printf '#!/bin/sh\necho %s built\n' "$b" > "$target/release/$b"
done
"#;

/// A maturin stand-in: writes its call as the cargo stand-in does and a
/// wheel holding a stand-in extension in the folder of `--out`.
const FAKE_MATURIN: &str = r#"#!/usr/bin/env python3
import os, sys, zipfile
args = sys.argv[1:]
with open(os.environ["KIT_LOG"], "a") as log:
    flags = "".join(f"{k}={v} " for k, v in sorted(os.environ.items()) if k.endswith("RUSTFLAGS"))
    log.write("maturin " + " ".join(args) + " " + flags
              + "strip=" + os.environ.get("CARGO_PROFILE_RELEASE_STRIP", "") + "\n")
out = args[args.index("--out") + 1]
os.makedirs(out, exist_ok=True)
with zipfile.ZipFile(os.path.join(out, "c4engine-0.1.0-cp39-abi3-linux_x86_64.whl"), "w") as w:
    w.writestr("c4engine/__init__.py", "")
    w.writestr("c4engine/_native.abi3.so", "extension built by maturin")
"#;

/// A copy of the repository's shape (without its target folder) in
/// `dir/repo`, and the cargo and maturin stand-ins in `dir`.
fn repository_and_stand_ins(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let source = dir.join("repo");
    std::fs::create_dir_all(source.join("arena")).unwrap();
    std::fs::create_dir_all(source.join("docs")).unwrap();
    for folder in ["python/src/c4engine", "python/src/c4bridge"] {
        copy_folder(&repository().join(folder), &source.join(folder));
    }
    for file in [
        "Cargo.toml",
        "Cargo.lock",
        "arena/Cargo.toml",
        "docs/students.md",
    ] {
        std::fs::copy(repository().join(file), source.join(file)).unwrap();
    }
    let [cargo, maturin] =
        [("cargo", FAKE_CARGO), ("maturin", FAKE_MATURIN)].map(|(name, text)| {
            let path = dir.join(name);
            std::fs::write(&path, text).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            path
        });
    (source, cargo, maturin)
}

/// Leaves out of `command`'s environment every variable of compiler
/// flags this test's own might hold (RUSTFLAGS, any target's).
fn without_flags(command: &mut assert_cmd::Command) {
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().ends_with("RUSTFLAGS") {
            command.env_remove(name);
        }
    }
}

/// `connect4-arena kit` from `source` into `dir/out` with the stand-ins,
/// which log their calls to `log`; the folder for cargo, if any, from
/// `CONNECT4_KIT_TARGET_DIR` alone.
fn kit(dir: &Path, source: &Path, cargo: &Path, maturin: &Path, log: &Path) -> assert_cmd::Command {
    let mut command = arena();
    command
        .args(["kit", "--out"])
        .arg(dir.join("out"))
        .arg("--source")
        .arg(source)
        .arg("--cargo")
        .arg(cargo)
        .arg("--maturin")
        .arg(maturin)
        .env("KIT_LOG", log)
        .env_remove("CONNECT4_KIT_TARGET_DIR");
    without_flags(&mut command);
    command
}

#[test]
fn the_kit_builds_the_programs_once_from_the_repository_s_lock_file() {
    let dir = scratch("kit-once");
    let (source, cargo, maturin) = repository_and_stand_ins(&dir);
    let log = dir.join("calls");
    kit(&dir, &source, &cargo, &maturin, &log)
        .assert()
        .success();
    let calls = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = calls.lines().collect();
    assert_eq!(lines.len(), 2, "cargo and maturin, once each:\n{calls}");
    let manifest = source.join("Cargo.toml");
    let remap = format!("--remap-path-prefix={}=connect4", source.display());
    for part in [
        "cargo build --release --locked".to_string(),
        format!("--manifest-path {}", manifest.display()),
        // In the target's variable, which cargo joins with the
        // repository's flags (.cargo/config.toml's popcnt), not RUSTFLAGS,
        // which would replace them.
        "--bin connect4 --bin connect4-arena CARGO_TARGET_".into(),
        "strip=true".into(),
        remap.clone(),
    ] {
        assert!(lines[0].contains(&part), "{part} not in {}", lines[0]);
    }
    for line in &lines {
        assert!(!line.contains(" RUSTFLAGS="), "{line}");
    }
    // The extension is maturin's, built in the programs' folder with their
    // flags (so it reuses what they built).
    let kit_target = format!("--target-dir {}", source.join("target/kit").display());
    for part in [
        "maturin build --release --locked --out",
        &kit_target,
        "strip=true",
        &remap,
    ] {
        assert!(lines[1].contains(part), "{part} not in {}", lines[1]);
    }
    let wheels: Vec<PathBuf> = std::fs::read_dir(dir.join("out"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "whl"))
        .collect();
    assert_eq!(wheels.len(), 1, "{wheels:?}");
    let name = wheels[0]
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(
        name.starts_with("connect4_kit-0.1.0-cp39-abi3-linux_"),
        "{name}"
    );
    let mut wheel = zip::ZipArchive::new(std::fs::File::open(&wheels[0]).unwrap()).unwrap();
    let mut program = wheel
        .by_name("connect4_kit-0.1.0.data/scripts/connect4-arena")
        .unwrap();
    assert_eq!(program.unix_mode().unwrap() & 0o111, 0o111);
    let mut text = String::new();
    program.read_to_string(&mut text).unwrap();
    assert!(text.contains("connect4-arena built"), "{text}");
    drop(program);
    for file in [
        "c4bridge/policy.py",
        "c4bridge/templates/policy.py",
        "c4engine/__init__.py",
        "c4engine/__init__.pyi",
        "c4engine/py.typed",
        "c4engine/_native.abi3.so",
        "connect4_kit-0.1.0.data/scripts/connect4",
        "connect4_kit-0.1.0.dist-info/RECORD",
    ] {
        assert!(wheel.by_name(file).is_ok(), "{file} not in the wheel");
    }
    let mut entry_points = String::new();
    wheel
        .by_name("connect4_kit-0.1.0.dist-info/entry_points.txt")
        .unwrap()
        .read_to_string(&mut entry_points)
        .unwrap();
    assert!(entry_points.contains("connect4-policy = c4bridge.policy:main"));
    let mut extension = String::new();
    wheel
        .by_name("c4engine/_native.abi3.so")
        .unwrap()
        .read_to_string(&mut extension)
        .unwrap();
    assert_eq!(extension, "extension built by maturin");
}

#[test]
fn the_kit_builds_in_the_cargo_folder_it_is_given() {
    let dir = scratch("kit-target-dir");
    let (source, cargo, maturin) = repository_and_stand_ins(&dir);
    // A wheel an earlier build left, and a file of the user's beside it.
    let target = dir.join("shared-target");
    let wheels = target.join("maturin-wheels");
    std::fs::create_dir_all(&wheels).unwrap();
    std::fs::write(
        wheels.join("c4engine-0.0.1-cp39-abi3-linux_x86_64.whl"),
        "old",
    )
    .unwrap();
    std::fs::write(wheels.join("notes.txt"), "mine").unwrap();
    for by_env in [false, true] {
        let log = dir.join(format!("calls-{by_env}"));
        let mut command = kit(&dir, &source, &cargo, &maturin, &log);
        if by_env {
            command.env("CONNECT4_KIT_TARGET_DIR", &target);
        } else {
            command.arg("--target-dir").arg(&target);
        }
        command.assert().success();
        let calls = std::fs::read_to_string(&log).unwrap();
        let given = format!("--target-dir {} ", target.display());
        let lines: Vec<&str> = calls.lines().collect();
        assert_eq!(lines.len(), 2, "{calls}");
        assert!(lines.iter().all(|l| l.contains(&given)), "{calls}");
        assert!(target.join("release/connect4-arena").is_file());
        assert!(!source.join("target").exists(), "nothing in target/kit");
    }
    // Only this build's wheel is left (the kit read the right one), and
    // the user's file.
    let mut left: Vec<String> = std::fs::read_dir(&wheels)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(
        left,
        ["c4engine-0.1.0-cp39-abi3-linux_x86_64.whl", "notes.txt"]
    );
}

#[test]
fn the_printed_rustflags_are_the_kit_s_and_it_adds_them_once() {
    let dir = scratch("kit-rustflags");
    let (source, cargo, maturin) = repository_and_stand_ins(&dir);
    let remap = format!("--remap-path-prefix={}=connect4", source.display());
    let home = format!(
        "--remap-path-prefix={}=cargo",
        dir.join("cargo-home").display()
    );
    // Without RUSTFLAGS, in the target's variable (its name ends the same
    // for every target); with it, added to it.
    for (rustflags, variable_ends, value) in [
        (None, "_RUSTFLAGS", format!("{home} {remap}")),
        (
            Some("-C opt-level=2"),
            "RUSTFLAGS",
            format!("-C opt-level=2 {home} {remap}"),
        ),
    ] {
        let mut print = arena();
        print
            .args(["kit", "--print-rustflags", "--source"])
            .arg(&source)
            .env("CARGO_HOME", dir.join("cargo-home"));
        without_flags(&mut print);
        if let Some(flags) = rustflags {
            print.env("RUSTFLAGS", flags);
        }
        let printed = print.output().unwrap();
        assert!(printed.status.success());
        let printed = String::from_utf8(printed.stdout)
            .unwrap()
            .trim()
            .to_string();
        let (variable, flags) = printed.split_once('=').unwrap();
        assert!(variable.ends_with(variable_ends), "{printed}");
        assert_eq!(rustflags.is_some(), variable == "RUSTFLAGS", "{printed}");
        assert_eq!(flags, value);
        // A build with them set already: the kit's cargo and maturin get
        // them as they are, each flag once.
        let log = dir.join("calls");
        let _ = std::fs::remove_file(&log);
        let _ = std::fs::remove_dir_all(dir.join("out"));
        kit(&dir, &source, &cargo, &maturin, &log)
            .env(variable, flags)
            .env("CARGO_HOME", dir.join("cargo-home"))
            .assert()
            .success();
        let calls = std::fs::read_to_string(&log).unwrap();
        for line in calls.lines() {
            assert!(line.contains(&format!(" {printed} strip=true")), "{line}");
        }
    }
}

#[test]
fn the_repository_has_one_lock_file() {
    let mut locks = Vec::new();
    find_locks(&repository(), &mut locks);
    assert_eq!(locks, vec![repository().join("Cargo.lock")]);
}

/// Every Cargo.lock under `folder`, outside build folders and
/// virtual environments.
fn find_locks(folder: &Path, locks: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(folder).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if path.is_dir() {
            if !(name == "target" || name.starts_with('.')) {
                find_locks(&path, locks);
            }
        } else if name == "Cargo.lock" {
            locks.push(path);
        }
    }
}

/// Copies a folder's files and folders.
fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            copy_folder(&path, &to.join(entry.file_name()));
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).unwrap();
        }
    }
}
