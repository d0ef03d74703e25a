//! Playing the league's games: each game between two fresh engine
//! processes (a student's code, or an anchor), on up to `concurrency`
//! threads, each result recorded as it comes (with the ratings it moves)
//! and its moves judged by the solver, so that each player's share of
//! moves that kept the value is known.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use anyhow::{Context, Result};
use connect4::Rules;
use connect4::book::Book;
use connect4::score::Outcome;
use connect4::search::verdict::Judge;
use connect4_match::ending::GameResult;
use connect4_match::log::GameLine;
use connect4_match::play::{GameSetup, Seat, play_game};
use connect4_match::schedule::Job;
use connect4_match::spec::EngineSpec;

use crate::isolation::{Entrant, Isolation, copy_of};
use crate::rating::{self, Rating};
use crate::store::{GameRow, Played, Player, Slip, Store};

/// The solver's table for judging moves, per thread.
const JUDGE_MB: usize = 16;
/// Time the solver may take over one position and one game when judging.
const POSITION_CAP: Duration = Duration::from_millis(200);
const GAME_CAP: Duration = Duration::from_secs(2);

/// Where the league's games are played: its database, its game log, and
/// the flag that stops it.
pub struct Table<'a> {
    /// The league's database.
    pub store: &'a Mutex<Store>,
    /// The league's game log (`games.jsonl`), which each game recorded is
    /// appended to.
    pub log: &'a Path,
    /// Raised by Ctrl-C: no game starts, the ones under way end.
    pub stop: &'a AtomicBool,
    /// How the students' code runs.
    pub isolation: &'a Isolation,
    /// The league's copies of the submissions.
    pub copies: std::path::PathBuf,
    /// Time an engine may take beyond its move time: the config's
    /// `[time] margin_ms`.
    pub margin: Duration,
}

/// Plays `games` between `players` on `concurrency` threads and records
/// each as it ends; stops taking new games once the table's `stop` is
/// raised. The number of games recorded.
pub fn play_all(
    table: &Table,
    players: &[Player],
    games: &[GameRow],
    concurrency: usize,
) -> Result<usize> {
    let slots = table
        .store
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .slots()?;
    on_threads(games, concurrency, table.stop, |game, judge| {
        let find = |id| players.iter().find(|p| p.id == id);
        let (Some(a), Some(b)) = (find(game.first), find(game.second)) else {
            return Ok(false);
        };
        let seats = [
            seat_of(&slots, &table.copies, a)?,
            seat_of(&slots, &table.copies, b)?,
        ];
        let ([first, second], cells) = table.isolation.seat(seats)?;
        let played = play(game, [first, second], table.margin, judge, table.stop)?;
        // Everything of the students' users ends with the game, and what
        // any engine left running when it left its group.
        drop(cells);
        connect4_match::group::end_orphans();
        match played {
            Some(played) => record(table, game, &played),
            None => Ok(false),
        }
    })
}

/// Runs `work` on each of `items` on `concurrency` threads, each with a
/// judge of its own, until done or `stop` is raised (an error raises it);
/// how many times `work` said yes.
pub fn on_threads<T: Sync>(
    items: &[T],
    concurrency: usize,
    stop: &AtomicBool,
    work: impl Fn(&T, &mut Judge) -> Result<bool> + Sync,
) -> Result<usize> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let failed = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..concurrency.max(1).min(items.len()) {
            scope.spawn(|| {
                let mut judge = judge();
                while !stop.load(Ordering::Relaxed) {
                    let Some(item) = items.get(next.fetch_add(1, Ordering::Relaxed)) else {
                        break;
                    };
                    match work(item, &mut judge) {
                        Ok(true) => _ = done.fetch_add(1, Ordering::Relaxed),
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
        None => Ok(done.into_inner()),
    }
}

/// The solver that judges the league's moves, one per thread.
pub fn judge() -> Judge {
    Judge::new(JUDGE_MB, Some(Book::shipped()), POSITION_CAP, GAME_CAP)
}

/// Plays `game` between the first and second of `specs` (named as the
/// game log names them), each allowed `margin` beyond its move time, and
/// judges its moves: the game as it is recorded, or `None` when the
/// league is stopping.
pub fn play(
    game: &GameRow,
    [first, second]: [EngineSpec; 2],
    margin: Duration,
    judge: &mut Judge,
    stop: &AtomicBool,
) -> Result<Option<Played>> {
    let names = (first.name.clone(), second.name.clone());
    // Python students read their columns from 0, on the replay page too.
    let zero_based: Vec<String> = [&first, &second]
        .into_iter()
        .filter(|s| s.counts_columns_from_zero())
        .map(|s| s.name.clone())
        .collect();
    let [mut first, mut second] = seats([first, second], margin);
    let setup = GameSetup {
        rules: Rules::STANDARD,
        opening: &game.opening,
        seed: game.seed as u64,
        adjudicator: None,
        abort: stop,
        on_move: None,
    };
    let Some(record) = play_game(setup, &mut first, &mut second) else {
        return Ok(None);
    };
    drop((first, second));
    let job = Job {
        game: game.id as u64,
        pair: game.id as u64,
        first: 0,
        second: 1,
        opening: game.opening.clone(),
    };
    let line = GameLine {
        zero_based,
        ..GameLine::of_game(
            "league".into(),
            &job,
            names,
            Rules::STANDARD,
            record,
            game.seed as u64,
        )
    };
    let (accuracy, slips) = judged(judge, &line);
    Ok(Some(Played {
        result: line.result,
        reason: line.reason,
        accuracy,
        slips,
        line: serde_json::to_string(&line).context("a game line")?,
    }))
}

/// The seats of a game's two engines: each allowed its spec's own margin
/// (a student's, from the config) or else `margin` (an anchor's).
fn seats(specs: [EngineSpec; 2], margin: Duration) -> [Seat; 2] {
    specs.map(|spec| Seat::new(spec, margin))
}

/// Records `played` as the result of `game` (moving the ratings of a
/// ladder game) and appends it to the league's game log; whether it was
/// recorded (not when it was already, nor when a resubmission dropped
/// the game).
pub fn record(table: &Table, game: &GameRow, played: &Played) -> Result<bool> {
    let mut store = table.store.lock().unwrap_or_else(|e| e.into_inner());
    let ratings = match game.kind.is_rated() {
        true => Some(rated(&store, game, played.result)?),
        false => None,
    };
    let recorded = store.record(game, played, ratings)?;
    if recorded {
        append(table.log, &played.line)?;
    }
    Ok(recorded)
}

/// Appends `line` to the league's game log, as one write: the page
/// replays each game as soon as it is recorded. (The log is written
/// whole again from the database when the league starts, so a line a
/// kill left out or cut is mended there.)
fn append(log: &Path, line: &str) -> Result<()> {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .with_context(|| format!("opening {}", log.display()))?;
    file.write_all(format!("{line}\n").as_bytes())
        .with_context(|| format!("writing {}", log.display()))
}

/// The ratings of the players of `game` after it ended `result`, from
/// their ratings now.
fn rated(store: &Store, game: &GameRow, result: GameResult) -> Result<(Rating, Rating)> {
    let now = |id| {
        store
            .rating(id)?
            .with_context(|| format!("game {}: no player {id} in the league", game.id))
    };
    Ok(rating::rate(
        now(game.first)?,
        now(game.second)?,
        rating::outcome_of(result),
    ))
}

/// The seat of `player` in a game: its spec, and for a student their
/// number (from `slots`, the store's) and copy.
pub fn seat_of(
    slots: &std::collections::BTreeMap<String, u32>,
    copies: &Path,
    player: &Player,
) -> Result<Entrant> {
    let spec = spec_of(player)?;
    let student = match player.anchor {
        true => None,
        false => {
            let slot = slots.get(&player.student).with_context(|| {
                format!("student '{}' has no number in the league", player.student)
            })?;
            Some((*slot, copy_of(copies, player)))
        }
    };
    Ok(Entrant { spec, student })
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
/// many of them kept the position's value (first, second); and the moves
/// that gave it away.
pub(crate) fn judged(judge: &mut Judge, line: &GameLine) -> ([(i64, i64); 2], Vec<Slip>) {
    let Ok(game) = connect4::Game::from_moves(Rules::STANDARD, &line.moves) else {
        return ([(0, 0); 2], Vec::new());
    };
    let verdicts = judge.game(Rules::STANDARD, game.moves());
    let mut accuracy = [(0, 0); 2];
    let mut slips = Vec::new();
    for v in verdicts.iter().skip(line.opening.len()) {
        let (Some(before), Some(after)) = (v.before, v.after) else {
            continue;
        };
        let side = &mut accuracy[(v.ply % 2) as usize];
        side.0 += 1;
        side.1 += i64::from(!v.lost_value());
        if v.lost_value() {
            slips.push(Slip {
                ply: i64::from(v.ply),
                played: i64::from(v.column),
                keeping: v.keeping.map(i64::from),
                before: word(before).into(),
                after: word(after).into(),
            });
        }
    }
    (accuracy, slips)
}

/// An outcome as the page and the database say it.
pub fn word(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Win => "win",
        Outcome::Draw => "draw",
        Outcome::Loss => "loss",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The anchors' specs name no margin: they get the league's (they had
    /// 200 ms whatever the config said, and lost games on time on a
    /// loaded machine); a student's spec keeps the margin it names.
    #[test]
    fn an_anchor_gets_the_league_s_margin_and_a_student_keeps_its_own() {
        let anchor: EngineSpec = "name=perfect,cmd=self,movetime=100".parse().unwrap();
        let student: EngineSpec = "name=s,cmd=x,movetime=20,margin=700".parse().unwrap();
        let [anchor, student] = seats([anchor, student], Duration::from_millis(9000));
        assert_eq!(anchor.margin, Duration::from_millis(9000));
        assert_eq!(student.margin, Duration::from_millis(700));
    }
}
