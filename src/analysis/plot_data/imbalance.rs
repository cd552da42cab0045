//! `imbalance_data`: a duration statistic (`--metric` avg, min, max or total) of each region
//! on each selected rank that called it, ranks ascending, with its mean over those ranks.

use super::fixed_header;
use super::{
    durations, ranks_or_all, region_colors, regions, rows_by_rank, statistic, Cell, Metric,
    Options, Run, Table,
};
use crate::analysis::numeric;
use crate::analysis::{Error, Result};
use crate::sort::SortSlice;

/// One region's line: its ranks, their values and the mean over them (seconds).
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub region: String,
    pub ranks: Vec<u32>,
    pub values: Vec<f64>,
    pub mean: f64,
}

/// The lines of the chart, regions in the profile's order.
pub fn lines(run: &Run, opts: &Options) -> Result<Vec<Line>> {
    if matches!(opts.metric, Metric::First | Metric::Last) {
        return Err(Error::Unavailable(
            "imbalance takes --metric avg, min, max or total".into(),
        ));
    }
    let mut ranks = ranks_or_all(run.profile, &opts.selection);
    ranks.sort_ord_unstable();
    let mut out = Vec::new();
    for region in regions(run.profile, &opts.selection)? {
        let (mut rs, mut vs) = (Vec::new(), Vec::new());
        let rows = rows_by_rank(region);
        for &rank in &ranks {
            let Some(row) = rows.get(&rank) else {
                continue;
            };
            let d = durations(run.source, row)?;
            if d.is_empty() {
                continue;
            }
            rs.push(rank);
            vs.push(statistic(&d, opts.metric));
        }
        if !rs.is_empty() {
            let mean = numeric::mean(&vs).unwrap_or(f64::NAN);
            out.push(Line {
                region: region.name.clone(),
                ranks: rs,
                values: vs,
                mean,
            });
        }
    }
    if out.is_empty() {
        return Err(Error::Unavailable(
            "no calls recorded for the requested ranks".into(),
        ));
    }
    Ok(out)
}

/// The table: `file, region, rank, value_seconds, mean_over_ranks_seconds`.
pub fn table(run: &Run, opts: &Options) -> Result<Table> {
    let lines = lines(run, opts)?;
    let mut rows = Vec::new();
    for l in &lines {
        for (rank, v) in l.ranks.iter().zip(&l.values) {
            rows.push(vec![
                Cell::Text(run.label.clone()),
                Cell::Text(l.region.clone()),
                Cell::Int(i64::from(*rank)),
                Cell::Float(*v),
                Cell::Float(l.mean),
            ]);
        }
    }
    let names: Vec<&str> = regions(run.profile, &opts.selection)?
        .iter()
        .map(|r| r.name.as_str())
        .collect();
    Ok(Table {
        kind: super::Kind::Imbalance,
        header: fixed_header(&[
            "file",
            "region",
            "rank",
            "value_seconds",
            "mean_over_ranks_seconds",
        ]),
        rows,
        rows_key: "points",
        extra: vec![
            ("metric", opts.metric.name().into()),
            ("colors", region_colors(&names)),
        ],
    })
}
