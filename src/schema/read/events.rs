//! The shared `/events` columns of a schema 2/3 profile, read one row ([`Span`]) at a time
//! with [`Dataset::read_raw_range`], touching only the chunks the row lies in: a profile read
//! to [`Depth::Index`](crate::schema::Depth::Index) gets its calls on demand, so exports and
//! statistics stream in the memory of one row. The decoding of a row (start deltas or
//! absolute times, lanes) is the one the whole-profile read uses too.

use crate::hdf5lite::model::{ByteOrder, Datatype};
use crate::hdf5lite::reader::{value, Dataset, File};
use crate::io::ReadAt;
use crate::schema::error::Error;
use crate::schema::names;
use crate::schema::profile::{RankCalls, Span};
use crate::schema::stats::{m2_from_sum, pairwise_sum, PairwisePlan, Summary, SummaryBuilder};

use super::has_link;

/// One row's calls, column by column, as stored (times in ns).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RowEvents {
    pub starts: Vec<i64>,
    pub ends: Vec<i64>,
    /// GPU durations (−1 = none), when the file stores them.
    pub gpu: Option<Vec<i64>>,
    /// Thread index of every call (−1 = unknown), when threads were tracked.
    pub threads: Option<Vec<i64>>,
    /// Asyncio task index of every call (−1 = none), when tasks were tracked.
    pub tasks: Option<Vec<i64>>,
}

impl RowEvents {
    /// The reference's `lane_ids`: the task when there is one, else `−2 − thread`, else −1.
    pub fn lanes(&self) -> Option<Vec<i64>> {
        Some(lanes(self.threads.as_deref()?, self.tasks.as_deref()))
    }

    /// The row with these calls filled in (lanes derived, GPU kept only when any is set).
    pub fn into_calls(self, row: &RankCalls) -> RankCalls {
        let lanes = self.lanes();
        RankCalls {
            calls: crate::schema::Calls {
                starts: self.starts,
                ends: self.ends,
                gpu: self.gpu.filter(|g| g.iter().any(|&v| v >= 0)),
                lanes,
            }
            .into(),
            statistics: None,
            ..row.clone()
        }
    }
}

/// Lane of each call from the thread and task columns of a row (see [`RowEvents::lanes`]).
pub(crate) fn lanes(threads: &[i64], tasks: Option<&[i64]>) -> Vec<i64> {
    threads
        .iter()
        .enumerate()
        .map(|(j, &thread)| {
            let lane = if thread < 0 {
                -1
            } else {
                (-2i64).wrapping_sub(thread)
            };
            match tasks.and_then(|t| t.get(j)) {
                Some(&task) if task >= 0 => task,
                _ => lane,
            }
        })
        .collect()
}

/// Starts and ends of one row from its two stored columns: start deltas and durations
/// (the running sum restarts at every row), or absolute starts and ends.
pub(crate) fn decode_row(delta: bool, first: &[i64], second: &[i64]) -> (Vec<i64>, Vec<i64>) {
    let (mut starts, mut ends) = (first.to_vec(), second.to_vec());
    decode_in_place(delta, 0, &mut starts, &mut ends);
    (starts, ends)
}

/// [`decode_row`] in place, for calls that follow a call started at `base` (0 at a row's
/// first call): `first` becomes the starts and `second` (when not empty) the ends.
pub(crate) fn decode_in_place(delta: bool, base: i64, first: &mut [i64], second: &mut [i64]) {
    if !delta {
        return;
    }
    let mut acc = base;
    for start in first.iter_mut() {
        acc = acc.wrapping_add(*start);
        *start = acc;
    }
    for (end, start) in second.iter_mut().zip(first.iter()) {
        *end = start.wrapping_add(*end);
    }
}

/// The little-endian `i64`s of a stored column's bytes (a trailing partial value is
/// ignored).
pub(crate) fn stored_ints(bytes: &[u8]) -> impl Iterator<Item = i64> + '_ {
    bytes.chunks_exact(8).map(|b| {
        let mut w = [0u8; 8];
        w.copy_from_slice(b);
        i64::from_le_bytes(w)
    })
}

/// [`decode_row`] from a row's stored schema-3 columns as little-endian bytes (how sp
/// writes them), into `starts` and `ends` (emptied first).
pub(crate) fn decode_stored(
    deltas: &[u8],
    durations: &[u8],
    starts: &mut Vec<i64>,
    ends: &mut Vec<i64>,
) {
    starts.clear();
    let mut acc = 0i64;
    starts.extend(stored_ints(deltas).map(|d| {
        acc = acc.wrapping_add(d);
        acc
    }));
    ends.clear();
    let ends_of = starts.iter().zip(stored_ints(durations));
    ends.extend(ends_of.map(|(s, d)| s.wrapping_add(d)));
}

/// The names of the two time columns: start deltas and durations when `start_deltas`
/// exists (schema 3), else absolute start and end times (schema 2).
pub(crate) fn time_columns<R: ReadAt>(
    file: &File<R>,
) -> Result<(bool, names::Dataset, names::Dataset), Error> {
    use names::events::{DURATIONS, END_TIMES, START_DELTAS, START_TIMES};
    if !file
        .root()?
        .links()?
        .iter()
        .any(|l| l.name == names::EVENTS.name)
    {
        return Err(Error::EventsOmitted);
    }
    Ok(if has_link(file, START_DELTAS)? {
        (true, START_DELTAS, DURATIONS)
    } else {
        (false, START_TIMES, END_TIMES)
    })
}

/// A row's call ids and the ids of their callers, as stored (−1 = none; a root's caller
/// is −1).
pub type CallIds = (Vec<i64>, Vec<i64>);

/// The `/events` columns of a schema 2/3 profile, read one row at a time.
pub struct EventReader<'f, R: ReadAt> {
    a: Dataset<'f, R>,
    b: Dataset<'f, R>,
    /// `start_deltas`/`durations` rather than `start_times`/`end_times`.
    delta: bool,
    gpu: Option<Dataset<'f, R>>,
    threads: Option<Dataset<'f, R>>,
    tasks: Option<Dataset<'f, R>>,
    call_ids: Option<Dataset<'f, R>>,
    parent_ids: Option<Dataset<'f, R>>,
    len: u64,
}

impl<'f, R: ReadAt> EventReader<'f, R> {
    /// Opens the event columns; `None` when the profile stores none (schema 1, aggregate
    /// rows), [`Error::EventsOmitted`] when a columnar profile's `/events` was left out.
    pub fn open(file: &'f File<R>) -> Result<Option<Self>, Error> {
        let root = file.root()?;
        let links = root.links()?;
        if !links.iter().any(|l| l.name == names::EVENTS.name) {
            let indexed = links.iter().any(|l| l.name == names::INDEX.name);
            if indexed && !super::is_aggregate(file, &root)? {
                return Err(Error::EventsOmitted);
            }
            return Ok(None);
        }
        let (delta, a, b) = time_columns(file)?;
        let a = file.dataset(a.path)?;
        let b = file.dataset(b.path)?;
        let len = a.len()?;
        let optional = |column: names::Dataset| -> Result<Option<Dataset<'f, R>>, Error> {
            if !has_link(file, column)? {
                return Ok(None);
            }
            let d = file.dataset(column.path)?;
            if d.len()? != len {
                return Err(Error::Corrupt(format!(
                    "{} has {} rows, the event columns {len}",
                    column.path,
                    d.len()?
                )));
            }
            Ok(Some(d))
        };
        if b.len()? != len {
            return Err(Error::Corrupt(format!(
                "{} has {} rows, {} has {len}",
                b.path(),
                b.len()?,
                a.path()
            )));
        }
        Ok(Some(EventReader {
            gpu: optional(names::events::GPU_DURATIONS)?,
            threads: optional(names::events::THREAD_IDS)?,
            tasks: optional(names::events::TASK_IDS)?,
            call_ids: optional(names::events::CALL_IDS)?,
            parent_ids: optional(names::events::PARENT_IDS)?,
            a,
            b,
            delta,
            len,
        }))
    }

    /// Number of events in the columns.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the columns hold no events.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn check(&self, span: Span) -> Result<(), Error> {
        match span.offset.checked_add(span.count) {
            Some(end) if end <= self.len => Ok(()),
            _ => Err(Error::Corrupt(format!(
                "index row points at events {}+{} of {}",
                span.offset, span.count, self.len
            ))),
        }
    }

    /// The calls of one span appended to `starts` and `ends`, buffers a caller keeps from
    /// row to row, decoded as [`read`](Self::read) decodes them (the other columns are
    /// left out: see [`has_lanes`](Self::has_lanes)). On an error both are left as they
    /// were.
    pub fn append_calls(
        &self,
        span: Span,
        starts: &mut Vec<i64>,
        ends: &mut Vec<i64>,
    ) -> Result<(), Error> {
        self.append_calls_after(span, 0, starts, ends)
    }

    /// [`append_calls`](Self::append_calls) for a span that begins inside a row, after a
    /// call started at `base` (ns; 0 at a row's first call): start deltas run on from it, so
    /// a view reads only the calls of its time window. Absolute columns ignore `base`.
    pub fn append_calls_after(
        &self,
        span: Span,
        base: i64,
        starts: &mut Vec<i64>,
        ends: &mut Vec<i64>,
    ) -> Result<(), Error> {
        self.check(span)?;
        let (s0, e0) = (starts.len(), ends.len());
        let read = ints_into(&self.a, span, starts).and_then(|()| ints_into(&self.b, span, ends));
        if let Err(e) = read {
            starts.truncate(s0);
            ends.truncate(e0);
            return Err(e);
        }
        decode_in_place(self.delta, base, &mut starts[s0..], &mut ends[e0..]);
        Ok(())
    }

    /// Whether the file tracks threads, so that every row read has lanes.
    pub fn has_lanes(&self) -> bool {
        self.threads.is_some()
    }

    /// The calls of one span.
    pub fn read(&self, span: Span) -> Result<RowEvents, Error> {
        self.check(span)?;
        let (mut starts, mut ends) = (ints(&self.a, span)?, ints(&self.b, span)?);
        decode_in_place(self.delta, 0, &mut starts, &mut ends);
        Ok(RowEvents {
            starts,
            ends,
            gpu: self.gpu.as_ref().map(|d| ints(d, span)).transpose()?,
            threads: self.threads.as_ref().map(|d| ints(d, span)).transpose()?,
            tasks: self.tasks.as_ref().map(|d| ints(d, span)).transpose()?,
        })
    }

    /// The start times and durations of one span into `into`, whose buffers a caller keeps
    /// from row to row: the row's calls as [`read`](Self::read) decodes them (each end is
    /// its start plus its duration, wrapping), without the other columns.
    pub fn read_times(&self, span: Span, into: &mut RowTimes) -> Result<(), Error> {
        self.check(span)?;
        into.starts.clear();
        into.durations.clear();
        ints_reusing(&self.a, span, &mut into.raw, &mut into.starts)?;
        ints_reusing(&self.b, span, &mut into.raw, &mut into.durations)?;
        if self.delta {
            decode_in_place(true, 0, &mut into.starts, &mut []);
        } else {
            for (end, start) in into.durations.iter_mut().zip(&into.starts) {
                *end = end.wrapping_sub(*start);
            }
        }
        Ok(())
    }

    /// The GPU column of one span as stored (−1 = none), when the file has one.
    pub fn read_gpu(&self, span: Span) -> Result<Option<Vec<i64>>, Error> {
        self.check(span)?;
        self.gpu.as_ref().map(|d| ints(d, span)).transpose()
    }

    /// The call ids and caller ids of one span as stored (−1 = none), when the file has
    /// both columns (Python runs record the call graph so).
    pub fn read_call_ids(&self, span: Span) -> Result<Option<CallIds>, Error> {
        self.check(span)?;
        match (&self.call_ids, &self.parent_ids) {
            (Some(ids), Some(parents)) => Ok(Some((ints(ids, span)?, ints(parents, span)?))),
            _ => Ok(None),
        }
    }

    /// Only the thread and task columns of one span (for lane tables).
    pub fn read_lanes(&self, span: Span) -> Result<RowEvents, Error> {
        self.check(span)?;
        Ok(RowEvents {
            threads: self.threads.as_ref().map(|d| ints(d, span)).transpose()?,
            tasks: self.tasks.as_ref().map(|d| ints(d, span)).transpose()?,
            ..RowEvents::default()
        })
    }
}

/// One row's start times and durations (ns) from [`EventReader::read_times`], in buffers
/// kept from row to row so that a long scan does not fault in fresh pages for every row.
#[derive(Debug, Clone, Default)]
pub struct RowTimes {
    pub starts: Vec<i64>,
    /// `end − start` of every call, wrapping.
    pub durations: Vec<i64>,
    /// The stored bytes of a column, read into before decoding.
    raw: Vec<u8>,
}

impl RowTimes {
    /// Frees every buffer holding more than `bytes`, so that a long-lived caller does not
    /// keep a huge row's memory for the rows after it.
    pub fn release_over(&mut self, bytes: usize) {
        release_over(&mut self.starts, bytes);
        release_over(&mut self.durations, bytes);
        release_over(&mut self.raw, bytes);
    }
}

/// Bytes of a reusable buffer a thread keeps for its next row or job; a larger one (a huge
/// row's) is given back rather than held for as long as the thread lives.
pub(crate) const KEPT_BUFFER_BYTES: usize = 64 << 20;

/// Frees `buffer` when it holds more than `bytes`.
pub(crate) fn release_over<T>(buffer: &mut Vec<T>, bytes: usize) {
    if buffer.capacity().saturating_mul(std::mem::size_of::<T>()) > bytes {
        *buffer = Vec::new();
    }
}

/// The buffers a thread keeps from one row summary to the next: reading every row into
/// fresh vectors made the kernel fault in (and, with musl's allocator, map and unmap)
/// new pages for every row.
#[derive(Default)]
struct SummaryScratch {
    raw: Vec<u8>,
    a: Vec<i64>,
    b: Vec<i64>,
    kept: Vec<i64>,
    squares: Vec<f64>,
    /// The summary's cast buffer ([`SummaryBuilder::with_room`]).
    cast: Vec<f64>,
}

impl SummaryScratch {
    /// Gives back every buffer past [`KEPT_BUFFER_BYTES`].
    fn release_large(&mut self) {
        release_over(&mut self.raw, KEPT_BUFFER_BYTES);
        release_over(&mut self.a, KEPT_BUFFER_BYTES);
        release_over(&mut self.b, KEPT_BUFFER_BYTES);
        release_over(&mut self.kept, KEPT_BUFFER_BYTES);
        release_over(&mut self.squares, KEPT_BUFFER_BYTES);
        release_over(&mut self.cast, KEPT_BUFFER_BYTES);
    }
}

thread_local! {
    static RAW_SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    static SUMMARY_SCRATCH: std::cell::RefCell<SummaryScratch> =
        std::cell::RefCell::new(SummaryScratch::default());
}

/// Events decoded per block when a row is summarised from its calls.
pub const SUMMARY_BLOCK: u64 = 1 << 16;

/// Rows up to this many calls keep their durations for the second (`m2`) pass instead of
/// reading them again (8 MiB of durations).
const KEEP_DURATIONS: u64 = 1 << 20;

impl<R: ReadAt> EventReader<'_, R> {
    /// The `summary_statistics` of one span computed from its calls, bit-exact with the
    /// reference's: decoded in blocks of [`SUMMARY_BLOCK`] events, so memory stays bounded
    /// whatever the row's length (a long row is read twice: the `m2` pass needs the mean).
    pub fn summary(&self, span: Span) -> Result<Summary, Error> {
        self.summary_in(span, SUMMARY_BLOCK, KEEP_DURATIONS)
    }

    /// [`summary`](Self::summary) with `block` events per read, keeping the durations of
    /// rows up to `keep` calls.
    fn summary_in(&self, span: Span, block_len: u64, keep: u64) -> Result<Summary, Error> {
        SUMMARY_SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut();
            let summary = self.summary_with(span, block_len, keep, &mut scratch);
            scratch.release_large();
            summary
        })
    }

    /// [`summary_in`](Self::summary_in) with every buffer taken from `s`.
    fn summary_with(
        &self,
        span: Span,
        block_len: u64,
        keep: u64,
        s: &mut SummaryScratch,
    ) -> Result<Summary, Error> {
        self.check(span)?;
        let block_len = block_len.max(1);
        let mut builder = SummaryBuilder::with_room(std::mem::take(&mut s.cast));
        s.kept.clear();
        let keep = span.count <= keep;
        let (mut gpu_count, mut gpu_total) = (0u64, 0i64);
        let mut acc = 0i64;
        let mut done = 0u64;
        while done < span.count {
            let n = (span.count - done).min(block_len);
            let block = Span {
                offset: span.offset + done,
                count: n,
            };
            s.a.clear();
            s.b.clear();
            ints_reusing(&self.a, block, &mut s.raw, &mut s.a)?;
            ints_reusing(&self.b, block, &mut s.raw, &mut s.b)?;
            // Starts from their deltas (after the block before) and ends, in place.
            decode_in_place(self.delta, acc, &mut s.a, &mut s.b);
            acc = s.a.last().copied().unwrap_or(acc);
            let (starts, ends) = (&s.a, &s.b);
            builder.push(starts, ends);
            if keep {
                s.kept
                    .extend(starts.iter().zip(ends).map(|(s, e)| e.wrapping_sub(*s)));
            }
            if let Some(g) = &self.gpu {
                s.a.clear();
                ints_reusing(g, block, &mut s.raw, &mut s.a)?;
                for &v in s.a.iter().filter(|&&v| v >= 0) {
                    gpu_count += 1;
                    gpu_total = gpu_total.wrapping_add(v);
                }
            }
            done += n;
        }
        s.cast = builder.take_room();
        let mean = builder.mean();
        // numpy's pairwise sum of the squared deviations, node by node of its recursion.
        let plan = PairwisePlan::new(span.count, block_len);
        let mut sums = Vec::with_capacity(plan.ranges.len());
        for &(lo, hi) in &plan.ranges {
            let range = Span {
                offset: span.offset + lo,
                count: hi - lo,
            };
            let durations = if keep {
                let range = usize::try_from(lo).ok().zip(usize::try_from(hi).ok());
                match range.and_then(|(lo, hi)| s.kept.get(lo..hi)) {
                    Some(d) => d,
                    None => return Err(Error::Corrupt("summary range out of bounds".into())),
                }
            } else {
                self.durations_into(range, &mut s.raw, &mut s.a, &mut s.b)?;
                &s.b[..]
            };
            s.squares.clear();
            s.squares.extend(durations.iter().map(|&d| {
                let x = d as f64 - mean;
                x * x
            }));
            sums.push(pairwise_sum(&s.squares));
        }
        let m2 = m2_from_sum(plan.combine(&sums), span.count);
        let mut summary = builder.finish(0.0);
        if span.count > 0 {
            summary.m2 = m2;
        }
        summary.gpu_count = gpu_count;
        summary.gpu_total = gpu_total;
        Ok(summary)
    }

    /// The durations of one span into `durations`, with `raw` and `starts` as room.
    fn durations_into(
        &self,
        span: Span,
        raw: &mut Vec<u8>,
        starts: &mut Vec<i64>,
        durations: &mut Vec<i64>,
    ) -> Result<(), Error> {
        durations.clear();
        ints_reusing(&self.b, span, raw, durations)?;
        if !self.delta {
            starts.clear();
            ints_reusing(&self.a, span, raw, starts)?;
            for (e, s) in durations.iter_mut().zip(starts.iter()) {
                *e = e.wrapping_sub(*s);
            }
        }
        Ok(())
    }
}

/// Elements `span` of an integer dataset as `i64`.
pub(crate) fn ints<R: ReadAt>(d: &Dataset<'_, R>, span: Span) -> Result<Vec<i64>, Error> {
    let mut out = Vec::new();
    ints_into(d, span, &mut out)?;
    Ok(out)
}

/// [`ints`] appended to `out`, so a caller reading many spans reuses one buffer.
pub(crate) fn ints_into<R: ReadAt>(
    d: &Dataset<'_, R>,
    span: Span,
    out: &mut Vec<i64>,
) -> Result<(), Error> {
    // The stored bytes go through a buffer the thread keeps (see `SummaryScratch`).
    RAW_SCRATCH.with(|raw| {
        let mut raw = raw.borrow_mut();
        let read = ints_reusing(d, span, &mut raw, out);
        release_over(&mut raw, KEPT_BUFFER_BYTES);
        read
    })
}

/// [`ints_into`] with the stored bytes read into `raw` (emptied first), a buffer the caller
/// keeps too.
fn ints_reusing<R: ReadAt>(
    d: &Dataset<'_, R>,
    span: Span,
    raw: &mut Vec<u8>,
    out: &mut Vec<i64>,
) -> Result<(), Error> {
    let Datatype::Integer {
        size,
        signed,
        order,
    } = *d.datatype()
    else {
        return Err(Error::Corrupt(format!(
            "{} is not an integer column",
            d.path()
        )));
    };
    raw.clear();
    d.read_raw_range_into(span.offset, span.count, raw)?;
    if size == 8 && signed {
        // The common case, decoded without the general integer path.
        let word = |b: &[u8]| -> [u8; 8] {
            let mut w = [0u8; 8];
            w.copy_from_slice(b);
            w
        };
        match order {
            ByteOrder::Little => {
                out.extend(raw.chunks_exact(8).map(|b| i64::from_le_bytes(word(b))))
            }
            ByteOrder::Big => out.extend(raw.chunks_exact(8).map(|b| i64::from_be_bytes(word(b)))),
        }
        return Ok(());
    }
    for b in raw.chunks_exact(size as usize) {
        let v = value::int(b, size, signed, order, 0)?;
        out.push(
            i64::try_from(v)
                .map_err(|_| Error::Corrupt(format!("{}: value {v} does not fit", d.path())))?,
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{read, Depth, RowStatistics};

    /// Every row's statistics computed from its calls, in small blocks (reading durations
    /// twice) and in the default ones, equal [`Summary::of`] over the whole row, and (when
    /// `exact`, i.e. the reference's numpy wrote them) the stored `summary_statistics`.
    fn summaries_match_stored(bytes: &[u8], rows: usize, exact: bool) {
        let file = File::open(bytes).expect("open");
        let index = read(&file, Depth::Index).expect("index");
        let reader = EventReader::open(&file)
            .expect("events")
            .expect("has events");
        let mut seen = 0;
        for region in &index.regions {
            for row in &region.ranks {
                let span = row.span.expect("span");
                let want = row.statistics.clone().expect("stored row");
                let calls = reader.read(span).expect("calls");
                let whole = Summary::of(&calls.starts, &calls.ends);
                for (block, keep) in [(1000, 0), (SUMMARY_BLOCK, KEEP_DURATIONS), (7, 1 << 20)] {
                    let s = reader.summary_in(span, block, keep).expect("summary");
                    let context = format!("{} rank {} block {block}", region.name, row.rank);
                    assert_eq!((s.mean, s.m2), (whole.mean, whole.m2), "{context}");
                    let got = RowStatistics::computed(span.count, &s, row.exclusive_total);
                    if exact {
                        assert_eq!(got, want, "{context}");
                    } else {
                        assert_eq!(got.with_m2(None), want.clone().with_m2(None), "{context}");
                    }
                }
                seen += 1;
            }
        }
        assert_eq!(seen, rows);
    }

    #[test]
    fn summaries_from_chunked_deltas_match_stored() {
        // Schema 3, gzip chunks, 8503 calls: several cast buffers and chunk boundaries.
        summaries_match_stored(
            include_bytes!("../../../tests/corpus/golden/chunked_big.h5"),
            2,
            true,
        );
    }

    #[test]
    fn summaries_with_gpu_columns_match_stored() {
        summaries_match_stored(
            include_bytes!("../../../tests/corpus/golden/python_rich_rich.h5"),
            2,
            true,
        );
    }

    #[test]
    fn summaries_from_start_end_columns_match_stored() {
        // Schema 2 start_times/end_times written by the C library, whose stored m2 is
        // summed in another order than numpy's (so m2 is checked against Summary::of).
        summaries_match_stored(
            include_bytes!("../../../tests/corpus/golden/c_hdf5_profile_rank00000.h5"),
            5,
            false,
        );
    }

    #[test]
    fn summary_rejects_a_span_past_the_columns() {
        let file = File::open(&include_bytes!("../../../tests/corpus/golden/chunked_big.h5")[..])
            .expect("open");
        let reader = EventReader::open(&file)
            .expect("events")
            .expect("has events");
        let err = reader
            .summary(Span {
                offset: 8000,
                count: 504,
            })
            .expect_err("past the end");
        assert!(matches!(err, Error::Corrupt(_)), "{err}");
    }

    /// [`EventReader::read_times`] into one kept buffer gives every row's starts and
    /// durations as [`EventReader::read`] gives them, from start deltas and durations
    /// (schema 3) and from absolute start and end times (schema 2), and the GPU column.
    #[test]
    fn times_into_a_kept_buffer_and_appended_calls_equal_the_read_calls() {
        for bytes in [
            &include_bytes!("../../../tests/corpus/golden/chunked_big.h5")[..],
            &include_bytes!("../../../tests/corpus/golden/c_hdf5_profile_rank00000.h5")[..],
            &include_bytes!("../../../tests/corpus/golden/python_rich_rich.h5")[..],
        ] {
            let file = File::open(bytes).expect("open");
            let index = read(&file, Depth::Index).expect("index");
            let reader = EventReader::open(&file)
                .expect("events")
                .expect("has events");
            let mut times = RowTimes::default();
            let mut rows = 0;
            // Every row appended after the rows before it.
            let (mut starts, mut ends) = (vec![7], vec![9]);
            for row in index.regions.iter().flat_map(|r| &r.ranks) {
                let span = row.span.expect("span");
                let calls = reader.read(span).expect("calls");
                let at = starts.len();
                reader
                    .append_calls(span, &mut starts, &mut ends)
                    .expect("append");
                assert_eq!(
                    (&starts[at..], &ends[at..]),
                    (&calls.starts[..], &calls.ends[..])
                );
                assert_eq!(reader.has_lanes(), calls.threads.is_some());
                reader.read_times(span, &mut times).expect("times");
                let durations: Vec<i64> = calls
                    .starts
                    .iter()
                    .zip(&calls.ends)
                    .map(|(s, e)| e.wrapping_sub(*s))
                    .collect();
                assert_eq!(
                    (&times.starts, &times.durations),
                    (&calls.starts, &durations)
                );
                assert_eq!(reader.read_gpu(span).expect("gpu"), calls.gpu);
                rows += 1;
            }
            assert!(rows > 1);
            assert_eq!((starts[0], ends[0]), (7, 9));
            let past = Span {
                offset: reader.len(),
                count: 1,
            };
            assert!(reader.append_calls(past, &mut starts, &mut ends).is_err());
            assert_eq!(starts.len(), ends.len());
        }
    }

    #[test]
    fn lanes_prefer_tasks_then_threads() {
        let row = RowEvents {
            threads: Some(vec![-1, 0, 3, 1]),
            tasks: Some(vec![-1, -1, -1, 7]),
            ..RowEvents::default()
        };
        assert_eq!(row.lanes(), Some(vec![-1, -2, -5, 7]));
        assert_eq!(RowEvents::default().lanes(), None);
    }

    #[test]
    fn rows_decode_from_deltas_or_absolute_times() {
        assert_eq!(
            decode_row(true, &[100, 5, -2], &[1, 2, 3]),
            (vec![100, 105, 103], vec![101, 107, 106])
        );
        assert_eq!(
            decode_row(false, &[100, 105], &[101, 107]),
            (vec![100, 105], vec![101, 107])
        );
    }
}
