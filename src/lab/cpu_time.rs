//! The CPU time this process has used, for figures such as "arena CPU per
//! move" and "book build CPU time".

/// User plus system CPU time of this process so far, in seconds, to the
/// microsecond (`getrusage`; /proc's clock ticks of 10 ms made short runs
/// read 0); `None` where it cannot be had.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
pub fn own_seconds() -> Option<f64> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes a whole rusage into the pointer it is given,
    // which points to one; it reads nothing else.
    let ok = unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) } == 0;
    if !ok {
        return None;
    }
    // SAFETY: getrusage succeeded, so it filled the struct (and zeroed
    // memory is a valid rusage anyway).
    let usage = unsafe { usage.assume_init() };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    Some(seconds(usage.ru_utime) + seconds(usage.ru_stime))
}

/// User plus system CPU time of this process so far: not known here.
#[cfg(not(target_os = "linux"))]
pub fn own_seconds() -> Option<f64> {
    None
}

#[cfg(test)]
mod tests {
    #[test]
    fn grows_with_work_at_fine_resolution() {
        let Some(before) = super::own_seconds() else {
            return; // not Linux
        };
        let mut x = 0u64;
        let start = std::time::Instant::now();
        while start.elapsed().as_millis() < 5 {
            x = x.wrapping_add(std::hint::black_box(1));
        }
        assert!(x > 0);
        let after = super::own_seconds().unwrap();
        // 5 ms of work shows (clock ticks of 10 ms would often read 0).
        assert!(after > before, "{before} {after}");
    }
}
