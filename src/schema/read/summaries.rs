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
    /// The members again when every one is absent or 8 bytes little-endian (what the
    /// writers store), decoded with no check per value.
    plain: Option<[Plain; SUMMARY_MEMBERS.len()]>,
    /// The first row of `block`, and the raw records from it.
    block_start: u64,
    block: Vec<u8>,
}

/// A member of the usual layout: where its 8 little-endian bytes lie in a record. Reading
/// a million rows' members through [`int`] and [`float`], each a `Result` of the reader's
/// error, was a third of reading a 100,000-rank index.
#[derive(Debug, Clone, Copy)]
enum Plain {
    Absent,
    Signed(usize),
    Unsigned(usize),
    Float(usize),
}

impl Plain {
    /// `member` in the usual layout, `None` when it is stored otherwise.
    fn of(member: Member) -> Option<Plain> {
        match member {
            Member::Absent => Some(Plain::Absent),
            Member::Int {
                offset,
                size: 8,
                signed,
                order: ByteOrder::Little,
            } => Some(if signed {
                Plain::Signed(offset)
            } else {
                Plain::Unsigned(offset)
            }),
            Member::Float {
                offset,
                size: 8,
                order: ByteOrder::Little,
            } => Some(Plain::Float(offset)),
            _ => None,
        }
    }

    /// The member's 8 bytes in `record` (`None` past its end, which [`Summaries::open`]
    /// rules out).
    fn bytes(record: &[u8], offset: usize) -> Option<[u8; 8]> {
        record.get(offset..offset.checked_add(8)?)?.try_into().ok()
    }

    /// As [`int`] reads it: a float member is `None`, an unsigned one above `i64::MAX`
    /// too.
    fn int(self, record: &[u8]) -> Option<i64> {
        match self {
            Plain::Signed(at) => Plain::bytes(record, at).map(i64::from_le_bytes),
            Plain::Unsigned(at) => {
                i64::try_from(u64::from_le_bytes(Plain::bytes(record, at)?)).ok()
            }
            Plain::Absent | Plain::Float(_) => None,
        }
    }

    /// As [`float`] reads it: an integer member converted.
    fn float(self, record: &[u8]) -> Option<f64> {
        match self {
            Plain::Float(at) => Plain::bytes(record, at).map(f64::from_le_bytes),
            Plain::Signed(at) => Plain::bytes(record, at).map(|b| i64::from_le_bytes(b) as f64),
            Plain::Unsigned(at) => Plain::bytes(record, at).map(|b| u64::from_le_bytes(b) as f64),
            Plain::Absent => None,
        }
    }
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
        let plain = members.map(Plain::of);
        let plain = plain
            .iter()
            .all(Option::is_some)
            .then(|| plain.map(|p| p.unwrap_or(Plain::Absent)));
        let rows = dataset.len()?;
        Ok(Summaries {
            dataset,
            rows,
            record_size,
            members,
            plain,
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
        let at = row * self.record_size as u64;
        // Where the record lies, then borrowed beside the members: both arrays of members
        // were copied for every row, and without the copies a series' open in the page
        // takes 6-9 % less (issue 37).
        let from = self.record(row)?;
        let record = &self.block[from..from + self.record_size];
        if let Some(plain) = &self.plain {
            return Ok(plain_statistics(plain, record, count, exclusive));
        }
        let [total, minimum, maximum, first, last, start_minimum, end_maximum, gpu_count, gpu_total, mean, m2] =
            self.members;
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
            gpu_count: gpu_count?.and_then(|v| u64::try_from(v).ok()).unwrap_or(0),
            gpu_total: gpu_total?.unwrap_or(0),
            exclusive: exclusive.unwrap_or(total),
            optional: Default::default(),
        }
        .with_first(first?)
        .with_last(last?)
        .with_start_minimum(start_minimum?)
        .with_end_maximum(end_maximum?)
        .with_mean(mean?)
        .with_m2(m2?))
    }

    /// Where the raw record of `row` begins in `block` (its `record_size` bytes lie
    /// there), reading the block that holds it when it is not the current one.
    fn record(&mut self, row: u64) -> Result<usize, Error> {
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
        if start + self.record_size > self.block.len() {
            return Err(Error::Corrupt(format!(
                "{} row {row} is shorter than its record",
                index::SUMMARY_STATISTICS.path
            )));
        }
        Ok(start)
    }
}

/// [`Summaries::statistics`] of a record in the usual layout.
fn plain_statistics(
    members: &[Plain; SUMMARY_MEMBERS.len()],
    record: &[u8],
    count: u64,
    exclusive: Option<i64>,
) -> RowStatistics {
    let [total, minimum, maximum, first, last, start_minimum, end_maximum, gpu_count, gpu_total, mean, m2] =
        *members;
    let total = total.int(record).unwrap_or(0);
    RowStatistics {
        count,
        total,
        minimum: minimum.int(record).unwrap_or(0),
        maximum: maximum.int(record).unwrap_or(0),
        gpu_count: (gpu_count.int(record))
            .and_then(|v| u64::try_from(v).ok())
            .unwrap_or(0),
        gpu_total: gpu_total.int(record).unwrap_or(0),
        exclusive: exclusive.unwrap_or(total),
        optional: Default::default(),
    }
    .with_first(first.int(record))
    .with_last(last.int(record))
    .with_start_minimum(start_minimum.int(record))
    .with_end_maximum(end_maximum.int(record))
    .with_mean(mean.float(record))
    .with_m2(m2.float(record))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The usual layout's decoding reads every member as the general one does: signed,
    /// unsigned (above `i64::MAX` too), float, absent, as integers and as floats.
    #[test]
    fn plain_members_read_as_the_general_decoder() {
        let mut record = Vec::new();
        record.extend_from_slice(&(-5i64).to_le_bytes());
        record.extend_from_slice(&u64::MAX.to_le_bytes());
        record.extend_from_slice(&7u64.to_le_bytes());
        record.extend_from_slice(&2.5f64.to_le_bytes());
        let int_at = |offset, signed| Member::Int {
            offset,
            size: 8,
            signed,
            order: ByteOrder::Little,
        };
        let members = [
            int_at(0, true),
            int_at(8, false),
            int_at(16, false),
            Member::Float {
                offset: 24,
                size: 8,
                order: ByteOrder::Little,
            },
            Member::Absent,
        ];
        for member in members {
            let plain = Plain::of(member).unwrap();
            assert_eq!(plain.int(&record), int(&record, member, 0).unwrap());
            assert_eq!(plain.float(&record), float(&record, member, 0).unwrap());
        }
        // Other sizes and byte orders take the general decoder.
        let big = Member::Int {
            offset: 0,
            size: 8,
            signed: true,
            order: ByteOrder::Big,
        };
        let small = Member::Int {
            offset: 0,
            size: 4,
            signed: true,
            order: ByteOrder::Little,
        };
        assert!(Plain::of(big).is_none() && Plain::of(small).is_none());
    }
}
