//! The engine facade: a game, a searcher, and a search thread.
//!
//! `go` is non-blocking: it moves the searcher into a worker thread, which
//! reports through the callbacks it was given and hands the searcher back
//! when it ends. `stop` raises the atomic flag the search polls and waits for
//! the worker. The protocol layer sits on top and only formats.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use crate::game::Game;
use crate::rules::Rules;
use crate::search::{Limits, Report, SearchScore, Searcher};

/// What a finished search hands to its `done` callback.
pub type Done = Box<dyn FnOnce(Option<Report>) + Send>;
/// What a finished analysis hands over: (0-based column, score) pairs.
pub type AnalysisDone = Box<dyn FnOnce(Vec<(u32, SearchScore)>) + Send>;
/// What a worker job returns: the delivery of its final reply.
type Delivery = Box<dyn FnOnce() + Send>;
/// What a running search calls after each completed iteration.
pub type OnReport = Box<dyn FnMut(&Report) + Send>;

/// The engine: the current game and the search that plays it.
pub struct Engine {
    game: Game,
    hash_mb: usize,
    /// The searcher when idle; `None` while a worker holds it.
    searcher: Option<Searcher>,
    worker: Option<Worker>,
}

/// A running (or just finished) search.
struct Worker {
    handle: JoinHandle<Searcher>,
    stop: Arc<AtomicBool>,
    /// Set by the worker just before it reports its result, so that a
    /// client that saw the result never finds the engine busy.
    done: Arc<AtomicBool>,
}

impl Engine {
    /// An engine on the standard empty board with a `hash_mb` MiB table.
    pub fn new(hash_mb: usize) -> Engine {
        Engine {
            game: Game::new(Rules::STANDARD),
            hash_mb,
            searcher: Some(Searcher::new(hash_mb)),
            worker: None,
        }
    }

    /// The current game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// Table size in MiB.
    pub fn hash_mb(&self) -> usize {
        self.hash_mb
    }

    /// Whether a search is running (one that has reported its result counts
    /// as ended).
    pub fn is_searching(&self) -> bool {
        self.worker
            .as_ref()
            .is_some_and(|w| !w.done.load(Ordering::Acquire))
    }

    /// Takes the searcher back from a finished worker.
    fn reclaim(&mut self) {
        if let Some(worker) = self.worker.take() {
            let searcher = worker
                .handle
                .join()
                .unwrap_or_else(|_| Searcher::new(self.hash_mb));
            self.searcher = Some(searcher);
        }
    }

    fn searcher(&mut self) -> &mut Searcher {
        self.reclaim();
        self.searcher
            .get_or_insert_with(|| Searcher::new(self.hash_mb))
    }

    /// A new game on `rules`: the tables are cleared.
    pub fn new_game(&mut self, rules: Rules) {
        self.stop();
        self.searcher().clear();
        self.game = Game::new(rules);
    }

    /// Sets the current game.
    pub fn set_game(&mut self, game: Game) {
        self.stop();
        self.game = game;
    }

    /// Resizes the table (its contents are lost).
    pub fn set_hash_mb(&mut self, hash_mb: usize) {
        self.stop();
        self.hash_mb = hash_mb;
        self.searcher = Some(Searcher::new(hash_mb));
    }

    /// Starts searching the current position; returns at once. `on_report`
    /// sees each completed iteration, `done` the final report (`None` if the
    /// game is over). A running search is stopped first.
    pub fn go(&mut self, limits: Limits, mut on_report: OnReport, done: Done) {
        self.spawn(move |searcher, position, stop| {
            let report = searcher.search(position, &limits, Some(stop), |r| on_report(r));
            Box::new(move || done(report))
        });
    }

    /// Starts scoring every legal column of the current position; returns at
    /// once. `done` gets (0-based column, score) pairs, left to right.
    pub fn analyze(&mut self, limits: Limits, done: AnalysisDone) {
        self.spawn(move |searcher, position, stop| {
            let scores = searcher.analyze(position, &limits, Some(stop));
            Box::new(move || done(scores))
        });
    }

    /// Runs `job` on a worker thread with the searcher, the current position
    /// and the stop flag; the job returns its final report, which the worker
    /// delivers after marking itself done.
    fn spawn<J>(&mut self, job: J)
    where
        J: FnOnce(&mut Searcher, &crate::position::Position, Arc<AtomicBool>) -> Delivery
            + Send
            + 'static,
    {
        self.stop();
        let mut searcher = self
            .searcher
            .take()
            .unwrap_or_else(|| Searcher::new(self.hash_mb));
        let position = *self.game.position();
        let stop = Arc::new(AtomicBool::new(false));
        let finished = Arc::new(AtomicBool::new(false));
        let (flag, finished_flag) = (stop.clone(), finished.clone());
        let handle = std::thread::spawn(move || {
            let deliver = job(&mut searcher, &position, flag);
            finished_flag.store(true, Ordering::Release);
            deliver();
            searcher
        });
        self.worker = Some(Worker {
            handle,
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

    /// Waits for the running search, if any, to end by itself.
    pub fn wait(&mut self) {
        self.reclaim();
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stop();
    }
}
