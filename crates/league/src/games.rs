//! Playing the league's games: each game between two fresh engine
//! processes (a student's code, or an anchor), on up to `concurrency`
//! threads, each result recorded as it comes (with the ratings it moves)
//! and its moves judged by the solver, so that each player's share of
//! moves that kept the value is known.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use anyhow::{Context, Result};
use connect4::Rules;
use connect4::book::Book;
use connect4::score::Outcome;
use connect4::search::verdict::Judge;
use connect4_match::log::GameLine;
use connect4_match::play::{GameSetup, Seat, play_game};
use connect4_match::schedule::Job;
use connect4_match::spec::EngineSpec;

use crate::rating::{self, Rating};
use crate::store::{GameRow, Played, Player, Store};

/// The solver's table for judging moves, per thread.
const JUDGE_MB: usize = 16;
/// Time the solver may take over one position and one game when judging.
const POSITION_CAP: Duration = Duration::from_millis(200);
const GAME_CAP: Duration = Duration::from_secs(2);
/// Time an engine may take beyond its move time.
const MARGIN: Duration = Duration::from_millis(200);

/// Plays `games` on `concurrency` threads and records each in `store` as
/// it ends; stops taking new games once `stop` is raised. The number of
/// games recorded.
pub fn play_all(
    store: &Mutex<Store>,
    players: &[Player],
    games: &[GameRow],
    concurrency: usize,
    stop: &AtomicBool,
) -> Result<usize> {
    let next = AtomicUsize::new(0);
    let recorded = AtomicUsize::new(0);
    let failed = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..concurrency.max(1).min(games.len()) {
            scope.spawn(|| {
                let mut judge = Judge::new(JUDGE_MB, Some(Book::shipped()), POSITION_CAP, GAME_CAP);
                while !stop.load(Ordering::Relaxed) {
                    let Some(game) = games.get(next.fetch_add(1, Ordering::Relaxed)) else {
                        break;
                    };
                    match play_one(store, players, game, &mut judge, stop) {
                        Ok(true) => _ = recorded.fetch_add(1, Ordering::Relaxed),
                        Ok(false) => {}
                        Err(e) => {
                            stop.store(true, Ordering::Relaxed);
                            *failed.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                        }
                    }
                }
            });
        }
    });
    match failed.into_inner().unwrap_or_else(|e| e.into_inner()) {
        Some(e) => Err(e),
        None => Ok(recorded.into_inner()),
    }
}

/// Plays `game` and records it; whether it was recorded (not when the
/// league is stopping, nor for a game a resubmission dropped).
fn play_one(
    store: &Mutex<Store>,
    players: &[Player],
    game: &GameRow,
    judge: &mut Judge,
    stop: &AtomicBool,
) -> Result<bool> {
    let find = |id| players.iter().find(|p| p.id == id);
    let (Some(a), Some(b)) = (find(game.first), find(game.second)) else {
        return Ok(false);
    };
    let mut first = Seat::new(spec_of(a)?, MARGIN);
    let mut second = Seat::new(spec_of(b)?, MARGIN);
    let setup = GameSetup {
        rules: Rules::STANDARD,
        opening: &game.opening,
        seed: game.seed as u64,
        adjudicator: None,
        abort: stop,
        on_move: None,
    };
    let Some(record) = play_game(setup, &mut first, &mut second) else {
        return Ok(false);
    };
    drop((first, second));
    let job = Job {
        game: game.id as u64,
        pair: game.id as u64,
        first: 0,
        second: 1,
        opening: game.opening.clone(),
    };
    let mut line = GameLine::of_game(
        "league".into(),
        &job,
        (label(a), label(b)),
        Rules::STANDARD,
        record,
        game.seed as u64,
    );
    line.seed = game.seed as u64;
    let played = Played {
        result: line.result.clone(),
        reason: line.reason.to_string(),
        accuracy: accuracy(judge, &line),
        line: serde_json::to_string(&line).context("a game line")?,
    };
    let mut store = store.lock().unwrap_or_else(|e| e.into_inner());
    let ratings = match game.kind.as_str() {
        "ladder" => Some(rated(&store, a, b, &line.result)?),
        _ => None,
    };
    Ok(store.record(game, &played, ratings)?)
}

/// The ratings of `a` and `b` after their game, from their ratings now.
fn rated(store: &Store, a: &Player, b: &Player, result: &str) -> Result<(Rating, Rating)> {
    let now = |p: &Player| Ok::<_, anyhow::Error>(store.rating(p.id)?.unwrap_or(p.rating));
    let outcome = match result {
        "1-0" => Outcome::Win,
        "0-1" => Outcome::Loss,
        _ => Outcome::Draw,
    };
    Ok(rating::rate(now(a)?, now(b)?, outcome))
}

/// How `player` runs: its spec, named after the student or the anchor.
pub fn spec_of(player: &Player) -> Result<EngineSpec> {
    let mut spec: EngineSpec = player
        .spec
        .parse()
        .with_context(|| format!("{}'s spec", player.student))?;
    spec.name = label(player);
    Ok(spec)
}

/// The name a player goes by in the games: the student and the
/// submission's number, or the anchor's name.
pub fn label(player: &Player) -> String {
    match player.anchor {
        true => player.student.clone(),
        false => format!("{} v{}", player.student, player.version),
    }
}

/// Each side's moves after the opening that the solver judged, and how
/// many of them kept the position's value (first, second).
fn accuracy(judge: &mut Judge, line: &GameLine) -> [(i64, i64); 2] {
    let Ok(game) = connect4::Game::from_move_string(Rules::STANDARD, &line.moves) else {
        return [(0, 0); 2];
    };
    let verdicts = judge.game(Rules::STANDARD, game.moves());
    let mut out = [(0, 0); 2];
    for v in verdicts.iter().skip(line.opening.len()) {
        if v.before.is_some() && v.after.is_some() {
            let side = &mut out[(v.ply % 2) as usize];
            side.0 += 1;
            side.1 += i64::from(!v.lost_value());
        }
    }
    out
}
