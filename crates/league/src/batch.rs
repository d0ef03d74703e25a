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
}

/// A game to play, with everything a task needs to play it.
#[derive(Clone, Debug, Deserialize, PartialEq, Serialize)]
pub struct Exported {
    /// The game's number.
    pub game: i64,
    /// `calibration`, `ladder` or `final`.
    pub kind: String,
    /// The side moving first.
    pub first: Side,
    /// The side moving second.
    pub second: Side,
    /// The opening's move string.
    pub opening: String,
    /// The `newgame` seed.
    pub seed: i64,
}

impl Exported {
    fn row(&self) -> GameRow {
        GameRow {
            id: self.game,
            first: self.first.id,
            second: self.second.id,
            kind: self.kind.clone(),
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
/// line each, written whole then renamed into place); how many.
pub fn export(store: &Store, path: &Path) -> Result<usize> {
    let players = store.players()?;
    let side = |id: i64| -> Result<Side> {
        let p: &Player = players
            .iter()
            .find(|p| p.id == id)
            .with_context(|| format!("no player {id} in the league"))?;
        Ok(Side {
            id,
            name: games::label(p),
            spec: p.spec.clone(),
        })
    };
    let mut text = String::new();
    let unplayed = store.unplayed()?;
    for g in &unplayed {
        let exported = Exported {
            game: g.id,
            kind: g.kind.clone(),
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
/// that `results` does not hold yet, on `concurrency` threads, appending
/// each to `results` as it ends; how many it played.
pub fn play(
    exported: &Path,
    shard: Shard,
    results: &Path,
    concurrency: usize,
    stop: &AtomicBool,
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
        let spec = |side: &Side| -> Result<_> {
            let mut spec: connect4_match::spec::EngineSpec = side
                .spec
                .parse()
                .with_context(|| format!("game {}: {}'s spec", g.game, side.name))?;
            spec.name = side.name.clone();
            Ok(spec)
        };
        let Some(played) = games::play(&g.row(), spec(&g.first)?, spec(&g.second)?, judge, stop)?
        else {
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
}

/// Records the results in `files` in the order of their games, each game
/// once, moving the ratings and appending each to the game log.
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
    let unplayed = table
        .store
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .unplayed()?;
    let mut recorded = Recorded {
        unreadable,
        ..Recorded::default()
    };
    for r in &results {
        let game = unplayed.iter().find(|g| g.id == r.game);
        match game {
            Some(game) if games::record(table, game, &r.played)? => recorded.new += 1,
            _ => recorded.skipped += 1,
        }
    }
    Ok(recorded)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("c4-batch-{name}-{}", std::process::id()));
        std::fs::remove_dir_all(&dir).ok();
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn result_line(game: i64) -> String {
        let played = Played {
            result: "1-0".into(),
            reason: "line".into(),
            line: "{}".into(),
            accuracy: [(1, 1), (1, 0)],
            slips: Vec::new(),
        };
        serde_json::to_string(&TaskResult { game, played }).unwrap()
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
