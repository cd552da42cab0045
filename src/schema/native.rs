//! The merge rules of `import-native` (SCHEMA.md §2.8, §5.4, §5.5): ranks from many inputs
//! become one [`MergedProfile`] with the reference's row order, region ids and metadata.

use crate::sort::SortSlice;
use std::cmp::Reverse;
use std::collections::{btree_map, BTreeMap, BinaryHeap, HashMap};
use std::iter::Peekable;

use super::error::Error;
use super::import::ProfileInput;
use super::merged::{MergedProfile, ProfileRow};
use super::metadata::{MetaValue, Metadata};
use crate::trace::RegionView;

/// `trace_format_version` the reference always records.
pub const TRACE_FORMAT_VERSION: i64 = 2;

/// The calls and source location of one region on one rank, as an input provides them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RegionCalls {
    pub name: String,
    pub source_file: Option<String>,
    pub source_line: Option<i64>,
    pub source_text: Option<String>,
    pub starts: Vec<i64>,
    pub ends: Vec<i64>,
}

impl From<&RegionView<'_>> for RegionCalls {
    /// A trace region's calls and raw source location (a trace has no source text).
    fn from(r: &RegionView<'_>) -> Self {
        RegionCalls {
            name: r.name.to_owned(),
            source_file: r.source_file.map(str::to_owned),
            source_line: r.source_line.map(i64::from),
            source_text: None,
            starts: r.starts.to_vec(),
            ends: r.ends.to_vec(),
        }
    }
}

/// What the merge rules need of one region on one rank. Implemented by [`RegionCalls`]
/// (calls in memory) and by records that only summarise calls streamed from a file.
pub trait RegionRecord {
    fn name(&self) -> &str;
    /// Number of calls.
    fn call_count(&self) -> u64;
    /// The first start in stored order (for `start_time_ns`).
    fn first_start(&self) -> Option<i64>;
    /// The smallest start (for the region order).
    fn min_start(&self) -> Option<i64>;
    /// Source file, line and text as the input gives them, moved out when the merged row
    /// is made (the row keeps them; a copy per row cost 100,000 ranks dearly).
    fn take_source(&mut self) -> (Option<String>, Option<i64>, Option<String>);
    /// Checks the record is consistent before it is merged.
    fn check(&self) -> Result<(), Error> {
        Ok(())
    }
}

impl RegionRecord for RegionCalls {
    fn name(&self) -> &str {
        &self.name
    }

    fn call_count(&self) -> u64 {
        self.starts.len() as u64
    }

    fn first_start(&self) -> Option<i64> {
        self.starts.first().copied()
    }

    fn min_start(&self) -> Option<i64> {
        self.starts.iter().min().copied()
    }

    fn take_source(&mut self) -> (Option<String>, Option<i64>, Option<String>) {
        (
            self.source_file.take(),
            self.source_line,
            self.source_text.take(),
        )
    }

    fn check(&self) -> Result<(), Error> {
        if self.starts.len() != self.ends.len() {
            return Err(Error::MismatchedCalls {
                region: self.name.clone(),
                starts: self.starts.len(),
                ends: self.ends.len(),
            });
        }
        Ok(())
    }
}

/// The sort key of a region on one rank: its earliest start in float seconds, 0.0 without
/// calls.
fn first_start_seconds<R: RegionRecord>(record: &R) -> f64 {
    match record.min_start() {
        Some(min) => min as f64 / 1e9,
        None => 0.0,
    }
}

/// One region with its calls per rank.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RegionRanks<R = RegionCalls> {
    pub name: String,
    pub ranks: BTreeMap<u32, R>,
}

impl<R: RegionRecord> RegionRanks<R> {
    /// The sort key: the earliest start over the region's ranks, in float seconds.
    fn key(&self) -> f64 {
        self.ranks
            .values()
            .map(first_start_seconds)
            .fold(f64::INFINITY, f64::min)
    }
}

/// The ranks of `regions` ascending, each with its regions in the order given: how
/// `import-native` iterates a multi-rank input.
pub fn into_ranks<R>(regions: Vec<RegionRanks<R>>) -> Vec<(u32, Vec<R>)> {
    let mut out: BTreeMap<u32, Vec<R>> = BTreeMap::new();
    for region in regions {
        for (rank, calls) in region.ranks {
            out.entry(rank).or_default().push(calls);
        }
    }
    out.into_iter().collect()
}

/// Stably sorts regions by their earliest start, as `ProfilingResults.get_regions` does.
pub fn sort_regions<R: RegionRecord>(regions: &mut [RegionRanks<R>]) {
    regions.sort_stable_by(|a, b| a.key().total_cmp(&b.key()));
}

/// Collects ranks input by input (in sorted path order) and produces the merged profile.
#[derive(Debug)]
pub struct Merger<R = RegionCalls> {
    /// Rank → the input that claimed it.
    claimed: BTreeMap<u32, String>,
    /// Regions in order of first appearance.
    regions: Vec<RegionRanks<R>>,
    index: HashMap<String, usize>,
    /// Metadata of the `.h5` input holding the lowest rank, with that rank.
    inherited: Option<(u32, Metadata)>,
    earliest_start: Option<i64>,
}

impl<R> Default for Merger<R> {
    fn default() -> Self {
        Merger {
            claimed: BTreeMap::new(),
            regions: Vec::new(),
            index: HashMap::new(),
            inherited: None,
            earliest_start: None,
        }
    }
}

/// One merged row: its place in the file order and the record it comes from, with the
/// source location already normalised (line and text only with a file).
#[derive(Debug, Clone, PartialEq)]
pub struct MergedRow<R> {
    pub rank: u32,
    pub region_id: u32,
    pub source_file: String,
    pub source_line: i64,
    pub source_text: String,
    pub record: R,
}

/// The merge result before any calls are touched: metadata, region names and rows in file
/// order, each with its record.
#[derive(Debug, Clone, PartialEq)]
pub struct Merged<R> {
    pub metadata: Metadata,
    pub region_names: Vec<String>,
    pub rows: Vec<MergedRow<R>>,
}

impl<R: RegionRecord> Merger<R> {
    /// Adds one rank read from `origin` (an input path, used in errors). `metadata` is the
    /// input file's own metadata (`.h5` inputs only). Ranks of one multi-rank input must be
    /// added in ascending order, as the reference iterates them.
    pub fn add_rank(
        &mut self,
        origin: &str,
        rank: i64,
        regions: Vec<R>,
        metadata: Option<&Metadata>,
    ) -> Result<(), Error> {
        // Ranks past `MAX_RANKS` would make a profile the reader refuses as damaged.
        let rank = u32::try_from(rank)
            .ok()
            .filter(|&r| u64::from(r) < super::MAX_RANKS)
            .ok_or_else(|| Error::RankOutOfRange {
                rank,
                origin: origin.to_owned(),
            })?;
        if let Some(earlier) = self.claimed.get(&rank) {
            return Err(Error::DuplicateRank {
                rank,
                earlier: earlier.clone(),
                later: origin.to_owned(),
            });
        }
        for region in &regions {
            region.check()?;
        }
        self.claimed.insert(rank, origin.to_owned());
        if let Some(meta) = metadata.filter(|m| !m.is_empty()) {
            if self.inherited.as_ref().is_none_or(|(r, _)| rank < *r) {
                self.inherited = Some((rank, meta.clone()));
            }
        }
        for region in regions {
            if let Some(first) = region.first_start() {
                self.earliest_start = Some(self.earliest_start.map_or(first, |e| e.min(first)));
            }
            let slot = match self.index.get(region.name()) {
                Some(&i) => i,
                None => {
                    self.index
                        .insert(region.name().to_owned(), self.regions.len());
                    self.regions.push(RegionRanks {
                        name: region.name().to_owned(),
                        ranks: BTreeMap::new(),
                    });
                    self.regions.len() - 1
                }
            };
            // A later record of a repeated name replaces the earlier one, as a dict would.
            self.regions[slot].ranks.insert(rank, region);
        }
        Ok(())
    }

    /// Number of ranks claimed so far.
    pub fn rank_count(&self) -> usize {
        self.claimed.len()
    }

    /// Region names in the order they were first seen: the order the region sort is
    /// stable over.
    pub fn region_order(&self) -> impl Iterator<Item = &str> {
        self.regions.iter().map(|r| r.name.as_str())
    }

    /// Takes `names` as seen before anything added after: each name not seen yet joins the
    /// order of first sight (without rows until a rank brings some). How the parts of a
    /// sharded run restore the order the whole run would have seen.
    pub fn register_regions<'n>(&mut self, names: impl IntoIterator<Item = &'n str>) {
        for name in names {
            if !self.index.contains_key(name) {
                self.index.insert(name.to_owned(), self.regions.len());
                self.regions.push(RegionRanks {
                    name: name.to_owned(),
                    ranks: BTreeMap::new(),
                });
            }
        }
    }

    /// The rank whose input's metadata the result inherits, if any.
    pub fn inherited_rank(&self) -> Option<u32> {
        self.inherited.as_ref().map(|(rank, _)| *rank)
    }

    /// The metadata import-native records: the inherited attributes, then `source`,
    /// `trace_format_version`, `start_time_ns` (when there are calls) and `label` (if given).
    fn native_metadata(&mut self, label: Option<&str>) -> Metadata {
        let mut metadata = self.inherited.take().map(|(_, m)| m).unwrap_or_default();
        metadata.insert("source".into(), MetaValue::Str("native".into()));
        metadata.insert(
            "trace_format_version".into(),
            MetaValue::Int(TRACE_FORMAT_VERSION),
        );
        if let Some(start) = self.earliest_start {
            metadata.insert("start_time_ns".into(), MetaValue::Int(start));
        }
        if let Some(label) = label {
            metadata.insert("label".into(), MetaValue::Str(label.to_owned()));
        }
        metadata
    }

    /// The merged rows in file order with ids and metadata. `label`, when given, is stored
    /// as the run label.
    pub fn finish_rows(self, label: Option<&str>) -> Merged<R> {
        let (metadata, regions) = self.finish_regions(label);
        emit(regions, metadata)
    }

    /// [`finish_rows`](Self::finish_rows) with the rows made as they are taken.
    pub fn finish_streamed(self, label: Option<&str>) -> (Metadata, MergedRows<R>) {
        let (metadata, regions) = self.finish_regions(label);
        (metadata, MergedRows::new(regions))
    }

    /// The metadata and the regions in global order.
    fn finish_regions(mut self, label: Option<&str>) -> (Metadata, Vec<RegionRanks<R>>) {
        let metadata = self.native_metadata(label);
        let mut regions = self.regions;
        sort_regions(&mut regions);
        (metadata, regions)
    }
}

impl Merger<RegionCalls> {
    /// A merger of regions held in memory (`Merger::default()` for other records).
    pub fn new() -> Self {
        Self::default()
    }

    /// The merged profile. `label`, when given, is stored as the run label.
    pub fn finish(self, label: Option<&str>) -> MergedProfile {
        into_profile(self.finish_rows(label))
    }

    /// `import-native --merge`: combines a stored profile with these native ranks (SCHEMA.md
    /// §5.7). Ranks line up by number; region names must not occur in both. The profile's
    /// metadata wins; `label` is set only when given.
    pub fn merge_into(
        self,
        profile: ProfileInput,
        label: Option<&str>,
    ) -> Result<MergedProfile, Error> {
        let likwid = profile.likwid;
        let merged = self.merge_rows(
            &profile.region_names,
            profile.regions,
            profile.metadata,
            label,
        )?;
        Ok(MergedProfile {
            likwid,
            ..into_profile(merged)
        })
    }
}

impl<R: RegionRecord> Merger<R> {
    /// [`merge_into`](Merger::merge_into) for any record: the rows of a stored profile
    /// (every name of its region table, its regions in its own order, its metadata) merged
    /// with these native ranks.
    pub fn merge_rows(
        self,
        names: &[String],
        regions: Vec<RegionRanks<R>>,
        metadata: Metadata,
        label: Option<&str>,
    ) -> Result<Merged<R>, Error> {
        let (metadata, regions) = self.merge_regions(names, regions, metadata, label)?;
        Ok(emit(regions, metadata))
    }

    /// [`merge_rows`](Self::merge_rows) with the rows made as they are taken.
    pub fn merge_streamed(
        self,
        names: &[String],
        regions: Vec<RegionRanks<R>>,
        metadata: Metadata,
        label: Option<&str>,
    ) -> Result<(Metadata, MergedRows<R>), Error> {
        let (metadata, regions) = self.merge_regions(names, regions, metadata, label)?;
        Ok((metadata, MergedRows::new(regions)))
    }

    /// The merged metadata and all regions in global order.
    fn merge_regions(
        mut self,
        names: &[String],
        regions: Vec<RegionRanks<R>>,
        mut metadata: Metadata,
        label: Option<&str>,
    ) -> Result<(Metadata, Vec<RegionRanks<R>>), Error> {
        if let Some(clash) = self.regions.iter().find(|r| names.contains(&r.name)) {
            return Err(Error::RegionClash(clash.name.clone()));
        }
        for (key, value) in self.native_metadata(None) {
            metadata.entry(key).or_insert(value);
        }
        if let Some(label) = label {
            metadata.insert("label".into(), MetaValue::Str(label.to_owned()));
        }
        let mut natives = self.regions;
        sort_regions(&mut natives);
        let mut all = regions;
        all.extend(natives);
        sort_regions(&mut all);
        Ok((metadata, all))
    }
}

fn into_profile(merged: Merged<RegionCalls>) -> MergedProfile {
    MergedProfile {
        metadata: merged.metadata,
        region_names: merged.region_names,
        rows: merged
            .rows
            .into_iter()
            .map(|r| ProfileRow {
                rank: r.rank,
                region_id: r.region_id,
                source_file: r.source_file,
                source_line: r.source_line,
                source_text: r.source_text,
                starts: r.record.starts,
                ends: r.record.ends,
            })
            .collect(),
        likwid: Default::default(),
    }
}

/// Rows for `regions` (already in global order), collected.
fn emit<R: RegionRecord>(regions: Vec<RegionRanks<R>>, metadata: Metadata) -> Merged<R> {
    let mut stream = MergedRows::new(regions);
    // Sized once: a doubling vector of 100,000 ranks' rows held up to twice their size.
    let mut rows = Vec::with_capacity(stream.remaining());
    rows.extend(stream.by_ref());
    Merged {
        metadata,
        region_names: stream.into_region_names(),
        rows,
    }
}

/// The merged rows in file order, made as they are taken: ranks ascending, and within a
/// rank the regions in global order; region ids on first appearance. The records move from
/// the regions into the rows one at a time, so a caller that keeps part of each row (the
/// conversion keeps its index entries and where its calls are) never holds them all twice.
#[derive(Debug)]
pub struct MergedRows<R> {
    ranks: Vec<Peekable<btree_map::IntoIter<u32, R>>>,
    /// The next (rank, region position) of each region with rows left.
    next: BinaryHeap<Reverse<(u32, usize)>>,
    ids: HashMap<String, u32>,
    region_names: Vec<String>,
}

impl<R: RegionRecord> MergedRows<R> {
    /// The rows of `regions`, already in global order.
    fn new(regions: Vec<RegionRanks<R>>) -> Self {
        let mut ranks: Vec<_> = regions
            .into_iter()
            .map(|r| r.ranks.into_iter().peekable())
            .collect();
        let next = ranks
            .iter_mut()
            .enumerate()
            .filter_map(|(i, it)| Some(Reverse((it.peek()?.0, i))))
            .collect();
        MergedRows {
            ranks,
            next,
            ids: HashMap::new(),
            region_names: Vec::new(),
        }
    }

    /// Rows not taken yet.
    pub fn remaining(&self) -> usize {
        self.ranks.iter().map(ExactSizeIterator::len).sum()
    }

    /// Region names by id: complete once every row is taken.
    pub fn into_region_names(self) -> Vec<String> {
        self.region_names
    }
}

impl<R: RegionRecord> Iterator for MergedRows<R> {
    type Item = MergedRow<R>;

    fn next(&mut self) -> Option<MergedRow<R>> {
        loop {
            let Reverse((_, i)) = self.next.pop()?;
            let Some(ranks) = self.ranks.get_mut(i) else {
                continue;
            };
            let Some((rank, region)) = ranks.next() else {
                continue;
            };
            if let Some((after, _)) = ranks.peek() {
                self.next.push(Reverse((*after, i)));
            }
            let next_id = self.region_names.len() as u32;
            let region_names = &mut self.region_names;
            let id = *self.ids.entry(region.name().to_owned()).or_insert_with(|| {
                region_names.push(region.name().to_owned());
                next_id
            });
            return Some(row(rank, id, region));
        }
    }
}

/// The row of `region` on `rank`: the line and text survive only with a source file.
fn row<R: RegionRecord>(rank: u32, region_id: u32, mut region: R) -> MergedRow<R> {
    let (source_file, source_line, source_text) = match region.take_source() {
        (Some(file), line, text) if !file.is_empty() => (
            file,
            line.filter(|l| *l >= 0).unwrap_or(-1),
            text.unwrap_or_default(),
        ),
        _ => (String::new(), -1, String::new()),
    };
    MergedRow {
        rank,
        region_id,
        source_file,
        source_line,
        source_text,
        record: region,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calls(name: &str, starts: &[i64], ends: &[i64]) -> RegionCalls {
        RegionCalls {
            name: name.into(),
            starts: starts.to_vec(),
            ends: ends.to_vec(),
            ..RegionCalls::default()
        }
    }

    /// SCHEMA.md §6.1: the golden synthetic run.
    #[test]
    fn golden_synthetic_order_ids_and_metadata() {
        let mut m = Merger::new();
        let mut solve = calls("solve", &[1000, 5000, 9000], &[1800, 5900, 9950]);
        solve.source_file = Some("solver.c".into());
        solve.source_line = Some(42);
        m.add_rank(
            "g_rank00000.spt",
            0,
            vec![
                solve,
                calls("assemble", &[200, 4100, 8200], &[900, 4900, 8800]),
                calls("idle", &[], &[]),
            ],
            None,
        )
        .unwrap();
        m.add_rank(
            "g_rank00001.spt",
            1,
            vec![
                calls("io", &[150], &[400]),
                calls("solve", &[1100, 1200], &[1900, 1300]),
            ],
            None,
        )
        .unwrap();
        let p = m.finish(Some("golden"));
        assert_eq!(p.region_names, ["idle", "assemble", "solve", "io"]);
        let ranks: Vec<u32> = p.rows.iter().map(|r| r.rank).collect();
        let ids: Vec<u32> = p.rows.iter().map(|r| r.region_id).collect();
        let lines: Vec<i64> = p.rows.iter().map(|r| r.source_line).collect();
        assert_eq!(ranks, [0, 0, 0, 1, 1]);
        assert_eq!(ids, [0, 1, 2, 3, 2]);
        assert_eq!(lines, [-1, -1, 42, -1, -1]);
        assert_eq!(p.rows[2].source_file, "solver.c");
        assert_eq!(p.metadata["start_time_ns"], MetaValue::Int(150));
        assert_eq!(p.metadata["label"], MetaValue::Str("golden".into()));
        assert_eq!(p.metadata["source"], MetaValue::Str("native".into()));
        assert_eq!(p.metadata["trace_format_version"], MetaValue::Int(2));
        assert_eq!(p.metadata.len(), 4);
    }

    /// SCHEMA.md §2.8: the `golden/mixed` example's order.
    #[test]
    fn mixed_example_order() {
        let mut m = Merger::new();
        m.add_rank(
            "r0",
            0,
            vec![calls("A", &[100], &[110]), calls("B", &[50], &[60])],
            None,
        )
        .unwrap();
        m.add_rank(
            "r1",
            1,
            vec![calls("C", &[10], &[20]), calls("A", &[200], &[210])],
            None,
        )
        .unwrap();
        m.add_rank(
            "r2",
            2,
            vec![
                calls("A", &[300], &[310]),
                calls("E", &[490_000_000_000], &[490_000_000_001]),
            ],
            None,
        )
        .unwrap();
        m.add_rank("r5", 5, vec![calls("D", &[1000], &[1001])], None)
            .unwrap();
        m.add_rank("r7", 7, vec![calls("H", &[5], &[6])], None)
            .unwrap();
        let p = m.finish(None);
        assert_eq!(p.region_names, ["B", "A", "C", "E", "D", "H"]);
        let ids: Vec<u32> = p.rows.iter().map(|r| r.region_id).collect();
        assert_eq!(ids, [0, 1, 2, 1, 1, 3, 4, 5]);
        assert_eq!(p.metadata["start_time_ns"], MetaValue::Int(5));
        assert!(!p.metadata.contains_key("label"));
    }

    #[test]
    fn duplicate_rank_names_both_inputs() {
        let mut m = Merger::new();
        m.add_rank("d/run_rank00000.spt", 0, vec![], None).unwrap();
        let err = m
            .add_rank("dup_rank00000.spt", 0, vec![], None)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "dup_rank00000.spt and d/run_rank00000.spt both claim rank 0; pass the MPI rank \
             to sp_init() so each rank writes its own"
        );
    }

    #[test]
    fn negative_rank_is_rejected() {
        let err = Merger::new()
            .add_rank("x.spt", -3, vec![], None)
            .unwrap_err();
        assert!(matches!(err, Error::RankOutOfRange { rank: -3, .. }));
    }

    /// Found by the trace_convert fuzzer: a trace of rank 150,994,950 converted into a
    /// profile that the reader then refused as damaged (more than `MAX_RANKS` ranks).
    #[test]
    fn ranks_the_reader_refuses_are_not_written() {
        let last = crate::schema::MAX_RANKS as i64 - 1;
        assert!(Merger::new().add_rank("x.spt", last, vec![], None).is_ok());
        let err = Merger::new()
            .add_rank("x.spt", 150_994_950, vec![], None)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "x.spt: rank 150994950 is outside 0..1048576 (sp reads at most that many ranks)"
        );
    }

    #[test]
    fn start_time_uses_first_stored_start_not_minimum() {
        let mut m = Merger::new();
        m.add_rank("a", 0, vec![calls("x", &[500, 100], &[600, 200])], None)
            .unwrap();
        let p = m.finish(None);
        assert_eq!(p.metadata["start_time_ns"], MetaValue::Int(500));
    }

    #[test]
    fn no_calls_means_no_start_time() {
        let mut m = Merger::new();
        m.add_rank("a", 0, vec![calls("x", &[], &[])], None)
            .unwrap();
        assert!(!m.finish(None).metadata.contains_key("start_time_ns"));
    }

    #[test]
    fn line_and_text_need_a_source_file() {
        let mut m = Merger::new();
        let mut no_file = calls("a", &[1], &[2]);
        no_file.source_line = Some(9);
        let mut negative_line = calls("b", &[3], &[4]);
        negative_line.source_file = Some("b.c".into());
        negative_line.source_line = Some(-7);
        m.add_rank("t", 0, vec![no_file, negative_line], None)
            .unwrap();
        let p = m.finish(None);
        assert_eq!(
            (p.rows[0].source_file.as_str(), p.rows[0].source_line),
            ("", -1)
        );
        assert_eq!(
            (p.rows[1].source_file.as_str(), p.rows[1].source_line),
            ("b.c", -1)
        );
    }

    #[test]
    fn metadata_comes_from_the_lowest_rank_input_and_is_overridden() {
        let meta = |host: &str| -> Metadata {
            [
                ("hostname".to_string(), MetaValue::Str(host.into())),
                ("label".to_string(), MetaValue::Str("profile".into())),
                ("mpi_rank".to_string(), MetaValue::Int(7)),
            ]
            .into_iter()
            .collect()
        };
        let mut m = Merger::new();
        m.add_rank("a.h5", 3, vec![], Some(&meta("high"))).unwrap();
        m.add_rank("b.h5", 2, vec![], Some(&meta("low"))).unwrap();
        m.add_rank("c.spt", 0, vec![], None).unwrap();
        let p = m.finish(Some("run"));
        assert_eq!(p.metadata["hostname"], MetaValue::Str("low".into()));
        assert_eq!(p.metadata["mpi_rank"], MetaValue::Int(7));
        assert_eq!(p.metadata["label"], MetaValue::Str("run".into()));
    }
}
