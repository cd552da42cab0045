//! Pass 1: what the merge rules need of every row of every input, without keeping calls.
//!
//! [`scan_trace`] indexes a trace, [`scan_profile`](super::profile::scan_profile) reads a
//! profile's index; both read the starts of each row of up to one [`BLOCK`] (for the region
//! order and `start_time_ns`), whose summary pass 2 makes, as it reads all its calls anyway.
//! A row larger than a block is summarised here by [`SegmentJob`]s that run independently
//! and are joined in order ([`Scan::join`]): block-sized ones, or for a row of start deltas
//! (which decode only from the row's start) one job for the whole row, which also records
//! the starts pass 2 resumes from. Its `m2` waits for pass 2, which has the mean.

use super::calls::{CallsAt, Worker};
use super::error::Error;
use super::profile::ScannedProfile;
use super::{Sources, BLOCK};
use crate::io::ReadAt;
use crate::schema::stats::{exact_total, PairwisePlan, SummaryBuilder};
use crate::schema::{RegionRecord, Summary};
use crate::trace::{self, IndexError};
use std::sync::Arc;

/// One row (a region on one rank) as pass 1 leaves it: everything but its calls.
#[derive(Debug, Clone)]
pub(crate) struct Record {
    /// Shared with the records of the same name a worker read ([`Worker::intern`]).
    pub name: Arc<str>,
    /// Where the region is in the source, moved to the merged row.
    pub source: Source,
    pub first_start: Option<i64>,
    pub min_start: Option<i64>,
    /// Where its calls are: what pass 2 keeps of the record.
    pub row: RowCalls,
}

/// Where a row's calls are and what pass 1 summarised of them: all pass 2 needs of a row,
/// about 50 bytes of each of a million.
#[derive(Debug, Clone)]
pub(crate) struct RowCalls {
    /// Which input, and where the calls lie there.
    pub input: usize,
    pub at: CallsAt,
    pub calls: u64,
    /// What pass 1 summarised of a row over one block; other rows are summarised in pass 2.
    /// Boxed, as most rows are small.
    pub large: Option<Box<LargeRow>>,
}

/// Source file, line and text as an input gives them; the strings shared as names are.
#[derive(Debug, Clone, Default)]
pub(crate) struct Source {
    pub file: Option<Arc<str>>,
    pub line: Option<i64>,
    pub text: Option<Arc<str>>,
}

/// Pass 1's statistics of a row over one block.
#[derive(Debug, Clone, Default)]
pub(crate) struct LargeRow {
    /// Complete but `m2` (pass 2 adds it).
    pub summary: Summary,
    /// Exact total duration, for the printed table.
    pub total_ns: i128,
    /// Rows of start deltas: the start before each of pass 2's pieces.
    pub starts_before: Vec<(u64, i64)>,
}

impl Record {
    /// A row without calls read yet.
    pub fn new(input: usize, name: Arc<str>, calls: u64, at: CallsAt) -> Record {
        Record {
            name,
            source: Source::default(),
            first_start: None,
            min_start: None,
            row: RowCalls {
                input,
                at,
                calls,
                large: None,
            },
        }
    }
}

impl RowCalls {
    /// The start of call `lo - 1`, where pass 1 recorded it.
    pub fn start_before(&self, lo: u64) -> Option<i64> {
        self.large
            .as_ref()?
            .starts_before
            .iter()
            .find(|(at, _)| *at == lo)
            .map(|(_, start)| *start)
    }

    /// The mean duration pass 1 found (rows over one block; 0 for others).
    pub fn mean(&self) -> f64 {
        self.large.as_ref().map_or(0.0, |l| l.summary.mean)
    }

    /// Whether the row is summarised in one job: start deltas over one block.
    fn whole_row_job(&self) -> bool {
        matches!(self.at, CallsAt::Events { columns, .. } if columns.delta)
    }
}

impl RegionRecord for Record {
    fn name(&self) -> &str {
        &self.name
    }

    fn call_count(&self) -> u64 {
        self.row.calls
    }

    fn first_start(&self) -> Option<i64> {
        self.first_start
    }

    fn min_start(&self) -> Option<i64> {
        self.min_start
    }

    fn take_source(&mut self) -> (Option<String>, Option<i64>, Option<String>) {
        let Source { file, line, text } = std::mem::take(&mut self.source);
        (
            file.map(|f| f.to_string()),
            line,
            text.map(|t| t.to_string()),
        )
    }
}

/// What an input holds besides its rows.
#[derive(Debug)]
pub(crate) enum Content {
    /// A trace: one rank, all the records in file order.
    Trace { rank: i64 },
    /// A profile: its regions, metadata and the rest.
    Profile(ScannedProfile),
}

/// Pass 1's result for one input.
#[derive(Debug)]
pub struct ScannedInput {
    pub(crate) records: Vec<Record>,
    pub(crate) content: Content,
    pub(crate) work: u64,
}

impl ScannedInput {
    /// Bytes of timestamps pass 1 read (for a progress count).
    pub fn work(&self) -> u64 {
        self.work
    }
}

/// Sets the first and smallest start of each record of up to one block from its starts;
/// returns the bytes read (counted as the row's whole pass-1 share).
pub(crate) fn read_small_rows<S: ReadAt, W: ReadAt>(
    records: &mut [Record],
    reader: &super::calls::CallReader<'_, S>,
    worker: &mut Worker<W>,
    name: &str,
) -> Result<u64, Error> {
    let mut work = 0;
    for record in records {
        if record.row.calls > BLOCK || record.row.calls == 0 {
            continue;
        }
        let bufs = &mut worker.bufs;
        reader.read_starts(&record.row, record.row.calls, bufs, name)?;
        work += 16 * record.row.calls;
        record.first_start = bufs.starts.first().copied();
        record.min_start = bufs.starts.iter().min().copied();
    }
    Ok(work)
}

/// Pass 1 of input number `input`, a trace named `name` (in errors) read from `src`.
pub fn scan_trace<R: ReadAt + ?Sized, W: ReadAt>(
    input: usize,
    name: &str,
    src: &R,
    worker: &mut Worker<W>,
) -> Result<ScannedInput, Error> {
    let index = trace::index(src).map_err(|e| match e {
        IndexError::Trace(source) => Error::Trace {
            input: name.to_owned(),
            source,
        },
        IndexError::Io(e) => Error::read(name, e),
    })?;
    let mut records: Vec<Record> = index
        .regions
        .into_iter()
        .map(|r| {
            let at = CallsAt::Trace {
                starts_at: r.starts_at,
                ends_at: r.ends_at,
                endian: index.endian,
            };
            Record {
                source: Source {
                    file: r.source_file.as_deref().map(|f| worker.intern(f)),
                    line: r.source_line.map(i64::from),
                    text: None,
                },
                ..Record::new(input, worker.intern(&r.name), r.calls, at)
            }
        })
        .collect();
    let reader = super::calls::CallReader::Trace(&src);
    let work = read_small_rows(&mut records, &reader, worker, name)?;
    Ok(ScannedInput {
        records,
        content: Content::Trace {
            rank: i64::from(index.rank),
        },
        work,
    })
}

/// Calls `lo..hi` of one record over one block: a block of it, or all of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegmentJob {
    input: usize,
    record: usize,
    lo: u64,
    hi: u64,
}

impl SegmentJob {
    /// The input the job reads.
    pub fn input(&self) -> usize {
        self.input
    }

    /// Bytes of timestamps the job reads (for a progress count).
    pub fn work(&self) -> u64 {
        16 * (self.hi - self.lo)
    }
}

/// The statistics of one segment.
#[derive(Debug, Clone)]
pub struct Segment {
    builder: SummaryBuilder,
    total_ns: i128,
    first_start: Option<i64>,
    starts_before: Vec<(u64, i64)>,
}

/// Pass 1's results for every input, in input order, with the names used in errors.
#[derive(Debug)]
pub struct Scan {
    pub(crate) names: Vec<String>,
    pub(crate) results: Vec<Result<ScannedInput, Error>>,
}

impl Scan {
    /// The results of [`scan_trace`] and [`scan_profile`](super::scan_profile) for inputs
    /// `0..names.len()`, in the order the merge rules take them.
    pub fn new(names: Vec<String>, results: Vec<Result<ScannedInput, Error>>) -> Self {
        Scan { names, results }
    }

    /// The segments of every row over one block, in order; independent of each other.
    pub fn segments(&self) -> Vec<SegmentJob> {
        let mut jobs = Vec::new();
        for (input, result) in self.results.iter().enumerate() {
            let Ok(scanned) = result else { continue };
            for (index, record) in scanned.records.iter().enumerate() {
                if record.row.calls <= BLOCK {
                    continue;
                }
                let step = if record.row.whole_row_job() {
                    record.row.calls
                } else {
                    BLOCK
                };
                let mut lo = 0;
                while lo < record.row.calls {
                    let hi = record.row.calls.min(lo + step);
                    jobs.push(SegmentJob {
                        input,
                        record: index,
                        lo,
                        hi,
                    });
                    lo = hi;
                }
            }
        }
        jobs
    }

    fn record(&self, job: &SegmentJob) -> Option<&Record> {
        let scanned = self.results.get(job.input)?.as_ref().ok()?;
        scanned.records.get(job.record)
    }

    /// Reads and summarises one segment, a block at a time.
    pub fn summarise<S: Sources>(
        &self,
        job: &SegmentJob,
        sources: &S,
        worker: &mut Worker<S::Source>,
    ) -> Result<Segment, Error> {
        let record = self
            .record(job)
            .ok_or(Error::Internal("a segment of no row"))?;
        let name = &self.names[job.input];
        let (reader, bufs) = worker.reader(sources, &record.row, name)?;
        // Where pass 2's pieces of a row of start deltas begin.
        let pieces: Vec<u64> = if record.row.whole_row_job() {
            let plan = PairwisePlan::new(record.row.calls, BLOCK);
            plan.ranges
                .iter()
                .map(|r| r.0)
                .filter(|&lo| lo > 0)
                .collect()
        } else {
            Vec::new()
        };
        let mut segment = Segment {
            builder: SummaryBuilder::new(),
            total_ns: 0,
            first_start: None,
            starts_before: Vec::new(),
        };
        let mut lo = job.lo;
        let mut before = None;
        while lo < job.hi {
            let hi = job.hi.min(lo + BLOCK);
            reader.read(&record.row, lo, hi, false, before, bufs, name)?;
            segment.builder.push(&bufs.starts, &bufs.ends);
            segment.total_ns += exact_total(&bufs.starts, &bufs.ends);
            if lo == job.lo {
                segment.first_start = bufs.starts.first().copied();
            }
            for &at in pieces.iter().filter(|&&at| at > lo && at <= hi) {
                if let Some(&start) = bufs.starts.get((at - 1 - lo) as usize) {
                    segment.starts_before.push((at, start));
                }
            }
            before = bufs.starts.last().copied();
            lo = hi;
        }
        Ok(segment)
    }

    /// Joins the segments of each row, given in the order of [`segments`](Self::segments).
    /// A failed segment becomes the failure of its input.
    pub fn join(&mut self, done: Vec<(SegmentJob, Result<Segment, Error>)>) {
        let mut joined: Option<(SegmentJob, Segment)> = None;
        for (job, result) in done {
            if job.lo == 0 {
                self.finish_row(joined.take());
            }
            let segment = match result {
                Ok(segment) => segment,
                Err(e) => {
                    if let Some(slot) = self.results.get_mut(job.input) {
                        *slot = Err(e);
                    }
                    joined = None;
                    continue;
                }
            };
            let same_row = |j: &SegmentJob| (j.input, j.record) == (job.input, job.record);
            if job.lo == 0 {
                joined = Some((job, segment));
            } else if let Some((_, whole)) = joined.as_mut().filter(|(j, _)| same_row(j)) {
                // Segments before the last are whole blocks, a multiple of the cast buffer.
                let appended = whole.builder.append(segment.builder);
                debug_assert!(appended);
                whole.total_ns += segment.total_ns;
            }
        }
        self.finish_row(joined.take());
    }

    fn finish_row(&mut self, joined: Option<(SegmentJob, Segment)>) {
        let Some((job, segment)) = joined else { return };
        let Some(Ok(scanned)) = self.results.get_mut(job.input) else {
            return;
        };
        let Some(record) = scanned.records.get_mut(job.record) else {
            return;
        };
        // m2 comes in pass 2.
        let summary = segment.builder.finish(0.0);
        record.first_start = segment.first_start;
        record.min_start = Some(summary.start_minimum);
        record.row.large = Some(Box::new(LargeRow {
            summary,
            total_ns: segment.total_ns,
            starts_before: segment.starts_before,
        }));
    }
}
