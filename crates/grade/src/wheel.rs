//! Wheels written by this program, without a build backend: the bridges'
//! pure-Python wheel that the autograder installs offline, and the
//! students' kit with the programs in it.
//!
//! A wheel is a zip of the package's files, any `NAME-VERSION.data/`
//! folders (`scripts/` goes on the PATH), and a `NAME-VERSION.dist-info`
//! folder: METADATA, WHEEL (the tag pip checks), entry_points.txt (the
//! console scripts pip writes) and RECORD, every file's SHA-256 and size.
//! The name, version, requirements and scripts come from a pyproject's
//! `[project]` table, so the wheel and the project never disagree.

use std::collections::BTreeMap;
use std::io::Write;

use base64::Engine as _;
use sha2::{Digest, Sha256};
use zip::write::SimpleFileOptions;

/// What a wheel's metadata needs from a pyproject's `[project]` table.
#[derive(Clone, serde::Deserialize)]
pub struct Project {
    /// The distribution's name (`connect4-bridges`).
    pub name: String,
    /// Its version.
    pub version: String,
    /// One line on what it is.
    pub description: String,
    /// The Python versions it runs on.
    #[serde(rename = "requires-python")]
    pub requires_python: String,
    /// What pip installs with it.
    pub dependencies: Vec<String>,
    /// Console scripts: command name to `module:function`.
    #[serde(default)]
    pub scripts: BTreeMap<String, String>,
}

#[derive(serde::Deserialize)]
struct PyProject {
    project: Project,
}

impl Project {
    /// The `[project]` table of a pyproject.toml's text.
    pub fn from_pyproject(text: &str) -> Result<Project, toml::de::Error> {
        Ok(toml::from_str::<PyProject>(text)?.project)
    }

    /// The name as it appears in file names (`connect4_bridges`).
    fn dist(&self) -> String {
        self.name.replace('-', "_")
    }
}

/// One file of a wheel, by its path inside the zip.
pub struct Entry {
    /// Its path in the wheel (`c4bridge/policy.py`).
    pub path: String,
    /// Its content.
    pub bytes: Vec<u8>,
    /// Whether pip makes it executable (a program in `scripts/`).
    pub executable: bool,
}

impl Entry {
    /// A file that is not a program.
    pub fn file(path: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Entry {
        Entry {
            path: path.into(),
            bytes: bytes.into(),
            executable: false,
        }
    }

    /// A program that pip puts on the PATH: `data/scripts/NAME`.
    pub fn script(project: &Project, name: &str, bytes: Vec<u8>) -> Entry {
        Entry {
            path: format!("{}-{}.data/scripts/{name}", project.dist(), project.version),
            bytes,
            executable: true,
        }
    }
}

/// Which interpreters and machines a wheel installs on.
pub enum Tag {
    /// Python files alone: any Python 3 anywhere (`py3-none-any`).
    Pure,
    /// Programs for one kind of machine, run by any Python 3
    /// (`py3-none-PLATFORM`).
    Platform(String),
    /// A Python extension of the stable ABI, for CPython 3.9 and later, and
    /// programs, for one kind of machine (`cp39-abi3-PLATFORM`).
    Abi3(String),
}

impl Tag {
    fn text(&self) -> String {
        match self {
            Tag::Pure => "py3-none-any".into(),
            Tag::Platform(platform) => format!("py3-none-{platform}"),
            Tag::Abi3(platform) => format!("cp39-abi3-{platform}"),
        }
    }
}

/// This machine's platform as a wheel's tag names it (`linux_x86_64`),
/// or `None` on a system the arena does not run on.
pub fn this_platform() -> Option<String> {
    let arch = std::env::consts::ARCH;
    match std::env::consts::OS {
        "linux" => Some(format!("linux_{arch}")),
        "macos" => {
            let arch = if arch == "aarch64" { "arm64" } else { arch };
            Some(format!("macosx_11_0_{arch}"))
        }
        _ => None,
    }
}

/// A built wheel: its file name (which pip reads the version and tag
/// from) and its bytes.
pub struct Wheel {
    /// `NAME-VERSION-TAG.whl`.
    pub file_name: String,
    /// The zip.
    pub bytes: Vec<u8>,
}

/// The wheel of `project` holding `files` (paths as in the zip), with
/// its dist-info made from the project.
pub fn write(project: &Project, tag: &Tag, mut files: Vec<Entry>) -> Wheel {
    let info = format!("{}-{}.dist-info", project.dist(), project.version);
    let mut metadata = format!(
        "Metadata-Version: 2.1\nName: {}\nVersion: {}\nSummary: {}\nRequires-Python: {}\n",
        project.name, project.version, project.description, project.requires_python
    );
    for d in &project.dependencies {
        metadata.push_str(&format!("Requires-Dist: {d}\n"));
    }
    files.push(Entry::file(format!("{info}/METADATA"), metadata));
    let purelib = matches!(tag, Tag::Pure);
    files.push(Entry::file(
        format!("{info}/WHEEL"),
        format!(
            "Wheel-Version: 1.0\nGenerator: connect4-arena\nRoot-Is-Purelib: {purelib}\nTag: {}\n",
            tag.text()
        ),
    ));
    let mut entry_points = "[console_scripts]\n".to_string();
    for (script, target) in &project.scripts {
        entry_points.push_str(&format!("{script} = {target}\n"));
    }
    files.push(Entry::file(
        format!("{info}/entry_points.txt"),
        entry_points,
    ));
    files.push(Entry::file(format!("{info}/RECORD"), record(&info, &files)));
    Wheel {
        file_name: format!("{}-{}-{}.whl", project.dist(), project.version, tag.text()),
        bytes: zip_of(&files),
    }
}

/// RECORD's text: each file's path, SHA-256 and size, and RECORD itself
/// without either.
fn record(info: &str, files: &[Entry]) -> String {
    let mut record = String::new();
    for file in files {
        let digest = Sha256::digest(&file.bytes);
        let hash = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest);
        record.push_str(&format!(
            "{},sha256={hash},{}\n",
            file.path,
            file.bytes.len()
        ));
    }
    record.push_str(&format!("{info}/RECORD,,\n"));
    record
}

/// The zip of `files`, made in memory.
fn zip_of(files: &[Entry]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .large_file(files.iter().any(|f| f.bytes.len() >= u32::MAX as usize));
    for file in files {
        let mode = if file.executable { 0o755 } else { 0o644 };
        zip.start_file(file.path.as_str(), options.unix_permissions(mode))
            .and_then(|()| zip.write_all(&file.bytes).map_err(Into::into))
            .expect("writing to memory");
    }
    zip.finish().expect("writing to memory").into_inner()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    const PROJECT: &str = r#"
[project]
name = "a-kit"
version = "1.2"
description = "a test"
requires-python = ">=3.9"
dependencies = ["numpy"]

[project.scripts]
hello = "a.b:main"
"#;

    #[test]
    fn a_platform_wheel_carries_programs_executable_and_records_every_file() {
        let project = Project::from_pyproject(PROJECT).unwrap();
        let files = vec![
            Entry::file("a/__init__.py", "x = 1\n"),
            Entry::script(&project, "prog", b"\x7fELF".to_vec()),
        ];
        let wheel = write(&project, &Tag::Platform("linux_x86_64".into()), files);
        assert_eq!(wheel.file_name, "a_kit-1.2-py3-none-linux_x86_64.whl");
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(wheel.bytes)).unwrap();
        let program = archive.by_name("a_kit-1.2.data/scripts/prog").unwrap();
        assert_eq!(program.unix_mode().unwrap() & 0o777, 0o755);
        drop(program);
        let mut read = |name: &str| {
            let mut text = String::new();
            let mut file = archive.by_name(name).unwrap();
            assert_eq!(file.unix_mode().unwrap() & 0o777, 0o644, "{name}");
            file.read_to_string(&mut text).unwrap();
            text
        };
        assert!(read("a_kit-1.2.dist-info/WHEEL").contains("Root-Is-Purelib: false\n"));
        assert!(read("a_kit-1.2.dist-info/entry_points.txt").contains("hello = a.b:main\n"));
        let record = read("a_kit-1.2.dist-info/RECORD");
        let hash =
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(b"\x7fELF"));
        assert!(record.contains(&format!("a_kit-1.2.data/scripts/prog,sha256={hash},4\n")));
        assert!(record.ends_with("a_kit-1.2.dist-info/RECORD,,\n"));
        assert_eq!(record.lines().count(), 6);
    }

    #[test]
    fn this_machine_has_a_platform_tag() {
        let platform = this_platform().expect("a platform tag on the machine the tests run on");
        assert!(platform.ends_with(std::env::consts::ARCH) || platform.ends_with("arm64"));
        assert_eq!(
            Tag::Abi3("linux_x86_64".into()).text(),
            "cp39-abi3-linux_x86_64"
        );
    }
}
