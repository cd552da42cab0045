//! Schema 2/3 columnar profiles: `rank_region_index` (one row per (rank, region)) over the
//! shared `/events` columns (SCHEMA.md §2.5–2.7, §4 steps 5–7).

use std::collections::HashSet;
use std::sync::Arc;

use crate::hdf5lite::reader::File;
use crate::io::ReadAt;
use crate::schema::error::Error;
use crate::schema::names::{self, index};
use crate::schema::profile::{Calls, Depth, RankCalls, Region, RowStatistics, Span};
use crate::sort::SortSlice;

use super::events::{decode_row, lanes, time_columns};
use super::summaries::Summaries;
use super::{check_length, has_link, int_column, rank_of, region_index, Assembly};

/// The `rank_region_index` columns, each checked to hold at least the rows of `region_ids`.
struct IndexColumns<'f, R: ReadAt> {
    region_ids: Vec<i64>,
    ranks: Vec<i64>,
    offsets: Vec<i64>,
    counts: Vec<i64>,
    lines: Vec<i64>,
    files: Vec<Option<Arc<str>>>,
    texts: Vec<Option<Arc<str>>>,
    /// `exclusive_totals`, when stored.
    exclusive: Option<Vec<i64>>,
    /// `summary_statistics` records, when stored and asked for.
    summaries: Option<Summaries<'f, R>>,
}

impl<'f, R: ReadAt> IndexColumns<'f, R> {
    fn read(file: &'f File<R>, ranks: Vec<i64>, summaries: bool) -> Result<Self, Error> {
        let mut shared = Shared::default();
        let mut strings = |column: names::Dataset| -> Result<Vec<Option<Arc<str>>>, Error> {
            Ok(file
                .dataset(column.path)?
                .read_strings_with(|s| shared.get(s))?)
        };
        let region_ids = int_column(file, index::REGION_IDS)?;
        let offsets = int_column(file, index::EVENT_OFFSETS)?;
        let counts = int_column(file, index::EVENT_COUNTS)?;
        let lines = int_column(file, index::SOURCE_LINES)?;
        let files = strings(index::SOURCE_FILES)?;
        let texts = strings(index::SOURCE_TEXTS)?;
        let exclusive = if has_link(file, index::EXCLUSIVE_TOTALS)? {
            Some(int_column(file, index::EXCLUSIVE_TOTALS)?)
        } else {
            None
        };
        let summaries = if summaries && has_link(file, index::SUMMARY_STATISTICS)? {
            Some(Summaries::open(
                file.dataset(index::SUMMARY_STATISTICS.path)?,
            )?)
        } else {
            None
        };
        let rows = region_ids.len();
        for (column, len) in [
            (index::RANKS, ranks.len()),
            (index::EVENT_OFFSETS, offsets.len()),
            (index::EVENT_COUNTS, counts.len()),
            (index::SOURCE_LINES, lines.len()),
            (index::SOURCE_FILES, files.len()),
            (index::SOURCE_TEXTS, texts.len()),
        ]
        .into_iter()
        .chain(
            exclusive
                .as_ref()
                .map(|e| (index::EXCLUSIVE_TOTALS, e.len())),
        )
        .chain(
            summaries
                .as_ref()
                .map(|s| (index::SUMMARY_STATISTICS, s.len() as usize)),
        ) {
            check_length(column, len, rows)?;
        }
        Ok(IndexColumns {
            region_ids,
            ranks,
            offsets,
            counts,
            lines,
            files,
            texts,
            exclusive,
            summaries,
        })
    }

    /// Row `i` without its calls: rank, source, stored exclusive total and span.
    /// Takes the row's source strings, so each row is asked for once.
    fn row(&mut self, i: usize) -> Result<RankCalls, Error> {
        let (offset, count) = (self.offsets[i], self.counts[i]);
        let span = u64::try_from(offset)
            .ok()
            .zip(u64::try_from(count).ok())
            .map(|(offset, count)| Span { offset, count })
            .ok_or_else(|| negative_span(offset, count))?;
        Ok(RankCalls {
            rank: rank_of(self.ranks[i])?,
            source_file: self.files[i].take(),
            source_line: Some(self.lines[i]).filter(|l| *l >= 0),
            source_text: self.texts[i].take(),
            exclusive_total: self.exclusive.as_ref().map(|x| x[i]).filter(|&x| x >= 0),
            span: Some(span),
            ..RankCalls::default()
        })
    }

    /// The statistics `summary_statistics` stores for row `i` (members it lacks are
    /// `None` or 0).
    fn statistics(&mut self, i: usize, count: u64) -> Result<Option<RowStatistics>, Error> {
        let exclusive = self.exclusive.as_ref().map(|e| e[i]).filter(|&e| e >= 0);
        match &mut self.summaries {
            Some(summaries) => Ok(Some(summaries.statistics(i as u64, count, exclusive)?)),
            None => Ok(None),
        }
    }
}

/// The strings of the index's columns, each distinct one allocated once and shared; the
/// empty string (no source) is `None`.
#[derive(Default)]
struct Shared {
    seen: HashSet<Arc<str>>,
    /// The string returned last: runs of equal rows skip the hash.
    last: Option<Arc<str>>,
}

impl Shared {
    fn get(&mut self, s: &str) -> Option<Arc<str>> {
        if s.is_empty() {
            return None;
        }
        if let Some(last) = self.last.as_ref().filter(|l| ***l == *s) {
            return Some(last.clone());
        }
        let shared = match self.seen.get(s) {
            Some(shared) => shared.clone(),
            None => {
                let shared: Arc<str> = Arc::from(s);
                self.seen.insert(shared.clone());
                shared
            }
        };
        self.last = Some(shared.clone());
        Some(shared)
    }
}

fn negative_span(offset: i64, count: i64) -> Error {
    Error::Corrupt(format!(
        "negative event offset or count ({offset}, {count}) in the event index"
    ))
}

/// The regions of a columnar profile: rows at [`Depth::Index`] with their spans and stored
/// statistics, at [`Depth::Events`] with their calls.
pub(super) fn read<R: ReadAt>(
    file: &File<R>,
    depth: Depth,
    names: &[String],
    ranks: Vec<i64>,
) -> Result<Vec<Region>, Error> {
    let mut columns = IndexColumns::read(file, ranks, depth == Depth::Index)?;
    let rows = columns.region_ids.len();
    let events = match depth {
        Depth::Events => Some(Events::read(file, &columns, rows)?),
        Depth::Spans => {
            Events::check(file, &columns, rows)?;
            None
        }
        _ => None,
    };
    let mut out = Assembly::new(names, &columns.region_ids[..rows]);
    for i in 0..rows {
        let id = region_index(i, columns.region_ids[i], names.len())?;
        let mut row = columns.row(i)?;
        match &events {
            Some(events) => {
                let Span { offset, count } = row.span.take().unwrap_or_default();
                // Checked by Events::read: the span lies within the columns.
                let range = offset as usize..(offset + count) as usize;
                events.fill(&mut row, range);
            }
            None => {
                let count = row.span.map_or(0, |s| s.count);
                row.statistics = columns.statistics(i, count)?;
            }
        }
        out.push(id, row);
    }
    Ok(out.finish())
}

/// The whole event columns, read once.
struct Events {
    delta: bool,
    first: Vec<i64>,
    second: Vec<i64>,
    gpu: Option<Vec<i64>>,
    threads: Option<Vec<i64>>,
    tasks: Option<Vec<i64>>,
}

/// The optional per-event columns, checked to have the time columns' length.
const OPTIONAL_COLUMNS: [names::Dataset; 3] = [
    names::events::GPU_DURATIONS,
    names::events::THREAD_IDS,
    names::events::TASK_IDS,
];

impl Events {
    /// The checks of [`read`](Self::read) on the columns' lengths, without reading them:
    /// the rows lie within the time columns, and the optional columns match their length.
    fn check<R: ReadAt>(
        file: &File<R>,
        index: &IndexColumns<'_, R>,
        rows: usize,
    ) -> Result<(), Error> {
        let (_, a, b) = time_columns(file)?;
        let first = file.dataset(a.path)?.len()?;
        let len = first.min(file.dataset(b.path)?.len()?);
        check_event_index(
            &index.offsets[..rows],
            &index.counts[..rows],
            i128::from(len),
        )?;
        for column in OPTIONAL_COLUMNS {
            if has_link(file, column)? {
                let n = file.dataset(column.path)?.len()?;
                if n != first {
                    return Err(optional_length(column, n, first));
                }
            }
        }
        Ok(())
    }

    fn read<R: ReadAt>(
        file: &File<R>,
        index: &IndexColumns<'_, R>,
        rows: usize,
    ) -> Result<Self, Error> {
        Self::check(file, index, rows)?;
        let (delta, a, b) = time_columns(file)?;
        let first = int_column(file, a)?;
        let second = int_column(file, b)?;
        let optional = |column: names::Dataset| -> Result<Option<Vec<i64>>, Error> {
            if !has_link(file, column)? {
                return Ok(None);
            }
            let v = int_column(file, column)?;
            if v.len() != first.len() {
                return Err(optional_length(column, v.len() as u64, first.len() as u64));
            }
            Ok(Some(v))
        };
        let [gpu, threads, tasks] = OPTIONAL_COLUMNS;
        Ok(Events {
            delta,
            gpu: optional(gpu)?,
            threads: optional(threads)?,
            tasks: optional(tasks)?,
            first,
            second,
        })
    }

    /// Fills `row` with the calls at `range`.
    /// (Rows without calls keep no allocation for them.)
    fn fill(&self, row: &mut RankCalls, range: std::ops::Range<usize>) {
        let (starts, ends) = decode_row(
            self.delta,
            &self.first[range.clone()],
            &self.second[range.clone()],
        );
        row.calls = Calls {
            starts,
            ends,
            gpu: (self.gpu.as_ref())
                .map(|g| g[range.clone()].to_vec())
                .filter(|g| g.iter().any(|&v| v >= 0)),
            lanes: self.threads.as_ref().map(|t| {
                lanes(
                    &t[range.clone()],
                    self.tasks.as_ref().map(|k| &k[range.clone()]),
                )
            }),
        }
        .into();
    }
}

fn optional_length(column: names::Dataset, len: u64, events: u64) -> Error {
    Error::Corrupt(format!(
        "{} has {len} rows, the event columns {events}",
        column.path
    ))
}

/// Rows must lie within the event columns and not overlap (SCHEMA.md §4 step 6).
pub(super) fn check_event_index(
    offsets: &[i64],
    counts: &[i64],
    event_count: i128,
) -> Result<(), Error> {
    let mut spans: Vec<(i128, i128)> = Vec::with_capacity(offsets.len());
    for (&offset, &count) in offsets.iter().zip(counts) {
        if offset < 0 || count < 0 {
            return Err(negative_span(offset, count));
        }
        spans.push((i128::from(offset), i128::from(offset) + i128::from(count)));
    }
    if let Some(max_end) = spans.iter().map(|s| s.1).max() {
        if max_end > event_count {
            return Err(Error::Corrupt(format!(
                "claims {max_end} recorded events but its event columns hold {event_count}; \
                 the file is truncated or damaged"
            )));
        }
    }
    spans.sort_stable_by_key(|s| s.0);
    if spans.windows(2).any(|w| w[1].0 < w[0].1) {
        return Err(Error::Corrupt(
            "overlapping region rows in its event index; the file is damaged".into(),
        ));
    }
    Ok(())
}
