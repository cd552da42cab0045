//! Where exports get a row's calls from: the loaded profile ([`Loaded`]), or the file's event
//! columns one row at a time ([`EventReader`]) for a profile read to its index, so a profile
//! of any size exports in the memory of its largest row.

use std::borrow::Cow;

use crate::io::ReadAt;
use crate::schema::{EventReader, RankCalls, RowEvents};

use super::error::Result;

/// Where exports get a row's calls from.
pub trait RowSource {
    /// The calls of `row` (a row of the profile the source belongs to).
    fn events<'a>(&'a self, row: &'a RankCalls) -> Result<Cow<'a, RowEvents>>;

    /// At least the thread and task columns of `row` (all of it by default).
    fn lane_columns<'a>(&'a self, row: &'a RankCalls) -> Result<Cow<'a, RowEvents>> {
        self.events(row)
    }
}

/// Rows whose calls are already in memory (a profile read to
/// [`Depth::Events`](crate::schema::Depth::Events)).
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
