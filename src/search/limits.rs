//! Search limits and the budget the search polls while it runs.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::priority::Starvation;

/// What may end a search early. A limit is on when it is `Some`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Deepest iteration of iterative deepening, in plies.
    pub depth: Option<u32>,
    /// Most nodes to visit.
    pub nodes: Option<u64>,
    /// Most wall time to spend.
    pub time: Option<Duration>,
}

impl Limits {
    /// No limit at all: search until the value is proven (or stopped).
    pub fn none() -> Limits {
        Limits::default()
    }

    /// These limits, with `fallback` filling in each kind of limit they
    /// lack (a `go`'s limits over a player's own, as `solver:movetime=100`
    /// gives them).
    pub fn filled_from(&self, fallback: &Limits) -> Limits {
        Limits {
            depth: self.depth.or(fallback.depth),
            nodes: self.nodes.or(fallback.nodes),
            time: self.time.or(fallback.time),
        }
    }

    /// Only a depth limit.
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    /// Only a node limit.
    pub fn nodes(nodes: u64) -> Limits {
        Limits {
            nodes: Some(nodes),
            ..Limits::default()
        }
    }

    /// Only a time limit.
    pub fn time(time: Duration) -> Limits {
        Limits {
            time: Some(time),
            ..Limits::default()
        }
    }
}

/// Time kept in reserve on a clock for process and pipe overhead.
const CLOCK_MARGIN: Duration = Duration::from_millis(10);

impl Limits {
    /// The time to spend on one move with `left` on the clock, `increment`
    /// per move and `empty` cells on the board.
    ///
    /// The side to move has about `empty / 2` moves left, but games are
    /// decided early and the end is solved fast, so the remaining time is
    /// shared as if at most 12 moves were left, plus most of the increment;
    /// never more than a third of what is left, and a margin is always kept.
    pub fn time_for_clock(left: Duration, increment: Duration, empty: u32) -> Duration {
        let moves_left = empty.div_ceil(2).clamp(2, 12);
        let share = left / moves_left + increment * 3 / 4;
        let margin = CLOCK_MARGIN.min(left / 10);
        let cap = (left / 3).saturating_sub(margin);
        share
            .min(cap)
            .max(Duration::from_millis(1))
            .min(left.saturating_sub(margin).max(Duration::from_micros(100)))
    }
}

/// Nodes between two looks at the clock and the stop flag.
const POLL_INTERVAL: u64 = 1 << 10;

/// A trial begun by [`Budget::cap_nodes_unless`].
#[derive(Clone, Copy, Debug)]
struct Trial {
    /// The node limit before it.
    limit: u64,
    /// Nodes between two caps.
    every: u64,
    /// Asked at each cap: whether to go on past it.
    go_on: fn() -> bool,
}

/// The running budget of one search: counts nodes and decides when to abort.
///
/// The node limit is checked at every node; the clock and the stop flag every
/// `POLL_INTERVAL` nodes, so polling costs next to nothing.
#[derive(Clone, Debug)]
pub struct Budget {
    nodes: u64,
    node_limit: u64,
    deadline: Option<Instant>,
    stop: Option<Arc<AtomicBool>>,
    /// Set: the search sleeps a while whenever its thread is starved.
    starvation: Option<Starvation>,
    /// During a trial begun by [`Budget::cap_nodes_unless`].
    trial: Option<Trial>,
    /// Set: the search stops once this word no longer holds this value.
    watch: Option<(Arc<AtomicU64>, u64)>,
    aborted: bool,
}

impl Budget {
    /// A budget that never runs out.
    pub fn unlimited() -> Budget {
        Budget {
            nodes: 0,
            node_limit: u64::MAX,
            deadline: None,
            stop: None,
            starvation: None,
            trial: None,
            watch: None,
            aborted: false,
        }
    }

    /// A budget from limits, a start time and an optional stop flag.
    pub fn new(limits: &Limits, start: Instant, stop: Option<Arc<AtomicBool>>) -> Budget {
        Budget {
            nodes: 0,
            node_limit: limits.nodes.unwrap_or(u64::MAX),
            deadline: limits.time.map(|t| start + t),
            stop,
            starvation: None,
            trial: None,
            watch: None,
            aborted: false,
        }
    }

    /// Counts one node; returns true if the search must stop now.
    #[inline(always)]
    pub fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes >= self.node_limit {
            self.limit_reached();
        } else if self.nodes.is_multiple_of(POLL_INTERVAL) {
            self.poll();
        }
        self.aborted
    }

    /// At the node limit: the search stops, unless a trial's cap was
    /// reached and its test says to go on (to the next cap).
    #[cold]
    fn limit_reached(&mut self) {
        match self.trial {
            Some(t) if self.nodes < t.limit && (t.go_on)() => {
                self.node_limit = t.limit.min(self.nodes.saturating_add(t.every));
            }
            _ => self.aborted = true,
        }
    }

    #[cold]
    fn poll(&mut self) {
        let stopped = self
            .stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed));
        let late = self.deadline.is_some_and(|d| Instant::now() >= d);
        let moved = self
            .watch
            .as_ref()
            .is_some_and(|(word, value)| word.load(Ordering::Relaxed) != *value);
        self.aborted |= stopped || late || moved;
        if !self.aborted
            && let Some(watch) = self.starvation.as_mut()
            && watch.starved()
        {
            let stop = self.stop.as_deref();
            watch.pause(|| stop.is_some_and(|s| s.load(Ordering::Relaxed)));
        }
    }

    /// Also pauses the search for a while whenever the calling thread gets
    /// less than half a processor (see [`Starvation`]): for a helper, whose
    /// work only saves another thread's. Call it on the thread that
    /// searches.
    pub fn pause_when_starved(&mut self) {
        self.starvation = Starvation::watch();
    }

    /// Also stops the search once `word` no longer holds `value` (checked
    /// with the clock): for a helper working on what another thread does
    /// now.
    pub fn stop_when_changed(&mut self, word: Arc<AtomicU64>, value: u64) {
        self.watch = Some((word, value));
    }

    /// Whether the search ran out of budget (its current result is void).
    #[inline(always)]
    pub fn aborted(&self) -> bool {
        self.aborted
    }

    /// Checks the clock and the stop flag now, outside the node count.
    pub fn check_now(&mut self) -> bool {
        self.poll();
        self.aborted
    }

    /// Allows at most `nodes` more nodes (never more than the current limit).
    pub fn limit_nodes_from_now(&mut self, nodes: u64) {
        self.node_limit = self.node_limit.min(self.nodes.saturating_add(nodes));
    }

    /// Caps the nodes from now at `nodes` for a trial; returns the limit to
    /// give back to [`Budget::lift_cap`].
    pub fn cap_nodes(&mut self, nodes: u64) -> u64 {
        let limit = self.node_limit;
        self.limit_nodes_from_now(nodes);
        limit
    }

    /// [`Budget::cap_nodes`], except that when the search reaches the cap
    /// and `go_on()` is true, it goes on to a cap `nodes` further, and so
    /// on: it stops at the first cap where `go_on()` is false (and
    /// [`Budget::lift_cap`] then finds it stopped by the cap) or ends as if
    /// never capped.
    pub fn cap_nodes_unless(&mut self, nodes: u64, go_on: fn() -> bool) -> u64 {
        let limit = self.cap_nodes(nodes);
        if self.node_limit < limit {
            self.trial = Some(Trial {
                limit,
                every: nodes,
                go_on,
            });
        }
        limit
    }

    /// Ends a trial begun by [`Budget::cap_nodes`]: the node limit is
    /// `limit` again. Returns whether the cap, and nothing else, stopped
    /// the search (it may then go on, with the budget as before).
    pub fn lift_cap(&mut self, limit: u64) -> bool {
        self.trial = None;
        let capped = self.aborted && self.nodes >= self.node_limit && self.nodes < limit;
        self.node_limit = limit;
        if capped {
            self.aborted = false;
            self.poll();
        }
        capped && !self.aborted
    }

    /// Counts nodes searched elsewhere on this budget's behalf.
    pub fn charge(&mut self, nodes: u64) {
        self.nodes += nodes;
        if self.nodes >= self.node_limit {
            self.aborted = true;
        }
    }

    /// Nodes counted so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_filled_in_only_where_they_lack_a_kind() {
        let go = Limits::depth(6);
        let own = Limits {
            depth: Some(2),
            nodes: Some(1000),
            time: Some(Duration::from_millis(100)),
        };
        let both = go.filled_from(&own);
        assert_eq!(both.depth, Some(6), "the go's own depth stays");
        assert_eq!(both.nodes, Some(1000));
        assert_eq!(both.time, Some(Duration::from_millis(100)));
        assert_eq!(Limits::none().filled_from(&Limits::none()), Limits::none());
    }

    #[test]
    fn a_watched_word_that_changes_stops_the_search_at_the_next_poll() {
        let word = Arc::new(AtomicU64::new(7));
        let mut b = Budget::unlimited();
        b.stop_when_changed(Arc::clone(&word), 7);
        for _ in 0..3 * POLL_INTERVAL {
            assert!(!b.tick(), "stopped while the word held its value");
        }
        word.store(8, Ordering::Relaxed);
        let mut ticks = 0;
        while !b.tick() {
            ticks += 1;
            assert!(ticks <= POLL_INTERVAL, "the change was never seen");
        }
        assert!(b.aborted());
    }

    #[test]
    fn a_trial_s_cap_is_lifted_and_says_whether_it_stopped_the_search() {
        let mut b = Budget::new(&Limits::nodes(100), Instant::now(), None);
        let limit = b.cap_nodes(10);
        while !b.tick() {}
        assert_eq!(b.nodes(), 10);
        assert!(b.lift_cap(limit), "the cap stopped it");
        assert!(!b.aborted());
        while !b.tick() {}
        assert_eq!(b.nodes(), 100, "the budget's own limit holds");
        // A trial that the budget's own limit ends first is not the cap's.
        let mut b = Budget::new(&Limits::nodes(5), Instant::now(), None);
        let limit = b.cap_nodes(10);
        while !b.tick() {}
        assert!(!b.lift_cap(limit));
        assert!(b.aborted());
    }

    #[test]
    fn a_budget_stays_within_the_clock() {
        let ms = Duration::from_millis;
        for left in [1, 5, 30, 100, 1000, 60_000] {
            for inc in [0, 10, 1000] {
                for empty in [1, 2, 10, 42] {
                    let t = Limits::time_for_clock(ms(left), ms(inc), empty);
                    assert!(t < ms(left) || left <= 1, "{left} {inc} {empty}: {t:?}");
                    assert!(t > Duration::ZERO);
                }
            }
        }
        assert_eq!(Limits::time_for_clock(ms(60_000), ms(0), 42), ms(5000));
    }

    #[test]
    fn a_trial_stops_at_its_cap_or_goes_on_as_its_test_says() {
        for (go_on, stops) in [((|| false) as fn() -> bool, true), (|| true, false)] {
            let mut b = Budget::new(&Limits::nodes(100), Instant::now(), None);
            let limit = b.cap_nodes_unless(10, go_on);
            let ticks = (0..50).take_while(|_| !b.tick()).count();
            assert_eq!(ticks == 9, stops);
            // Stopped by the cap alone: the search may go on; gone on past
            // it: it was not stopped, there is nothing to resume.
            assert_eq!(b.lift_cap(limit), stops);
            assert!(!b.aborted());
            // The limit from before the trial holds either way.
            while !b.tick() {}
            assert_eq!(b.nodes(), 100);
        }
    }

    #[test]
    fn a_trial_that_goes_on_asks_again_at_every_cap() {
        use std::sync::atomic::AtomicU32;
        static ASKED: AtomicU32 = AtomicU32::new(0);
        // Yes twice, then no: the search stops at the third cap.
        let third_time_no = || ASKED.fetch_add(1, Ordering::Relaxed) < 2;
        let mut b = Budget::new(&Limits::nodes(100), Instant::now(), None);
        let limit = b.cap_nodes_unless(10, third_time_no);
        while !b.tick() {}
        assert_eq!(b.nodes(), 30);
        assert!(b.lift_cap(limit));
        while !b.tick() {}
        assert_eq!(b.nodes(), 100);
    }

    #[test]
    fn node_limit_is_exact() {
        let mut b = Budget::new(&Limits::nodes(5), Instant::now(), None);
        let ticks = (0..10).take_while(|_| !b.tick()).count();
        assert_eq!(ticks, 4);
        assert_eq!(b.nodes(), 5);
        assert!(b.aborted());
    }

    #[test]
    fn stop_flag_is_seen_when_polled() {
        let stop = Arc::new(AtomicBool::new(false));
        let mut b = Budget::new(&Limits::none(), Instant::now(), Some(stop.clone()));
        assert!(!b.check_now());
        stop.store(true, Ordering::Relaxed);
        assert!(b.check_now());
    }
}
