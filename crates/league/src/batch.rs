//! The league's games played away from its database, as Slurm array
//! tasks play them: the games to play are written to a file (`--export`),
//! each task plays its share of them from that file alone and writes what
//! it played to a results file of its own (`--play ... --shard I/N`), and
//! the results are recorded in the database (`--record`), in the order of
//! the games, each once. A task touches no database (SQLite over a
//! cluster's shared file system is not safe with several writers), and a
//! task that is run again plays only what its results file lacks.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;

use anyhow::{Context, Result};
use connect4_match::schedule::Shard;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::games::{self, Table};
use crate::store::{GameRow, Played, Player, Store};

/// One side of an exported game: how it runs and what the log calls it.
#[derive(Clone, Debug, Deserialize, PartialEq, Serialize)]
pub struct Side {
    /// The player's number in the database.
    pub id: i64,
    /// Its name in the game log.
    pub name: String,
    /// How to run it, as an engine spec.
    pub spec: String,
    /// A student's number (the user their code runs as under isolation)
    /// and the folder of their copy; none for an anchor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub student: Option<(u32, std::path::PathBuf)>,
}

/// A game to play, with everything a task needs to play it.
#[derive(Clone, Debug, Deserialize, PartialEq, Serialize)]
pub struct Exported {
    /// The game's number.
    pub game: i64,
    /// What the game is for.
    pub kind: crate::kinds::GameKind,
    /// The side moving first.
    pub first: Side,
    /// The side moving second.
    pub second: Side,
    /// The opening's moves.
    pub opening: connect4::MoveList,
    /// The `newgame` seed.
    pub seed: i64,
}

impl Exported {
    fn row(&self) -> GameRow {
        GameRow {
            id: self.game,
            first: self.first.id,
            second: self.second.id,
            kind: self.kind,
            opening: self.opening.clone(),
            seed: self.seed,
        }
    }
}

/// A played game, as a task writes it.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct TaskResult {
    /// The game's number.
    pub game: i64,
    /// What was played.
    pub played: Played,
}

/// Writes every game scheduled and not played yet to `path` (one JSON
/// line each, written whole then renamed into place), the students'
/// copies being in `copies`; how many.
pub fn export(store: &Store, copies: &Path, path: &Path) -> Result<usize> {
    let players = store.players()?;
    let slots = store.slots()?;
    let side = |id: i64| -> Result<Side> {
        let p: &Player = players
            .iter()
            .find(|p| p.id == id)
            .with_context(|| format!("no player {id} in the league"))?;
        let seat = games::seat_of(&slots, copies, p)?;
        Ok(Side {
            id,
            name: games::label(p),
            spec: p.spec.clone(),
            student: seat.student,
        })
    };
    let mut text = String::new();
    let unplayed = store.unplayed()?;
    for g in &unplayed {
        let exported = Exported {
            game: g.id,
            kind: g.kind,
            first: side(g.first)?,
            second: side(g.second)?,
            opening: g.opening.clone(),
            seed: g.seed,
        };
        text += &serde_json::to_string(&exported)?;
        text.push('\n');
    }
    connect4::atomic_file::write(path, text)
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(unplayed.len())
}

/// What reading lines of JSON does with a line it cannot read.
#[derive(Clone, Copy, PartialEq)]
enum BadLine {
    /// An error that names the line: a file this program wrote whole.
    Refuse,
    /// Counted and skipped: a file tasks append to, which a task killed
    /// while writing leaves with a line cut short.
    Count,
}

/// The values of the lines of JSON of `path` (blank lines skipped), and
/// how many lines could not be read (see [`BadLine`]).
fn json_lines<T: DeserializeOwned>(path: &Path, bad_line: BadLine) -> Result<(Vec<T>, usize)> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut read = Vec::new();
    let mut bad = 0;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str(line) {
            Ok(value) => read.push(value),
            Err(e) if bad_line == BadLine::Refuse => {
                return Err(anyhow::Error::new(e).context(format!(
                    "{} line {}",
                    path.display(),
                    i + 1
                )));
            }
            Err(_) => bad += 1,
        }
    }
    Ok((read, bad))
}

/// Reads the lines of JSON of `path`; a line that cannot be read is an
/// error that names it.
fn lines<T: DeserializeOwned>(path: &Path) -> Result<Vec<T>> {
    Ok(json_lines(path, BadLine::Refuse)?.0)
}

/// The games a results file holds, and how many of its lines could not
/// be read (a task killed while writing one leaves it cut short).
fn results_in(path: &Path) -> Result<(Vec<TaskResult>, usize)> {
    json_lines(path, BadLine::Count)
}

/// Opens `results` to append to it, first ending a line a killed task
/// left cut short (so that the next game starts a line of its own); it
/// may not be `exported`, which it would spoil.
fn open_results(results: &Path, exported: &Path) -> Result<std::fs::File> {
    use std::os::unix::fs::MetadataExt;
    if let (Ok(a), Ok(b)) = (std::fs::metadata(results), std::fs::metadata(exported))
        && (a.dev(), a.ino()) == (b.dev(), b.ino())
    {
        anyhow::bail!(
            "--results {} is the --play file: the games played would be written into the \
             games to play; choose another file",
            results.display()
        );
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .read(true)
        .open(results)
        .with_context(|| format!("opening {}", results.display()))?;
    let length = file.metadata()?.len();
    if length > 0 {
        use std::io::{Read, Seek, SeekFrom};
        let mut last = [0u8];
        file.seek(SeekFrom::Start(length - 1))?;
        file.read_exact(&mut last)?;
        if last[0] != b'\n' {
            file.write_all(b"\n")?;
        }
    }
    Ok(file)
}

/// Plays the games of `exported` in `shard` (every N-th from the I-th)
/// that `results` does not hold yet, on `concurrency` threads (each
/// engine allowed `margin` beyond its move time), appending each to
/// `results` as it ends; how many it played.
pub fn play(
    exported: &Path,
    shard: Shard,
    results: &Path,
    concurrency: usize,
    stop: &AtomicBool,
    isolation: &crate::isolation::Isolation,
    margin: std::time::Duration,
) -> Result<usize> {
    let done: BTreeSet<i64> = match results.exists() {
        true => results_in(results)?.0.iter().map(|r| r.game).collect(),
        false => BTreeSet::new(),
    };
    let mine: Vec<Exported> = lines::<Exported>(exported)?
        .into_iter()
        .enumerate()
        .filter(|(i, _)| *i as u64 % shard.count == shard.index - 1)
        .map(|(_, g)| g)
        .filter(|g| !done.contains(&g.game))
        .collect();
    let out = Mutex::new(open_results(results, exported)?);
    games::on_threads(&mine, concurrency, stop, |g, judge| {
        let entrant = |side: &Side| -> Result<_> {
            let mut spec: connect4_match::spec::EngineSpec = side
                .spec
                .parse()
                .with_context(|| format!("game {}: {}'s spec", g.game, side.name))?;
            spec.name = side.name.clone();
            Ok(crate::isolation::Entrant {
                spec,
                student: side.student.clone(),
            })
        };
        let ([first, second], cells) = isolation.seat([entrant(&g.first)?, entrant(&g.second)?])?;
        let played = games::play(&g.row(), [first, second], margin, judge, stop)?;
        drop(cells);
        let Some(played) = played else {
            return Ok(false);
        };
        let line = serde_json::to_string(&TaskResult {
            game: g.game,
            played,
        })? + "\n";
        let mut file = out.lock().unwrap_or_else(|e| e.into_inner());
        file.write_all(line.as_bytes())
            .with_context(|| format!("writing {}", results.display()))?;
        Ok(true)
    })
}

/// What recording results did.
#[derive(Debug, Default, PartialEq)]
pub struct Recorded {
    /// Games recorded now.
    pub new: usize,
    /// Results of games recorded before (a task run twice), or dropped by
    /// a resubmission since: left out.
    pub skipped: usize,
    /// Lines that could not be read (cut short by a killed task): their
    /// games are played again by the next step.
    pub unreadable: usize,
    /// Games whose results do not hold up (see [`checked`]): not
    /// recorded, played again by the next step.
    pub refused: usize,
}

/// Why a task's game is not believed: each quotes what the task said and
/// what the league exported.
#[derive(Debug, thiserror::Error)]
pub enum Untrue {
    /// The line is not a game line.
    #[error("its game line cannot be read: {0}")]
    Unreadable(serde_json::Error),
    /// The line, read, does not write again as JSON.
    #[error("its game line cannot be written again: {0}")]
    Unwritable(serde_json::Error),
    /// A player, the opening or the rules differ from the exported game's.
    #[error("its {what} is '{said}', where the game exported '{wanted}'")]
    Other {
        /// Which field.
        what: &'static str,
        /// What the line says.
        said: String,
        /// What the export said.
        wanted: String,
    },
    /// The `newgame` seed differs from the one the league gives the game.
    #[error("its seed is {said}, where the exported game's is {wanted}")]
    Seed {
        /// What the line says.
        said: u64,
        /// The game's seed.
        wanted: u64,
    },
    /// The line's own fields disagree (a result that does not follow).
    #[error(transparent)]
    Line(#[from] connect4_match::log::LineError),
    /// The moves cannot be played.
    #[error("moves '{moves}': {source}")]
    Moves {
        /// The line's moves.
        moves: connect4::MoveList,
        /// Why not.
        source: connect4::game::MoveError,
    },
    /// The league adjudicates no game.
    #[error("it was adjudicated, and the league adjudicates none")]
    Adjudicated,
    /// A forfeit of the side that was not to move.
    #[error("its result {result} by {reason} is not a forfeit of the side to move")]
    NotTheMoversForfeit {
        /// The line's result.
        result: connect4_match::ending::GameResult,
        /// The forfeit's reason.
        reason: connect4_match::ending::Reason,
    },
}

/// The game a task says it played, checked as the league's own games
/// would be: its line read whole (what is recorded is written again from
/// it, so nothing but the line's fields reaches the game log), played by
/// the exported players from the exported opening and seed on the
/// standard board, with legal moves and a result that follows from them
/// or from a forfeit of the side to move (either side, before the first
/// move after the opening: `newgame` can fail); the accuracy and slips are
/// judged again here, never taken from the task. Why not, in words.
pub fn checked(
    game: &GameRow,
    names: (&str, &str),
    played: &Played,
    judge: &mut connect4::search::verdict::Judge,
) -> Result<Played, Untrue> {
    use connect4_match::ending::Reason;
    let mut line: connect4_match::log::GameLine =
        serde_json::from_str(&played.line).map_err(Untrue::Unreadable)?;
    let standard = connect4::Rules::STANDARD.to_string();
    let expected = [
        ("first player", line.first.clone(), names.0),
        ("second player", line.second.clone(), names.1),
        ("opening", line.opening.to_string(), game.opening.as_str()),
        ("rules", line.rules.to_string(), standard.as_str()),
    ];
    for (what, said, wanted) in expected {
        if said != wanted {
            let wanted = wanted.to_string();
            return Err(Untrue::Other { what, said, wanted });
        }
    }
    // The `newgame` seed the league's play gives the game (see games::play).
    let seed = connect4::openings::game_seed(game.seed as u64, game.id as u64);
    if line.seed != seed {
        return Err(Untrue::Seed {
            said: line.seed,
            wanted: seed,
        });
    }
    line.check()?;
    let position =
        connect4::Game::from_moves(connect4::Rules::STANDARD, &line.moves).map_err(|source| {
            Untrue::Moves {
                moves: line.moves.clone(),
                source,
            }
        })?;
    match line.reason {
        Reason::Adjudicated => return Err(Untrue::Adjudicated),
        reason
            if reason.is_forfeit()
                && line.moves.len() > line.opening.len()
                && line.result.loser() != Some(position.side_to_move()) =>
        {
            return Err(Untrue::NotTheMoversForfeit {
                result: line.result,
                reason,
            });
        }
        _ => {}
    }
    (line.game, line.pair, line.run) = (game.id as u64, game.id as u64, "league".into());
    let (accuracy, slips) = crate::games::judged(judge, &line);
    Ok(Played {
        result: line.result,
        reason: line.reason,
        accuracy,
        slips,
        line: serde_json::to_string(&line).map_err(Untrue::Unwritable)?,
    })
}

/// Records the results in `files` in the order of their games, each game
/// once and only as [`checked`] finds it, moving the ratings and
/// appending each to the game log.
pub fn record(table: &Table, files: &[&Path]) -> Result<Recorded> {
    let mut results: Vec<TaskResult> = Vec::new();
    let mut unreadable = 0;
    for file in files {
        let (read, bad) = results_in(file)?;
        results.extend(read);
        unreadable += bad;
    }
    results.sort_by_key(|r| r.game);
    results.dedup_by_key(|r| r.game);
    let (unplayed, players) = {
        let store = table.store.lock().unwrap_or_else(|e| e.into_inner());
        (store.unplayed()?, store.players()?)
    };
    let label = |id| players.iter().find(|p| p.id == id).map(games::label);
    let mut judge = games::judge();
    let mut recorded = Recorded {
        unreadable,
        ..Recorded::default()
    };
    for r in &results {
        let Some(game) = unplayed.iter().find(|g| g.id == r.game) else {
            recorded.skipped += 1;
            continue;
        };
        let (Some(first), Some(second)) = (label(game.first), label(game.second)) else {
            recorded.skipped += 1;
            continue;
        };
        match checked(game, (&first, &second), &r.played, &mut judge) {
            Ok(played) if games::record(table, game, &played)? => recorded.new += 1,
            Ok(_) => recorded.skipped += 1,
            Err(why) => {
                eprintln!(
                    "league: game {} of the results is refused and stays to play: {why}",
                    r.game
                );
                recorded.refused += 1;
            }
        }
    }
    Ok(recorded)
}

#[cfg(test)]
mod tests {
    use super::*;
    use connect4_match::ending::{GameResult, Reason};

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("c4-batch-{name}-{}", std::process::id()));
        std::fs::remove_dir_all(&dir).ok();
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn result_line(game: i64) -> String {
        let played = Played {
            result: GameResult::FirstWon,
            reason: Reason::Line,
            line: "{}".into(),
            accuracy: [(1, 1), (1, 0)],
            slips: Vec::new(),
        };
        serde_json::to_string(&TaskResult { game, played }).unwrap()
    }

    /// A task's game as the arena would log it, with `moves`, `result`
    /// and `reason` as given.
    fn task_game(moves: &str, result: &str, reason: &str, detail: Option<&str>) -> Played {
        let mut line = serde_json::json!({
            "run": "league", "game": 7, "pair": 7, "first": "alice v1", "second": "random",
            "rules": connect4::Rules::STANDARD.to_string(), "opening": "44", "moves": moves,
            "result": result, "reason": reason,
            "seed": connect4::openings::game_seed(5, 7), "plies": [],
        });
        if let Some(d) = detail {
            line["detail"] = d.into();
        }
        Played {
            result: GameResult::FirstWon,
            reason: Reason::Line,
            line: line.to_string(),
            accuracy: [(40, 40), (0, 0)],
            slips: Vec::new(),
        }
    }

    /// Issue #69, item 3: `--record` took a task's results at their word
    /// (10 of 12 games recorded with impossible moves; forged lines with
    /// newlines put fake games in `games.jsonl`). Now each is replayed.
    #[test]
    fn a_forged_result_is_refused_and_a_true_one_is_judged_again() {
        let game = GameRow {
            id: 7,
            first: 1,
            second: 2,
            kind: crate::kinds::GameKind::Ladder,
            opening: "44".parse().unwrap(),
            seed: 5,
        };
        let names = ("alice v1", "random");
        let mut judge = crate::games::judge();
        let refused = |played: &Played, judge: &mut connect4::search::verdict::Judge| {
            checked(&game, names, played, judge)
                .unwrap_err()
                .to_string()
        };
        // Eight moves into one column; a line claimed where there is none;
        // a forfeit of the side that was not to move; another opening, or
        // another player.
        let e = refused(&task_game("4444444411", "1-0", "line", None), &mut judge);
        assert!(e.contains("4444444411"), "{e}");
        let e = refused(&task_game("441122", "1-0", "line", None), &mut judge);
        assert!(e.contains("does not fit"), "{e}");
        let e = refused(&task_game("44112", "0-1", "time", None), &mut judge);
        assert!(e.contains("not a forfeit of the side to move"), "{e}");
        let e = refused(&task_game("33112", "0-1", "time", None), &mut judge);
        assert!(e.contains("opening"), "{e}");
        let mut other = task_game("4411223", "1-0", "line", None);
        other.line = other.line.replace("alice v1", "perfect");
        assert!(refused(&other, &mut judge).contains("first player is 'perfect'"));
        let mut reseeded = task_game("4411223", "1-0", "line", None);
        reseeded.line = reseeded.line.replace(
            &format!("\"seed\":{}", connect4::openings::game_seed(5, 7)),
            "\"seed\":5",
        );
        assert!(refused(&reseeded, &mut judge).contains("its seed is 5"));
        // A true game: recorded from its line, its accuracy judged here,
        // its line written again as one line whatever its detail holds.
        let forged_detail = "x\n{\"game\": 99}\n";
        let true_game = task_game("441122", "0-1", "crash", Some(forged_detail));
        let played = checked(&game, names, &true_game, &mut judge).unwrap();
        assert_eq!(
            (played.result, played.reason),
            (GameResult::SecondWon, Reason::Crash)
        );
        assert_ne!(played.accuracy, [(40, 40), (0, 0)]);
        assert!(!played.line.contains('\n'), "{}", played.line);
        let won = checked(
            &game,
            names,
            &task_game("4455667", "1-0", "line", None),
            &mut judge,
        );
        assert_eq!(won.unwrap().result, GameResult::FirstWon);
    }

    #[test]
    fn a_line_a_killed_task_cut_short_is_counted_and_the_next_starts_afresh() {
        let dir = scratch("cut");
        let (results, exported) = (dir.join("1.jsonl"), dir.join("games.jsonl"));
        std::fs::write(&exported, "").unwrap();
        let cut = result_line(2);
        std::fs::write(
            &results,
            format!("{}\n{}", result_line(1), &cut[..cut.len() / 2]),
        )
        .unwrap();
        let (read, bad) = results_in(&results).unwrap();
        assert_eq!((read.len(), bad), (1, 1));
        let mut file = open_results(&results, &exported).unwrap();
        file.write_all(format!("{}\n", result_line(2)).as_bytes())
            .unwrap();
        drop(file);
        let (read, bad) = results_in(&results).unwrap();
        let games: Vec<i64> = read.iter().map(|r| r.game).collect();
        assert_eq!((games, bad), (vec![1, 2], 1));
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn a_line_of_the_games_to_play_that_cannot_be_read_is_refused_by_number() {
        let dir = scratch("bad");
        let results = dir.join("1.jsonl");
        std::fs::write(&results, format!("{}\n\nnot json\n", result_line(1))).unwrap();
        let error = format!("{:#}", lines::<TaskResult>(&results).unwrap_err());
        assert!(error.contains("1.jsonl line 3"), "{error}");
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn the_results_may_not_be_the_games_to_play() {
        let dir = scratch("same");
        let exported = dir.join("games.jsonl");
        std::fs::write(&exported, "{}\n").unwrap();
        let error = open_results(&exported, &exported).unwrap_err().to_string();
        assert!(error.contains("is the --play file"), "{error}");
        assert_eq!(std::fs::read_to_string(&exported).unwrap(), "{}\n");
        std::fs::remove_dir_all(dir).ok();
    }
}
