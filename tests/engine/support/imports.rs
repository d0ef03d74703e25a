//! What the layer tests (tests/engine/layers.rs for the engine,
//! arena/tests/arena/layers.rs for the arena's crates) share: the source files
//! of a folder, and the modules a line of code names. Each test uses a
//! part of it.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The modules a line of code names as `crate::NAME` (comments left out).
pub fn named(line: &str) -> Vec<&str> {
    named_after(line, "crate::")
}

/// The names a line of code gives right after `prefix` (`crate::`,
/// `super::`), comments left out; `prefix` preceded by another name
/// (`connect4::`, `some_crate::`) is not this crate's path.
pub fn named_after<'a>(line: &'a str, prefix: &str) -> Vec<&'a str> {
    let code = line.split("//").next().unwrap_or("");
    code.match_indices(prefix)
        .filter(|(at, _)| !code[..*at].ends_with(|c: char| c.is_alphanumeric() || c == '_'))
        .map(|(at, _)| {
            let rest = &code[at + prefix.len()..];
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            &rest[..end]
        })
        .collect()
}

/// Every .rs file under `dir`.
pub fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}
