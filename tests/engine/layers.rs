//! The layer map of src/lib.rs holds: reading every line of the library's
//! sources outside comments, no module names (`crate::...`) a module of a
//! layer above its own, nothing but the lab names the lab, and the
//! protocol reaches the engine only through the facade.

use std::path::Path;

#[path = "support/imports.rs"]
mod imports;
use imports::{named, sources};

/// Each top module of the library and its layer, bottom first.
const LAYERS: &[(&str, u32)] = &[
    ("rules", 0),
    ("position", 0),
    ("game", 0),
    ("move_list", 0),
    ("grid", 0),
    ("score", 0),
    ("openings", 0),
    ("atomic_file", 0),
    ("book", 1),
    ("search", 2),
    ("bench", 2),
    ("perft", 2),
    ("agents", 3),
    ("engine", 4),
    ("lab", 5),
    ("protocol", 6),
];

/// What the protocol may name besides the bottom layer: the facade.
const PROTOCOL_MAY_NAME: &[&str] = &["engine", "protocol"];

/// The names src/lib.rs re-exports at the root, and their modules.
const REEXPORTS: &[(&str, &str)] = &[
    ("Game", "game"),
    ("MoveError", "game"),
    ("MoveList", "move_list"),
    ("MoveListError", "move_list"),
    ("GridError", "grid"),
    ("Player", "position"),
    ("Position", "position"),
    ("Status", "position"),
    ("Rules", "rules"),
    ("RulesError", "rules"),
];

fn layer(module: &str) -> Option<u32> {
    let module = REEXPORTS
        .iter()
        .find(|(name, _)| *name == module)
        .map_or(module, |(_, m)| m);
    LAYERS.iter().find(|(m, _)| *m == module).map(|(_, l)| *l)
}

/// Why `importer` may not name `imported`, if it may not.
fn forbidden(importer: &str, imported: &str) -> Option<String> {
    let (Some(from), Some(to)) = (layer(importer), layer(imported)) else {
        return Some(format!(
            "'{imported}' is in no layer of tests/engine/layers.rs"
        ));
    };
    if imported == "lab" && importer != "lab" {
        return Some("nothing of the engine uses the lab".into());
    }
    if importer == "protocol" && to > 0 && !PROTOCOL_MAY_NAME.contains(&imported) {
        return Some("the protocol reaches the engine only through the facade".into());
    }
    (to > from).then(|| format!("layer {to} is above layer {from}"))
}

#[test]
fn no_module_names_a_layer_above_its_own() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut wrong = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap();
        let top = relative.components().next().unwrap().as_os_str();
        let top = top.to_str().unwrap().trim_end_matches(".rs");
        // The binary's own files are front ends above every layer.
        if matches!(top, "main" | "cli" | "lib") {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            for imported in named(line) {
                if imported != top
                    && let Some(why) = forbidden(top, imported)
                {
                    wrong.push(format!(
                        "{}:{}: {top} names {imported}: {why}",
                        relative.display(),
                        n + 1
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_module_of_the_library_has_a_layer() {
    let lib =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
    for line in lib.lines() {
        if let Some(name) = line
            .strip_prefix("pub mod ")
            .and_then(|r| r.strip_suffix(';'))
        {
            assert!(layer(name).is_some(), "src/lib.rs: '{name}' has no layer");
        }
    }
}

#[test]
fn the_check_catches_an_import_from_above() {
    assert_eq!(
        named("use crate::engine::Engine; // crate::lab"),
        ["engine"]
    );
    assert!(named("use connect4::lab::stats;").is_empty());
    assert!(forbidden("search", "engine").is_some());
    assert!(forbidden("agents", "lab").is_some());
    assert!(forbidden("protocol", "search").is_some());
    assert!(forbidden("protocol", "engine").is_none());
    assert!(forbidden("lab", "agents").is_none());
    assert!(forbidden("book", "rules").is_none());
    assert!(forbidden("book", "search").is_some());
}
