//! The Python bridge (`python/`, the `c4bridge` package) as a wheel built
//! by this binary, which carries the package's files: the autograder
//! installs it offline, with no build tools, from the zip.
//!
//! The package's files are compiled in, so the autograder's zip needs
//! nothing of the repository; the metadata comes from
//! `python/pyproject.toml`, and `crate::wheel` lays the zip out.

/// The project file the metadata comes from.
const PYPROJECT: &str = include_str!("../python/pyproject.toml");

/// The package's files, as they are in `python/src/c4bridge/`.
const PACKAGE: [(&str, &str); 6] = [
    (
        "__init__.py",
        include_str!("../python/src/c4bridge/__init__.py"),
    ),
    ("board.py", include_str!("../python/src/c4bridge/board.py")),
    (
        "kaggle.py",
        include_str!("../python/src/c4bridge/kaggle.py"),
    ),
    (
        "policy.py",
        include_str!("../python/src/c4bridge/policy.py"),
    ),
    (
        "protocol.py",
        include_str!("../python/src/c4bridge/protocol.py"),
    ),
    (
        "submission.py",
        include_str!("../python/src/c4bridge/submission.py"),
    ),
];

/// The package's template, which `connect4-policy new` copies.
const TEMPLATE: (&str, &str) = (
    "templates/policy.py",
    include_str!("../python/src/c4bridge/templates/policy.py"),
);

pub use crate::wheel::Wheel;

/// The bridges' project, from python/pyproject.toml.
pub fn project() -> crate::wheel::Project {
    crate::wheel::Project::from_pyproject(PYPROJECT)
        .expect("python/pyproject.toml has a [project] table")
}

/// Builds the wheel.
pub fn build() -> Wheel {
    let files = PACKAGE
        .iter()
        .chain([&TEMPLATE])
        .map(|(name, text)| crate::wheel::Entry::file(format!("c4bridge/{name}"), *text))
        .collect();
    crate::wheel::write(&project(), &crate::wheel::Tag::Pure, files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;
    use sha2::{Digest, Sha256};
    use std::io::Read;

    #[test]
    fn the_wheel_carries_every_module_of_the_package() {
        let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/../../python/src/c4bridge");
        let mut on_disk: Vec<String> = std::fs::read_dir(folder)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".py"))
            .collect();
        on_disk.sort();
        let mut carried: Vec<String> = PACKAGE.iter().map(|(n, _)| n.to_string()).collect();
        carried.sort();
        assert_eq!(carried, on_disk, "add the new module to PACKAGE");
    }

    #[test]
    fn the_wheel_records_each_file_with_its_hash_and_size() {
        let wheel = build();
        assert_eq!(wheel.file_name, "connect4_bridges-0.1.0-py3-none-any.whl");
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(wheel.bytes)).unwrap();
        let mut read = |name: &str| {
            let mut text = String::new();
            archive
                .by_name(name)
                .unwrap()
                .read_to_string(&mut text)
                .unwrap();
            text
        };
        let info = "connect4_bridges-0.1.0.dist-info";
        let record = read(&format!("{info}/RECORD"));
        assert!(read(&format!("{info}/METADATA")).contains("Requires-Dist: numpy"));
        assert!(
            read(&format!("{info}/entry_points.txt"))
                .contains("connect4-policy = c4bridge.policy:main")
        );
        let policy = read("c4bridge/policy.py");
        let line = record
            .lines()
            .find(|l| l.starts_with("c4bridge/policy.py,"))
            .unwrap();
        let hash = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(&policy));
        assert_eq!(
            line,
            format!("c4bridge/policy.py,sha256={hash},{}", policy.len())
        );
        assert!(record.contains("c4bridge/templates/policy.py,sha256="));
        assert_eq!(record.lines().count(), 11);
    }
}
