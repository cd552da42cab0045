//! The region statistics of `scope-profiler inspect`, computed as its `summary.region_rows`
//! computes them: one row per call path (children under their parent, recursion collapsed
//! into one pooled row), falling back to one flat row per region when the calls do not
//! nest or were not loaded. Every float is produced by the same operations in the same
//! order as the reference, so the values are equal, not merely close.

use std::collections::HashMap;

use super::calltree;
use super::numeric::{self, seconds};
use super::profile::{Profile, RankCalls, Region};

/// Which regions and ranks to summarize.
pub struct Selection<'a> {
    /// Whether a region name is kept (the `--include`/`--exclude` patterns).
    pub keep: &'a dyn Fn(&str) -> bool,
    /// Whether any include/exclude pattern was given.
    pub filtered: bool,
    /// Ranks to pool, ascending and unique; `None` for all.
    pub ranks: Option<Vec<u32>>,
}

impl Selection<'_> {
    /// Every region, every rank.
    pub fn all() -> Selection<'static> {
        Selection {
            keep: &|_| true,
            filtered: false,
            ranks: None,
        }
    }
}

/// What `% session` is computed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PercentageMode {
    Coverage,
    Exclusive,
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
pub struct Row {
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

impl Row {
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
pub fn selected_regions<'p>(profile: &'p Profile, sel: &Selection<'_>) -> Vec<&'p Region> {
    let mut regions: Vec<&Region> = profile
        .regions
        .iter()
        .filter(|r| (sel.keep)(&r.name))
        .collect();
    regions.sort_by(|a, b| a.sort_key().total_cmp(&b.sort_key()));
    regions
}

fn per_rank<'r>(region: &'r Region, ranks: Option<&[u32]>) -> Vec<&'r RankCalls> {
    match ranks {
        None => region.ranks.iter().collect(),
        Some(list) => list.iter().filter_map(|&r| region.rank(r)).collect(),
    }
}

fn imbalance_of(totals: &[f64]) -> f64 {
    let kept: Vec<f64> = totals.iter().copied().filter(|&t| t > 0.0).collect();
    if kept.len() < 2 {
        return 0.0;
    }
    let max = kept.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let ratio = numeric::mean(&kept).map_or(0.0, |mean| max / mean);
    if ratio != 0.0 {
        (ratio - 1.0) * 100.0
    } else {
        0.0
    }
}

fn py_sum(values: impl IntoIterator<Item = f64>) -> f64 {
    // Python's sum() of floats: left to right from the integer 0.
    let mut it = values.into_iter();
    let Some(first) = it.next() else {
        return 0.0;
    };
    it.fold(first, |acc, v| acc + v)
}

fn row_durations(row: &RankCalls) -> Vec<f64> {
    row.durations_ns().map(seconds).collect()
}

fn first_duration(row: &RankCalls) -> f64 {
    match &row.stored {
        Some(s) => seconds(s.first.unwrap_or(0)),
        None => row.durations_ns().next().map_or(0.0, seconds),
    }
}

fn last_duration(row: &RankCalls) -> f64 {
    match &row.stored {
        Some(s) => seconds(s.last.unwrap_or(0)),
        None => row.durations_ns().last().map_or(0.0, seconds),
    }
}

fn gpu_total_s(row: &RankCalls) -> f64 {
    match &row.stored {
        Some(s) => seconds(s.gpu_total),
        None => {
            let total = row
                .gpu
                .iter()
                .flatten()
                .fold(0i64, |acc, &v| acc.wrapping_add(v));
            seconds(total)
        }
    }
}

fn gpu_count(row: &RankCalls) -> u64 {
    match &row.stored {
        Some(s) => s.gpu_count,
        None => row.gpu.as_ref().map_or(0, |g| g.len() as u64),
    }
}

/// Wall-clock coverage of a region's rows (`_covered_duration`).
fn covered(rows: &[&RankCalls]) -> Option<f64> {
    let mut total = 0.0;
    let mut found = false;
    for row in rows {
        if row.calls() == 0 {
            continue;
        }
        found = true;
        if row.starts.is_empty() {
            total += row.total_s();
            continue;
        }
        let mut intervals: Vec<(f64, f64)> = row
            .starts
            .iter()
            .zip(&row.ends)
            .map(|(&s, &e)| (seconds(s), seconds(e)))
            .collect();
        total += merged_length(&mut intervals);
    }
    found.then_some(total)
}

fn merged_length(intervals: &mut [(f64, f64)]) -> f64 {
    intervals.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let Some(&(mut start, mut end)) = intervals.first() else {
        return 0.0;
    };
    let mut total = 0.0;
    for &(ns, ne) in &intervals[1..] {
        if ns <= end {
            end = end.max(ne);
        } else {
            total += end - start;
            start = ns;
            end = ne;
        }
    }
    total + (end - start)
}

/// Exclusive seconds of one row: the stored total, else the reconstructed one.
type ExclusiveTotals = HashMap<(String, u32), i64>;

/// The flat statistics of one region (`summary.region_row`).
fn region_row(
    region: &Region,
    ranks: Option<&[u32]>,
    exclusive: Option<&Result<ExclusiveTotals, calltree::Nesting>>,
) -> Row {
    let rows = per_rank(region, ranks);
    let gpu_rows: Vec<&&RankCalls> = rows.iter().filter(|r| r.has_gpu()).collect();
    let gpu_total = py_sum(gpu_rows.iter().map(|r| gpu_total_s(r)));
    let gpu_n: u64 = gpu_rows.iter().map(|r| gpu_count(r)).sum();
    let (gpu_total, gpu_avg) = if gpu_n > 0 {
        (Some(gpu_total), Some(gpu_total / gpu_n as f64))
    } else {
        (None, None)
    };
    let durations: Vec<f64> = rows.iter().flat_map(|r| row_durations(r)).collect();
    let timed: Vec<&&RankCalls> = rows.iter().filter(|r| r.calls() > 0).collect();
    let mut first = timed
        .iter()
        .copied()
        .reduce(|a, b| {
            if b.first_start_s() < a.first_start_s() {
                b
            } else {
                a
            }
        })
        .map(|r| first_duration(r));
    let mut last = timed
        .iter()
        .copied()
        .reduce(|a, b| {
            if b.last_end_s() > a.last_end_s() {
                b
            } else {
                a
            }
        })
        .map(|r| last_duration(r));
    let calls: u64 = rows.iter().map(|r| r.calls()).sum();
    let coverage = covered(&rows);
    let exclusive = exclusive.map(|totals| {
        let per = |r: &RankCalls| -> f64 {
            if let Some(s) = &r.stored {
                return seconds(s.exclusive);
            }
            match totals {
                Err(_) => r.total_s(),
                Ok(_) if r.calls() == 0 => 0.0,
                Ok(_) if r.exclusive_total.is_some() => seconds(r.exclusive_total.unwrap_or(0)),
                Ok(map) => seconds(
                    map.get(&(region.name.clone(), r.rank))
                        .copied()
                        .unwrap_or(0),
                ),
            }
        };
        py_sum(rows.iter().map(|r| per(r)))
    });
    let all_totals: Vec<f64> = match ranks {
        None => region.ranks.iter().map(RankCalls::total_s).collect(),
        Some(_) => rows.iter().map(|r| r.total_s()).collect(),
    };
    let imbalance = Some(imbalance_of(&all_totals));
    let base = Row {
        name: region.name.clone(),
        num_ranks: rows.len(),
        calls,
        coverage,
        exclusive,
        gpu_total,
        gpu_avg,
        imbalance,
        ..Row::default()
    };
    if durations.is_empty() && calls > 0 {
        let total = py_sum(rows.iter().map(|r| r.total_s()));
        let stored: Vec<&crate::analysis::profile::Stored> = rows
            .iter()
            .filter(|r| r.calls() > 0)
            .filter_map(|r| r.stored.as_ref())
            .collect();
        let minimum = timed
            .iter()
            .map(|r| r.stored.as_ref().map_or(0.0, |s| seconds(s.minimum)))
            .fold(f64::INFINITY, f64::min);
        let maximum = timed
            .iter()
            .map(|r| r.stored.as_ref().map_or(0.0, |s| seconds(s.maximum)))
            .fold(f64::NEG_INFINITY, f64::max);
        first = stored
            .iter()
            .filter(|s| s.first.is_some() && s.start_minimum.is_some())
            .copied()
            .reduce(|a, b| {
                if b.start_minimum < a.start_minimum {
                    b
                } else {
                    a
                }
            })
            .map(|s| s.first.unwrap_or(0) as f64 / 1e9);
        last = stored
            .iter()
            .filter(|s| s.last.is_some() && s.end_maximum.is_some())
            .copied()
            .reduce(|a, b| if b.end_maximum > a.end_maximum { b } else { a })
            .map(|s| s.last.unwrap_or(0) as f64 / 1e9);
        let std = if stored.is_empty() || stored.iter().any(|s| s.mean.is_none() || s.m2.is_none())
        {
            None
        } else {
            let count: u64 = stored.iter().map(|s| s.count).sum();
            if count == 0 {
                None
            } else {
                let mean = py_sum(
                    stored
                        .iter()
                        .map(|s| s.count as f64 * s.mean.unwrap_or(0.0)),
                ) / count as f64;
                let m2 = py_sum(stored.iter().map(|s| {
                    let d = s.mean.unwrap_or(0.0) - mean;
                    s.m2.unwrap_or(0.0) + s.count as f64 * (d * d)
                }));
                Some((m2.max(0.0) / count as f64).sqrt() / 1e9)
            }
        };
        return Row {
            total: Some(total),
            avg: Some(total / calls as f64),
            min: Some(minimum),
            max: Some(maximum),
            first,
            last,
            std,
            ..base
        };
    }
    let mut sorted = durations.clone();
    sorted.sort_by(f64::total_cmp);
    let nonempty = !durations.is_empty();
    Row {
        total: nonempty.then(|| numeric::sum(&durations)),
        avg: numeric::mean(&durations),
        min: sorted.first().copied(),
        max: sorted.last().copied(),
        first,
        last,
        std: numeric::std(&durations),
        p50: numeric::percentile_sorted(&sorted, 50.0),
        p95: numeric::percentile_sorted(&sorted, 95.0),
        p99: numeric::percentile_sorted(&sorted, 99.0),
        ..base
    }
}

/// Exclusive ns of every (region, rank) from the full call tree of each rank.
fn exclusive_totals(
    profile: &Profile,
    ranks: &[u32],
) -> Result<ExclusiveTotals, calltree::Nesting> {
    let all: Vec<&Region> = selected_regions(profile, &Selection::all());
    let mut out = HashMap::new();
    for &rank in ranks {
        let calls = calltree::build(&all, rank)?;
        for c in calls {
            let e = out
                .entry((all[c.region].name.clone(), rank))
                .or_insert(0i64);
            *e = e.wrapping_add(c.exclusive_ns);
        }
    }
    Ok(out)
}

struct PathCall {
    rank: u32,
    region: usize,
    call_index: usize,
    start: f64,
    end: f64,
    duration: f64,
    exclusive: f64,
    nested_in_itself: bool,
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
/// percentage_mode)` returns them.
pub fn region_rows(
    profile: &Profile,
    sel: &Selection<'_>,
    sort: SortKey,
    mode: PercentageMode,
) -> Vec<Row> {
    let regions = selected_regions(profile, sel);
    // Ranks without calls add no call paths: walk only the ranks that have some.
    let all_ranks: Vec<u32> = match &sel.ranks {
        Some(r) => r.clone(),
        None => present_ranks(profile),
    };
    let ranks_opt = sel.ranks.as_deref();
    let exclusive = if mode == PercentageMode::Exclusive && profile.events {
        Some(exclusive_totals(profile, &present_ranks(profile)))
    } else if mode == PercentageMode::Exclusive {
        Some(Ok(HashMap::new()))
    } else {
        None
    };
    let flat: Vec<Row> = regions
        .iter()
        .map(|r| region_row(r, ranks_opt, exclusive.as_ref()))
        .collect();

    // Call paths, in first-seen order.
    let mut paths: Vec<(Vec<usize>, Vec<PathCall>, bool)> = Vec::new();
    let mut path_index: HashMap<Vec<usize>, usize> = HashMap::new();
    let origin = profile.time_origin();
    let tree_ok = profile.events
        && build_paths(
            profile,
            &regions,
            &all_ranks,
            sel.filtered,
            origin,
            &mut paths,
            &mut path_index,
        );
    if !tree_ok {
        paths.clear();
    }

    let mut rows: Vec<Row> = Vec::new();
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

#[allow(clippy::too_many_arguments)]
fn build_paths(
    profile: &Profile,
    regions: &[&Region],
    ranks: &[u32],
    filtered: bool,
    origin: f64,
    paths: &mut Vec<(Vec<usize>, Vec<PathCall>, bool)>,
    index: &mut HashMap<Vec<usize>, usize>,
) -> bool {
    let everything = if filtered {
        Some(selected_regions(profile, &Selection::all()))
    } else {
        None
    };
    for &rank in ranks {
        let Ok(calls) = calltree::build(regions, rank) else {
            return false;
        };
        let mut exclusive_override: Option<HashMap<(String, i64, i64), i64>> = None;
        if let Some(all) = &everything {
            let Ok(full) = calltree::build(all, rank) else {
                return false;
            };
            exclusive_override = Some(
                full.iter()
                    .map(|c| {
                        (
                            (all[c.region].name.clone(), c.start_ns, c.end_ns),
                            c.exclusive_ns,
                        )
                    })
                    .collect(),
            );
        }
        // Each call's collapsed path (runs of one name merged), as its entry in `paths`: a
        // call nested in its own region shares its parent's entry, so deep recursion costs
        // no more than flat calls.
        let name_of = |i: usize| regions[i].name.as_str();
        let mut entry_of: Vec<usize> = Vec::with_capacity(calls.len());
        for c in &calls {
            let nested_in_itself = c
                .parent
                .is_some_and(|p| name_of(calls[p].region) == name_of(c.region));
            let parent_entry = c.parent.and_then(|p| entry_of.get(p).copied());
            let entry = match parent_entry {
                Some(e) if nested_in_itself => e,
                _ => {
                    let mut collapsed = parent_entry.map_or_else(Vec::new, |e| paths[e].0.clone());
                    collapsed.push(c.region);
                    *index.entry(collapsed.clone()).or_insert_with(|| {
                        paths.push((collapsed, Vec::new(), false));
                        paths.len() - 1
                    })
                }
            };
            entry_of.push(entry);
            let exclusive_ns = match &exclusive_override {
                Some(map) => map
                    .get(&(regions[c.region].name.clone(), c.start_ns, c.end_ns))
                    .copied()
                    .unwrap_or(c.exclusive_ns),
                None => c.exclusive_ns,
            };
            let slot = &mut paths[entry];
            slot.1.push(PathCall {
                rank,
                region: c.region,
                call_index: c.call_index,
                start: seconds(c.start_ns) - origin,
                end: seconds(c.end_ns) - origin,
                duration: seconds(c.end_ns.wrapping_sub(c.start_ns)),
                exclusive: seconds(exclusive_ns),
                nested_in_itself,
            });
            slot.2 |= nested_in_itself;
        }
    }
    true
}

fn path_row(
    _profile: &Profile,
    regions: &[&Region],
    path: &[usize],
    calls: &[PathCall],
    recursive: bool,
) -> Row {
    let durations: Vec<f64> = calls.iter().map(|c| c.duration).collect();
    let mut gpu = Vec::new();
    for c in calls {
        if let Some(row) = regions[c.region].rank(c.rank) {
            if row.has_gpu() {
                if let Some(&v) = row.gpu.as_ref().and_then(|g| g.get(c.call_index)) {
                    gpu.push(seconds(v));
                }
            }
        }
    }
    let mut by_rank: Vec<(u32, Vec<&PathCall>)> = Vec::new();
    for c in calls {
        match by_rank.iter_mut().find(|(r, _)| *r == c.rank) {
            Some((_, v)) => v.push(c),
            None => by_rank.push((c.rank, vec![c])),
        }
    }
    let mut coverage = 0.0;
    for (_, rank_calls) in &by_rank {
        let mut intervals: Vec<(f64, f64)> = rank_calls.iter().map(|c| (c.start, c.end)).collect();
        coverage += merged_length(&mut intervals);
    }
    let totals: Vec<f64> = by_rank
        .iter()
        .map(|(_, rc)| {
            py_sum(
                rc.iter()
                    .filter(|c| !recursive || !c.nested_in_itself)
                    .map(|c| c.duration),
            )
        })
        .collect();
    let imbalance = if totals.len() < 2 {
        0.0
    } else {
        let max = totals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (max / numeric::mean(&totals).unwrap_or(f64::NAN) - 1.0) * 100.0
    };
    let mut sorted = durations.clone();
    sorted.sort_by(f64::total_cmp);
    let first = calls
        .iter()
        .reduce(|a, b| if b.start < a.start { b } else { a })
        .map(|c| c.duration);
    let last = calls
        .iter()
        .reduce(|a, b| if b.end > a.end { b } else { a })
        .map(|c| c.duration);
    let names: Vec<String> = path.iter().map(|&i| regions[i].name.clone()).collect();
    Row {
        name: names.last().cloned().unwrap_or_default(),
        depth: names.len().saturating_sub(1),
        call_path: Some(names),
        recursive,
        num_ranks: by_rank.len(),
        calls: calls.len() as u64,
        total: Some(py_sum(totals.iter().copied())),
        gpu_total: (!gpu.is_empty()).then(|| py_sum(gpu.iter().copied())),
        gpu_avg: numeric::mean(&gpu),
        coverage: Some(coverage),
        exclusive: Some(py_sum(calls.iter().map(|c| c.exclusive))),
        avg: numeric::mean(&durations),
        min: sorted.first().copied(),
        max: sorted.last().copied(),
        first,
        last,
        std: numeric::std(&durations),
        p50: numeric::percentile_sorted(&sorted, 50.0),
        p95: numeric::percentile_sorted(&sorted, 95.0),
        p99: numeric::percentile_sorted(&sorted, 99.0),
        imbalance: Some(imbalance),
        start: calls.iter().map(|c| c.start).fold(f64::INFINITY, f64::min),
        parent_coverage: None,
    }
}

fn sort_rows(mut rows: Vec<Row>, sort: SortKey) -> Vec<Row> {
    if sort != SortKey::Start {
        rows.sort_by(|a, b| a.name.cmp(&b.name));
        if sort != SortKey::Name {
            rows.sort_by(|a, b| {
                let ka = a.sort_value(sort);
                let kb = b.sort_value(sort);
                let key = |k: Option<f64>| (k.is_some(), k.unwrap_or(0.0));
                let (pa, va) = key(ka);
                let (pb, vb) = key(kb);
                pb.cmp(&pa).then(vb.total_cmp(&va))
            });
        }
        return rows;
    }
    let path_rows: Vec<usize> = (0..rows.len())
        .filter(|&i| rows[i].call_path.is_some())
        .collect();
    let by_path: HashMap<Vec<String>, usize> = path_rows
        .iter()
        .filter_map(|&i| Some((rows[i].call_path.clone()?, i)))
        .collect();
    let mut children: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut roots = Vec::new();
    for &i in &path_rows {
        let p = rows[i].call_path.as_deref().unwrap_or(&[]);
        let parent = by_path.get(&p[..p.len().saturating_sub(1)]).copied();
        match parent {
            Some(parent) if p.len() > 1 => children.entry(parent).or_default().push(i),
            _ => roots.push(i),
        }
    }
    fn subtree(
        i: usize,
        rows: &[Row],
        children: &HashMap<usize, Vec<usize>>,
        out: &mut Vec<usize>,
    ) {
        out.push(i);
        if let Some(kids) = children.get(&i) {
            let mut kids = kids.clone();
            kids.sort_by(|a, b| rows[*a].start.total_cmp(&rows[*b].start));
            for k in kids {
                subtree(k, rows, children, out);
            }
        }
    }
    let mut blocks: Vec<(f64, usize, Vec<usize>)> = Vec::new();
    for (n, &root) in roots.iter().enumerate() {
        let mut out = Vec::new();
        subtree(root, &rows, &children, &mut out);
        blocks.push((rows[root].start, n, out));
    }
    let root_count = blocks.len();
    for (n, i) in (0..rows.len())
        .filter(|&i| rows[i].call_path.is_none())
        .enumerate()
    {
        blocks.push((rows[i].start, root_count + n, vec![i]));
    }
    blocks.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut slots: Vec<Option<Row>> = rows.into_iter().map(Some).collect();
    blocks
        .into_iter()
        .flat_map(|(_, _, idx)| idx)
        .filter_map(|i| slots.get_mut(i).and_then(Option::take))
        .collect()
}
