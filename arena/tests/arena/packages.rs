//! Each of the arena's crates builds from its own folder: a file its code
//! includes (`include_str!`, `include_bytes!`) lies inside the crate's
//! folder, so that the package cargo makes of it (for crates.io) holds the
//! file. A path leaving the folder builds in the workspace and fails only
//! when the package is built (`cargo publish --dry-run` without
//! `--no-verify`, minutes a crate). The grader's Python bridges come in
//! through crates/grade/python, a link to the repository's python/.

use std::path::{Component, Path, PathBuf};

use crate::layers::imports::sources;

/// The arena's crates' folders, from the workspace's.
const FOLDERS: &[&str] = &[
    "arena",
    "crates/match",
    "crates/grade",
    "crates/web",
    "crates/experiments",
    "crates/league",
    "crates/vector",
    "crates/python",
    "crates/llm",
];

/// The literal paths a line of Rust includes.
fn included(line: &str) -> Vec<&str> {
    let code = line.split("//").next().unwrap_or("");
    ["include_str!(\"", "include_bytes!(\""]
        .iter()
        .flat_map(|mac| code.match_indices(mac).map(move |(at, _)| at + mac.len()))
        .filter_map(|start| code[start..].split('"').next())
        .collect()
}

/// `path` with its `..` and `.` taken away, as written (links not followed).
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Each include of the sources under `crate_folder` that lies outside it:
/// the source and the path it names.
fn outside(crate_folder: &Path) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    sources(&crate_folder.join("src"), &mut files);
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for line in text.lines() {
            for path in included(line) {
                let at = lexical(&file.parent().unwrap().join(path));
                if !at.starts_with(crate_folder) {
                    found.push((file.clone(), path.to_string()));
                }
            }
        }
    }
    found
}

#[test]
fn every_file_a_crate_includes_is_in_its_package() {
    let root = lexical(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")));
    for folder in FOLDERS {
        let found = outside(&root.join(folder));
        assert!(
            found.is_empty(),
            "{folder} includes from outside its folder: {found:?}"
        );
    }
}

#[test]
fn the_check_finds_an_include_from_outside_the_crate() {
    let dir = crate::common::scratch("packages-outside");
    let folder = dir.join("crates/one");
    std::fs::create_dir_all(folder.join("src/deep")).unwrap();
    std::fs::write(
        folder.join("src/deep/a.rs"),
        "const A: &str = include_str!(\"../../data/a.txt\"); // inside\n\
         const B: &[u8] = include_bytes!(\"../../../../python/b.py\");\n\
         // include_str!(\"../../../../commented.txt\")\n",
    )
    .unwrap();
    let found = outside(&folder);
    assert_eq!(
        found,
        vec![(
            folder.join("src/deep/a.rs"),
            "../../../../python/b.py".to_string()
        )]
    );
}
