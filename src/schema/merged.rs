//! The merged profile `import-native` writes: region names, one row per (rank, region) with
//! its calls, and the run metadata: what a schema-3 file holds, before encoding.

use super::likwid::LikwidByRank;
use super::metadata::Metadata;

/// One (rank, region) row of `rank_region_index` with its calls in stored order.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileRow {
    pub rank: u32,
    /// Index into [`MergedProfile::region_names`].
    pub region_id: u32,
    /// Source path, `""` when unknown.
    pub source_file: String,
    /// Source line, `-1` when unknown.
    pub source_line: i64,
    /// Source text, `""` when unknown.
    pub source_text: String,
    pub starts: Vec<i64>,
    pub ends: Vec<i64>,
}

impl ProfileRow {
    /// Number of calls.
    pub fn call_count(&self) -> usize {
        self.starts.len()
    }
}

/// A whole columnar profile.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MergedProfile {
    pub metadata: Metadata,
    /// Region name of each region id.
    pub region_names: Vec<String>,
    /// Rows in file order: ranks ascending, regions in the global order within a rank.
    pub rows: Vec<ProfileRow>,
    /// LIKWID results carried over from a `--merge` profile, written as `rank<N>/likwid`.
    pub likwid: LikwidByRank,
}

impl MergedProfile {
    /// Total number of calls over all rows (the length of the event columns).
    pub fn event_count(&self) -> u64 {
        self.rows.iter().map(|r| r.call_count() as u64).sum()
    }

    /// Distinct ranks that have rows, ascending.
    pub fn ranks(&self) -> Vec<u32> {
        let mut ranks: Vec<u32> = self.rows.iter().map(|r| r.rank).collect();
        ranks.dedup();
        ranks
    }
}
