//! A region's values over many ranks, summed up so that 100,000 ranks read at a glance:
//! the five-number summary (min, quartiles, max) and the mean, the outlier ranks by name,
//! the ranks ordered by value for a drill-down, and the ranks binned into a bounded number
//! of columns for a heatmap. Every view of the ranks (`sp plot rank_heatmap` and
//! `imbalance`, the terminal's and the page's Ranks view) draws these instead of one label
//! per rank once the ranks no longer fit.
//!
//! Quartiles are `np.percentile`'s (linear method); outliers are Tukey's, beyond 1.5 times
//! the interquartile range from the quartiles. A summary costs one sort of the values.
//!
//! ```
//! use sp::analysis::rank_distribution::distribution;
//! let d = distribution(&[0, 1, 2, 3, 4], &[1.0, 2.0, 3.0, 4.0, 100.0], 8).unwrap();
//! assert_eq!((d.min, d.median, d.max), (1.0, 3.0, 100.0));
//! assert_eq!(d.outliers[0].name(), "rank 4");
//! ```

use crate::sort::SortSlice;
use std::cmp::Ordering;

use super::numeric::{self, percentile_sorted};

/// Above this many ranks, the views draw the distribution rather than a cell or a label
/// per rank.
pub const MANY_RANKS: usize = 256;

/// How many outlier ranks a summary names by default.
pub const OUTLIERS_SHOWN: usize = 8;

/// A rank named for its value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankValue {
    pub rank: u32,
    pub value: f64,
}

impl RankValue {
    /// `rank N`.
    pub fn name(&self) -> String {
        format!("rank {}", self.rank)
    }
}

/// The distribution of one region's values over its ranks.
#[derive(Debug, Clone, PartialEq)]
pub struct Distribution {
    /// How many ranks (values) there are.
    pub count: usize,
    pub min: f64,
    pub q1: f64,
    pub median: f64,
    pub q3: f64,
    pub max: f64,
    pub mean: f64,
    /// The first rank with the smallest and with the largest value.
    pub min_rank: u32,
    pub max_rank: u32,
    /// Values below `low_fence` or above `high_fence` are outliers (Tukey's 1.5 IQR).
    pub low_fence: f64,
    pub high_fence: f64,
    /// The outliers farthest from the median first (ties: the lower rank), at most the
    /// cap asked for.
    pub outliers: Vec<RankValue>,
    /// How many ranks are outliers, shown or not.
    pub outlier_count: usize,
}

impl Distribution {
    /// The whiskers: the smallest and largest values within the fences.
    pub fn whiskers(&self, values: &[f64]) -> (f64, f64) {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for &v in values {
            if v >= self.low_fence && v <= self.high_fence {
                lo = lo.min(v);
                hi = hi.max(v);
            }
        }
        if lo > hi {
            (self.q1, self.q3)
        } else {
            (lo, hi)
        }
    }
}

/// The distribution of `values`, `values[i]` being rank `ranks[i]`'s, naming at most
/// `cap` outliers; `None` when there are no values or the two slices differ in length.
/// NaN values sort last (`total_cmp`).
pub fn distribution(ranks: &[u32], values: &[f64], cap: usize) -> Option<Distribution> {
    if values.is_empty() || ranks.len() != values.len() {
        return None;
    }
    let order = ascending(values);
    let sorted: Vec<f64> = order.iter().map(|&i| values[i]).collect();
    let q = |p: f64| percentile_sorted(&sorted, p).unwrap_or(f64::NAN);
    let (q1, median, q3) = (q(25.0), q(50.0), q(75.0));
    let iqr = q3 - q1;
    let (low_fence, high_fence) = (q1 - 1.5 * iqr, q3 + 1.5 * iqr);
    let mut outliers: Vec<RankValue> = (ranks.iter().zip(values))
        .filter(|(_, &v)| v < low_fence || v > high_fence)
        .map(|(&rank, &value)| RankValue { rank, value })
        .collect();
    let outlier_count = outliers.len();
    outliers.sort_stable_by(|a, b| {
        let (da, db) = ((a.value - median).abs(), (b.value - median).abs());
        db.total_cmp(&da).then(a.rank.cmp(&b.rank))
    });
    outliers.truncate(cap);
    // The first rank holding the extreme: the lowest index among equal values.
    let first_at = |v: f64| {
        (values
            .iter()
            .position(|&x| x.total_cmp(&v) == Ordering::Equal))
        .map_or(0, |i| ranks[i])
    };
    let (min, max) = (sorted[0], sorted[sorted.len() - 1]);
    Some(Distribution {
        count: values.len(),
        min,
        q1,
        median,
        q3,
        max,
        mean: numeric::mean(values).unwrap_or(f64::NAN),
        min_rank: first_at(min),
        max_rank: first_at(max),
        low_fence,
        high_fence,
        outliers,
        outlier_count,
    })
}

/// The indices of `values` in ascending order of value (stable: equal values keep their
/// order).
fn ascending(values: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_stable_by(|&a, &b| values[a].total_cmp(&values[b]));
    order
}

/// The ranks by value, largest first (ties: the lower rank first): the drill-down list.
pub fn by_value(ranks: &[u32], values: &[f64]) -> Vec<RankValue> {
    let mut out: Vec<RankValue> = (ranks.iter().zip(values))
        .map(|(&rank, &value)| RankValue { rank, value })
        .collect();
    out.sort_stable_by(|a, b| b.value.total_cmp(&a.value).then(a.rank.cmp(&b.rank)));
    out
}

/// Consecutive ranks pooled into one column of a heatmap.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bin {
    /// The first and last rank of the bin (inclusive), and how many ranks it holds.
    pub first: u32,
    pub last: u32,
    pub count: usize,
    pub mean: f64,
    pub min: f64,
    /// The largest value and the first rank holding it.
    pub max: f64,
    pub max_rank: u32,
}

/// `values` (rank `ranks[i]`'s at `i`, in rank order) pooled into at most `columns` bins
/// of consecutive ranks, as even as can be: bin `b` holds indices
/// `b·n/columns .. (b+1)·n/columns`. One bin per rank when they fit.
pub fn bins(ranks: &[u32], values: &[f64], columns: usize) -> Vec<Bin> {
    let n = values.len().min(ranks.len());
    let columns = columns.clamp(1, n.max(1));
    let mut out = Vec::with_capacity(columns.min(n));
    for b in 0..columns {
        let (lo, hi) = (b * n / columns, (b + 1) * n / columns);
        if lo == hi {
            continue;
        }
        let slice = &values[lo..hi];
        let (mut min, mut max, mut at) = (f64::INFINITY, f64::NEG_INFINITY, lo);
        for (i, &v) in slice.iter().enumerate() {
            min = min.min(v);
            if v > max {
                max = v;
                at = lo + i;
            }
        }
        out.push(Bin {
            first: ranks[lo],
            last: ranks[hi - 1],
            count: hi - lo,
            mean: numeric::mean(slice).unwrap_or(f64::NAN),
            min,
            max,
            max_rank: ranks[at],
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn five_numbers_as_numpy_and_tukeys_outliers() {
        // np.percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 100], [25, 50, 75]) = 3.25, 5.5, 7.75
        let ranks: Vec<u32> = (10..20).collect();
        let values = [9.0, 2.0, 3.0, 100.0, 5.0, 6.0, 7.0, 8.0, 1.0, 4.0];
        let d = distribution(&ranks, &values, 8).unwrap();
        assert_eq!(d.count, 10);
        assert_eq!(
            (d.min, d.q1, d.median, d.q3, d.max),
            (1.0, 3.25, 5.5, 7.75, 100.0)
        );
        assert_eq!(d.mean, 14.5);
        assert_eq!((d.min_rank, d.max_rank), (18, 13));
        // IQR 4.5: fences at 3.25 - 6.75 = -3.5 and 7.75 + 6.75 = 14.5.
        assert_eq!((d.low_fence, d.high_fence), (-3.5, 14.5));
        assert_eq!(
            d.outliers,
            vec![RankValue {
                rank: 13,
                value: 100.0
            }]
        );
        assert_eq!(d.outlier_count, 1);
        assert_eq!(d.outliers[0].name(), "rank 13");
        assert_eq!(d.whiskers(&values), (1.0, 9.0));
    }

    #[test]
    fn outliers_farthest_first_and_capped() {
        // Eight ranks at 10, one at 0, one at 30, one at 50: the IQR is 0.
        let ranks: Vec<u32> = (0..11).collect();
        let mut values = vec![10.0; 11];
        values[3] = 0.0;
        values[5] = 50.0;
        values[9] = 30.0;
        let d = distribution(&ranks, &values, 2).unwrap();
        assert_eq!((d.q1, d.median, d.q3), (10.0, 10.0, 10.0));
        assert_eq!(d.outlier_count, 3);
        assert_eq!(
            d.outliers,
            vec![
                RankValue {
                    rank: 5,
                    value: 50.0
                },
                RankValue {
                    rank: 9,
                    value: 30.0
                }
            ]
        );
        assert_eq!(d.whiskers(&values), (10.0, 10.0));
        // Equal distances: the lower rank first.
        let d = distribution(&[7, 2, 4], &[0.0, 5.0, 10.0], 8).unwrap();
        assert!(d.outliers.is_empty());
        assert_eq!((d.min_rank, d.max_rank), (7, 4));
    }

    #[test]
    fn nothing_to_summarise() {
        assert_eq!(distribution(&[], &[], 8), None);
        assert_eq!(distribution(&[1], &[1.0, 2.0], 8), None);
        let d = distribution(&[4], &[2.5], 8).unwrap();
        assert_eq!(
            (d.min, d.q1, d.median, d.q3, d.max),
            (2.5, 2.5, 2.5, 2.5, 2.5)
        );
        assert!(d.outliers.is_empty());
    }

    #[test]
    fn ranks_by_value_largest_first() {
        let list = by_value(&[0, 1, 2, 3], &[1.0, 3.0, 3.0, 2.0]);
        let ranks: Vec<u32> = list.iter().map(|r| r.rank).collect();
        assert_eq!(ranks, vec![1, 2, 3, 0]);
    }

    #[test]
    fn bins_pool_consecutive_ranks_evenly() {
        let ranks: Vec<u32> = (0..7).collect();
        let values = [1.0, 3.0, 2.0, 2.0, 8.0, 4.0, 0.0];
        let b = bins(&ranks, &values, 3);
        // 0..2, 2..4, 4..7
        assert_eq!(b.len(), 3);
        assert_eq!((b[0].first, b[0].last, b[0].count), (0, 1, 2));
        assert_eq!(
            (b[0].mean, b[0].min, b[0].max, b[0].max_rank),
            (2.0, 1.0, 3.0, 1)
        );
        assert_eq!((b[1].first, b[1].last, b[1].mean), (2, 3, 2.0));
        assert_eq!(b[1].max_rank, 2);
        assert_eq!((b[2].first, b[2].last, b[2].count), (4, 6, 3));
        assert_eq!(
            (b[2].mean, b[2].min, b[2].max, b[2].max_rank),
            (4.0, 0.0, 8.0, 4)
        );
        // More columns than ranks: one bin a rank.
        assert_eq!(bins(&ranks, &values, 100).len(), 7);
        assert!(bins(&[], &[], 10).is_empty());
    }
}
