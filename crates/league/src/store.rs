//! The league's state in SQLite (`league.db` in the league's folder): the
//! players (every submission of every student, and the anchors), the
//! games (scheduled, then played), and the ratings. A game's result and
//! the ratings it moves are written in one transaction, and only while
//! the game is still unplayed: a league killed at any moment (even by
//! `kill -9`) restarts with nothing lost and nothing counted twice, the
//! games it had scheduled but not finished played again.
//!
//! It is an ordinary SQLite file: `sqlite3 league.db 'select * from
//! players'` queries it. Its schema has a version (`PRAGMA user_version`):
//! opening a database of an older version brings it to this one, step by
//! step, each step in a transaction of its own; one of a newer version is
//! refused with what it is. Its words (a game's kind and result, a
//! submission's state) are read into types where the rows are read.

use std::path::Path;

use connect4::MoveList;
use connect4_match::ending::{GameResult, Reason};
use rusqlite::{Connection, OptionalExtension, params};

use crate::kinds::{GameKind, State};
use crate::rating::Rating;

/// What went wrong with the league's database.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite said no.
    #[error("the league's database {path}: {source}")]
    Sqlite {
        /// The database file.
        path: String,
        /// SQLite's error.
        source: rusqlite::Error,
    },
    /// A database a newer program wrote.
    #[error(
        "the league's database {path} has schema version {version}, and this program knows \
         versions up to {known}: open it with the connect4 that wrote it, or a newer one"
    )]
    Newer {
        /// The database file.
        path: String,
        /// Its schema's version.
        version: i64,
        /// The newest version this program knows.
        known: i64,
    },
    /// A database of an older schema, opened to be read only (it cannot
    /// be brought up to date).
    #[error(
        "the league's database {path} has schema version {version}, older than this \
         program's {known}: run the league on its folder once to bring it up to date"
    )]
    Older {
        /// The database file.
        path: String,
        /// Its schema's version.
        version: i64,
        /// This program's version.
        known: i64,
    },
}

/// A player of the league: one submission of one student, or an anchor.
#[derive(Clone, Debug, PartialEq)]
pub struct Player {
    /// Its number in the database.
    pub id: i64,
    /// The student (the submission folder's name), or the anchor's name.
    pub student: String,
    /// Whether it is an anchor: a reference whose rating never moves.
    pub anchor: bool,
    /// The student's submission number, from 1 (0 for an anchor).
    pub version: i64,
    /// The hash of the submission's files.
    pub fingerprint: String,
    /// How to run it, as an engine spec.
    pub spec: String,
    /// Whether it plays, was replaced by a later submission, or was
    /// refused.
    pub state: State,
    /// Why it was rejected.
    pub note: Option<String>,
    /// Its rating.
    pub rating: Rating,
}

/// A game of the league.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRow {
    /// Its number, the log's game number.
    pub id: i64,
    /// The player moving first.
    pub first: i64,
    /// The player moving second.
    pub second: i64,
    /// What it is for: the anchors' calibration, a ladder round, the
    /// final round.
    pub kind: GameKind,
    /// The opening's moves.
    pub opening: MoveList,
    /// The `newgame` seed.
    pub seed: i64,
}

/// A played game's outcome as it is recorded.
#[derive(Clone, Debug, PartialEq, serde::Deserialize, serde::Serialize)]
pub struct Played {
    /// The result, the first player's first.
    pub result: GameResult,
    /// Why it ended.
    pub reason: Reason,
    /// The game's log line (JSON), with every move.
    pub line: String,
    /// Each side's moves the solver judged, and how many kept the value
    /// (first, second).
    pub accuracy: [(i64, i64); 2],
    /// The moves that gave the value away.
    pub slips: Vec<Slip>,
}

/// A move that gave the position's value away, as the solver judged it.
#[derive(Clone, Debug, PartialEq, serde::Deserialize, serde::Serialize)]
pub struct Slip {
    /// The move's index in the game, from 0 (even: the first player's).
    pub ply: i64,
    /// The column played, from 0.
    pub played: i64,
    /// A column that kept the value, from 0, if the solver found one in
    /// time.
    pub keeping: Option<i64>,
    /// The value before the move, for the side that played it: `win`,
    /// `draw`.
    pub before: String,
    /// The value after it: `draw`, `loss`.
    pub after: String,
}

/// The league's database.
pub struct Store {
    connection: Connection,
    path: String,
}

/// The connection's settings, set at each opening.
const SETTINGS: &str = "
PRAGMA journal_mode = WAL;
PRAGMA synchronous = FULL;
PRAGMA foreign_keys = ON;
";

/// The schema's steps: step `i` takes a database of version `i` to
/// version `i + 1`. Version 0 is a new file, or a league's database from
/// before the schema had a version (to 2026-12-02), which the first
/// step's `IF NOT EXISTS` leaves as it is.
const STEPS: [&str; 1] = [SCHEMA_1];

/// The version of the schema this program writes.
pub const SCHEMA_VERSION: i64 = STEPS.len() as i64;

/// Version 1: the players, the games, the moves that gave the value away,
/// the students' numbers and the notes.
const SCHEMA_1: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS players (
    id INTEGER PRIMARY KEY,
    student TEXT NOT NULL,
    anchor INTEGER NOT NULL,
    version INTEGER NOT NULL,
    fingerprint TEXT NOT NULL,
    spec TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('active', 'replaced', 'rejected')),
    note TEXT,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    entered TEXT NOT NULL DEFAULT (datetime('now'))
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    first INTEGER NOT NULL REFERENCES players(id),
    second INTEGER NOT NULL REFERENCES players(id),
    kind TEXT NOT NULL CHECK (kind IN ('calibration', 'ladder', 'final')),
    opening TEXT NOT NULL,
    seed INTEGER NOT NULL,
    result TEXT,
    reason TEXT,
    line TEXT,
    judged_first INTEGER, kept_first INTEGER,
    judged_second INTEGER, kept_second INTEGER,
    played TEXT,
    played_order INTEGER UNIQUE
);
CREATE INDEX IF NOT EXISTS unplayed ON games(id) WHERE result IS NULL;
CREATE TABLE IF NOT EXISTS slips (
    game INTEGER NOT NULL REFERENCES games(id),
    player INTEGER NOT NULL REFERENCES players(id),
    ply INTEGER NOT NULL,
    played INTEGER NOT NULL,
    keeping INTEGER,
    before TEXT NOT NULL,
    after TEXT NOT NULL,
    PRIMARY KEY (game, ply)
);
CREATE INDEX IF NOT EXISTS slips_of ON slips(player);
CREATE TABLE IF NOT EXISTS students (
    student TEXT PRIMARY KEY,
    slot INTEGER NOT NULL UNIQUE
);
";

impl Store {
    /// Opens (or creates) the database at `path`.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let shown = path.display().to_string();
        let fail = |source| StoreError::Sqlite {
            path: shown.clone(),
            source,
        };
        let mut connection = Connection::open(path).map_err(fail)?;
        connection
            .busy_timeout(std::time::Duration::from_secs(30))
            .map_err(fail)?;
        connection.execute_batch(SETTINGS).map_err(fail)?;
        bring_up_to_date(&mut connection, &shown)?;
        Ok(Store {
            connection,
            path: shown,
        })
    }

    /// Opens the database at `path` to read it only, as the league's page
    /// does: a missing database is an error, and nothing read through it
    /// can write.
    pub fn open_read_only(path: &Path) -> Result<Store, StoreError> {
        use rusqlite::OpenFlags;
        let shown = path.display().to_string();
        let fail = |source| StoreError::Sqlite {
            path: shown.clone(),
            source,
        };
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let connection = Connection::open_with_flags(path, flags).map_err(fail)?;
        connection
            .busy_timeout(std::time::Duration::from_secs(5))
            .map_err(fail)?;
        let version = version_of(&connection).map_err(fail)?;
        if let Some(e) = unreadable(version, &shown, false) {
            return Err(e);
        }
        Ok(Store {
            connection,
            path: shown,
        })
    }

    fn fail(&self, source: rusqlite::Error) -> StoreError {
        StoreError::Sqlite {
            path: self.path.clone(),
            source,
        }
    }

    /// The rows `sql` selects with `params`, each made by `row`.
    fn rows<T>(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
        row: impl FnMut(&rusqlite::Row) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>, StoreError> {
        let mut statement = self.connection.prepare(sql).map_err(|e| self.fail(e))?;
        let rows = statement.query_map(params, row).map_err(|e| self.fail(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.fail(e))
    }

    /// Every player, oldest first.
    pub fn players(&self) -> Result<Vec<Player>, StoreError> {
        self.rows(
            "SELECT id, student, anchor, version, fingerprint, spec, state, note, mu, sigma \
                 FROM players ORDER BY id",
            [],
            |r| {
                Ok(Player {
                    id: r.get(0)?,
                    student: r.get(1)?,
                    anchor: r.get(2)?,
                    version: r.get(3)?,
                    fingerprint: r.get(4)?,
                    spec: r.get(5)?,
                    state: word(r, 6)?,
                    note: r.get(7)?,
                    rating: Rating {
                        mu: r.get(8)?,
                        sigma: r.get(9)?,
                    },
                })
            },
        )
    }

    /// Adds `player` (its id is given by the database) and returns its id;
    /// an active player replaces the student's earlier active one, whose
    /// unplayed games are dropped.
    pub fn add_player(&mut self, player: &Player) -> Result<i64, StoreError> {
        let tx = self
            .connection
            .transaction()
            .map_err(|e| fail(&self.path, e))?;
        if player.state == State::Active && !player.anchor {
            tx.execute(
                "DELETE FROM games WHERE result IS NULL AND (first IN \
                 (SELECT id FROM players WHERE student = ?1 AND anchor = 0 AND state = 'active') \
                 OR second IN (SELECT id FROM players WHERE student = ?1 AND anchor = 0 AND state = 'active'))",
                params![player.student],
            )
            .map_err(|e| fail(&self.path, e))?;
            tx.execute(
                "UPDATE players SET state = 'replaced' WHERE student = ?1 AND anchor = 0 AND state = 'active'",
                params![player.student],
            )
            .map_err(|e| fail(&self.path, e))?;
        }
        tx.execute(
            "INSERT INTO players (student, anchor, version, fingerprint, spec, state, note, mu, sigma) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                player.student,
                player.anchor,
                player.version,
                player.fingerprint,
                player.spec,
                player.state.as_str(),
                player.note,
                player.rating.mu,
                player.rating.sigma
            ],
        )
        .map_err(|e| fail(&self.path, e))?;
        let id = tx.last_insert_rowid();
        tx.commit().map_err(|e| fail(&self.path, e))?;
        Ok(id)
    }

    /// Student `student`'s number (from 0, in the order students first
    /// came), given now if they have none: the user their code runs as.
    pub fn slot_of(&self, student: &str) -> Result<u32, StoreError> {
        self.connection
            .execute(
                "INSERT OR IGNORE INTO students (student, slot) \
                 VALUES (?1, (SELECT COALESCE(MAX(slot) + 1, 0) FROM students))",
                params![student],
            )
            .map_err(|e| self.fail(e))?;
        self.connection
            .query_row(
                "SELECT slot FROM students WHERE student = ?1",
                params![student],
                |r| r.get(0),
            )
            .map_err(|e| self.fail(e))
    }

    /// Every student's number (see [`Store::slot_of`]).
    pub fn slots(&self) -> Result<std::collections::BTreeMap<String, u32>, StoreError> {
        Ok(self
            .rows("SELECT student, slot FROM students", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?
            .into_iter()
            .collect())
    }

    /// The value of `key` in the league's notes (what is done once).
    pub fn note(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.connection
            .query_row("SELECT value FROM meta WHERE key = ?1", params![key], |r| {
                r.get(0)
            })
            .optional()
            .map_err(|e| self.fail(e))
    }

    /// Sets `key` to `value` in the league's notes.
    pub fn set_note(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.connection
            .execute(
                "INSERT INTO meta (key, value) VALUES (?1, ?2)                  ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                params![key, value],
            )
            .map(|_| ())
            .map_err(|e| self.fail(e))
    }

    /// Sets the rating of player `id` (the anchors' calibration).
    pub fn set_rating(&self, id: i64, rating: Rating) -> Result<(), StoreError> {
        self.connection
            .execute(
                "UPDATE players SET mu = ?2, sigma = ?3 WHERE id = ?1",
                params![id, rating.mu, rating.sigma],
            )
            .map(|_| ())
            .map_err(|e| self.fail(e))
    }

    /// Schedules `games` (their ids are given by the database).
    pub fn schedule(&mut self, games: &[GameRow]) -> Result<(), StoreError> {
        let tx = self
            .connection
            .transaction()
            .map_err(|e| fail(&self.path, e))?;
        for g in games {
            tx.execute(
                "INSERT INTO games (first, second, kind, opening, seed) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![g.first, g.second, g.kind.as_str(), g.opening.as_str(), g.seed],
            )
            .map_err(|e| fail(&self.path, e))?;
        }
        tx.commit().map_err(|e| fail(&self.path, e))
    }

    /// The games scheduled and not played yet, oldest first.
    pub fn unplayed(&self) -> Result<Vec<GameRow>, StoreError> {
        self.games_where("result IS NULL")
    }

    /// The games played of `kind`, oldest first.
    pub fn played_lines(&self, kind: Option<GameKind>) -> Result<Vec<String>, StoreError> {
        self.rows(
            "SELECT line FROM games WHERE result IS NOT NULL AND (?1 IS NULL OR kind = ?1) \
                 ORDER BY id",
            params![kind.map(GameKind::as_str)],
            |r| r.get::<_, String>(0),
        )
    }

    fn games_where(&self, condition: &str) -> Result<Vec<GameRow>, StoreError> {
        let sql = format!(
            "SELECT id, first, second, kind, opening, seed FROM games WHERE {condition} ORDER BY id"
        );
        self.rows(&sql, [], |r| {
            Ok(GameRow {
                id: r.get(0)?,
                first: r.get(1)?,
                second: r.get(2)?,
                kind: word(r, 3)?,
                opening: word(r, 4)?,
                seed: r.get(5)?,
            })
        })
    }

    /// Records game `game` as `played` and, for a ladder game, moves the
    /// ratings of its players (not an anchor's) to `ratings` (first,
    /// second): in one transaction, and only if the game was still
    /// unplayed (a game is never counted twice). Whether it was recorded.
    pub fn record(
        &mut self,
        game: &GameRow,
        played: &Played,
        ratings: Option<(Rating, Rating)>,
    ) -> Result<bool, StoreError> {
        let tx = self
            .connection
            .transaction()
            .map_err(|e| fail(&self.path, e))?;
        let changed = tx
            .execute(
                "UPDATE games SET result = ?2, reason = ?3, line = ?4, judged_first = ?5, \
                 kept_first = ?6, judged_second = ?7, kept_second = ?8, played = datetime('now'), \
                 played_order = (SELECT COALESCE(MAX(played_order), 0) + 1 FROM games) \
                 WHERE id = ?1 AND result IS NULL",
                params![
                    game.id,
                    played.result.as_str(),
                    played.reason.as_str(),
                    played.line,
                    played.accuracy[0].0,
                    played.accuracy[0].1,
                    played.accuracy[1].0,
                    played.accuracy[1].1
                ],
            )
            .map_err(|e| fail(&self.path, e))?;
        if changed == 1 {
            for slip in &played.slips {
                let player = [game.first, game.second][(slip.ply % 2) as usize];
                tx.execute(
                    "INSERT INTO slips (game, player, ply, played, keeping, before, after) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                    params![
                        game.id,
                        player,
                        slip.ply,
                        slip.played,
                        slip.keeping,
                        slip.before,
                        slip.after
                    ],
                )
                .map_err(|e| fail(&self.path, e))?;
            }
        }
        if changed == 1
            && let Some((a, b)) = ratings
        {
            for (id, r) in [(game.first, a), (game.second, b)] {
                tx.execute(
                    "UPDATE players SET mu = ?2, sigma = ?3 WHERE id = ?1 AND anchor = 0",
                    params![id, r.mu, r.sigma],
                )
                .map_err(|e| fail(&self.path, e))?;
            }
        }
        tx.commit().map_err(|e| fail(&self.path, e))?;
        Ok(changed == 1)
    }

    /// The ladder games played, in the order they were recorded: first,
    /// second, result.
    pub fn ladder_history(&self) -> Result<Vec<(i64, i64, GameResult)>, StoreError> {
        self.history(GameKind::Ladder, "played_order")
    }

    /// The anchors' calibration games played, in the order they were
    /// scheduled: first, second, result.
    pub fn calibration_games(&self) -> Result<Vec<(i64, i64, GameResult)>, StoreError> {
        self.history(GameKind::Calibration, "id")
    }

    /// The games of `kind` played, ordered by the column `order`.
    fn history(
        &self,
        kind: GameKind,
        order: &str,
    ) -> Result<Vec<(i64, i64, GameResult)>, StoreError> {
        let sql = format!(
            "SELECT first, second, result FROM games WHERE kind = ?1 AND result IS NOT NULL \
             ORDER BY {order}"
        );
        self.rows(&sql, params![kind.as_str()], |r| {
            Ok((r.get(0)?, r.get(1)?, word(r, 2)?))
        })
    }

    /// The rating of player `id` now.
    pub fn rating(&self, id: i64) -> Result<Option<Rating>, StoreError> {
        self.connection
            .query_row(
                "SELECT mu, sigma FROM players WHERE id = ?1",
                params![id],
                |r| {
                    Ok(Rating {
                        mu: r.get(0)?,
                        sigma: r.get(1)?,
                    })
                },
            )
            .optional()
            .map_err(|e| self.fail(e))
    }

    /// The games played by the student `student` (every submission), or
    /// by the anchor of that name: the newest `most`, newest first.
    pub fn games_of(
        &self,
        student: &str,
        anchor: bool,
        most: usize,
    ) -> Result<Vec<PlayedGame>, StoreError> {
        let count =
            |r: &rusqlite::Row, i| r.get::<_, Option<i64>>(i).map(Option::unwrap_or_default);
        self.rows(
            "SELECT id, kind, first, second, result, reason, opening, judged_first, kept_first, \
                 judged_second, kept_second FROM games WHERE result IS NOT NULL AND \
                 (first IN (SELECT id FROM players WHERE student = ?1 AND anchor = ?2) \
                 OR second IN (SELECT id FROM players WHERE student = ?1 AND anchor = ?2)) \
                 ORDER BY id DESC LIMIT ?3",
            params![student, anchor, most as i64],
            |r| {
                Ok(PlayedGame {
                    id: r.get(0)?,
                    kind: word(r, 1)?,
                    first: r.get(2)?,
                    second: r.get(3)?,
                    result: word(r, 4)?,
                    reason: word(r, 5)?,
                    opening: word(r, 6)?,
                    accuracy: [(count(r, 7)?, count(r, 8)?), (count(r, 9)?, count(r, 10)?)],
                })
            },
        )
    }

    /// The moves of player `player` that gave the value away: the newest
    /// `most`, as (game, the move), newest game first.
    pub fn slips_of(&self, player: i64, most: usize) -> Result<Vec<(i64, Slip)>, StoreError> {
        self.rows(
            "SELECT game, ply, played, keeping, before, after FROM slips WHERE player = ?1 \
                 ORDER BY game DESC, ply LIMIT ?2",
            params![player, most as i64],
            |r| {
                Ok((
                    r.get(0)?,
                    Slip {
                        ply: r.get(1)?,
                        played: r.get(2)?,
                        keeping: r.get(3)?,
                        before: r.get(4)?,
                        after: r.get(5)?,
                    },
                ))
            },
        )
    }

    /// Per player: games played of `kind`, points, forfeits by reason,
    /// moves judged and kept.
    pub fn tallies(&self, kind: GameKind) -> Result<Vec<Tally>, StoreError> {
        let sql = "SELECT p, COUNT(*), SUM(points), SUM(judged), SUM(kept), \
                 GROUP_CONCAT(forfeit, '|') FROM ( \
                   SELECT first AS p, CASE result WHEN '1-0' THEN 1.0 WHEN '0-1' THEN 0.0 ELSE 0.5 END AS points, \
                     judged_first AS judged, kept_first AS kept, \
                     CASE WHEN result = '0-1' AND reason NOT IN ('line', 'adjudicated') THEN reason END AS forfeit \
                   FROM games WHERE result IS NOT NULL AND kind = ?1 \
                   UNION ALL \
                   SELECT second, CASE result WHEN '0-1' THEN 1.0 WHEN '1-0' THEN 0.0 ELSE 0.5 END, \
                     judged_second, kept_second, \
                     CASE WHEN result = '1-0' AND reason NOT IN ('line', 'adjudicated') THEN reason END \
                   FROM games WHERE result IS NOT NULL AND kind = ?1) GROUP BY p";
        self.rows(sql, params![kind.as_str()], |r| {
            let forfeits: Option<String> = r.get(5)?;
            Ok(Tally {
                player: r.get(0)?,
                games: r.get(1)?,
                points: r.get(2)?,
                judged: r.get::<_, Option<i64>>(3)?.unwrap_or(0),
                kept: r.get::<_, Option<i64>>(4)?.unwrap_or(0),
                forfeits: forfeits
                    .map(|f| f.split('|').map(str::to_string).collect())
                    .unwrap_or_default(),
            })
        })
    }
}

/// A played game as a student's page lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayedGame {
    /// The game's number (the log's).
    pub id: i64,
    /// What it was for.
    pub kind: GameKind,
    /// The player moving first.
    pub first: i64,
    /// The player moving second.
    pub second: i64,
    /// The result, the first player's first.
    pub result: GameResult,
    /// Why it ended.
    pub reason: Reason,
    /// The opening's moves.
    pub opening: MoveList,
    /// Each side's moves judged and kept (first, second).
    pub accuracy: [(i64, i64); 2],
}

/// A player's record over the games of one kind.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    /// The player.
    pub player: i64,
    /// Games played.
    pub games: i64,
    /// Points: a win 1, a draw half.
    pub points: f64,
    /// Its moves the solver judged.
    pub judged: i64,
    /// Of those, the moves that kept the value.
    pub kept: i64,
    /// The reason of each game it lost by forfeit.
    pub forfeits: Vec<String>,
}

/// Column `i` of row `r`, a text read as one of the words of `T` (an
/// unknown word is SQLite's conversion error, quoting it).
fn word<T>(r: &rusqlite::Row, i: usize) -> rusqlite::Result<T>
where
    T: std::str::FromStr,
    T::Err: std::error::Error + Send + Sync + 'static,
{
    let text: String = r.get(i)?;
    text.parse().map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, Box::new(e))
    })
}

/// The schema version of the database on `connection`.
fn version_of(connection: &Connection) -> rusqlite::Result<i64> {
    connection.query_row("PRAGMA user_version", [], |r| r.get(0))
}

/// Why a database of schema `version` (the file `path`) cannot be used,
/// if it cannot: a newer one never; an older one only if it can be
/// brought up to date (`can_migrate`).
fn unreadable(version: i64, path: &str, can_migrate: bool) -> Option<StoreError> {
    let (path, known) = (path.to_string(), SCHEMA_VERSION);
    match version {
        v if v > known => Some(StoreError::Newer {
            path,
            version,
            known,
        }),
        v if v < known && !can_migrate => Some(StoreError::Older {
            path,
            version,
            known,
        }),
        _ => None,
    }
}

/// Brings the database on `connection` (the file `path`) to
/// [`SCHEMA_VERSION`], a step at a time, each step and its version
/// written in one transaction; refuses a newer one.
fn bring_up_to_date(connection: &mut Connection, path: &str) -> Result<(), StoreError> {
    let fail = |source| fail(path, source);
    let version = version_of(connection).map_err(fail)?;
    if let Some(e) = unreadable(version, path, true) {
        return Err(e);
    }
    for (step, sql) in STEPS.iter().enumerate().skip(version.max(0) as usize) {
        let tx = connection.transaction().map_err(fail)?;
        tx.execute_batch(sql).map_err(fail)?;
        tx.pragma_update(None, "user_version", step as i64 + 1)
            .map_err(fail)?;
        tx.commit().map_err(fail)?;
    }
    Ok(())
}

fn fail(path: &str, source: rusqlite::Error) -> StoreError {
    StoreError::Sqlite {
        path: path.to_string(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A league's database from before the schema had a version: two
    /// students and the anchors after one round (12 ladder games).
    const SCHEMA_0: &[u8] = include_bytes!("../fixtures/league-schema-0.db");

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("c4-store-{name}-{}", std::process::id()));
        std::fs::remove_dir_all(&dir).ok();
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("league.db")
    }

    #[test]
    fn a_database_of_schema_0_opens_with_its_games_and_ratings_unchanged() {
        let path = scratch("schema-0");
        std::fs::write(&path, SCHEMA_0).unwrap();
        let e = Store::open_read_only(&path).err().unwrap().to_string();
        assert!(
            e.contains("schema version 0, older than this program's 1"),
            "{e}"
        );
        let store = Store::open(&path).unwrap();
        assert_eq!(version_of(&store.connection).unwrap(), SCHEMA_VERSION);
        let players = store.players().unwrap();
        assert_eq!(players.len(), 6);
        let alice = players.iter().find(|p| p.student == "alice").unwrap();
        assert_eq!((alice.state, alice.version), (State::Active, 1));
        assert!((alice.rating.mu - 27.4).abs() < 0.1, "{:?}", alice.rating);
        let ladder = store.ladder_history().unwrap();
        assert_eq!(ladder.len(), 12);
        assert_eq!(store.calibration_games().unwrap().len(), 12);
        assert_eq!(
            store.played_lines(Some(GameKind::Ladder)).unwrap().len(),
            12
        );
        let tallies = store.tallies(GameKind::Ladder).unwrap();
        let of_alice = tallies.iter().find(|t| t.player == alice.id).unwrap();
        assert_eq!((of_alice.games, of_alice.points), (8, 5.0));
        drop(store);
        // Brought up to date, it opens again as it is, and to be read.
        Store::open(&path).unwrap();
        assert_eq!(
            Store::open_read_only(&path).unwrap().players().unwrap(),
            players
        );
    }

    #[test]
    fn a_database_of_a_newer_schema_is_refused_with_its_version() {
        let path = scratch("newer");
        let store = Store::open(&path).unwrap();
        store
            .connection
            .pragma_update(None, "user_version", 7)
            .unwrap();
        drop(store);
        for e in [
            Store::open(&path).err().unwrap(),
            Store::open_read_only(&path).err().unwrap(),
        ] {
            let e = e.to_string();
            assert!(
                e.contains("schema version 7") && e.contains("up to 1"),
                "{e}"
            );
        }
    }

    #[test]
    fn an_unknown_word_in_the_database_is_an_error_that_quotes_it() {
        let path = scratch("words");
        let store = Store::open(&path).unwrap();
        store
            .connection
            .execute_batch(
                "PRAGMA ignore_check_constraints = ON;
                 INSERT INTO players (student, anchor, version, fingerprint, spec, state, mu, sigma)
                 VALUES ('eve', 0, 1, 'f', 's', 'sleeping', 25.0, 8.3);",
            )
            .unwrap();
        let e = store.players().unwrap_err().to_string();
        assert!(e.contains("state 'sleeping' is none of active"), "{e}");
    }
}
