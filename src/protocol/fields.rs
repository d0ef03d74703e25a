//! The fields each command takes, checked before the request is read into
//! its type, so that every mistake is named in a user's words: the field,
//! what it must hold, and what came instead. Unknown fields are accepted
//! (clients may be newer) but come back as warnings, with a guess at the
//! field that was meant.
//!
//! Grids from numpy arrive as floats (`0.0`, `1.0`): whole floats are taken
//! as the integers they are, anything else names its cell.

use serde_json::{Map, Number, Value};

use crate::protocol::lines::shorten;

/// A field that does not hold what its command takes: its name as the
/// request writes it (`clock.time_ms`, `moves[3]`) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("field '{field}': {problem}")]
pub struct FieldError {
    /// The field.
    pub field: String,
    /// What it must hold and what came instead.
    pub problem: String,
}

impl FieldError {
    /// `field` does not hold what it must: `problem`.
    fn new(field: &str, problem: String) -> FieldError {
        FieldError {
            field: field.to_string(),
            problem,
        }
    }
}

/// What a field must hold.
#[derive(Clone, Copy, Debug)]
enum FieldKind {
    /// A whole number in `min..=max`.
    Whole { min: u64, max: u64 },
    /// `true` or `false`.
    Bool,
    /// A string.
    Text,
    /// A move string or a list of 1-based columns.
    Moves,
    /// A grid: rows of cells, or one flat list of cells.
    Board,
    /// An object of `columns`, `rows`, `inarow`.
    Rules,
    /// An object of `time_ms` and `inc_ms`.
    Clock,
    /// Anything (an option's value, checked by the option).
    Any,
}

const ANY_WHOLE: FieldKind = FieldKind::Whole {
    min: 0,
    max: u64::MAX,
};
const POSITIVE: FieldKind = FieldKind::Whole {
    min: 1,
    max: u64::MAX,
};

/// The limits of `go` and `analyze`.
const LIMITS: &[(&str, FieldKind)] = &[
    ("depth", FieldKind::Whole { min: 1, max: 1000 }),
    ("nodes", POSITIVE),
    ("movetime_ms", POSITIVE),
    ("clock", FieldKind::Clock),
    ("infinite", FieldKind::Bool),
];

/// Every command's fields besides `cmd` and `id`.
const FIELDS: &[(&str, &[(&str, FieldKind)])] = &[
    ("hello", &[]),
    ("ping", &[]),
    (
        "newgame",
        &[("rules", FieldKind::Rules), ("seed", ANY_WHOLE)],
    ),
    (
        "position",
        &[("moves", FieldKind::Moves), ("board", FieldKind::Board)],
    ),
    ("go", LIMITS),
    ("stop", &[]),
    ("analyze", LIMITS),
    (
        "setoption",
        &[("name", FieldKind::Text), ("value", FieldKind::Any)],
    ),
    ("quit", &[]),
];

/// The commands' names, in the order of [`FIELDS`].
pub fn commands() -> Vec<&'static str> {
    FIELDS.iter().map(|(cmd, _)| *cmd).collect()
}

const CLOCK_FIELDS: &[(&str, FieldKind)] = &[("time_ms", POSITIVE), ("inc_ms", ANY_WHOLE)];
const RULES_FIELDS: &[(&str, FieldKind)] = &[
    ("columns", POSITIVE),
    ("rows", POSITIVE),
    ("inarow", POSITIVE),
];

/// Checks the fields of a `cmd` request in place (whole floats become
/// integers); returns the warnings about unknown fields, or what is wrong.
pub fn check(cmd: &str, object: &mut Map<String, Value>) -> Result<Vec<String>, FieldError> {
    let fields = FIELDS
        .iter()
        .find(|(c, _)| *c == cmd)
        .map_or(&[][..], |(_, f)| *f);
    let mut warnings = Vec::new();
    check_object(object, fields, "", &mut warnings, &["cmd", "id"])?;
    Ok(warnings)
}

/// Checks `object` against `fields`, naming nested fields `prefix.name`.
fn check_object(
    object: &mut Map<String, Value>,
    fields: &[(&str, FieldKind)],
    prefix: &str,
    warnings: &mut Vec<String>,
    also_known: &[&str],
) -> Result<(), FieldError> {
    for key in object.keys() {
        if also_known.contains(&key.as_str()) || fields.iter().any(|(f, _)| f == key) {
            continue;
        }
        let known: Vec<&str> = fields.iter().map(|(f, _)| *f).collect();
        warnings.push(unknown_field(&format!("{prefix}{key}"), key, &known));
    }
    for (name, kind) in fields {
        if let Some(value) = object.get_mut(*name) {
            check_value(value, *kind, &format!("{prefix}{name}"), warnings)?;
        }
    }
    Ok(())
}

/// The warning for an unknown field, with the nearest known name if one is
/// close.
fn unknown_field(shown: &str, key: &str, known: &[&str]) -> String {
    match nearest(key, known) {
        Some(k) => format!(
            "unknown field '{}' (did you mean '{k}'?)",
            shorten(shown, 40)
        ),
        None if known.is_empty() => format!(
            "unknown field '{}' (this command takes none)",
            shorten(shown, 40)
        ),
        None => format!(
            "unknown field '{}' (fields: {})",
            shorten(shown, 40),
            known.join(", ")
        ),
    }
}

/// The known name nearest to a misspelt `word` (a command's or a field's),
/// if one is close: at most 3 edits away and at most half the longer name
/// changed, or a prefix either way.
pub fn nearest<'a>(word: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .map(|k| (edit_distance(word, k), *k))
        .filter(|&(d, k)| {
            (d <= 3 && 2 * d <= word.len().max(k.len()))
                || k.starts_with(word)
                || word.starts_with(k)
        })
        .min()
        .map(|(_, k)| k)
}

/// Levenshtein distance, for guessing a misspelt name.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (prev + usize::from(ca != *cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            prev = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// A value as a user reads it: `the string "5"`, `the number 1.5`, ...
fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("{b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string \"{}\"", shorten(s, 40)),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// The whole number `v` holds, if it holds one (a whole float counts).
fn whole(v: &Value) -> Option<u64> {
    match v {
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= u64::MAX as f64)
                .map(|f| f as u64)
        }),
        _ => None,
    }
}

/// A whole number in the given range, as an integer (in place), or what is
/// wrong with it.
fn whole_in(v: &mut Value, min: u64, max: u64, name: &str) -> Result<(), FieldError> {
    let range = if max == u64::MAX {
        format!("a whole number of at least {min}")
    } else {
        format!("a whole number from {min} to {max}")
    };
    match whole(v) {
        Some(n) if (min..=max).contains(&n) => {
            *v = Value::Number(Number::from(n));
            Ok(())
        }
        _ => Err(FieldError::new(
            name,
            format!("expected {range}, got {}", describe(v)),
        )),
    }
}

fn check_value(
    value: &mut Value,
    kind: FieldKind,
    name: &str,
    warnings: &mut Vec<String>,
) -> Result<(), FieldError> {
    let expected = |what: &str, v: &Value| {
        FieldError::new(name, format!("expected {what}, got {}", describe(v)))
    };
    match kind {
        FieldKind::Whole { min, max } => whole_in(value, min, max, name),
        FieldKind::Bool => match value {
            Value::Bool(_) => Ok(()),
            other => Err(expected("true or false", other)),
        },
        FieldKind::Text => match value {
            Value::String(_) => Ok(()),
            other => Err(expected("a string", other)),
        },
        FieldKind::Any => Ok(()),
        FieldKind::Moves => match value {
            Value::String(_) => Ok(()),
            Value::Array(columns) => {
                for (i, c) in columns.iter_mut().enumerate() {
                    whole_in(c, 0, u64::MAX, &format!("{name}[{}]", i + 1))?;
                }
                Ok(())
            }
            other => Err(expected(
                "a move string such as \"4453\" or a list of columns such as [4,4,5,3]",
                other,
            )),
        },
        FieldKind::Board => check_board(value, name),
        FieldKind::Rules => match value {
            Value::Object(o) => check_object(o, RULES_FIELDS, &format!("{name}."), warnings, &[]),
            other => Err(expected(
                "an object such as {\"columns\":7,\"rows\":6,\"inarow\":4}",
                other,
            )),
        },
        FieldKind::Clock => match value {
            Value::Object(o) => {
                if !o.contains_key("time_ms") {
                    return Err(FieldError::new(name, "'time_ms' is missing".into()));
                }
                check_object(o, CLOCK_FIELDS, &format!("{name}."), warnings, &[])
            }
            other => Err(expected(
                "an object such as {\"time_ms\":60000,\"inc_ms\":1000}",
                other,
            )),
        },
    }
}

/// A grid: rows of cells or one flat list; each cell 0, 1 or 2 (whole
/// floats too, which become integers).
fn check_board(value: &mut Value, name: &str) -> Result<(), FieldError> {
    let cell = |v: &mut Value, place: String| -> Result<(), FieldError> {
        match whole(v) {
            Some(n @ 0..=2) => {
                *v = Value::Number(Number::from(n));
                Ok(())
            }
            _ => Err(FieldError::new(
                name,
                format!(
                    "{place}: expected 0 (empty), 1 or 2 (the players' stones), got {}",
                    describe(v)
                ),
            )),
        }
    };
    let Value::Array(items) = value else {
        return Err(FieldError::new(
            name,
            format!(
                "expected a list of rows, top row first, or one flat list of cells, got {}",
                describe(value)
            ),
        ));
    };
    if items.iter().all(|i| i.is_array()) && !items.is_empty() {
        for (r, row) in items.iter_mut().enumerate() {
            let Value::Array(cells) = row else {
                unreachable!("checked to be a list");
            };
            for (c, v) in cells.iter_mut().enumerate() {
                cell(v, format!("row {}, column {}", r + 1, c + 1))?;
            }
        }
    } else {
        for (i, v) in items.iter_mut().enumerate() {
            cell(v, format!("cell {}", i + 1))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(cmd: &str, json: &str) -> (Result<Vec<String>, String>, Value) {
        let mut v: Value = serde_json::from_str(json).unwrap();
        let result = check(cmd, v.as_object_mut().unwrap()).map_err(|e| e.to_string());
        (result, v)
    }

    #[test]
    fn unknown_fields_warn_with_a_guess() {
        let (r, _) = run("go", r#"{"cmd":"go","movetime":500}"#);
        assert_eq!(
            r.unwrap(),
            vec!["unknown field 'movetime' (did you mean 'movetime_ms'?)"]
        );
        let (r, _) = run("position", r#"{"cmd":"position","move":"4453"}"#);
        assert_eq!(
            r.unwrap(),
            vec!["unknown field 'move' (did you mean 'moves'?)"]
        );
        let (r, _) = run("ping", r#"{"cmd":"ping","future":1}"#);
        assert_eq!(
            r.unwrap(),
            vec!["unknown field 'future' (this command takes none)"]
        );
        let (r, _) = run("go", r#"{"cmd":"go","clock":{"time_ms":5,"incr":1}}"#);
        assert_eq!(
            r.unwrap(),
            vec!["unknown field 'clock.incr' (did you mean 'inc_ms'?)"]
        );
    }

    #[test]
    fn type_errors_name_the_field_in_plain_words() {
        let err = |cmd, json| run(cmd, json).0.unwrap_err();
        assert_eq!(
            err("go", r#"{"cmd":"go","depth":"5"}"#),
            "field 'depth': expected a whole number from 1 to 1000, got the string \"5\""
        );
        assert_eq!(
            err("go", r#"{"cmd":"go","movetime_ms":1e26}"#),
            "field 'movetime_ms': expected a whole number of at least 1, got the number 1e+26"
        );
        assert!(
            err("go", r#"{"cmd":"go","clock":5}"#).starts_with("field 'clock': expected an object")
        );
        assert_eq!(
            err("go", r#"{"cmd":"go","clock":{"inc_ms":5}}"#),
            "field 'clock': 'time_ms' is missing"
        );
        assert_eq!(
            err("position", r#"{"cmd":"position","board":[[0,0.5]]}"#),
            "field 'board': row 1, column 2: expected 0 (empty), 1 or 2 (the players' stones), got the number 0.5"
        );
        assert_eq!(
            err("position", r#"{"cmd":"position","board":[0,3]}"#),
            "field 'board': cell 2: expected 0 (empty), 1 or 2 (the players' stones), got the number 3"
        );
        assert!(err("newgame", r#"{"cmd":"newgame","rules":"7x6"}"#).contains("field 'rules'"));
        assert!(err("go", r#"{"cmd":"go","infinite":1}"#).contains("true or false"));
    }

    #[test]
    fn whole_floats_become_integers() {
        let (r, v) = run(
            "position",
            r#"{"cmd":"position","board":[[0.0,1.0],[2.0,0]]}"#,
        );
        assert!(r.unwrap().is_empty());
        assert_eq!(v["board"], serde_json::json!([[0, 1], [2, 0]]));
        let (r, v) = run("go", r#"{"cmd":"go","depth":3.0}"#);
        assert!(r.unwrap().is_empty());
        assert_eq!(v["depth"], serde_json::json!(3));
    }

    /// The request schema's description of one field.
    fn schema_of(field: &Value, kind: FieldKind, place: &str) {
        let types = |v: &Value| -> Vec<String> {
            v["oneOf"]
                .as_array()
                .map(|o| o.iter().map(|x| x["type"].to_string()).collect())
                .unwrap_or_default()
        };
        match kind {
            FieldKind::Whole { min, max } => {
                assert_eq!(field["type"], "integer", "{place}");
                assert_eq!(field["minimum"].as_u64(), Some(min), "{place}");
                let most = (max != u64::MAX).then_some(max);
                assert_eq!(
                    field.get("maximum").and_then(Value::as_u64),
                    most,
                    "{place}"
                );
            }
            FieldKind::Bool => assert_eq!(field["type"], "boolean", "{place}"),
            FieldKind::Text => assert_eq!(field["type"], "string", "{place}"),
            FieldKind::Any => assert!(field.get("type").is_none(), "{place}"),
            FieldKind::Moves => assert_eq!(types(field), ["\"string\"", "\"array\""], "{place}"),
            FieldKind::Board => assert_eq!(types(field), ["\"array\"", "\"array\""], "{place}"),
            // The rules' ranges are the board's own (`Rules::new` checks
            // them); the fields and their types must agree.
            FieldKind::Rules => object_of(field, RULES_FIELDS, place, false),
            FieldKind::Clock => {
                assert_eq!(field["required"], serde_json::json!(["time_ms"]), "{place}");
                object_of(field, CLOCK_FIELDS, place, true);
            }
        }
    }

    /// An object's fields in the schema against `fields`, with their
    /// ranges when `ranges`.
    fn object_of(schema: &Value, fields: &[(&str, FieldKind)], place: &str, ranges: bool) {
        assert_eq!(schema["type"], "object", "{place}");
        let properties = schema["properties"].as_object().expect(place);
        let mut named: Vec<&str> = properties.keys().map(String::as_str).collect();
        let mut ours: Vec<&str> = fields.iter().map(|(f, _)| *f).collect();
        named.sort_unstable();
        ours.sort_unstable();
        assert_eq!(named, ours, "{place}");
        for (name, kind) in fields {
            let field = &properties[*name];
            match kind {
                FieldKind::Whole { .. } if !ranges => assert_eq!(field["type"], "integer"),
                _ => schema_of(field, *kind, &format!("{place}.{name}")),
            }
        }
    }

    #[test]
    fn the_fields_are_the_request_schema_s() {
        let schema: Value =
            serde_json::from_str(include_str!("../../protocol/schema/request.schema.json"))
                .unwrap();
        let variants = schema["oneOf"].as_array().unwrap();
        let named: Vec<&str> = variants
            .iter()
            .map(|v| v["properties"]["cmd"]["const"].as_str().unwrap())
            .collect();
        assert_eq!(named, commands());
        for (variant, (cmd, fields)) in variants.iter().zip(FIELDS) {
            let mut schema = variant.clone();
            let properties = schema["properties"].as_object_mut().unwrap();
            assert!(properties.remove("cmd").is_some() && properties.remove("id").is_some());
            object_of(&schema, fields, cmd, true);
        }
    }
}
