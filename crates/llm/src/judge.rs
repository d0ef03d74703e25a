//! The solver's verdict on a model's moves, and what a run's games say of
//! the model: the share of its moves that kept the value of the position
//! (its accuracy), where it gave the value away (by phase of the game),
//! how often its answers were no legal move, and its results and Elo
//! against each opponent.

use std::collections::BTreeMap;
use std::time::Duration;

use connect4::Player;
use connect4::book::Book;
use connect4::lab::stats::Tally;
use connect4::score::Outcome;
use connect4::search::verdict::Judge;
use serde::Serialize;

use crate::record::{LlmLine, MoveVerdict};

/// How long the judge may prove one position, and one game.
const POSITION_CAP: Duration = Duration::from_secs(5);
const GAME_CAP: Duration = Duration::from_secs(60);

/// A judge for a run's games: the solver with the shipped book.
pub fn judge() -> Judge {
    Judge::new(64, Some(Book::shipped()), POSITION_CAP, GAME_CAP)
}

/// The verdict on each move of `line`'s game that the model played.
pub fn verdicts(judge: &mut Judge, line: &LlmLine) -> Vec<MoveVerdict> {
    let moves: Vec<u32> = line.game.moves.columns().collect();
    let seat = line.llm.seat;
    let name = |o: Option<Outcome>| {
        o.map(|o| match o {
            Outcome::Win => "win",
            Outcome::Draw => "draw",
            Outcome::Loss => "loss",
        })
        .map(str::to_string)
    };
    judge
        .game(line.game.rules, &moves)
        .into_iter()
        .filter(|v| mover(v.ply) == seat)
        .map(|v| MoveVerdict {
            ply: v.ply,
            column: v.column,
            before: name(v.before),
            after: name(v.after),
            kept: (v.before.is_some() && v.after.is_some()).then(|| v.kept_value()),
            keeping: v.keeping,
        })
        .collect()
}

/// Who plays the move of `ply` (from 0).
fn mover(ply: u32) -> Player {
    if ply.is_multiple_of(2) {
        Player::First
    } else {
        Player::Second
    }
}

/// The phases of a game, by the share of the board filled before the
/// move: the first, second and last third.
pub const PHASES: [&str; 3] = ["opening", "middle game", "endgame"];

/// The phase of the move of `ply` on a board of `cells`.
fn phase(ply: u32, cells: u32) -> usize {
    ((ply * 3) / cells.max(1)).min(2) as usize
}

/// The model's results against one opponent.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Against {
    /// Games played.
    pub games: u32,
    /// Won, drawn and lost, the model's.
    pub wins: u32,
    /// Drawn.
    pub draws: u32,
    /// Lost.
    pub losses: u32,
    /// Lost by forfeit (no legal move after the retries).
    pub forfeits: u32,
    /// The model's Elo against the opponent, and its 95% interval.
    pub elo: (f64, f64, f64),
}

/// What a run's games say of the model.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    /// The model.
    pub model: String,
    /// Games in the log.
    pub games: u32,
    /// The model's moves the solver judged (both values known).
    pub judged_moves: u32,
    /// Of those, the ones that kept the value.
    pub kept: u32,
    /// `kept / judged_moves`.
    pub accuracy: f64,
    /// Moves that gave the value away, by phase ([`PHASES`]).
    pub blunders_by_phase: [u32; 3],
    /// The model's answers.
    pub answers: u32,
    /// Answers that were no legal move (an illegal column or none).
    pub illegal_answers: u32,
    /// `illegal_answers / answers`.
    pub illegal_rate: f64,
    /// HTTP requests made, retries included.
    pub requests: u32,
    /// Tokens, prompts and answers.
    pub tokens: u64,
    /// Results by opponent spec.
    pub against: BTreeMap<String, Against>,
}

/// The summary of `lines` (one model's games).
pub fn summary(lines: &[LlmLine]) -> Summary {
    let mut s = Summary::default();
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    for line in lines {
        s.model.clone_from(&line.llm.model);
        s.games += 1;
        s.tokens += line.tokens();
        let cells = line.game.rules.columns() * line.game.rules.rows();
        for v in &line.llm.verdicts {
            match v.kept {
                Some(true) => {
                    s.judged_moves += 1;
                    s.kept += 1;
                }
                Some(false) => {
                    s.judged_moves += 1;
                    s.blunders_by_phase[phase(v.ply, cells)] += 1;
                }
                None => {}
            }
        }
        for a in line.llm.turns.iter().flat_map(|t| &t.answers) {
            s.answers += 1;
            s.requests += a.requests;
            s.illegal_answers += u32::from(a.problem.is_some());
        }
        let seat = line.llm.seat;
        let points = match line.game.result.winner() {
            None => 0.5,
            Some(w) if w == seat => 1.0,
            Some(_) => 0.0,
        };
        tallies
            .entry(line.llm.opponent.clone())
            .or_default()
            .add_game(points);
        let against = s.against.entry(line.llm.opponent.clone()).or_default();
        against.games += 1;
        against.forfeits +=
            u32::from(line.game.reason.is_forfeit() && line.game.result.loser() == Some(seat));
    }
    for (opponent, tally) in tallies {
        let a = s.against.get_mut(&opponent).expect("tallied with it");
        a.wins = tally.wins;
        a.draws = tally.draws;
        a.losses = tally.losses;
        a.elo = tally.elo();
    }
    s.accuracy = f64::from(s.kept) / f64::from(s.judged_moves.max(1));
    s.illegal_rate = f64::from(s.illegal_answers) / f64::from(s.answers.max(1));
    s
}

/// The summary as a Markdown table and lines, for a terminal or a page.
pub fn markdown(s: &Summary) -> String {
    let mut text = format!(
        "Model {}: {} games; accuracy {:.1}% ({} of {} judged moves kept the value); \
         {} illegal answers of {} ({:.1}%); {} requests, {} tokens\n\n",
        s.model,
        s.games,
        100.0 * s.accuracy,
        s.kept,
        s.judged_moves,
        s.illegal_answers,
        s.answers,
        100.0 * s.illegal_rate,
        s.requests,
        s.tokens,
    );
    text.push_str("Moves that gave the value away: ");
    let phases: Vec<String> = PHASES
        .iter()
        .zip(s.blunders_by_phase)
        .map(|(p, n)| format!("{n} in the {p}"))
        .collect();
    text.push_str(&phases.join(", "));
    text.push_str("\n\n| opponent | games | won | drawn | lost | forfeits | Elo (95%) |\n");
    text.push_str("|---|---|---|---|---|---|---|\n");
    for (opponent, a) in &s.against {
        let (elo, low, high) = a.elo;
        text.push_str(&format!(
            "| {opponent} | {} | {} | {} | {} | {} | {} ({} to {}) |\n",
            a.games,
            a.wins,
            a.draws,
            a.losses,
            a.forfeits,
            signed(elo),
            signed(low),
            signed(high),
        ));
    }
    text
}

/// An Elo difference as text: `+35`, `-inf`.
fn signed(elo: f64) -> String {
    if elo.is_infinite() {
        if elo > 0.0 { "+inf" } else { "-inf" }.to_string()
    } else if elo.is_nan() {
        "?".to_string()
    } else if elo.abs() < 0.5 {
        "0".to_string()
    } else {
        format!("{elo:+.0}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_phases_are_thirds_of_the_board() {
        assert_eq!(phase(0, 42), 0);
        assert_eq!(phase(13, 42), 0);
        assert_eq!(phase(14, 42), 1);
        assert_eq!(phase(28, 42), 2);
        assert_eq!(phase(41, 42), 2);
    }

    #[test]
    fn elo_prints_with_its_sign_and_infinities_as_words() {
        assert_eq!(signed(35.4), "+35");
        assert_eq!(signed(-12.0), "-12");
        assert_eq!(signed(f64::NEG_INFINITY), "-inf");
        assert_eq!(signed(f64::INFINITY), "+inf");
        assert_eq!(signed(-0.2), "0");
    }
}
