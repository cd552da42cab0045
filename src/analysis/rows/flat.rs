//! The flat row of one region (`summary.region_row`): its calls pooled over the selected
//! ranks, from the loaded calls or from the rows' stored statistics.

use crate::sort::SortSlice;
use std::cmp::Ordering;
use std::collections::HashMap;

use super::super::calltree;
use super::super::numeric::{self, seconds};
use super::super::quantiles::{self, Histogram};
use super::path_stats::Coverage;
use super::{selected_regions, RegionRow};
use crate::analysis::Selection;
use crate::schema::{Profile, RankCalls, Region, RowStatistics};

pub(super) fn per_rank<'r>(region: &'r Region, ranks: Option<&[u32]>) -> Vec<&'r RankCalls> {
    match ranks {
        None => region.ranks.iter().collect(),
        Some(list) => list.iter().filter_map(|&r| region.rank(r)).collect(),
    }
}

pub(super) fn imbalance_of(totals: &[f64]) -> f64 {
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

pub(super) fn py_sum(values: impl IntoIterator<Item = f64>) -> f64 {
    // Python's sum() of floats: left to right from the integer 0.
    let mut it = values.into_iter();
    let Some(first) = it.next() else {
        return 0.0;
    };
    it.fold(first, |acc, v| acc + v)
}

pub(super) fn first_duration(row: &RankCalls) -> f64 {
    match &row.statistics {
        Some(s) => seconds(s.first().unwrap_or(0)),
        None => row.durations_ns().next().map_or(0.0, seconds),
    }
}

pub(super) fn last_duration(row: &RankCalls) -> f64 {
    match &row.statistics {
        Some(s) => seconds(s.last().unwrap_or(0)),
        None => row.durations_ns().last().map_or(0.0, seconds),
    }
}

pub(super) fn gpu_total_s(row: &RankCalls) -> f64 {
    match &row.statistics {
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

pub(super) fn gpu_count(row: &RankCalls) -> u64 {
    match &row.statistics {
        Some(s) => s.gpu_count,
        None => row.gpu.as_ref().map_or(0, |g| g.len() as u64),
    }
}

/// Wall-clock coverage of one row with calls (`_covered_duration`'s term for it).
fn row_coverage(row: &RankCalls) -> f64 {
    if row.starts.is_empty() {
        return row.total_s();
    }
    if row.starts.is_sorted() {
        // Already in start order, which is all the sweep needs (intervals of equal
        // start may come in any order): merged as they come, with no copy.
        let mut sweep = Coverage::default();
        for (&s, &e) in row.starts.iter().zip(&row.ends) {
            sweep.add(seconds(s), seconds(e));
        }
        sweep.close();
        return sweep.length;
    }
    let mut intervals: Vec<(f64, f64)> = row
        .starts
        .iter()
        .zip(&row.ends)
        .map(|(&s, &e)| (seconds(s), seconds(e)))
        .collect();
    merged_length(&mut intervals)
}

pub(super) fn merged_length(intervals: &mut [(f64, f64)]) -> f64 {
    intervals.sort_stable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
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
pub(super) type ExclusiveTotals = HashMap<(String, u32), i64>;

/// Python's `sum()` of floats kept as they come: `None` until the first.
#[derive(Default)]
struct Sum(Option<f64>);

impl Sum {
    fn add(&mut self, v: f64) {
        self.0 = Some(self.0.map_or(v, |acc| acc + v));
    }

    fn value(&self) -> f64 {
        self.0.unwrap_or(0.0)
    }
}

/// The flat statistics of one region (`summary.region_row`). One walk of the rows gathers
/// every sum and extreme: at 100,000 ranks a region's rows are tens of megabytes, and a
/// walk per statistic was most of the first screen. With it, the earliest start (s) of
/// the selected rows with calls, `None` when none has calls, and over every rank (`ranks`
/// `None`) the region's [`sort_key`](Region::sort_key), from the same walk.
pub(super) fn region_row(
    region: &Region,
    ranks: Option<&[u32]>,
    exclusive: Option<&Result<ExclusiveTotals, calltree::Nesting>>,
) -> (RegionRow, Option<f64>, Option<f64>) {
    let rows = per_rank(region, ranks);
    let per_exclusive = |r: &RankCalls, totals: &Result<ExclusiveTotals, _>| -> f64 {
        if let Some(s) = &r.statistics {
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
    let (mut gpu_sum, mut gpu_n) = (Sum::default(), 0u64);
    let mut durations: Vec<i64> = Vec::new();
    // The earliest-starting and latest-ending rows with calls, the first of ties.
    let (mut first_row, mut last_row): (Option<&RankCalls>, Option<&RankCalls>) = (None, None);
    let mut calls = 0u64;
    let mut coverage: Option<f64> = None;
    let mut exclusive_sum = Sum::default();
    let mut all_totals: Vec<f64> = Vec::with_capacity(rows.len());
    let (mut total, mut minimum, mut maximum) = (Sum::default(), f64::INFINITY, f64::NEG_INFINITY);
    // Rows with calls and stored statistics, and the earliest / latest of those with
    // their first / last duration.
    let mut stored: Vec<&RowStatistics> = Vec::new();
    let (mut first_stored, mut last_stored): (Option<&RowStatistics>, Option<&RowStatistics>) =
        (None, None);
    // `Region::sort_key`'s fold, rows without calls included.
    let mut key = f64::INFINITY;
    for &r in &rows {
        if ranks.is_none() {
            key = key.min(r.first_start_s());
        }
        if r.has_gpu() {
            gpu_sum.add(gpu_total_s(r));
            gpu_n += gpu_count(r);
        }
        durations.extend(r.durations_ns());
        let n = r.calls();
        calls += n;
        let row_total = r.total_s();
        all_totals.push(row_total);
        total.add(row_total);
        if let Some(totals) = exclusive {
            exclusive_sum.add(per_exclusive(r, totals));
        }
        if n == 0 {
            continue;
        }
        if first_row.is_none_or(|a| r.first_start_s() < a.first_start_s()) {
            first_row = Some(r);
        }
        if last_row.is_none_or(|a| r.last_end_s() > a.last_end_s()) {
            last_row = Some(r);
        }
        *coverage.get_or_insert(0.0) += row_coverage(r);
        let stats = r.statistics.as_ref();
        minimum = minimum.min(stats.map_or(0.0, |s| seconds(s.minimum)));
        maximum = maximum.max(stats.map_or(0.0, |s| seconds(s.maximum)));
        let Some(s) = stats else { continue };
        stored.push(s);
        if s.first().is_some()
            && s.start_minimum().is_some()
            && first_stored.is_none_or(|a| s.start_minimum() < a.start_minimum())
        {
            first_stored = Some(s);
        }
        if s.last().is_some()
            && s.end_maximum().is_some()
            && last_stored.is_none_or(|a| s.end_maximum() > a.end_maximum())
        {
            last_stored = Some(s);
        }
    }
    let (gpu_total, gpu_avg) = if gpu_n > 0 {
        let sum = gpu_sum.value();
        (Some(sum), Some(sum / gpu_n as f64))
    } else {
        (None, None)
    };
    let start = first_row.map(RankCalls::first_start_s);
    let first = first_row.map(first_duration);
    let last = last_row.map(last_duration);
    let imbalance = Some(imbalance_of(&all_totals));
    let key = ranks.is_none().then_some(key);
    let base = RegionRow {
        name: region.name.clone(),
        num_ranks: rows.len(),
        calls,
        coverage,
        exclusive: exclusive.map(|_| exclusive_sum.value()),
        gpu_total,
        gpu_avg,
        imbalance,
        ..RegionRow::default()
    };
    if durations.is_empty() && calls > 0 {
        let total = total.value();
        let std = if stored.is_empty()
            || stored
                .iter()
                .any(|s| s.mean().is_none() || s.m2().is_none())
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
                        .map(|s| s.count as f64 * s.mean().unwrap_or(0.0)),
                ) / count as f64;
                let m2 = py_sum(stored.iter().map(|s| {
                    let d = s.mean().unwrap_or(0.0) - mean;
                    s.m2().unwrap_or(0.0) + s.count as f64 * (d * d)
                }));
                Some((m2.max(0.0) / count as f64).sqrt() / 1e9)
            }
        };
        let row = RegionRow {
            total: Some(total),
            avg: Some(total / calls as f64),
            min: Some(minimum),
            max: Some(maximum),
            first: first_stored.map(|s| s.first().unwrap_or(0) as f64 / 1e9),
            last: last_stored.map(|s| s.last().unwrap_or(0) as f64 / 1e9),
            std,
            ..base
        };
        return (row, start, key);
    }
    let (row, total) = distribution_ns(&[&durations], None, base);
    let row = RegionRow {
        total,
        first,
        last,
        ..row
    };
    (row, start, key)
}

/// `row` with the average, extremes, standard deviation and percentiles of `durations`
/// (seconds), as numpy computes them; `None` where there are none. The percentiles are
/// selected, not sorted for ([`quantiles::by_selection`]), which reorders `durations`.
pub(super) fn with_distribution(durations: &mut [f64], row: RegionRow) -> RegionRow {
    let extreme = |keep: Ordering| {
        durations
            .iter()
            .copied()
            .reduce(|a, b| if b.total_cmp(&a) == keep { b } else { a })
    };
    let (min, max) = (extreme(Ordering::Less), extreme(Ordering::Greater));
    let (avg, std) = (numeric::mean(durations), numeric::std(durations));
    let p = quantiles::by_selection(durations, f64::total_cmp, |v| v);
    RegionRow {
        avg,
        min,
        max,
        std,
        p50: p.p50,
        p95: p.p95,
        p99: p.p99,
        ..row
    }
}

/// `row` with the average, extremes, standard deviation and percentiles of durations in
/// ns, each counted as [`seconds`] of it: the numbers [`with_distribution`] gives over those
/// seconds, bit for bit (the conversion is monotonic, so the extremes and order statistics
/// of the integers are those of the seconds), with the order statistics selected among
/// the integers ([`quantiles::of_durations`]); and the durations' sum in seconds
/// (`np.sum`), which the mean divides; `None` without durations.
///
/// The durations are the values of `parts` laid end to end, never joined; the seconds are
/// converted as the sums reach them, never held. `extremes`, where the caller found them as
/// it kept the durations, saves a pass.
pub(super) fn distribution_ns<T: Copy + Ord + Default + Into<i64>>(
    parts: &[&[T]],
    extremes: Option<(i64, i64)>,
    row: RegionRow,
) -> (RegionRow, Option<f64>) {
    let to_seconds = |d: T| seconds(d.into());
    let len = parts.iter().map(|p| p.len()).sum::<usize>();
    let (least, most) = extremes.unwrap_or_else(|| {
        let values = parts.iter().flat_map(|p| p.iter()).map(|&d| d.into());
        values.fold((i64::MAX, i64::MIN), |(l, m), d: i64| (l.min(d), m.max(d)))
    });
    // Four passes in two: the percentiles' histogram is counted as the sum reaches each
    // piece of the values, and their buckets' values gathered as the deviations do.
    let (sum, avg, std, p) = match len {
        0 => (None, None, None, quantiles::Percentiles::default()),
        _ => {
            let mut histogram = Histogram::new(least, most, len as u64);
            let count = &mut |piece: &[T]| histogram.count(piece);
            let sum = numeric::sum_visiting_parts(parts, to_seconds, count);
            // `np.mean`: the sum over the count.
            let avg = sum / len as f64;
            let mut picking = histogram.pick();
            let gather = &mut |piece: &[T]| picking.gather(piece);
            let std = numeric::std_visiting_parts(parts, avg, to_seconds, gather);
            (Some(sum), Some(avg), Some(std), picking.percentiles())
        }
    };
    let (min, max) = match len {
        0 => (None, None),
        _ => (Some(seconds(least)), Some(seconds(most))),
    };
    let row = RegionRow {
        avg,
        min,
        max,
        std,
        p50: p.p50,
        p95: p.p95,
        p99: p.p99,
        ..row
    };
    (row, sum)
}

/// Exclusive ns of every (region, rank) from the full call tree of each rank.
pub(super) fn exclusive_totals(
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
