//! Per-row access to the shared event columns, so exports stream: the profile is loaded as an
//! index ([`Profile::read_index`](super::Profile::read_index): rows, sources and the fixed-size
//! statistics, no events) and each (rank, region) row's calls are read on demand with
//! [`Dataset::read_raw_range`], touching only the chunks that row lies in.

use std::borrow::Cow;

use crate::hdf5lite::model::Datatype;
use crate::hdf5lite::reader::{value, Dataset, File};
use crate::hdf5lite::ReadAt;

use super::error::{Error, Result};
use super::profile::RankCalls;

/// Where a row's calls lie in the shared `/events` columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    pub offset: u64,
    pub count: u64,
}

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
        let threads = self.threads.as_ref()?;
        Some(
            threads
                .iter()
                .enumerate()
                .map(|(j, &thread)| {
                    let lane = if thread < 0 {
                        -1
                    } else {
                        (-2i64).wrapping_sub(thread)
                    };
                    match self.tasks.as_ref().and_then(|t| t.get(j)) {
                        Some(&task) if task >= 0 => task,
                        _ => lane,
                    }
                })
                .collect(),
        )
    }

    /// The row with these calls filled in (lanes derived, GPU kept only when any is set).
    pub fn into_calls(self, row: &RankCalls) -> RankCalls {
        let lanes = self.lanes();
        RankCalls {
            starts: self.starts,
            ends: self.ends,
            gpu: self.gpu.filter(|g| g.iter().any(|&v| v >= 0)),
            lanes,
            stored: None,
            ..row.clone()
        }
    }
}

/// Where exports get a row's calls from.
pub trait RowSource {
    /// The calls of `row` (a row of the profile the source belongs to).
    fn events<'a>(&'a self, row: &'a RankCalls) -> Result<Cow<'a, RowEvents>>;

    /// At least the thread and task columns of `row` (all of it by default).
    fn lane_columns<'a>(&'a self, row: &'a RankCalls) -> Result<Cow<'a, RowEvents>> {
        self.events(row)
    }
}

/// Rows whose calls are already in memory ([`Profile::read`](super::Profile::read)).
pub struct Loaded;

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
}

/// The `/events` columns of a schema 2/3 profile, read one row at a time.
pub struct EventReader<'f, R: ReadAt> {
    a: Dataset<'f, R>,
    b: Dataset<'f, R>,
    /// `start_deltas`/`durations` rather than `start_times`/`end_times`.
    delta: bool,
    gpu: Option<Dataset<'f, R>>,
    threads: Option<Dataset<'f, R>>,
    tasks: Option<Dataset<'f, R>>,
    len: u64,
}

fn has_link<R: ReadAt>(file: &File<R>, group: &str, name: &str) -> Result<bool> {
    Ok(file.group(group)?.links()?.iter().any(|l| l.name == name))
}

impl<'f, R: ReadAt> EventReader<'f, R> {
    /// Opens the event columns; `None` when the file has no `/events` group.
    pub fn open(file: &'f File<R>) -> Result<Option<Self>> {
        if !has_link(file, "/", "events")? {
            return Ok(None);
        }
        let delta = has_link(file, "/events", "start_deltas")?;
        let (a, b) = if delta {
            ("start_deltas", "durations")
        } else {
            ("start_times", "end_times")
        };
        let a = file.dataset(&format!("/events/{a}"))?;
        let b = file.dataset(&format!("/events/{b}"))?;
        let len = a.len()?;
        let optional = |name: &str| -> Result<Option<Dataset<'f, R>>> {
            if !has_link(file, "/events", name)? {
                return Ok(None);
            }
            let d = file.dataset(&format!("/events/{name}"))?;
            if d.len()? != len {
                return Err(Error::Corrupt(format!(
                    "/events/{name} has {} rows, the event columns {len}",
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
            gpu: optional("gpu_durations")?,
            threads: optional("thread_ids")?,
            tasks: optional("task_ids")?,
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

    fn check(&self, span: Span) -> Result<()> {
        match span.offset.checked_add(span.count) {
            Some(end) if end <= self.len => Ok(()),
            _ => Err(Error::Corrupt(format!(
                "index row points at events {}+{} of {}",
                span.offset, span.count, self.len
            ))),
        }
    }

    /// The calls of one span.
    pub fn read(&self, span: Span) -> Result<RowEvents> {
        self.check(span)?;
        let a = ints(&self.a, span)?;
        let b = ints(&self.b, span)?;
        let (starts, ends) = if self.delta {
            let mut acc = 0i64;
            let starts: Vec<i64> = a
                .iter()
                .map(|&d| {
                    acc = acc.wrapping_add(d);
                    acc
                })
                .collect();
            let ends = starts
                .iter()
                .zip(&b)
                .map(|(s, d)| s.wrapping_add(*d))
                .collect();
            (starts, ends)
        } else {
            (a, b)
        };
        Ok(RowEvents {
            starts,
            ends,
            gpu: self.gpu.as_ref().map(|d| ints(d, span)).transpose()?,
            threads: self.threads.as_ref().map(|d| ints(d, span)).transpose()?,
            tasks: self.tasks.as_ref().map(|d| ints(d, span)).transpose()?,
        })
    }

    /// Only the thread and task columns of one span (for lane tables).
    pub fn read_lanes(&self, span: Span) -> Result<RowEvents> {
        self.check(span)?;
        Ok(RowEvents {
            threads: self.threads.as_ref().map(|d| ints(d, span)).transpose()?,
            tasks: self.tasks.as_ref().map(|d| ints(d, span)).transpose()?,
            ..RowEvents::default()
        })
    }
}

impl<R: ReadAt> RowSource for EventReader<'_, R> {
    fn events<'a>(&'a self, row: &'a RankCalls) -> Result<Cow<'a, RowEvents>> {
        match row.span {
            Some(span) => Ok(Cow::Owned(self.read(span)?)),
            None => Loaded.events(row),
        }
    }

    fn lane_columns<'a>(&'a self, row: &'a RankCalls) -> Result<Cow<'a, RowEvents>> {
        match row.span {
            Some(span) => Ok(Cow::Owned(self.read_lanes(span)?)),
            None => Loaded.events(row),
        }
    }
}

/// Elements `span` of an integer dataset as `i64`.
fn ints<R: ReadAt>(d: &Dataset<'_, R>, span: Span) -> Result<Vec<i64>> {
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
    let raw = d.read_raw_range(span.offset, span.count)?;
    raw.chunks_exact(size as usize)
        .map(|b| {
            let v = value::int(b, size, signed, order, 0)?;
            i64::try_from(v)
                .map_err(|_| Error::Corrupt(format!("{}: value {v} does not fit", d.path())))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
