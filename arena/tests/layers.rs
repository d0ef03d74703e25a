//! The arena's map holds: each crate depends only on the crates below it
//! (the match core on the engine alone; grading, the web and the
//! experiments on the match core; the binary on all), only the web links
//! the web server's crates, and inside the match core no module names
//! (`crate::...`) a module of a layer above its own. The maps in
//! crates/match/src/lib.rs and arena/src/main.rs are drawn from these
//! tables.

use std::path::{Path, PathBuf};

#[path = "../../tests/support/imports.rs"]
mod imports;
use imports::{named, sources};

/// The workspace's folder.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The arena's crates, their folders, and the project's crates each may
/// depend on.
const CRATES: &[(&str, &str, &[&str])] = &[
    ("connect4-match", "crates/match", &["connect4"]),
    (
        "connect4-grade",
        "crates/grade",
        &["connect4", "connect4-match"],
    ),
    (
        "connect4-web",
        "crates/web",
        &["connect4", "connect4-match"],
    ),
    (
        "connect4-experiments",
        "crates/experiments",
        &["connect4", "connect4-match"],
    ),
    // The engine inside Python: the engine alone.
    ("connect4-python", "crates/python", &["connect4"]),
    (
        "connect4-arena",
        "arena",
        &[
            "connect4",
            "connect4-match",
            "connect4-grade",
            "connect4-web",
            "connect4-experiments",
        ],
    ),
];

/// The web server's crates: the web's alone.
const SERVER: &[&str] = &["axum", "tokio", "hyper", "hyper-util"];

/// What the match core may not link: the server, archives and hashing
/// (grading's), configs (grading's).
const NOT_IN_THE_CORE: &[&str] = &[
    "axum",
    "tokio",
    "hyper",
    "hyper-util",
    "zip",
    "sha2",
    "toml",
];

/// Each module of the match core and its layer, bottom first.
const LAYERS: &[(&str, u32)] = &[
    ("ending", 0),
    ("group", 0),
    ("live", 0),
    ("schedule", 0),
    ("stderr", 0),
    ("debug_log", 0),
    ("sandbox", 1),
    ("spec", 2),
    ("outputs", 3),
    ("process", 3),
    ("play", 4),
    ("workers", 5),
    ("log", 5),
    ("results", 6),
    ("figures", 6),
    ("run", 7),
    ("merge", 8),
];

/// The names in a Cargo.toml's `[dependencies]` tables (the target ones
/// too, not the dev ones).
fn dependencies(manifest: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut inside = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == "[dependencies]"
                || (line.starts_with("[target.") && line.ends_with(".dependencies]"));
        } else if inside && let Some((key, _)) = line.split_once('=') {
            let name = key.trim().split('.').next().unwrap_or("").trim();
            if !name.is_empty() && !name.starts_with('#') {
                names.push(name.to_string());
            }
        }
    }
    names
}

#[test]
fn each_crate_depends_only_on_the_crates_below_it() {
    let mut wrong = Vec::new();
    for (name, folder, allowed) in CRATES {
        let manifest = std::fs::read_to_string(root().join(folder).join("Cargo.toml")).unwrap();
        assert!(manifest.contains(&format!("name = \"{name}\"")), "{folder}");
        for dep in dependencies(&manifest) {
            let ours = dep == "connect4" || dep.starts_with("connect4-");
            if ours && !allowed.contains(&dep.as_str()) {
                wrong.push(format!("{name} depends on {dep}"));
            }
            if SERVER.contains(&dep.as_str()) && *name != "connect4-web" {
                wrong.push(format!("{name} links {dep}: only the web serves"));
            }
            if *name == "connect4-match" && NOT_IN_THE_CORE.contains(&dep.as_str()) {
                wrong.push(format!("the match core links {dep}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_crate_of_the_workspace_is_on_the_map() {
    let workspace = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let members = workspace
        .lines()
        .find_map(|l| l.strip_prefix("members = "))
        .unwrap();
    for (_, folder, _) in CRATES {
        assert!(members.contains(&format!("\"{folder}\"")), "{folder}");
    }
    assert_eq!(members.matches('"').count() / 2, CRATES.len());
}

#[test]
fn no_module_of_the_match_core_names_a_layer_above_its_own() {
    let src = root().join("crates/match/src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let layer = |m: &str| LAYERS.iter().find(|(n, _)| *n == m).map(|(_, l)| *l);
    let mut wrong = Vec::new();
    for file in &files {
        let module = file.file_stem().unwrap().to_str().unwrap();
        if module == "lib" {
            continue;
        }
        let Some(own) = layer(module) else {
            wrong.push(format!("{module} has no layer in arena/tests/layers.rs"));
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            for imported in named(line) {
                match layer(imported) {
                    Some(l) if l > own => wrong.push(format!(
                        "{module}.rs:{}: {module} (layer {own}) names {imported} (layer {l})",
                        n + 1
                    )),
                    None => wrong.push(format!("{module}.rs:{}: {imported} has no layer", n + 1)),
                    _ => {}
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_check_reads_dependencies_and_catches_an_import_from_above() {
    let manifest = "[dependencies]\nconnect4.workspace = true\naxum = { version = \"1\" }\n\n\
                    [target.'cfg(unix)'.dependencies]\nlibc.workspace = true\n\n\
                    [dev-dependencies]\nzip.workspace = true\n";
    assert_eq!(dependencies(manifest), ["connect4", "axum", "libc"]);
    assert_eq!(named("use crate::run::RunArgs; // crate::merge"), ["run"]);
}
