//! How evenly each region's time is spread over the ranks: the load-balance table and the
//! rank × region matrix behind the heatmap, as the reference's report computes them
//! (`report_data._rank_balance`, `report_model.balance_model` and `deviation`).
//!
//! Own (exclusive) time is compared rather than inclusive time when the rows form a call
//! tree, because a parent's total repeats every child's imbalance; own times are disjoint
//! and add up to a rank's time in regions. Flat rows (an index read, or calls that do not
//! nest) compare totals, as the reference does. Either way only the rows' region names and
//! each (rank, region) row's stored or loaded totals are read, so an index read of a 1 GB
//! profile gives its table from a few kilobytes.

use crate::sort::SortSlice;
use std::collections::HashMap;

use super::calltree;
use super::numeric::{self, seconds};
use super::rows::{selected_regions, RegionRow};
use super::selection::Selection;
use super::units::{duration_text, signed_pct};
use crate::schema::{Profile, RankCalls, Region};

/// The session root's region name.
pub const SESSION: &str = "scope_profiler.session";

/// Imbalance (percent) from which a region is flagged (`_IMBALANCE_FLAG_PCT`).
pub const IMBALANCE_FLAG_PCT: f64 = 15.0;

/// Differences below this percentage of the mean read as noise (`_SAME_PCT`).
pub const SAME_PCT: f64 = 2.0;

/// One region's time on each selected rank.
#[derive(Debug, Clone, PartialEq)]
pub struct RegionBalance {
    pub name: String,
    /// Seconds on each of [`Balance::ranks`], 0 where the rank has no row.
    pub values: Vec<f64>,
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    /// The first rank with the largest value.
    pub slowest: u32,
    /// How much more than the mean the slowest rank spends, in percent.
    pub imbalance: f64,
    /// Seconds the slowest rank spends above the mean: what balancing could save.
    pub excess: f64,
}

impl RegionBalance {
    /// Whether the imbalance is large enough to flag.
    pub fn flagged(&self) -> bool {
        self.imbalance >= IMBALANCE_FLAG_PCT
    }
}

/// The load balance of the selected ranks.
#[derive(Debug, Clone, PartialEq)]
pub struct Balance {
    /// Selected ranks, ascending.
    pub ranks: Vec<u32>,
    /// Regions with time, largest excess first.
    pub regions: Vec<RegionBalance>,
    /// Whether values are own (exclusive) times rather than totals.
    pub own: bool,
    /// Each rank's summed value over [`regions`](Self::regions).
    pub totals: Vec<f64>,
    /// How many regions each rank is the slowest in (regions with an excess), in the order
    /// the ranks were first seen slowest.
    pub slowest_counts: Vec<(u32, usize)>,
}

/// One cell of the rank × region matrix.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cell {
    /// Seconds on the rank.
    pub value: f64,
    /// The line's mean over the selected ranks.
    pub mean: f64,
    /// `value` against `mean`, in percent (0 when the mean is 0).
    pub change: f64,
}

impl Cell {
    /// The change as the page words it: signed with one decimal, `0%` when it rounds to 0.
    pub fn change_text(&self) -> String {
        if self.change.abs() >= 0.05 {
            signed_pct(self.change)
        } else {
            "0%".into()
        }
    }
}

impl Balance {
    /// The metric's name as the page and the report label it.
    pub fn metric(&self) -> &'static str {
        if self.own {
            "own time"
        } else {
            "total time"
        }
    }

    /// The rank that spends the most time in regions overall, unless every rank is
    /// within [`SAME_PCT`] of the mean (ranks that wait for each other).
    pub fn slowest_rank(&self) -> Option<u32> {
        let mean = numeric::mean(&self.totals)?;
        let (i, max) = argmax(&self.totals)?;
        (mean != 0.0 && (max - mean) / mean >= SAME_PCT / 100.0).then(|| self.ranks[i])
    }

    /// The mean over the ranks of their summed values (the heatmap's "all regions" line).
    pub fn totals_mean(&self) -> f64 {
        numeric::mean(&self.totals).unwrap_or(0.0)
    }

    /// One cell of the rank × region matrix: `rank`'s value in `region` (its summed value
    /// over every region when `None`) against that line's mean; `None` when the rank is
    /// not selected or the region has no time on these ranks.
    pub fn cell(&self, rank: u32, region: Option<&str>) -> Option<Cell> {
        let column = self.ranks.binary_search(&rank).ok()?;
        let (values, mean) = match region {
            None => (&self.totals, self.totals_mean()),
            Some(name) => {
                let r = self.regions.iter().find(|r| r.name == name)?;
                (&r.values, r.mean)
            }
        };
        let value = *values.get(column)?;
        let change = if mean != 0.0 {
            100.0 * (value - mean) / mean
        } else {
            0.0
        };
        Some(Cell {
            value,
            mean,
            change,
        })
    }

    /// The rank most often the slowest, with its count (`Counter.most_common(1)`).
    pub fn most_often_slowest(&self) -> Option<(u32, usize)> {
        self.slowest_counts
            .iter()
            .copied()
            .reduce(|best, next| if next.1 > best.1 { next } else { best })
    }
}

/// How a value shades against its mean: `Some((sign, alpha))`, red above and blue below,
/// `None` within the noise of the mean (the report's `deviation`).
pub fn deviation(value: f64, mean: f64) -> Option<(i8, f64)> {
    if mean <= 0.0 {
        return None;
    }
    let relative = (value - mean) / mean;
    if relative.abs() < SAME_PCT / 100.0 {
        return None;
    }
    let strength = (relative.abs() / 0.5).min(1.0);
    let alpha = ((0.08 + 0.47 * strength) * 100.0).round() / 100.0;
    Some((if relative > 0.0 { 1 } else { -1 }, alpha))
}

/// Whether the balance compares own times: every timed row but the session's is a row of
/// the call tree.
pub fn own_times(rows: &[RegionRow]) -> bool {
    let mut timed = rows
        .iter()
        .filter(|r| r.total.is_some() && r.name != SESSION)
        .peekable();
    timed.peek().is_some() && timed.all(|r| r.call_path.is_some())
}

/// The load balance over `ranks` (all when `None`) of the regions in `rows`
/// (`_rank_balance`); `None` with fewer than two ranks or no region with time.
pub fn rank_balance(
    profile: &Profile,
    rows: &[RegionRow],
    ranks: Option<&[u32]>,
) -> Option<Balance> {
    let in_range = |r: u32| u64::from(r) < profile.num_ranks;
    let mut selected: Vec<u32> = match ranks {
        Some(list) => list.iter().copied().filter(|&r| in_range(r)).collect(),
        None => (0..profile.num_ranks)
            .filter_map(|r| u32::try_from(r).ok())
            .collect(),
    };
    selected.sort_ord_unstable();
    if selected.len() < 2 {
        return None;
    }
    let own = own_times(rows);
    let mut tree_own: Option<HashMap<(String, u32), i64>> = None;
    let mut names: Vec<&str> = Vec::new();
    for row in rows {
        if row.total.is_some() && row.name != SESSION && !names.contains(&row.name.as_str()) {
            names.push(&row.name);
        }
    }
    // Each rank's column, so a region's rows are placed in one pass: the last place of the
    // rank in the sorted `selected`, which is the rank itself when every rank is.
    let every = selected.iter().enumerate().all(|(i, &r)| r as usize == i);
    let column = |rank: u32| -> Option<usize> {
        if every {
            return ((rank as usize) < selected.len()).then_some(rank as usize);
        }
        let end = selected.partition_point(|&s| s <= rank);
        (end > 0 && selected[end - 1] == rank).then(|| end - 1)
    };
    let mut regions = Vec::new();
    for name in names {
        let Some(region) = profile.region(name) else {
            continue;
        };
        let mut values = vec![0.0; selected.len()];
        for row in &region.ranks {
            if let Some(i) = column(row.rank) {
                values[i] = if own {
                    own_seconds(profile, name, row, &mut tree_own)
                } else {
                    row.total_s()
                };
            }
        }
        let mean = numeric::mean(&values).unwrap_or(0.0);
        if mean.is_nan() || mean <= 0.0 {
            continue;
        }
        let Some((peak, max)) = argmax(&values) else {
            continue;
        };
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        regions.push(RegionBalance {
            name: name.to_string(),
            mean,
            min,
            max,
            slowest: selected[peak],
            imbalance: (max / mean - 1.0) * 100.0,
            excess: max - mean,
            values,
        });
    }
    if regions.is_empty() {
        return None;
    }
    regions.sort_stable_by(|a, b| b.excess.total_cmp(&a.excess));
    let mut totals = vec![0.0; selected.len()];
    for region in &regions {
        for (t, v) in totals.iter_mut().zip(&region.values) {
            *t += v;
        }
    }
    let mut slowest_counts: Vec<(u32, usize)> = Vec::new();
    for region in regions.iter().filter(|r| r.excess > 0.0) {
        match slowest_counts
            .iter_mut()
            .find(|(r, _)| *r == region.slowest)
        {
            Some((_, n)) => *n += 1,
            None => slowest_counts.push((region.slowest, 1)),
        }
    }
    Some(Balance {
        ranks: selected,
        regions,
        own,
        totals,
        slowest_counts,
    })
}

/// numpy's `argmax` (the first largest) and the value there.
fn argmax(values: &[f64]) -> Option<(usize, f64)> {
    let mut best: Option<(usize, f64)> = None;
    for (i, &v) in values.iter().enumerate() {
        if best.is_none_or(|(_, b)| v > b) {
            best = Some((i, v));
        }
    }
    best
}

/// A row's own seconds (`total_exclusive_duration`): the stored exclusive total, else the
/// one its rank's call tree gives (computed once per profile, on first need).
fn own_seconds(
    profile: &Profile,
    name: &str,
    row: &RankCalls,
    tree: &mut Option<HashMap<(String, u32), i64>>,
) -> f64 {
    if row.calls() == 0 {
        return 0.0;
    }
    if let Some(s) = &row.statistics {
        return seconds(s.exclusive);
    }
    if let Some(x) = row.exclusive_total {
        return seconds(x);
    }
    let map = tree.get_or_insert_with(|| tree_exclusive(profile));
    match map.get(&(name.to_string(), row.rank)) {
        Some(&ns) => seconds(ns),
        None => row.total_s(),
    }
}

/// Exclusive ns of every (region, rank) whose rank nests; ranks that do not are left out.
/// Each rank's tree is built over regions holding that rank's row only, so finding a
/// region's row costs nothing however many ranks there are.
fn tree_exclusive(profile: &Profile) -> HashMap<(String, u32), i64> {
    let all = selected_regions(profile, &Selection::all());
    let mut by_rank: HashMap<u32, Vec<Region>> = HashMap::new();
    for (i, region) in all.iter().enumerate() {
        for row in &region.ranks {
            let regions = by_rank.entry(row.rank).or_insert_with(|| {
                all.iter()
                    .map(|r| Region {
                        name: r.name.clone(),
                        ranks: Vec::new(),
                    })
                    .collect()
            });
            regions[i].ranks = vec![row.clone()];
        }
    }
    let mut out = HashMap::new();
    for (rank, regions) in by_rank {
        let refs: Vec<&Region> = regions.iter().collect();
        let Ok(calls) = calltree::build(&refs, rank) else {
            continue;
        };
        for c in calls {
            let e = out
                .entry((all[c.region].name.clone(), rank))
                .or_insert(0i64);
            *e = e.wrapping_add(c.exclusive_ns);
        }
    }
    out
}

/// One line of the load-balance table, with its numbers in words and the min·mean·max bar
/// as percentages of the widest bar (`balance_model`).
#[derive(Debug, Clone, PartialEq)]
pub struct BalanceLine {
    pub name: String,
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    pub slowest: u32,
    pub imbalance: f64,
    pub excess: f64,
    pub mean_text: String,
    pub min_text: String,
    pub max_text: String,
    pub excess_text: String,
    pub flag: bool,
    pub low: f64,
    pub high: f64,
    pub mean_pos: f64,
}

/// The load-balance table's lines, largest excess first.
pub fn balance_lines(balance: &Balance) -> Vec<BalanceLine> {
    let widest = balance
        .regions
        .iter()
        .map(|r| r.max)
        .fold(f64::NEG_INFINITY, f64::max);
    let scale = if widest == 0.0 || !widest.is_finite() {
        1.0
    } else {
        widest
    };
    balance
        .regions
        .iter()
        .map(|r| BalanceLine {
            name: r.name.clone(),
            mean: r.mean,
            min: r.min,
            max: r.max,
            slowest: r.slowest,
            imbalance: r.imbalance,
            excess: r.excess,
            mean_text: duration_text(Some(r.mean)),
            min_text: duration_text(Some(r.min)),
            max_text: duration_text(Some(r.max)),
            excess_text: duration_text(Some(r.excess)),
            flag: r.flagged(),
            low: 100.0 * r.min / scale,
            high: 100.0 * r.max / scale,
            mean_pos: 100.0 * r.mean / scale,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deviation_shades_as_the_report() {
        // report_model.deviation(value, mean) in the reference.
        assert_eq!(deviation(1.0, 0.0), None);
        assert_eq!(deviation(1.01, 1.0), None);
        assert_eq!(deviation(1.25, 1.0), Some((1, 0.32)));
        assert_eq!(deviation(0.5, 1.0), Some((-1, 0.55)));
        assert_eq!(deviation(9.0, 1.0), Some((1, 0.55)));
    }

    #[test]
    fn slowest_ranks_count_first_seen_on_ties() {
        let balance = Balance {
            ranks: vec![0, 1, 2],
            regions: Vec::new(),
            own: true,
            totals: vec![1.0, 1.0, 1.01],
            slowest_counts: vec![(2, 1), (0, 2), (1, 2)],
        };
        assert_eq!(balance.most_often_slowest(), Some((0, 2)));
        // 1.01 is within 2% of the mean: ranks wait for each other.
        assert_eq!(balance.slowest_rank(), None);
        let skewed = Balance {
            totals: vec![1.0, 1.0, 2.0],
            ..balance
        };
        assert_eq!(skewed.slowest_rank(), Some(2));
        assert_eq!(argmax(&[1.0, 3.0, 3.0]), Some((1, 3.0)));
        assert_eq!(argmax(&[]), None);
    }
}
