//! The library's jobs on every core: [`Threads`] runs a [`Runner`]'s jobs on a pool of
//! scoped threads, each worker taking the next job.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use sp::analysis::report::compute::Runner;

/// Runs jobs on every core.
pub struct Threads;

impl Runner for Threads {
    /// Runs jobs `0..jobs` on every core, each worker taking the next job, and hands each
    /// result to `done` on this thread as it arrives; the first error stops the workers.
    fn run<T: Send>(
        &self,
        jobs: usize,
        run: impl Fn(usize) -> sp::analysis::Result<T> + Sync,
        mut done: impl FnMut(usize, T),
    ) -> sp::analysis::Result<()> {
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
