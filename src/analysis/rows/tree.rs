//! The rows of the call tree: each rank's calls nested by [`calltree`], grouped by call path
//! (recursion collapsed), one pooled row per path (`summary.region_rows`' call rows).

use std::collections::HashMap;

use super::super::calltree;
use super::super::error::Result;
use super::super::numeric::{self, seconds};
use super::super::progress::Meter;
use super::flat::{merged_length, py_sum, with_distribution};
use super::{selected_regions, RegionRow};
use crate::analysis::Selection;
use crate::schema::{Profile, Region};

pub(super) struct PathCall {
    rank: u32,
    region: usize,
    call_index: usize,
    start: f64,
    end: f64,
    duration: f64,
    exclusive: f64,
    nested_in_itself: bool,
}

/// Calls nested between two checks of the cancel, as the event readers' blocks.
pub(super) const CHECK_CALLS: usize = 4096;

/// Groups each of `ranks`' calls by call path into `paths`, counting the calls into `meter`
/// and stopping on its cancel every [`CHECK_CALLS`]; `Ok(false)` when a rank does not nest.
#[allow(clippy::too_many_arguments)]
pub(super) fn build_paths(
    profile: &Profile,
    regions: &[&Region],
    ranks: &[u32],
    filtered: bool,
    origin: f64,
    paths: &mut Vec<(Vec<usize>, Vec<PathCall>, bool)>,
    index: &mut HashMap<Vec<usize>, usize>,
    meter: &mut Meter<'_>,
) -> Result<bool> {
    let everything = if filtered {
        Some(selected_regions(profile, &Selection::all()))
    } else {
        None
    };
    for &rank in ranks {
        meter.check()?;
        let Ok(calls) = calltree::build(regions, rank) else {
            return Ok(false);
        };
        let mut exclusive_override: Option<HashMap<(String, i64, i64), i64>> = None;
        if let Some(all) = &everything {
            let Ok(full) = calltree::build(all, rank) else {
                return Ok(false);
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
        for (i, c) in calls.iter().enumerate() {
            if i % CHECK_CALLS == CHECK_CALLS - 1 {
                meter.calls(CHECK_CALLS as u64);
                meter.check()?;
            }
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
        meter.calls((calls.len() % CHECK_CALLS) as u64);
    }
    Ok(true)
}

pub(super) fn path_row(
    _profile: &Profile,
    regions: &[&Region],
    path: &[usize],
    calls: &[PathCall],
    recursive: bool,
) -> RegionRow {
    let mut durations: Vec<f64> = calls.iter().map(|c| c.duration).collect();
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
    let first = calls
        .iter()
        .reduce(|a, b| if b.start < a.start { b } else { a })
        .map(|c| c.duration);
    let last = calls
        .iter()
        .reduce(|a, b| if b.end > a.end { b } else { a })
        .map(|c| c.duration);
    let names: Vec<String> = path.iter().map(|&i| regions[i].name.clone()).collect();
    RegionRow {
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
        first,
        last,
        imbalance: Some(imbalance),
        start: calls.iter().map(|c| c.start).fold(f64::INFINITY, f64::min),
        parent_coverage: None,
        ..with_distribution(&mut durations, RegionRow::default())
    }
}
