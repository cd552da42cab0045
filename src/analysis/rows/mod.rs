//! The region statistics of `scope-profiler inspect`, computed as its `summary.region_rows`
//! computes them: one row per call path (children under their parent, recursion collapsed
//! into one pooled row), falling back to one flat row per region when the calls do not
//! nest or were not loaded. Every float is produced by the same operations in the same
//! order as the reference, so the values are equal, not merely close.

mod call_order;
mod flat;
mod flat_jobs;
mod order;
mod parent_rows;
mod path_stats;
mod rank_path;
mod tree;
mod tree_jobs;
mod tree_rows;
mod tree_walk;

use crate::sort::SortSlice;
use std::collections::{HashMap, HashSet};

use super::error::Result;
use super::progress::{Meter, Progress, CALL_BYTES};
use super::selection::Selection;
use crate::schema::{Profile, Region};
use flat::{exclusive_totals, region_row};
use tree::{build_paths, path_row, PathCall};

pub use flat_jobs::{flat_rows, FlatJobs, FlatRow};
pub use order::sort_rows;
pub use rank_path::RankTree;
pub use tree_jobs::TreeJobs;
pub use tree_rows::{tree_rows, TreePaths, TreeRows};

/// What `% session` is computed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PercentageMode {
    Coverage,
    Exclusive,
}

impl PercentageMode {
    /// Both modes with their names (`--percentage-mode`).
    pub const ALL: [(PercentageMode, &'static str); 2] = [
        (PercentageMode::Coverage, "coverage"),
        (PercentageMode::Exclusive, "exclusive"),
    ];
}

/// The name of the region whose total is 100 % of `% session`.
pub const SESSION: &str = "scope_profiler.session";

/// `100 · value / denominator`, when both are known and the denominator is positive.
pub fn percent_of(value: Option<f64>, denominator: Option<f64>) -> Option<f64> {
    let d = denominator.filter(|&d| d > 0.0)?;
    Some(100.0 * value? / d)
}

/// The total of the [`SESSION`] row, the base of `% session`, if the rows have one.
pub fn session_total(rows: &[RegionRow]) -> Option<f64> {
    rows.iter()
        .find(|r| r.name == SESSION)
        .and_then(|r| r.total)
}

/// Row order (`--sort`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    Start,
    Total,
    Calls,
    Avg,
    Min,
    Max,
    First,
    Last,
    Std,
    P50,
    P95,
    P99,
    Imbalance,
    Name,
}

impl SortKey {
    /// Whether rows are ordered by a statistic of their calls' distribution
    /// ([`RowOptions::distribution`]).
    pub fn needs_distribution(self) -> bool {
        use SortKey::*;
        matches!(self, Avg | Min | Max | Std | P50 | P95 | P99)
    }

    /// Every key with its command-line name.
    pub const ALL: [(SortKey, &'static str); 14] = [
        (SortKey::Start, "start"),
        (SortKey::Total, "total"),
        (SortKey::Calls, "calls"),
        (SortKey::Avg, "avg"),
        (SortKey::Min, "min"),
        (SortKey::Max, "max"),
        (SortKey::First, "first"),
        (SortKey::Last, "last"),
        (SortKey::Std, "std"),
        (SortKey::P50, "p50"),
        (SortKey::P95, "p95"),
        (SortKey::P99, "p99"),
        (SortKey::Imbalance, "imbalance"),
        (SortKey::Name, "name"),
    ];
}

/// One row of the region table. Durations in seconds; `None` where the reference has
/// `None` (no calls on the selected ranks, or a statistic the stored data cannot give).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RegionRow {
    pub name: String,
    /// The call path (outermost first), for rows of the call tree; `None` for flat rows.
    pub call_path: Option<Vec<String>>,
    pub depth: usize,
    /// The row pools a region that calls itself.
    pub recursive: bool,
    pub num_ranks: usize,
    pub calls: u64,
    pub total: Option<f64>,
    /// Wall-clock time covered by the calls, overlapping calls counted once.
    pub coverage: Option<f64>,
    /// Exclusive time (own time, children excluded).
    pub exclusive: Option<f64>,
    pub avg: Option<f64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub first: Option<f64>,
    pub last: Option<f64>,
    pub std: Option<f64>,
    pub p50: Option<f64>,
    pub p95: Option<f64>,
    pub p99: Option<f64>,
    /// Slowest rank's total over the mean rank total, minus one, in percent.
    pub imbalance: Option<f64>,
    pub gpu_total: Option<f64>,
    pub gpu_avg: Option<f64>,
    /// Earliest start (seconds from the time origin for tree rows; absolute for flat rows;
    /// infinite for a region with no calls).
    pub start: f64,
    /// Coverage of the parent path's row, if it is in the table.
    pub parent_coverage: Option<f64>,
}

impl RegionRow {
    /// `% session` of the row: its coverage, or in exclusive mode its exclusive time (the
    /// session row itself keeps its total, so it stays at 100 %), over `session`.
    pub fn percent(&self, mode: PercentageMode, session: Option<f64>) -> Option<f64> {
        let value = if mode == PercentageMode::Exclusive && self.name == SESSION {
            self.total
        } else if mode == PercentageMode::Exclusive {
            self.exclusive
        } else {
            self.coverage
        };
        percent_of(value, session)
    }

    /// The value `--sort` orders by (`None` sorts last).
    pub fn sort_value(&self, key: SortKey) -> Option<f64> {
        match key {
            SortKey::Start => Some(self.start),
            SortKey::Total => self.total,
            SortKey::Calls => Some(self.calls as f64),
            SortKey::Avg => self.avg,
            SortKey::Min => self.min,
            SortKey::Max => self.max,
            SortKey::First => self.first,
            SortKey::Last => self.last,
            SortKey::Std => self.std,
            SortKey::P50 => self.p50,
            SortKey::P95 => self.p95,
            SortKey::P99 => self.p99,
            SortKey::Imbalance => self.imbalance,
            SortKey::Name => None,
        }
    }
}

/// `ProfilingResults.get_regions`: selected regions ordered by earliest start.
pub fn selected_regions<'p>(profile: &'p Profile, sel: &Selection) -> Vec<&'p Region> {
    selected_indices(profile, sel)
        .into_iter()
        .map(|i| &profile.regions[i])
        .collect()
}

/// The positions in `profile.regions` of [`selected_regions`], in its order.
fn selected_indices(profile: &Profile, sel: &Selection) -> Vec<usize> {
    let regions = &profile.regions;
    let mut selected: Vec<usize> = (0..regions.len())
        .filter(|&i| sel.keeps(&regions[i].name))
        .collect();
    // Each key once: a key walks every row of its region.
    let keys: Vec<f64> = regions.iter().map(|r| r.sort_key()).collect();
    selected.sort_stable_by(|&a, &b| keys[a].total_cmp(&keys[b]));
    selected
}

/// How [`region_rows`] orders and computes the rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowOptions {
    /// Row order (`--sort`).
    pub sort: SortKey,
    /// What `% session` is computed from (`--percentage-mode`); exclusive time also fills
    /// the flat rows' `exclusive`.
    pub mode: PercentageMode,
    /// One flat row per region even when the calls are loaded (`--flat`): no call tree.
    pub flat: bool,
    /// Each row's average, extremes, standard deviation and percentiles, as the reference
    /// gives them. [`TreeJobs`] must keep every call's duration for these; without them
    /// they are `None` there, and the jobs keep only counts and sums (other rows always
    /// have them).
    pub distribution: bool,
}

impl Default for RowOptions {
    /// The reference's defaults: start order, coverage, the call tree when calls are loaded.
    fn default() -> Self {
        RowOptions {
            sort: SortKey::Start,
            mode: PercentageMode::Coverage,
            flat: false,
            distribution: true,
        }
    }
}

/// The ranks below `num_ranks` that have rows, ascending.
pub fn present_ranks(profile: &Profile) -> Vec<u32> {
    let mut present: Vec<u32> = profile
        .regions
        .iter()
        .flat_map(|r| r.ranks.iter().map(|x| x.rank))
        .filter(|&r| u64::from(r) < profile.num_ranks)
        .collect();
    present.sort_ord_unstable();
    present.dedup();
    present
}

/// The statistics rows, as `summary.region_rows(results, include, exclude, ranks, sort,
/// percentage_mode)` returns them: the call tree when the profile's calls are loaded (and
/// `options.flat` is not set), else one flat row per region from the stored statistics.
/// For a profile read to its index, [`FlatJobs`] and [`TreeJobs`] give the same rows
/// reading the calls row by row, in bounded memory and on as many threads as the caller
/// runs.
pub fn region_rows(profile: &Profile, sel: &Selection, options: RowOptions) -> Vec<RegionRow> {
    // With no progress to cancel it, it runs to the end.
    let rows = rows_metered(profile, sel, options, &mut Meter::new(None, 0)).unwrap_or_default();
    sort_rows(rows, options.sort)
}

/// [`region_rows`] for a front end that runs it beside its interface: it counts the
/// work [`rows_to_compute`] announces into `progress` as it goes, and stops on its cancel
/// within a block of 4,096 calls (flat rows: between regions) with
/// [`Error::Cancelled`](super::Error::Cancelled), never a half table.
pub fn region_rows_with(
    profile: &Profile,
    sel: &Selection,
    options: RowOptions,
    progress: &Progress,
) -> Result<Vec<RegionRow>> {
    let rows = unsorted_rows_with(profile, sel, options, progress)?;
    Ok(sort_rows(rows, options.sort))
}

/// [`region_rows_with`] before [`sort_rows`] puts them in `options.sort` order (which is
/// all that `options.sort` changes): the call tree's rows in the order their paths were
/// first met, then the flat rows of the regions no path has, in region order. A front end
/// that keeps them shows another order at once, without walking the calls again:
/// `sort_rows(rows, key)` is [`region_rows`] with `sort: key` (equal keys keep this order,
/// so the order sorted from must be this one).
pub fn unsorted_rows_with(
    profile: &Profile,
    sel: &Selection,
    options: RowOptions,
    progress: &Progress,
) -> Result<Vec<RegionRow>> {
    let mut meter = Meter::new(Some(progress), rows_to_compute(profile, sel, options));
    let rows = rows_metered(profile, sel, options, &mut meter)?;
    meter.finish();
    Ok(rows)
}

/// The work [`region_rows_with`] counts: [`CALL_BYTES`] for each call of the selected
/// regions on the ranks the call tree walks, once when it is nested and once when it is
/// pooled into its row; for flat rows, which read no call, [`CALL_BYTES`] for each index
/// row (a region's row of one rank) of the selected regions, which they walk once. So a
/// front end can tell beforehand whether the rows are quick to compute: at 100,000 ranks
/// the flat rows walk a million index rows.
pub fn rows_to_compute(profile: &Profile, sel: &Selection, options: RowOptions) -> u64 {
    if !profile.has_events() || options.flat {
        let rows: u64 = (profile.regions.iter())
            .filter(|r| sel.keeps(&r.name))
            .map(|r| r.ranks.len() as u64)
            .fold(0, u64::saturating_add);
        return rows.saturating_mul(CALL_BYTES);
    }
    let mut ranks = sel.ranks.clone();
    if let Some(r) = ranks.as_mut() {
        r.sort_ord_unstable();
    }
    let walked = |rank: u32| match &ranks {
        Some(r) => r.binary_search(&rank).is_ok(),
        None => u64::from(rank) < profile.num_ranks,
    };
    let calls: u64 = (profile.regions.iter())
        .filter(|r| sel.keeps(&r.name))
        .flat_map(|r| r.ranks.iter())
        .filter(|row| walked(row.rank))
        .map(|row| row.calls())
        .fold(0, u64::saturating_add);
    calls.saturating_mul(2 * CALL_BYTES)
}

/// [`unsorted_rows_with`], counting into `meter` and stopping on its cancel.
fn rows_metered(
    profile: &Profile,
    sel: &Selection,
    options: RowOptions,
    meter: &mut Meter<'_>,
) -> Result<Vec<RegionRow>> {
    let RowOptions { mode, flat, .. } = options;
    let tree = profile.has_events() && !flat;
    if !tree {
        return flat_region_rows(profile, sel, mode, meter);
    }
    let regions = selected_regions(profile, sel);
    // Ranks without calls add no call paths: walk only the ranks that have some (for the
    // call tree; flat rows walk each region's rows).
    let all_ranks: Vec<u32> = match &sel.ranks {
        _ if !tree => Vec::new(),
        Some(r) => r.clone(),
        None => present_ranks(profile),
    };
    let ranks_opt = sel.ranks.as_deref();

    // Call paths, in first-seen order.
    let mut paths: Vec<(Vec<usize>, Vec<PathCall>, bool)> = Vec::new();
    let mut path_index: HashMap<Vec<usize>, usize> = HashMap::new();
    let origin = profile.time_origin();
    let tree_ok = tree
        && build_paths(
            profile,
            &regions,
            &all_ranks,
            sel.filtered(),
            origin,
            &mut paths,
            &mut path_index,
            meter,
        )?;
    if !tree_ok {
        paths.clear();
    }
    let mut rows: Vec<RegionRow> = Vec::with_capacity(paths.len());
    for (path, calls, recursive) in &paths {
        meter.check()?;
        rows.push(path_row(profile, &regions, path, calls, *recursive));
        meter.calls(calls.len() as u64);
    }
    let mut exclusive = None;
    let names: Vec<&str> = regions.iter().map(|r| r.name.as_str()).collect();
    Ok(table_rows(rows, &names, |i| {
        let totals = exclusive.get_or_insert_with(|| match mode {
            PercentageMode::Exclusive if tree => {
                Some(exclusive_totals(profile, &present_ranks(profile)))
            }
            PercentageMode::Exclusive => Some(Ok(HashMap::new())),
            PercentageMode::Coverage => None,
        });
        flat_row(regions[i], ranks_opt, totals.as_ref())
    }))
}

/// [`region_rows`] without a call tree: each selected region's flat row and sort key from
/// one walk of its rows (at 100,000 ranks a walk of a region is tens of megabytes), in
/// [`selected_regions`]' order (unsorted, as [`unsorted_rows_with`] gives them).
/// Counts each region's index rows into `meter` as it walks them, and stops on its cancel
/// between regions.
fn flat_region_rows(
    profile: &Profile,
    sel: &Selection,
    mode: PercentageMode,
    meter: &mut Meter<'_>,
) -> Result<Vec<RegionRow>> {
    let exclusive = match mode {
        PercentageMode::Exclusive => Some(Ok(HashMap::new())),
        PercentageMode::Coverage => None,
    };
    let ranks = sel.ranks.as_deref();
    let mut keyed: Vec<(&str, Option<RegionRow>, f64)> = Vec::new();
    for region in profile.regions.iter().filter(|r| sel.keeps(&r.name)) {
        meter.check()?;
        let (row, key) = flat_row_keyed(region, ranks, exclusive.as_ref());
        keyed.push((region.name.as_str(), Some(row), key));
        meter.calls(region.ranks.len() as u64);
    }
    meter.check()?;
    keyed.sort_stable_by(|a, b| a.2.total_cmp(&b.2));
    let names: Vec<&str> = keyed.iter().map(|k| k.0).collect();
    Ok(table_rows(Vec::new(), &names, |i| {
        keyed[i].1.take().unwrap_or_default()
    }))
}

/// The flat row of `region` as the table shows it when the region has no call path.
fn flat_row(
    region: &Region,
    ranks: Option<&[u32]>,
    exclusive: Option<&Result<flat::ExclusiveTotals, super::calltree::Nesting>>,
) -> RegionRow {
    flat_row_keyed(region, ranks, exclusive).0
}

/// [`flat_row`] with the region's [`sort_key`](Region::sort_key), which over every rank
/// comes from the same walk of its rows.
fn flat_row_keyed(
    region: &Region,
    ranks: Option<&[u32]>,
    exclusive: Option<&Result<flat::ExclusiveTotals, super::calltree::Nesting>>,
) -> (RegionRow, f64) {
    let (mut row, start, key) = region_row(region, ranks, exclusive);
    row.depth = 0;
    row.recursive = false;
    // Over every rank the earliest start of the rows with calls is the region's: no second
    // walk of its rows (100,000 at 100,000 ranks).
    row.start = match (ranks, start) {
        (None, Some(start)) => start,
        (None, None) => f64::INFINITY,
        (Some(_), _) if region.has_timing() => region.first_start_s(),
        (Some(_), _) => f64::INFINITY,
    };
    (row, key.unwrap_or_else(|| region.sort_key()))
}

/// The table from the call tree's rows and the flat rows (`flat(i)`) of the selected
/// regions named `regions`, in region order, for names no row has yet: each row's parent
/// coverage filled in, in `sort` order.
fn finish_rows(
    rows: Vec<RegionRow>,
    regions: &[&str],
    sort: SortKey,
    flat: impl FnMut(usize) -> RegionRow,
) -> Vec<RegionRow> {
    sort_rows(table_rows(rows, regions, flat), sort)
}

/// [`finish_rows`] before the sort.
fn table_rows(
    mut rows: Vec<RegionRow>,
    regions: &[&str],
    mut flat: impl FnMut(usize) -> RegionRow,
) -> Vec<RegionRow> {
    let mut names: HashSet<String> = rows.iter().map(|r| r.name.clone()).collect();
    for (i, name) in regions.iter().enumerate() {
        if names.insert(name.to_string()) {
            rows.push(flat(i));
        }
    }
    let coverage_by_path: HashMap<Vec<String>, Option<f64>> = rows
        .iter()
        .filter_map(|r| Some((r.call_path.clone()?, r.coverage)))
        .collect();
    for row in &mut rows {
        row.parent_coverage = row.call_path.as_ref().and_then(|p| {
            let parent = &p[..p.len().saturating_sub(1)];
            coverage_by_path.get(parent).copied().flatten()
        });
    }
    rows
}

/// The flat row of `region` on each of its ranks (calls, total, avg, min, max), as
/// `sp inspect --flat --ranks R` computes it: the region detail of `sp tui` and the page.
pub fn rank_rows(profile: &Profile, region: &Region) -> Vec<(u32, RegionRow)> {
    region
        .ranks
        .iter()
        .map(|calls| {
            let one = Profile {
                regions: vec![Region {
                    name: region.name.clone(),
                    ranks: vec![calls.clone()],
                }],
                metadata: Default::default(),
                region_names: vec![region.name.clone()],
                ..profile_shell(profile)
            };
            let row = region_rows(
                &one,
                &Selection::all(),
                RowOptions {
                    flat: true,
                    distribution: true,
                    ..RowOptions::default()
                },
            )
            .into_iter()
            .next()
            .unwrap_or_default();
            (calls.rank, row)
        })
        .collect()
}

/// `profile` without its regions and metadata (cheap to copy).
fn profile_shell(profile: &Profile) -> Profile {
    Profile {
        schema: profile.schema,
        layout: profile.layout,
        metadata: Default::default(),
        num_ranks: profile.num_ranks,
        region_names: Vec::new(),
        regions: Vec::new(),
        depth: profile.depth,
        summary_statistics: profile.summary_statistics,
    }
}

#[cfg(test)]
mod tests {
    use super::tree_jobs::synthetic::{profile, region};
    use super::*;
    use crate::analysis::{load, Error};
    use crate::hdf5lite::reader::File;

    /// Two ranks of one outer call holding 10,000 inner calls: three blocks a rank.
    fn nested() -> Profile {
        let inner: Vec<(i64, i64)> = (0..10_000).map(|i| (10 * i + 1, 10 * i + 5)).collect();
        let rank = vec![region("outer", &[(0, 100_001)]), region("inner", &inner)];
        let bytes = profile(&[rank.clone(), rank]);
        load::read_full(&File::open(&bytes[..]).unwrap()).unwrap()
    }

    #[test]
    fn rows_counted_into_a_progress_are_the_rows_and_reach_its_total() {
        let p = nested();
        let all = Selection::all();
        let rank_1 = Selection::new(None, None, Some(vec![1])).unwrap();
        let exclusive = RowOptions {
            sort: SortKey::Total,
            mode: PercentageMode::Exclusive,
            ..RowOptions::default()
        };
        let flat = RowOptions {
            flat: true,
            ..RowOptions::default()
        };
        let outer = Selection::new(Some(&["^outer$".to_string()]), None, None).unwrap();
        // Each call nested, then pooled into its row; for flat rows each index row once
        // (2 regions × 2 ranks; with a rank selection too, as each region's rows are walked).
        for (sel, options, units) in [
            (&all, RowOptions::default(), 2 * 2 * 10_001),
            (&all, exclusive, 2 * 2 * 10_001),
            (&rank_1, RowOptions::default(), 2 * 10_001),
            (&all, flat, 4),
            (&rank_1, flat, 4),
            (&outer, flat, 2),
        ] {
            let work = rows_to_compute(&p, sel, options);
            assert_eq!(work, units * CALL_BYTES, "{options:?}");
            let progress = Progress::default();
            progress.add_total(work);
            let rows = region_rows_with(&p, sel, options, &progress).unwrap();
            assert_eq!(rows, region_rows(&p, sel, options), "{options:?}");
            assert_eq!(progress.done(), work, "{options:?}");
        }
    }

    #[test]
    fn cancelled_rows_are_an_error_not_a_half_table() {
        let p = nested();
        let progress = Progress::default();
        progress.cancel();
        for flat in [false, true] {
            let options = RowOptions {
                flat,
                ..RowOptions::default()
            };
            let rows = region_rows_with(&p, &Selection::all(), options, &progress);
            assert!(matches!(rows, Err(Error::Cancelled)), "{rows:?}");
            assert_eq!(progress.done(), 0);
        }
    }
}
