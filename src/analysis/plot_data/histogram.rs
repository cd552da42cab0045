//! `histogram_data`: each region's call durations counted in `--bins` bins that all regions
//! share, spanning the pooled durations' range (`np.histogram_bin_edges`; one value: ±0.5 s
//! around it), a bin holding its left edge and the last bin its right edge too.

use super::{linspace, pooled, region_colors, regions, rows, Cell, Options, Run, Table};
use crate::analysis::{Error, Result};
use crate::sort::SortSlice;

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
    let mut series = Vec::new();
    for region in regions(run.profile, &opts.selection)? {
        let mut values = pooled(run.source, &rows(region, &opts.selection.ranks))?;
        if !values.is_empty() {
            values.sort_stable_by(f64::total_cmp);
            series.push((region.name.clone(), values));
        }
    }
    let lo = series
        .iter()
        .map(|(_, v)| v[0])
        .fold(f64::INFINITY, f64::min);
    let hi = (series.iter())
        .map(|(_, v)| v[v.len() - 1])
        .fold(f64::NEG_INFINITY, f64::max);
    if series.is_empty() {
        return Err(Error::Unavailable(
            "no calls recorded for the requested ranks".into(),
        ));
    }
    let (lo, hi) = if lo == hi {
        (lo - 0.5, hi + 0.5)
    } else {
        (lo, hi)
    };
    let edges = linspace(lo, hi, opts.bins + 1);
    let series = (series.into_iter())
        .map(|(name, sorted)| {
            let left = |x: f64| sorted.partition_point(|v| *v < x) as u64;
            let right = |x: f64| sorted.partition_point(|v| *v <= x) as u64;
            let n = edges.len() - 1;
            let counts = (0..n)
                .map(|i| {
                    let upper = if i + 1 == n {
                        right(edges[n])
                    } else {
                        left(edges[i + 1])
                    };
                    upper - left(edges[i])
                })
                .collect();
            (name, counts)
        })
        .collect();
    Ok(Histogram { edges, series })
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
        header: vec![
            "file",
            "region",
            "bin_low_seconds",
            "bin_high_seconds",
            "bin_center_seconds",
            "count",
        ],
        rows,
        rows_key: "bins",
        extra: vec![("colors", region_colors(&names))],
    })
}
