//! The Python bridge (`python/`, the `c4bridge` package) as a wheel built
//! by this binary, which carries the package's files: the autograder
//! installs it offline, with no build tools, from the zip.
//!
//! A pure-Python wheel is a zip of the package and a `.dist-info` folder
//! (METADATA, WHEEL, entry_points.txt, and RECORD: every file's SHA-256
//! and size); the name, version, requirements and scripts come from
//! `python/pyproject.toml`, so the two never disagree.

use std::io::Write;

use base64::Engine as _;
use sha2::{Digest, Sha256};
use zip::write::SimpleFileOptions;

/// The project file the metadata comes from.
const PYPROJECT: &str = include_str!("../../../python/pyproject.toml");

/// The package's files, as they are in `python/src/c4bridge/`.
const PACKAGE: [(&str, &str); 6] = [
    (
        "__init__.py",
        include_str!("../../../python/src/c4bridge/__init__.py"),
    ),
    (
        "board.py",
        include_str!("../../../python/src/c4bridge/board.py"),
    ),
    (
        "kaggle.py",
        include_str!("../../../python/src/c4bridge/kaggle.py"),
    ),
    (
        "policy.py",
        include_str!("../../../python/src/c4bridge/policy.py"),
    ),
    (
        "protocol.py",
        include_str!("../../../python/src/c4bridge/protocol.py"),
    ),
    (
        "submission.py",
        include_str!("../../../python/src/c4bridge/submission.py"),
    ),
];

/// What the wheel's metadata needs from pyproject.toml.
#[derive(serde::Deserialize)]
struct PyProject {
    project: Project,
}

#[derive(serde::Deserialize)]
struct Project {
    name: String,
    version: String,
    description: String,
    #[serde(rename = "requires-python")]
    requires_python: String,
    dependencies: Vec<String>,
    scripts: std::collections::BTreeMap<String, String>,
}

/// A built wheel: its file name (which pip reads the version from) and
/// its bytes.
pub struct Wheel {
    /// `NAME-VERSION-py3-none-any.whl`.
    pub file_name: String,
    /// The zip.
    pub bytes: Vec<u8>,
}

/// Builds the wheel.
pub fn build() -> Wheel {
    let project = toml::from_str::<PyProject>(PYPROJECT)
        .expect("python/pyproject.toml has a [project] table")
        .project;
    let dist = project.name.replace('-', "_");
    let info = format!("{dist}-{}.dist-info", project.version);
    let mut files: Vec<(String, String)> = PACKAGE
        .iter()
        .map(|(name, text)| (format!("c4bridge/{name}"), text.to_string()))
        .collect();
    let mut metadata = format!(
        "Metadata-Version: 2.1\nName: {}\nVersion: {}\nSummary: {}\nRequires-Python: {}\n",
        project.name, project.version, project.description, project.requires_python
    );
    for d in &project.dependencies {
        metadata.push_str(&format!("Requires-Dist: {d}\n"));
    }
    files.push((format!("{info}/METADATA"), metadata));
    files.push((
        format!("{info}/WHEEL"),
        "Wheel-Version: 1.0\nGenerator: connect4-arena\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
            .into(),
    ));
    let mut entry_points = "[console_scripts]\n".to_string();
    for (script, target) in &project.scripts {
        entry_points.push_str(&format!("{script} = {target}\n"));
    }
    files.push((format!("{info}/entry_points.txt"), entry_points));
    files.push((format!("{info}/top_level.txt"), "c4bridge\n".into()));
    let mut record = String::new();
    for (path, text) in &files {
        let digest = Sha256::digest(text.as_bytes());
        let hash = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest);
        record.push_str(&format!("{path},sha256={hash},{}\n", text.len()));
    }
    record.push_str(&format!("{info}/RECORD,,\n"));
    files.push((format!("{info}/RECORD"), record));
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .unix_permissions(0o644);
    for (path, text) in &files {
        zip.start_file(path.as_str(), options)
            .and_then(|()| zip.write_all(text.as_bytes()).map_err(Into::into))
            .expect("writing to memory");
    }
    let bytes = zip.finish().expect("writing to memory").into_inner();
    Wheel {
        file_name: format!("{dist}-{}-py3-none-any.whl", project.version),
        bytes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn the_wheel_carries_every_module_of_the_package() {
        let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/../python/src/c4bridge");
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
        assert_eq!(record.lines().count(), 11);
    }
}
