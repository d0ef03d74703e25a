//! Work that can wait gives way: a thread that only helps (a solver's
//! helper, a server judging logs in the background) lowers its own
//! priority, so that when the cores are taken, by other programs or by
//! the work a user waits for, the scheduler runs that work first, and the
//! helper only uses what is left.

/// The nice value a thread that gives way takes (the lowest priority).
pub const GIVING_WAY_NICE: i32 = 19;

/// Lowers the calling thread's priority to [`GIVING_WAY_NICE`]. On Linux
/// the nice value is the thread's own, not the process's; elsewhere this
/// does nothing. A failure leaves the priority as it was.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
pub fn give_way() {
    // SAFETY: plain system calls about the calling thread, no memory
    // passed; their failure changes nothing.
    unsafe {
        let thread = libc::gettid();
        libc::setpriority(libc::PRIO_PROCESS, thread as libc::id_t, GIVING_WAY_NICE);
    }
}

/// Elsewhere a helper runs at the priority it was given.
#[cfg(not(target_os = "linux"))]
pub fn give_way() {}

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
        #[allow(unsafe_code)]
        // SAFETY: a plain system call.
        let main = unsafe { libc::gettid() };
        let before = nice_of(main);
        let helper = std::thread::spawn(move || {
            give_way();
            #[allow(unsafe_code)]
            // SAFETY: a plain system call.
            let me = unsafe { libc::gettid() };
            (nice_of(me), nice_of(main))
        })
        .join()
        .unwrap();
        assert_eq!(helper.0, GIVING_WAY_NICE);
        assert_eq!(helper.1, before, "the other threads keep their priority");
    }
}
