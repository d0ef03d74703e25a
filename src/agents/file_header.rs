//! What the agents' files share: a `format` and `version` header checked
//! on reading.

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
