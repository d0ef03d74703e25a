//! Playing one game between two engine processes, checking every move with
//! the arena's own rules core, keeping the clocks, and recording forfeits.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use connect4::protocol::Reply;
use connect4::protocol::lines::shorten;
use connect4::protocol::messages::{Clock, Command, GoLimits, Moves, PositionRequest, WireScore};
use connect4::score::Outcome;
use connect4::search::{MIN_HASH_MB, Solver};
use connect4::{Game, Player, Rules, Status};
use serde::{Deserialize, Serialize};

use crate::debug_log::DebugLog;
use crate::ending::{GameEnd, Reason};
use crate::process::{EngineProcess, Failure, REPLY_CHARS, REPLY_TIMEOUT, quoted};
use crate::spec::EngineSpec;
use crate::stderr::StderrLog;
/// How long a search without a clock (depth- or node-limited) may take by
/// default before the engine forfeits on time (pings catch a hung engine
/// much sooner); `--max-move-time` sets it.
pub const MAX_MOVE_TIME: Duration = Duration::from_secs(60);
/// How long an engine has to answer a ping before it stalls.
pub const PING_TIMEOUT: Duration = Duration::from_secs(2);

/// One move as the log records it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoveRecord {
    /// 1-based column.
    #[serde(rename = "move")]
    pub column: u32,
    /// Wall time from `go` to `bestmove`, in milliseconds.
    pub time_ms: f64,
    /// Nodes the engine reported.
    pub nodes: u64,
    /// Depth the engine reported.
    pub depth: u32,
    /// Score the engine reported.
    pub score: WireScore,
}

/// A finished game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// All moves, opening included.
    pub moves: connect4::MoveList,
    /// How it ended.
    pub end: GameEnd,
    /// The engines' moves after the opening.
    pub plies: Vec<MoveRecord>,
}

/// An engine seat: its spec and process (restarted after a failure).
pub struct Seat {
    /// How to run it.
    pub spec: EngineSpec,
    /// Time allowed beyond its budget.
    pub margin: Duration,
    process: Option<EngineProcess>,
    /// Where its processes' stderr goes when they end.
    stderr_log: Option<Arc<StderrLog>>,
    /// Longest search without a clock.
    max_move_time: Duration,
    /// Where every line to and from its processes goes, if anywhere.
    debug: Option<Arc<DebugLog>>,
}

impl Seat {
    /// A seat that starts its process on first use.
    pub fn new(spec: EngineSpec, default_margin: Duration) -> Seat {
        let margin = spec.margin_ms.map_or(default_margin, Duration::from_millis);
        Seat {
            spec,
            margin,
            process: None,
            stderr_log: None,
            max_move_time: MAX_MOVE_TIME,
            debug: None,
        }
    }

    /// Sends every line to and from this seat's processes to `log`.
    pub fn with_debug(mut self, log: Option<Arc<DebugLog>>) -> Seat {
        self.debug = log;
        self
    }

    /// Sets the longest search without a clock.
    pub fn with_max_move_time(mut self, max: Duration) -> Seat {
        self.max_move_time = max;
        self
    }

    /// Sends the stderr of this seat's processes to `log`.
    pub fn with_stderr_log(mut self, log: Option<Arc<StderrLog>>) -> Seat {
        self.stderr_log = log;
        self
    }

    /// Ends the seat's process (killed with its group): the next game
    /// starts a fresh one.
    pub fn end_process(&mut self) {
        self.process = None;
    }

    /// The running process, started, greeted and configured if needed.
    fn process(&mut self) -> Result<&mut EngineProcess, Failure> {
        if self.process.is_none() {
            let mut p = EngineProcess::start_spec(&self.spec)?;
            if let Some(log) = &self.stderr_log {
                p.log_stderr_to(&self.spec.name, Arc::clone(log));
            }
            if let Some(log) = &self.debug {
                p.debug_to(&self.spec.name, Arc::clone(log));
            }
            if let Err(e) = p.greet().and_then(|()| p.configure(&self.spec)) {
                return Err(p.explain(e));
            }
            self.process = Some(p);
        }
        Ok(self.process.as_mut().expect("just started"))
    }

    /// Runs `f` on the process; any failure drops the process so that the
    /// next game starts a fresh one.
    fn with_process<T>(
        &mut self,
        f: impl FnOnce(&mut EngineProcess) -> Result<T, Failure>,
    ) -> Result<T, Failure> {
        let result = self.process().and_then(|p| f(p).map_err(|e| p.explain(e)));
        if result.is_err() {
            self.process = None;
        }
        result
    }

    /// Starts a new game on the engine.
    pub fn new_game(&mut self, rules: Rules, seed: u64) -> Result<(), Failure> {
        self.expect_ok(Command::NewGame {
            rules,
            seed: Some(seed),
        })
    }

    /// Sends `command` and expects `ok`.
    fn expect_ok(&mut self, command: Command) -> Result<(), Failure> {
        self.with_process(|p| match p.ask(command, REPLY_TIMEOUT)? {
            Reply::Ok { .. } => Ok(()),
            other => Err(Failure::Protocol(format!(
                "expected ok, got {}",
                quoted(&other)
            ))),
        })
    }

    /// Asks for a move in `game` with `clock` (time left, increment) if the
    /// engine plays on a clock. Returns the move as the log records it and
    /// the time it took, or the failure. The move is not checked.
    pub fn best_move(
        &mut self,
        game: &Game,
        clock: Option<(u64, u64)>,
    ) -> Result<(MoveRecord, Duration), Failure> {
        let position = Command::Position(PositionRequest {
            moves: Some(Moves::Text(game.move_string())),
            board: None,
        });
        let limits = GoLimits {
            depth: self.spec.depth,
            nodes: self.spec.nodes,
            movetime_ms: self.spec.movetime_ms,
            clock: clock.map(|(time_ms, inc_ms)| Clock { time_ms, inc_ms }),
            ..GoLimits::default()
        };
        // The budget the engine must keep, if it has one.
        let budget = clock
            .map(|(left, _)| left)
            .or(self.spec.movetime_ms)
            .map(Duration::from_millis);
        let margin = self.margin;
        let max_move_time = self.max_move_time;
        let result = self.with_process(|p| {
            // Position and go go out together (the protocol answers in
            // order), saving a round trip per move.
            let start = Instant::now();
            let [position_id, id] = p.send_all([position, Command::Go(limits)])?;
            match p.recv_final(position_id, start + REPLY_TIMEOUT, None, |_| {})? {
                Reply::Ok { .. } => {}
                other => {
                    return Err(Failure::Protocol(format!(
                        "position: expected ok, got {}",
                        quoted(&other)
                    )));
                }
            }
            let reply = match budget {
                Some(b) => await_timed_bestmove(p, id, start, b, margin)?,
                None => await_untimed_bestmove(p, id, start, (max_move_time, margin))?,
            };
            Ok((reply, start.elapsed()))
        });
        let (reply, elapsed) = result?;
        match reply {
            Reply::Bestmove {
                column,
                score,
                depth,
                nodes,
                ..
            } => Ok((
                MoveRecord {
                    column,
                    time_ms: elapsed.as_secs_f64() * 1e3,
                    nodes,
                    depth,
                    score,
                },
                elapsed,
            )),
            other => {
                self.process = None;
                Err(Failure::Protocol(format!(
                    "expected bestmove, got {}",
                    shorten(&other.to_line(), REPLY_CHARS)
                )))
            }
        }
    }
}

/// Waits for the final reply to `go` request `id` sent at `start` with a
/// `budget`, for the budget and `margin`; then a live engine that is merely
/// late loses on time, and a dead one stalls.
fn await_timed_bestmove(
    p: &mut EngineProcess,
    id: u64,
    start: Instant,
    budget: Duration,
    margin: Duration,
) -> Result<Reply, Failure> {
    match p.recv_final(id, start + budget + margin, None, |_| {}) {
        // Anything heard back after a ping (the pong, the late bestmove)
        // shows a live engine that ran over its time.
        Err(Failure::Stall(_)) => Err(match p.ask(Command::Ping, PING_TIMEOUT) {
            Err(Failure::Stall(_)) => Failure::Stall(format!(
                "no bestmove and no answer to ping after {} ms, with {} ms allowed",
                start.elapsed().as_millis(),
                budget.as_millis()
            )),
            Err(Failure::Crash(d)) => Failure::Crash(d),
            _ => Failure::Time(format!(
                "over its {} ms budget: no bestmove after {} ms",
                budget.as_millis(),
                start.elapsed().as_millis()
            )),
        }),
        other => other,
    }
}

/// Waits for the final reply to an untimed `go` (a depth or node limit),
/// pinging the engine when it is quiet: one that does not answer the ping
/// within [`PING_TIMEOUT`] and `margin` stalls, and a live engine that
/// takes longer than `max` loses on time.
fn await_untimed_bestmove(
    p: &mut EngineProcess,
    id: u64,
    start: Instant,
    (max, margin): (Duration, Duration),
) -> Result<Reply, Failure> {
    match p.recv_final(id, start + max, Some(PING_TIMEOUT + margin), |_| {}) {
        Err(Failure::Stall(_)) if start.elapsed() >= max => Err(Failure::Time(format!(
            "no bestmove within {} s, the longest a search without a clock may take \
             (--max-move-time)",
            max.as_secs_f64()
        ))),
        other => other,
    }
}

/// Ends games the arena's solver can prove within a node budget.
pub struct Adjudicator {
    solver: Solver,
    nodes: u64,
}

impl Adjudicator {
    /// An adjudicator allowed `nodes` per position.
    pub fn new(nodes: u64) -> Adjudicator {
        Adjudicator {
            solver: Solver::new(MIN_HASH_MB),
            nodes,
        }
    }

    /// The proven result of `game` (which goes on), if found in budget.
    fn judge(&mut self, game: &Game) -> Option<GameEnd> {
        let mover = game.position().side_to_move();
        let winner = match self.solver.prove_outcome(game.position(), self.nodes)? {
            Outcome::Win => Some(mover),
            Outcome::Loss => Some(mover.other()),
            Outcome::Draw => None,
        };
        let text = match winner {
            Some(w) => format!("the solver proves a win for the {w}"),
            None => "the solver proves a draw".to_string(),
        };
        Some(GameEnd {
            winner,
            reason: Reason::Adjudicated,
            detail: Some(format!("{text} after {}", game.move_string())),
        })
    }
}

/// What a game needs besides its seats.
pub struct GameSetup<'a> {
    /// The board.
    pub rules: Rules,
    /// The opening, a legal move string that does not end the game.
    pub opening: &'a connect4::MoveList,
    /// Sent with `newgame`, so engines that draw random numbers replay it.
    pub seed: u64,
    /// Ends games early once proven.
    pub adjudicator: Option<&'a mut Adjudicator>,
    /// Set to abandon the game between moves.
    pub abort: &'a AtomicBool,
    /// Told the moves after each move (the live page's board).
    pub on_move: Option<&'a dyn Fn(&str)>,
}

/// Plays the opening and then alternates `first` and `second` until the
/// game ends or an engine forfeits; `None` if it was abandoned.
pub fn play_game(setup: GameSetup, first: &mut Seat, second: &mut Seat) -> Option<GameRecord> {
    let GameSetup {
        rules,
        opening,
        seed,
        mut adjudicator,
        abort,
        on_move,
    } = setup;
    let mut game = Game::from_moves(rules, opening).expect("openings are checked when read");
    let mut plies = Vec::new();
    let mut clocks = [first.spec.clock, second.spec.clock];
    let end = 'game: {
        for (seat, player) in [(&mut *first, Player::First), (&mut *second, Player::Second)] {
            if let Err(e) = seat.new_game(rules, seed) {
                break 'game GameEnd::forfeit(player, e.reason(), e.detail().to_string());
            }
        }
        loop {
            if let Some(end) = rules_end(&game) {
                break end;
            }
            if let Some(end) = adjudicator.as_deref_mut().and_then(|a| a.judge(&game)) {
                break end;
            }
            if abort.load(Ordering::Relaxed) {
                return None;
            }
            let mover = game.side_to_move();
            let index = usize::from(mover == Player::Second);
            let seat = if mover == Player::First {
                &mut *first
            } else {
                &mut *second
            };
            match play_move(seat, &mut game, &mut clocks[index]) {
                Ok(record) => plies.push(record),
                Err((reason, detail)) => break GameEnd::forfeit(mover, reason, detail),
            }
            if let Some(tell) = on_move {
                tell(&game.move_string());
            }
        }
    };
    Some(GameRecord {
        moves: game.move_list(),
        end,
        plies,
    })
}

/// The end of `game` by the rules (a line or a full board), if it is over.
fn rules_end(game: &Game) -> Option<GameEnd> {
    let (winner, reason) = match game.status() {
        Status::Won(p) => (Some(p), Reason::Line),
        Status::Draw => (None, Reason::FullBoard),
        Status::Ongoing => return None,
    };
    Some(GameEnd {
        winner,
        reason,
        detail: None,
    })
}

/// Asks `seat` for its move in `game`, checks its time against its budget
/// and `clock` (time left, increment; updated) and the move against the
/// rules, and plays it; the forfeit reason and detail if any check fails.
fn play_move(
    seat: &mut Seat,
    game: &mut Game,
    clock: &mut Option<(u64, u64)>,
) -> Result<MoveRecord, (Reason, String)> {
    let (record, elapsed) = seat
        .best_move(game, *clock)
        .map_err(|e| (e.reason(), e.detail().to_string()))?;
    let spent = elapsed.as_millis() as u64;
    let allowed = match clock {
        Some((left, _)) => Some(*left),
        None => seat.spec.movetime_ms,
    };
    if let Some(ms) = allowed
        && elapsed > Duration::from_millis(ms) + seat.margin
    {
        return Err((Reason::Time, format!("{spent} ms with {ms} ms allowed")));
    }
    if let Some((left, inc)) = clock {
        *left = left.saturating_sub(spent) + *inc;
    }
    game.play(i64::from(record.column)).map_err(|e| {
        let detail = illegal_move_text(&e, seat.spec.counts_columns_from_zero());
        (Reason::IllegalMove, detail)
    })?;
    Ok(record)
}

/// What was wrong with a move, in the player's own columns: the
/// protocol's from 1, or a Python player's from 0 (`zero_based`), whose
/// code returned one less than the column the bridge sent.
pub fn illegal_move_text(e: &connect4::MoveError, zero_based: bool) -> String {
    use connect4::MoveError;
    match e {
        MoveError::ColumnFull { index, column } if zero_based => {
            let returned = column - 1;
            format!(
                "move {index}: your code returned {returned}, and column {returned} is full \
                 (columns counted from 0)"
            )
        }
        MoveError::NoSuchColumn {
            index,
            column,
            columns,
            ..
        } if zero_based => format!(
            "move {index}: your code returned {}, which is no column: the board's columns are 0 to {}",
            column - 1,
            columns - 1
        ),
        other => other.to_string(),
    }
}

/// The value a Python player's code returned, from an illegal move's
/// text made by [`illegal_move_text`].
pub fn returned_value(detail: &str) -> Option<i64> {
    let rest = detail.split_once("your code returned ")?.1;
    rest.split(|c: char| !(c.is_ascii_digit() || c == '-'))
        .next()?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use connect4::{Game, Rules};

    #[test]
    fn an_illegal_move_is_told_in_the_player_s_columns() {
        let mut game = Game::from_move_string(Rules::STANDARD, "111111").unwrap();
        let full = game.play(1).unwrap_err();
        assert_eq!(
            illegal_move_text(&full, false),
            "move 7 (column 1): column 1 is full"
        );
        let told = illegal_move_text(&full, true);
        assert_eq!(
            told,
            "move 7: your code returned 0, and column 0 is full (columns counted from 0)"
        );
        assert_eq!(returned_value(&told), Some(0));
        let off = game.play(8).unwrap_err();
        let told = illegal_move_text(&off, true);
        assert!(told.contains("returned 7, which is no column: the board's columns are 0 to 6"));
        assert_eq!(returned_value(&told), Some(7));
        assert_eq!(returned_value("move 3 (column 8): no"), None);
    }
}
