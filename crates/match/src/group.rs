//! Engine processes in process groups of their own, so that an engine and
//! every process it starts end together: the arena kills the whole group
//! after a crash, a forfeit and at the end of a run, and on Linux the
//! kernel kills the engine if the arena thread that started it dies (even by
//! `kill -9` of the arena).

use std::process::{Child, Command};

/// Resource limits of each process of a session (the process count is the
/// user's), set between fork and exec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResourceLimits {
    /// Address space, in bytes.
    pub memory_bytes: u64,
    /// Processes and threads of the user.
    pub processes: u64,
    /// Largest file written, in bytes.
    pub file_bytes: u64,
}

/// Makes `command` start in a new process group of its own, and on Linux
/// asks for SIGKILL when the thread that started it ends.
pub fn own_group(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    command.process_group(0);
    #[cfg(target_os = "linux")]
    parent_death_signal(command);
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn parent_death_signal(command: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the child between fork and exec, where
    // only async-signal-safe calls are allowed; prctl and getppid are
    // system calls that allocate nothing and take no locks.
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            // The parent may have died before prctl: then end at once.
            if libc::getppid() == 1 {
                libc::_exit(1);
            }
            Ok(())
        });
    }
}

/// Makes `command` start in a new session of its own (so also a process
/// group of its own, and without the arena's controlling terminal) under
/// `limits`, with the same parent-death signal as [`own_group`]. A limited
/// program is also the first the out-of-memory killer takes.
pub fn own_session(command: &mut Command, limits: Option<ResourceLimits>) {
    session_and_limits(command, limits);
    #[cfg(target_os = "linux")]
    parent_death_signal(command);
}

#[allow(unsafe_code)]
fn session_and_limits(command: &mut Command, limits: Option<ResourceLimits>) {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the child between fork and exec (after
    // the user is changed); setsid and setrlimit are system calls that
    // allocate nothing and take no locks, and the limits are copied in.
    unsafe {
        command.pre_exec(move || {
            if libc::setsid() == -1 {
                return Err(std::io::Error::last_os_error());
            }
            if let Some(l) = limits {
                for (resource, value) in [
                    (libc::RLIMIT_AS, l.memory_bytes),
                    (libc::RLIMIT_NPROC, l.processes),
                    (libc::RLIMIT_FSIZE, l.file_bytes),
                    (libc::RLIMIT_CORE, 0),
                ] {
                    let limit = libc::rlimit {
                        rlim_cur: value as libc::rlim_t,
                        rlim_max: value as libc::rlim_t,
                    };
                    if libc::setrlimit(resource, &limit) == -1 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                first_to_go_out_of_memory();
            }
            Ok(())
        });
    }
}

/// Makes the calling process the first the kernel's out-of-memory killer
/// takes (`oom_score_adj` 1000; any process may raise its own), so that a
/// sandboxed program that exhausts the machine's memory goes before the
/// arena. Failing is harmless: the process is then an ordinary candidate.
#[allow(unsafe_code)]
fn first_to_go_out_of_memory() {
    // SAFETY: open, write and close are system calls that allocate nothing
    // and take no locks (this runs between fork and exec); the path and the
    // value are static byte strings.
    unsafe {
        let fd = libc::open(
            c"/proc/self/oom_score_adj".as_ptr(),
            libc::O_WRONLY | libc::O_CLOEXEC,
        );
        if fd >= 0 {
            libc::write(fd, b"1000".as_ptr().cast(), 4);
            libc::close(fd);
        }
    }
}

/// A signal the arena sends to single processes.
#[derive(Clone, Copy, Debug)]
pub enum Signal {
    /// SIGSTOP: the process stops (and cannot fork) until killed.
    Stop,
    /// SIGKILL.
    Kill,
}

/// Sends `signal` to process `pid`; a process that is gone is no error.
#[allow(unsafe_code)]
pub fn signal(pid: i32, signal: Signal) {
    let number = match signal {
        Signal::Stop => libc::SIGSTOP,
        Signal::Kill => libc::SIGKILL,
    };
    if pid > 1 {
        // SAFETY: kill only sends a signal to one process (pid > 1 never
        // names a group or every process).
        unsafe {
            libc::kill(pid, number);
        }
    }
}

/// Kills every process of `child`'s group (its own and any it started that
/// stayed in the group).
#[allow(unsafe_code)]
pub fn kill_group(child: &Child) {
    let Ok(pid) = libc::pid_t::try_from(child.id()) else {
        return;
    };
    // SAFETY: kill only sends a signal; a negative pid names the group the
    // child leads (it was started with process_group(0)). A group that is
    // gone gives ESRCH, which is harmless.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
}

/// Makes this process the subreaper of its descendants (Linux): a process
/// that leaves its engine's group and session (`setsid`, a double fork)
/// and whose parent dies is then this process's child, not init's, so
/// that [`end_orphans`] finds it. Elsewhere, or if refused, nothing.
#[allow(unsafe_code)]
pub fn adopt_orphans() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER only sets a flag of this
    // process; its arguments are plain integers.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

/// The engines this process started and holds (see [`spawn_held`]).
static HELD: std::sync::Mutex<Vec<u32>> = std::sync::Mutex::new(Vec::new());

/// Starts `command` as a child this process holds: [`end_orphans`] never
/// touches it until [`let_go`] (the lock makes the start and the record
/// one step, so that no scan sees the child unrecorded).
pub fn spawn_held(command: &mut Command) -> std::io::Result<Child> {
    let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    let child = command.spawn()?;
    held.push(child.id());
    Ok(child)
}

/// The child `pid` of [`spawn_held`] was waited for: no longer held.
pub fn let_go(pid: u32) {
    HELD.lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|&p| p != pid);
}

/// Kills and reaps every child of this process that it does not hold
/// ([`spawn_held`]): what engines left behind when they left their group
/// (`setsid`, a double fork) and died, adopted by [`adopt_orphans`], and
/// the adopted ones that died already (zombies, which would otherwise
/// fill the process table over a long run). Each is stopped, killed with
/// its group, and reaped. How many.
#[allow(unsafe_code)]
pub fn end_orphans() -> usize {
    let me = std::process::id().to_string();
    let held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    let mut ended = 0;
    for _ in 0..100 {
        let orphans: Vec<i32> = children_of(&me)
            .into_iter()
            .filter(|pid| !held.contains(&(*pid as u32)))
            .collect();
        if orphans.is_empty() {
            break;
        }
        for &pid in &orphans {
            signal(pid, Signal::Stop);
            // SAFETY: kill sends SIGKILL to the orphan's group (a negative
            // pid), then to the orphan itself; waitpid reaps that one
            // child of ours, whose pid it names, and touches no other.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, std::ptr::null_mut(), 0);
            }
            ended += 1;
        }
    }
    ended
}

/// The pids whose parent is `parent` (from /proc/PID/stat).
fn children_of(parent: &str) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| {
                    let (_, rest) = stat.rsplit_once(')')?;
                    Some(rest.split_whitespace().nth(1)? == parent)
                })
                .unwrap_or(false)
        })
        .collect()
}
