//! How feedback speaks to the student: an engine's author in the protocol's
//! terms (columns 1 to 7, a board of X and O), a Python student in the
//! terms of the code they wrote (columns 0 to 6 as `act` returns them, the
//! 6 x 7 array it receives: row 0 on top, -1 the first player, 1 the
//! second, 0 empty), with the picture of the board beside it.

use connect4::{Player, Position};

use super::config::Kind;
use super::report::code_block;

/// The student's terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Terms {
    /// A protocol engine: columns 1 to 7, X and O.
    Protocol,
    /// A Python policy or Kaggle agent: columns 0 to 6, the numpy array.
    Python,
}

impl Terms {
    /// The terms for a submission of `kind`.
    pub fn of(kind: Kind) -> Terms {
        match kind {
            Kind::Engine => Terms::Protocol,
            Kind::Policy | Kind::Kaggle => Terms::Python,
        }
    }

    /// Column `c` (0-based) as the student numbers it.
    pub fn column(self, c: u32) -> String {
        match self {
            Terms::Protocol => format!("column {}", c + 1),
            Terms::Python => format!("column {c}"),
        }
    }

    /// The pieces a player has, as the student sees them.
    pub fn pieces(self, player: Player) -> &'static str {
        match (self, player) {
            (Terms::Protocol, Player::First) => "X",
            (Terms::Protocol, Player::Second) => "O",
            (Terms::Python, Player::First) => "pieces -1",
            (Terms::Python, Player::Second) => "pieces 1",
        }
    }

    /// The position as a code block the student can read: the ASCII board,
    /// and for Python the array its code receives, with a legend.
    pub fn board(self, p: &Position) -> String {
        let picture = connect4::grid::to_ascii(p);
        match self {
            Terms::Protocol => code_block(&picture),
            Terms::Python => {
                let rows = connect4::grid::to_rows(p);
                let array: Vec<String> = rows
                    .iter()
                    .map(|row| {
                        let cells: Vec<String> = row
                            .iter()
                            .map(|&v| format!("{:>2}", [0, -1, 1][usize::from(v)]))
                            .collect();
                        format!("[{}]", cells.join(", "))
                    })
                    .collect();
                let picture: Vec<&str> = picture.lines().collect();
                let mut text = String::from("board (as act receives it)      picture\n");
                for (i, line) in array.iter().enumerate() {
                    let open = if i == 0 { "[" } else { " " };
                    let close = if i + 1 == array.len() { "]" } else { "," };
                    text.push_str(&format!("{open}{line}{close}  {}\n", picture[i]));
                }
                let numbers: String = (0..p.columns()).map(|c| format!("{c} ")).collect();
                text.push_str(&format!(
                    "{:width$}  {}\n(X = -1, the first player; O = 1, the second; . = 0; \
                     row 0 is the top row)",
                    "",
                    numbers.trim_end(),
                    width = array[0].len() + 2
                ));
                code_block(&text)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_students_see_their_array_and_their_columns() {
        let game = connect4::Game::from_move_string(connect4::Rules::STANDARD, "445").unwrap();
        let board = Terms::Python.board(game.position());
        assert!(board.contains("[ 0,  0,  0, -1, -1,  0,  0]]"), "{board}");
        assert!(board.contains("[ 0,  0,  0,  1,  0,  0,  0],"), "{board}");
        assert!(board.contains("0 1 2 3 4 5 6"), "{board}");
        assert_eq!(Terms::Python.column(3), "column 3");
        assert_eq!(Terms::Protocol.column(3), "column 4");
        let board = Terms::Protocol.board(game.position());
        assert!(
            board.contains("1 2 3 4 5 6 7") && !board.contains("-1"),
            "{board}"
        );
    }
}
