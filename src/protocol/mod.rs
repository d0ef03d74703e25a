//! The line-based JSON protocol: message types ([`messages`]), line
//! reading ([`lines`]) and the session loop ([`session`]).
//!
//! The specification is `protocol/README.md` at the top of the repository.

mod fields;
pub mod lines;
pub mod messages;
pub mod options;
pub mod session;

pub use messages::{Command, ErrorCode, Id, Reply, Request, parse_request};
pub use session::{SessionError, SessionOptions, run_session};
