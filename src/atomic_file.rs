//! Writing a file so that a crash never leaves half of it under its name:
//! the bytes go to a temporary file beside it, which is then renamed.

use std::path::Path;

/// Writes `contents` to `path` through `path.tmp` and a rename.
pub fn write(path: &Path, contents: impl AsRef<[u8]>) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    std::fs::write(&tmp, contents)?;
    std::fs::rename(&tmp, path)
}
