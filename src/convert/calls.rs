//! Reading a record's calls from its input, a range of calls at a time, into a thread's
//! reusable buffers: the only place the pipeline touches input bytes after pass 1 has
//! located them. Traces are read at the offsets of their arrays; profiles through range
//! reads of their event columns, chunk by chunk.

use std::collections::HashSet;
use std::sync::Arc;

use super::error::Error;
use super::pack::PackScratch;
use super::scan::RowCalls;
use super::Sources;
use crate::hdf5lite::model::{ByteOrder, Datatype};
use crate::hdf5lite::reader::{Dataset, File};
use crate::io::ReadAt;
use crate::schema::names;
use crate::schema::read::events::{decode_in_place, ints_into};
use crate::schema::Span;
use crate::trace::{self, Endian};

/// A profile's two time columns: start deltas and durations (schema 3), or absolute starts
/// and ends.
/// Only which pair is kept: every row of a profile carries it, and at 100,000 ranks the
/// two dataset names took 128 bytes a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TimeColumns {
    pub delta: bool,
}

impl TimeColumns {
    /// The start column and the duration or end column.
    pub fn datasets(self) -> [names::Dataset; 2] {
        use names::events::{DURATIONS, END_TIMES, START_DELTAS, START_TIMES};
        if self.delta {
            [START_DELTAS, DURATIONS]
        } else {
            [START_TIMES, END_TIMES]
        }
    }
}

/// Calls held in memory: a schema-1 row, read whole.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct HeldCalls {
    pub starts: Vec<i64>,
    pub ends: Vec<i64>,
}

/// Where a record's calls lie in its input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CallsAt {
    /// A trace's start and end arrays (absolute offsets of their first elements).
    Trace {
        starts_at: u64,
        ends_at: u64,
        endian: Endian,
    },
    /// A row of a profile's event columns, from event `offset` on.
    Events { offset: u64, columns: TimeColumns },
    /// In memory.
    Held(Arc<HeldCalls>),
    /// No calls (an aggregate row).
    Nothing,
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

/// An input as a worker keeps it open.
enum Opened<R: ReadAt> {
    Trace(R),
    Profile(Box<File<R>>),
}

/// One thread's state for the pipeline's jobs: its buffers, and the input it read last, kept
/// open for the next job (consecutive jobs mostly read the same input). Make one per thread
/// and pass it to every job that thread runs.
pub struct Worker<R: ReadAt> {
    pub(crate) bufs: Buffers,
    open: Option<(usize, Opened<R>)>,
    /// The names and source files its records share ([`intern`](Self::intern)).
    names: HashSet<Arc<str>>,
}

impl<R: ReadAt> Default for Worker<R> {
    fn default() -> Self {
        Worker {
            bufs: Buffers::default(),
            open: None,
            names: HashSet::new(),
        }
    }
}

impl<R: ReadAt> Worker<R> {
    /// A worker with empty buffers.
    pub fn new() -> Self {
        Self::default()
    }

    /// `s`, shared with every equal string this worker interned before: the records of
    /// 100,000 traces share their few region names and source files instead of each
    /// holding (and allocating) its own.
    pub(crate) fn intern(&mut self, s: &str) -> Arc<str> {
        if let Some(shared) = self.names.get(s) {
            return shared.clone();
        }
        let shared: Arc<str> = Arc::from(s);
        self.names.insert(shared.clone());
        shared
    }

    /// A reader of the calls of `record` (input `record.input`, named `name`), opened
    /// through `sources` unless it is the input read last, and the buffers.
    pub(crate) fn reader<S: Sources<Source = R>>(
        &mut self,
        sources: &S,
        record: &RowCalls,
        name: &str,
    ) -> Result<(CallReader<'_, R>, &mut Buffers), Error> {
        let profile = match record.at {
            CallsAt::Trace { .. } => false,
            CallsAt::Events { .. } => true,
            CallsAt::Held(_) | CallsAt::Nothing => {
                return Ok((CallReader::None, &mut self.bufs));
            }
        };
        let input = record.input;
        if self.open.as_ref().is_none_or(|(i, _)| *i != input) {
            self.open = None;
            let source = sources.open(input).map_err(|source| match profile {
                true => Error::Open {
                    input: name.to_owned(),
                    source,
                },
                false => Error::read(name, source),
            })?;
            let opened = if profile {
                Opened::Profile(Box::new(File::open(source).map_err(|e| Error::Hdf5 {
                    input: name.to_owned(),
                    source: e,
                })?))
            } else {
                Opened::Trace(source)
            };
            self.open = Some((input, opened));
        }
        let reader = match (&self.open, &record.at) {
            (Some((_, Opened::Trace(src))), CallsAt::Trace { .. }) => CallReader::Trace(src),
            (Some((_, Opened::Profile(file))), CallsAt::Events { columns, .. }) => {
                CallReader::open_events(file, *columns, name)?
            }
            _ => return Err(Error::Internal("an input opened as the wrong kind")),
        };
        Ok((reader, &mut self.bufs))
    }
}

/// Reads the calls of the records of one input; made by [`Worker::reader`], kept while
/// consecutive records come from that input.
pub(crate) enum CallReader<'f, R: ReadAt> {
    Trace(&'f R),
    Events {
        columns: TimeColumns,
        datasets: Box<[Dataset<'f, R>; 2]>,
        /// The columns hold what the output stores: start deltas and durations as
        /// little-endian `i64`, so their bytes are copied, not decoded and encoded again.
        stored_as_output: bool,
    },
    /// Records whose calls need no input.
    None,
}

impl<'f, R: ReadAt> CallReader<'f, R> {
    /// Opens a profile's time columns.
    pub fn open_events(file: &'f File<R>, columns: TimeColumns, name: &str) -> Result<Self, Error> {
        let open = |d: names::Dataset| {
            file.dataset(d.path).map_err(|e| Error::Profile {
                input: name.to_owned(),
                source: e.into(),
            })
        };
        let [first, second] = columns.datasets();
        let datasets = Box::new([open(first)?, open(second)?]);
        let output_type = Datatype::Integer {
            size: 8,
            signed: true,
            order: ByteOrder::Little,
        };
        let stored_as_output =
            columns.delta && datasets.iter().all(|d| *d.datatype() == output_type);
        Ok(CallReader::Events {
            columns,
            datasets,
            stored_as_output,
        })
    }

    /// Appends the output's encoding of calls `lo..hi` of `record` (start deltas and
    /// durations, little-endian) to `bufs.deltas` and `bufs.durations`, copied from the
    /// input's columns where they are stored so; returns whether it did. The deltas of a
    /// row restart at its first call in both, so any range of a row copies as it is.
    pub fn copy_encoded(
        &self,
        record: &RowCalls,
        lo: u64,
        hi: u64,
        bufs: &mut Buffers,
        name: &str,
    ) -> Result<bool, Error> {
        let (
            CallReader::Events {
                datasets,
                stored_as_output: true,
                ..
            },
            &CallsAt::Events { offset, .. },
        ) = (self, &record.at)
        else {
            return Ok(false);
        };
        let [first, second] = &**datasets;
        let start = offset
            .checked_add(lo)
            .ok_or(Error::Internal("a range too large"))?;
        for (d, out) in [(first, &mut bufs.deltas), (second, &mut bufs.durations)] {
            d.read_raw_range_into(start, hi - lo, out)
                .map_err(|e| Error::Profile {
                    input: name.to_owned(),
                    source: e.into(),
                })?;
        }
        Ok(true)
    }

    /// Whether this reader reads `record`'s calls.
    pub fn reads(&self, record: &RowCalls) -> bool {
        matches!(
            (self, &record.at),
            (CallReader::Trace(_), CallsAt::Trace { .. })
                | (CallReader::Events { .. }, CallsAt::Events { .. })
                | (_, CallsAt::Held(_) | CallsAt::Nothing)
        )
    }

    /// Reads calls `lo..hi` of `record` into `bufs.starts` and `bufs.ends`. With
    /// `previous`, `starts` begins with one more element: the start before `lo`, or 0 at
    /// the first call (what the first start delta is taken from). A row of start deltas
    /// is read from `lo > 0` only given `start_before`, the start of call `lo - 1`.
    #[allow(clippy::too_many_arguments)]
    pub fn read(
        &self,
        record: &RowCalls,
        lo: u64,
        hi: u64,
        previous: bool,
        start_before: Option<i64>,
        bufs: &mut Buffers,
        name: &str,
    ) -> Result<(), Error> {
        let n = usize::try_from(hi - lo).map_err(|_| Error::Internal("a range too large"))?;
        let skip = usize::from(previous);
        match (self, &record.at) {
            (
                CallReader::Trace(src),
                &CallsAt::Trace {
                    starts_at,
                    ends_at,
                    endian,
                },
            ) => {
                let read = |e| Error::read(name, e);
                bufs.ends.resize(n, 0);
                trace::read_timestamps(
                    *src,
                    ends_at + lo * 8,
                    endian,
                    &mut bufs.scratch,
                    &mut bufs.ends,
                )
                .map_err(read)?;
                if previous && lo > 0 {
                    bufs.starts.resize(n + 1, 0);
                    trace::read_timestamps(
                        *src,
                        starts_at + (lo - 1) * 8,
                        endian,
                        &mut bufs.scratch,
                        &mut bufs.starts,
                    )
                    .map_err(read)?;
                } else {
                    bufs.starts.resize(n + skip, 0);
                    if let Some(first) = bufs.starts.first_mut() {
                        *first = 0;
                    }
                    trace::read_timestamps(
                        *src,
                        starts_at + lo * 8,
                        endian,
                        &mut bufs.scratch,
                        &mut bufs.starts[skip..],
                    )
                    .map_err(read)?;
                }
            }
            (
                CallReader::Events {
                    columns, datasets, ..
                },
                &CallsAt::Events { offset, .. },
            ) => {
                let [first, second] = &**datasets;
                let append = |d: &Dataset<'_, R>, lo: u64, hi: u64, out: &mut Vec<i64>| {
                    let span = Span {
                        offset: offset + lo,
                        count: hi - lo,
                    };
                    ints_into(d, span, out).map_err(|e| Error::Profile {
                        input: name.to_owned(),
                        source: e,
                    })
                };
                bufs.starts.clear();
                bufs.ends.clear();
                // Start deltas continue from the start before `lo`.
                let before = match lo {
                    0 => 0,
                    _ if columns.delta => {
                        start_before.ok_or(Error::Internal("no start recorded before a range"))?
                    }
                    _ => 0,
                };
                if previous && lo > 0 && !columns.delta {
                    // Absolute starts: the one before `lo` is read with the others.
                    append(first, lo - 1, hi, &mut bufs.starts)?;
                } else {
                    if previous {
                        bufs.starts.push(before);
                    }
                    append(first, lo, hi, &mut bufs.starts)?;
                }
                append(second, lo, hi, &mut bufs.ends)?;
                decode_in_place(
                    columns.delta,
                    before,
                    &mut bufs.starts[skip..],
                    &mut bufs.ends,
                );
            }
            (_, CallsAt::Held(calls)) => {
                let range = |v: &[i64]| {
                    usize::try_from(lo)
                        .ok()
                        .and_then(|lo| v.get(lo..lo + n))
                        .map(<[i64]>::to_vec)
                        .ok_or(Error::Internal("a range outside held calls"))
                };
                let (starts, ends) = (range(&calls.starts)?, range(&calls.ends)?);
                bufs.starts.clear();
                if previous {
                    let before = match lo {
                        0 => 0,
                        lo => calls.starts.get(lo as usize - 1).copied().unwrap_or(0),
                    };
                    bufs.starts.push(before);
                }
                bufs.starts.extend_from_slice(&starts);
                bufs.ends.clear();
                bufs.ends.extend_from_slice(&ends);
            }
            (_, CallsAt::Nothing) => {
                bufs.starts.clear();
                bufs.ends.clear();
                if previous {
                    bufs.starts.push(0);
                }
            }
            _ => return Err(Error::Internal("calls read through the wrong reader")),
        }
        Ok(())
    }

    /// The raw first time column (start deltas or starts) of events `span` of a profile,
    /// appended to `out`.
    pub fn first_column_into(
        &self,
        span: Span,
        out: &mut Vec<i64>,
        name: &str,
    ) -> Result<(), Error> {
        match self {
            CallReader::Events { datasets, .. } => {
                ints_into(&datasets[0], span, out).map_err(|e| Error::Profile {
                    input: name.to_owned(),
                    source: e,
                })
            }
            _ => Err(Error::Internal("event columns read from no profile")),
        }
    }

    /// Reads the starts of calls `0..n` of `record` (pass 1's view of a small row) into
    /// `bufs.starts`.
    pub fn read_starts(
        &self,
        record: &RowCalls,
        n: u64,
        bufs: &mut Buffers,
        name: &str,
    ) -> Result<(), Error> {
        match (self, &record.at) {
            (
                CallReader::Trace(src),
                &CallsAt::Trace {
                    starts_at, endian, ..
                },
            ) => {
                let n = usize::try_from(n).map_err(|_| Error::Internal("a range too large"))?;
                bufs.starts.resize(n, 0);
                trace::read_timestamps(*src, starts_at, endian, &mut bufs.scratch, &mut bufs.starts)
                    .map_err(|e| Error::read(name, e))
            }
            (
                CallReader::Events {
                    columns, datasets, ..
                },
                &CallsAt::Events { offset, .. },
            ) => {
                bufs.starts.clear();
                let span = Span { offset, count: n };
                ints_into(&datasets[0], span, &mut bufs.starts).map_err(|e| Error::Profile {
                    input: name.to_owned(),
                    source: e,
                })?;
                decode_in_place(columns.delta, 0, &mut bufs.starts, &mut []);
                Ok(())
            }
            _ => self.read(record, 0, n, false, None, bufs, name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::{convert, scan_profile, Deflate, Input, Options};
    use crate::schema::write::encode_events;
    use crate::trace::{encode, Region, Trace, Version};

    /// A profile of one rank with one region of `calls` calls, written by the pipeline.
    fn profile(calls: i64, compress: Option<Deflate>) -> Vec<u8> {
        let starts: Vec<i64> = (0..calls).map(|i| 5_000 + 7 * i - (i % 13) * 3).collect();
        let ends = starts.iter().map(|s| s + s % 11 - 2).collect();
        let trace = Trace {
            rank: 2,
            regions: vec![Region {
                name: "r".into(),
                starts,
                ends,
                ..Region::default()
            }],
        };
        let inputs = [encode(&trace, Version::V2, Endian::Little)];
        let options = Options {
            compress,
            ..Options::default()
        };
        let mut out = Vec::new();
        convert(&[Input::new("t.spt")], &&inputs[..], &options, &mut out).unwrap();
        out
    }

    /// Ranges of a row, across chunk boundaries of compressed columns too, are copied as
    /// exactly the bytes decoding and encoding them again gives.
    #[test]
    fn copied_ranges_are_the_re_encoded_bytes() {
        for compress in [None, Some(Deflate::Level(1)), Some(Deflate::Runs)] {
            let bytes = profile(20_000, compress);
            let mut worker: Worker<&[u8]> = Worker::new();
            let scanned = scan_profile(0, "p.h5", &bytes[..], &mut worker).unwrap();
            let record = &scanned.records[0].row;
            let file = File::open(&bytes[..]).unwrap();
            let CallsAt::Events { columns, .. } = record.at else {
                panic!("not event columns");
            };
            let reader = CallReader::open_events(&file, columns, "p.h5").unwrap();
            let mut bufs = Buffers::default();
            for (lo, hi) in [
                (0, 20_000),
                (8_000, 8_300),
                (8_192, 16_385),
                (19_999, 20_000),
            ] {
                bufs.deltas.clear();
                bufs.durations.clear();
                assert!(reader
                    .copy_encoded(record, lo, hi, &mut bufs, "p.h5")
                    .unwrap());
                let copied = (bufs.deltas.clone(), bufs.durations.clone());
                reader
                    .read(record, 0, hi, true, None, &mut bufs, "p.h5")
                    .unwrap();
                let (mut deltas, mut durations) = (Vec::new(), Vec::new());
                let previous = bufs.starts[lo as usize];
                let starts = &bufs.starts[lo as usize + 1..];
                let ends = &bufs.ends[lo as usize..];
                encode_events(previous, starts, ends, &mut deltas, &mut durations);
                assert_eq!(copied, (deltas, durations), "{compress:?} {lo}..{hi}");
            }
        }
    }

    /// Absolute start and end times (schema 2) are not what the output stores: no copy.
    #[test]
    fn absolute_times_are_not_copied() {
        let bytes = std::fs::read("tests/golden/h5_c_schema2/inputs/profile_rank00000.h5").unwrap();
        let mut worker: Worker<&[u8]> = Worker::new();
        let scanned = scan_profile(0, "p.h5", &bytes[..], &mut worker).unwrap();
        let record = &scanned
            .records
            .iter()
            .find(|r| r.row.calls > 0)
            .unwrap()
            .row;
        let file = File::open(&bytes[..]).unwrap();
        let CallsAt::Events { columns, .. } = record.at else {
            panic!("not event columns");
        };
        let reader = CallReader::open_events(&file, columns, "p.h5").unwrap();
        let mut bufs = Buffers::default();
        let copied = reader.copy_encoded(record, 0, record.calls, &mut bufs, "p.h5");
        assert!(!copied.unwrap());
        assert!(bufs.deltas.is_empty());
    }
}
