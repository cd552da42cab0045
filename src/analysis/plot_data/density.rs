//! `timeline_density_data`: the seconds each region's calls occupy in each of `--bins` equal
//! time bins (seconds from the profile's first call) over the window of the calls, or
//! `--start-time`/`--end-time`; calls shorter than `--min-duration` left out.

use super::fixed_header;
use super::{first_start, linspace, ranks_or_all, regions, Cell, Options, Run, Table};
use crate::analysis::{Error, Result};
use crate::schema::Region;

/// The matrix of the chart: bin edges and, per region, the occupied seconds per bin.
#[derive(Debug, Clone, PartialEq)]
pub struct Density {
    pub edges: Vec<f64>,
    pub series: Vec<(String, Vec<f64>)>,
}

/// Calls every selected row of `regions` gives, in order, as `(region, start, end)` seconds
/// from `origin`, those kept by `--min-duration`.
fn each_call(
    run: &Run,
    regions: &[&Region],
    ranks: &[u32],
    origin: f64,
    min: f64,
    f: &mut dyn FnMut(usize, f64, f64),
) -> Result<()> {
    for (i, region) in regions.iter().enumerate() {
        for &rank in ranks {
            let Some(row) = region.rank(rank) else {
                continue;
            };
            let ev = run.source.events(row)?;
            for (s, e) in ev.starts.iter().zip(&ev.ends) {
                let (s, e) = (*s as f64 / 1e9, *e as f64 / 1e9);
                if e - s >= min {
                    f(i, s - origin, e - origin);
                }
            }
        }
    }
    Ok(())
}

/// The density of the selected regions on the selected ranks.
pub fn density(run: &Run, opts: &Options) -> Result<Density> {
    let bins = opts.bins;
    if bins < 1 {
        return Err(Error::Unavailable("--bins must be at least 1".into()));
    }
    let min = opts.min_duration;
    if min.is_nan() || min < 0.0 {
        return Err(Error::Unavailable(
            "--min-duration must be non-negative".into(),
        ));
    }
    let kept = regions(run.profile, &opts.selection)?;
    let ranks = match &opts.selection.ranks {
        Some(r) if r.is_empty() => ranks_or_all(run.profile, &super::Selection::all()),
        _ => ranks_or_all(run.profile, &opts.selection),
    };
    let origin = first_start(run.profile);
    let mut span: Option<(f64, f64)> = None;
    each_call(run, &kept, &ranks, origin, min, &mut |_, s, e| {
        let (lo, hi) = span.unwrap_or((s, e));
        span = Some((lo.min(s), hi.max(e)));
    })?;
    let Some((first, last)) = span else {
        return Err(Error::Unavailable(
            "no calls recorded for the requested filters".into(),
        ));
    };
    let lower = match opts.start_time {
        Some(t) => t,
        None => first.min(0.0),
    };
    let upper = opts.end_time.unwrap_or(last);
    if upper <= lower || upper.is_nan() || lower.is_nan() {
        return Err(Error::Unavailable(
            "--end-time must be greater than --start-time".into(),
        ));
    }
    let edges = linspace(lower, upper, bins + 1);
    let mut matrix = vec![vec![0.0f64; bins]; kept.len()];
    // The bin the last call started in: a row's calls come in start order, and most end in
    // the bin they start in, so two comparisons find both ends where two binary searches
    // over the edges took half the chart's time on W2.
    let mut at = 0usize;
    each_call(run, &kept, &ranks, origin, min, &mut |i, s, e| {
        let (s, e) = (s.max(lower), e.min(upper));
        if e <= s {
            return;
        }
        let (left, right) = bins_of(&edges, at, s, e);
        at = left;
        for k in left..=right {
            matrix[i][k] += 0.0f64.max(e.min(edges[k + 1]) - s.max(edges[k]));
        }
    })?;
    Ok(Density {
        edges,
        series: kept.iter().map(|r| r.name.clone()).zip(matrix).collect(),
    })
}

/// The first and last bins a call `[s, e)` (`s < e`) is counted in: the bin holding `s`
/// (the number of edges at or before it, less one) and the number of edges before `e`,
/// at most the last bin. Tried from the bin `hint` first; else searched, with the same
/// result.
fn bins_of(edges: &[f64], hint: usize, s: f64, e: f64) -> (usize, usize) {
    let bins = edges.len() - 1;
    // Sorted edges: `edges[hint] ≤ s < edges[hint + 1]` means `hint + 1` edges are at or
    // before `s`; then with `e ≤ edges[hint + 1]` the edges before `e` are those `hint + 1`.
    if let (Some(&lo), Some(&hi)) = (edges.get(hint), edges.get(hint + 1)) {
        if lo <= s && s < hi && e <= hi {
            return (hint, (hint + 1).min(bins - 1));
        }
    }
    let left = edges.partition_point(|x| *x <= s).saturating_sub(1);
    let right = edges.partition_point(|x| *x < e).min(bins - 1);
    (left, right)
}

/// The table: `file, region, bin_start_seconds, bin_end_seconds, occupied_seconds`.
pub fn table(run: &Run, opts: &Options) -> Result<Table> {
    let d = density(run, opts)?;
    let mut rows = Vec::new();
    for (name, cells) in &d.series {
        for (k, v) in cells.iter().enumerate() {
            rows.push(vec![
                Cell::Text(run.label.clone()),
                Cell::Text(name.clone()),
                Cell::Float(d.edges[k]),
                Cell::Float(d.edges[k + 1]),
                Cell::Float(*v),
            ]);
        }
    }
    Ok(Table {
        kind: super::Kind::Density,
        header: fixed_header(&[
            "file",
            "region",
            "bin_start_seconds",
            "bin_end_seconds",
            "occupied_seconds",
        ]),
        rows,
        rows_key: "points",
        extra: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The bins by two searches over the edges, as they were found before the hint.
    fn searched(edges: &[f64], s: f64, e: f64) -> (usize, usize) {
        let left = edges.partition_point(|x| *x <= s).saturating_sub(1);
        let right = edges.partition_point(|x| *x < e).min(edges.len() - 2);
        (left, right)
    }

    proptest! {
        #[test]
        fn the_hinted_bins_are_the_searched_ones(
            bins in 1usize..40,
            span in 1e-9f64..1e3,
            calls in proptest::collection::vec((0.0f64..1.0, 0.0f64..0.2), 1..60),
            hint in 0usize..45,
        ) {
            let edges = linspace(0.0, span, bins + 1);
            let mut starts: Vec<f64> = calls.iter().map(|c| c.0 * span).collect();
            starts.sort_by(f64::total_cmp);
            let mut at = hint;
            for (s, (_, d)) in starts.iter().zip(&calls) {
                let e = (s + d * span).min(span);
                if e <= *s {
                    continue;
                }
                let got = bins_of(&edges, at, *s, e);
                prop_assert_eq!(got, searched(&edges, *s, e), "{} {} from {}", s, e, at);
                at = got.0;
            }
        }
    }

    #[test]
    fn a_call_on_an_edge_starts_in_the_bin_after_it() {
        // The last bin counted is one past the call's (it adds 0 there), except at the end.
        let edges = [0.0, 1.0, 2.0, 3.0];
        assert_eq!(bins_of(&edges, 0, 1.0, 1.5), (1, 2));
        assert_eq!(bins_of(&edges, 1, 1.0, 1.5), (1, 2));
        assert_eq!(bins_of(&edges, 1, 1.0, 2.5), (1, 2));
        assert_eq!(bins_of(&edges, 0, 2.5, 3.0), (2, 2));
        assert_eq!(bins_of(&edges, 2, 2.5, 3.0), (2, 2));
    }
}
