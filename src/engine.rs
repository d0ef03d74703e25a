//! The engine facade: the protocol's only door into the engine.
//!
//! It holds a game, the players (the solver's searcher and an optional
//! agent), and a search thread. It owns what a front end must not decide
//! for itself: building agents from their specs (and listing and describing
//! them), turning a move time or a clock into search limits, and knowing
//! whether a search has no limit at all (so that end of input stops it). It
//! re-exports the few value types a front end needs to read results.
//!
//! `go` is non-blocking: it moves the players to the search thread, which
//! reports through the callbacks it was given and hands them back when it
//! ends. The search thread lives as long as the engine (starting a thread
//! per move cost more than a whole move of a fast agent). `stop` raises the
//! atomic flag the search polls and waits for the players to come back.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};

use std::time::Duration;

use crate::agents::{Agent, SessionPlayer, scaled_value};
use crate::book::Book;
use crate::game::Game;
use crate::rules::Rules;
use crate::search::Searcher;

pub use crate::agents::AgentError;
pub use crate::search::{DEEP_TABLE_MB, DEFAULT_HASH_MB};
pub use crate::search::{Limits, Report, SearchScore};

/// What a `go` or `analyze` asks for. Every limit is optional; with none,
/// the solver searches until the value is proven.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GoRequest {
    /// Deepest iteration, in plies.
    pub depth: Option<u32>,
    /// Most nodes.
    pub nodes: Option<u64>,
    /// Time for this move.
    pub movetime: Option<Duration>,
    /// The mover's clock: time left and increment per move.
    pub clock: Option<(Duration, Duration)>,
    /// Search until stopped (analysis): no limit, and no answer from the
    /// book.
    pub infinite: bool,
}

impl GoRequest {
    /// The search limits for a position with `empty` cells: the clock
    /// becomes a time budget, and the smaller of it and the move time wins.
    pub fn limits(&self, empty: u32) -> Limits {
        let clock = self
            .clock
            .map(|(left, inc)| Limits::time_for_clock(left, inc, empty));
        let time = match (self.movetime, clock) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        Limits {
            depth: self.depth,
            nodes: self.nodes,
            time,
        }
    }
}

/// What a finished search hands to its `done` callback.
pub type Done = Box<dyn FnOnce(Option<Report>) + Send>;
/// What a resize hands to its `done` callback.
pub type ResizeDone = Box<dyn FnOnce(Result<(), TableError>) + Send>;

/// Tables of the size asked for could not be had.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{hash_mb} MiB of table needs about {needed} MiB of memory in all (a quarter more \
     for the clocked search's own table, and a small one for the solver's deepest \
     positions), which this machine or its limits do not give; the table stays at {kept} MiB"
)]
pub struct TableError {
    /// The size asked for, in MiB.
    pub hash_mb: usize,
    /// The memory it needs in all, in MiB.
    pub needed: usize,
    /// The size kept, in MiB.
    pub kept: usize,
}

/// What a finished analysis hands over: (0-based column, score) pairs.
pub type AnalysisDone = Box<dyn FnOnce(Vec<(u32, SearchScore)>) + Send>;
/// What a worker job returns: the delivery of its final reply.
type Delivery = Box<dyn FnOnce() + Send>;
/// What a running search calls after each completed iteration.
pub type OnReport = Box<dyn FnMut(&Report) + Send>;

/// The engine: the current game and the search that plays it.
pub struct Engine {
    game: Game,
    /// The table size in MiB, as last set successfully (the search thread
    /// sets it when a resize succeeds).
    hash_mb: Arc<AtomicUsize>,
    /// Whether the engine's own Searcher answers `go` (no other agent is
    /// set).
    searcher_answers: bool,
    /// Whether the running (or last) search has no limit at all.
    unbounded: bool,
    /// The book the searcher uses, kept here too so that `hello` never
    /// waits for a running search to hand the players back.
    book: Option<Arc<Book>>,
    /// The players when idle; `None` while a search holds them.
    players: Option<Players>,
    /// The search thread, started on first use.
    thread: Option<SearchThread>,
    /// The running (or finished, not yet reclaimed) search.
    worker: Option<Worker>,
}

/// A job for the search thread: it runs, then hands the players back.
type Task = Box<dyn FnOnce() -> Players + Send>;

/// The long-lived search thread and its two channels.
struct SearchThread {
    tasks: Sender<Task>,
    players: Receiver<Players>,
}

impl SearchThread {
    fn start() -> SearchThread {
        let (task_tx, task_rx) = mpsc::channel::<Task>();
        let (players_tx, players_rx) = mpsc::channel();
        std::thread::spawn(move || {
            for task in task_rx {
                if players_tx.send(task()).is_err() {
                    return;
                }
            }
        });
        SearchThread {
            tasks: task_tx,
            players: players_rx,
        }
    }
}

/// The players: the engine's own Searcher (which also analyses) and the
/// agent that answers `go` instead of it, if one is set.
struct Players {
    searcher: Searcher,
    agent: Option<Box<dyn Agent>>,
    /// The searcher's own limits from its spec, for kinds a `go` leaves out.
    own: Limits,
}

/// A running (or just finished) search.
struct Worker {
    stop: Arc<AtomicBool>,
    /// Set by the worker just before it reports its result, so that a
    /// client that saw the result never finds the engine busy.
    done: Arc<AtomicBool>,
}

impl Engine {
    /// An engine on the standard empty board with a `hash_mb` MiB table.
    pub fn new(hash_mb: usize) -> Engine {
        let searcher = Searcher::new(hash_mb);
        Engine {
            game: Game::new(Rules::STANDARD),
            hash_mb: Arc::new(AtomicUsize::new(hash_mb)),
            searcher_answers: true,
            unbounded: false,
            book: searcher.book().cloned(),
            players: Some(Players {
                searcher,
                agent: None,
                own: Limits::none(),
            }),
            thread: None,
            worker: None,
        }
    }

    /// The current game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// Whether a search is running (one that has reported its result counts
    /// as ended).
    pub fn is_searching(&self) -> bool {
        self.worker
            .as_ref()
            .is_some_and(|w| !w.done.load(Ordering::Acquire))
    }

    /// Waits for the running search, if any, and takes the players back.
    fn reclaim(&mut self) {
        if self.worker.take().is_some() {
            let back = self.thread.as_ref().map(|t| t.players.recv());
            match back {
                Some(Ok(players)) => self.players = Some(players),
                // A search that panicked took its thread and the players
                // with it: start afresh.
                _ => {
                    self.thread = None;
                    self.players = None;
                }
            }
        }
    }

    fn players(&mut self) -> &mut Players {
        self.reclaim();
        let hash_mb = self.hash_mb.load(Ordering::Relaxed);
        let book = &self.book;
        self.players.get_or_insert_with(|| {
            let mut searcher = Searcher::new(hash_mb);
            searcher.set_book(book.clone());
            Players {
                searcher,
                agent: None,
                own: Limits::none(),
            }
        })
    }

    /// Searches with `threads` threads (the solver's proofs share one table).
    pub fn set_threads(&mut self, threads: usize) {
        self.stop();
        self.players().searcher.set_threads(threads);
    }

    /// Turns the opening book on (the default) or off.
    pub fn set_book(&mut self, on: bool) {
        self.stop();
        let book = on.then(Book::shipped);
        self.book.clone_from(&book);
        self.players().searcher.set_book(book);
    }

    /// The book in use, if any; answered at once, even while a search runs.
    pub fn book(&self) -> Option<Arc<Book>> {
        self.book.clone()
    }

    /// The names of the agents a spec may start with.
    pub fn agent_names() -> Vec<String> {
        crate::agents::names().map(String::from).collect()
    }

    /// Every agent with its parameters, one `name[:params]` per line.
    pub fn agent_help() -> String {
        crate::agents::describe()
    }

    /// Sets the agent that answers `go` from its spec (`solver` for the
    /// engine's own search); on an error the agent in place stays.
    pub fn set_agent(&mut self, spec: &str) -> Result<(), AgentError> {
        let player = crate::agents::session_player(spec)?;
        self.stop();
        let players = self.players();
        match player {
            SessionPlayer::Searcher(own) => {
                players.agent = None;
                players.own = own;
            }
            SessionPlayer::Agent(agent) => {
                players.agent = Some(agent);
                players.own = Limits::none();
            }
        }
        self.searcher_answers = self.players().agent.is_none();
        Ok(())
    }

    /// Whether the engine's own search answers `go` (no agent is set).
    pub fn searcher_answers(&self) -> bool {
        self.searcher_answers
    }

    /// Whether the agent can play on the current game's board; the error
    /// says why not (a learned model made for another board).
    pub fn check_agent(&mut self) -> Result<(), AgentError> {
        let rules = self.game.rules();
        match &self.players().agent {
            Some(agent) => agent.check_rules(rules),
            None => Ok(()),
        }
    }

    /// A new game on `rules`: the tables are cleared and the agent hears of
    /// it (with the game's seed, if any).
    pub fn new_game(&mut self, rules: Rules, seed: Option<u64>) {
        self.stop();
        let players = self.players();
        players.searcher.clear();
        if let Some(agent) = &mut players.agent {
            agent.new_game(seed);
        }
        self.game = Game::new(rules);
    }

    /// Sets the current game.
    pub fn set_game(&mut self, game: Game) {
        self.stop();
        self.game = game;
    }

    /// Resizes the tables (their contents are lost) on the search thread,
    /// so that `ping` is answered while the memory is filled; returns at
    /// once and tells `done` whether it worked. The old tables are freed
    /// first, so old and new are never held at once; if the new size
    /// cannot be had, the old size is taken again.
    pub fn resize(&mut self, hash_mb: usize, done: ResizeDone) {
        let current = Arc::clone(&self.hash_mb);
        self.spawn(move |players, _, _| {
            let old = current.load(Ordering::Relaxed);
            // The new tables keep the settings of the old ones.
            let (book, threads) = (players.searcher.book().cloned(), players.searcher.threads());
            let settle = |mut s: Searcher| {
                s.set_book(book.clone());
                s.set_threads(threads);
                s
            };
            players.searcher = settle(Searcher::new(1));
            let result = match Searcher::try_new(hash_mb) {
                Some(s) => {
                    players.searcher = settle(s);
                    current.store(hash_mb, Ordering::Relaxed);
                    Ok(())
                }
                None => {
                    let kept = match Searcher::try_new(old) {
                        Some(s) => {
                            players.searcher = settle(s);
                            old
                        }
                        None => {
                            current.store(1, Ordering::Relaxed);
                            1
                        }
                    };
                    Err(TableError {
                        hash_mb,
                        needed: Searcher::mebibytes_for(hash_mb),
                        kept,
                    })
                }
            };
            Box::new(move || done(result))
        });
    }

    /// The memory the tables of `hash_mb` MiB take in all, in MiB.
    pub fn table_mebibytes(hash_mb: usize) -> usize {
        Searcher::mebibytes_for(hash_mb)
    }

    /// Starts searching the current position; returns at once. `on_report`
    /// sees each completed iteration, `done` the final report (`None` if the
    /// game is over). A running search is stopped first.
    pub fn go(&mut self, request: &GoRequest, mut on_report: OnReport, done: Done) {
        let own = self.players().own.clone();
        let limits = request
            .limits(self.game.position().empty_cells())
            .filled_from(&own);
        // Agents other than the solver stop at their own depth.
        self.unbounded = limits == Limits::none() && self.searcher_answers;
        let analysis = request.infinite;
        self.spawn(move |players, position, stop| {
            let report = match &mut players.agent {
                None if analysis => {
                    // Searching until stopped is analysis: the book, which
                    // would answer at once, stays out of it.
                    let book = players.searcher.book().cloned();
                    players.searcher.set_book(None);
                    let r = players
                        .searcher
                        .search(position, &limits, Some(stop), |r| on_report(r));
                    players.searcher.set_book(book);
                    r
                }
                None => players
                    .searcher
                    .search(position, &limits, Some(stop), |r| on_report(r)),
                Some(agent) => (!position.is_over()).then(|| {
                    let start = std::time::Instant::now();
                    let m = agent.choose(position, &limits, Some(stop));
                    let report = Report {
                        depth: m.depth,
                        best: m.column,
                        score: SearchScore::estimate(m.value.map_or(0, scaled_value)),
                        nodes: m.nodes,
                        time: start.elapsed(),
                        pv: vec![m.column],
                        agent_value: m.value,
                    };
                    on_report(&report);
                    report
                }),
            };
            Box::new(move || done(report))
        });
    }

    /// Starts scoring every legal column of the current position; returns at
    /// once. `done` gets (0-based column, score) pairs, left to right.
    pub fn analyze(&mut self, request: &GoRequest, done: AnalysisDone) {
        let limits = request.limits(self.game.position().empty_cells());
        self.unbounded = limits == Limits::none();
        self.spawn(move |players, position, stop| {
            let scores = players.searcher.analyze(position, &limits, Some(stop));
            Box::new(move || done(scores))
        });
    }

    /// Runs `job` on a worker thread with the players, the current position
    /// and the stop flag; the job returns its final report, which the worker
    /// delivers after marking itself done.
    fn spawn<J>(&mut self, job: J)
    where
        J: FnOnce(&mut Players, &crate::position::Position, Arc<AtomicBool>) -> Delivery
            + Send
            + 'static,
    {
        self.stop();
        self.players();
        let mut players = self.players.take().expect("players() filled it");
        let position = *self.game.position();
        let stop = Arc::new(AtomicBool::new(false));
        let finished = Arc::new(AtomicBool::new(false));
        let (flag, finished_flag) = (stop.clone(), finished.clone());
        let mut task: Task = Box::new(move || {
            let deliver = job(&mut players, &position, flag);
            finished_flag.store(true, Ordering::Release);
            deliver();
            players
        });
        // A thread that died with an earlier panic is replaced.
        for _ in 0..2 {
            let thread = self.thread.get_or_insert_with(SearchThread::start);
            match thread.tasks.send(task) {
                Ok(()) => break,
                Err(mpsc::SendError(back)) => {
                    task = back;
                    self.thread = None;
                }
            }
        }
        self.worker = Some(Worker {
            stop,
            done: finished,
        });
    }

    /// Stops the running search, if any, and waits until it has reported.
    pub fn stop(&mut self) {
        if let Some(w) = &self.worker {
            w.stop.store(true, Ordering::Relaxed);
        }
        self.reclaim();
    }

    /// Whether the running (or last) search has no limit at all.
    pub fn is_unbounded(&self) -> bool {
        self.unbounded
    }

    /// The input ended: a running search with limits may finish (its reply
    /// is still wanted), one without any is stopped. Returns once it has
    /// reported.
    pub fn finish(&mut self) {
        if self.unbounded {
            self.stop();
        } else {
            self.reclaim();
        }
    }
}

/// Checks that `spec` names a player this engine can be (an agent with
/// valid parameters, or the solver): the error says what is wrong, as
/// `setoption agent` would.
pub fn check_player_spec(spec: &str) -> Result<(), AgentError> {
    crate::agents::session_player(spec).map(|_| ())
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stop();
    }
}
