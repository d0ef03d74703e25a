//! A bound on the memory of all of a user's processes together.
//!
//! `RLIMIT_AS` bounds each process of the student's, not their sum: five
//! detached processes of 1.8 GB each would hold 9 GB, and the machine's
//! out-of-memory killer might then take the grader. A [`MemoryWatch`] sums
//! the resident memory of every process of the user and what the user
//! holds in shared memory (memfds, `/dev/shm`, System V segments:
//! [`crate::shared_memory`]) several times a second and, once the sum
//! passes the limit, kills them all ([`crate::sandbox::kill_user`]),
//! removes the user's `/dev/shm` files and segments, and counts it, so the
//! grader can say so.
//!
//! Pages shared between processes (after a fork) count in each: the sum can
//! only overstate what the user holds. Between two looks a process may grow
//! by what the machine can write in [`MemoryWatch::PERIOD`] (a few hundred
//! MB at most); the kernel's out-of-memory killer, if it comes first, picks
//! the student's processes before the grader (the sandbox raises their
//! `oom_score_adj`, see [`crate::group::own_session`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

/// What a [`MemoryWatch`] saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryReport {
    /// Times the user's processes passed the limit and were killed.
    pub kills: u32,
    /// The largest sum seen, in bytes.
    pub peak_bytes: u64,
    /// The limit, in bytes.
    pub limit_bytes: u64,
}

impl MemoryReport {
    /// What a student is told when the processes were killed (`None` when
    /// they never passed the limit).
    pub fn message(&self) -> Option<String> {
        (self.kills > 0).then(|| {
            format!(
                "Your program's processes held {} MiB of memory in all, over the limit of {} MiB \
                 for all of them together: every one of them was killed ({}), and the games \
                 they were playing were lost by forfeit.",
                self.peak_bytes >> 20,
                self.limit_bytes >> 20,
                match self.kills {
                    1 => "once".to_string(),
                    n => format!("{n} times"),
                }
            )
        })
    }
}

/// A thread that keeps a user's processes under a total memory limit until
/// [`MemoryWatch::finish`] (or until it is dropped); looking at them every
/// [`MemoryWatch::PERIOD`], it also kills the arena's children among them
/// that another has stopped, which would keep the arena waiting.
pub struct MemoryWatch {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<MemoryReport>>,
}

impl MemoryWatch {
    /// Time between two looks at the user's processes.
    pub const PERIOD: Duration = Duration::from_millis(50);

    /// Starts watching the processes of user `uid` (never root: the watch
    /// then only measures).
    pub fn start(uid: u32, limit_bytes: u64) -> MemoryWatch {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            let mut report = MemoryReport {
                limit_bytes,
                ..MemoryReport::default()
            };
            while !flag.load(Ordering::Relaxed) {
                // Looking at the user's processes anyway: free any child of
                // the arena another of them stopped (see
                // sandbox::kill_stopped_children).
                crate::sandbox::kill_stopped_children(uid, std::process::id());
                let held = user_held_bytes(uid);
                report.peak_bytes = report.peak_bytes.max(held);
                if held > limit_bytes && uid != 0 {
                    crate::sandbox::kill_user(uid);
                    crate::shared_memory::clear(uid);
                    report.kills += 1;
                }
                std::thread::sleep(Self::PERIOD);
            }
            report
        });
        MemoryWatch {
            stop,
            thread: Some(thread),
        }
    }

    /// Stops watching and says what was seen.
    pub fn finish(mut self) -> MemoryReport {
        self.stop.store(true, Ordering::Relaxed);
        self.thread
            .take()
            .and_then(|t| t.join().ok())
            .unwrap_or_default()
    }
}

impl Drop for MemoryWatch {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// The resident memory of process `pid`, in bytes (0 if it is gone).
fn resident_bytes(pid: i32) -> u64 {
    let pages = std::fs::read_to_string(format!("/proc/{pid}/statm"))
        .ok()
        .and_then(|statm| statm.split_whitespace().nth(1)?.parse::<u64>().ok())
        .unwrap_or(0);
    pages * page_size()
}

/// What user `uid` holds: its live processes' resident memory and its
/// shared memory ([`crate::shared_memory::held_bytes`]: memfds, `/dev/shm`
/// files, System V segments), which no process's resident pages show until
/// it is mapped and touched, and some of which outlives the processes.
pub fn user_held_bytes(uid: u32) -> u64 {
    let pids = crate::sandbox::processes_of(uid);
    let resident: u64 = pids.iter().map(|&pid| resident_bytes(pid)).sum();
    resident + crate::shared_memory::held_bytes(uid, &pids)
}

/// The machine's page size, in bytes.
#[allow(unsafe_code)]
fn page_size() -> u64 {
    // SAFETY: sysconf only reads a system constant.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    u64::try_from(size).unwrap_or(4096)
}

/// Half of this machine's memory, in MiB (2048 if /proc/meminfo cannot be
/// read): the default bound on a student's processes together.
pub fn half_the_machine_mb() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|info| {
            let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .map_or(2048, |kib| kib / 2048)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_counted_and_a_user_without_processes_holds_nothing() {
        let me = resident_bytes(std::process::id() as i32);
        assert!(me > 0);
        assert_eq!(user_held_bytes(4_000_000_000), 0);
        assert!(half_the_machine_mb() > 0);
    }

    #[test]
    fn a_watch_measures_and_kills_nothing_under_its_limit() {
        let uid = std::fs::read_to_string("/proc/self/status")
            .unwrap()
            .lines()
            .find(|l| l.starts_with("Uid:"))
            .and_then(|l| l.split_whitespace().nth(1)?.parse::<u32>().ok())
            .unwrap();
        let watch = MemoryWatch::start(uid, u64::MAX);
        std::thread::sleep(MemoryWatch::PERIOD * 3);
        let report = watch.finish();
        assert_eq!(report.kills, 0);
        assert!(report.peak_bytes > 0);
        assert_eq!(report.message(), None);
    }

    #[test]
    fn the_message_gives_the_figures_in_mebibytes() {
        let report = MemoryReport {
            kills: 3,
            peak_bytes: 652 << 20,
            limit_bytes: 600 << 20,
        };
        let m = report.message().unwrap();
        assert!(m.contains("652 MiB") && m.contains("600 MiB") && m.contains("3 times"));
    }
}
