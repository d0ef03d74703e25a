//! Writing a file so that a crash never leaves half of it under its name:
//! the bytes go to a fresh temporary file beside it, which is then renamed.
//!
//! The temporary file has a random name and is created exclusively
//! (`O_CREAT | O_EXCL`, which never follows a link), so that a file or a
//! link planted under a name it could take is refused, never written
//! through.

use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use rand::RngExt;

/// Names tried before giving up when each one is taken.
const ATTEMPTS: usize = 16;

/// Writes `contents` to `path` through a fresh temporary file in the same
/// folder and a rename. If the write fails (a full disk, say), the partial
/// temporary file is removed and `path` keeps its old contents.
pub fn write(path: &Path, contents: impl AsRef<[u8]>) -> io::Result<()> {
    let (tmp, mut file) = create_fresh(path)?;
    let written = file
        .write_all(contents.as_ref())
        .and_then(|()| file.flush());
    drop(file);
    if let Err(e) = written.and_then(|()| std::fs::rename(&tmp, path)) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(())
}

/// Creates a new file with a random name beside `path`, exclusively.
fn create_fresh(path: &Path) -> io::Result<(PathBuf, std::fs::File)> {
    let name = path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} names no file", path.display()),
        )
    })?;
    let mut rng = rand::rng();
    for _ in 0..ATTEMPTS {
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(name);
        tmp_name.push(format!(".{:016x}.tmp", rng.random::<u64>()));
        let tmp = path.with_file_name(tmp_name);
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(file) => return Ok((tmp, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!(
            "no fresh temporary name beside {} after {ATTEMPTS} tries",
            path.display()
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("c4-atomic-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn writes_and_replaces_leaving_no_temporary_file() {
        let dir = folder("replace");
        let path = dir.join("out.txt");
        write(&path, "one").unwrap();
        write(&path, "two").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        let names: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert_eq!(names.len(), 1, "{names:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_link_at_the_old_temporary_name_is_not_followed() {
        let dir = folder("planted");
        let victim = dir.join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let path = dir.join("x.html");
        std::os::unix::fs::symlink(&victim, dir.join("x.html.tmp")).unwrap();
        write(&path, "report").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "report");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
