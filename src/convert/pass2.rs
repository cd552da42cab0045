//! Pass 2: the file's structure is written first ([`Plan::write_head`]), then each unit
//! ([`Conversion::run_unit`], independent of the others) reads its calls again and writes
//! their start deltas and durations: at their final offsets, or packed into compressed
//! chunks that a [`ChunkAppender`] appends in unit order. Rows over one block get their
//! `m2` from the pieces of numpy's pairwise tree, summed per unit and combined in order;
//! the summary records are written last ([`Conversion::finish`]).

use std::ops::Range;

use crate::hdf5lite::writer::{DataPlace, Placement};
use crate::io::WriteAt;
use crate::schema::read::events::{decode_stored, stored_ints};
use crate::schema::stats::{exact_total, m2_from_sum, pairwise_sum, SummaryBuilder, SUMMARY_SIZE};
use crate::schema::write::encode_events;
use crate::schema::Summary;

use super::calls::{Buffers, CallsAt, Worker};
use super::error::Error;
use super::pack::{ChunkAppender, PackedUnit, Packer};
use super::plan::{Piece, Plan, PlannedRow, Unit, Units};
use super::scan::RowCalls;
use super::Sources;

/// Most units in one pass-2 job (see [`Conversion::jobs`]).
const JOB_UNITS: usize = 8;

/// Where pass 2 puts the event columns.
enum Columns {
    /// Contiguous: each unit's bytes at their offsets.
    Plain {
        deltas_at: DataPlace,
        durations_at: DataPlace,
    },
    /// Chunked and compressed, appended in unit order.
    Packed(Packer),
}

/// A conversion whose file structure is written: pass 2's units remain, then
/// [`finish`](Self::finish).
pub struct Conversion {
    names: Vec<String>,
    region_names: Vec<String>,
    rows: Vec<PlannedRow>,
    units: Units,
    placement: Placement,
    summaries_at: DataPlace,
    columns: Columns,
}

/// What pass 2 learns of one unit: the m2 partial sums of pieces of large rows, and the
/// summary and exact total of each whole (small) row.
#[derive(Debug, Clone, Default)]
pub struct UnitStats {
    partials: Vec<(usize, f64)>,
    rows: Vec<(usize, Summary, i128)>,
}

/// A unit done: its statistics, and with compression its packed chunks, which go to
/// [`ChunkAppender::append`] in unit order.
#[derive(Debug)]
pub struct UnitDone {
    pub stats: UnitStats,
    pub packed: Option<PackedUnit>,
}

/// One row of the converted profile, for the summary a front end prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowTotal {
    pub region_id: u32,
    pub calls: u64,
    /// The exact total duration of the row's calls.
    pub total_ns: i128,
}

/// The outcome of a conversion: region names by id and every row's totals, in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Converted {
    pub region_names: Vec<String>,
    pub rows: Vec<RowTotal>,
}

impl Plan {
    /// Writes the file's structure (everything but the bulk data) to `out`.
    pub fn write_head<W: WriteAt + ?Sized>(self, out: &mut W) -> Result<Conversion, Error> {
        let Plan {
            names,
            metadata: _,
            region_names,
            rows,
            writer,
            deferred,
            compress,
            units,
        } = self;
        let placement = writer.finish_at(out).map_err(Error::Encode)?;
        let place = |id| {
            placement
                .data(id)
                .ok_or(Error::Internal("no planned storage"))
        };
        let summaries_at = place(deferred.summary_statistics)?;
        let columns = match (compress, placement.chunked(deferred.start_deltas)) {
            (Some(deflate), Some(_)) => Columns::Packed(Packer::new(
                &placement,
                [deferred.start_deltas, deferred.durations],
                deflate,
            )?),
            _ => Columns::Plain {
                deltas_at: place(deferred.start_deltas)?,
                durations_at: place(deferred.durations)?,
            },
        };
        Ok(Conversion {
            names,
            region_names,
            rows,
            units,
            placement,
            summaries_at,
            columns,
        })
    }
}

impl Conversion {
    /// Number of pass-2 units; run each once with [`run_unit`](Self::run_unit).
    pub fn units(&self) -> usize {
        self.units.units.len()
    }

    /// Bytes of timestamps unit `u` reads (for a progress count).
    pub fn unit_work(&self, u: usize) -> u64 {
        self.units.units.get(u).map_or(0, |unit| 16 * unit.calls())
    }

    /// With compression, the appender the packed units go through, in unit order.
    pub fn appender(&self) -> Option<ChunkAppender> {
        match &self.columns {
            Columns::Packed(packer) => Some(ChunkAppender::new(packer, &self.placement)),
            Columns::Plain { .. } => None,
        }
    }

    /// Pass 2 for unit `u`: reads its calls, writes their deltas and durations to `out`
    /// (uncompressed) or packs them.
    pub fn run_unit<S: Sources, W: WriteAt + ?Sized>(
        &self,
        u: usize,
        sources: &S,
        worker: &mut Worker<S::Source>,
        out: &mut W,
    ) -> Result<UnitDone, Error> {
        let mut result = None;
        self.run_units(u..u + 1, sources, worker, out, |_, done, _| {
            result = Some(done);
            Ok(())
        })?;
        result.ok_or(Error::Internal("no such unit"))
    }

    /// Pass 2's jobs: ranges of consecutive units, each run by [`run_units`](Self::run_units).
    /// Units that all read one profile are grouped (a few at a time), so its event columns
    /// are opened, and their chunk indexes walked, once per group rather than per unit.
    pub fn jobs(&self) -> Vec<Range<usize>> {
        let only_input = |unit: &Unit| {
            let mut inputs = unit.pieces.iter().map(|p| &self.rows[p.row].record);
            let first = inputs.next()?;
            let profile = matches!(first.at, CallsAt::Events { .. });
            (profile && inputs.all(|r| r.input == first.input)).then_some(first.input)
        };
        let units = &self.units.units;
        let mut jobs: Vec<Range<usize>> = Vec::new();
        let mut last_input = None;
        for (u, unit) in units.iter().enumerate() {
            let input = only_input(unit);
            match jobs.last_mut() {
                Some(job) if input.is_some() && input == last_input && job.len() < JOB_UNITS => {
                    job.end = u + 1;
                }
                _ => jobs.push(u..u + 1),
            }
            last_input = input;
        }
        jobs
    }

    /// Pass 2 for the units of `range` in order, as [`run_unit`](Self::run_unit) for each,
    /// keeping an input open while consecutive calls come from it; `done` gets each unit's
    /// outcome as it completes, with `out` (to append its packed chunks to, say).
    pub fn run_units<S: Sources, W: WriteAt + ?Sized>(
        &self,
        range: Range<usize>,
        sources: &S,
        worker: &mut Worker<S::Source>,
        out: &mut W,
        mut done: impl FnMut(usize, UnitDone, &mut W) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let units = self
            .units
            .units
            .get(range.clone())
            .ok_or(Error::Internal("no such unit"))?;
        worker.bufs.deltas.clear();
        worker.bufs.durations.clear();
        let mut stats = UnitStats::default();
        // The next piece: unit `k` of the range, piece `p`.
        let (mut k, mut p) = (0, 0);
        'runs: while k < units.len() {
            let Some(piece) = units[k].pieces.get(p) else {
                // A unit without calls.
                let u = range.start + k;
                self.complete(u, &units[k], &mut worker.bufs, out, &mut stats, &mut done)?;
                (k, p) = (k + 1, 0);
                continue;
            };
            // One reader for the run of pieces from the same input.
            let first = &self.rows[piece.row].record;
            let name = &self.names[first.input];
            let (reader, bufs) = worker.reader(sources, first, name)?;
            loop {
                while let Some(piece) = units[k].pieces.get(p) {
                    let record = &self.rows[piece.row].record;
                    if record.input != first.input || !reader.reads(record) {
                        continue 'runs;
                    }
                    let at = bufs.deltas.len();
                    if reader.copy_encoded(record, piece.lo, piece.hi, bufs, name)? {
                        copied_stats(record, piece, at, bufs, &mut stats)?;
                    } else {
                        let before = record.start_before(piece.lo);
                        reader.read(record, piece.lo, piece.hi, true, before, bufs, name)?;
                        piece_stats(record, piece.m2_slot, piece.row, bufs, &mut stats);
                    }
                    p += 1;
                }
                let u = range.start + k;
                self.complete(u, &units[k], bufs, out, &mut stats, &mut done)?;
                (k, p) = (k + 1, 0);
                if k == units.len() || units[k].pieces.is_empty() {
                    continue 'runs;
                }
            }
        }
        Ok(())
    }

    /// Completes unit `u`: writes its encoded columns (in `bufs`) at their offsets, or packs
    /// them, empties them for the next unit, and hands the outcome and `stats` to `done`.
    fn complete<W: WriteAt + ?Sized>(
        &self,
        u: usize,
        unit: &Unit,
        bufs: &mut Buffers,
        out: &mut W,
        stats: &mut UnitStats,
        done: &mut impl FnMut(usize, UnitDone, &mut W) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let packed = match &self.columns {
            Columns::Plain {
                deltas_at,
                durations_at,
            } => {
                let offset = unit.first_event * 8;
                write_place(out, *deltas_at, offset, &bufs.deltas)?;
                write_place(out, *durations_at, offset, &bufs.durations)?;
                None
            }
            Columns::Packed(packer) => Some(packer.pack(
                u,
                unit.first_event,
                [&bufs.deltas, &bufs.durations],
                &mut bufs.pack,
            )?),
        };
        bufs.deltas.clear();
        bufs.durations.clear();
        let stats = std::mem::take(stats);
        done(u, UnitDone { stats, packed }, out)
    }

    /// Where the units' statistics gather, in any order, for [`finish`](Self::finish).
    pub fn tally(&self) -> Tally {
        Tally {
            sums: vec![0.0; self.units.slots],
            // Rows without calls keep the all-zero summary.
            summaries: vec![0; self.rows.len() * SUMMARY_SIZE],
            totals: self
                .rows
                .iter()
                .map(|row| RowTotal {
                    region_id: row.region_id,
                    calls: row.record.calls,
                    total_ns: 0,
                })
                .collect(),
        }
    }

    /// Writes the summary records (and, with compression, the remaining chunks and the
    /// chunk indexes through `appender`, which must have taken every unit), given the
    /// statistics of every unit in `tally`.
    pub fn finish<W: WriteAt + ?Sized>(
        self,
        tally: Tally,
        appender: Option<ChunkAppender>,
        out: &mut W,
    ) -> Result<Converted, Error> {
        let Tally {
            sums,
            mut summaries,
            mut totals,
        } = tally;
        match (&self.columns, appender) {
            (Columns::Packed(packer), Some(appender)) => {
                if appender.next_unit() != self.units() {
                    return Err(Error::Internal("a packed unit was not appended"));
                }
                appender.finish(packer, &self.placement, out)?;
            }
            (Columns::Plain { .. }, None) => {}
            _ => return Err(Error::Internal("the appender does not match the columns")),
        }
        // Summaries last: m2 of the large rows from their pieces.
        for (i, plan, first) in &self.units.m2_plans {
            let row = self
                .rows
                .get(*i)
                .ok_or(Error::Internal("a plan of no row"))?;
            let Some(large) = row.record.large.as_deref() else {
                continue;
            };
            let end = first + plan.ranges.len();
            let parts = sums.get(*first..end).unwrap_or_default();
            let m2 = m2_from_sum(plan.combine(parts), row.record.calls);
            let summary = Summary {
                m2,
                ..large.summary
            };
            put_row(&mut summaries, &mut totals, *i, &summary, large.total_ns);
        }
        write_place(out, self.summaries_at, 0, &summaries)?;
        Ok(Converted {
            region_names: self.region_names,
            rows: totals,
        })
    }
}

/// The units' statistics gathered: the m2 partial sums of large rows' pieces, and every
/// row's summary record and total as they are known. Units add theirs as they complete, so
/// a run of a million rows holds one summary record per row, not the units' lists too.
#[derive(Debug, Clone)]
pub struct Tally {
    sums: Vec<f64>,
    summaries: Vec<u8>,
    totals: Vec<RowTotal>,
}

impl Tally {
    /// Adds one unit's statistics.
    pub fn add(&mut self, stats: UnitStats) {
        for (slot, sum) in stats.partials {
            if let Some(s) = self.sums.get_mut(slot) {
                *s = sum;
            }
        }
        for (row, summary, total) in stats.rows {
            put_row(&mut self.summaries, &mut self.totals, row, &summary, total);
        }
    }
}

/// Stores the summary record and exact total of row `row`.
fn put_row(
    summaries: &mut [u8],
    totals: &mut [RowTotal],
    row: usize,
    summary: &Summary,
    total_ns: i128,
) {
    let at = row * SUMMARY_SIZE;
    if let (Some(record), Some(t)) = (
        summaries.get_mut(at..at + SUMMARY_SIZE),
        totals.get_mut(row),
    ) {
        record.copy_from_slice(&summary.encode());
        t.total_ns = total_ns;
    }
}

/// Encodes the calls of one piece (read into `bufs`, after the start before them) and adds
/// what pass 2 learns of them to `stats`.
fn piece_stats(
    record: &RowCalls,
    m2_slot: Option<usize>,
    row: usize,
    bufs: &mut Buffers,
    stats: &mut UnitStats,
) {
    let (previous, starts) = match bufs.starts.split_first() {
        Some((p, rest)) => (*p, rest),
        None => (0, &[][..]),
    };
    let ends = &bufs.ends;
    encode_events(
        previous,
        starts,
        ends,
        &mut bufs.deltas,
        &mut bufs.durations,
    );
    match m2_slot {
        Some(slot) => {
            let durations = starts.iter().zip(ends).map(|(s, e)| e.wrapping_sub(*s));
            let sum = m2_partial(record.mean(), durations, &mut bufs.squares);
            stats.partials.push((slot, sum));
        }
        None => stats
            .rows
            .push(row_stats(row, starts, ends, &mut bufs.squares)),
    }
}

/// What pass 2 learns of one piece whose encoded calls were copied from the input to
/// `bufs.deltas` and `bufs.durations` from byte `at` on: read from the same bytes.
fn copied_stats(
    record: &RowCalls,
    piece: &Piece,
    at: usize,
    bufs: &mut Buffers,
    stats: &mut UnitStats,
) -> Result<(), Error> {
    let outside = || Error::Internal("a piece outside the copied columns");
    let deltas = bufs.deltas.get(at..).ok_or_else(outside)?;
    let durations = bufs.durations.get(at..).ok_or_else(outside)?;
    match piece.m2_slot {
        Some(slot) => {
            let durations = stored_ints(durations);
            let sum = m2_partial(record.mean(), durations, &mut bufs.squares);
            stats.partials.push((slot, sum));
        }
        None => {
            // A whole row: its start deltas begin at 0.
            if piece.lo != 0 {
                return Err(Error::Internal("a part of a row summarised as a whole"));
            }
            decode_stored(deltas, durations, &mut bufs.starts, &mut bufs.ends);
            stats.rows.push(row_stats(
                piece.row,
                &bufs.starts,
                &bufs.ends,
                &mut bufs.squares,
            ));
        }
    }
    Ok(())
}

/// The pairwise sum of the squared deviations from `mean` of a piece's `durations`, one
/// node of a large row's `m2`.
fn m2_partial(mean: f64, durations: impl Iterator<Item = i64>, squares: &mut Vec<f64>) -> f64 {
    squares.clear();
    squares.extend(durations.map(|d| {
        let x = d as f64 - mean;
        x * x
    }));
    pairwise_sum(squares)
}

/// The summary and exact total of a whole row of calls (`squares` is scratch).
fn row_stats(
    row: usize,
    starts: &[i64],
    ends: &[i64],
    squares: &mut Vec<f64>,
) -> (usize, Summary, i128) {
    let mut builder = SummaryBuilder::new();
    builder.push(starts, ends);
    let durations = starts.iter().zip(ends).map(|(s, e)| e.wrapping_sub(*s));
    // The row is in memory: numpy's pairwise sum over all its squares at once.
    let m2 = m2_partial(builder.mean(), durations, squares);
    (row, builder.finish(m2), exact_total(starts, ends))
}

/// Writes `bytes` at byte `offset` inside the planned storage `place`.
fn write_place<W: WriteAt + ?Sized>(
    out: &mut W,
    place: DataPlace,
    offset: u64,
    bytes: &[u8],
) -> Result<(), Error> {
    if bytes.is_empty() {
        return Ok(());
    }
    let end = offset.checked_add(bytes.len() as u64);
    match place.address {
        Some(at) if end.is_some_and(|e| e <= place.size) => {
            out.write_all_at(at + offset, bytes).map_err(Error::Write)
        }
        _ => Err(Error::Internal("a write outside the planned storage")),
    }
}
