//! Playing one game between two engine processes, checking every move with
//! the arena's own rules core.

use std::time::{Duration, Instant};

use connect4::protocol::messages::{Command, GoLimits, Moves, PositionRequest, WireScore};
use connect4::protocol::{Reply, Request};
use connect4::{Game, Player, Rules, Status};
use serde::Serialize;

use crate::process::{EngineProcess, Failure};
use crate::spec::EngineSpec;

/// Extra time an engine may take beyond its movetime before it forfeits.
pub const TIME_MARGIN: Duration = Duration::from_millis(200);
/// How long a reply to anything but `go` may take.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a depth- or node-limited `go` may take before it is a stall.
pub const SEARCH_TIMEOUT: Duration = Duration::from_secs(60);

/// One move as the log records it.
#[derive(Clone, Debug, Serialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// The winner, or `None` for a draw.
    pub winner: Option<Player>,
    /// `line`, `full board`, or the loser's forfeit: `illegal move`, `time`,
    /// `crash`, `stall`, `protocol`.
    pub reason: String,
    /// Details of a forfeit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// A finished game.
#[derive(Clone, Debug, Serialize)]
pub struct GameRecord {
    /// The opening, as a move string.
    pub opening: String,
    /// All moves, opening included.
    pub moves: String,
    /// How it ended.
    pub outcome: Outcome,
    /// The engines' moves after the opening.
    pub plies: Vec<MoveRecord>,
}

/// An engine seat: its spec and process (restarted after a crash).
pub struct Seat {
    /// How to run it.
    pub spec: EngineSpec,
    /// The process, if running.
    pub process: Option<EngineProcess>,
}

impl Seat {
    /// A seat that starts its process on first use.
    pub fn new(spec: EngineSpec) -> Seat {
        Seat {
            spec,
            process: None,
        }
    }

    /// The running process, started (and configured) if needed.
    fn process(&mut self) -> Result<&mut EngineProcess, Failure> {
        if self.process.is_none() {
            let (program, args) = if self.spec.cmd == "self" {
                let me = std::env::current_exe().map_err(|e| Failure::Crash(e.to_string()))?;
                (me.display().to_string(), vec!["engine".to_string()])
            } else {
                (self.spec.cmd.clone(), self.spec.args.clone())
            };
            let mut p = EngineProcess::start(&program, &args)
                .map_err(|e| Failure::Crash(format!("cannot start {program}: {e}")))?;
            for (name, value) in &self.spec.options {
                let request = Request {
                    id: None,
                    command: Command::SetOption {
                        name: name.clone(),
                        value: value.clone(),
                    },
                };
                match p.ask(&request, REPLY_TIMEOUT)? {
                    Reply::Ok { .. } => {}
                    other => {
                        return Err(Failure::Protocol(format!(
                            "setoption {name}: {}",
                            other.to_line()
                        )));
                    }
                }
            }
            self.process = Some(p);
        }
        Ok(self.process.as_mut().expect("just started"))
    }

    /// Sends a request and expects `ok`; any failure drops the process.
    fn expect_ok(&mut self, request: Request) -> Result<(), Failure> {
        let result = self
            .process()
            .and_then(|p| p.ask(&request, REPLY_TIMEOUT))
            .and_then(|r| match r {
                Reply::Ok { .. } => Ok(()),
                other => Err(Failure::Protocol(format!(
                    "expected ok, got {}",
                    other.to_line()
                ))),
            });
        if result.is_err() {
            self.process = None;
        }
        result
    }

    /// Asks for a move in `game`; the move is checked by the caller.
    fn best_move(&mut self, game: &Game) -> Result<(Reply, Duration), Failure> {
        let request = Request {
            id: None,
            command: Command::Position(PositionRequest {
                moves: Some(Moves::Text(game.move_string())),
                board: None,
            }),
        };
        self.expect_ok(request)?;
        let limits = GoLimits {
            depth: self.spec.depth,
            nodes: self.spec.nodes,
            movetime_ms: self.spec.movetime_ms,
            ..GoLimits::default()
        };
        let timeout = self.spec.movetime_ms.map_or(SEARCH_TIMEOUT, |ms| {
            Duration::from_millis(ms) + TIME_MARGIN + REPLY_TIMEOUT
        });
        let process = self.process()?;
        let start = Instant::now();
        process.send(&Request {
            id: None,
            command: Command::Go(limits),
        })?;
        let result = process.recv_final(start + timeout, |_| {});
        let elapsed = start.elapsed();
        match result {
            Ok(reply @ Reply::Bestmove { .. }) => Ok((reply, elapsed)),
            Ok(other) => {
                self.process = None;
                Err(Failure::Protocol(format!(
                    "expected bestmove, got {}",
                    other.to_line()
                )))
            }
            Err(e) => {
                self.process = None;
                Err(e)
            }
        }
    }
}

/// Plays `opening` and then alternates `first` and `second` until the game
/// ends or an engine forfeits.
pub fn play_game(rules: Rules, opening: &str, first: &mut Seat, second: &mut Seat) -> GameRecord {
    let mut game = Game::from_move_string(rules, opening).expect("openings are checked when read");
    let mut plies = Vec::new();
    let forfeit = |loser: Player, reason: &str, detail: String| Outcome {
        winner: Some(loser.other()),
        reason: reason.to_string(),
        detail: Some(detail),
    };
    let newgame = |seat: &mut Seat| {
        seat.expect_ok(Request {
            id: None,
            command: Command::NewGame { rules, seed: None },
        })
    };
    let outcome = 'game: {
        for (seat, player) in [(&mut *first, Player::First), (&mut *second, Player::Second)] {
            if let Err(e) = newgame(seat) {
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
            let mover = game.side_to_move();
            let seat = if mover == Player::First {
                &mut *first
            } else {
                &mut *second
            };
            let (reply, elapsed) = match seat.best_move(&game) {
                Ok(r) => r,
                Err(e) => break forfeit(mover, e.reason(), e.detail().to_string()),
            };
            let Reply::Bestmove {
                column,
                score,
                depth,
                nodes,
                ..
            } = reply
            else {
                unreachable!("best_move only returns bestmove replies")
            };
            if let Some(ms) = seat.spec.movetime_ms
                && elapsed > Duration::from_millis(ms) + TIME_MARGIN
            {
                break forfeit(
                    mover,
                    "time",
                    format!("{} ms for a {ms} ms move", elapsed.as_millis()),
                );
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
    GameRecord {
        opening: opening.to_string(),
        moves: game.move_string(),
        outcome,
        plies,
    }
}
