//! The files a command writes may be none of the files it reads, nor each
//! other: `match --log L --summary L` would otherwise destroy the log.
//!
//! Two paths are the same file when they name one existing file (by its
//! device and inode, so links and other spellings are caught too), or,
//! where a file does not exist yet, when they lead to the same name in the
//! same real folder.

use std::path::{Path, PathBuf};

use crate::spec::EngineSpec;

/// An output that would overwrite an input or another output.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// An output names a file the command reads.
    #[error(
        "{output} {path} is the same file as {input} {input_path}: an output must not \
         overwrite what the command reads; choose another file"
    )]
    IsInput {
        /// The output's flag.
        output: String,
        /// The output's path, as given.
        path: PathBuf,
        /// The input's flag (or what it is).
        input: String,
        /// The input's path, as given.
        input_path: PathBuf,
    },
    /// An output is a file inside a folder the command reads.
    #[error(
        "{output} {path} lies inside {input} {folder}: an output must not be written over \
         the files the command reads; choose a file elsewhere"
    )]
    InFolder {
        /// The output's flag.
        output: String,
        /// The output's path, as given.
        path: PathBuf,
        /// The folder's flag.
        input: String,
        /// The folder, as given.
        folder: PathBuf,
    },
    /// Two outputs name the same file.
    #[error("{first} and {second} both name the file {path}: give each output its own file")]
    Twice {
        /// The first output's flag.
        first: String,
        /// The second output's flag.
        second: String,
        /// The path, as given to the second.
        path: PathBuf,
    },
}

/// The files of one command, each with the flag (or words) that named it.
#[derive(Default)]
pub struct Files {
    inputs: Vec<(String, PathBuf)>,
    /// Folders the command reads: no output may lie inside one.
    folders: Vec<(String, PathBuf)>,
    outputs: Vec<(String, PathBuf)>,
}

impl Files {
    /// No files yet.
    pub fn new() -> Files {
        Files::default()
    }

    /// A file the command reads, if given.
    pub fn input(mut self, role: &str, path: Option<&Path>) -> Files {
        if let Some(p) = path {
            self.inputs.push((role.to_string(), p.to_path_buf()));
        }
        self
    }

    /// A folder the command reads (a student's submission), if given: no
    /// output may be written over a file inside it.
    pub fn input_folder(mut self, role: &str, path: Option<&Path>) -> Files {
        if let Some(p) = path {
            self.folders.push((role.to_string(), p.to_path_buf()));
        }
        self
    }

    /// A file the command writes, if given.
    pub fn output(mut self, role: &str, path: Option<&Path>) -> Files {
        if let Some(p) = path {
            self.outputs.push((role.to_string(), p.to_path_buf()));
        }
        self
    }

    /// The files an engine's command line names (its program and every
    /// argument that is an existing file), as inputs: a policy's own
    /// `policy.py` is never an output.
    pub fn engine(mut self, spec: &EngineSpec) -> Files {
        let role = format!("engine '{}'", spec.name);
        let named = std::iter::once(&spec.cmd).chain(&spec.args);
        for word in named.filter(|w| *w != "self") {
            let path = Path::new(word);
            if path.is_file() {
                self.inputs.push((role.clone(), path.to_path_buf()));
            }
        }
        self
    }

    /// Every output differs from every input and from every other output.
    pub fn check(&self) -> Result<(), OutputError> {
        for (i, (output, path)) in self.outputs.iter().enumerate() {
            if let Some((input, input_path)) = self.inputs.iter().find(|(_, p)| same_file(p, path))
            {
                return Err(OutputError::IsInput {
                    output: output.clone(),
                    path: path.clone(),
                    input: input.clone(),
                    input_path: input_path.clone(),
                });
            }
            let read = |f: &PathBuf| path.exists() && inside(path, f);
            if let Some((input, folder)) = self.folders.iter().find(|(_, f)| read(f)) {
                return Err(OutputError::InFolder {
                    output: output.clone(),
                    path: path.clone(),
                    input: input.clone(),
                    folder: folder.clone(),
                });
            }
            if let Some((first, _)) = self.outputs[..i].iter().find(|(_, p)| same_file(p, path)) {
                return Err(OutputError::Twice {
                    first: first.clone(),
                    second: output.clone(),
                    path: path.clone(),
                });
            }
        }
        Ok(())
    }
}

/// Whether `a` and `b` name the same file (see the module's doc).
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
    }
    match (real_name(a), real_name(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// Whether `path` lies inside the folder `folder` (both resolved).
fn inside(path: &Path, folder: &Path) -> bool {
    match (real_name(path), folder.canonicalize()) {
        (Some(p), Ok(f)) => p.starts_with(f),
        _ => false,
    }
}

/// The path with its folder's links and `..` resolved (the file itself
/// need not exist).
fn real_name(path: &Path) -> Option<PathBuf> {
    if let Ok(real) = path.canonicalize() {
        return Some(real);
    }
    let name = path.file_name()?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Some(parent.canonicalize().ok()?.join(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("c4-outputs-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn the_same_file_is_found_through_other_spellings_and_links() {
        let dir = folder("spellings");
        let log = dir.join("games.jsonl");
        std::fs::write(&log, "").unwrap();
        let dotted = dir.join(".").join("games.jsonl");
        assert!(same_file(&log, &dotted));
        #[cfg(unix)]
        {
            let link = dir.join("link.jsonl");
            std::os::unix::fs::symlink(&log, &link).unwrap();
            assert!(same_file(&log, &link));
            let hard = dir.join("hard.jsonl");
            std::fs::hard_link(&log, &hard).unwrap();
            assert!(same_file(&hard, &log));
        }
        let fresh = dir.join("new.json");
        assert!(same_file(&fresh, &dir.join(".").join("new.json")));
        assert!(!same_file(&fresh, &log));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_output_on_an_input_or_on_another_output_is_refused() {
        let dir = folder("refused");
        let log = dir.join("games.jsonl");
        std::fs::write(&log, "").unwrap();
        let err = Files::new()
            .input("--log", Some(&log))
            .output("--summary", Some(&log))
            .check()
            .unwrap_err();
        assert!(err.to_string().starts_with("--summary "), "{err}");
        assert!(err.to_string().contains("same file as --log"), "{err}");
        let out = dir.join("out.csv");
        let err = Files::new()
            .output("--csv", Some(&out))
            .output("--plot", Some(&out))
            .check()
            .unwrap_err();
        assert!(err.to_string().contains("--csv and --plot"), "{err}");
        Files::new()
            .input("--log", Some(&log))
            .output("--csv", Some(&out))
            .check()
            .unwrap();
        let submission = dir.join("submission");
        std::fs::create_dir_all(&submission).unwrap();
        std::fs::write(submission.join("policy.py"), "").unwrap();
        Files::new()
            .input_folder("--submission", Some(&submission))
            .output("--results", Some(&submission.join("results.json")))
            .check()
            .unwrap();
        let err = Files::new()
            .input_folder("--submission", Some(&submission))
            .output("--results", Some(&submission.join("policy.py")))
            .check()
            .unwrap_err();
        assert!(
            err.to_string().contains("lies inside --submission"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
