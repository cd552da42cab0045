//! `histogram_data`: each region's call durations counted in `--bins` bins that all regions
//! share, spanning the pooled durations' range (`np.histogram_bin_edges`; one value: ±0.5 s
//! around it), a bin holding its left edge and the last bin its right edge too.
//!
//! The calls are read twice, a row at a time: once for the range, once to count. Holding
//! every duration (8 bytes a call) would take 488 MiB on a profile of 64 M calls.

use super::fixed_header;
use super::{each_duration, linspace, region_colors, regions, rows, Cell, Options, Run, Table};
use crate::analysis::events::RowSource;
use crate::analysis::{Error, Result};
use crate::schema::RankCalls;

/// The bins of the chart: shared edges, and per region its counts.
#[derive(Debug, Clone, PartialEq)]
pub struct Histogram {
    pub edges: Vec<f64>,
    pub series: Vec<(String, Vec<u64>)>,
}

/// The histogram of the selected regions' durations on the selected ranks.
pub fn histogram(run: &Run, opts: &Options) -> Result<Histogram> {
    if opts.bins < 1 {
        return Err(Error::Unavailable("--bins must be at least 1".into()));
    }
    let selected = regions(run.profile, &opts.selection)?;
    // First pass: which regions have calls, and the range of all their durations.
    let mut with_calls = Vec::new();
    let mut range: Option<(f64, f64)> = None;
    for region in &selected {
        let own = duration_range(run.source, &rows(region, &opts.selection.ranks))?;
        if let Some((lo, hi)) = own {
            with_calls.push(*region);
            range = Some(range.map_or((lo, hi), |(a, b)| (a.min(lo), b.max(hi))));
        }
    }
    let Some(range) = range else {
        return Err(Error::Unavailable(
            "no calls recorded for the requested ranks".into(),
        ));
    };
    let edges = bin_edges(range, opts.bins);
    // Second pass: each region's counts.
    let mut series = Vec::with_capacity(with_calls.len());
    for region in with_calls {
        let counts = bin_counts(run.source, &rows(region, &opts.selection.ranks), &edges)?;
        series.push((region.name.clone(), counts));
    }
    Ok(Histogram { edges, series })
}

/// The smallest and largest duration (s) of the calls of `rows`; `None` without calls.
pub fn duration_range(source: &dyn RowSource, rows: &[&RankCalls]) -> Result<Option<(f64, f64)>> {
    let mut range: Option<(f64, f64)> = None;
    for row in rows {
        each_duration(source, row, |d| {
            range = Some(range.map_or((d, d), |(lo, hi)| (lo.min(d), hi.max(d))));
        })?;
    }
    Ok(range)
}

/// `bins` equal bins over `(lo, hi)` (`np.histogram_bin_edges`; one value: ±0.5 s around it).
pub fn bin_edges((lo, hi): (f64, f64), bins: usize) -> Vec<f64> {
    let (lo, hi) = if lo == hi {
        (lo - 0.5, hi + 0.5)
    } else {
        (lo, hi)
    };
    linspace(lo, hi, bins + 1)
}

/// The calls of `rows` counted in the bins of `edges`, as `numpy.histogram` counts them.
pub fn bin_counts(source: &dyn RowSource, rows: &[&RankCalls], edges: &[f64]) -> Result<Vec<u64>> {
    let mut counts = vec![0u64; edges.len().saturating_sub(1)];
    for row in rows {
        each_duration(source, row, |d| {
            if let Some(i) = bin_of(edges, d) {
                counts[i] += 1;
            }
        })?;
    }
    Ok(counts)
}

/// The bin of `x` given nondecreasing `edges` (at least two): the last `i` with
/// `edges[i] <= x < edges[i + 1]`, the last bin also holding `x == edges[n]`; `None` outside.
/// The same counts as `numpy.histogram` over these edges.
fn bin_of(edges: &[f64], x: f64) -> Option<usize> {
    let n = edges.len().checked_sub(1)?;
    let k = edges.partition_point(|e| *e <= x);
    if (1..=n).contains(&k) {
        Some(k - 1)
    } else if k == n + 1 && n >= 1 && x == edges[n] {
        Some(n - 1)
    } else {
        None
    }
}
/// The table: `file, region, bin_low_seconds, bin_high_seconds, bin_center_seconds, count`.
pub fn table(run: &Run, opts: &Options) -> Result<Table> {
    let h = histogram(run, opts)?;
    let mut rows = Vec::new();
    for (name, counts) in &h.series {
        for (i, count) in counts.iter().enumerate() {
            let (lo, hi) = (h.edges[i], h.edges[i + 1]);
            rows.push(vec![
                Cell::Text(run.label.clone()),
                Cell::Text(name.clone()),
                Cell::Float(lo),
                Cell::Float(hi),
                Cell::Float(0.5 * (lo + hi)),
                Cell::Int(*count as i64),
            ]);
        }
    }
    let names: Vec<&str> = regions(run.profile, &opts.selection)?
        .iter()
        .map(|r| r.name.as_str())
        .collect();
    Ok(Table {
        kind: super::Kind::Histogram,
        header: fixed_header(&[
            "file",
            "region",
            "bin_low_seconds",
            "bin_high_seconds",
            "bin_center_seconds",
            "count",
        ]),
        rows,
        rows_key: "bins",
        extra: vec![("colors", region_colors(&names))],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sort::SortSlice;

    /// The counts as they were made before the streaming pass: every value kept, sorted,
    /// and each bin's bounds found by binary search.
    fn counts_from_sorted(edges: &[f64], values: &[f64]) -> Vec<u64> {
        let mut sorted = values.to_vec();
        sorted.sort_stable_by(f64::total_cmp);
        let left = |x: f64| sorted.partition_point(|v| *v < x) as u64;
        let right = |x: f64| sorted.partition_point(|v| *v <= x) as u64;
        let n = edges.len() - 1;
        (0..n)
            .map(|i| {
                let upper = if i + 1 == n {
                    right(edges[n])
                } else {
                    left(edges[i + 1])
                };
                upper - left(edges[i])
            })
            .collect()
    }

    fn counts_streamed(edges: &[f64], values: &[f64]) -> Vec<u64> {
        let mut counts = vec![0u64; edges.len() - 1];
        for &v in values {
            if let Some(i) = bin_of(edges, v) {
                counts[i] += 1;
            }
        }
        counts
    }

    #[test]
    fn streamed_counts_equal_the_sorted_ones() {
        // Values on the edges, between them, at both ends, and edges that repeat (a range
        // of a few ulps split into more bins than it has values).
        let tight = 1.0 + 2.0 * f64::EPSILON;
        let cases: Vec<(Vec<f64>, Vec<f64>)> = vec![
            (
                linspace(0.0, 1.0, 5),
                vec![0.0, 0.25, 0.3, 0.5, 0.75, 0.99, 1.0, 1.0],
            ),
            (
                linspace(1.0, tight, 51),
                vec![1.0, 1.0 + f64::EPSILON, tight, tight],
            ),
            (linspace(-0.5, 0.5, 2), vec![0.0, 0.0, 0.0]),
            (
                linspace(1e-9, 3.7, 11),
                (0..1000).map(|i| 1e-9 + i as f64 * 3.7e-3).collect(),
            ),
        ];
        for (edges, values) in cases {
            let streamed = counts_streamed(&edges, &values);
            assert_eq!(streamed, counts_from_sorted(&edges, &values), "{edges:?}");
            let inside = values.iter().filter(|v| **v >= edges[0]).count() as u64;
            assert_eq!(streamed.iter().sum::<u64>(), inside);
        }
        // Outside the edges: not counted.
        assert_eq!(bin_of(&[0.0, 1.0], -0.1), None);
        assert_eq!(bin_of(&[0.0, 1.0], 1.1), None);
        assert_eq!(bin_of(&[0.0, 1.0], 1.0), Some(0));
        assert_eq!(bin_of(&[0.0], 0.0), None);
    }
}
