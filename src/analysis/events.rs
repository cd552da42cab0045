//! Where exports get a row's calls from: the loaded profile ([`Loaded`]), or the file's event
//! columns one row at a time ([`EventReader`]) for a profile read to its index, so a profile
//! of any size exports in the memory of its largest row.

use std::borrow::Cow;

use crate::io::ReadAt;
use crate::schema::{CallIds, EventReader, RankCalls, RowEvents, Span};

use super::error::Result;

/// Where exports get a row's calls from.
pub trait RowSource {
    /// The calls of `row` (a row of the profile the source belongs to).
    fn events<'a>(&'a self, row: &'a RankCalls) -> Result<Cow<'a, RowEvents>>;

    /// The ids and caller ids of `row`'s calls, when the file records its call graph
    /// (Python runs' `call_ids` and `parent_ids`); `None` by default.
    fn call_ids(&self, row: &RankCalls) -> Result<Option<CallIds>> {
        let _ = row;
        Ok(None)
    }

    /// At least the thread and task columns of `row` (all of it by default).
    fn lane_columns<'a>(&'a self, row: &'a RankCalls) -> Result<Cow<'a, RowEvents>> {
        self.events(row)
    }

    /// Calls `[from, from + count)` of `row` appended to `starts` and `ends`, `base` being
    /// the start of call `from − 1` (0 when `from` is 0): a source that can read a range
    /// reads only those calls (the default reads the row and keeps the range).
    #[allow(clippy::too_many_arguments)]
    fn append_range(
        &self,
        row: &RankCalls,
        from: u64,
        count: u64,
        base: i64,
        starts: &mut Vec<i64>,
        ends: &mut Vec<i64>,
    ) -> Result<()> {
        let _ = base;
        let ev = self.events(row)?;
        extend_range(&ev.starts, &ev.ends, from, count, starts, ends);
        Ok(())
    }

    /// Whether `row`'s calls belong to thread or task lanes (each nested on its own).
    fn has_lanes(&self, row: &RankCalls) -> bool {
        row.lanes.is_some()
    }
}

/// Calls `[from, from + count)` of two columns (as far as they reach) appended.
fn extend_range(
    s: &[i64],
    e: &[i64],
    from: u64,
    count: u64,
    starts: &mut Vec<i64>,
    ends: &mut Vec<i64>,
) {
    let n = s.len().min(e.len());
    let a = usize::try_from(from).unwrap_or(usize::MAX).min(n);
    let b = a
        .saturating_add(usize::try_from(count).unwrap_or(usize::MAX))
        .min(n);
    starts.extend_from_slice(&s[a..b]);
    ends.extend_from_slice(&e[a..b]);
}

/// Rows whose calls are already in memory (a profile read to
/// [`Depth::Events`](crate::schema::Depth::Events)).
pub struct Loaded;

/// Where rows' calls come from: `reader`, for a profile that stores them by row, else the
/// rows themselves ([`Loaded`]).
pub fn source<'a, R: ReadAt>(reader: Option<&'a EventReader<'_, R>>) -> &'a dyn RowSource {
    match reader {
        Some(r) => r,
        None => &Loaded,
    }
}

impl RowSource for Loaded {
    fn events<'a>(&'a self, row: &'a RankCalls) -> Result<Cow<'a, RowEvents>> {
        Ok(Cow::Owned(RowEvents {
            starts: row.starts.clone(),
            ends: row.ends.clone(),
            gpu: row.gpu.clone(),
            threads: None,
            tasks: None,
        }))
    }

    fn append_range(
        &self,
        row: &RankCalls,
        from: u64,
        count: u64,
        _base: i64,
        starts: &mut Vec<i64>,
        ends: &mut Vec<i64>,
    ) -> Result<()> {
        extend_range(&row.starts, &row.ends, from, count, starts, ends);
        Ok(())
    }
}

impl<R: ReadAt> RowSource for EventReader<'_, R> {
    fn events<'a>(&'a self, row: &'a RankCalls) -> Result<Cow<'a, RowEvents>> {
        match row.span {
            Some(span) => Ok(Cow::Owned(self.read(span)?)),
            None => Loaded.events(row),
        }
    }

    fn call_ids(&self, row: &RankCalls) -> Result<Option<CallIds>> {
        match row.span {
            Some(span) => Ok(self.read_call_ids(span)?),
            None => Ok(None),
        }
    }

    fn lane_columns<'a>(&'a self, row: &'a RankCalls) -> Result<Cow<'a, RowEvents>> {
        match row.span {
            Some(span) => Ok(Cow::Owned(self.read_lanes(span)?)),
            None => Loaded.events(row),
        }
    }

    fn append_range(
        &self,
        row: &RankCalls,
        from: u64,
        count: u64,
        base: i64,
        starts: &mut Vec<i64>,
        ends: &mut Vec<i64>,
    ) -> Result<()> {
        let Some(span) = row.span else {
            return Loaded.append_range(row, from, count, base, starts, ends);
        };
        let from = from.min(span.count);
        let part = Span {
            offset: span.offset.saturating_add(from),
            count: count.min(span.count - from),
        };
        Ok(self.append_calls_after(part, base, starts, ends)?)
    }

    fn has_lanes(&self, row: &RankCalls) -> bool {
        row.lanes.is_some() || (row.span.is_some() && EventReader::has_lanes(self))
    }
}
