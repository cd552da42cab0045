//! `duration_timeseries_data`: each region's i-th call matched across the selected ranks:
//! the mean start (seconds from the profile's first call), the mean, min and max duration,
//! and how many ranks made an i-th call.

use super::fixed_header;
use super::{first_start, region_colors, regions, Cell, Options, Run, Table};
use crate::analysis::numeric;
use crate::analysis::{Error, Result};
use crate::sort::SortSlice;

/// One point of a region's series.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub time: f64,
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    pub ranks: u32,
}

/// Every selected region's series (regions with no call on the selected ranks left out).
pub fn series(run: &Run, opts: &Options) -> Result<Vec<(String, Vec<Point>)>> {
    let origin = first_start(run.profile);
    let mut out = Vec::new();
    for region in regions(run.profile, &opts.selection)? {
        let rows: Vec<_> = match &opts.selection.ranks {
            None => {
                let mut rows: Vec<_> = region.ranks.iter().collect();
                rows.sort_stable_by_key(|r| r.rank);
                rows
            }
            Some(ranks) => ranks.iter().filter_map(|&r| region.rank(r)).collect(),
        };
        let mut per_rank = Vec::new();
        for row in rows {
            let ev = run.source.events(row)?;
            if !ev.starts.is_empty() {
                per_rank.push(ev);
            }
        }
        let Some(calls) = per_rank.iter().map(|e| e.starts.len()).max() else {
            continue;
        };
        let mut points = Vec::with_capacity(calls);
        let (mut starts, mut durs) = (Vec::new(), Vec::new());
        for i in 0..calls {
            starts.clear();
            durs.clear();
            for ev in per_rank.iter().filter(|e| e.starts.len() > i) {
                starts.push(ev.starts[i] as f64 / 1e9 - origin);
                durs.push(ev.ends[i].wrapping_sub(ev.starts[i]) as f64 / 1e9);
            }
            points.push(Point {
                time: numeric::mean(&starts).unwrap_or(f64::NAN),
                mean: numeric::mean(&durs).unwrap_or(f64::NAN),
                min: durs.iter().copied().fold(f64::INFINITY, f64::min),
                max: durs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                ranks: durs.len() as u32,
            });
        }
        out.push((region.name.clone(), points));
    }
    if out.is_empty() {
        return Err(Error::Unavailable(
            "no calls recorded for the requested ranks".into(),
        ));
    }
    Ok(out)
}

/// The table: `file, region, call_index, time_seconds, mean_duration_seconds,
/// min_duration_seconds, max_duration_seconds, num_ranks`.
pub fn table(run: &Run, opts: &Options) -> Result<Table> {
    let mut rows = Vec::new();
    for (name, points) in series(run, opts)? {
        for (i, p) in points.iter().enumerate() {
            rows.push(vec![
                Cell::Text(run.label.clone()),
                Cell::Text(name.clone()),
                Cell::Int(i as i64),
                Cell::Float(p.time),
                Cell::Float(p.mean),
                Cell::Float(p.min),
                Cell::Float(p.max),
                Cell::Int(i64::from(p.ranks)),
            ]);
        }
    }
    let names: Vec<&str> = regions(run.profile, &opts.selection)?
        .iter()
        .map(|r| r.name.as_str())
        .collect();
    Ok(Table {
        kind: super::Kind::Timeseries,
        header: fixed_header(&[
            "file",
            "region",
            "call_index",
            "time_seconds",
            "mean_duration_seconds",
            "min_duration_seconds",
            "max_duration_seconds",
            "num_ranks",
        ]),
        rows,
        rows_key: "points",
        extra: vec![("colors", region_colors(&names))],
    })
}
