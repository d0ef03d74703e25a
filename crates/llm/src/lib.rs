//! Language models at Connect 4: `connect4-arena llm play` plays a chat
//! model, through the chat-completions API that OpenAI, vLLM, llama.cpp's
//! server and Ollama speak, against the project's players, and the solver
//! judges every move it makes; `llm report` reads the log again; `llm
//! stand-in` is a scripted server of that API for trying it all without
//! a model (docs/llm.md).
//!
//! # Layers
//!
//! ```text
//! 3  run (the schedule, games at once, resuming, the caps)
//! 2  game (one game, in process)   judge (verdicts, the summary)
//!    stand_in (a scripted server)
//! 1  chat (the API's client)   prompt (what the model is shown)
//!    answer (what counts as a move)   record (the log's lines)
//! 0  model (what a game asks of a model)
//! ```
//!
//! The `http` feature (on by default) brings the chat-completions client,
//! the stand-in server and the `llm` command; without it, the games, the
//! judge and the log play any [`model::Model`] (c4engine's Python
//! function is one).

pub mod answer;
#[cfg(feature = "http")]
pub mod chat;
#[cfg(feature = "http")]
mod cli;
pub mod game;
pub mod judge;
pub mod model;
pub mod prompt;
pub mod record;
pub mod run;
#[cfg(feature = "http")]
pub mod stand_in;

#[cfg(feature = "http")]
pub use cli::{Args, Command, PlayArgs, ReportArgs, command};
