//! `connect4-arena kit`: one build of the programs, from the repository's
//! one lock file, into a wheel pip can install (issue #43, item 8). The
//! real build and install are python/tests/test_kit.py; here cargo is a
//! stand-in that records how it was called and leaves two small programs.

mod common;

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

/// A cargo stand-in: writes its arguments, RUSTFLAGS and whether it builds
/// an extension module to `$KIT_LOG`, one call per line, and puts a shell
/// script for each `--bin` and a stand-in extension in
/// `TARGET-DIR/release/`.
const FAKE_CARGO: &str = r#"#!/bin/sh
echo "$* RUSTFLAGS=$RUSTFLAGS extension=$PYO3_BUILD_EXTENSION_MODULE" >> "$KIT_LOG"
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
echo "extension built" > "$target/release/libc4engine_native.so"
"#;

#[test]
fn the_kit_builds_the_programs_once_from_the_repository_s_lock_file() {
    let dir = scratch("kit-once");
    let source = dir.join("repo");
    // The repository's shape, without its target folder.
    std::fs::create_dir_all(source.join("arena")).unwrap();
    std::fs::create_dir_all(source.join("docs")).unwrap();
    copy_folder(
        &repository().join("python/src/c4engine"),
        &source.join("python/src/c4engine"),
    );
    for file in [
        "Cargo.toml",
        "Cargo.lock",
        "arena/Cargo.toml",
        "docs/students.md",
    ] {
        std::fs::copy(repository().join(file), source.join(file)).unwrap();
    }
    copy_folder(
        &repository().join("python/src/c4bridge"),
        &source.join("python/src/c4bridge"),
    );
    let cargo = dir.join("cargo");
    std::fs::write(&cargo, FAKE_CARGO).unwrap();
    std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).unwrap();
    let log = dir.join("calls");
    arena()
        .args(["kit", "--out"])
        .arg(dir.join("out"))
        .arg("--source")
        .arg(&source)
        .arg("--cargo")
        .arg(&cargo)
        .env("KIT_LOG", &log)
        .assert()
        .success();
    let calls = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        calls.lines().count(),
        1,
        "cargo ran more than once:\n{calls}"
    );
    let manifest = source.join("Cargo.toml");
    for part in [
        "build --release --locked".to_string(),
        format!("--manifest-path {}", manifest.display()),
        "--bin connect4 --bin connect4-arena --lib".into(),
        "extension=1".into(),
        format!("--remap-path-prefix={}=connect4", source.display()),
    ] {
        assert!(calls.contains(&part), "{part} not in {calls}");
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
