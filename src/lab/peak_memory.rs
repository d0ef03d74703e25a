//! A child process's peak resident memory, read from `/proc` while it runs
//! (Linux), for soak figures: the engine under a long session, the arena
//! under a flood of engine output.

use std::process::{Child, ExitStatus};
use std::time::Duration;

/// Waits for `child` to exit, sampling its peak resident memory (`VmHWM`)
/// every 10 ms; returns its exit status and the last peak read, in KiB (0
/// where `/proc` is not there to read).
pub fn wait_with_peak(child: &mut Child) -> std::io::Result<(ExitStatus, u64)> {
    let status_path = format!("/proc/{}/status", child.id());
    let mut peak_kb = 0u64;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok((status, peak_kb));
        }
        if let Ok(text) = std::fs::read_to_string(&status_path)
            && let Some(kb) = text
                .lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<u64>().ok())
        {
            peak_kb = peak_kb.max(kb);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
