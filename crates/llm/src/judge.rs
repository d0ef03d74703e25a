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
    let name = |o: Option<Outcome>| o.map(|o| o.to_string());
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

/// The summary's sentences: the accuracy and answers, then where the
/// value was given away.
pub fn lines(s: &Summary) -> Vec<String> {
    let phases: Vec<String> = PHASES
        .iter()
        .zip(s.blunders_by_phase)
        .map(|(p, n)| format!("{n} in the {p}"))
        .collect();
    vec![
        format!(
            "Model {}: {} games; accuracy {:.1}% ({} of {} judged moves kept the value); \
             {} illegal answers of {} ({:.1}%); {} requests, {} tokens",
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
        ),
        format!("Moves that gave the value away: {}", phases.join(", ")),
    ]
}

/// The results against each opponent, the header first.
pub fn table(s: &Summary) -> Vec<Vec<String>> {
    let mut rows = vec![
        [
            "opponent",
            "games",
            "won",
            "drawn",
            "lost",
            "forfeits",
            "Elo (95%)",
        ]
        .map(str::to_string)
        .to_vec(),
    ];
    for (opponent, a) in &s.against {
        let (elo, low, high) = a.elo;
        rows.push(vec![
            opponent.clone(),
            a.games.to_string(),
            a.wins.to_string(),
            a.draws.to_string(),
            a.losses.to_string(),
            a.forfeits.to_string(),
            format!("{} ({} to {})", signed(elo), signed(low), signed(high)),
        ]);
    }
    rows
}

/// The summary as Markdown: its lines, then its table.
pub fn markdown(s: &Summary) -> String {
    let mut text = lines(s).join("\n\n");
    text.push_str("\n\n");
    for (i, row) in table(s).iter().enumerate() {
        text.push_str(&format!("| {} |\n", row.join(" | ")));
        if i == 0 {
            text.push_str(&format!("|{}\n", "---|".repeat(row.len())));
        }
    }
    text
}

/// The summary of the model's log at `path`; none when it is not a
/// model's log (no line of it has the model's side, `llm`).
pub fn summary_of_log(path: &std::path::Path) -> anyhow::Result<Option<Summary>> {
    use anyhow::Context;
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading the log {}", path.display()))?;
    let a_model_s = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| {
            serde_json::from_str::<serde_json::Value>(l).is_ok_and(|v| v.get("llm").is_some())
        });
    if !a_model_s {
        return Ok(None);
    }
    let lines: Vec<LlmLine> = connect4_match::log::read_lines(path)?;
    Ok(Some(summary(&lines)))
}

/// The summary of the log at `path`, which must hold the games of one
/// model (`llm report`).
pub fn report_of(path: &std::path::Path) -> anyhow::Result<Summary> {
    let lines: Vec<LlmLine> = connect4_match::log::read_lines(path)?;
    if lines.is_empty() {
        anyhow::bail!("{}: no games of a model in it", path.display());
    }
    let models: std::collections::BTreeSet<&str> =
        lines.iter().map(|l| l.llm.model.as_str()).collect();
    if models.len() > 1 {
        anyhow::bail!(
            "{}: games of {} models ({}); a report is of one",
            path.display(),
            models.len(),
            models.into_iter().collect::<Vec<_>>().join(", ")
        );
    }
    Ok(summary(&lines))
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
