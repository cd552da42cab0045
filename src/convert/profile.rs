//! `.h5` inputs (per-rank profiles of the C API, merged or Python-written profiles, the
//! `--merge` profile), streamed like traces: pass 1 reads the profile's index with
//! `import-native`'s checks ([`import::read_input`] to [`Depth::Spans`]) and each small
//! row's starts; the calls are read again, a range at a time, by the later jobs. Schema-1
//! rows, which have no shared columns, are read whole; aggregate rows have no calls.

use crate::sort::SortSlice;
use std::sync::Arc;

use super::calls::{CallReader, CallsAt, HeldCalls, TimeColumns, Worker};
use super::error::Error;
use super::scan::{read_small_rows, Content, Record, ScannedInput, Source};
use super::shard::Part;
use super::BLOCK;
use crate::hdf5lite::reader::File;
use crate::io::ReadAt;
use crate::schema::likwid::LikwidByRank;
use crate::schema::read::events::time_columns;
use crate::schema::{import, Depth, Metadata, ProfileLayout, Span};

/// What a profile input holds besides its rows.
#[derive(Debug)]
pub(crate) struct ScannedProfile {
    /// The attributes of `/metadata` (without a part's own, see [`Part`]).
    pub metadata: Metadata,
    /// Every name of the region table.
    pub region_names: Vec<String>,
    /// Regions with rows, in region-table order: name, and (rank, record) of each row.
    pub regions: Vec<(String, Vec<(u32, usize)>)>,
    /// LIKWID results (kept only by `--merge`).
    pub likwid: LikwidByRank,
    /// What a part of a sharded run carries.
    pub part: Option<Part>,
}

/// [`read_small_rows`] for rows of event columns, rows that lie back to back read together
/// (up to a block of events at once): a profile of many small rows costs a few reads.
fn read_small_rows_together<R: ReadAt>(
    records: &mut [Record],
    reader: &CallReader<'_, R>,
    columns: TimeColumns,
    name: &str,
) -> Result<u64, Error> {
    let offset = |r: &Record| match r.row.at {
        CallsAt::Events { offset, .. } => Some(offset),
        _ => None,
    };
    let mut order: Vec<(u64, usize)> = records
        .iter()
        .enumerate()
        .filter(|(_, r)| r.row.calls > 0 && r.row.calls <= BLOCK)
        .filter_map(|(i, r)| Some((offset(r)?, i)))
        .collect();
    order.sort_ord_unstable();
    let mut work = 0;
    let mut i = 0;
    let mut column = Vec::new();
    while let Some(&(start, first)) = order.get(i) {
        let mut end = start + records[first].row.calls;
        let mut j = i + 1;
        while let Some(&(at, k)) = order.get(j) {
            let calls = records[k].row.calls;
            if at != end || end - start + calls > BLOCK {
                break;
            }
            end += calls;
            j += 1;
        }
        let span = Span {
            offset: start,
            count: end - start,
        };
        column.clear();
        reader.first_column_into(span, &mut column, name)?;
        for &(at, k) in &order[i..j] {
            let record = &mut records[k];
            let lo = (at - start) as usize;
            let raw = column
                .get(lo..lo + record.row.calls as usize)
                .ok_or(Error::Internal("a row outside the rows read"))?;
            (record.first_start, record.min_start) = first_and_min_start(columns.delta, raw);
            work += 16 * record.row.calls;
        }
        i = j;
    }
    Ok(work)
}

/// The first and the smallest start of a row from its first stored column (start deltas,
/// or starts), without decoding it into a buffer.
fn first_and_min_start(delta: bool, first_column: &[i64]) -> (Option<i64>, Option<i64>) {
    let first = first_column.first().copied();
    if !delta {
        return (first, first_column.iter().min().copied());
    }
    let mut acc = 0i64;
    let min = first_column
        .iter()
        .map(|d| {
            acc = acc.wrapping_add(*d);
            acc
        })
        .min();
    (first, min)
}

/// Pass 1 of input number `input`, a profile named `name` (in errors) read from `src`.
pub fn scan_profile<R: ReadAt, W: ReadAt>(
    input: usize,
    name: &str,
    src: R,
    worker: &mut Worker<W>,
) -> Result<ScannedInput, Error> {
    let profile_error = |source| Error::Profile {
        input: name.to_owned(),
        source,
    };
    let file = File::open(src).map_err(|source| Error::Hdf5 {
        input: name.to_owned(),
        source,
    })?;
    let (profile, likwid) = import::read_input(&file, Depth::Spans).map_err(profile_error)?;
    let columns = match profile.layout {
        ProfileLayout::Columnar => {
            let (delta, ..) = time_columns(&file).map_err(profile_error)?;
            Some(TimeColumns { delta })
        }
        _ => None,
    };
    let mut records = Vec::new();
    let mut regions = Vec::with_capacity(profile.regions.len());
    for region in profile.regions {
        let mut rows = Vec::with_capacity(region.ranks.len());
        for mut row in region.ranks {
            let (calls, at) = match (profile.layout, row.span, columns) {
                (ProfileLayout::Columnar, Some(span), Some(columns)) => (
                    span.count,
                    CallsAt::Events {
                        offset: span.offset,
                        columns,
                    },
                ),
                (ProfileLayout::Legacy, ..) => (
                    row.starts.len() as u64,
                    CallsAt::Held(Arc::new(HeldCalls {
                        starts: std::mem::take(&mut row.starts),
                        ends: std::mem::take(&mut row.ends),
                    })),
                ),
                _ => (0, CallsAt::Nothing),
            };
            rows.push((row.rank, records.len()));
            records.push(Record {
                source: Source {
                    file: row.source_file,
                    line: row.source_line,
                    text: row.source_text,
                },
                ..Record::new(input, Arc::from(region.name.as_str()), calls, at)
            });
        }
        regions.push((region.name, rows));
    }
    let reader = match columns {
        Some(columns) => CallReader::open_events(&file, columns, name)?,
        None => CallReader::None,
    };
    let work = match columns {
        Some(columns) => read_small_rows_together(&mut records, &reader, columns, name)?,
        None => read_small_rows(&mut records, &reader, worker, name)?,
    };
    let mut metadata = profile.metadata;
    let part = Part::take(&mut metadata);
    Ok(ScannedInput {
        records,
        content: Content::Profile(ScannedProfile {
            metadata,
            region_names: profile.region_names,
            regions,
            likwid,
            part,
        }),
        work,
    })
}
