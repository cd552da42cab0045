//! The region statistics of `scope-profiler inspect`, computed as its `summary.region_rows`
//! computes them: one row per call path (children under their parent, recursion collapsed
//! into one pooled row), falling back to one flat row per region when the calls do not
//! nest or were not loaded. Every float is produced by the same operations in the same
//! order as the reference, so the values are equal, not merely close.

mod flat;
mod order;
mod tree;

use std::collections::HashMap;

use super::selection::Selection;
use crate::schema::{Profile, Region};
use flat::{exclusive_totals, region_row};
use order::sort_rows;
use tree::{build_paths, path_row, PathCall};

/// What `% session` is computed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PercentageMode {
    Coverage,
    Exclusive,
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
    let mut regions: Vec<&Region> = profile
        .regions
        .iter()
        .filter(|r| sel.keeps(&r.name))
        .collect();
    regions.sort_by(|a, b| a.sort_key().total_cmp(&b.sort_key()));
    regions
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
}

impl Default for RowOptions {
    /// The reference's defaults: start order, coverage, the call tree when calls are loaded.
    fn default() -> Self {
        RowOptions {
            sort: SortKey::Start,
            mode: PercentageMode::Coverage,
            flat: false,
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
    present.sort_unstable();
    present.dedup();
    present
}

/// The statistics rows, as `summary.region_rows(results, include, exclude, ranks, sort,
/// percentage_mode)` returns them: the call tree when the profile's calls are loaded (and
/// `options.flat` is not set), else one flat row per region from the stored statistics.
pub fn region_rows(profile: &Profile, sel: &Selection, options: RowOptions) -> Vec<RegionRow> {
    let RowOptions { sort, mode, flat } = options;
    let tree = profile.has_events() && !flat;
    let regions = selected_regions(profile, sel);
    // Ranks without calls add no call paths: walk only the ranks that have some.
    let all_ranks: Vec<u32> = match &sel.ranks {
        Some(r) => r.clone(),
        None => present_ranks(profile),
    };
    let ranks_opt = sel.ranks.as_deref();
    let exclusive = if mode == PercentageMode::Exclusive && tree {
        Some(exclusive_totals(profile, &present_ranks(profile)))
    } else if mode == PercentageMode::Exclusive {
        Some(Ok(HashMap::new()))
    } else {
        None
    };
    let flat: Vec<RegionRow> = regions
        .iter()
        .map(|r| region_row(r, ranks_opt, exclusive.as_ref()))
        .collect();

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
        );
    if !tree_ok {
        paths.clear();
    }

    let mut rows: Vec<RegionRow> = Vec::new();
    for (path, calls, recursive) in &paths {
        rows.push(path_row(profile, &regions, path, calls, *recursive));
    }
    let tree_names: std::collections::HashSet<&str> = paths
        .iter()
        .filter_map(|(p, _, _)| p.last().map(|&i| regions[i].name.as_str()))
        .collect();
    for (region, row) in regions.iter().zip(&flat) {
        if tree_names.contains(region.name.as_str()) || rows.iter().any(|r| r.name == row.name) {
            continue;
        }
        let mut fallback = row.clone();
        fallback.depth = 0;
        fallback.recursive = false;
        fallback.start = if region.has_timing() {
            region.first_start_s()
        } else {
            f64::INFINITY
        };
        rows.push(fallback);
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
    sort_rows(rows, sort)
}
