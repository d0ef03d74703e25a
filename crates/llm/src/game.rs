//! One game of a model against one of the project's players, in process:
//! the model is asked on each of its turns, and asked again (up to the
//! retries allowed) after an answer that is no legal move, told what was
//! wrong; past them it forfeits: an illegal move if its last answer named
//! one, a protocol forfeit if it named none.

use std::time::Instant;

use connect4::agents::Agent;
use connect4::protocol::messages::WireScore;
use connect4::search::Limits;
use connect4::{MoveList, Player, Position, Rules, Status};
use connect4_match::ending::{GameEnd, Reason};
use connect4_match::play::MoveRecord;

use crate::answer::column_in;
use crate::model::{ChatError, Message, Model};
use crate::prompt::{self, Style};
use crate::record::{Answer, Turn};

/// What every game of a run shares.
pub struct Table<'a> {
    /// The model.
    pub model: &'a dyn Model,
    /// How the position is shown.
    pub style: Style,
    /// Answers asked for again after one that is no legal move.
    pub retries: u32,
    /// The board.
    pub rules: Rules,
    /// The opponent's limits on each move.
    pub opponent_limits: Limits,
}

/// A finished game, before the solver judges it.
pub struct Played {
    /// Every move.
    pub moves: MoveList,
    /// How it ended.
    pub end: GameEnd,
    /// Each move's record, as the arena keeps them.
    pub plies: Vec<MoveRecord>,
    /// The model's turns.
    pub turns: Vec<Turn>,
    /// The system message it was shown.
    pub system: String,
}

/// Plays one game, the model in `seat` against `opponent` (given its
/// `seed`). An error is the model's server failing: the game is not over
/// and not logged.
pub fn play(
    table: &Table,
    opponent: &mut dyn Agent,
    seat: Player,
    seed: u64,
) -> Result<Played, ChatError> {
    opponent.new_game(Some(seed));
    let mut position = Position::new(table.rules);
    let system = prompt::system(&table.style, &position);
    let mut played = Played {
        moves: MoveList::new(),
        end: GameEnd {
            winner: None,
            reason: Reason::FullBoard,
            detail: None,
        },
        plies: Vec::new(),
        turns: Vec::new(),
        system,
    };
    loop {
        match position.status() {
            Status::Won(winner) => {
                played.end.winner = Some(winner);
                played.end.reason = Reason::Line;
                return Ok(played);
            }
            Status::Draw => return Ok(played),
            Status::Ongoing => {}
        }
        let start = Instant::now();
        let (column, record) = if position.side_to_move() == seat {
            let moves: Vec<u32> = played.moves.columns().collect();
            let turn = model_turn(table, &played.system, &position, &moves)?;
            let Some(column) = turn.column else {
                played.end = forfeit(seat, &turn);
                played.turns.push(turn);
                return Ok(played);
            };
            let ms = turn.answers.iter().map(|a| a.ms).sum();
            played.turns.push(turn);
            (column, record_of(column, ms, 0, 0, None))
        } else {
            let chosen = opponent.choose(&position, &table.opponent_limits, None);
            let ms = start.elapsed().as_secs_f64() * 1000.0;
            let record = record_of(chosen.column, ms, chosen.nodes, chosen.depth, chosen.value);
            (chosen.column, record)
        };
        position.play(column);
        played.moves.push(column);
        played.plies.push(record);
    }
}

/// The end of a game the model in `seat` forfeits on `turn`, which has no
/// move: an illegal move if its last answer named a column, a protocol
/// forfeit if it named none.
fn forfeit(seat: Player, turn: &Turn) -> GameEnd {
    let last = turn.answers.last().expect("a turn has an answer");
    let reason = if last.unreadable {
        Reason::Protocol
    } else {
        Reason::IllegalMove
    };
    let detail = format!(
        "{} answers, none a legal move; the last: {}",
        turn.answers.len(),
        last.problem.as_deref().unwrap_or("")
    );
    GameEnd::forfeit(seat, reason, detail)
}

/// The arena's record of one move (column from 0).
fn record_of(column: u32, ms: f64, nodes: u64, depth: u32, value: Option<i32>) -> MoveRecord {
    MoveRecord {
        column: column + 1,
        time_ms: ms,
        nodes,
        depth,
        score: WireScore {
            value: value.unwrap_or(0),
            ..WireScore::default()
        },
    }
}

/// The model's turn: asked, then asked again after each answer that is no
/// legal move, up to the retries.
fn model_turn(
    table: &Table,
    system: &str,
    position: &Position,
    moves: &[u32],
) -> Result<Turn, ChatError> {
    let mut conversation = vec![
        Message::new("system", system.to_string()),
        Message::new("user", prompt::turn(&table.style, position, moves)),
    ];
    let mut turn = Turn {
        ply: position.moves_played(),
        messages: Vec::new(),
        answers: Vec::new(),
        column: None,
    };
    for _ in 0..=table.retries {
        let reply = table.model.ask(&conversation)?;
        let judged = column_in(&reply.text, position, table.style.first_column);
        conversation.push(Message::new("assistant", reply.text.clone()));
        let mut answer = Answer {
            problem: None,
            unreadable: false,
            prompt_tokens: reply.prompt_tokens,
            completion_tokens: reply.completion_tokens,
            requests: reply.requests,
            ms: reply.elapsed.as_secs_f64() * 1000.0,
        };
        match judged {
            Ok(column) => {
                turn.answers.push(answer);
                turn.column = Some(column);
                break;
            }
            Err(e) => {
                answer.problem = Some(e.to_string());
                answer.unreadable = e.is_unreadable();
                turn.answers.push(answer);
                conversation.push(Message::new(
                    "user",
                    prompt::correction(&table.style, position, &e.to_string()),
                ));
            }
        }
    }
    // The messages after the system message; the last correction was
    // never sent when the model forfeited.
    if turn.column.is_none() {
        conversation.pop();
    }
    turn.messages = conversation.split_off(1);
    Ok(turn)
}
