//! Whether helper threads help. Two threads share one table; on a machine
//! whose two cores slow each other down (two hardware threads of one core,
//! or a virtual machine whose host places its two processors so), the
//! helper's work saves fewer nodes than its presence costs the main
//! thread, and two threads are slower than one. The main thread finds out
//! by itself, once per solve that lasts long enough: it measures its own
//! node rate with the helpers at work, then with them paused for a while;
//! if they cost it more than they can save, they stop for good.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Main-thread nodes with the helpers at work before the comparison.
const HELPED_WINDOW: u64 = 1 << 21;
/// Main-thread nodes with the helpers paused.
const PAUSED_WINDOW: u64 = 1 << 20;
/// The helpers stay if the main thread keeps at least this share of its
/// node rate with them: what they save it in nodes is less than the rest
/// (13 % on Test_L1_R3's first position, measured).
const KEEP_IF_RATE_AT_LEAST: f64 = 0.85;

/// Where the comparison stands.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    /// The helpers work; the main thread counts its nodes.
    Helped,
    /// The helpers are paused; the rate with them was this.
    Paused(f64),
    /// Decided: the helpers went on, or were stopped.
    Decided,
}

/// The main thread's side of the comparison, polled with its budget.
#[derive(Clone, Debug)]
pub struct Governor {
    /// The helpers' stop flag.
    stop: Arc<AtomicBool>,
    /// The helpers' pause flag.
    pause: Arc<AtomicBool>,
    phase: Phase,
    /// The main thread's nodes and the time when the phase began.
    mark: (u64, Instant),
}

impl Governor {
    /// A governor over helpers that `stop` ends and `pause` holds, the
    /// main thread having searched `nodes` nodes so far.
    pub fn new(stop: Arc<AtomicBool>, pause: Arc<AtomicBool>, nodes: u64) -> Governor {
        Governor {
            stop,
            pause,
            phase: Phase::Helped,
            mark: (nodes, Instant::now()),
        }
    }

    /// Looks at the main thread's node count, `nodes`, at `now`: ends a
    /// phase when its window is full.
    pub fn observe(&mut self, nodes: u64, now: Instant) {
        let done = nodes.saturating_sub(self.mark.0);
        match self.phase {
            Phase::Helped if done >= HELPED_WINDOW => {
                let helped = self.rate(nodes, now);
                self.pause.store(true, Ordering::Relaxed);
                self.phase = Phase::Paused(helped);
            }
            Phase::Paused(helped) if done >= PAUSED_WINDOW => {
                let alone = self.rate(nodes, now);
                self.pause.store(false, Ordering::Relaxed);
                if helped < KEEP_IF_RATE_AT_LEAST * alone {
                    self.stop.store(true, Ordering::Relaxed);
                }
                self.phase = Phase::Decided;
            }
            _ => return,
        }
        self.mark = (nodes, now);
    }

    /// Nodes a second from the mark to `nodes` at `now`.
    fn rate(&self, nodes: u64, now: Instant) -> f64 {
        let seconds = now.duration_since(self.mark.1).as_secs_f64().max(1e-9);
        (nodes - self.mark.0) as f64 / seconds
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether helpers are stopped when the main thread searches a node
    /// in `helped_ns` with them and in `paused_ns` without (a clock of its
    /// own: the test does not depend on the machine's speed).
    fn stopped(helped_ns: u64, paused_ns: u64) -> bool {
        let (stop, pause) = (
            Arc::new(AtomicBool::new(false)),
            Arc::new(AtomicBool::new(false)),
        );
        let start = Instant::now();
        let mut g = Governor::new(Arc::clone(&stop), Arc::clone(&pause), 0);
        g.mark.1 = start;
        let (mut nodes, mut ns) = (0u64, 0u64);
        while g.phase != Phase::Decided {
            let step = 1 << 10;
            nodes += step;
            ns += step
                * if pause.load(Ordering::Relaxed) {
                    paused_ns
                } else {
                    helped_ns
                };
            g.observe(nodes, start + std::time::Duration::from_nanos(ns));
            assert!(nodes < 1 << 30, "the comparison ends");
        }
        assert!(!pause.load(Ordering::Relaxed), "the pause ends");
        stop.load(Ordering::Relaxed)
    }

    #[test]
    fn helpers_that_cost_more_than_they_can_save_are_stopped() {
        // 30 % slower with the helpers (as measured when this machine's
        // two processors slow each other): stopped.
        assert!(stopped(70, 50));
        // As fast, or 10 % slower: kept.
        assert!(!stopped(50, 50));
        assert!(!stopped(55, 50));
    }
}
