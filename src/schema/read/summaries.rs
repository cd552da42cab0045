//! `rank_region_index/summary_statistics` (SCHEMA.md §2.6): one compound record of stored
//! statistics per index row, decoded a block of rows at a time and only the members the
//! model keeps. A decoded [`Value`](crate::hdf5lite::reader::Value) per record, with its
//! member names, took 1.5 GB and most of `inspect --flat`'s time at 100,000 ranks.

use crate::hdf5lite::reader::{value, Dataset};
use crate::hdf5lite::{ByteOrder, Datatype};
use crate::io::ReadAt;
use crate::schema::error::Error;
use crate::schema::names::index;
use crate::schema::profile::RowStatistics;
use crate::schema::stats::SUMMARY_MEMBERS;

/// Rows decoded per read: bounded memory whatever the number of rows.
const BLOCK_ROWS: u64 = 1 << 14;

/// Where one member lies in a record, and how it is stored.
#[derive(Debug, Clone, Copy)]
enum Member {
    /// Absent, or of a type that is neither integer nor float: reads as `None`.
    Absent,
    Int {
        offset: usize,
        size: u32,
        signed: bool,
        order: ByteOrder,
    },
    Float {
        offset: usize,
        size: u32,
        order: ByteOrder,
    },
}

/// The `summary_statistics` column, read in blocks as rows are asked for in order.
pub(super) struct Summaries<'f, R: ReadAt> {
    dataset: Dataset<'f, R>,
    rows: u64,
    record_size: usize,
    /// Where each of [`SUMMARY_MEMBERS`] lies, in its order.
    members: [Member; SUMMARY_MEMBERS.len()],
    /// The first row of `block`, and the raw records from it.
    block_start: u64,
    block: Vec<u8>,
}

impl<'f, R: ReadAt> Summaries<'f, R> {
    /// The column, which must be a compound; its rows are counted, none is read yet.
    pub(super) fn open(dataset: Dataset<'f, R>) -> Result<Self, Error> {
        let Datatype::Compound { size, members } = dataset.datatype() else {
            return Err(Error::Corrupt(format!(
                "{} is not a compound",
                index::SUMMARY_STATISTICS.path
            )));
        };
        let record_size = *size as usize;
        let find = |name: &str| -> Member {
            let Some(m) = members.iter().find(|m| m.name == name) else {
                return Member::Absent;
            };
            let offset = m.offset as usize;
            match m.datatype {
                Datatype::Integer {
                    size,
                    signed,
                    order,
                } if offset + size as usize <= record_size => Member::Int {
                    offset,
                    size,
                    signed,
                    order,
                },
                Datatype::Float { size, order } if offset + size as usize <= record_size => {
                    Member::Float {
                        offset,
                        size,
                        order,
                    }
                }
                _ => Member::Absent,
            }
        };
        let members = SUMMARY_MEMBERS.map(find);
        let rows = dataset.len()?;
        Ok(Summaries {
            dataset,
            rows,
            record_size,
            members,
            block_start: 0,
            block: Vec::new(),
        })
    }

    /// How many records the column holds.
    pub(super) fn len(&self) -> u64 {
        self.rows
    }

    /// The statistics stored for `row` (members the record lacks are `None` or 0), with
    /// `count` calls and `exclusive` as the stored exclusive total (the total when none).
    pub(super) fn statistics(
        &mut self,
        row: u64,
        count: u64,
        exclusive: Option<i64>,
    ) -> Result<RowStatistics, Error> {
        let members = self.members;
        let at = row * self.record_size as u64;
        let record = self.record(row)?;
        let [total, minimum, maximum, first, last, start_minimum, end_maximum, gpu_count, gpu_total, mean, m2] =
            members;
        let [total, minimum, maximum, first, last, start_minimum, end_maximum, gpu_count, gpu_total] =
            [
                total,
                minimum,
                maximum,
                first,
                last,
                start_minimum,
                end_maximum,
                gpu_count,
                gpu_total,
            ]
            .map(|m| int(record, m, at));
        let [mean, m2] = [mean, m2].map(|m| float(record, m, at));
        let total = total?.unwrap_or(0);
        Ok(RowStatistics {
            count,
            total,
            minimum: minimum?.unwrap_or(0),
            maximum: maximum?.unwrap_or(0),
            first: first?,
            last: last?,
            start_minimum: start_minimum?,
            end_maximum: end_maximum?,
            gpu_count: gpu_count?.and_then(|v| u64::try_from(v).ok()).unwrap_or(0),
            gpu_total: gpu_total?.unwrap_or(0),
            mean: mean?,
            m2: m2?,
            exclusive: exclusive.unwrap_or(total),
        })
    }

    /// The raw record of `row`, reading the block that holds it when it is not the
    /// current one.
    fn record(&mut self, row: u64) -> Result<&[u8], Error> {
        let size = self.record_size as u64;
        let cached = (self.block.len() as u64).checked_div(size).unwrap_or(0);
        if row < self.block_start || row >= self.block_start + cached {
            if row >= self.rows {
                return Err(Error::Corrupt(format!(
                    "{} has {} rows, asked for row {row}",
                    index::SUMMARY_STATISTICS.path,
                    self.rows
                )));
            }
            let count = BLOCK_ROWS.min(self.rows - row);
            self.block.clear();
            self.dataset
                .read_raw_range_into(row, count, &mut self.block)?;
            self.block_start = row;
        }
        let start = ((row - self.block_start) * size) as usize;
        self.block
            .get(start..start + self.record_size)
            .ok_or_else(|| {
                Error::Corrupt(format!(
                    "{} row {row} is shorter than its record",
                    index::SUMMARY_STATISTICS.path
                ))
            })
    }
}

/// An integer member as `i64`: `None` when absent, a float, or out of range.
fn int(record: &[u8], member: Member, at: u64) -> Result<Option<i64>, Error> {
    match member {
        Member::Int {
            offset,
            size,
            signed,
            order,
        } => {
            let bytes = &record[offset..offset + size as usize];
            // The stored members are 8-byte little-endian: read them without the general
            // decoder, which took a tenth of reading a 100,000-rank index.
            if let (Ok(b), ByteOrder::Little) = (<[u8; 8]>::try_from(bytes), order) {
                return Ok(if signed {
                    Some(i64::from_le_bytes(b))
                } else {
                    i64::try_from(u64::from_le_bytes(b)).ok()
                });
            }
            Ok(i64::try_from(value::int(bytes, size, signed, order, at)?).ok())
        }
        _ => Ok(None),
    }
}

/// A float member, or an integer one as `f64`: `None` when absent.
fn float(record: &[u8], member: Member, at: u64) -> Result<Option<f64>, Error> {
    match member {
        Member::Float {
            offset,
            size,
            order,
        } => Ok(Some(value::float(
            &record[offset..offset + size as usize],
            size,
            order,
            at,
        )?)),
        Member::Int {
            offset,
            size,
            signed,
            order,
        } => {
            let bytes = &record[offset..offset + size as usize];
            Ok(Some(value::int(bytes, size, signed, order, at)? as f64))
        }
        Member::Absent => Ok(None),
    }
}
