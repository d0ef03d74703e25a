//! Long calls without the GIL: the work runs on a thread of its own while
//! the caller's thread waits with the GIL released, and looks for Ctrl-C
//! (Python's signals) every [`POLL`]; on one it raises the work's stop
//! flag, waits for the work to end (the searches poll the flag) and
//! raises `KeyboardInterrupt`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// How often a waiting call looks for Ctrl-C.
const POLL: Duration = Duration::from_millis(50);

/// The answer of `work`, run without the GIL; `stop` is the flag its
/// search polls.
pub fn run<T: Send>(
    py: Python<'_>,
    stop: &Arc<AtomicBool>,
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    stop.store(false, Ordering::Relaxed);
    std::thread::scope(|scope| {
        let (done, mut answer) = channel();
        scope.spawn(move || {
            done.send(work()).ok();
        });
        loop {
            // The receiver goes into the wait and back (it is not Sync).
            let (back, got) = py.detach(move || {
                let got = answer.recv_timeout(POLL);
                (answer, got)
            });
            answer = back;
            match got {
                Ok(value) => return Ok(value),
                Err(RecvTimeoutError::Timeout) => {
                    if let Err(interrupt) = py.check_signals() {
                        stop.store(true, Ordering::Relaxed);
                        py.detach(move || answer.recv()).ok();
                        return Err(interrupt);
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(PyRuntimeError::new_err(
                        "the search failed (please report it)",
                    ));
                }
            }
        }
    })
}
