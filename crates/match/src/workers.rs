//! Running a schedule: K games at once, each worker with its own engine
//! processes (started once, reused with `newgame`), results handed back in
//! the order games finish.
//!
//! Stopping is cooperative: `stop` makes workers take no new game (running
//! ones finish and are reported); `abort` abandons running games between
//! moves (they are not reported, so a resumed run plays them again). After
//! an interrupt, a game lost by a crash or a stall is abandoned too: the
//! signal that stops the arena may have reached the engine as well (Slurm's
//! `scancel` signals every process of a job), and that is no result.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use connect4::Rules;
use connect4::openings::game_seed;

use crate::debug_log::DebugLog;
use crate::ending::Reason;
use crate::live::InProgress;
use crate::play::{Adjudicator, GameRecord, GameSetup, Seat, play_game};
use crate::schedule::Job;
use crate::spec::EngineSpec;
use crate::stderr::StderrLog;

/// What the workers need.
#[derive(Clone)]
pub struct RunConfig {
    /// The board.
    pub rules: Rules,
    /// The engines, in the schedule's numbering.
    pub specs: Vec<EngineSpec>,
    /// Games at once.
    pub concurrency: usize,
    /// Default time margin of engines that set none.
    pub margin: Duration,
    /// Solver adjudication budget per position, if on.
    pub adjudicate: Option<u64>,
    /// Seed from which every game's `newgame` seed derives.
    pub seed: u64,
    /// Where the engines' stderr goes, if anywhere.
    pub stderr_log: Option<Arc<StderrLog>>,
    /// Longest search without a clock.
    pub max_move_time: Duration,
    /// Where every line to and from the engines goes (`--debug`).
    pub debug: Option<Arc<DebugLog>>,
    /// The games under way, for a page that follows the run (`--serve`).
    pub in_progress: Option<Arc<InProgress>>,
    /// The engines contained (`--isolate`), if any.
    pub confine: Option<Arc<crate::confine::Confinement>>,
}

/// Whether to go on after a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// Keep starting games.
    Continue,
    /// Start no more games.
    Stop,
}

/// The flags that end a run early.
#[derive(Clone, Default)]
pub struct Flags {
    /// Start no new game.
    pub stop: Arc<AtomicBool>,
    /// Abandon running games.
    pub abort: Arc<AtomicBool>,
    /// A signal (Ctrl-C, SIGTERM) asked the run to stop; `None` when no
    /// handler listens for one (the grader), so that nothing waits for it.
    pub interrupted: Option<Arc<AtomicBool>>,
}

/// Whether a game is abandoned rather than reported because it was lost to
/// an interrupt: it ended by a crash or a stall and the run is being
/// interrupted. The signal reaches the engine and the arena at about the
/// same time, so a crash waits [`INTERRUPT_GRACE`] for the arena's own.
fn lost_to_the_interrupt(record: &GameRecord, interrupted: Option<&AtomicBool>) -> bool {
    let Some(interrupted) = interrupted else {
        return false;
    };
    if !matches!(record.end.reason, Reason::Crash | Reason::Stall) {
        return false;
    }
    let deadline = Instant::now() + INTERRUPT_GRACE;
    loop {
        if interrupted.load(Ordering::SeqCst) {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// How long a crash waits to learn whether the arena is being interrupted.
const INTERRUPT_GRACE: Duration = Duration::from_millis(50);

/// Plays `jobs`; `on_game` sees each finished game and may stop the run.
pub fn run(
    config: &RunConfig,
    jobs: Vec<Job>,
    flags: &Flags,
    mut on_game: impl FnMut(&Job, GameRecord) -> Control,
) {
    if jobs.is_empty() {
        return;
    }
    let workers = config.concurrency.clamp(1, jobs.len());
    let queue = Arc::new(Mutex::new(VecDeque::from(jobs)));
    let (tx, rx) = mpsc::channel::<(Job, GameRecord)>();
    std::thread::scope(|scope| {
        for lane in 0..workers {
            let queue = Arc::clone(&queue);
            let tx = tx.clone();
            let flags = flags.clone();
            scope.spawn(move || {
                let mut seats: Vec<Seat> = config
                    .specs
                    .iter()
                    .map(|s| {
                        Seat::new(s.clone(), config.margin)
                            .with_stderr_log(config.stderr_log.clone())
                            .with_max_move_time(config.max_move_time)
                            .with_debug(config.debug.clone())
                    })
                    .collect();
                let mut adjudicator = config.adjudicate.map(Adjudicator::new);
                loop {
                    if flags.stop.load(Ordering::Relaxed)
                        || flags
                            .interrupted
                            .as_ref()
                            .is_some_and(|i| i.load(Ordering::Relaxed))
                    {
                        break;
                    }
                    let job = queue.lock().map(|mut q| q.pop_front()).unwrap_or(None);
                    let Some(job) = job else { break };
                    let played = contained(config, &job, lane, &mut seats, |seats| {
                        play_job(config, &job, seats, adjudicator.as_mut(), &flags)
                    });
                    let record = match played {
                        Ok(Some(record)) => record,
                        Ok(None) => break,
                        Err(e) => {
                            eprintln!("connect4-arena: game {}: {e}", job.game);
                            flags.stop.store(true, Ordering::Relaxed);
                            break;
                        }
                    };
                    if lost_to_the_interrupt(&record, flags.interrupted.as_deref()) {
                        eprintln!(
                            "connect4-arena: game {} abandoned: {} while the run was stopping \
                             (a resumed run plays it again)",
                            job.game,
                            record.end.detail.as_deref().unwrap_or("an engine failed")
                        );
                        break;
                    }
                    if tx.send((job, record)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for (job, record) in rx {
            if on_game(&job, record) == Control::Stop {
                flags.stop.store(true, Ordering::Relaxed);
            }
        }
    });
}

/// `play` on `seats`, `job`'s contained engines (if the run contains
/// any) in cells of theirs on `lane`, their seats given the specs that run
/// in them; when the game ends, their processes end, and every process of
/// their users with them.
fn contained<T>(
    config: &RunConfig,
    job: &Job,
    lane: usize,
    seats: &mut [Seat],
    play: impl FnOnce(&mut [Seat]) -> T,
) -> Result<T, crate::contain::ContainError> {
    let Some(confine) = &config.confine else {
        return Ok(play(seats));
    };
    let mut cells = Vec::new();
    for engine in [job.first, job.second] {
        if let Some((spec, cell)) = confine.enter(engine, lane)? {
            seats[engine].spec = spec;
            cells.push(cell);
        }
    }
    let played = play(seats);
    if !cells.is_empty() {
        seats[job.first].end_process();
        seats[job.second].end_process();
    }
    drop(cells);
    Ok(played)
}

/// Plays `job` on its two seats, telling the board of games under way (if
/// the run has one) its moves; `None` if the game was abandoned.
fn play_job(
    config: &RunConfig,
    job: &Job,
    seats: &mut [Seat],
    adjudicator: Option<&mut Adjudicator>,
    flags: &Flags,
) -> Option<GameRecord> {
    let (first, second) = two_seats(seats, job.first, job.second);
    let board = config.in_progress.as_deref();
    if let Some(b) = board {
        b.start(
            job.game,
            &first.spec.name,
            &second.spec.name,
            job.opening.as_str(),
        );
    }
    let tell = |moves: &str| {
        if let Some(b) = board {
            b.moved(job.game, moves);
        }
    };
    let setup = GameSetup {
        rules: config.rules,
        opening: &job.opening,
        seed: game_seed(config.seed, job.game),
        adjudicator,
        abort: &flags.abort,
        on_move: board.map(|_| &tell as &dyn Fn(&str)),
    };
    let record = play_game(setup, first, second);
    if let Some(b) = board {
        b.end(job.game);
    }
    record
}

/// Two distinct seats, mutably.
fn two_seats(seats: &mut [Seat], a: usize, b: usize) -> (&mut Seat, &mut Seat) {
    assert_ne!(a, b, "an engine does not play itself");
    if a < b {
        let (left, right) = seats.split_at_mut(b);
        (&mut left[a], &mut right[0])
    } else {
        let (left, right) = seats.split_at_mut(a);
        (&mut right[0], &mut left[b])
    }
}
