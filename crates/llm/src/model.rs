//! What the games ask of a model, whoever answers: a conversation in, an
//! answer out. The chat-completions client ([`crate::chat`], with the
//! `http` feature) is one model; c4engine's Python function is another.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// One message of a conversation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// `system`, `user` or `assistant`.
    pub role: String,
    /// Its text.
    pub content: String,
}

impl Message {
    /// A message of `role` saying `content`.
    pub fn new(role: &str, content: String) -> Message {
        Message {
            role: role.to_string(),
            content,
        }
    }
}

/// An answer of the model.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    /// Its text.
    pub text: String,
    /// Tokens of the prompt, as the server counted them (0 if it did not
    /// say).
    pub prompt_tokens: u64,
    /// Tokens of the answer, as the server counted them.
    pub completion_tokens: u64,
    /// The requests it took (1 when the first was answered).
    pub requests: u32,
    /// The time from the first request to the answer.
    pub elapsed: Duration,
}

/// Why the model gave no answer.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ChatError {
    /// The base URL is not one this client can reach.
    #[error("--base-url {url:?}: {why}")]
    BadUrl {
        /// The URL given.
        url: String,
        /// What is wrong with it.
        why: String,
    },
    /// A status that will not change by asking again (a wrong key, an
    /// unknown model).
    #[error("the server refused the request: HTTP {status}: {body}")]
    Refused {
        /// The status.
        status: u16,
        /// The start of its body.
        body: String,
    },
    /// Every try failed on what might have passed.
    #[error("no answer after {tries} tries; the last: {last}")]
    GaveUp {
        /// The tries made.
        tries: u32,
        /// What went wrong the last time.
        last: String,
    },
    /// A model of the caller's (a Python function) failed.
    #[error("the model failed: {0}")]
    Failed(String),
}

/// A model the games can ask; many games ask it at once.
pub trait Model: Sync {
    /// The model's name, as the log and the summary give it.
    fn name(&self) -> &str;

    /// The model's answer to `messages`. Blocks the calling thread.
    fn ask(&self, messages: &[Message]) -> Result<Reply, ChatError>;
}
