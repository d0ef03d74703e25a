//! The games of the logs given to `serve`: a list to choose from, and each
//! game move by move with the solver's verdict on every move, computed once
//! per game and kept. A log that is still being written (a run under way)
//! is read again whenever its size or time changes: a logged game never
//! changes, so the verdicts kept stay true.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use anyhow::Result;
use connect4::book::Book;
use connect4::search::verdict::{Judge, first_lost};
use connect4::{Game, Rules};
use serde_json::{Value, json};

use super::Reply;
use crate::log::GameLine;

/// The solver's time for one position of a replayed game.
const POSITION_CAP: Duration = Duration::from_secs(2);
/// The solver's time for one game.
const GAME_CAP: Duration = Duration::from_secs(20);
/// Games whose verdicts are kept at most (then the cache starts again).
const CACHED: usize = 2000;

/// One log as last read.
struct LogFile {
    path: PathBuf,
    /// Size and modification time when read.
    stamp: Option<(u64, SystemTime)>,
    games: Arc<Vec<GameLine>>,
}

impl LogFile {
    /// The file's size and modification time.
    fn stamp_now(&self) -> Option<(u64, SystemTime)> {
        let meta = std::fs::metadata(&self.path).ok()?;
        Some((meta.len(), meta.modified().ok()?))
    }

    /// Reads the file again if it changed since; a file that cannot be
    /// read now keeps the games read before.
    fn refresh(&mut self) {
        let stamp = self.stamp_now();
        if stamp.is_some()
            && stamp != self.stamp
            && let Ok(games) = crate::log::read(&self.path)
        {
            self.games = Arc::new(games);
            self.stamp = stamp;
        }
    }
}

/// The logs, and the verdicts computed so far.
pub struct Library {
    logs: Mutex<Vec<LogFile>>,
    judge: Mutex<Judge>,
    cache: Mutex<HashMap<(usize, u64), Value>>,
}

impl Library {
    /// Reads every log in `paths` (a missing one is an error here: the
    /// page would show nothing of it).
    pub fn load(paths: &[PathBuf]) -> Result<Library> {
        let mut logs = Vec::new();
        for path in paths {
            if !path.exists() {
                anyhow::bail!("--log {}: no such file", path.display());
            }
            let mut log = LogFile {
                path: path.clone(),
                stamp: None,
                games: Arc::new(crate::log::read(path)?),
            };
            log.stamp = log.stamp_now();
            logs.push(log);
        }
        Ok(Library {
            logs: Mutex::new(logs),
            judge: Mutex::new(Judge::new(
                64,
                Some(Book::shipped()),
                POSITION_CAP,
                GAME_CAP,
            )),
            cache: Mutex::new(HashMap::new()),
        })
    }

    /// The logs' names and games as they are now (each read again if it
    /// changed).
    pub fn logs(&self) -> Vec<(PathBuf, Arc<Vec<GameLine>>)> {
        let mut logs = self.logs.lock().unwrap_or_else(|e| e.into_inner());
        logs.iter_mut()
            .map(|log| {
                log.refresh();
                (log.path.clone(), Arc::clone(&log.games))
            })
            .collect()
    }

    /// The `log`-th log (from 1) as it is now.
    pub fn log(&self, log: usize) -> Result<(PathBuf, Arc<Vec<GameLine>>), String> {
        let mut logs = self.logs.lock().unwrap_or_else(|e| e.into_inner());
        let count = logs.len();
        let file = logs.get_mut(log.wrapping_sub(1)).ok_or_else(|| {
            format!("log {log}: {count} log(s) were given to serve, numbered from 1")
        })?;
        file.refresh();
        Ok((file.path.clone(), Arc::clone(&file.games)))
    }

    /// Every log's games, for the list.
    pub fn list(&self) -> Value {
        let logs: Vec<Value> = self
            .logs()
            .iter()
            .enumerate()
            .map(|(i, (path, games))| {
                let mut sorted: Vec<&GameLine> = games.iter().collect();
                sorted.sort_by_key(|g| g.game);
                let games: Vec<Value> = sorted
                    .iter()
                    .map(|g| {
                        json!({
                            "game": g.game, "first": g.first, "second": g.second,
                            "result": g.result, "reason": g.reason, "moves": g.moves.len(),
                            "test": g.test,
                        })
                    })
                    .collect();
                json!({ "log": i + 1, "name": path.display().to_string(), "games": games })
            })
            .collect();
        json!({ "logs": logs })
    }

    /// Game `game` of the `log`-th log (from 1), with its verdicts.
    pub fn game(&self, log: usize, game: u64) -> Reply {
        let (_, games) = self.log(log)?;
        let line = games
            .iter()
            .find(|g| g.game == game)
            .ok_or_else(|| format!("log {log} has no game {game}"))?;
        if let Some(v) = self
            .cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&(log, game))
        {
            return Ok(v.clone());
        }
        let value = self.judged(line)?;
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if cache.len() >= CACHED {
            cache.clear();
        }
        cache.insert((log, game), value.clone());
        Ok(value)
    }

    /// A game's line with the solver's verdict on each move.
    fn judged(&self, line: &GameLine) -> Reply {
        let rules: Rules = line
            .rules
            .parse()
            .map_err(|e| format!("game {}: rules '{}': {e}", line.game, line.rules))?;
        let game = Game::from_move_string(rules, &line.moves)
            .map_err(|e| format!("game {}: {e}", line.game))?;
        let moves = game.moves().to_vec();
        let verdicts = self
            .judge
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .game(rules, &moves);
        // The opening's moves are no player's: the first lost value of
        // each side is looked for after them.
        let played = &verdicts[line.opening.len().min(verdicts.len())..];
        let first_lost: Vec<Option<u32>> = [true, false]
            .iter()
            .map(|&first| first_lost(played, first).map(|v| v.ply))
            .collect();
        Ok(json!({
            "game": line.game, "first": line.first, "second": line.second,
            "rules": line.rules, "columns": rules.columns(), "rows": rules.rows(),
            "opening": line.opening.len(), "moves": moves, "result": line.result,
            "reason": line.reason, "detail": line.detail, "test": line.test,
            "verdicts": verdicts, "first_lost": first_lost,
        }))
    }
}
