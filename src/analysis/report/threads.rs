//! The report's jobs on every core, for native hosts: [`Threads`] is the [`Runner`] that
//! runs them on a pool of scoped threads, each worker taking the next job. (The page runs
//! them [`InOrder`](super::compute::InOrder) in its worker.)

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use super::compute::Runner;
use crate::analysis::Result;

/// Runs jobs on every core.
#[derive(Debug, Clone, Copy, Default)]
pub struct Threads;

impl Runner for Threads {
    /// Runs jobs `0..jobs` on every core, each worker taking the next job, and hands each
    /// result to `done` on this thread as it arrives; the first error stops the workers.
    fn run<T: Send>(
        &self,
        jobs: usize,
        run: impl Fn(usize) -> Result<T> + Sync,
        mut done: impl FnMut(usize, T),
    ) -> Result<()> {
        let next = AtomicUsize::new(0);
        let workers = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(jobs)
            .max(1);
        let (send, receive) = mpsc::channel();
        std::thread::scope(|scope| {
            for _ in 0..workers {
                let send = send.clone();
                let (next, run) = (&next, &run);
                scope.spawn(move || loop {
                    let job = next.fetch_add(1, Ordering::Relaxed);
                    if job >= jobs {
                        return;
                    }
                    let result = run(job);
                    let failed = result.is_err();
                    if send.send((job, result)).is_err() || failed {
                        next.store(jobs, Ordering::Relaxed);
                        return;
                    }
                });
            }
            drop(send);
            for (job, result) in receive {
                match result {
                    Ok(value) => done(job, value),
                    Err(e) => {
                        next.store(jobs, Ordering::Relaxed);
                        return Err(e);
                    }
                }
            }
            Ok(())
        })
    }
}
