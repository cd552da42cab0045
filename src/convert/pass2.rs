//! Pass 2: the file's structure is written first ([`Plan::write_head`]), then each unit
//! ([`Conversion::run_unit`], independent of the others) reads its calls again and writes
//! their start deltas and durations: at their final offsets, or packed into compressed
//! chunks that a [`ChunkAppender`] appends in unit order. Rows over one block get their
//! `m2` from the pieces of numpy's pairwise tree, summed per unit and combined in order;
//! the summary records are written last ([`Conversion::finish`]).

use crate::hdf5lite::writer::{DataPlace, Placement};
use crate::io::WriteAt;
use crate::schema::stats::{
    exact_total, m2_from_sum, pairwise_sum, squared_deviation_sum, SummaryBuilder,
};
use crate::schema::write::encode_events;
use crate::schema::{MergedRow, Summary};

use super::calls::{read_calls, Worker};
use super::error::Error;
use super::pack::{ChunkAppender, PackedUnit, Packer};
use super::plan::{Plan, Units};
use super::scan::Record;
use super::Sources;

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
    rows: Vec<MergedRow<Record>>,
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
            merged,
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
            (Some(level), Some(_)) => Columns::Packed(Packer::new(
                &placement,
                [deferred.start_deltas, deferred.durations],
                level,
            )?),
            _ => Columns::Plain {
                deltas_at: place(deferred.start_deltas)?,
                durations_at: place(deferred.durations)?,
            },
        };
        Ok(Conversion {
            names,
            region_names: merged.region_names,
            rows: merged.rows,
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
        let unit = self
            .units
            .units
            .get(u)
            .ok_or(Error::Internal("no such unit"))?;
        let mut stats = UnitStats::default();
        worker.bufs.deltas.clear();
        worker.bufs.durations.clear();
        for piece in &unit.pieces {
            let record = &self.rows[piece.row].record;
            let name = &self.names[record.input];
            let (src, bufs) = worker.open(sources, record.input, name)?;
            read_calls(src, record.at, piece.lo, piece.hi, true, bufs)
                .map_err(|e| Error::read(name, e))?;
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
            if let Some(slot) = piece.m2_slot {
                let mean = record.summary.mean;
                bufs.squares.clear();
                bufs.squares.extend(starts.iter().zip(ends).map(|(s, e)| {
                    let x = e.wrapping_sub(*s) as f64 - mean;
                    x * x
                }));
                stats.partials.push((slot, pairwise_sum(&bufs.squares)));
            } else {
                let mut builder = SummaryBuilder::new();
                builder.push(starts, ends);
                let durations = starts.iter().zip(ends).map(|(s, e)| e.wrapping_sub(*s));
                let m2 = squared_deviation_sum(record.calls, builder.mean(), durations);
                let total_ns = exact_total(starts, ends);
                stats.rows.push((piece.row, builder.finish(m2), total_ns));
            }
        }
        let bufs = &mut worker.bufs;
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
        Ok(UnitDone { stats, packed })
    }

    /// Writes the summary records (and, with compression, the remaining chunks and the
    /// chunk indexes through `appender`, which must have taken every unit).
    pub fn finish<W: WriteAt + ?Sized>(
        self,
        stats: impl IntoIterator<Item = UnitStats>,
        appender: Option<ChunkAppender>,
        out: &mut W,
    ) -> Result<Converted, Error> {
        let mut sums = vec![0.0f64; self.units.slots];
        // Rows without calls keep the all-zero summary.
        let mut small = vec![(Summary::default(), 0i128); self.rows.len()];
        for unit in stats {
            for (slot, sum) in unit.partials {
                if let Some(s) = sums.get_mut(slot) {
                    *s = sum;
                }
            }
            for (row, summary, total) in unit.rows {
                if let Some(s) = small.get_mut(row) {
                    *s = (summary, total);
                }
            }
        }
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
        let mut summaries = Vec::with_capacity(self.rows.len() * 88);
        let mut totals = Vec::with_capacity(self.rows.len());
        for ((row, plan), small) in self.rows.iter().zip(&self.units.m2_plans).zip(&small) {
            let record = &row.record;
            let (summary, total_ns) = match plan {
                Some((plan, first)) => {
                    let end = first + plan.ranges.len();
                    let parts = sums.get(*first..end).unwrap_or_default();
                    let m2 = m2_from_sum(plan.combine(parts), record.calls);
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
            totals.push(RowTotal {
                region_id: row.region_id,
                calls: record.calls,
                total_ns,
            });
        }
        write_place(out, self.summaries_at, 0, &summaries)?;
        Ok(Converted {
            region_names: self.region_names,
            rows: totals,
        })
    }
}

/// Writes `bytes` at byte `offset` inside the planned storage `place`.
pub(crate) fn write_place<W: WriteAt + ?Sized>(
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
