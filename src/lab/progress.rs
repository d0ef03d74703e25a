//! Progress of long jobs (training, tuning, matches) on stderr: a bar with
//! an ETA when stderr is a terminal, plain periodic lines otherwise, so logs
//! of unattended runs stay readable.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

/// Plain lines come at most this often (and at the end).
const LINE_INTERVAL: Duration = Duration::from_secs(5);

/// A progress display for `total` steps.
pub struct Progress {
    bar: Option<ProgressBar>,
    label: String,
    total: u64,
    start: Instant,
    last_line: Option<Instant>,
}

impl Progress {
    /// A bar if stderr is a terminal, plain lines otherwise.
    pub fn new(label: &str, total: u64) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(total);
            let style =
                ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} ({eta} left) {msg}")
                    .expect("the template is valid")
                    .progress_chars("=> ");
            bar.set_style(style);
            bar.set_prefix(label.to_string());
            bar
        });
        Progress {
            bar,
            label: label.into(),
            total,
            start: Instant::now(),
            last_line: None,
        }
    }

    /// `done` steps of the total are done; `message` says how it goes.
    pub fn update(&mut self, done: u64, message: &str) {
        match &self.bar {
            Some(bar) => {
                bar.set_position(done);
                bar.set_message(message.to_string());
            }
            None => {
                let due = self.last_line.is_none_or(|t| t.elapsed() >= LINE_INTERVAL);
                if due || done >= self.total {
                    self.last_line = Some(Instant::now());
                    let secs = self.start.elapsed().as_secs_f64();
                    let eta = if done > 0 {
                        secs * (self.total.saturating_sub(done)) as f64 / done as f64
                    } else {
                        0.0
                    };
                    let mut err = std::io::stderr().lock();
                    writeln!(
                        err,
                        "{}: {done}/{} ({secs:.0} s, {eta:.0} s left) {message}",
                        self.label, self.total
                    )
                    .ok();
                }
            }
        }
    }

    /// Prints something above the bar (or as a line).
    pub fn println(&self, text: &str) {
        match &self.bar {
            Some(bar) => bar.println(text),
            None => eprintln!("{text}"),
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
