//! The games of the logs given to `serve`: a list to choose from, and each
//! game move by move with the solver's verdict on every move. `serve`
//! judges every game of its logs once, in the background, and keeps the
//! verdicts (the list says how far it is); a game opened before its turn
//! is judged then. A log that is still being written (a run under way) is
//! read again whenever its size or time changes: a logged game never
//! changes, so the verdicts kept stay true.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use anyhow::Result;
use connect4::Game;
use connect4::book::Book;
use connect4::search::verdict::{Judge, first_lost};
use serde_json::{Value, json};

use crate::error::ApiError;
use crate::error::ApiResult;
use connect4_match::log::GameLine;

/// The solver's time for one position of a replayed game.
const POSITION_CAP: Duration = Duration::from_secs(2);
/// The solver's time for one game.
const GAME_CAP: Duration = Duration::from_secs(20);
/// The games (log from 1, game) a judging thread could not judge: a line
/// whose rules or moves are not a game.
type Failed = HashSet<(usize, u64)>;

/// Games whose verdicts are kept at most (then the cache starts again);
/// the background judges no more than these.
const CACHED: usize = 10_000;
/// The solver's table of a judge, in MiB.
const JUDGE_MB: usize = 64;

/// A file's identity and state: device and inode (a log replaced by a
/// rename is another file), size and modification time.
type Stamp = (u64, u64, u64, SystemTime);

/// One log as last read.
struct LogFile {
    path: PathBuf,
    /// The file's stamp when read.
    stamp: Option<Stamp>,
    /// Where reading stopped.
    tail: connect4_match::log::Tail,
    games: Arc<Vec<GameLine>>,
}

impl LogFile {
    /// Reads the log at `path` whole.
    fn open(path: &std::path::Path) -> Result<LogFile> {
        let mut log = LogFile {
            path: path.to_path_buf(),
            stamp: None,
            tail: connect4_match::log::Tail::default(),
            games: Arc::new(Vec::new()),
        };
        log.read_whole(log.stamp_now())?;
        Ok(log)
    }

    /// Reads the file whole, from a new tail, as it was at `stamp`; on an
    /// error the games read before stay.
    fn read_whole(&mut self, stamp: Option<Stamp>) -> Result<()> {
        let mut tail = connect4_match::log::Tail::default();
        let mut games = Vec::new();
        tail.read_into(&self.path, false, &mut games)?;
        self.tail = tail;
        self.games = Arc::new(games);
        self.stamp = stamp;
        Ok(())
    }

    /// The file's stamp now.
    fn stamp_now(&self) -> Option<Stamp> {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(&self.path).ok()?;
        Some((meta.dev(), meta.ino(), meta.len(), meta.modified().ok()?))
    }

    /// Takes the lines added since the last read if the file changed (the
    /// whole file again if it is another file or shorter than before); a
    /// file that cannot be read now keeps the games read before.
    fn refresh(&mut self) {
        let stamp = self.stamp_now();
        if stamp.is_none() || stamp == self.stamp {
            return;
        }
        let same_file =
            matches!((stamp, self.stamp), (Some(a), Some(b)) if (a.0, a.1) == (b.0, b.1));
        let mut added = Vec::new();
        if same_file && self.tail.read_into(&self.path, false, &mut added).is_ok() {
            if !added.is_empty() {
                Arc::make_mut(&mut self.games).extend(added);
            }
            self.stamp = stamp;
            return;
        }
        // Another file, or this one shorter: read it whole again. A file
        // that cannot be read now keeps the games read before.
        self.read_whole(stamp).ok();
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
            logs.push(LogFile::open(path)?);
        }
        Ok(Library {
            logs: Mutex::new(logs),
            judge: Mutex::new(new_judge()),
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
    pub fn log(&self, log: usize) -> Result<(PathBuf, Arc<Vec<GameLine>>), ApiError> {
        let mut logs = self.logs.lock().unwrap_or_else(|e| e.into_inner());
        let count = logs.len();
        let file = logs
            .get_mut(log.wrapping_sub(1))
            .ok_or(ApiError::NotGiven {
                what: "log",
                number: log as u64,
                count,
            })?;
        file.refresh();
        Ok((file.path.clone(), Arc::clone(&file.games)))
    }

    /// Judges every game of every log in the background, on as many threads
    /// as the machine has cores, each with a judge of its own (a request
    /// for a game not judged yet does not wait for them), and keeps the
    /// verdicts; then watches the logs for new games. Runs as long as the
    /// server; stops judging once [`CACHED`] games are kept (the others
    /// are judged when opened).
    pub fn judge_all(&self) {
        self.on_every_core(|share, judge, failed| {
            // Background work gives way to the requests.
            connect4::search::priority::give_way();
            while let Some(judged) = self.judge_share(judge, share, failed, &|| {}) {
                if judged == 0 {
                    std::thread::sleep(Duration::from_secs(1));
                }
            }
        });
    }

    /// Judges every game of every log once, on as many threads as the
    /// machine has cores, calling `on_game` after each game.
    pub fn judge_once(&self, on_game: &(dyn Fn() + Sync)) {
        self.on_every_core(|share, judge, failed| {
            self.judge_share(judge, share, failed, on_game);
        });
    }

    /// Runs `work` on as many threads as the machine has cores, each given
    /// its share (its index, the number of threads), a judge and a set of
    /// the games that could not be judged; returns when all are done.
    fn on_every_core(&self, work: impl Fn((usize, usize), &mut Judge, &mut Failed) + Sync) {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        std::thread::scope(|scope| {
            for index in 0..threads {
                let work = &work;
                scope.spawn(move || {
                    let (mut judge, mut failed) = (new_judge(), HashSet::new());
                    work((index, threads), &mut judge, &mut failed);
                });
            }
        });
    }

    /// Judges the games not judged yet whose place among all the logs'
    /// games is `share.0` modulo `share.1`, leaving out those that failed
    /// before; how many it judged, or `None` once [`CACHED`] are kept.
    fn judge_share(
        &self,
        judge: &mut Judge,
        (k, n): (usize, usize),
        failed: &mut Failed,
        on_game: &(dyn Fn() + Sync),
    ) -> Option<usize> {
        let mut judged = 0;
        let logs = self.logs();
        let all = logs
            .iter()
            .enumerate()
            .flat_map(|(i, (_, games))| games.iter().map(move |line| (i + 1, line)));
        for (log, line) in all.skip(k).step_by(n) {
            let key = (log, line.game);
            if failed.contains(&key) || self.is_cached(key) {
                continue;
            }
            if self.cache.lock().unwrap_or_else(|e| e.into_inner()).len() >= CACHED {
                return None;
            }
            match judged_line(judge, line) {
                Ok(value) => self.keep(key, value),
                Err(_) => _ = failed.insert(key),
            }
            judged += 1;
            on_game();
        }
        Some(judged)
    }

    /// Whether the verdicts of `key` (log from 1, game) are kept.
    fn is_cached(&self, key: (usize, u64)) -> bool {
        let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache.contains_key(&key)
    }

    /// The verdicts kept of `key` (log from 1, game).
    fn cached(&self, key: (usize, u64)) -> Option<Value> {
        let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache.get(&key).cloned()
    }

    /// Keeps the verdicts of `key`, starting again when [`CACHED`] are.
    fn keep(&self, key: (usize, u64), value: Value) {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if cache.len() >= CACHED {
            cache.clear();
        }
        cache.insert(key, value);
    }

    /// How many games of the `log`-th log (from 1) are judged.
    fn judged_count(&self, log: usize) -> usize {
        let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache.keys().filter(|(l, _)| *l == log).count()
    }

    /// Every log's games, for the list, and how many are judged.
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
                json!({
                    "log": i + 1, "name": path.display().to_string(), "games": games,
                    "judged": self.judged_count(i + 1),
                })
            })
            .collect();
        json!({ "logs": logs })
    }

    /// Game `game` of the `log`-th log (from 1), with its verdicts.
    pub fn game(&self, log: usize, game: u64) -> ApiResult {
        let (_, games) = self.log(log)?;
        let line = games
            .iter()
            .find(|g| g.game == game)
            .ok_or(ApiError::NoGame {
                log: log as u64,
                game,
            })?;
        if let Some(v) = self.cached((log, game)) {
            return Ok(v);
        }
        let value = judged_line(
            &mut self.judge.lock().unwrap_or_else(|e| e.into_inner()),
            line,
        )?;
        self.keep((log, game), value.clone());
        Ok(value)
    }
}

/// A judge of replayed games: the shipped book, then the solver under the
/// caps above.
fn new_judge() -> Judge {
    Judge::new(JUDGE_MB, Some(Book::shipped()), POSITION_CAP, GAME_CAP)
}

/// A game's line with `judge`'s verdict on each move.
fn judged_line(judge: &mut Judge, line: &GameLine) -> ApiResult {
    let rules = line.rules;
    let game = Game::from_moves(rules, &line.moves).map_err(|e| ApiError::BadGame {
        game: line.game,
        why: e.to_string(),
    })?;
    let moves = game.moves().to_vec();
    let verdicts = judge.game(rules, &moves);
    // The opening's moves are no player's: the first lost value of
    // each side is looked for after them.
    let played = &verdicts[line.opening.len().min(verdicts.len())..];
    let first_lost: Vec<Option<u32>> = [true, false]
        .iter()
        .map(|&first| first_lost(played, first).map(|v| v.ply))
        .collect();
    Ok(json!({
        "game": line.game, "first": line.first, "second": line.second,
        "rules": line.rules.to_string(), "columns": rules.columns(), "rows": rules.rows(),
        "opening": line.opening.len(), "moves": moves, "result": line.result,
        "reason": line.reason, "detail": line.detail, "test": line.test,
        "verdicts": verdicts, "first_lost": first_lost,
        // Whether each player (first, second) numbers columns from 0.
        "zero_based": [line.zero_based.contains(&line.first), line.zero_based.contains(&line.second)],
    }))
}
