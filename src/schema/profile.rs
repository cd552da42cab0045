//! The one model of a stored profile, whatever its schema (1, 2 or 3) and layout (columnar,
//! aggregate): metadata, and per region the row of every rank — its calls, or where they lie
//! in the file and the fixed-size statistics stored for them. [`read`](super::read()) fills it
//! to a chosen [`Depth`]; the import rules ([`ProfileInput`](super::import::ProfileInput))
//! and the analysis (`crate::analysis`) both start from it.

use std::num::NonZeroU8;
use std::sync::Arc;

use super::metadata::Metadata;
use super::stats::Summary;

/// How a profile stores its calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProfileLayout {
    /// Schema 2/3 shared event columns.
    Columnar,
    /// Schema 2/3 aggregate-only rows (no events).
    Aggregate,
    /// Schema 1 per-rank groups.
    Legacy,
}

impl ProfileLayout {
    /// The name used in JSON output.
    pub fn name(self) -> &'static str {
        match self {
            ProfileLayout::Columnar => "columnar",
            ProfileLayout::Aggregate => "aggregate",
            ProfileLayout::Legacy => "legacy",
        }
    }
}

/// How much of a profile a read loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Depth {
    /// Schema, layout, metadata and the rank count; no regions.
    Metadata,
    /// Every row of `rank_region_index` with its [`Span`] and stored statistics, read from
    /// `region_table`, `rank_region_index` and `metadata` alone: the event columns are never
    /// touched, so a profile of any size opens in a few reads. Schema 1 files, which have no
    /// index, are read whole.
    Index,
    /// Everything, every row's calls included (`read_h5`).
    Events,
    /// What an import streams from: every row with its [`Span`] (no stored statistics),
    /// the event columns checked as [`Depth::Events`] checks them but not read. Schema 1
    /// files are read whole.
    Spans,
}

/// Where a row's calls lie in the shared `/events` columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    pub offset: u64,
    pub count: u64,
}

/// Fixed-size statistics of one (rank, region) row, as `summary_statistics` and the
/// aggregate layout store them (or as computed from the row's calls). The members a
/// layout may not store ([`first`](Self::first), [`last`](Self::last),
/// [`start_minimum`](Self::start_minimum), [`end_maximum`](Self::end_maximum),
/// [`mean`](Self::mean), [`m2`](Self::m2)) are `None` when it does not.
#[derive(Clone, PartialEq, Default)]
pub struct RowStatistics {
    pub count: u64,
    pub total: i64,
    pub minimum: i64,
    pub maximum: i64,
    pub gpu_count: u64,
    pub gpu_total: i64,
    /// Stored exclusive total, or the total when none was stored.
    pub exclusive: i64,
    /// The members a layout may not store (set with `with_first` and the like).
    pub optional: Optional,
}

/// The six members of [`RowStatistics`] a layout may not store, as plain values and one
/// byte saying which are stored: as six `Option`s they took 96 bytes, and an index of
/// 100,000 ranks holds a million rows, each written once and walked once per statistic
/// pass. A member not stored holds 0, so equal statistics compare equal.
#[derive(Clone, Copy, PartialEq)]
pub struct Optional {
    first: i64,
    last: i64,
    start_minimum: i64,
    end_maximum: i64,
    mean: f64,
    m2: f64,
    /// One bit per stored member, and [`Optional::NONE`]'s bit always, so that
    /// `Option<RowStatistics>` takes no room for its tag.
    stored: NonZeroU8,
}

impl Optional {
    /// Nothing stored.
    const NONE: NonZeroU8 = NonZeroU8::MAX;
    const FIRST: u8 = 1;
    const LAST: u8 = 2;
    const START_MINIMUM: u8 = 4;
    const END_MAXIMUM: u8 = 8;
    const MEAN: u8 = 16;
    const M2: u8 = 32;

    fn get<T>(&self, bit: u8, value: T) -> Option<T> {
        (self.stored.get() & bit == 0).then_some(value)
    }

    /// Whether `value` is stored (its bit cleared), and the value to keep for it.
    fn store<T: Default>(&mut self, bit: u8, value: Option<T>) -> T {
        let stored = match value.is_some() {
            true => self.stored.get() & !bit,
            false => self.stored.get() | bit,
        };
        self.stored = NonZeroU8::new(stored).unwrap_or(Optional::NONE);
        value.unwrap_or_default()
    }
}

impl Default for Optional {
    fn default() -> Optional {
        Optional {
            first: 0,
            last: 0,
            start_minimum: 0,
            end_maximum: 0,
            mean: 0.0,
            m2: 0.0,
            stored: Optional::NONE,
        }
    }
}

impl RowStatistics {
    /// The statistics of a row's `count` calls summarised as `summary`, with the exclusive
    /// total the row stores, if any (as `summary_statistics` rows get it).
    pub fn computed(count: u64, summary: &Summary, exclusive: Option<i64>) -> RowStatistics {
        RowStatistics {
            count,
            total: summary.total,
            minimum: summary.minimum,
            maximum: summary.maximum,
            gpu_count: summary.gpu_count,
            gpu_total: summary.gpu_total,
            exclusive: exclusive.unwrap_or(summary.total),
            optional: Optional::default(),
        }
        .with_first(Some(summary.first))
        .with_last(Some(summary.last))
        .with_start_minimum(Some(summary.start_minimum))
        .with_end_maximum(Some(summary.end_maximum))
        .with_mean(Some(summary.mean))
        .with_m2(Some(summary.m2))
    }

    /// Duration of the row's first call (ns).
    pub fn first(&self) -> Option<i64> {
        self.optional.get(Optional::FIRST, self.optional.first)
    }

    /// Duration of the row's last call (ns).
    pub fn last(&self) -> Option<i64> {
        self.optional.get(Optional::LAST, self.optional.last)
    }

    /// Earliest start (ns).
    pub fn start_minimum(&self) -> Option<i64> {
        (self.optional).get(Optional::START_MINIMUM, self.optional.start_minimum)
    }

    /// Latest end (ns).
    pub fn end_maximum(&self) -> Option<i64> {
        (self.optional).get(Optional::END_MAXIMUM, self.optional.end_maximum)
    }

    /// Mean duration (ns).
    pub fn mean(&self) -> Option<f64> {
        self.optional.get(Optional::MEAN, self.optional.mean)
    }

    /// Sum of squared deviations from the mean (ns²).
    pub fn m2(&self) -> Option<f64> {
        self.optional.get(Optional::M2, self.optional.m2)
    }

    /// With [`first`](Self::first) set to `value`.
    pub fn with_first(mut self, value: Option<i64>) -> RowStatistics {
        self.optional.first = self.optional.store(Optional::FIRST, value);
        self
    }

    /// With [`last`](Self::last) set to `value`.
    pub fn with_last(mut self, value: Option<i64>) -> RowStatistics {
        self.optional.last = self.optional.store(Optional::LAST, value);
        self
    }

    /// With [`start_minimum`](Self::start_minimum) set to `value`.
    pub fn with_start_minimum(mut self, value: Option<i64>) -> RowStatistics {
        self.optional.start_minimum = self.optional.store(Optional::START_MINIMUM, value);
        self
    }

    /// With [`end_maximum`](Self::end_maximum) set to `value`.
    pub fn with_end_maximum(mut self, value: Option<i64>) -> RowStatistics {
        self.optional.end_maximum = self.optional.store(Optional::END_MAXIMUM, value);
        self
    }

    /// With [`mean`](Self::mean) set to `value`.
    pub fn with_mean(mut self, value: Option<f64>) -> RowStatistics {
        self.optional.mean = self.optional.store(Optional::MEAN, value);
        self
    }

    /// With [`m2`](Self::m2) set to `value`.
    pub fn with_m2(mut self, value: Option<f64>) -> RowStatistics {
        self.optional.m2 = self.optional.store(Optional::M2, value);
        self
    }
}

impl std::fmt::Debug for RowStatistics {
    /// As the members read, in the order the layouts store them.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowStatistics")
            .field("count", &self.count)
            .field("total", &self.total)
            .field("minimum", &self.minimum)
            .field("maximum", &self.maximum)
            .field("first", &self.first())
            .field("last", &self.last())
            .field("start_minimum", &self.start_minimum())
            .field("end_maximum", &self.end_maximum())
            .field("gpu_count", &self.gpu_count)
            .field("gpu_total", &self.gpu_total)
            .field("mean", &self.mean())
            .field("m2", &self.m2())
            .field("exclusive", &self.exclusive)
            .finish()
    }
}

/// A row's loaded calls, parallel vectors in stored order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Calls {
    /// Start times, ns, in stored order (empty when the calls were not loaded).
    pub starts: Vec<i64>,
    /// End times, ns, parallel to `starts`.
    pub ends: Vec<i64>,
    /// GPU durations (ns, −1 = none) when the row has any GPU timing.
    pub gpu: Option<Vec<i64>>,
    /// Lane of every call (see the reference's `lane_ids`) when threads were tracked.
    pub lanes: Option<Vec<i64>>,
}

/// No calls: what an index row's [`LoadedCalls`] reads as.
static NO_CALLS: Calls = Calls {
    starts: Vec::new(),
    ends: Vec::new(),
    gpu: None,
    lanes: None,
};

/// A row's [`Calls`] in a box allocated when they are first written, so a row read
/// without its calls (an index of 100,000 ranks holds a million) carries one pointer
/// instead of four empty vectors (96 bytes): the rows were 344 bytes, and writing and
/// walking them was most of `sp tui`'s first screen. Unallocated, it reads as no calls
/// and compares equal to empty calls.
#[derive(Clone, Default)]
pub struct LoadedCalls(Option<Box<Calls>>);

impl LoadedCalls {
    /// `calls`, in a box unless there are none.
    pub fn new(calls: Calls) -> LoadedCalls {
        LoadedCalls((calls != NO_CALLS).then(|| Box::new(calls)))
    }
}

impl std::ops::Deref for LoadedCalls {
    type Target = Calls;

    fn deref(&self) -> &Calls {
        self.0.as_deref().unwrap_or(&NO_CALLS)
    }
}

impl std::ops::DerefMut for LoadedCalls {
    fn deref_mut(&mut self) -> &mut Calls {
        self.0.get_or_insert_with(Box::default)
    }
}

impl PartialEq for LoadedCalls {
    fn eq(&self, other: &LoadedCalls) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for LoadedCalls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

impl From<Calls> for LoadedCalls {
    fn from(calls: Calls) -> LoadedCalls {
        LoadedCalls::new(calls)
    }
}

/// One region's row on one rank. Its calls are read through it (`row.starts`, as
/// [`Deref`](std::ops::Deref) to [`Calls`]): moving them out of the row left the ~200
/// places that read them as they were.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RankCalls {
    pub rank: u32,
    /// The calls, when loaded (see [`LoadedCalls`]).
    pub calls: LoadedCalls,
    /// The source file, shared by every row that names the same one: an index of 100,000
    /// ranks holds a million rows and a few distinct files.
    pub source_file: Option<Arc<str>>,
    pub source_line: Option<i64>,
    /// The source text, shared as `source_file` is.
    pub source_text: Option<Arc<str>>,
    /// Statistics of the calls, for rows whose calls are not loaded: stored
    /// (`summary_statistics`, aggregate columns) or computed from the events.
    pub statistics: Option<RowStatistics>,
    /// Exclusive total (ns) the writer stored for the row, if any.
    pub exclusive_total: Option<i64>,
    /// Where the row's calls lie in `/events` (schema 2/3 columnar rows).
    pub span: Option<Span>,
}

impl std::ops::Deref for RankCalls {
    type Target = Calls;

    fn deref(&self) -> &Calls {
        &self.calls
    }
}

impl std::ops::DerefMut for RankCalls {
    fn deref_mut(&mut self) -> &mut Calls {
        &mut self.calls
    }
}

impl RankCalls {
    /// Number of calls.
    pub fn calls(&self) -> u64 {
        match &self.statistics {
            Some(s) => s.count,
            None => self.starts.len() as u64,
        }
    }

    /// Durations in ns (`end − start`, wrapping as numpy does) of the loaded calls.
    pub fn durations_ns(&self) -> impl Iterator<Item = i64> + '_ {
        self.starts
            .iter()
            .zip(&self.ends)
            .map(|(s, e)| e.wrapping_sub(*s))
    }
}

/// One region: its name and its rows, in the file's row order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Region {
    pub name: String,
    pub ranks: Vec<RankCalls>,
}

impl Region {
    /// The row of `rank`, if the region has one. Rows are stored by rank (the reader keeps
    /// one row per rank), so a binary search finds it; only rows out of rank order, or a
    /// rank the region lacks, cost a linear search. Asked once per rank, a linear search
    /// alone is quadratic at 100,000 ranks.
    pub fn rank(&self, rank: u32) -> Option<&RankCalls> {
        let first = self.ranks.partition_point(|r| r.rank < rank);
        match self.ranks.get(first) {
            Some(row) if row.rank == rank => Some(row),
            _ => self.ranks.iter().find(|r| r.rank == rank),
        }
    }
}

/// A stored profile, read to some [`Depth`].
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    /// `scope_profiler_schema` (1 when absent).
    pub schema: i64,
    pub layout: ProfileLayout,
    /// The attributes of `/metadata`, by name.
    pub metadata: Metadata,
    /// The reference's `num_ranks`: `max(mpi_size, highest rank + 1)` when there are rows
    /// (schema 2/3), else the number of rank groups (schema 1).
    pub num_ranks: u64,
    /// Every name of the region table (schema 2/3, regions without rows too), or every
    /// region name in order of first appearance (schema 1). Empty at [`Depth::Metadata`].
    pub region_names: Vec<String>,
    /// Regions that have rows, in region-table order (schema 1: first appearance over the
    /// ranks ascending).
    pub regions: Vec<Region>,
    /// What was read.
    pub depth: Depth,
    /// Whether `rank_region_index` stores `summary_statistics` (the analysis's fast path).
    pub summary_statistics: bool,
}

impl Profile {
    /// Whether every row's calls are loaded.
    pub fn has_events(&self) -> bool {
        self.depth == Depth::Events
    }

    /// Region by name.
    pub fn region(&self, name: &str) -> Option<&Region> {
        self.regions.iter().find(|r| r.name == name)
    }

    /// Metadata value by name.
    pub fn meta(&self, name: &str) -> Option<&super::MetaValue> {
        self.metadata.get(name)
    }

    /// Calls the profile holds, read to any depth: each row's span count where the index
    /// was read, else its loaded calls. The front ends decide from it whether a call tree
    /// is small enough to read whole.
    pub fn call_count(&self) -> u64 {
        self.regions
            .iter()
            .flat_map(|r| &r.ranks)
            .map(|r| r.span.map_or_else(|| r.calls(), |s| s.count))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_members_read_as_set_and_unset_ones_compare_equal() {
        let none = RowStatistics::default();
        assert_eq!(
            (
                none.first(),
                none.last(),
                none.start_minimum(),
                none.end_maximum()
            ),
            (None, None, None, None)
        );
        assert_eq!((none.mean(), none.m2()), (None, None));
        let s = none
            .clone()
            .with_first(Some(-3))
            .with_last(Some(i64::MIN))
            .with_start_minimum(Some(0))
            .with_end_maximum(Some(i64::MAX))
            .with_mean(Some(0.5))
            .with_m2(Some(f64::INFINITY));
        assert_eq!(
            (s.first(), s.last(), s.start_minimum(), s.end_maximum()),
            (Some(-3), Some(i64::MIN), Some(0), Some(i64::MAX))
        );
        assert_eq!((s.mean(), s.m2()), (Some(0.5), Some(f64::INFINITY)));
        let unset = (s.clone())
            .with_first(None)
            .with_last(None)
            .with_start_minimum(None)
            .with_end_maximum(None)
            .with_mean(None)
            .with_m2(None);
        assert_eq!(unset, none);
        assert_ne!(none.clone().with_first(Some(0)), none);
        assert_eq!(format!("{s:?}").matches("Some(").count(), 6);
    }

    /// A million index rows at 100,000 ranks: each byte of a row is a megabyte.
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn an_index_row_stays_small() {
        assert_eq!(size_of::<Option<RowStatistics>>(), 112);
        assert_eq!(size_of::<RankCalls>(), 216);
    }
}
