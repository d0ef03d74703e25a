//! The API's one error: what went wrong, in the command line's words, and
//! the HTTP status it is answered with (`{"error": "..."}` as the body).

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use connect4::{MoveError, RulesError};
use serde_json::{Value, json};

/// A JSON value, or the error that says why not, for the handlers.
pub(crate) type ApiResult = Result<Value, ApiError>;

/// Why a request was not answered as asked.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The request came from another site's page or under another host
    /// name (see `guard`).
    #[error("{0}")]
    Refused(String),
    /// No page or API at this path.
    #[error("no page {0}")]
    NoPage(String),
    /// A method other than GET.
    #[error("only GET is answered")]
    Method,
    /// Every answering thread is taken and the queue before them is full.
    #[error("busy: {0} requests are waiting; try again in a moment")]
    Busy(usize),
    /// The answer's work failed (a panic, in the server's log).
    #[error("the answer failed; see the server's log")]
    Failed,
    /// The query string could not be read at all.
    #[error("the query could not be read: {0}")]
    Query(String),
    /// A parameter the request needs is not in it.
    #[error("the request has no '{0}'")]
    Missing(&'static str),
    /// A parameter that should be a number is not.
    #[error("{name} = '{value}': expected a number")]
    NotANumber {
        /// The parameter.
        name: &'static str,
        /// Its value, cut short.
        value: String,
    },
    /// The board asked for is not one the engine plays.
    #[error(transparent)]
    Rules(#[from] RulesError),
    /// The position's move string does not play out.
    #[error("moves '{moves}': {source}")]
    Moves {
        /// The move string, cut short.
        moves: String,
        /// The first move that cannot be played.
        source: MoveError,
    },
    /// The position asked for a move is already over.
    #[error("moves '{0}': the game is over")]
    Over(String),
    /// A column outside the board.
    #[error("column {column}: the board has columns 1 to {columns}")]
    Column {
        /// The column asked for.
        column: u64,
        /// The board's columns.
        columns: u32,
    },
    /// A log or an engine by a number the server was not given.
    #[error("{what} {number}: {count} {what}(s) were given to serve, numbered from 1")]
    NotGiven {
        /// `log` or `engine`.
        what: &'static str,
        /// The number asked for.
        number: u64,
        /// How many there are.
        count: usize,
    },
    /// A log without the game asked for.
    #[error("log {log} has no game {game}")]
    NoGame {
        /// The log (from 1).
        log: u64,
        /// The game, as the log numbers it.
        game: u64,
    },
    /// A log's game whose board or moves cannot be read.
    #[error("game {game}: {why}")]
    BadGame {
        /// The game, as the log numbers it.
        game: u64,
        /// What is wrong with it.
        why: String,
    },
    /// The league's page asked of a server that shows no league.
    #[error("this server shows no league (serve --league DIR shows one)")]
    NoLeague,
    /// A student the league does not have.
    #[error("the league has no {what} '{name}'")]
    NoStudent {
        /// `student` or `anchor`.
        what: &'static str,
        /// The name asked for, cut short.
        name: String,
    },
    /// The league's database could not be read.
    #[error("{0}")]
    League(String),
    /// A level the engine does not have.
    #[error("level {level}: the levels are 1 to {levels}")]
    Level {
        /// The level asked for.
        level: u64,
        /// How many there are.
        levels: usize,
    },
    /// A position the solver did not prove in the time it has.
    #[error("not proven within {seconds} s: the solver's answers are exact or none")]
    NotProven {
        /// The time it had.
        seconds: u64,
    },
    /// An engine that failed to answer, or answered an illegal move.
    #[error("{engine}: {why}")]
    Engine {
        /// The engine's name.
        engine: String,
        /// What it did.
        why: String,
    },
}

impl ApiError {
    /// The HTTP status the error is answered with.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::Refused(_) => StatusCode::FORBIDDEN,
            ApiError::NoPage(_) | ApiError::NoLeague | ApiError::NoStudent { .. } => {
                StatusCode::NOT_FOUND
            }
            ApiError::League(_) | ApiError::NotProven { .. } => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Method => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::Busy(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Failed => StatusCode::INTERNAL_SERVER_ERROR,
            ApiError::Engine { .. } => StatusCode::BAD_GATEWAY,
            _ => StatusCode::BAD_REQUEST,
        }
    }

    /// The error of a move string that does not play out.
    pub fn moves(moves: &str, source: MoveError) -> ApiError {
        ApiError::Moves {
            moves: shorten(moves),
            source,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status(), Json(json!({ "error": self.to_string() }))).into_response()
    }
}

/// A path or value cut short for a message.
pub fn shorten(text: &str) -> String {
    connect4::protocol::lines::shorten(text, 60)
}
