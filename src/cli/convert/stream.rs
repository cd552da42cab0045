//! The streaming conversion of `.spt` inputs, in bounded memory and on all cores.
//!
//! Pass 1 (inputs in parallel): index each trace, then read each region's timestamps in
//! blocks to get its call count, first and smallest start and its [`Summary`] (`m2` too,
//! when the region fits one block). The merge rules then give the row order, region ids and
//! metadata from these summaries alone, and the HDF5 writer lays the file out with the bulk
//! datasets deferred. Pass 2 (units of about one block, in parallel): read each row's calls
//! again and write its start deltas and durations at their final offsets with `pwrite`;
//! regions larger than a block get their `m2` from the pieces of numpy's pairwise tree,
//! summed per unit and combined in order. Last, the summary records are written.
//!
//! Memory: a few blocks per thread, plus small inputs (read whole in pass 1) kept for pass 2
//! up to a budget. Same inputs → the same bytes as the in-memory conversion.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use sp::hdf5lite::writer::DataPlace;
use sp::io::ReadAt;
use sp::schema::stats::{
    exact_total, m2_from_sum, pairwise_sum, squared_deviation_sum, PairwisePlan,
};
use sp::schema::stats::{SummaryBuilder, CAST_BUFFER};
use sp::schema::write::{to_hdf5_deferred, RowHead};
use sp::schema::{Merged, MergedProfile, Merger, RegionRecord, Summary};
use sp::trace::{self, Endian, IndexError};

use super::packer::{PackScratch, Packer};
use super::progress::Progress;
use crate::cli::local_file::{write_at, FileSink, LocalFile};
use crate::cli::output::AtomicOutput;
use crate::cli::summary::RowTotal;
use crate::cli::Failure;

/// Calls handled at once: 512 Ki calls, 4 MiB per timestamp array. A multiple of numpy's
/// 8192-element cast buffer, so block-wise means keep numpy's bits.
pub const BLOCK: u64 = 1 << 19;
const _: () = assert!(BLOCK % CAST_BUFFER as u64 == 0);
/// Inputs up to this size are read whole in pass 1 and, budget permitting, kept for pass 2.
const SMALL_FILE: u64 = 4 << 20;
/// How often the output is flushed to disk while pass 2 writes it.
const FLUSH_EVERY_MS: u64 = 100;
/// Bytes of small inputs kept between the passes.
const RETAIN_BUDGET: u64 = 96 << 20;

/// One region of one rank as pass 1 leaves it: everything but its calls.
#[derive(Debug, Clone)]
pub struct Streamed {
    name: String,
    source_file: Option<String>,
    source_line: Option<i64>,
    calls: u64,
    first_start: Option<i64>,
    min_start: Option<i64>,
    /// For regions over one block: complete but `m2` (from pass 2). Others get theirs in
    /// pass 2, which has their calls in memory.
    summary: Summary,
    /// Exact total duration, for the printed table.
    total_ns: i128,
    /// Which input, and where its arrays lie.
    input: usize,
    starts_at: u64,
    ends_at: u64,
}

impl RegionRecord for Streamed {
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
        (self.source_file.as_deref(), self.source_line, None)
    }
}

/// A pass-1 result: one rank.
struct Scanned {
    rank: i64,
    regions: Vec<Streamed>,
    endian: Endian,
    /// The whole input, when small enough to keep for pass 2.
    kept: Option<Arc<Vec<u8>>>,
}

/// Where an input's bytes come from in pass 2.
#[derive(Clone)]
enum Source {
    Bytes(Arc<Vec<u8>>),
    File(Arc<LocalFile>),
}

impl ReadAt for Source {
    fn len(&self) -> u64 {
        match self {
            Source::Bytes(b) => ReadAt::len(b.as_slice()),
            Source::File(f) => f.len(),
        }
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        match self {
            Source::Bytes(b) => b.as_slice().read_exact_at(offset, buf),
            Source::File(f) => f.read_exact_at(offset, buf),
        }
    }
}

/// Reusable buffers of one thread.
#[derive(Default)]
struct Buffers {
    scratch: Vec<u8>,
    starts: Vec<i64>,
    ends: Vec<i64>,
    squares: Vec<f64>,
    deltas: Vec<u8>,
    durations: Vec<u8>,
    pack: PackScratch,
}

/// Reads calls `lo..hi` of `region` into `bufs.starts` / `bufs.ends`; with `previous`, also
/// the start before `lo` (or 0 at the first call) as the first element of `starts`.
fn read_calls(
    src: &Source,
    endian: Endian,
    region: &Streamed,
    lo: u64,
    hi: u64,
    previous: bool,
    bufs: &mut Buffers,
) -> io::Result<()> {
    let n = usize::try_from(hi - lo).map_err(|_| io::Error::from(io::ErrorKind::OutOfMemory))?;
    bufs.ends.resize(n, 0);
    trace::read_timestamps(
        src,
        region.ends_at + lo * 8,
        endian,
        &mut bufs.scratch,
        &mut bufs.ends,
    )?;
    if previous && lo > 0 {
        bufs.starts.resize(n + 1, 0);
        trace::read_timestamps(
            src,
            region.starts_at + (lo - 1) * 8,
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
            region.starts_at + lo * 8,
            endian,
            &mut bufs.scratch,
            &mut bufs.starts[skip..],
        )?;
    }
    Ok(())
}

/// Pass-1 statistics of calls `lo..hi` of one region.
struct Segment {
    builder: SummaryBuilder,
    total_ns: i128,
    first_start: Option<i64>,
}

/// Reads calls `lo..hi` (at most one block; left in `bufs`) and summarises them.
fn segment_stats(
    src: &Source,
    endian: Endian,
    record: &Streamed,
    lo: u64,
    hi: u64,
    bufs: &mut Buffers,
) -> io::Result<Segment> {
    read_calls(src, endian, record, lo, hi, false, bufs)?;
    let mut builder = SummaryBuilder::new();
    builder.push(&bufs.starts, &bufs.ends);
    let total_ns = exact_total(&bufs.starts, &bufs.ends);
    Ok(Segment {
        builder,
        total_ns,
        first_start: bufs.starts.first().copied(),
    })
}

/// Pass 1 for regions over one block: their block-sized segments on all threads, then
/// joined in order. A read failure becomes the failure of that region's input.
fn summarise_large(
    paths: &[PathBuf],
    results: &mut [Result<Scanned, String>],
    threads: usize,
    progress: &Progress,
) {
    let mut tasks = Vec::new();
    for (input, result) in results.iter().enumerate() {
        if let Ok(scanned) = result {
            for (region, r) in scanned.regions.iter().enumerate() {
                if r.calls > BLOCK {
                    let mut lo = 0;
                    while lo < r.calls {
                        let hi = r.calls.min(lo + BLOCK);
                        tasks.push((input, region, lo, hi));
                        lo = hi;
                    }
                }
            }
        }
    }
    if tasks.is_empty() {
        return;
    }
    let done: Vec<Mutex<Option<io::Result<Segment>>>> =
        tasks.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let shared: &[Result<Scanned, String>] = results;
    std::thread::scope(|scope| {
        for _ in 0..threads.min(tasks.len()).max(1) {
            scope.spawn(|| {
                let mut bufs = Buffers::default();
                let mut cache: Option<(usize, Source)> = None;
                loop {
                    let t = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(input, region, lo, hi)) = tasks.get(t) else {
                        break;
                    };
                    let Some(Ok(scanned)) = shared.get(input) else {
                        continue;
                    };
                    let result = (|| {
                        let src = match &cache {
                            Some((i, src)) if *i == input => src.clone(),
                            _ => {
                                let src = Source::File(Arc::new(LocalFile::open(&paths[input])?));
                                cache = Some((input, src.clone()));
                                src
                            }
                        };
                        let record = &scanned.regions[region];
                        segment_stats(&src, scanned.endian, record, lo, hi, &mut bufs)
                    })();
                    progress.add(16 * (hi - lo));
                    if let Ok(mut slot) = done[t].lock() {
                        *slot = Some(result);
                    }
                }
            });
        }
    });
    let mut joined: Option<(usize, usize, Segment)> = None;
    let finish = |results: &mut [Result<Scanned, String>], j: Option<(usize, usize, Segment)>| {
        if let Some((input, region, seg)) = j {
            if let Some(Ok(scanned)) = results.get_mut(input) {
                let record = &mut scanned.regions[region];
                record.first_start = seg.first_start;
                record.total_ns = seg.total_ns;
                // m2 comes in pass 2.
                record.summary = seg.builder.finish(0.0);
                record.min_start = Some(record.summary.start_minimum);
            }
        }
    };
    for ((input, region, lo, _), slot) in tasks.into_iter().zip(done) {
        let seg = match slot.into_inner().ok().flatten() {
            Some(Ok(seg)) => seg,
            Some(Err(e)) => {
                results[input] = Err(format!("cannot read: {e}"));
                continue;
            }
            None => continue,
        };
        if lo == 0 {
            finish(results, joined.take());
            joined = Some((input, region, seg));
        } else if let Some((_, _, whole)) = joined.as_mut() {
            // Segments before the last are whole blocks, a multiple of the cast buffer.
            let appended = whole.builder.append(seg.builder);
            debug_assert!(appended);
            whole.total_ns += seg.total_ns;
        }
    }
    finish(results, joined.take());
}

/// Pass 1 for one input.
fn scan(
    path: &Path,
    input: usize,
    retained: &AtomicU64,
    progress: &Progress,
    bufs: &mut Buffers,
) -> Result<Scanned, String> {
    let file = LocalFile::open(path).map_err(|e| format!("cannot read: {e}"))?;
    let small = file.len() <= SMALL_FILE;
    let src = if small {
        let mut bytes = vec![0u8; file.len() as usize];
        file.read_exact_at(0, &mut bytes)
            .map_err(|e| format!("cannot read: {e}"))?;
        Source::Bytes(Arc::new(bytes))
    } else {
        Source::File(Arc::new(file))
    };
    let index = trace::index(&src).map_err(|e| match e {
        IndexError::Trace(e) => e.to_string(),
        IndexError::Io(e) => format!("cannot read: {e}"),
    })?;
    let mut regions = Vec::with_capacity(index.regions.len());
    for r in &index.regions {
        let mut record = Streamed {
            name: r.name.clone(),
            source_file: r.source_file.clone(),
            source_line: r.source_line.map(i64::from),
            calls: r.calls,
            first_start: None,
            min_start: None,
            summary: Summary::default(),
            total_ns: 0,
            input,
            starts_at: r.starts_at,
            ends_at: r.ends_at,
        };
        // The order needs only the starts; the summary of a region of up to one block is
        // made in pass 2, which reads all its calls anyway. Larger regions are summarised
        // in parallel pieces afterwards.
        if r.calls <= BLOCK && r.calls > 0 {
            let n = r.calls as usize;
            bufs.starts.resize(n, 0);
            trace::read_timestamps(
                &src,
                r.starts_at,
                index.endian,
                &mut bufs.scratch,
                &mut bufs.starts,
            )
            .map_err(|e| format!("cannot read: {e}"))?;
            // Counted as the whole pass-1 share of the region, though only starts are read.
            progress.add(16 * r.calls);
            record.first_start = bufs.starts.first().copied();
            record.min_start = bufs.starts.iter().min().copied();
        }
        regions.push(record);
    }
    let keep = match src {
        Source::Bytes(bytes) => {
            let len = bytes.len() as u64;
            let before = retained.fetch_add(len, Ordering::Relaxed);
            if before + len <= RETAIN_BUDGET {
                Some(bytes)
            } else {
                retained.fetch_sub(len, Ordering::Relaxed);
                None
            }
        }
        Source::File(_) => None,
    };
    Ok(Scanned {
        rank: i64::from(index.rank),
        regions,
        endian: index.endian,
        kept: keep,
    })
}

/// One contiguous range of a row's calls handled by a pass-2 unit.
struct Piece {
    row: usize,
    lo: u64,
    hi: u64,
    /// Where the piece's pairwise sum of squared deviations goes (rows > BLOCK only).
    m2_slot: Option<usize>,
}

/// A run of pieces whose events are contiguous in the output columns.
struct Unit {
    first_event: u64,
    pieces: Vec<Piece>,
}

/// Splits the rows into units of about [`BLOCK`] calls; returns the units and, per row
/// larger than a block, its pairwise plan and first m2 slot.
#[allow(clippy::type_complexity)]
fn plan_units(rows: &[&Streamed]) -> (Vec<Unit>, Vec<Option<(PairwisePlan, usize)>>, usize) {
    let mut units = Vec::new();
    let mut plans = Vec::with_capacity(rows.len());
    let mut slots = 0usize;
    let mut event = 0u64;
    let mut current = Unit {
        first_event: 0,
        pieces: Vec::new(),
    };
    let mut current_calls = 0u64;
    for (i, row) in rows.iter().enumerate() {
        if row.calls <= BLOCK {
            plans.push(None);
            if row.calls > 0 {
                current.pieces.push(Piece {
                    row: i,
                    lo: 0,
                    hi: row.calls,
                    m2_slot: None,
                });
                current_calls += row.calls;
            }
            event += row.calls;
            if current_calls >= BLOCK {
                units.push(std::mem::replace(
                    &mut current,
                    Unit {
                        first_event: event,
                        pieces: Vec::new(),
                    },
                ));
                current_calls = 0;
            }
            continue;
        }
        if !current.pieces.is_empty() {
            units.push(std::mem::replace(
                &mut current,
                Unit {
                    first_event: event,
                    pieces: Vec::new(),
                },
            ));
            current_calls = 0;
        }
        let plan = PairwisePlan::new(row.calls, BLOCK);
        let first_slot = slots;
        for &(lo, hi) in &plan.ranges {
            units.push(Unit {
                first_event: event + lo,
                pieces: vec![Piece {
                    row: i,
                    lo,
                    hi,
                    m2_slot: Some(slots),
                }],
            });
            slots += 1;
        }
        plans.push(Some((plan, first_slot)));
        event += row.calls;
        current.first_event = event;
    }
    if !current.pieces.is_empty() {
        units.push(current);
    }
    (units, plans, slots)
}

/// What pass 2 needs of the inputs.
struct Inputs<'a> {
    paths: &'a [PathBuf],
    endians: Vec<Endian>,
    kept: Vec<Option<Arc<Vec<u8>>>>,
}

impl Inputs<'_> {
    fn source(&self, input: usize) -> io::Result<Source> {
        match self.kept.get(input).cloned().flatten() {
            Some(bytes) => Ok(Source::Bytes(bytes)),
            None => Ok(Source::File(Arc::new(LocalFile::open(&self.paths[input])?))),
        }
    }
}

/// The outcome the CLI prints.
pub struct Converted {
    pub region_names: Vec<String>,
    pub totals: Vec<RowTotal>,
}

/// Converts `.spt` inputs (sorted paths; display names for errors) to `output`.
pub fn convert(
    paths: &[PathBuf],
    names: &[String],
    label: &str,
    output: &Path,
    compress: Option<u8>,
    progress: &Progress,
) -> Result<Converted, Failure> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    // Pass 1, inputs in parallel; results kept in path order.
    let results: Vec<Mutex<Option<Result<_, String>>>> =
        paths.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let retained = AtomicU64::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads.min(paths.len()).max(1) {
            scope.spawn(|| {
                let mut bufs = Buffers::default();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(path) = paths.get(i) else { break };
                    let r = scan(path, i, &retained, progress, &mut bufs);
                    if let Ok(mut slot) = results[i].lock() {
                        *slot = Some(r);
                    }
                }
            });
        }
    });

    let mut results: Vec<Result<Scanned, String>> = results
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .ok()
                .flatten()
                .unwrap_or_else(|| Err("not read (internal error)".into()))
        })
        .collect();
    summarise_large(paths, &mut results, threads, progress);

    let mut merger: Merger<Streamed> = Merger::default();
    let mut endians = Vec::with_capacity(paths.len());
    let mut kept = Vec::with_capacity(paths.len());
    for (i, result) in results.into_iter().enumerate() {
        let scanned = result.map_err(|e| Failure::in_file(&names[i], e))?;
        endians.push(scanned.endian);
        kept.push(scanned.kept);
        merger
            .add_rank(&names[i], scanned.rank, scanned.regions, None)
            .map_err(|e| Failure::new(e.to_string()))?;
    }
    let merged: Merged<Streamed> = merger.finish_rows(Some(label));
    let heads: Vec<RowHead<'_>> = merged
        .rows
        .iter()
        .map(|r| RowHead {
            rank: r.rank,
            region_id: r.region_id,
            source_file: &r.source_file,
            source_line: r.source_line,
            source_text: &r.source_text,
            calls: r.record.calls,
        })
        .collect();
    let in_output = |e: &dyn std::fmt::Display| Failure::in_file(output.display(), e);
    let (writer, deferred) =
        to_hdf5_deferred(&merged.metadata, &merged.region_names, &heads, compress)
            .map_err(|e| in_output(&e))?;

    let out = AtomicOutput::create(output)?;
    let placement = writer
        .finish_at(&mut FileSink(out.file()))
        .map_err(|e| in_output(&format!("cannot write: {e}")))?;
    let place = |id| {
        placement
            .data(id)
            .ok_or_else(|| in_output(&"no planned storage (internal error)"))
    };
    let summaries_at = place(deferred.summary_statistics)?;
    let columns = match (compress, placement.chunked(deferred.start_deltas)) {
        (Some(level), Some(_)) => Columns::Packed(Box::new(
            Packer::new(
                out.file(),
                &placement,
                [deferred.start_deltas, deferred.durations],
                level,
            )
            .map_err(|e| in_output(&e))?,
        )),
        _ => Columns::Plain {
            deltas_at: place(deferred.start_deltas)?,
            durations_at: place(deferred.durations)?,
        },
    };

    // Pass 2.
    let records: Vec<&Streamed> = merged.rows.iter().map(|r| &r.record).collect();
    let (units, plans, slot_count) = plan_units(&records);
    let inputs = Inputs {
        paths,
        endians,
        kept,
    };
    let sums = Mutex::new(vec![0.0f64; slot_count]);
    // Rows without calls keep the all-zero summary.
    let small_rows = Mutex::new(vec![(Summary::default(), 0i128); records.len()]);
    let failed: Mutex<Option<Failure>> = Mutex::new(None);
    let stop = AtomicBool::new(false);
    let next = AtomicUsize::new(0);
    let file = out.file();
    let writing = AtomicBool::new(true);
    std::thread::scope(|scope| {
        // Flush to disk while writing, so the final sync of the commit has little left.
        let flusher = scope.spawn(|| {
            while writing.load(Ordering::Relaxed) {
                std::thread::park_timeout(std::time::Duration::from_millis(FLUSH_EVERY_MS));
                if writing.load(Ordering::Relaxed) {
                    let _ = file.sync_data();
                }
            }
        });
        let workers: Vec<_> = (0..threads.min(units.len()).max(1))
            .map(|_| {
                scope.spawn(|| {
                    let mut bufs = Buffers::default();
                    let mut cache: Option<(usize, Source)> = None;
                    while !stop.load(Ordering::Relaxed) {
                        let u = next.fetch_add(1, Ordering::Relaxed);
                        let Some(unit) = units.get(u) else { break };
                        let ctx = UnitContext {
                            file,
                            output,
                            records: &records,
                            inputs: &inputs,
                            columns: &columns,
                            progress,
                        };
                        match write_unit(&ctx, u, unit, &mut bufs, &mut cache) {
                            Ok(result) => {
                                if let Ok(mut sums) = sums.lock() {
                                    for (slot, sum) in result.partials {
                                        sums[slot] = sum;
                                    }
                                }
                                if let Ok(mut small) = small_rows.lock() {
                                    for (row, summary, total) in result.rows {
                                        small[row] = (summary, total);
                                    }
                                }
                            }
                            Err(f) => {
                                stop.store(true, Ordering::Relaxed);
                                if let Columns::Packed(p) = &columns {
                                    p.abort();
                                }
                                if let Ok(mut first) = failed.lock() {
                                    first.get_or_insert(f);
                                }
                            }
                        }
                    }
                })
            })
            .collect();
        for worker in workers {
            let _ = worker.join();
        }
        writing.store(false, Ordering::Relaxed);
        flusher.thread().unpark();
    });
    if let Some(f) = failed.into_inner().ok().flatten() {
        return Err(f);
    }
    let sums = sums.into_inner().unwrap_or_default();
    let small_rows = small_rows.into_inner().unwrap_or_default();
    if let Columns::Packed(packer) = columns {
        packer.finish(&placement).map_err(|e| in_output(&e))?;
    }

    // Summaries last: m2 of the large rows from their pieces.
    let mut summaries = Vec::with_capacity(records.len() * 88);
    let mut totals = Vec::with_capacity(records.len());
    for ((record, plan), small) in records.iter().zip(&plans).zip(&small_rows) {
        let (summary, total_ns) = match plan {
            Some((plan, first)) => {
                let end = first + plan.ranges.len();
                let m2 = m2_from_sum(plan.combine(&sums[*first..end]), record.calls);
                (
                    Summary {
                        m2,
                        ..record.summary
                    },
                    record.total_ns,
                )
            }
            None => *small,
        };
        summaries.extend_from_slice(&summary.encode());
        totals.push(total_ns);
    }
    write_place(file, summaries_at, 0, &summaries).map_err(|e| in_output(&e))?;
    out.commit()?;

    let totals = merged
        .rows
        .iter()
        .zip(totals)
        .map(|(r, total_ns)| RowTotal {
            region_id: r.region_id,
            calls: r.record.calls,
            total_ns,
        })
        .collect();
    Ok(Converted {
        region_names: merged.region_names,
        totals,
    })
}

/// Writes an in-memory profile (`.h5` inputs, `--merge`) with compressed event columns.
pub fn write_compressed(profile: &MergedProfile, output: &Path, level: u8) -> Result<(), Failure> {
    let in_output = |e: &dyn std::fmt::Display| Failure::in_file(output.display(), e);
    let heads: Vec<RowHead<'_>> = profile.rows.iter().map(RowHead::from).collect();
    let (mut writer, deferred) = to_hdf5_deferred(
        &profile.metadata,
        &profile.region_names,
        &heads,
        Some(level),
    )
    .map_err(|e| in_output(&e))?;
    sp::schema::likwid::write(&mut writer, &profile.likwid).map_err(|e| in_output(&e))?;
    let out = AtomicOutput::create(output)?;
    let file = out.file();
    let placement = writer
        .finish_at(&mut FileSink(file))
        .map_err(|e| in_output(&format!("cannot write: {e}")))?;
    let summaries: Vec<u8> = profile
        .rows
        .iter()
        .flat_map(|r| Summary::of(&r.starts, &r.ends).encode())
        .collect();
    let summaries_at = placement
        .data(deferred.summary_statistics)
        .ok_or_else(|| in_output(&"no planned storage (internal error)"))?;
    write_place(file, summaries_at, 0, &summaries).map_err(|e| in_output(&e))?;
    if placement.chunked(deferred.start_deltas).is_some() {
        let packer = Packer::new(
            file,
            &placement,
            [deferred.start_deltas, deferred.durations],
            level,
        )
        .map_err(|e| in_output(&e))?;
        let (mut deltas, mut durations) = (Vec::new(), Vec::new());
        let mut scratch = PackScratch::default();
        let (mut unit, mut first) = (0usize, 0u64);
        let mut flush =
            |deltas: &mut Vec<u8>, durations: &mut Vec<u8>, unit: &mut usize, first: &mut u64| {
                let n = deltas.len() as u64 / 8;
                let r = packer.put_unit(*unit, *first, [deltas, durations], &mut scratch);
                *unit += 1;
                *first += n;
                deltas.clear();
                durations.clear();
                r
            };
        for row in &profile.rows {
            let mut previous = 0i64;
            for (&start, &end) in row.starts.iter().zip(&row.ends) {
                deltas.extend_from_slice(&start.wrapping_sub(previous).to_le_bytes());
                durations.extend_from_slice(&end.wrapping_sub(start).to_le_bytes());
                previous = start;
                if deltas.len() as u64 >= BLOCK * 8 {
                    flush(&mut deltas, &mut durations, &mut unit, &mut first)
                        .map_err(|e| in_output(&e))?;
                }
            }
        }
        flush(&mut deltas, &mut durations, &mut unit, &mut first).map_err(|e| in_output(&e))?;
        packer.finish(&placement).map_err(|e| in_output(&e))?;
    }
    out.commit()
}

/// Writes `bytes` at byte `offset` inside the planned storage `place`.
fn write_place(file: &File, place: DataPlace, offset: u64, bytes: &[u8]) -> Result<(), String> {
    if bytes.is_empty() {
        return Ok(());
    }
    let end = offset.checked_add(bytes.len() as u64);
    match place.address {
        Some(at) if end.is_some_and(|e| e <= place.size) => {
            write_at(file, at + offset, bytes).map_err(|e| format!("cannot write: {e}"))
        }
        _ => Err("write outside the planned storage (internal error)".into()),
    }
}

/// Where pass 2 puts the event columns.
enum Columns<'a> {
    /// Contiguous: each unit's bytes at their offsets.
    Plain {
        deltas_at: DataPlace,
        durations_at: DataPlace,
    },
    /// Chunked and compressed, appended in unit order.
    Packed(Box<Packer<'a>>),
}

struct UnitContext<'a> {
    file: &'a File,
    output: &'a Path,
    records: &'a [&'a Streamed],
    inputs: &'a Inputs<'a>,
    columns: &'a Columns<'a>,
    progress: &'a Progress,
}

/// What pass 2 learns of one unit: the m2 partial sums of pieces of large rows, and the
/// summary and exact total of each whole (small) row.
#[derive(Default)]
struct UnitResult {
    partials: Vec<(usize, f64)>,
    rows: Vec<(usize, Summary, i128)>,
}

/// Pass 2 for one unit: reads its calls, writes their deltas and durations.
fn write_unit(
    ctx: &UnitContext<'_>,
    index: usize,
    unit: &Unit,
    bufs: &mut Buffers,
    cache: &mut Option<(usize, Source)>,
) -> Result<UnitResult, Failure> {
    let mut result = UnitResult::default();
    bufs.deltas.clear();
    bufs.durations.clear();
    for piece in &unit.pieces {
        let record = ctx.records[piece.row];
        let input = record.input;
        let fail = |e: io::Error| {
            Failure::in_file(
                ctx.inputs.paths[input].display(),
                format!("cannot read: {e}"),
            )
        };
        let src = match cache {
            Some((i, src)) if *i == input => src.clone(),
            _ => {
                let src = ctx.inputs.source(input).map_err(fail)?;
                *cache = Some((input, src.clone()));
                src
            }
        };
        let endian = ctx.inputs.endians[input];
        read_calls(&src, endian, record, piece.lo, piece.hi, true, bufs).map_err(fail)?;
        let (previous, starts) = match bufs.starts.split_first() {
            Some((p, rest)) => (*p, rest),
            None => (0, &[][..]),
        };
        let mut previous = previous;
        for (&s, &e) in starts.iter().zip(&bufs.ends) {
            bufs.deltas
                .extend_from_slice(&s.wrapping_sub(previous).to_le_bytes());
            bufs.durations
                .extend_from_slice(&e.wrapping_sub(s).to_le_bytes());
            previous = s;
        }
        if let Some(slot) = piece.m2_slot {
            let mean = record.summary.mean;
            bufs.squares.clear();
            bufs.squares
                .extend(starts.iter().zip(&bufs.ends).map(|(s, e)| {
                    let x = e.wrapping_sub(*s) as f64 - mean;
                    x * x
                }));
            result.partials.push((slot, pairwise_sum(&bufs.squares)));
        } else {
            let mut builder = SummaryBuilder::new();
            builder.push(starts, &bufs.ends);
            let durations = starts
                .iter()
                .zip(&bufs.ends)
                .map(|(s, e)| e.wrapping_sub(*s));
            let m2 = squared_deviation_sum(record.calls, builder.mean(), durations);
            let total_ns = exact_total(starts, &bufs.ends);
            result.rows.push((piece.row, builder.finish(m2), total_ns));
        }
        ctx.progress.add(16 * (piece.hi - piece.lo));
    }
    let in_output = |e: String| Failure::in_file(ctx.output.display(), e);
    match ctx.columns {
        Columns::Plain {
            deltas_at,
            durations_at,
        } => {
            let offset = unit.first_event * 8;
            write_place(ctx.file, *deltas_at, offset, &bufs.deltas).map_err(in_output)?;
            write_place(ctx.file, *durations_at, offset, &bufs.durations).map_err(in_output)?;
        }
        Columns::Packed(packer) => packer
            .put_unit(
                index,
                unit.first_event,
                [&bufs.deltas, &bufs.durations],
                &mut bufs.pack,
            )
            .map_err(in_output)?,
    }
    Ok(result)
}
