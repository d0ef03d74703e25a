//! A run: every game of the schedule (each opponent, `--games` games, the
//! model first in one and second in the next), played a few at once, each
//! logged as it ends; run again with the same log, the games logged are
//! not played again. It stops starting games once the token cap is spent,
//! or when the model's server fails past its retries (the games under way
//! finish, the log keeps every finished one).

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use anyhow::{Context, Result, bail};
use connect4::search::Limits;
use connect4::{Player, Rules};
use connect4_match::ending::GameResult;
use connect4_match::log::{self, GameLine, Writer};

use crate::game::{self, Played, Table};
use crate::judge;
use crate::model::Model;
use crate::prompt::Style;
use crate::record::{LlmLine, ModelGame};

/// One game of the schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    /// Its number, from 1.
    pub game: u64,
    /// Its pair's number (the same opponent, colours swapped), from 1.
    pub pair: u64,
    /// The opponent's agent spec.
    pub opponent: String,
    /// The model's side.
    pub seat: Player,
}

/// The schedule: `games` games against each of `opponents` in turn.
pub fn schedule(opponents: &[String], games: u32) -> Vec<Job> {
    let pairs_each = u64::from(games.div_ceil(2));
    let mut jobs = Vec::new();
    for (o, opponent) in opponents.iter().enumerate() {
        for i in 0..u64::from(games) {
            jobs.push(Job {
                game: jobs.len() as u64 + 1,
                pair: o as u64 * pairs_each + i / 2 + 1,
                opponent: opponent.clone(),
                seat: if i % 2 == 0 {
                    Player::First
                } else {
                    Player::Second
                },
            });
        }
    }
    jobs
}

/// What a run's games depend on: a log is only ever continued by a run of
/// the same terms.
pub struct Terms<'a> {
    /// The model's name.
    pub model: &'a str,
    /// The opponents' specs.
    pub against: &'a [String],
    /// Games against each.
    pub games: u32,
    /// How the position is shown.
    pub style: Style,
    /// Answers asked for again after one that is no legal move.
    pub retries: u32,
    /// The seed of the games' seeds.
    pub seed: u64,
    /// The board.
    pub rules: Rules,
    /// The opponents' time per move.
    pub opponent_movetime_ms: u64,
    /// The sampling temperature, where the run sets it (a Python model
    /// sets its own).
    pub temperature: Option<f64>,
}

/// The run's fingerprint: its [`Terms`], hashed, so that a log is never
/// continued with other settings.
pub fn fingerprint(terms: &Terms) -> String {
    let mut text = serde_json::json!({
        "model": terms.model,
        "against": terms.against,
        "games": terms.games,
        "style": terms.style,
        "retries": terms.retries,
        "seed": terms.seed,
        "rules": terms.rules.to_string(),
        "opponent_movetime_ms": terms.opponent_movetime_ms,
    });
    if let Some(t) = terms.temperature {
        text["temperature"] = t.into();
    }
    format!(
        "llm-{}",
        connect4_match::schedule::fingerprint_of(&[text.to_string()])
    )
}

/// What a run needs besides the model.
pub struct Plan<'a> {
    /// The run's fingerprint: the settings its games depend on.
    pub run: String,
    /// The model's name in the games' lines.
    pub name: String,
    /// The schedule.
    pub jobs: Vec<Job>,
    /// The seed each game's seed is drawn from.
    pub seed: u64,
    /// Games at once.
    pub concurrency: usize,
    /// The most tokens the run may spend, over every run of its log.
    pub token_cap: Option<u64>,
    /// Every game's table.
    pub table: Table<'a>,
    /// Raised by the caller to start no more games (Ctrl-C in Python):
    /// the games under way finish and are logged.
    pub cancel: Option<&'a AtomicBool>,
}

impl<'a> Plan<'a> {
    /// The run of `terms`, asking `model`: `concurrency` games at once, no
    /// new game once the log's games spent `token_cap` tokens, nor once
    /// `cancel` is raised.
    pub fn new(
        terms: &Terms,
        model: &'a dyn Model,
        concurrency: usize,
        token_cap: Option<u64>,
        cancel: Option<&'a AtomicBool>,
    ) -> Plan<'a> {
        Plan {
            run: fingerprint(terms),
            name: format!("llm:{}", terms.model),
            jobs: schedule(terms.against, terms.games),
            seed: terms.seed,
            concurrency: concurrency.max(1),
            token_cap,
            table: Table {
                model,
                style: terms.style,
                retries: terms.retries,
                rules: terms.rules,
                opponent_limits: opponent_limits(terms.opponent_movetime_ms),
            },
            cancel,
        }
    }
}

/// How a run ended.
pub struct Ended {
    /// The log's games, old and new.
    pub lines: Vec<LlmLine>,
    /// Games of the schedule left unplayed.
    pub left: usize,
    /// Why games were left, if they were.
    pub why_left: Option<String>,
}

/// The log's games of this run; the log's games of another run are an
/// error.
pub fn logged(path: &Path, run: &str) -> Result<Vec<LlmLine>> {
    let lines: Vec<LlmLine> = log::read_lines(path)?;
    if let Some(other) = lines.iter().find(|l| l.game.run != run) {
        bail!(
            "the log {} holds games of another run (of {} against {}, run {}; this one is run \
             {run}): give this run another --log",
            path.display(),
            other.llm.model,
            other.llm.opponent,
            other.game.run
        );
    }
    Ok(lines)
}

/// Plays the schedule's games that `path` does not hold yet.
pub fn play(plan: &Plan, path: &Path) -> Result<Ended> {
    let mut lines = logged(path, &plan.run)?;
    let done: std::collections::HashSet<u64> = lines.iter().map(|l| l.game.game).collect();
    let todo: Vec<&Job> = plan
        .jobs
        .iter()
        .filter(|j| !done.contains(&j.game))
        .collect();
    let spent = AtomicU64::new(lines.iter().map(LlmLine::tokens).sum());
    let writer = Mutex::new(Writer::open(path)?);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let why: Mutex<Option<String>> = Mutex::new(None);
    let new_lines: Mutex<Vec<LlmLine>> = Mutex::new(Vec::new());
    let failed: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..plan.concurrency.max(1) {
            scope.spawn(|| {
                let mut judge = judge::judge();
                let cancelled = || plan.cancel.is_some_and(|c| c.load(Ordering::SeqCst));
                while !stop.load(Ordering::SeqCst) && !cancelled() {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(job) = todo.get(i) else { break };
                    if let Some(cap) = plan.token_cap
                        && spent.load(Ordering::SeqCst) >= cap
                    {
                        stop.store(true, Ordering::SeqCst);
                        why.lock().unwrap().get_or_insert_with(|| {
                            format!(
                                "the token cap is spent ({} of {cap} tokens, --max-total-tokens)",
                                spent.load(Ordering::SeqCst)
                            )
                        });
                        break;
                    }
                    match one_game(plan, job, &mut judge) {
                        Ok(line) => {
                            spent.fetch_add(line.tokens(), Ordering::SeqCst);
                            eprintln!("{}", progress(&line, plan.jobs.len()));
                            if let Err(e) = writer.lock().unwrap().append(&line) {
                                failed.lock().unwrap().get_or_insert(e);
                                stop.store(true, Ordering::SeqCst);
                            }
                            new_lines.lock().unwrap().push(line);
                        }
                        Err(e) => {
                            stop.store(true, Ordering::SeqCst);
                            why.lock().unwrap().get_or_insert_with(|| {
                                format!("the model's server failed in game {}: {e}", job.game)
                            });
                        }
                    }
                }
            });
        }
    });
    if let Some(e) = failed.into_inner().unwrap() {
        return Err(e);
    }
    let mut new_lines = new_lines.into_inner().unwrap();
    new_lines.sort_by_key(|l| l.game.game);
    let left = todo.len() - new_lines.len();
    lines.extend(new_lines);
    lines.sort_by_key(|l| l.game.game);
    Ok(Ended {
        lines,
        left,
        why_left: why.into_inner().unwrap(),
    })
}

/// Plays and judges one game.
fn one_game(
    plan: &Plan,
    job: &Job,
    judge: &mut connect4::search::verdict::Judge,
) -> Result<LlmLine> {
    let mut opponent = connect4::agents::from_spec(&job.opponent)
        .with_context(|| format!("--against {}", job.opponent))?;
    let seed = connect4::openings::game_seed(plan.seed, job.game);
    let played = game::play(&plan.table, opponent.as_mut(), job.seat, seed)?;
    let mut line = line_of(plan, job, seed, played);
    line.llm.verdicts = judge::verdicts(judge, &line);
    Ok(line)
}

/// The log's line of a game played.
fn line_of(plan: &Plan, job: &Job, seed: u64, played: Played) -> LlmLine {
    let (first, second) = match job.seat {
        Player::First => (plan.name.clone(), job.opponent.clone()),
        Player::Second => (job.opponent.clone(), plan.name.clone()),
    };
    let zero_based = if plan.table.style.first_column == 0 {
        vec![plan.name.clone()]
    } else {
        Vec::new()
    };
    LlmLine {
        game: GameLine {
            run: plan.run.clone(),
            game: job.game,
            pair: job.pair,
            first,
            second,
            rules: plan.table.rules,
            opening: connect4::MoveList::new(),
            moves: played.moves,
            result: GameResult::of_winner(played.end.winner),
            reason: played.end.reason,
            detail: played.end.detail,
            seed,
            test: None,
            zero_based,
            plies: played.plies,
        },
        llm: ModelGame {
            model: plan.table.model.name().to_string(),
            seat: job.seat,
            opponent: job.opponent.clone(),
            style: plan.table.style,
            system: played.system,
            turns: played.turns,
            verdicts: Vec::new(),
        },
    }
}

/// A line of progress for a finished game.
fn progress(line: &LlmLine, games: usize) -> String {
    let kept = line
        .llm
        .verdicts
        .iter()
        .filter(|v| v.kept == Some(true))
        .count();
    let judged = line
        .llm
        .verdicts
        .iter()
        .filter(|v| v.kept.is_some())
        .count();
    format!(
        "game {}/{games} against {} ({} moving {}): {} ({}), {kept} of {judged} judged moves kept \
         the value",
        line.game.game,
        line.llm.opponent,
        line.llm.model,
        if line.llm.seat == Player::First {
            "first"
        } else {
            "second"
        },
        line.game.result.as_str(),
        line.game.reason.as_str(),
    )
}

/// The opponents' limits on each move: `movetime_ms` each.
pub fn opponent_limits(movetime_ms: u64) -> Limits {
    Limits::time(std::time::Duration::from_millis(movetime_ms))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_opponent_gets_pairs_with_the_colours_swapped() {
        let jobs = schedule(&["random".into(), "greedy".into()], 3);
        let seen: Vec<(u64, u64, &str, Player)> = jobs
            .iter()
            .map(|j| (j.game, j.pair, j.opponent.as_str(), j.seat))
            .collect();
        assert_eq!(
            seen,
            [
                (1, 1, "random", Player::First),
                (2, 1, "random", Player::Second),
                (3, 2, "random", Player::First),
                (4, 3, "greedy", Player::First),
                (5, 3, "greedy", Player::Second),
                (6, 4, "greedy", Player::First),
            ]
        );
    }
}
