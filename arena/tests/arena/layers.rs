//! The arena's map holds: each crate depends only on the crates below it
//! (the match core on the engine alone; grading, the web, the experiments
//! and the language models on the match core; the binary on all), only
//! the web and the models' client link the web server's crates, and inside
//! the match core no module names (`crate::...`) a module of a layer above
//! its own. The maps in crates/match/src/lib.rs and arena/src/main.rs are
//! drawn from these tables.

use std::path::{Path, PathBuf};

#[path = "../../../tests/engine/support/imports.rs"]
pub mod imports;
use imports::{named, named_after, sources};

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
    (
        "connect4-league",
        "crates/league",
        &["connect4", "connect4-match", "connect4-grade"],
    ),
    // Language models played through their chat API and judged: the
    // engine and the match core's game record.
    (
        "connect4-llm",
        "crates/llm",
        &["connect4", "connect4-match"],
    ),
    // Many games stepped at once, for reinforcement learning: the engine
    // alone.
    ("connect4-vector", "crates/vector", &["connect4"]),
    // The engine inside Python: the engine, the batched games, and a
    // model of the caller's played and judged (the models' crate without
    // its HTTP side, and the match core's log under it).
    (
        "connect4-python",
        "crates/python",
        &[
            "connect4",
            "connect4-vector",
            "connect4-llm",
            "connect4-match",
        ],
    ),
    (
        "connect4-arena",
        "arena",
        &[
            "connect4",
            "connect4-match",
            "connect4-grade",
            "connect4-web",
            "connect4-experiments",
            "connect4-league",
            "connect4-llm",
        ],
    ),
];

/// The web server's crates: the web's, and the language models' (their
/// chat API's client, and its stand-in server for tests and docs).
const SERVER: &[&str] = &["axum", "tokio", "hyper", "hyper-util"];

/// The crates that may link them.
const SPEAKS_HTTP: &[&str] = &["connect4-web", "connect4-llm"];

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
    ("page", 0),
    ("sandbox", 1),
    ("shared_memory", 1),
    ("spec", 2),
    ("memory_watch", 2),
    ("outputs", 3),
    ("process", 3),
    ("contain", 3),
    ("play", 4),
    ("confine", 4),
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

/// The package name behind the workspace's dependency `key`: its
/// `package = "..."` in the root manifest's `[workspace.dependencies]`
/// (the web's crate is `connect4-arena-web` on crates.io), or the key.
fn package_of(key: &str) -> String {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let line = manifest
        .lines()
        .find(|line| line.starts_with(&format!("{key} = {{")));
    line.and_then(|line| line.split("package = \"").nth(1))
        .and_then(|rest| rest.split('"').next())
        .unwrap_or(key)
        .to_string()
}

#[test]
fn each_crate_depends_only_on_the_crates_below_it() {
    let mut wrong = Vec::new();
    for (name, folder, allowed) in CRATES {
        let manifest = std::fs::read_to_string(root().join(folder).join("Cargo.toml")).unwrap();
        let package = package_of(name);
        assert!(
            manifest.contains(&format!("name = \"{package}\"")),
            "{folder}"
        );
        for dep in dependencies(&manifest) {
            let ours = dep == "connect4" || dep.starts_with("connect4-");
            if ours && !allowed.contains(&dep.as_str()) {
                wrong.push(format!("{name} depends on {dep}"));
            }
            if SERVER.contains(&dep.as_str()) && !SPEAKS_HTTP.contains(name) {
                wrong.push(format!(
                    "{name} links {dep}: only the web and the models' client speak HTTP"
                ));
            }
            if *name == "connect4-match" && NOT_IN_THE_CORE.contains(&dep.as_str()) {
                wrong.push(format!("the match core links {dep}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The Python extension takes the models' crate without its `http`
/// feature: a wheel with no HTTP client or server in it.
#[test]
fn c4engine_links_no_http() {
    let manifest = std::fs::read_to_string(root().join("crates/python/Cargo.toml")).unwrap();
    let line = manifest
        .lines()
        .find(|l| l.starts_with("connect4-llm"))
        .expect("c4engine's manifest names connect4-llm");
    assert!(line.contains("default-features = false"), "{line}");
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
            wrong.push(format!(
                "{module} has no layer in arena/tests/arena/layers.rs"
            ));
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

/// The modules of `folder` (its .rs files and subfolders) and, for each,
/// the sibling modules it names: `super::NAME` in a file of a subfolder's
/// `mod.rs`'s children, or `crate::NAME` and `super::NAME` at the top.
fn sibling_imports(folder: &Path, top: bool) -> Vec<(String, Vec<String>)> {
    let mut modules: Vec<(String, PathBuf)> = Vec::new();
    for entry in std::fs::read_dir(folder).unwrap().flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            modules.push((name, path));
        } else if let Some(stem) = name.strip_suffix(".rs")
            && !matches!(stem, "mod" | "lib" | "main")
        {
            modules.push((stem.to_string(), path));
        }
    }
    let names: Vec<String> = modules.iter().map(|(n, _)| n.clone()).collect();
    let prefixes: &[&str] = if top {
        &["crate::", "super::"]
    } else {
        &["super::"]
    };
    modules
        .iter()
        .map(|(name, path)| {
            // A subfolder names its siblings from its own mod.rs only.
            let file = if path.is_dir() {
                path.join("mod.rs")
            } else {
                path.clone()
            };
            let mut named = Vec::new();
            if let Ok(text) = std::fs::read_to_string(&file) {
                for line in text.lines() {
                    for prefix in prefixes {
                        for other in named_after(line, prefix) {
                            if other != name
                                && names.iter().any(|n| n == other)
                                && !named.iter().any(|n: &String| n == other)
                            {
                                named.push(other.to_string());
                            }
                        }
                    }
                }
            }
            (name.clone(), named)
        })
        .collect()
}

/// A circle among `imports` (each module and the modules it names), if
/// any: its modules in order.
fn circle(imports: &[(String, Vec<String>)]) -> Option<Vec<String>> {
    fn visit(
        at: &str,
        imports: &[(String, Vec<String>)],
        path: &mut Vec<String>,
        done: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|p| p == at) {
            return Some(path[start..].to_vec());
        }
        if done.iter().any(|d| d == at) {
            return None;
        }
        path.push(at.to_string());
        let next = imports
            .iter()
            .find(|(n, _)| n == at)
            .map(|(_, v)| v.clone());
        for other in next.unwrap_or_default() {
            if let Some(found) = visit(&other, imports, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.push(at.to_string());
        None
    }
    let mut done = Vec::new();
    imports
        .iter()
        .find_map(|(name, _)| visit(name, imports, &mut Vec::new(), &mut done))
}

#[test]
fn no_modules_of_the_arena_s_crates_import_each_other_in_a_circle() {
    let mut circles = Vec::new();
    for (_, folder, _) in CRATES {
        let src = root().join(folder).join("src");
        let mut folders = vec![(src.clone(), true)];
        let mut files = Vec::new();
        sources(&src, &mut files);
        for file in &files {
            let parent = file.parent().unwrap().to_path_buf();
            if parent != src && !folders.iter().any(|(f, _)| *f == parent) {
                folders.push((parent, false));
            }
        }
        for (folder, top) in folders {
            if let Some(found) = circle(&sibling_imports(&folder, top)) {
                circles.push(format!("{}: {}", folder.display(), found.join(" -> ")));
            }
        }
    }
    assert!(circles.is_empty(), "{}", circles.join("\n"));
}

#[test]
fn the_circle_check_finds_a_circle() {
    let imports = vec![
        ("games".to_string(), vec!["game_log".to_string()]),
        ("game_log".to_string(), vec!["games".to_string()]),
        ("report".to_string(), vec![]),
    ];
    assert_eq!(circle(&imports).unwrap(), ["games", "game_log"]);
    assert!(circle(&imports[2..]).is_none());
}
