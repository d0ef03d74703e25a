//! Work that can wait gives way: a thread that only helps (a solver's
//! helper, a server judging logs in the background) lowers its own
//! priority, so that when the cores are taken, by other programs or by
//! the work a user waits for, the scheduler runs that work first, and the
//! helper only uses what is left. A helper that gets next to nothing
//! that way sleeps a while ([`Starvation`]).

use std::time::{Duration, Instant};

/// The nice value a thread that gives way takes (the lowest priority).
pub const GIVING_WAY_NICE: i32 = 19;

/// Lowers the calling thread's priority to [`GIVING_WAY_NICE`]. On Linux
/// the nice value is the thread's own, not the process's; elsewhere this
/// does nothing. A failure leaves the priority as it was.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
pub fn give_way() {
    // SAFETY: a plain system call about the calling thread, no memory
    // passed; its failure changes nothing.
    unsafe {
        libc::setpriority(
            libc::PRIO_PROCESS,
            thread_id() as libc::id_t,
            GIVING_WAY_NICE,
        );
    }
}

/// The calling thread's id, by the system call itself: glibc's gettid()
/// wrapper is new in 2.30, and the release programs run on glibc 2.17
/// (scripts/release).
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn thread_id() -> libc::pid_t {
    // SAFETY: gettid takes no arguments and cannot fail.
    unsafe { libc::syscall(libc::SYS_gettid) as libc::pid_t }
}

/// Elsewhere a helper runs at the priority it was given.
#[cfg(not(target_os = "linux"))]
pub fn give_way() {}

/// Processors that no thread is running on at this moment, as far as the
/// system says: those this process may use (affinity, quotas) less the
/// threads running or ready to run anywhere, the caller among them
/// (`procs_running` of Linux's /proc/stat, the least of a few looks: one
/// look in ten on a quiet machine catches a passing thread); `None` where
/// it cannot say. A helper started when none is idle only takes a
/// processor from a thread that was using it.
pub fn idle_processors() -> Option<usize> {
    let ours = std::thread::available_parallelism().ok()?.get();
    let running = (0..4).map(|_| procs_running()).min()??;
    Some(ours.saturating_sub(running))
}

/// Threads running or ready to run on the whole machine now.
fn procs_running() -> Option<usize> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    stat.lines()
        .find_map(|line| line.strip_prefix("procs_running "))?
        .trim()
        .parse()
        .ok()
}

/// Wall time over which a thread's share of the processor is judged.
const SHARE_WINDOW: Duration = Duration::from_millis(20);
/// How long a starved thread sleeps before it tries again.
const PAUSE: Duration = Duration::from_millis(50);

/// Watches whether the calling thread gets a processor: a thread that has
/// given way runs only on what others leave, and when another program
/// holds the core it would share, it gets next to nothing (nice 19 against
/// nice 0: about 1.5%). What little it gets still takes the core from the
/// thread it shares it with, now and then, and fills its caches: such a
/// helper had better sleep a while ([`Starvation::pause`]). Sleep, not
/// stop: a virtual machine's processor is sometimes taken from under a
/// thread for a moment, and a helper stopped for that would be lost to
/// the rest of a long search (the empty board: 49 s instead of 30).
#[derive(Clone, Debug)]
pub struct Starvation {
    /// Start of the current window, and the thread's processor time then.
    since: Instant,
    cpu_then: Duration,
}

impl Starvation {
    /// Starts watching the calling thread (and only it: the watch must stay
    /// on this thread); `None` where a thread's processor time cannot be
    /// read.
    pub fn watch() -> Option<Starvation> {
        Some(Starvation {
            since: Instant::now(),
            cpu_then: thread_cpu_time()?,
        })
    }

    /// Whether the thread had the processor for less than half of the
    /// last window, once a window (20 ms) has passed; a new
    /// window starts then. Cheap before that: one look at the clock.
    pub fn starved(&mut self) -> bool {
        let wall = self.since.elapsed();
        if wall < SHARE_WINDOW {
            return false;
        }
        let Some(cpu) = thread_cpu_time() else {
            return false;
        };
        let used = cpu.saturating_sub(self.cpu_then);
        self.restart(cpu);
        used < wall / 2
    }

    /// Starts a new window now, the thread having used `cpu` so far.
    fn restart(&mut self, cpu: Duration) {
        self.since = Instant::now();
        self.cpu_then = cpu;
    }

    /// Sleeps for a while, less if `stopped()` turns true (it is asked
    /// whenever the thread is unparked), then starts a new window.
    pub fn pause(&mut self, stopped: impl Fn() -> bool) {
        self.pause_for(PAUSE, stopped);
    }

    /// [`Starvation::pause`] for `pause`.
    fn pause_for(&mut self, pause: Duration, stopped: impl Fn() -> bool) {
        let end = Instant::now() + pause;
        while !stopped() {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            std::thread::park_timeout(left);
        }
        if let Some(cpu) = thread_cpu_time() {
            self.restart(cpu);
        }
    }
}

/// The processor time the calling thread has used.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn thread_cpu_time() -> Option<Duration> {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec the call writes into.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0;
    let secs = u64::try_from(t.tv_sec).ok()?;
    let nanos = u32::try_from(t.tv_nsec).ok()?;
    ok.then(|| Duration::new(secs, nanos))
}

/// Elsewhere it is not read.
#[cfg(not(target_os = "linux"))]
fn thread_cpu_time() -> Option<Duration> {
    None
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn the_calling_thread_alone_gives_way() {
        let nice_of = |tid: i32| {
            let stat = std::fs::read_to_string(format!("/proc/self/task/{tid}/stat")).unwrap();
            // The 19th field, counted after the command's closing ')'.
            let after = stat.rsplit_once(')').unwrap().1;
            after
                .split_whitespace()
                .nth(16)
                .unwrap()
                .parse::<i32>()
                .unwrap()
        };
        let main = thread_id();
        let before = nice_of(main);
        let helper = std::thread::spawn(move || {
            give_way();
            let me = thread_id();
            (nice_of(me), nice_of(main))
        })
        .join()
        .unwrap();
        assert_eq!(helper.0, GIVING_WAY_NICE);
        assert_eq!(helper.1, before, "the other threads keep their priority");
    }

    #[test]
    fn a_busy_processor_is_not_idle() {
        let ours = std::thread::available_parallelism().unwrap().get();
        // This thread runs: at most all but one are idle.
        assert!(idle_processors().unwrap() < ours);
        // With as many busy threads as processors, none is.
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let busy: Vec<_> = (0..ours)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        std::hint::spin_loop();
                    }
                })
            })
            .collect();
        std::thread::sleep(SHARE_WINDOW);
        let idle = idle_processors().unwrap();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        busy.into_iter().for_each(|t| t.join().unwrap());
        assert_eq!(idle, 0);
    }

    #[test]
    fn a_thread_that_runs_is_not_starved_and_one_that_waits_is() {
        let mut watch = Starvation::watch().expect("Linux reads a thread's processor time");
        // Busy: within a few windows it has the processor for most of one
        // (on a machine so loaded that it never does, in 250 windows, the
        // test would fail; such a machine runs no tests).
        let start = Instant::now();
        let mut x = 0u64;
        let mut fed = false;
        while !fed && start.elapsed() < SHARE_WINDOW * 250 {
            x = std::hint::black_box(x.wrapping_add(1));
            if x.is_multiple_of(1 << 16) && start.elapsed() > SHARE_WINDOW {
                fed = !watch.starved();
            }
        }
        assert!(fed, "a busy thread was starved in every window");
        // Asleep for a whole window: it had almost none of it, as a thread
        // the scheduler never runs.
        std::thread::sleep(SHARE_WINDOW * 2);
        assert!(watch.starved());
    }

    #[test]
    fn a_pause_ends_when_the_thread_is_unparked_and_stopped() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let hour = Duration::from_secs(3600);
        let pausing = std::thread::spawn(move || {
            let mut watch = Starvation::watch().unwrap();
            let start = Instant::now();
            watch.pause_for(hour, || flag.load(Ordering::Relaxed));
            start.elapsed()
        });
        std::thread::sleep(SHARE_WINDOW);
        stop.store(true, Ordering::Relaxed);
        pausing.thread().unpark();
        assert!(pausing.join().unwrap() < hour);
    }
}
