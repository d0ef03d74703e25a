//! What counts as a move in a model's answer.
//!
//! The move is the `action` of the last JSON object in the answer that has
//! one (`{"reason": "...", "action": 3}`, as SPIN-Bench asks for it, the
//! number or a string of it), or else the last `Final Answer: N` (as
//! Kaggle's Game Arena asks for it), or else the last bracketed number of
//! the answer (`[3]`, `[col 3]`, `[column 3]`, any case, as TextArena asks
//! for it), or else the whole answer when it is one number and nothing
//! more (`3`, as a terse model answers). A reasoning model's
//! `<think>...</think>` is left out first, so a number it weighs while
//! thinking is not its move. Anything else is no
//! move: the model is asked again, then forfeits.

use connect4::Position;
use thiserror::Error;

/// Why an answer is not a move in the position.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum AnswerError {
    /// No bracketed number, and not a lone number.
    #[error("no move in the answer: give the column as [N]")]
    NoMove,
    /// A number that names no column of the board.
    #[error("column {given} does not exist: the columns are {first} to {last}")]
    NoSuchColumn {
        /// The number the model gave.
        given: i64,
        /// The first column's number.
        first: u32,
        /// The last column's number.
        last: u32,
    },
    /// A column with no room left.
    #[error("column {given} is full")]
    Full {
        /// The number the model gave.
        given: i64,
    },
}

impl AnswerError {
    /// Whether the answer held no move at all (as against a move the
    /// rules refuse).
    pub fn is_unreadable(&self) -> bool {
        matches!(self, AnswerError::NoMove)
    }
}

/// The number the answer gives as its move, as written.
pub fn number_in(answer: &str) -> Option<i64> {
    let text = without_thinking(answer);
    last_action(&text)
        .or_else(|| last_final_answer(&text))
        .or_else(|| last_bracketed(&text))
        .or_else(|| text.trim().trim_end_matches('.').parse().ok())
}

/// Where a JSON object starts.
const OBJECT_START: char = '{';

/// The `action` of the last JSON object of `text` that has one: a
/// number, or a string of one.
fn last_action(text: &str) -> Option<i64> {
    text.match_indices(OBJECT_START)
        .rev()
        .filter_map(|(at, _)| {
            let mut objects = serde_json::Deserializer::from_str(&text[at..])
                .into_iter::<serde_json::Map<String, serde_json::Value>>();
            let action = objects.next()?.ok()?.remove("action")?;
            match action {
                serde_json::Value::Number(n) => n.as_i64(),
                serde_json::Value::String(s) => s.trim().parse().ok(),
                _ => None,
            }
        })
        .next()
}

/// The move `answer` names in `position` (0-based), with the model told
/// to number columns from `first` (0 or 1).
pub fn column_in(answer: &str, position: &Position, first: u32) -> Result<u32, AnswerError> {
    let given = number_in(answer).ok_or(AnswerError::NoMove)?;
    let last = first + position.columns() - 1;
    let column = given - i64::from(first);
    if !(0..i64::from(position.columns())).contains(&column) {
        return Err(AnswerError::NoSuchColumn { given, first, last });
    }
    let column = column as u32;
    if !position.can_play(column) {
        return Err(AnswerError::Full { given });
    }
    Ok(column)
}

/// `answer` without its `<think>...</think>` parts; an unclosed one runs
/// to the end.
fn without_thinking(answer: &str) -> String {
    let mut out = String::new();
    let mut rest = answer;
    while let Some(start) = rest.find("<think>") {
        out.push_str(&rest[..start]);
        match rest[start..].find("</think>") {
            Some(end) => rest = &rest[start + end + "</think>".len()..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

/// The number after the last `Final Answer:` of `text` (any case, any
/// spaces around the colon).
fn last_final_answer(text: &str) -> Option<i64> {
    let lower = text.to_ascii_lowercase();
    lower
        .rmatch_indices("final")
        .filter_map(|(at, _)| {
            let rest = lower[at + "final".len()..].trim_start();
            let rest = rest.strip_prefix("answer")?.trim_start();
            let rest = rest.strip_prefix(':')?.trim_start();
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .next()
}

/// The last `[N]`, `[col N]` or `[column N]` of `text`.
fn last_bracketed(text: &str) -> Option<i64> {
    text.match_indices('[')
        .rev()
        .filter_map(|(at, _)| {
            let inside = &text[at + 1..];
            let inside = &inside[..inside.find(']')?];
            let lower = inside.trim().to_ascii_lowercase();
            let number = lower
                .strip_prefix("column")
                .or_else(|| lower.strip_prefix("col"))
                .unwrap_or(&lower);
            number.trim().parse().ok()
        })
        .next()
}

#[cfg(test)]
mod tests {
    use super::*;
    use connect4::Rules;

    #[test]
    fn the_last_bracketed_number_is_the_move() {
        for (answer, number) in [
            ("[3]", Some(3)),
            ("I play [col 4].", Some(4)),
            ("Column [COLUMN 2] then [ 5 ]", Some(5)),
            ("6", Some(6)),
            (" 6.\n", Some(6)),
            ("<think>maybe [2]? no, [4]</think>[1]", Some(1)),
            ("<think>[2] is best", None),
            ("the centre, column 3", None),
            ("[x] [col]", None),
            (r#"{"reason": "the centre [2]", "action": "3"}"#, Some(3)),
            ("```json\n{\"reason\": \"r\", \"action\": 4}\n```", Some(4)),
            (r#"{"reason": "no"} then [5]"#, Some(5)),
            (r#"{"action": "left"} [1]"#, Some(1)),
            ("Column 2 blocks.\nFinal Answer: 4", Some(4)),
            ("final answer : 1, no: FINAL ANSWER:5", Some(5)),
            ("Final Answer: none [2]", Some(2)),
            ("", None),
        ] {
            assert_eq!(number_in(answer), number, "{answer:?}");
        }
    }

    #[test]
    fn a_number_is_checked_against_the_board_in_the_columns_told() {
        let mut p = Position::new(Rules::STANDARD);
        for _ in 0..6 {
            p.play(0);
        }
        assert_eq!(column_in("[3]", &p, 0), Ok(3));
        assert_eq!(column_in("[3]", &p, 1), Ok(2));
        assert_eq!(column_in("[0]", &p, 0), Err(AnswerError::Full { given: 0 }));
        assert_eq!(
            column_in("[7]", &p, 0),
            Err(AnswerError::NoSuchColumn {
                given: 7,
                first: 0,
                last: 6
            })
        );
        assert_eq!(
            column_in("[0]", &p, 1).unwrap_err().to_string(),
            "column 0 does not exist: the columns are 1 to 7"
        );
        assert!(column_in("centre", &p, 0).unwrap_err().is_unreadable());
    }
}
