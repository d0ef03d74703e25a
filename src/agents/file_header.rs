//! What the agents' files share: a `format` and `version` header checked
//! on reading.

/// A header this build does not read; the message quotes what was found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum HeaderError {
    /// Another kind of file.
    #[error("format is '{found}', expected '{expected}'")]
    Format {
        /// The file's format.
        found: String,
        /// The format read here.
        expected: String,
    },
    /// A version of the format this build does not read.
    #[error("version {found} is not supported (this build reads version {supported})")]
    Version {
        /// The file's version.
        found: u32,
        /// The version read here.
        supported: u32,
    },
}

/// Checks a file's header.
pub(crate) fn check_header(
    found_format: &str,
    found_version: u32,
    format: &str,
    version: u32,
) -> Result<(), HeaderError> {
    if found_format != format {
        return Err(HeaderError::Format {
            found: found_format.to_string(),
            expected: format.to_string(),
        });
    }
    if found_version != version {
        return Err(HeaderError::Version {
            found: found_version,
            supported: version,
        });
    }
    Ok(())
}
