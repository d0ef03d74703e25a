//! The JSON-lines game log: one line per finished game, written and flushed
//! as the game ends, read back to resume a run or to merge shards.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use connect4::{MoveList, Player, Rules};
use serde::{Deserialize, Serialize};

use crate::ending::{GameResult, Reason};
use crate::play::{GameRecord, MoveRecord};
use crate::schedule::Job;

/// One finished game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameLine {
    /// The fingerprint of the run's schedule (see `schedule::fingerprint`).
    pub run: String,
    /// The game's number in the schedule, from 1.
    pub game: u64,
    /// Its pair's number, from 1.
    pub pair: u64,
    /// The engine moving first.
    pub first: String,
    /// The engine moving second.
    pub second: String,
    /// The board, spelled `7x6x4` in the log.
    #[serde(with = "rules_text")]
    pub rules: Rules,
    /// The opening's moves.
    pub opening: MoveList,
    /// Every move, opening included.
    pub moves: MoveList,
    /// The result, the first player's first (`1-0`, `0-1`, `1/2-1/2`).
    pub result: GameResult,
    /// Why the game ended: a line, a full board, adjudication, or the
    /// loser's forfeit.
    pub reason: Reason,
    /// What happened, for forfeits and adjudications.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The seed sent with `newgame`.
    pub seed: u64,
    /// The grading test the game was played for (a grading's log only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<String>,
    /// The players (by name) that number columns from 0, as Python
    /// policies and Kaggle agents do: what people read of their moves
    /// speaks of the columns their code returned. `moves` stays in the
    /// protocol's columns from 1.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub zero_based: Vec<String>,
    /// The engines' moves after the opening: time, nodes, depth, score.
    pub plies: Vec<MoveRecord>,
}

impl GameLine {
    /// The line of `game`, played as the schedule's `job` by `names`
    /// (first, second) on `rules` in the run `run`, whose seed `seed` gave
    /// the game its `newgame` seed; numbered as the job is, in no grading
    /// test.
    pub fn of_game(
        run: String,
        job: &Job,
        (first, second): (String, String),
        rules: Rules,
        game: GameRecord,
        seed: u64,
    ) -> GameLine {
        GameLine {
            run,
            game: job.game,
            pair: job.pair,
            first,
            second,
            rules,
            opening: job.opening.clone(),
            moves: game.moves,
            result: GameResult::of_winner(game.end.winner),
            reason: game.end.reason,
            detail: game.end.detail,
            seed: connect4::openings::game_seed(seed, job.game),
            test: None,
            zero_based: Vec::new(),
            plies: game.plies,
        }
    }

    /// Whether this line is a game the arena could have logged: a result
    /// it writes, legal moves from its opening on its board, and a result
    /// and reason the final position bears out (a line for the side the
    /// result names, a full board for a draw, a forfeit or an adjudication
    /// only in a game still going on). The error says what is wrong, for a
    /// log changed by hand or damaged.
    pub fn check(&self) -> Result<(), LineError> {
        if !self.moves.starts_with(&self.opening) {
            return Err(LineError::Opening {
                moves: self.moves.clone(),
                opening: self.opening.clone(),
            });
        }
        let game = connect4::Game::from_moves(self.rules, &self.moves).map_err(|why| {
            LineError::Moves {
                moves: self.moves.clone(),
                why,
            }
        })?;
        let winner = self.result.winner();
        let status = game.status();
        let fits = match (self.reason, status) {
            (Reason::Line, connect4::Status::Won(p)) => winner == Some(p),
            (Reason::FullBoard, connect4::Status::Draw) => winner.is_none(),
            (Reason::Adjudicated, connect4::Status::Ongoing) => true,
            (r, connect4::Status::Ongoing) if r.is_forfeit() => winner.is_some(),
            _ => false,
        };
        if !fits {
            return Err(LineError::DoesNotFit {
                result: self.result,
                reason: self.reason,
                position: match status {
                    connect4::Status::Ongoing => "the game goes on".to_string(),
                    connect4::Status::Won(p) => format!("the {p} has a line"),
                    connect4::Status::Draw => "the board is full".to_string(),
                },
            });
        }
        Ok(())
    }

    /// The engine that lost, if the game was decided.
    pub fn loser(&self) -> Option<&str> {
        self.result.loser().map(|p| self.name_of(p))
    }

    /// The name of the engine that played as `player`.
    pub fn name_of(&self, player: Player) -> &str {
        match player {
            Player::First => &self.first,
            Player::Second => &self.second,
        }
    }

    /// The points of the first player: 1, 1/2 or 0.
    pub fn first_points(&self) -> f64 {
        self.result.first_points()
    }
}

/// Why a game line is not a game the arena could have logged; each
/// message quotes what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    /// The moves do not begin with the opening.
    #[error("the moves '{moves}' do not start with the opening '{opening}'")]
    Opening {
        /// The line's moves.
        moves: MoveList,
        /// The line's opening.
        opening: MoveList,
    },
    /// A move the rules refuse.
    #[error("moves '{moves}': {why}")]
    Moves {
        /// The line's moves.
        moves: MoveList,
        /// What the rules said.
        why: connect4::MoveError,
    },
    /// A result and reason the final position does not bear out.
    #[error("result {result} by {reason} does not fit the final position ({position})")]
    DoesNotFit {
        /// The line's result.
        result: GameResult,
        /// The line's reason.
        reason: Reason,
        /// What the final position shows.
        position: String,
    },
}

/// The log's spelling of a board (`7x6x4`), read back into [`Rules`]: a
/// line naming a board the engine cannot play does not parse.
mod rules_text {
    use connect4::Rules;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(rules: &Rules, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(rules)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Rules, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(d)?;
        text.parse()
            .map_err(|e| serde::de::Error::custom(format!("rules '{text}': {e}")))
    }
}

/// Refuses a log path that is not a regular file (a device such as
/// /dev/full, a directory, a pipe): reading one could never end.
fn check_regular(path: &Path) -> Result<()> {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => anyhow::bail!(
            "the log {} is not a regular file; give the path of a file to create or resume",
            path.display()
        ),
        _ => Ok(()),
    }
}

/// The longest line read from a log: a game's line is a few KiB, so a
/// longer one is damage (or an attack), skipped without being held whole.
pub const MAX_LINE: usize = 1 << 20;

/// The games of a log, each game number once (the first line of it); a
/// line that does not parse (a write cut short by a crash, even inside a
/// multi-byte character) or is over [`MAX_LINE`] bytes is skipped with a
/// warning, so its game is played again; a whole line with a value no game
/// has (a result such as `2-0`: a log changed by hand) is refused
/// ([`TailError::NotAGame`]).
pub fn read(path: &Path) -> Result<Vec<GameLine>> {
    read_lines(path)
}

/// A line of a log that holds a game: the arena's [`GameLine`], or a line
/// that holds one with more (a language model's game).
pub trait Numbered: serde::de::DeserializeOwned {
    /// The game's number in its run.
    fn game_number(&self) -> u64;
}

impl Numbered for GameLine {
    fn game_number(&self) -> u64 {
        self.game
    }
}

/// The lines of a log, read as [`read`] reads games.
pub fn read_lines<T: Numbered>(path: &Path) -> Result<Vec<T>> {
    let mut tail = Tail::default();
    let mut games = Vec::new();
    tail.read_into(path, true, &mut games)?;
    Ok(games)
}

/// A log read as it grows: each read takes only the lines added since the
/// last one, so that a page following a long run does not parse the whole
/// file again on every request.
#[derive(Default)]
pub struct Tail {
    /// Bytes read so far: the end of the last whole line.
    offset: u64,
    /// The line number of the next line (for warnings).
    line: usize,
    /// The game numbers read so far.
    seen: std::collections::HashSet<u64>,
}

impl Tail {
    /// Appends to `games` the games of the lines added to `path` since the
    /// last read: whole lines only (a line still being written waits for
    /// the next read) unless `to_the_end`. A missing file holds no games.
    /// A file shorter than what was read was replaced ([`TailError`]): read
    /// it again with a new `Tail`.
    pub fn read_into<T: Numbered>(
        &mut self,
        path: &Path,
        to_the_end: bool,
        games: &mut Vec<T>,
    ) -> Result<()> {
        check_regular(path)?;
        let mut file = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e).with_context(|| format!("reading the log {}", path.display())),
        };
        let context = || format!("reading the log {}", path.display());
        let len = file.metadata().with_context(context)?.len();
        if len < self.offset {
            return Err(TailError::Shrank.into());
        }
        file.seek(std::io::SeekFrom::Start(self.offset))
            .with_context(context)?;
        let mut reader = BufReader::new(file);
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = reader
                .by_ref()
                .take(MAX_LINE as u64 + 1)
                .read_until(b'\n', &mut line)
                .with_context(context)?;
            if n == 0 {
                return Ok(());
            }
            // A last line without its newline is still being written,
            // unless it is a whole game already (a log ended by hand).
            let partial = line.last() != Some(&b'\n') && line.len() <= MAX_LINE;
            if partial && !to_the_end && serde_json::from_slice::<T>(&line).is_err() {
                return Ok(());
            }
            self.line += 1;
            let mut consumed = n as u64;
            if line.len() > MAX_LINE {
                consumed += reader.skip_until(b'\n').with_context(context)? as u64;
                self.offset += consumed;
                self.warn(path, &format!("over {} MiB", MAX_LINE >> 20));
                continue;
            }
            self.offset += consumed;
            if line.trim_ascii().is_empty() {
                continue;
            }
            match serde_json::from_slice::<T>(&line) {
                Ok(g) => {
                    if self.seen.insert(g.game_number()) {
                        games.push(g);
                    }
                }
                // Whole JSON with a value no game has (a result such as
                // '2-0', a board the engine cannot play): a log changed
                // by hand, refused; a cut-short write is skipped.
                Err(e) if e.classify() == serde_json::error::Category::Data => {
                    return Err(TailError::NotAGame {
                        line: self.line,
                        why: e.to_string(),
                    })
                    .with_context(|| format!("reading the log {}", path.display()));
                }
                Err(e) => self.warn(path, &e.to_string()),
            }
        }
    }

    fn warn(&self, path: &Path, why: &str) {
        eprintln!(
            "connect4-arena: {}:{}: skipping a line that is not a game ({why})",
            path.display(),
            self.line
        );
    }
}

/// Why a [`Tail`] cannot go on.
#[derive(Debug, thiserror::Error)]
pub enum TailError {
    /// The file is shorter than what was read: it was replaced.
    #[error("the log is shorter than when it was last read (it was replaced)")]
    Shrank,
    /// A whole line whose values no game has: the log was changed.
    #[error("line {line} is not a game the arena could have logged: {why}")]
    NotAGame {
        /// The line's number, from 1.
        line: usize,
        /// What is wrong with it.
        why: String,
    },
}

/// A log open for appending, locked against other runs while it is open.
pub struct Writer {
    file: File,
    path: PathBuf,
}

impl Writer {
    /// Opens `path` for appending and locks it (a second run on the same
    /// log is refused), ending a cut-short last line first.
    pub fn open(path: &Path) -> Result<Writer> {
        check_regular(path)?;
        let context = || format!("opening the log {}", path.display());
        let mut file = File::options()
            .create(true)
            .read(true)
            .append(true)
            .open(path)
            .with_context(context)?;
        if let Err(e) = file.try_lock() {
            match e {
                std::fs::TryLockError::WouldBlock => anyhow::bail!(
                    "the log {} is being written by another run (it is locked); wait for that \
                     run to end, or give this one another --log",
                    path.display()
                ),
                std::fs::TryLockError::Error(e) => {
                    return Err(e).with_context(|| format!("locking the log {}", path.display()));
                }
            }
        }
        let len = file.metadata().with_context(context)?.len();
        if len > 0 {
            let mut last = [0u8];
            file.seek(SeekFrom::Start(len - 1)).with_context(context)?;
            file.read_exact(&mut last).with_context(context)?;
            if last[0] != b'\n' {
                file.write_all(b"\n").with_context(context)?;
            }
        }
        Ok(Writer {
            file,
            path: path.to_path_buf(),
        })
    }

    /// Appends one game (a [`GameLine`], or a line holding one) and
    /// flushes it to the file.
    pub fn append(&mut self, game: &impl Serialize) -> Result<()> {
        let mut line = serde_json::to_string(game).expect("a game serialises");
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .and_then(|()| self.file.flush())
            .with_context(|| format!("writing the log {}", self.path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue #70, item 3: lines an arena wrote before the record had
    /// types (a win each way, a draw, a forfeit with its detail) read into
    /// them and are written again as they were.
    #[test]
    fn a_log_of_the_text_record_reads_and_is_written_again_unchanged() {
        let text = include_str!("../fixtures/games-unversioned.jsonl");
        let mut results = Vec::new();
        for line in text.lines() {
            let game: GameLine = serde_json::from_str(line).unwrap();
            game.check().unwrap();
            // The same fields and values (serde_json reads the last digit
            // of a float such as 0.44033100000000003 loosely, whatever type
            // it goes into).
            let written = serde_json::to_string(&game).unwrap();
            let value = |text: &str| serde_json::from_str::<serde_json::Value>(text).unwrap();
            assert_eq!(value(&written), value(line));
            results.push((game.result, game.reason));
        }
        assert_eq!(
            results,
            [
                (GameResult::SecondWon, Reason::Line),
                (GameResult::FirstWon, Reason::Line),
                (GameResult::Draw, Reason::FullBoard),
                (GameResult::FirstWon, Reason::IllegalMove),
            ]
        );
        // A line with a result or a board the record has no word for does
        // not parse, and says which.
        let first = text.lines().next().unwrap();
        for (from, to, said) in [
            ("\"0-1\"", "\"0:1\"", "result '0:1'"),
            ("\"7x6x4\"", "\"7x6x1\"", "rules '7x6x1'"),
        ] {
            let e = serde_json::from_str::<GameLine>(&first.replace(from, to)).unwrap_err();
            assert!(e.to_string().contains(said), "{e}");
        }
    }

    fn game(number: u64) -> GameLine {
        GameLine {
            run: "r".into(),
            game: number,
            pair: number.div_ceil(2),
            first: "a".into(),
            second: "b".into(),
            rules: Rules::STANDARD,
            opening: connect4::MoveList::new(),
            moves: "4".parse().unwrap(),
            result: GameResult::Draw,
            reason: Reason::Adjudicated,
            detail: Some("é".into()),
            test: None,
            zero_based: Vec::new(),
            seed: 1,
            plies: Vec::new(),
        }
    }

    /// A line cut inside a multi-byte character and a huge line are
    /// skipped; the games around them are kept.
    #[test]
    fn bad_and_huge_lines_are_skipped_and_the_rest_is_read() {
        let path = std::env::temp_dir().join(format!("c4-log-{}.jsonl", std::process::id()));
        let line = |n| serde_json::to_string(&game(n)).unwrap().into_bytes();
        let mut bytes = line(1);
        bytes.push(b'\n');
        // Game 2's line cut inside the two bytes of 'é'.
        let cut = line(2);
        let at = cut.windows(2).position(|w| w == "é".as_bytes()).unwrap() + 1;
        bytes.extend_from_slice(&cut[..at]);
        bytes.push(b'\n');
        bytes.extend(std::iter::repeat_n(b'x', 3 * MAX_LINE));
        bytes.push(b'\n');
        bytes.extend_from_slice(&line(3));
        bytes.push(b'\n');
        std::fs::write(&path, &bytes).unwrap();
        let games: Vec<u64> = read(&path).unwrap().iter().map(|g| g.game).collect();
        assert_eq!(games, vec![1, 3]);
        std::fs::remove_file(&path).ok();
    }
}
