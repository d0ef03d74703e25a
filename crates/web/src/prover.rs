//! Proofs that outlast a request: a column whose proof the page asked for
//! is proven on the prover's own thread, slice after slice with one table
//! (so that nothing proven is lost between slices), until it is proven or
//! nobody has asked for it for [`ABANDON`] (the page moved on). A request
//! waits for its proof at most [`WAIT`], then answers that the proof goes
//! on; the page asks again. The prover runs at the requests' priority,
//! above the background judging of the logs (which gives way), and a
//! proof never holds an answering thread beyond [`WAIT`].

use std::collections::{HashMap, VecDeque};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use connect4::book::Book;
use connect4::search::{Limits, Solver};
use connect4::{Position, Rules};

/// How long a request waits for its column's proof before answering
/// that it goes on.
pub const WAIT: Duration = Duration::from_secs(2);
/// A proof nobody asked for in this long is dropped.
const ABANDON: Duration = Duration::from_secs(15);
/// The prover's time slice: between slices it drops abandoned proofs and
/// takes the oldest wanted one.
const SLICE: Duration = Duration::from_millis(500);
/// Proofs wanted or done, at most; the oldest done ones go first.
const MOST: usize = 256;
/// The prover's table.
const HASH_MB: usize = 64;

/// A column of a position: the board, the moves (the command line's
/// string) and the column from 0.
pub type Key = (Rules, String, u32);

/// Where a proof stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standing {
    /// Proven: the column's exact score.
    Proven(i32),
    /// Still being proven, for this long so far.
    Proving(Duration),
}

/// One proof.
struct Proof {
    /// When it was first asked for.
    since: Instant,
    /// When it was last asked for.
    asked: Instant,
    /// Its score, once proven.
    score: Option<i32>,
}

/// The proofs, and the order they were asked in.
#[derive(Default)]
struct Ledger {
    proofs: HashMap<Key, Proof>,
    order: VecDeque<Key>,
}

/// The prover: the proofs asked for, and its thread.
pub struct Prover {
    ledger: Mutex<Ledger>,
    /// Signalled when a proof is asked for or done.
    changed: Condvar,
}

/// The server's one prover, its thread started on first use.
pub fn prover() -> &'static Prover {
    static PROVER: OnceLock<&'static Prover> = OnceLock::new();
    PROVER.get_or_init(|| {
        let prover: &'static Prover = Box::leak(Box::new(Prover {
            ledger: Mutex::new(Ledger::default()),
            changed: Condvar::new(),
        }));
        std::thread::Builder::new()
            .name("prover".into())
            .spawn(move || prover.work())
            .expect("starting the prover's thread");
        prover
    })
}

impl Prover {
    fn lock(&self) -> MutexGuard<'_, Ledger> {
        self.ledger.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Asks for the proof of `key` (a playable column of a position that is
    /// not over), waiting for it up to `wait`.
    pub fn ask(&self, key: Key, wait: Duration) -> Standing {
        let now = Instant::now();
        let mut book = self.lock();
        if !book.proofs.contains_key(&key) {
            book.make_room();
            book.order.push_back(key.clone());
            book.proofs.insert(
                key.clone(),
                Proof {
                    since: now,
                    asked: now,
                    score: None,
                },
            );
            self.changed.notify_all();
        }
        let deadline = now + wait;
        loop {
            let proof = book.proofs.get_mut(&key).expect("asked for above");
            proof.asked = Instant::now();
            if let Some(score) = proof.score {
                return Standing::Proven(score);
            }
            let since = proof.since;
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Standing::Proving(since.elapsed());
            }
            book = self
                .changed
                .wait_timeout(book, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
            if !book.proofs.contains_key(&key) {
                return Standing::Proving(since.elapsed());
            }
        }
    }

    /// The prover's thread: the oldest wanted proof, slice after slice.
    fn work(&self) {
        let mut solver = Solver::new(HASH_MB).with_book(Some(Book::shipped()));
        solver.set_threads(std::thread::available_parallelism().map_or(1, |n| n.get()));
        loop {
            let Some((key, position)) = self.next() else {
                continue;
            };
            solver.set_limits(&Limits::time(SLICE), None);
            if let Some(score) = solver.column_score_within(&position, key.2) {
                let mut book = self.lock();
                if let Some(proof) = book.proofs.get_mut(&key) {
                    proof.score = Some(score);
                }
                self.changed.notify_all();
            }
        }
    }

    /// The oldest proof still wanted and not done, with its position; waits
    /// for one when there is none. Abandoned proofs are dropped first.
    fn next(&self) -> Option<(Key, Position)> {
        let mut book = self.lock();
        book.drop_abandoned();
        let wanted = book
            .order
            .iter()
            .find(|k| book.proofs.get(*k).is_some_and(|p| p.score.is_none()))
            .cloned();
        let Some(key) = wanted else {
            drop(
                self.changed
                    .wait_timeout(book, ABANDON)
                    .unwrap_or_else(|e| e.into_inner()),
            );
            return None;
        };
        drop(book);
        let game = connect4::Game::from_move_string(key.0, &key.1).ok()?;
        Some((key, *game.position()))
    }
}

impl Ledger {
    /// Drops the proofs nobody asked for in [`ABANDON`], done or not.
    fn drop_abandoned(&mut self) {
        let proofs = &mut self.proofs;
        self.order.retain(|k| {
            let keep = proofs
                .get(k)
                .is_some_and(|p| p.score.is_some() || p.asked.elapsed() < ABANDON);
            if !keep {
                proofs.remove(k);
            }
            keep
        });
    }

    /// Room for one more: past [`MOST`], the oldest done proof goes (or
    /// the oldest of all, if none is done).
    fn make_room(&mut self) {
        while self.proofs.len() >= MOST {
            let at = self
                .order
                .iter()
                .position(|k| self.proofs.get(k).is_some_and(|p| p.score.is_some()))
                .unwrap_or(0);
            if let Some(key) = self.order.remove(at) {
                self.proofs.remove(&key);
            } else {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A column whose proof outlasts a request's wait keeps being proven:
    /// asked again and again, it arrives, and equals the solver's score
    /// (issue #48). The position's columns take seconds in all.
    #[test]
    fn a_proof_that_outlasts_a_request_arrives_when_asked_again() {
        let moves = "12345";
        let p = *connect4::Game::from_move_string(Rules::STANDARD, moves)
            .unwrap()
            .position();
        let truth = Solver::new(16).analyze(&p);
        for column in 0..7u32 {
            let key = (Rules::STANDARD, moves.to_string(), column);
            let first = prover().ask(key.clone(), Duration::ZERO);
            let mut standing = first;
            while let Standing::Proving(_) = standing {
                standing = prover().ask(key.clone(), WAIT);
            }
            assert_eq!(standing, Standing::Proven(truth[column as usize].unwrap()));
        }
    }

    #[test]
    fn the_ledger_holds_at_most_its_bound_dropping_done_proofs_first() {
        let mut ledger = Ledger::default();
        let now = Instant::now();
        for i in 0..(MOST as u32 + 40) {
            ledger.make_room();
            let key = (Rules::STANDARD, i.to_string(), 0);
            ledger.order.push_back(key.clone());
            let score = (i % 2 == 0).then_some(0);
            let proof = Proof {
                since: now,
                asked: now,
                score,
            };
            ledger.proofs.insert(key, proof);
        }
        assert!(ledger.proofs.len() <= MOST);
        assert_eq!(ledger.order.len(), ledger.proofs.len());
        // The proofs still wanted were kept before the done ones.
        let wanted = ledger.proofs.values().filter(|p| p.score.is_none()).count();
        assert_eq!(wanted, (MOST + 40) / 2);
    }
}
