//! The move that lost each game: for the games a student lost or drew, the
//! solver's verdict on every one of its moves ([`connect4::search::verdict`])
//! names the first that gave the value of the position away (a win thrown
//! to a draw or a loss, a draw to a loss), draws the position before it,
//! and gives a move that kept the value.

use std::time::Duration;

use connect4::book::Book;
use connect4::score::Outcome;
use connect4::search::verdict::{Judge, Verdict};
use connect4::{Game, Player, Rules};

use super::terms::Terms;
use connect4_match::play::GameRecord;
use connect4_match::schedule::Job;

/// Games of a test explained at most.
pub const SHOWN: usize = 5;
/// The solver's time for one position of a game.
const POSITION_CAP: Duration = Duration::from_secs(1);
/// The solver's time for one game.
const GAME_CAP: Duration = Duration::from_secs(4);
/// The solver's table.
const HASH_MB: usize = 64;

/// The judge the grader asks, with the shipped book.
pub fn judge() -> Judge {
    Judge::new(HASH_MB, Some(Book::shipped()), POSITION_CAP, GAME_CAP)
}

/// One student's move that gave the value away, with what it needs to be
/// shown.
struct Mistake {
    game: u64,
    student: Player,
    /// The student's own move number in the game, from 1.
    number: u32,
    verdict: Verdict,
    before: Game,
}

/// The first move of the student's (engine 0 in `job`) that gave the value
/// away in `record`, if any, after the opening.
fn first_mistake(judge: &mut Judge, job: &Job, record: &GameRecord) -> Option<Mistake> {
    let game = Game::from_moves(Rules::STANDARD, &record.moves).ok()?;
    let columns: Vec<u32> = game.moves().to_vec();
    let student = if job.first == 0 {
        Player::First
    } else {
        Player::Second
    };
    let verdicts = judge.game(Rules::STANDARD, &columns);
    let opening = job.opening.len() as u32;
    let mine =
        |v: &&Verdict| v.ply.is_multiple_of(2) == (student == Player::First) && v.ply >= opening;
    let verdict = *verdicts.iter().filter(mine).find(|v| v.lost_value())?;
    let number = verdicts
        .iter()
        .filter(mine)
        .take_while(|v| v.ply < verdict.ply)
        .count() as u32
        + 1;
    let before =
        Game::from_moves(Rules::STANDARD, &record.moves.first(verdict.ply as usize)).ok()?;
    Some(Mistake {
        game: job.game,
        student,
        number,
        verdict,
        before,
    })
}

/// What the student should know of the games it did not win by play: for
/// up to [`SHOWN`] of them, the move that gave the value away; nothing if
/// no move did. `not_won` are the games lost or drawn on the board (not by
/// forfeit), in order.
pub fn note(
    judge: &mut Judge,
    not_won: &[&(Job, GameRecord)],
    opponent: &str,
    terms: Terms,
) -> String {
    let mut shown = Vec::new();
    let mut judged = 0;
    for (job, record) in not_won {
        if shown.len() == SHOWN {
            break;
        }
        judged += 1;
        if let Some(m) = first_mistake(judge, job, record) {
            shown.push(m);
        }
    }
    if shown.is_empty() {
        return String::new();
    }
    let mut text = format!(
        "\nWhere the value was lost, by the solver's verdict on each of your moves (the \
         first move that gave it away, in {} of the {judged} game(s) looked at):",
        shown.len()
    );
    for m in &shown {
        text.push_str(&describe(m, opponent, terms));
    }
    text
}

/// One mistake, told.
fn describe(m: &Mistake, opponent: &str, terms: Terms) -> String {
    let v = &m.verdict;
    let value = |o: Option<Outcome>| o.map_or("unknown".to_string(), |o| o.to_string());
    let keep = v.keeping.map_or(String::new(), |c| {
        format!(" Playing {} kept the {}.", terms.column(c), value(v.before))
    });
    format!(
        "\ngame {} (you played {} ({}), against {opponent}): your move {} ({}) turned a {} \
         for you into a {} (with best play on both sides).{keep} The position before it, \
         you to move:\n{}",
        m.game,
        if m.student == Player::First {
            "first"
        } else {
            "second"
        },
        terms.pieces(m.student),
        m.number,
        terms.column(v.column),
        value(v.before),
        value(v.after),
        terms.board(m.before.position()),
    )
}
