//! Long calls without the GIL: the work runs on a thread of its own while
//! the caller's thread waits with the GIL released, and looks for Ctrl-C
//! (Python's signals) every [`POLL`]; on one it raises the work's stop
//! flag, waits for the work to end (the searches poll the flag) and
//! raises `KeyboardInterrupt`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// How often a waiting call looks for Ctrl-C.
const POLL: Duration = Duration::from_millis(50);

/// The next value on `receiver`, waited for without the GIL and looking
/// for Ctrl-C every [`POLL`]: `Ok(None)` once every sender is gone, the
/// `KeyboardInterrupt` on a Ctrl-C (the caller stops its work). The
/// receiver comes back with the answer (it goes into the wait: it is not
/// Sync).
pub fn next<T: Send>(py: Python<'_>, receiver: Receiver<T>) -> (Receiver<T>, PyResult<Option<T>>) {
    let mut receiver = receiver;
    loop {
        let (back, got) = py.detach(move || {
            let got = receiver.recv_timeout(POLL);
            (receiver, got)
        });
        receiver = back;
        match got {
            Ok(value) => return (receiver, Ok(Some(value))),
            Err(RecvTimeoutError::Disconnected) => return (receiver, Ok(None)),
            Err(RecvTimeoutError::Timeout) => {
                if let Err(interrupt) = py.check_signals() {
                    return (receiver, Err(interrupt));
                }
            }
        }
    }
}

/// The answer of `work`, run without the GIL; `stop` is the flag its
/// search polls.
pub fn run<T: Send>(
    py: Python<'_>,
    stop: &Arc<AtomicBool>,
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    stop.store(false, Ordering::Relaxed);
    std::thread::scope(|scope| {
        let (done, answer) = channel();
        scope.spawn(move || {
            done.send(work()).ok();
        });
        match next(py, answer) {
            (_, Ok(Some(value))) => Ok(value),
            (_, Ok(None)) => Err(PyRuntimeError::new_err(
                "the search failed (please report it)",
            )),
            (answer, Err(interrupt)) => {
                stop.store(true, Ordering::Relaxed);
                py.detach(move || answer.recv()).ok();
                Err(interrupt)
            }
        }
    })
}
