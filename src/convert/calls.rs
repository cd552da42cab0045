//! Reading a record's calls from its input, a range of calls at a time, into a thread's
//! reusable buffers: the only place the pipeline touches input bytes after pass 1 has
//! located them.

use std::io;

use super::error::Error;
use super::pack::PackScratch;
use super::Sources;
use crate::io::ReadAt;
use crate::trace::{self, Endian};

/// Where a record's calls lie in its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CallsAt {
    /// A trace's start and end arrays (absolute offsets of their first elements).
    Trace {
        starts_at: u64,
        ends_at: u64,
        endian: Endian,
    },
}

/// Reusable buffers of one thread.
#[derive(Default)]
pub(crate) struct Buffers {
    scratch: Vec<u8>,
    pub starts: Vec<i64>,
    pub ends: Vec<i64>,
    pub squares: Vec<f64>,
    pub deltas: Vec<u8>,
    pub durations: Vec<u8>,
    pub pack: PackScratch,
}

/// One thread's state for the pipeline's jobs: its buffers, and the input it read last, kept
/// open for the next job (consecutive jobs mostly read the same input). Make one per thread
/// and pass it to every job that thread runs.
pub struct Worker<R> {
    pub(crate) bufs: Buffers,
    open: Option<(usize, R)>,
}

impl<R> Default for Worker<R> {
    fn default() -> Self {
        Worker {
            bufs: Buffers::default(),
            open: None,
        }
    }
}

impl<R: ReadAt> Worker<R> {
    /// A worker with empty buffers.
    pub fn new() -> Self {
        Self::default()
    }

    /// The source of `input` (opened through `sources` unless it is the last one read) and
    /// the buffers.
    pub(crate) fn open<S: Sources<Source = R>>(
        &mut self,
        sources: &S,
        input: usize,
        name: &str,
    ) -> Result<(&R, &mut Buffers), Error> {
        if self.open.as_ref().is_none_or(|(i, _)| *i != input) {
            self.open = None;
            let source = sources.open(input).map_err(|e| Error::read(name, e))?;
            self.open = Some((input, source));
        }
        match &self.open {
            Some((_, source)) => Ok((source, &mut self.bufs)),
            None => Err(Error::Internal("an input was not opened")),
        }
    }
}

/// Reads calls `lo..hi` of the record whose calls lie `at` into `bufs.starts` and
/// `bufs.ends`. With `previous`, `starts` begins with one more element: the start before
/// `lo`, or 0 at the first call (what the first start delta is taken from).
pub(crate) fn read_calls<R: ReadAt + ?Sized>(
    src: &R,
    at: CallsAt,
    lo: u64,
    hi: u64,
    previous: bool,
    bufs: &mut Buffers,
) -> io::Result<()> {
    let n = usize::try_from(hi - lo).map_err(|_| io::Error::from(io::ErrorKind::OutOfMemory))?;
    match at {
        CallsAt::Trace {
            starts_at,
            ends_at,
            endian,
        } => {
            bufs.ends.resize(n, 0);
            trace::read_timestamps(
                src,
                ends_at + lo * 8,
                endian,
                &mut bufs.scratch,
                &mut bufs.ends,
            )?;
            if previous && lo > 0 {
                bufs.starts.resize(n + 1, 0);
                trace::read_timestamps(
                    src,
                    starts_at + (lo - 1) * 8,
                    endian,
                    &mut bufs.scratch,
                    &mut bufs.starts,
                )?;
            } else {
                let skip = usize::from(previous);
                bufs.starts.resize(n + skip, 0);
                if let Some(first) = bufs.starts.first_mut() {
                    *first = 0;
                }
                trace::read_timestamps(
                    src,
                    starts_at + lo * 8,
                    endian,
                    &mut bufs.scratch,
                    &mut bufs.starts[skip..],
                )?;
            }
        }
    }
    Ok(())
}

/// Reads the starts of calls `0..n` (pass 1's view of a small region) into `bufs.starts`.
pub(crate) fn read_starts<R: ReadAt + ?Sized>(
    src: &R,
    at: CallsAt,
    n: u64,
    bufs: &mut Buffers,
) -> io::Result<()> {
    let n = usize::try_from(n).map_err(|_| io::Error::from(io::ErrorKind::OutOfMemory))?;
    match at {
        CallsAt::Trace {
            starts_at, endian, ..
        } => {
            bufs.starts.resize(n, 0);
            trace::read_timestamps(src, starts_at, endian, &mut bufs.scratch, &mut bufs.starts)
        }
    }
}
