//! A progress bar on stderr for long conversions: drawn only when stderr is a terminal and
//! the work has run for half a second, cleared when it ends. Counts bytes of timestamps
//! handled (each pass counts every input's timestamps once); the threads doing the work just
//! add to an atomic counter.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Shared progress of one conversion.
pub struct Progress {
    done: AtomicU64,
    total: AtomicU64,
    finished: AtomicBool,
    enabled: bool,
}

impl Progress {
    /// A counter that draws on stderr only if `wanted` and stderr is a terminal.
    pub fn new(wanted: bool) -> Self {
        Progress {
            done: AtomicU64::new(0),
            total: AtomicU64::new(0),
            finished: AtomicBool::new(false),
            enabled: wanted && std::io::stderr().is_terminal(),
        }
    }

    /// Sets the amount of work expected.
    pub fn set_total(&self, total: u64) {
        self.total.store(total, Ordering::Relaxed);
    }

    /// Records `n` more units of work done.
    pub fn add(&self, n: u64) {
        self.done.fetch_add(n, Ordering::Relaxed);
    }

    /// Runs `work` while a thread redraws the bar, then clears it.
    pub fn around<T>(&self, work: impl FnOnce() -> T) -> T {
        if !self.enabled {
            return work();
        }
        std::thread::scope(|scope| {
            scope.spawn(|| self.draw_until_finished());
            let out = work();
            self.finished.store(true, Ordering::Relaxed);
            out
        })
    }

    fn draw_until_finished(&self) {
        let start = Instant::now();
        let mut drawn = false;
        while !self.finished.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(100));
            if start.elapsed() < Duration::from_millis(500) || self.finished.load(Ordering::Relaxed)
            {
                continue;
            }
            let line = sp::text::progress_bar(
                self.done.load(Ordering::Relaxed),
                self.total.load(Ordering::Relaxed),
                start.elapsed(),
            );
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r{line}");
            let _ = err.flush();
            drawn = true;
        }
        if drawn {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disabled_progress_just_runs_the_work() {
        let p = Progress::new(false);
        p.set_total(10);
        assert_eq!(p.around(|| 7), 7);
    }
}
