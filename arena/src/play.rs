//! Playing one game between two engine processes, checking every move with
//! the arena's own rules core, keeping the clocks, and recording forfeits.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use connect4::protocol::Reply;
use connect4::protocol::messages::{Clock, Command, GoLimits, Moves, PositionRequest, WireScore};
use connect4::search::{Budget, Limits, Solver};
use connect4::{Game, Player, Rules, Status};
use serde::{Deserialize, Serialize};

use crate::process::{EngineProcess, Failure, shorten};
use crate::spec::EngineSpec;

/// How long a reply to anything but `go` may take.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a depth- or node-limited search may take at most (pings catch
/// a hung engine much sooner).
pub const SEARCH_TIMEOUT: Duration = Duration::from_secs(600);
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

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The winner, or `None` for a draw.
    pub winner: Option<Player>,
    /// `line`, `full board`, `adjudicated`, or the loser's forfeit:
    /// `illegal move`, `time`, `crash`, `stall`, `protocol`.
    pub reason: String,
    /// Details of a forfeit or an adjudication.
    pub detail: Option<String>,
}

/// The reasons that are forfeits, in the order tables list them.
pub const FORFEITS: [&str; 5] = ["illegal move", "time", "crash", "stall", "protocol"];

/// A finished game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// All moves, opening included.
    pub moves: String,
    /// How it ended.
    pub outcome: Outcome,
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
}

impl Seat {
    /// A seat that starts its process on first use.
    pub fn new(spec: EngineSpec, default_margin: Duration) -> Seat {
        let margin = spec.margin_ms.map_or(default_margin, Duration::from_millis);
        Seat {
            spec,
            margin,
            process: None,
        }
    }

    /// The running process, started, greeted and configured if needed.
    fn process(&mut self) -> Result<&mut EngineProcess, Failure> {
        if self.process.is_none() {
            let (program, args) = self
                .spec
                .command()
                .map_err(|e| Failure::Crash(e.to_string()))?;
            let mut p = EngineProcess::start(&program, &args)
                .map_err(|e| Failure::Crash(format!("cannot start {program}: {e}")))?;
            match p.ask(Command::Hello, REPLY_TIMEOUT) {
                Ok(Reply::Hello { .. }) => {}
                Ok(other) => {
                    return Err(Failure::Protocol(format!(
                        "hello: expected hello, got {}",
                        shorten(&other.to_line())
                    )));
                }
                Err(Failure::Stall(_)) => {
                    return Err(Failure::Stall(format!(
                        "no answer to hello within {} s of starting",
                        REPLY_TIMEOUT.as_secs()
                    )));
                }
                Err(e) => return Err(e),
            }
            for (name, value) in &self.spec.options {
                let command = Command::SetOption {
                    name: name.clone(),
                    value: value.clone(),
                };
                match p.ask(command, REPLY_TIMEOUT)? {
                    Reply::Ok { .. } => {}
                    other => {
                        return Err(Failure::Protocol(format!(
                            "setoption {name}: {}",
                            shorten(&other.to_line())
                        )));
                    }
                }
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
        let result = self.process().and_then(f);
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
                shorten(&other.to_line())
            ))),
        })
    }

    /// Asks for a move in `game` with `clock` (time left, increment) if the
    /// engine plays on a clock. Returns the reply and the time it took, or
    /// the forfeit.
    pub fn best_move(
        &mut self,
        game: &Game,
        clock: Option<(u64, u64)>,
    ) -> Result<(u32, Reply, Duration), (&'static str, String)> {
        let fail = |f: Failure| (f.reason(), f.detail().to_string());
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
                        shorten(&other.to_line())
                    )));
                }
            }
            let reply = match budget {
                // Timed: wait for the budget and margin; then a live engine
                // that is merely late loses on time, a dead one stalls.
                Some(b) => match p.recv_final(id, start + b + margin, None, |_| {}) {
                    Err(Failure::Stall(_)) => {
                        // Anything heard back (a pong, the late bestmove)
                        // shows a live engine that ran over its time.
                        return Err(match p.ask(Command::Ping, PING_TIMEOUT) {
                            Err(Failure::Stall(_)) => Failure::Stall(format!(
                                "no bestmove and no answer to ping after {} ms",
                                start.elapsed().as_millis()
                            )),
                            Err(Failure::Crash(d)) => Failure::Crash(d),
                            _ => Failure::Time(format!(
                                "over its {} ms budget: no bestmove after {} ms",
                                b.as_millis(),
                                start.elapsed().as_millis()
                            )),
                        });
                    }
                    other => other?,
                },
                None => p.recv_final(id, start + SEARCH_TIMEOUT, Some(PING_TIMEOUT), |_| {})?,
            };
            Ok((reply, start.elapsed()))
        });
        let (reply, elapsed) = result.map_err(fail)?;
        match reply {
            Reply::Bestmove { column, .. } => Ok((column, reply, elapsed)),
            other => {
                self.process = None;
                Err((
                    "protocol",
                    format!("expected bestmove, got {}", shorten(&other.to_line())),
                ))
            }
        }
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
            solver: Solver::new(16),
            nodes,
        }
    }

    /// The proven result of `game` (which goes on), if found in budget.
    fn judge(&mut self, game: &Game) -> Option<Outcome> {
        let p = game.position();
        self.solver.set_budget(Budget::new(
            &Limits::nodes(self.nodes),
            Instant::now(),
            None,
        ));
        let v = self.solver.solve_within(p, true)?;
        let mover = p.side_to_move();
        let (winner, text) = match v.signum() {
            1 => (
                Some(mover),
                format!("the solver proves a win for the {mover}"),
            ),
            -1 => (
                Some(mover.other()),
                format!("the solver proves a win for the {}", mover.other()),
            ),
            _ => (None, "the solver proves a draw".to_string()),
        };
        Some(Outcome {
            winner,
            reason: "adjudicated".into(),
            detail: Some(format!("{text} after {}", game.move_string())),
        })
    }
}

/// What a game needs besides its seats.
pub struct GameSetup<'a> {
    /// The board.
    pub rules: Rules,
    /// The opening, a legal move string that does not end the game.
    pub opening: &'a str,
    /// Sent with `newgame`, so engines that draw random numbers replay it.
    pub seed: u64,
    /// Ends games early once proven.
    pub adjudicator: Option<&'a mut Adjudicator>,
    /// Set to abandon the game between moves.
    pub abort: &'a AtomicBool,
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
    } = setup;
    let mut game = Game::from_move_string(rules, opening).expect("openings are checked when read");
    let mut plies = Vec::new();
    let forfeit = |loser: Player, reason: &str, detail: String| Outcome {
        winner: Some(loser.other()),
        reason: reason.to_string(),
        detail: Some(detail),
    };
    let mut clocks = [first.spec.clock, second.spec.clock];
    let outcome = 'game: {
        for (seat, player) in [(&mut *first, Player::First), (&mut *second, Player::Second)] {
            if let Err(e) = seat.new_game(rules, seed) {
                break 'game forfeit(player, e.reason(), e.detail().to_string());
            }
        }
        loop {
            match game.status() {
                Status::Won(p) => {
                    break Outcome {
                        winner: Some(p),
                        reason: "line".into(),
                        detail: None,
                    };
                }
                Status::Draw => {
                    break Outcome {
                        winner: None,
                        reason: "full board".into(),
                        detail: None,
                    };
                }
                Status::Ongoing => {}
            }
            if let Some(outcome) = adjudicator.as_deref_mut().and_then(|a| a.judge(&game)) {
                break outcome;
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
            let (column, reply, elapsed) = match seat.best_move(&game, clocks[index]) {
                Ok(r) => r,
                Err((reason, detail)) => break forfeit(mover, reason, detail),
            };
            let Reply::Bestmove {
                score,
                depth,
                nodes,
                ..
            } = reply
            else {
                unreachable!("best_move only returns bestmove replies")
            };
            let spent = elapsed.as_millis() as u64;
            let allowed = match clocks[index] {
                Some((left, _)) => Some(left),
                None => seat.spec.movetime_ms,
            };
            if let Some(ms) = allowed
                && elapsed > Duration::from_millis(ms) + seat.margin
            {
                break forfeit(mover, "time", format!("{spent} ms with {ms} ms allowed"));
            }
            if let Some((left, inc)) = &mut clocks[index] {
                *left = left.saturating_sub(spent) + *inc;
            }
            if let Err(e) = game.play(i64::from(column)) {
                break forfeit(mover, "illegal move", e.to_string());
            }
            plies.push(MoveRecord {
                column,
                time_ms: elapsed.as_secs_f64() * 1e3,
                nodes,
                depth,
                score,
            });
        }
    };
    Some(GameRecord {
        moves: game.move_string(),
        outcome,
        plies,
    })
}
