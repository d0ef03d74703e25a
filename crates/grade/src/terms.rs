//! How feedback speaks to the student: an engine's author in the protocol's
//! terms (columns 1 to 7, a board of X and O), a Python student in the
//! terms of the code they wrote (columns 0 to 6 as `act` returns them, the
//! 6 x 7 array it receives: row 0 on top, -1 the first player, 1 the
//! second, 0 empty), with the picture of the board beside it.

use connect4::{Player, Position};

use super::config::SubmissionKind;
use super::report::code_block;
use connect4_match::ending::Reason;
use connect4_match::process::STDERR_ENDS;

/// The student's terms.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Terms {
    /// A protocol engine: columns 1 to 7, X and O.
    #[default]
    Protocol,
    /// A Python policy or Kaggle agent: columns 0 to 6, the numpy array.
    Python,
}

impl Terms {
    /// The terms for a submission of `kind`.
    pub fn of(kind: SubmissionKind) -> Terms {
        match kind {
            SubmissionKind::Engine => Terms::Protocol,
            SubmissionKind::Policy | SubmissionKind::Kaggle => Terms::Python,
        }
    }

    /// Column `c` (0-based) as the student numbers it.
    pub fn column(self, c: u32) -> String {
        format!("column {}", self.number(c))
    }

    /// The number the student gives column `c` (0-based): from 1 for a
    /// protocol engine, from 0 for Python.
    pub fn number(self, c: u32) -> u32 {
        match self {
            Terms::Protocol => c + 1,
            Terms::Python => c,
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

impl Terms {
    /// Why a game was lost by forfeit (or why the submission did not
    /// start), from the arena's `reason` and `detail`: as the arena says it
    /// for an engine; for Python, in the words of the code the student
    /// wrote, with the traceback whole in a block.
    pub fn failure(self, reason: Reason, detail: &str) -> String {
        if self == Terms::Protocol {
            return if detail.is_empty() {
                reason.to_string()
            } else {
                format!("{reason}: {detail}")
            };
        }
        let (what, stderr) = match detail.split_once(STDERR_ENDS) {
            Some((what, stderr)) => (what.trim_end_matches("; "), stderr),
            None => (detail, ""),
        };
        let traceback = python_traceback(stderr);
        let said = match reason {
            Reason::Crash if traceback.is_empty() => format!(
                "the program running your code ended without a traceback ({})",
                what.replace("the engine", "it")
            ),
            Reason::Crash => "your code raised an exception, or its program ended".to_string(),
            Reason::IllegalMove => match returned_column(what) {
                Some(c) => format!(
                    "act returned {c}, which is not a free column (0 to 6, with board[0][c] == 0)"
                ),
                None => "act returned a column that is not free".to_string(),
            },
            Reason::Time => match waited(what) {
                Some((took, allowed)) => format!(
                    "act took longer than the time per move ({allowed} ms; it took {took} ms)"
                ),
                None => "act took longer than the time per move".to_string(),
            },
            Reason::Stall if what.contains("of starting") => format!(
                "your code did not start: {} (the time to load it)",
                what.replace("no answer to hello", "no answer")
            ),
            Reason::Stall => {
                let times = waited(what).map_or(String::new(), |(waited, allowed)| {
                    format!(" ({allowed} ms; the game waited {waited} ms)")
                });
                match stalled_mount(stderr) {
                    Some(mount) => format!(
                        "{mount} did not return within the time per move{times}: the grader \
                         calls it before your first move of each game, and that move waits \
                         for it; do in mount() only what is quick"
                    ),
                    None => format!("act did not return within the time per move{times}"),
                }
            }
            Reason::Protocol => format!(
                "the program that runs your code could not read its answer ({what}); please \
                 tell your instructor"
            ),
            other => other.to_string(),
        };
        if traceback.is_empty() {
            said
        } else {
            format!("{said}:\n{}", code_block(&traceback))
        }
    }
}

impl Terms {
    /// A forfeit's reason in a few words.
    pub fn reason(self, reason: Reason) -> String {
        match (self, reason) {
            (Terms::Protocol, r) => r.to_string(),
            (Terms::Python, Reason::Crash) => "an exception or a crash".into(),
            (Terms::Python, Reason::IllegalMove) => "a column that is not free".into(),
            (Terms::Python, Reason::Time) => "time".into(),
            (Terms::Python, Reason::Stall) => "no answer in time".into(),
            (Terms::Python, Reason::Protocol) => "an answer that could not be read".into(),
            (Terms::Python, r) => r.to_string(),
        }
    }

    /// A game's moves (the arena's move string, columns from 1) as the
    /// student numbers them.
    pub fn moves(self, moves: &str) -> String {
        if moves.is_empty() {
            return "none".into();
        }
        match self {
            Terms::Protocol => moves.to_string(),
            Terms::Python => {
                let columns: Vec<String> = moves
                    .chars()
                    .filter_map(|c| c.to_digit(10))
                    .map(|d| (d - 1).to_string())
                    .collect();
                format!("columns {}", columns.join(", "))
            }
        }
    }

    /// `n` games lost by forfeit, counted.
    pub fn lost_by_forfeit(self, n: usize) -> String {
        match self {
            Terms::Protocol => format!("{n} game(s) lost by forfeit"),
            Terms::Python => format!("{n} game(s) lost by an error or the clock"),
        }
    }

    /// That no game was lost by forfeit.
    pub fn no_forfeit(self) -> &'static str {
        match self {
            Terms::Protocol => "no forfeit",
            Terms::Python => "no game lost by an error or the clock",
        }
    }
}

/// The line the policy bridge writes on stderr before each `mount()`
/// (`connect4-policy: calling Class.mount(), the time per move 1 s`), and
/// the one after it returns (python/src/c4bridge/policy.py).
const MOUNT_STARTED: &str = "connect4-policy: calling ";
const MOUNT_RETURNED: &str = "connect4-policy: mount() returned";

/// The `Class.mount()` that had not returned when the process's `stderr`
/// ended, if one had started.
fn stalled_mount(stderr: &str) -> Option<&str> {
    // The arena joins the lines it quotes with " | ".
    let last = stderr
        .rsplit(" | ")
        .find(|l| l.starts_with(MOUNT_STARTED) || l.starts_with(MOUNT_RETURNED))?;
    let call = last.strip_prefix(MOUNT_STARTED)?;
    Some(call.split_once(',').map_or(call, |(call, _)| call))
}

/// The time the move took (or the game waited for it) and the time per
/// move, from the arena's detail of a stall or a move over its time: `...
/// after 3104 ms, with 1000 ms allowed`, `1234 ms with 1000 ms allowed`,
/// `over its 1000 ms budget: no bestmove after 3000 ms`.
fn waited(detail: &str) -> Option<(u64, u64)> {
    let number = |text: &str| text.trim().parse::<u64>().ok();
    if let Some(rest) = detail.strip_prefix("over its ") {
        let (allowed, rest) = rest.split_once(" ms budget")?;
        let (_, took) = rest.rsplit_once(" after ")?;
        return Some((number(took.strip_suffix(" ms")?)?, number(allowed)?));
    }
    let (took, rest) = detail.split_once(" ms")?;
    let took = took.rsplit_once(" after ").map_or(took, |(_, t)| t);
    let (_, allowed) = rest.split_once("with ")?;
    Some((number(took)?, number(allowed.strip_suffix(" ms allowed")?)?))
}

/// The column a Python student returned, from the arena's detail of an
/// illegal move: told in the player's columns from 0 (see
/// [`connect4_match::play::illegal_move_text`]), or in the protocol's from 1.
fn returned_column(detail: &str) -> Option<i64> {
    if let Some(value) = connect4_match::play::returned_value(detail) {
        return Some(value);
    }
    let rest = &detail[detail.find("column ")? + "column ".len()..];
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse::<i64>().ok().map(|c| c - 1)
}

/// The end of a Python program's stderr (lines joined with ` | `) as the
/// student's traceback: one line per line, the bridge's and importlib's
/// own frames left out, the bridge's name taken off its messages and
/// paths cut to the submission's own files.
pub fn python_traceback(stderr: &str) -> String {
    let mut lines = Vec::new();
    let mut skipping = false;
    for line in stderr.split(" | ") {
        if line.starts_with("  File \"") {
            skipping = line.contains("/c4bridge/") || line.contains("<frozen ");
        } else if !line.starts_with("    ") {
            skipping = false;
        }
        // The bridge's timing summary as it exits, and its lines around
        // each mount(), are not the student's.
        let bridge_s = (line.contains(" moves, player ") && line.contains("adapter overhead"))
            || line.starts_with(MOUNT_STARTED)
            || line.starts_with(MOUNT_RETURNED);
        if skipping || bridge_s {
            continue;
        }
        let line = line
            .strip_prefix("connect4-policy: ")
            .or_else(|| line.strip_prefix("connect4-kaggle: "))
            .unwrap_or(line);
        let line = match line.find("/submission/") {
            Some(at) => {
                let start = line[..at].rfind(['"', ' ']).map_or(0, |q| q + 1);
                format!("{}{}", &line[..start], &line[at + "/submission/".len()..])
            }
            None => line.to_string(),
        };
        lines.push(line);
    }
    lines.join("\n").trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_traceback_is_whole_with_the_bridge_s_frames_left_out() {
        let stderr = [
            "connect4-policy: MyPolicy.act() raised:",
            "Traceback (most recent call last):",
            "  File \"/venv/lib/python3.11/site-packages/c4bridge/protocol.py\", line 36, in call_player",
            "    result = fn(*args)",
            "             ^^^^^^^^^",
            "  File \"/tmp/connect4-grade-1-2/submission/policy.py\", line 9, in act",
            "    return helper(s)",
            "  File \"/tmp/connect4-grade-1-2/submission/policy.py\", line 13, in helper",
            "    return 1 // 0",
            "ZeroDivisionError: integer division or modulo by zero",
        ]
        .join(" | ");
        let detail = &format!("the engine exited (exit status: 1); its stderr ends: {stderr}");
        let told = Terms::Python.failure(Reason::Crash, detail);
        assert!(told.starts_with("your code raised an exception"), "{told}");
        assert!(
            !told.contains("c4bridge") && !told.contains(" | "),
            "{told}"
        );
        assert!(told.contains("MyPolicy.act() raised:\nTraceback"), "{told}");
        assert!(
            told.contains("  File \"policy.py\", line 13, in helper\n    return 1 // 0"),
            "{told}"
        );
        assert!(
            told.ends_with("ZeroDivisionError: integer division or modulo by zero\n```"),
            "{told}"
        );
        let illegal =
            Terms::Python.failure(Reason::IllegalMove, "move 9 ('8'): column 8 does not exist");
        assert!(
            illegal.starts_with("act returned 7, which is not a free column"),
            "{illegal}"
        );
        let engine = Terms::Protocol.failure(Reason::Crash, detail);
        assert!(engine.starts_with("crash: the engine exited"), "{engine}");
    }

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

    /// Issue #75, item 1: a mount() that outlasts the move is named, with
    /// the time allowed and taken; a slow act says both too.
    #[test]
    fn a_stall_says_whether_mount_or_act_held_the_move_and_how_long() {
        let waited = "no bestmove and no answer to ping after 3104 ms, with 1000 ms allowed";
        let mounting = format!(
            "{waited}; {STDERR_ENDS}connect4-policy: calling Slow.mount(), the time per move 1 s"
        );
        let said = Terms::Python.failure(Reason::Stall, &mounting);
        assert_eq!(
            said,
            "Slow.mount() did not return within the time per move (1000 ms; the game waited \
             3104 ms): the grader calls it before your first move of each game, and that move \
             waits for it; do in mount() only what is quick"
        );
        let acting = format!(
            "{waited}; {STDERR_ENDS}connect4-policy: calling Slow.mount(), the time per move 1 s \
             | connect4-policy: mount() returned in 0.001 s | debug from act"
        );
        let said = Terms::Python.failure(Reason::Stall, &acting);
        assert_eq!(
            said,
            "act did not return within the time per move (1000 ms; the game waited 3104 ms):\n\
             ```\ndebug from act\n```"
        );
    }

    #[test]
    fn a_move_over_its_time_says_both_times_in_python_words() {
        for detail in [
            "1234 ms with 1000 ms allowed",
            "over its 1000 ms budget: no bestmove after 1234 ms",
        ] {
            assert_eq!(
                Terms::Python.failure(Reason::Time, detail),
                "act took longer than the time per move (1000 ms; it took 1234 ms)",
                "{detail}"
            );
        }
    }

    /// Issue #43, item 1: with no traceback, the student reads what was
    /// seen, not a guess that their code raised; a start that took too
    /// long names the limit.
    #[test]
    fn a_failure_without_a_traceback_says_what_was_seen() {
        let crash = Terms::Python.failure(Reason::Crash, "the engine exited (signal: 9 (SIGKILL))");
        assert_eq!(
            crash,
            "the program running your code ended without a traceback (it exited (signal: 9 (SIGKILL)))"
        );
        let start =
            Terms::Python.failure(Reason::Stall, "no answer to hello within 10 s of starting");
        assert_eq!(
            start,
            "your code did not start: no answer within 10 s of starting (the time to load it)"
        );
        let raised = Terms::Python.failure(
            Reason::Crash,
            "the engine exited (exit status: 1); its stderr ends: Traceback (most recent call last): | ZeroDivisionError: division by zero",
        );
        assert!(
            raised.starts_with("your code raised an exception"),
            "{raised}"
        );
    }
}
