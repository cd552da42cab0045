//! How far long work has got, and a way to stop it: a [`Progress`] shared between the code
//! doing the work (a timeline summary, a region's percentiles) and a front end drawing a
//! bar. The work counts the bytes of calls it reads (each call's start and end,
//! [`CALL_BYTES`], as the event columns store them uncompressed) and checks the cancel flag
//! between bounded pieces (a block of calls), so a cancelled run stops within a block and
//! returns [`Error::Cancelled`], never a half result. Atomics only: the same handle works
//! on a thread of `sp tui` and in the page's worker.
//!
//! ```
//! use sp::analysis::progress::Progress;
//!
//! let p = Progress::default();
//! p.add_total(1000);
//! p.advance(250);
//! assert_eq!((p.done(), p.total()), (250, 1000));
//! assert!(p.check().is_ok());
//! p.cancel();
//! assert!(matches!(p.check(), Err(sp::analysis::Error::Cancelled)));
//! ```

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::error::{Error, Result};

/// Bytes a call counts for: its start and end, 8 bytes each.
pub const CALL_BYTES: u64 = 16;

/// Bytes done of a total, and a cancel flag.
#[derive(Debug, Default)]
pub struct Progress {
    done: AtomicU64,
    total: AtomicU64,
    cancelled: AtomicBool,
}

impl Progress {
    /// Adds `n` bytes to the work to do (a front end sums what it will ask for).
    pub fn add_total(&self, n: u64) {
        self.total.fetch_add(n, Ordering::Relaxed);
    }

    /// Counts `n` bytes done.
    pub fn advance(&self, n: u64) {
        self.done.fetch_add(n, Ordering::Relaxed);
    }

    /// Bytes done so far.
    pub fn done(&self) -> u64 {
        self.done.load(Ordering::Relaxed)
    }

    /// Bytes of the work, as far as it is known.
    pub fn total(&self) -> u64 {
        self.total.load(Ordering::Relaxed)
    }

    /// Asks the work to stop at its next check.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    /// [`Error::Cancelled`] once [`cancel`](Self::cancel) was called.
    pub fn check(&self) -> Result<()> {
        if self.is_cancelled() {
            return Err(Error::Cancelled);
        }
        Ok(())
    }
}

/// One piece of work's share of a [`Progress`]: it advances by what is read, never past
/// the `budget` it announced, and [`finish`](Meter::finish) advances the rest, so a full run
/// brings the progress to its total even where the budget was an estimate.
pub(crate) struct Meter<'a> {
    progress: Option<&'a Progress>,
    budget: u64,
    used: u64,
}

impl<'a> Meter<'a> {
    pub(crate) fn new(progress: Option<&'a Progress>, budget: u64) -> Meter<'a> {
        Meter {
            progress,
            budget,
            used: 0,
        }
    }

    /// Counts `calls` calls read.
    pub(crate) fn calls(&mut self, calls: u64) {
        let n = calls
            .saturating_mul(CALL_BYTES)
            .min(self.budget.saturating_sub(self.used));
        self.used += n;
        if let Some(p) = self.progress {
            p.advance(n);
        }
    }

    /// [`Progress::check`].
    pub(crate) fn check(&self) -> Result<()> {
        self.progress.map_or(Ok(()), Progress::check)
    }

    /// Advances the rest of the budget.
    pub(crate) fn finish(&mut self) {
        self.calls(u64::MAX);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_meter_stays_within_its_budget() {
        let p = Progress::default();
        let mut m = Meter::new(Some(&p), 100);
        m.calls(4);
        assert_eq!(p.done(), 64);
        m.calls(4);
        assert_eq!(p.done(), 100);
        let mut m = Meter::new(Some(&p), 48);
        m.calls(1);
        m.finish();
        assert_eq!(p.done(), 148);
        assert!(m.check().is_ok());
        p.cancel();
        assert!(matches!(m.check(), Err(Error::Cancelled)));
    }
}
