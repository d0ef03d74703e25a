//! What the agents' files share: a `format` and `version` header checked
//! on reading, and writing through a temporary file so that a crash never
//! leaves half a file under the name.

use std::path::Path;

/// Checks a file's header: the error quotes what was found.
pub(crate) fn check_header(
    found_format: &str,
    found_version: u32,
    format: &str,
    version: u32,
) -> Result<(), String> {
    if found_format != format {
        return Err(format!("format is '{found_format}', expected '{format}'"));
    }
    if found_version != version {
        return Err(format!(
            "version {found_version} is not supported (this build reads version {version})"
        ));
    }
    Ok(())
}

/// Writes `text` to `path` through `path.tmp` and a rename.
pub(crate) fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)
}
