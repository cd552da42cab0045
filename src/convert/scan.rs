//! Pass 1: what the merge rules need of every region on every rank, without keeping calls.
//!
//! [`scan_trace`] indexes one trace and reads the starts of each region of up to one
//! [`BLOCK`] (for the region order and `start_time_ns`); such a region is summarised in
//! pass 2, which reads all its calls anyway. A region larger than a block is summarised
//! here, in block-sized [`SegmentJob`]s that run independently and are joined in order
//! ([`Scan::join`]); its `m2` waits for pass 2, which has the mean.

use super::calls::{read_calls, read_starts, Buffers, CallsAt, Worker};
use super::error::Error;
use super::{Sources, BLOCK};
use crate::io::ReadAt;
use crate::schema::stats::{exact_total, SummaryBuilder};
use crate::schema::{Metadata, RegionRecord, Summary};
use crate::trace::{self, IndexError};

/// One region of one rank as pass 1 leaves it: everything but its calls.
#[derive(Debug, Clone)]
pub(crate) struct Record {
    pub name: String,
    pub source_file: Option<String>,
    pub source_line: Option<i64>,
    pub source_text: Option<String>,
    pub calls: u64,
    pub first_start: Option<i64>,
    pub min_start: Option<i64>,
    /// Regions over one block: complete but `m2` (pass 2 adds it). Others: made in pass 2.
    pub summary: Summary,
    /// Exact total duration (regions over one block), for the printed table.
    pub total_ns: i128,
    /// Which input, and where its calls lie there.
    pub input: usize,
    pub at: CallsAt,
}

impl RegionRecord for Record {
    fn name(&self) -> &str {
        &self.name
    }

    fn call_count(&self) -> u64 {
        self.calls
    }

    fn first_start(&self) -> Option<i64> {
        self.first_start
    }

    fn min_start(&self) -> Option<i64> {
        self.min_start
    }

    fn source(&self) -> (Option<&str>, Option<i64>, Option<&str>) {
        (
            self.source_file.as_deref(),
            self.source_line,
            self.source_text.as_deref(),
        )
    }
}

/// One rank of an input, as the merge rules take it.
#[derive(Debug)]
pub(crate) struct ScannedRank {
    pub rank: i64,
    pub regions: Vec<Record>,
    /// The input file's own metadata (`.h5` inputs only).
    pub metadata: Option<Metadata>,
}

/// Pass 1's result for one input.
#[derive(Debug)]
pub struct ScannedInput {
    pub(crate) ranks: Vec<ScannedRank>,
    work: u64,
}

impl ScannedInput {
    /// Bytes of timestamps pass 1 read (for a progress count).
    pub fn work(&self) -> u64 {
        self.work
    }
}

/// Pass 1 of input number `input`, a trace named `name` (in errors) read from `src`.
pub fn scan_trace<R: ReadAt + ?Sized, W>(
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
    let bufs: &mut Buffers = &mut worker.bufs;
    let mut regions = Vec::with_capacity(index.regions.len());
    let mut work = 0;
    for r in index.regions {
        let at = CallsAt::Trace {
            starts_at: r.starts_at,
            ends_at: r.ends_at,
            endian: index.endian,
        };
        let mut record = Record {
            name: r.name,
            source_file: r.source_file,
            source_line: r.source_line.map(i64::from),
            source_text: None,
            calls: r.calls,
            first_start: None,
            min_start: None,
            summary: Summary::default(),
            total_ns: 0,
            input,
            at,
        };
        // The order needs only the starts. Counted as the region's whole pass-1 share.
        if r.calls <= BLOCK && r.calls > 0 {
            read_starts(src, at, r.calls, bufs).map_err(|e| Error::read(name, e))?;
            work += 16 * r.calls;
            record.first_start = bufs.starts.first().copied();
            record.min_start = bufs.starts.iter().min().copied();
        }
        regions.push(record);
    }
    Ok(ScannedInput {
        ranks: vec![ScannedRank {
            rank: i64::from(index.rank),
            regions,
            metadata: None,
        }],
        work,
    })
}

/// A block-sized piece of a region over one block: calls `lo..hi` of one record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegmentJob {
    input: usize,
    rank: usize,
    region: usize,
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
}

/// Pass 1's results for every input, in input order, with the names used in errors.
#[derive(Debug)]
pub struct Scan {
    pub(crate) names: Vec<String>,
    pub(crate) results: Vec<Result<ScannedInput, Error>>,
}

impl Scan {
    /// The results of [`scan_trace`] (and the other scans) for inputs `0..names.len()`.
    pub fn new(names: Vec<String>, results: Vec<Result<ScannedInput, Error>>) -> Self {
        Scan { names, results }
    }

    /// The segments of every region over one block, in order; independent of each other.
    pub fn segments(&self) -> Vec<SegmentJob> {
        let mut jobs = Vec::new();
        for (input, result) in self.results.iter().enumerate() {
            let Ok(scanned) = result else { continue };
            for (rank, r) in scanned.ranks.iter().enumerate() {
                for (region, record) in r.regions.iter().enumerate() {
                    if record.calls <= BLOCK {
                        continue;
                    }
                    let mut lo = 0;
                    while lo < record.calls {
                        let hi = record.calls.min(lo + BLOCK);
                        jobs.push(SegmentJob {
                            input,
                            rank,
                            region,
                            lo,
                            hi,
                        });
                        lo = hi;
                    }
                }
            }
        }
        jobs
    }

    fn record(&self, job: &SegmentJob) -> Option<&Record> {
        let scanned = self.results.get(job.input)?.as_ref().ok()?;
        scanned.ranks.get(job.rank)?.regions.get(job.region)
    }

    /// Reads and summarises one segment.
    pub fn summarise<S: Sources>(
        &self,
        job: &SegmentJob,
        sources: &S,
        worker: &mut Worker<S::Source>,
    ) -> Result<Segment, Error> {
        let record = self
            .record(job)
            .ok_or(Error::Internal("a segment of no region"))?;
        let name = &self.names[job.input];
        let (src, bufs) = worker.open(sources, job.input, name)?;
        read_calls(src, record.at, job.lo, job.hi, false, bufs)
            .map_err(|e| Error::read(name, e))?;
        let mut builder = SummaryBuilder::new();
        builder.push(&bufs.starts, &bufs.ends);
        Ok(Segment {
            builder,
            total_ns: exact_total(&bufs.starts, &bufs.ends),
            first_start: bufs.starts.first().copied(),
        })
    }

    /// Joins the segments of each region, given in the order of [`segments`](Self::segments).
    /// A failed segment becomes the failure of its input.
    pub fn join(&mut self, done: Vec<(SegmentJob, Result<Segment, Error>)>) {
        let mut joined: Option<(SegmentJob, Segment)> = None;
        for (job, result) in done {
            if job.lo == 0 {
                self.finish_region(joined.take());
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
            let same_region =
                |j: &SegmentJob| (j.input, j.rank, j.region) == (job.input, job.rank, job.region);
            if job.lo == 0 {
                joined = Some((job, segment));
            } else if let Some((_, whole)) = joined.as_mut().filter(|(j, _)| same_region(j)) {
                // Segments before the last are whole blocks, a multiple of the cast buffer.
                let appended = whole.builder.append(segment.builder);
                debug_assert!(appended);
                whole.total_ns += segment.total_ns;
            }
        }
        self.finish_region(joined.take());
    }

    fn finish_region(&mut self, joined: Option<(SegmentJob, Segment)>) {
        let Some((job, segment)) = joined else { return };
        let Some(Ok(scanned)) = self.results.get_mut(job.input) else {
            return;
        };
        let Some(record) = scanned
            .ranks
            .get_mut(job.rank)
            .and_then(|r| r.regions.get_mut(job.region))
        else {
            return;
        };
        record.first_start = segment.first_start;
        record.total_ns = segment.total_ns;
        // m2 comes in pass 2.
        record.summary = segment.builder.finish(0.0);
        record.min_start = Some(record.summary.start_minimum);
    }
}
