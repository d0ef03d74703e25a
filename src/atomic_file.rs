//! Writing a file so that a crash never leaves half of it under its name:
//! the bytes go to a temporary file beside it, which is then renamed.

use std::path::Path;

/// Writes `contents` to `path` through `path.tmp` and a rename. If the
/// write fails (a full disk, say), the partial temporary file is removed
/// and `path` keeps its old contents.
pub fn write(path: &Path, contents: impl AsRef<[u8]>) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    if let Err(e) = std::fs::write(&tmp, contents) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    std::fs::rename(&tmp, path)
}
