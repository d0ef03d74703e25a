//! The wire format: every request and reply of the protocol as serde types.
//!
//! This module is the only place the format is defined; the engine's session
//! parses with it and the arena writes and reads with it. See
//! `protocol/README.md` for the specification in prose.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::protocol::fields::{self, FieldError};
use crate::protocol::lines::shorten;
use crate::rules::Rules;
use crate::score::Outcome;

/// The protocol's name, sent in `hello`.
pub const PROTOCOL: &str = "connect4-jsonl";
/// The protocol version this engine speaks.
pub const VERSION: u32 = 1;
/// Longest accepted request line, in bytes (1 MiB).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// A request id: a string or a number, echoed on every reply to the
/// request exactly as the request wrote it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Id {
    /// A numeric id, as written (`1e2` stays `1e2`, `-0` stays `-0`).
    Number(IdNumber),
    /// A string id.
    Text(String),
    /// A string id only its JSON text can hold (an escaped lone surrogate,
    /// which is valid JSON but no Unicode text), echoed as written.
    #[serde(skip_deserializing)]
    Raw(RawId),
}

/// The JSON text of a numeric id, as the request wrote it. Two are equal
/// when they are the same number (`5` and `5.0`), so that an engine that
/// reformats an id still answers its request.
#[derive(Clone, Debug)]
pub struct IdNumber(String);

impl PartialEq for IdNumber {
    fn eq(&self, other: &IdNumber) -> bool {
        self.0 == other.0
            || matches!(
                (self.0.parse::<f64>(), other.0.parse::<f64>()),
                (Ok(a), Ok(b)) if a == b
            )
    }
}

impl Eq for IdNumber {}

impl IdNumber {
    /// The id as a whole number, if it is one.
    pub fn as_u64(&self) -> Option<u64> {
        self.0.parse().ok()
    }

    /// The id as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

macro_rules! id_number_from {
    ($($t:ty),*) => {$(
        impl From<$t> for IdNumber {
            fn from(n: $t) -> IdNumber {
                IdNumber(n.to_string())
            }
        }
    )*};
}
id_number_from!(i32, i64, u32, u64);

impl Serialize for IdNumber {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let raw = serde_json::value::RawValue::from_string(self.0.clone())
            .map_err(serde::ser::Error::custom)?;
        raw.serialize(s)
    }
}

impl<'de> Deserialize<'de> for IdNumber {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<IdNumber, D::Error> {
        let n = serde_json::Number::deserialize(d)?;
        Ok(IdNumber(n.to_string()))
    }
}

/// The JSON text of a string id that Rust text cannot hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawId(String);

impl Serialize for RawId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let raw = serde_json::value::RawValue::from_string(self.0.clone())
            .map_err(serde::ser::Error::custom)?;
        raw.serialize(s)
    }
}

/// A request line read once: the `id` as its JSON text (so that a number
/// is echoed as written), and every other field as JSON.
#[derive(Deserialize)]
struct Line<'a> {
    #[serde(borrow, default)]
    id: Option<&'a serde_json::value::RawValue>,
    #[serde(flatten)]
    fields: Map<String, Value>,
}

/// The `id` alone, read from a line that is not valid JSON as a whole but
/// may still hold a valid id (a lone surrogate in another string is skipped
/// over, not decoded), so that its error reply can carry it.
#[derive(Deserialize)]
struct IdOnly<'a> {
    #[serde(borrow, default)]
    id: Option<&'a serde_json::value::RawValue>,
}

/// The id of a request line as written; `Err` with the message for an id
/// that is neither a string nor a number.
fn id_of(raw: Option<&serde_json::value::RawValue>) -> Result<Option<Id>, String> {
    let Some(raw) = raw else {
        return Ok(None);
    };
    let json = raw.get();
    match json.as_bytes().first() {
        Some(b'"') => Ok(Some(match serde_json::from_str::<String>(json) {
            Ok(s) => Id::Text(s),
            Err(_) => Id::Raw(RawId(json.to_string())),
        })),
        Some(b'-' | b'0'..=b'9') => Ok(Some(Id::Number(IdNumber(json.to_string())))),
        Some(b'n') => Ok(None),
        _ => {
            let found =
                serde_json::from_str::<Value>(json).map_or("something else", |v| kind_of(&v));
            Err(format!(
                "field 'id': expected a string or a number, found {found}"
            ))
        }
    }
}

/// A request: an optional id and a command.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// Echoed on every reply to this request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Id>,
    /// What to do.
    #[serde(flatten)]
    pub command: Command,
    /// Fields of the request line that no command knows, as warnings for
    /// the final reply (never sent).
    #[serde(skip)]
    pub warnings: Vec<String>,
}

/// The commands of protocol version 1.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "cmd", rename_all = "lowercase")]
pub enum Command {
    /// Identify the engine and list its options.
    Hello,
    /// Liveness check, answered at once even during a search.
    Ping,
    /// Start a new game (clears the tables).
    #[serde(rename = "newgame")]
    NewGame {
        /// Board and line length; the standard game if absent.
        #[serde(default)]
        rules: Rules,
        /// A seed for this game: agents that draw random numbers reseed
        /// from it, so a game replays whatever the engine played before.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seed: Option<u64>,
    },
    /// Set the position.
    Position(PositionRequest),
    /// Search the position and answer with `bestmove`.
    Go(GoLimits),
    /// End the running search.
    Stop,
    /// Score every legal column.
    Analyze(GoLimits),
    /// Set an option.
    #[serde(rename = "setoption")]
    SetOption {
        /// The option's name.
        name: String,
        /// Its new value.
        value: Value,
    },
    /// End the session.
    Quit,
}

/// The position: from the empty board by moves, or a grid. With neither,
/// the empty board.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PositionRequest {
    /// A move string (`"4453"`) or a list of 1-based columns (`[4,4,5,3]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moves: Option<Moves>,
    /// A grid, top row first: a list of rows or one flat list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<Board>,
}

/// Moves in either notation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Moves {
    /// A move string such as `"4453"`.
    Text(String),
    /// 1-based columns.
    Columns(Vec<i64>),
}

/// A grid in either shape.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Board {
    /// Rows, top first.
    Rows(Vec<Vec<i64>>),
    /// One flat list of rows x columns cells, top row first.
    Flat(Vec<i64>),
}

/// Limits of `go` and `analyze`. A limit is on when present.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoLimits {
    /// Deepest iteration, in plies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u64>,
    /// Most nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// Time for this move, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub movetime_ms: Option<u64>,
    /// The side to move's clock; the engine budgets its own time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<Clock>,
    /// Search until `stop` (no other limit may be given).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub infinite: bool,
}

/// A game clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clock {
    /// Time left, in milliseconds.
    pub time_ms: u64,
    /// Increment per move, in milliseconds.
    #[serde(default)]
    pub inc_ms: u64,
}

/// A score on the wire (an engine may leave it out: then not exact, 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireScore {
    /// Whether `value` is the proven game value.
    pub exact: bool,
    /// The proven value (the test sets' convention) or a heuristic estimate
    /// in -99..=99, from the side to move.
    pub value: i32,
    /// The proven outcome for the side to move: win, draw or loss. Present
    /// with every exact score, and also when the outcome is proven before
    /// the distance (`exact` false, `value` 99, 0 or -99).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// For an exact win or loss: plies until the game ends with best play.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plies_to_end: Option<u32>,
    /// For an agent other than the solver: its own value, in its
    /// evaluator's units (`value` holds it scaled into -99..=99).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_value: Option<i32>,
}

/// The state of the position after `position` or `newgame`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PositionState {
    /// A move string reaching the position (one of several for a grid).
    pub moves: String,
    /// Stones on the board.
    pub ply: u32,
    /// `first` or `second`.
    pub to_move: crate::position::Player,
    /// `ongoing`, `first_won`, `second_won` or `draw`.
    pub status: GameStatus,
}

/// How the game stands, on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameStatus {
    /// The game goes on.
    Ongoing,
    /// The first player has a line.
    FirstWon,
    /// The second player has a line.
    SecondWon,
    /// The board is full.
    Draw,
}

/// The engine's name and version, in `hello`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineInfo {
    /// Name.
    pub name: String,
    /// Version.
    pub version: String,
}

/// The opening book an engine uses, in `hello`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BookInfo {
    /// The board it is for, as `COLUMNSxROWSxINAROW`.
    pub board: String,
    /// Every position of perfect play (either side's strategy tree) up to
    /// this ply is in it.
    pub plies: u32,
    /// Positions stored.
    pub positions: usize,
    /// The side that loses at a root has its tree too, down to this ply, so
    /// the winner's mistakes before it are covered (0: none); absent from
    /// engines that predate it.
    #[serde(default)]
    pub deviations: u32,
    /// Its layers: every position a game reaches at a ply, with its
    /// outcome (absent when there are none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub layers: Vec<LayerInfo>,
}

/// One layer of the book, in `hello`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayerInfo {
    /// Its ply.
    pub ply: u32,
    /// Positions it knows (a position and its mirror image count once).
    pub positions: u64,
}

/// One option, in `hello`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OptionInfo {
    /// Name, for `setoption`.
    pub name: String,
    /// `int`, `bool` or `string`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Value at start (optional for engines; ours always sends it).
    #[serde(default)]
    pub default: Value,
    /// Smallest value of an `int`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<i64>,
    /// Largest value of an `int`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<i64>,
    /// Allowed values or forms of a `string`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choices: Option<Vec<String>>,
    /// What it does (optional for engines; ours always sends it).
    #[serde(default)]
    pub help: String,
}

/// The score of one column, in `analysis`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveScore {
    /// 1-based column.
    #[serde(rename = "move")]
    pub column: u32,
    /// Its score, from the side to move before the move.
    pub score: WireScore,
}

/// Error codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// Not JSON, not an object, or not UTF-8.
    BadJson,
    /// A field missing or of the wrong type, or a bad limit.
    BadRequest,
    /// A `cmd` this engine does not know.
    UnknownCommand,
    /// A move that cannot be played.
    IllegalMove,
    /// A grid that breaks the rules.
    BadPosition,
    /// `go` or `analyze` on a finished game.
    GameOver,
    /// Too many requests already wait for the running search.
    Busy,
    /// An unknown option or a value out of range.
    BadOption,
    /// A line over [`MAX_LINE_BYTES`].
    LineTooLong,
    /// A request that was waiting when `quit` ended the session.
    Cancelled,
}

/// A reply: one JSON object on one line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Reply {
    /// Answer to `hello`.
    Hello {
        /// The request's id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<Id>,
        /// Always [`PROTOCOL`].
        protocol: String,
        /// Always [`VERSION`].
        version: u32,
        /// Name and version (optional for engines; ours always sends it).
        #[serde(default)]
        engine: EngineInfo,
        /// The options `setoption` accepts (optional for engines).
        #[serde(default)]
        options: Vec<OptionInfo>,
        /// The opening book in use, if any (optional for engines).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        book: Option<BookInfo>,
    },
    /// Answer to `ping`.
    Pong {
        /// The request's id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<Id>,
    },
    /// Success; after `position` and `newgame` with the position's state.
    Ok {
        /// The request's id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<Id>,
        /// The position, after `position` and `newgame`.
        #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
        state: Option<PositionState>,
    },
    /// Progress of a `go`: one per completed depth, at most about 10 a second.
    Info {
        /// The `go`'s id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<Id>,
        /// Completed depth.
        #[serde(default)]
        depth: u32,
        /// Score so far.
        #[serde(default)]
        score: WireScore,
        /// Nodes so far.
        #[serde(default)]
        nodes: u64,
        /// Milliseconds since `go`.
        #[serde(default)]
        time_ms: u64,
        /// Nodes per second.
        #[serde(default)]
        nps: u64,
        /// Principal variation, 1-based columns.
        #[serde(default)]
        pv: Vec<u32>,
    },
    /// The one final answer to a `go`.
    Bestmove {
        /// The `go`'s id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<Id>,
        /// The move, a 1-based column.
        #[serde(rename = "move")]
        column: u32,
        /// Its score, from the side to move.
        #[serde(default)]
        score: WireScore,
        /// Depth of the last completed iteration.
        #[serde(default)]
        depth: u32,
        /// Nodes searched.
        #[serde(default)]
        nodes: u64,
        /// Milliseconds spent.
        #[serde(default)]
        time_ms: u64,
        /// Principal variation, 1-based columns.
        #[serde(default)]
        pv: Vec<u32>,
    },
    /// Answer to `analyze`.
    Analysis {
        /// The request's id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<Id>,
        /// One entry per legal column, left to right.
        moves: Vec<MoveScore>,
    },
    /// A request that could not be carried out; the session goes on.
    Error {
        /// The request's id, when it could be read.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<Id>,
        /// What kind of error.
        code: ErrorCode,
        /// What was wrong and where.
        message: String,
    },
}

impl Reply {
    /// The id the reply carries.
    pub fn id(&self) -> Option<&Id> {
        match self {
            Reply::Hello { id, .. }
            | Reply::Pong { id }
            | Reply::Ok { id, .. }
            | Reply::Info { id, .. }
            | Reply::Bestmove { id, .. }
            | Reply::Analysis { id, .. }
            | Reply::Error { id, .. } => id.as_ref(),
        }
    }

    /// Whether this is the last reply to its request (all but `info`).
    pub fn is_final(&self) -> bool {
        !matches!(self, Reply::Info { .. })
    }

    /// The reply as one line of JSON, without the newline.
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("replies always serialise")
    }
}

impl Request {
    /// The request as one line of JSON, without the newline.
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("requests always serialise")
    }
}

/// A line that is not a valid request, with the id when one could be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestError {
    /// The id, if the line was an object with a valid id.
    pub id: Option<Id>,
    /// What kind of error.
    pub code: ErrorCode,
    /// What was wrong.
    pub message: String,
}

impl RequestError {
    /// The error reply for this error.
    pub fn reply(self) -> Reply {
        Reply::Error {
            id: self.id,
            code: self.code,
            message: self.message,
        }
    }
}

/// Parses one request line (without its line ending).
///
/// Checks in order: UTF-8 and JSON (`bad_json`), an object (`bad_json`), a
/// string or number `id` (`bad_request`), a string `cmd` (`bad_request`), a
/// known command (`unknown_command`), then the command's fields and limits
/// (`bad_request`, naming the field). Unknown fields are kept as warnings.
pub fn parse_request(line: &[u8]) -> Result<Request, RequestError> {
    let err = |id: Option<Id>, code, message: String| RequestError { id, code, message };
    let text = std::str::from_utf8(line).map_err(|e| {
        err(
            None,
            ErrorCode::BadJson,
            format!("not UTF-8: invalid byte at offset {}", e.valid_up_to()),
        )
    })?;
    let Line { id, mut fields } = serde_json::from_str(text).map_err(|e| {
        // Only an error reads the line again: to name what it holds, or to
        // find its id for the reply.
        if e.classify() == serde_json::error::Category::Data {
            let found =
                serde_json::from_str::<Value>(text).map_or("something else", |v| kind_of(&v));
            return err(
                None,
                ErrorCode::BadJson,
                format!("expected a JSON object, found {found}"),
            );
        }
        let id = serde_json::from_str::<IdOnly>(text)
            .ok()
            .and_then(|line| id_of(line.id).ok().flatten());
        err(id, ErrorCode::BadJson, format!("not JSON: {e}"))
    })?;
    let id = id_of(id).map_err(|m| err(None, ErrorCode::BadRequest, m))?;
    let cmd = command_of(&fields).map_err(|(code, m)| err(id.clone(), code, m))?;
    let warnings = fields::check(cmd, &mut fields)
        .map_err(|m| err(id.clone(), ErrorCode::BadRequest, format!("{cmd}: {m}")))?;
    let mut request: Request = serde_json::from_value(Value::Object(fields))
        .map_err(|e| err(id.clone(), ErrorCode::BadRequest, format!("{cmd}: {e}")))?;
    request.warnings = warnings;
    // The id as written, not as the number it reads as.
    request.id = id.clone();
    match &request.command {
        Command::Go(limits) | Command::Analyze(limits) => {
            validate_limits(limits)
                .map_err(|m| err(id.clone(), ErrorCode::BadRequest, format!("{cmd}: {m}")))?;
        }
        Command::Position(p) if p.moves.is_some() && p.board.is_some() => {
            return Err(err(
                id,
                ErrorCode::BadRequest,
                "position: give either 'moves' or 'board', not both".into(),
            ));
        }
        _ => {}
    }
    Ok(request)
}

/// The known command a request's `cmd` field names, or the error's code and
/// message.
fn command_of(fields: &Map<String, Value>) -> Result<&'static str, (ErrorCode, String)> {
    let cmd = match fields.get("cmd") {
        Some(Value::String(s)) => s.as_str(),
        Some(other) => {
            return Err((
                ErrorCode::BadRequest,
                format!("field 'cmd': expected a string, found {}", kind_of(other)),
            ));
        }
        None => return Err((ErrorCode::BadRequest, "missing field 'cmd'".into())),
    };
    let commands = fields::commands();
    if let Some(known) = commands.iter().find(|known| **known == cmd) {
        return Ok(known);
    }
    let guess = fields::nearest(cmd, &commands)
        .map(|guess| format!(" (did you mean '{guess}'?)"))
        .unwrap_or_default();
    Err((
        ErrorCode::UnknownCommand,
        format!(
            "unknown command '{}'{guess}; known: {}",
            shorten(cmd, 40),
            commands.join(", ")
        ),
    ))
}

/// `infinite` excludes the other limits. (Each limit's own range, and
/// `infinite` being true or false, are the fields' check's.)
fn validate_limits(limits: &GoLimits) -> Result<(), FieldError> {
    if limits.infinite
        && (limits.depth.is_some()
            || limits.nodes.is_some()
            || limits.movetime_ms.is_some()
            || limits.clock.is_some())
    {
        return Err(FieldError {
            field: "infinite".into(),
            problem: "cannot be combined with other limits".into(),
        });
    }
    Ok(())
}

/// A short name of a JSON value's type.
fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_list_is_the_enum_s_tags() {
        // Serde lists the enum's own tags when it meets an unknown one.
        let e = serde_json::from_str::<Command>(r#"{"cmd":"?"}"#)
            .unwrap_err()
            .to_string();
        let listed = e
            .split("expected one of ")
            .nth(1)
            .unwrap_or_else(|| panic!("{e}"));
        let tags: Vec<&str> = listed
            .split(',')
            .map(|t| t.trim().trim_matches('`'))
            .map(|t| t.split('`').next().unwrap())
            .collect();
        assert_eq!(tags, fields::commands(), "{e}");
    }

    fn code(line: &str) -> ErrorCode {
        parse_request(line.as_bytes()).unwrap_err().code
    }

    #[test]
    fn parses_commands() {
        let r = parse_request(br#"{"cmd":"go","id":7,"depth":3,"future":1}"#).unwrap();
        assert_eq!(r.id, Some(Id::Number(7.into())));
        assert_eq!(
            r.command,
            Command::Go(GoLimits {
                depth: Some(3),
                ..GoLimits::default()
            })
        );
        let r = parse_request(br#"{"cmd":"position","moves":[4,4,5]}"#).unwrap();
        assert_eq!(
            r.command,
            Command::Position(PositionRequest {
                moves: Some(Moves::Columns(vec![4, 4, 5])),
                board: None
            })
        );
        let r = parse_request(br#"{"cmd":"newgame","rules":{"columns":9,"rows":7}}"#);
        assert_eq!(
            r.unwrap_err().code,
            ErrorCode::BadRequest,
            "9x7 does not fit"
        );
    }

    #[test]
    fn a_misspelt_command_gets_a_guess_and_a_strange_one_the_list() {
        let message = |line: &str| parse_request(line.as_bytes()).unwrap_err().message;
        let m = message(r#"{"cmd":"positon"}"#);
        assert!(
            m.contains("unknown command 'positon' (did you mean 'position'?)"),
            "{m}"
        );
        assert!(message(r#"{"cmd":"hlelo"}"#).contains("did you mean 'hello'?"));
        let m = message(r#"{"cmd":"xyzzy"}"#);
        assert!(
            !m.contains("did you mean") && m.contains("known: hello"),
            "{m}"
        );
    }

    #[test]
    fn error_codes() {
        assert_eq!(code("{"), ErrorCode::BadJson);
        assert_eq!(code("[1]"), ErrorCode::BadJson);
        assert_eq!(code(r#"{"cmd":5}"#), ErrorCode::BadRequest);
        assert_eq!(code(r#"{"id":{},"cmd":"ping"}"#), ErrorCode::BadRequest);
        assert_eq!(code(r#"{"cmd":"fly"}"#), ErrorCode::UnknownCommand);
        assert_eq!(code(r#"{"cmd":"go","depth":0}"#), ErrorCode::BadRequest);
        assert_eq!(code(r#"{"cmd":"go","depth":-2}"#), ErrorCode::BadRequest);
        assert_eq!(
            code(r#"{"cmd":"go","movetime_ms":1.5}"#),
            ErrorCode::BadRequest
        );
        assert_eq!(
            code(r#"{"cmd":"go","infinite":true,"depth":3}"#),
            ErrorCode::BadRequest
        );
        assert_eq!(
            code(r#"{"cmd":"position","moves":"4","board":[]}"#),
            ErrorCode::BadRequest
        );
        let message = |line: &str| parse_request(line.as_bytes()).unwrap_err().message;
        assert_eq!(message("[1]"), "expected a JSON object, found an array");
        assert_eq!(message("7"), "expected a JSON object, found a number");
        assert_eq!(
            message(r#"{"cmd":"ping","id":[1]}"#),
            "field 'id': expected a string or a number, found an array"
        );
        assert_eq!(
            message(r#"{"cmd":"go","infinite":null}"#),
            "go: field 'infinite': expected true or false, got null"
        );
        let e = parse_request(br#"{"id":"a","cmd":"go","nodes":0}"#).unwrap_err();
        assert_eq!(e.id, Some(Id::Text("a".into())));
        assert_eq!(
            e.message,
            "go: field 'nodes': expected a whole number of at least 1, got the number 0"
        );
    }

    #[test]
    fn replies_round_trip() {
        let r = Reply::Ok {
            id: Some(Id::Text("x".into())),
            state: Some(PositionState {
                moves: "44".into(),
                ply: 2,
                to_move: crate::position::Player::First,
                status: GameStatus::Ongoing,
            }),
        };
        let line = r.to_line();
        assert_eq!(
            line,
            r#"{"type":"ok","id":"x","moves":"44","ply":2,"to_move":"first","status":"ongoing"}"#
        );
        assert_eq!(serde_json::from_str::<Reply>(&line).unwrap(), r);
        assert_eq!(Reply::Pong { id: None }.to_line(), r#"{"type":"pong"}"#);
    }

    #[test]
    fn a_book_without_deviations_reads_as_none() {
        let older = r#"{"board":"7x6x4","plies":14,"positions":9}"#;
        let book: BookInfo = serde_json::from_str(older).unwrap();
        assert_eq!(book.deviations, 0);
        assert_eq!(book.positions, 9);
        assert!(book.layers.is_empty());
        // A book without layers says nothing of them.
        assert!(!serde_json::to_string(&book).unwrap().contains("layers"));
    }
}
