//! The prompts a model is shown: the rules once (the system message), then
//! on each of its turns the position, and after an answer that is no legal
//! move, what was wrong with it.
//!
//! Two formats: `board`, a text grid (the top row first, `.` empty, `X` the
//! first player, `O` the second, the columns' numbers above), and `moves`,
//! the game's moves alone, which a model must play out in its head. Both
//! give the moves so far, in one line of a fixed shape
//! (`Moves so far (columns from F): 3 3 2`), and the legal moves unless
//! told not to. Columns are numbered from 0 by default, as TextArena and
//! Kaggle's ConnectX number them (docs/llm.md), or from 1.

use connect4::{Player, Position};
use serde::{Deserialize, Serialize};

/// How the position is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// A text grid of the board, and the moves so far.
    Board,
    /// The moves so far alone.
    Moves,
}

/// What a prompt holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Style {
    /// The position as a grid or as moves.
    pub format: Format,
    /// Whether the legal moves are listed.
    pub legal_moves: bool,
    /// The first column's number (0 or 1).
    pub first_column: u32,
}

/// The line that gives the moves so far starts so.
pub const MOVES_LINE: &str = "Moves so far (columns from ";

/// The rules, the numbering of the columns and the answer's form.
pub fn system(style: &Style, position: &Position) -> String {
    let first = style.first_column;
    let last = first + position.columns() - 1;
    format!(
        "You are playing Connect Four on a board of {columns} columns and {rows} rows. \
         The players take turns dropping one disc into a column; it falls to the lowest \
         empty cell of that column. The first player to have {n} of their discs in a row, \
         across, up and down or diagonally, wins; a full board with no such row is a draw. \
         A full column cannot be played.\n\
         The columns are numbered {first} to {last} from left to right. On your turn, \
         answer with the number of the column you play in square brackets, for example \
         [{example}]. Only the last bracketed number of your answer counts.",
        columns = position.columns(),
        rows = position.rows(),
        n = position.inarow(),
        example = first + position.columns() / 2,
    )
}

/// The position before the model's move: `moves` (0-based) from the
/// empty board reach it.
pub fn turn(style: &Style, position: &Position, moves: &[u32]) -> String {
    let me = position.side_to_move();
    let (disc, other) = match me {
        Player::First => ("X", "O"),
        Player::Second => ("O", "X"),
    };
    let mut text = format!(
        "You play {disc} (you moved {}); your opponent plays {other}.\n",
        if me == Player::First {
            "first"
        } else {
            "second"
        }
    );
    if style.format == Format::Board {
        text.push_str(&grid(position, style.first_column));
    }
    text.push_str(&moves_line(moves, style.first_column));
    if style.legal_moves {
        text.push_str(&legal_line(position, style.first_column));
    }
    text.push_str("Your move?");
    text
}

/// After an answer that is no legal move: what was wrong, and the form of
/// an answer.
pub fn correction(style: &Style, position: &Position, why: &str) -> String {
    let mut text = format!("That is not a legal move: {why}.\n");
    if style.legal_moves {
        text.push_str(&legal_line(position, style.first_column));
    }
    text.push_str("Answer with one column number in square brackets.");
    text
}

/// The moves so far, in the fixed shape of [`MOVES_LINE`].
fn moves_line(moves: &[u32], first: u32) -> String {
    let listed: Vec<String> = moves.iter().map(|m| (m + first).to_string()).collect();
    let listed = if listed.is_empty() {
        "none".to_string()
    } else {
        listed.join(" ")
    };
    format!("{MOVES_LINE}{first}): {listed}\n")
}

/// The legal moves, in the model's numbers.
fn legal_line(position: &Position, first: u32) -> String {
    let legal: Vec<String> = position
        .legal_moves()
        .iter()
        .map(|m| (m + first).to_string())
        .collect();
    format!("Legal moves: {}\n", legal.join(" "))
}

/// The board as text: the columns' numbers, then the rows from the top
/// (`connect4::grid`'s picture of them).
fn grid(position: &Position, first: u32) -> String {
    let numbers: Vec<String> = (0..position.columns())
        .map(|c| (c + first).to_string())
        .collect();
    format!(
        "{}\n{}",
        numbers.join(" "),
        connect4::grid::ascii_rows(position)
    )
}

/// The first column's number and the moves (0-based) a prompt's moves
/// line gives, from the last message that has one (the stand-in server
/// reads them so).
pub fn moves_in(messages: &[&str]) -> Option<(u32, Vec<u32>)> {
    messages.iter().rev().find_map(|text| {
        let line = text.lines().find(|l| l.starts_with(MOVES_LINE))?;
        let rest = &line[MOVES_LINE.len()..];
        let (first, listed) = rest.split_once("): ")?;
        let first: u32 = first.parse().ok()?;
        if listed == "none" {
            return Some((first, Vec::new()));
        }
        let moves = listed
            .split(' ')
            .map(|m| m.parse::<u32>().ok()?.checked_sub(first))
            .collect::<Option<Vec<u32>>>()?;
        Some((first, moves))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use connect4::Rules;

    fn after(moves: &[u32]) -> Position {
        let mut p = Position::new(Rules::STANDARD);
        for &m in moves {
            p.play(m);
        }
        p
    }

    #[test]
    fn the_board_shows_the_top_row_first_and_the_moves_line_reads_back() {
        let moves = [3, 3, 2];
        let style = Style {
            format: Format::Board,
            legal_moves: true,
            first_column: 0,
        };
        let text = turn(&style, &after(&moves), &moves);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "You play O (you moved second); your opponent plays X."
        );
        assert_eq!(lines[1], "0 1 2 3 4 5 6");
        assert_eq!(lines[6], ". . . O . . .");
        assert_eq!(lines[7], ". . X X . . .");
        assert_eq!(lines[8], "Moves so far (columns from 0): 3 3 2");
        assert_eq!(lines[9], "Legal moves: 0 1 2 3 4 5 6");
        assert_eq!(moves_in(&[&text]), Some((0, moves.to_vec())));
        let from_one = Style {
            format: Format::Moves,
            legal_moves: false,
            first_column: 1,
        };
        let text = turn(&from_one, &after(&moves), &moves);
        assert!(!text.contains("Legal") && !text.contains(". . ."), "{text}");
        assert_eq!(
            moves_in(&[&text, "no moves here"]),
            Some((1, moves.to_vec()))
        );
        assert_eq!(
            moves_in(&[&turn(&from_one, &after(&[]), &[])]),
            Some((1, Vec::new()))
        );
    }

    #[test]
    fn the_rules_name_the_board_and_the_columns_numbers() {
        let p = Position::new(Rules::new(8, 7, 4).unwrap());
        let style = Style {
            format: Format::Board,
            legal_moves: true,
            first_column: 1,
        };
        let text = system(&style, &p);
        assert!(text.contains("8 columns and 7 rows"), "{text}");
        assert!(text.contains("numbered 1 to 8"), "{text}");
        assert!(text.contains("[5]"), "{text}");
    }
}
