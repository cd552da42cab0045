//! `rank_heatmap_data`: the total duration of each region on each selected rank (0 where
//! the rank never entered it), regions in the profile's order, ranks within each region.

use super::fixed_header;
use super::{durations, ranks_or_all, regions, rows_by_rank, Cell, Options, Run, Table};
use crate::analysis::numeric;
use crate::analysis::{Error, Result};

/// The matrix of the chart: its ranks, its regions and `values[region][rank]` (seconds).
#[derive(Debug, Clone, PartialEq)]
pub struct Heatmap {
    pub ranks: Vec<u32>,
    pub regions: Vec<String>,
    pub values: Vec<Vec<f64>>,
}

/// The totals of the selected regions on the selected ranks (all of `0..num_ranks`).
pub fn heatmap(run: &Run, opts: &Options) -> Result<Heatmap> {
    let kept = regions(run.profile, &opts.selection)?;
    let ranks = ranks_or_all(run.profile, &opts.selection);
    let invalid: Vec<String> = (ranks.iter())
        .filter(|&&r| u64::from(r) >= run.profile.num_ranks)
        .map(u32::to_string)
        .collect();
    if !invalid.is_empty() {
        return Err(Error::Unavailable(format!(
            "invalid ranks requested: {} (the profile has {} ranks)",
            invalid.join(", "),
            run.profile.num_ranks
        )));
    }
    let mut values = Vec::with_capacity(kept.len());
    for region in &kept {
        let mut col = Vec::with_capacity(ranks.len());
        let rows = rows_by_rank(region);
        for rank in &ranks {
            let v = match rows.get(rank) {
                Some(row) => numeric::sum(&durations(run.source, row)?),
                None => 0.0,
            };
            col.push(v);
        }
        values.push(col);
    }
    Ok(Heatmap {
        ranks,
        regions: kept.iter().map(|r| r.name.clone()).collect(),
        values,
    })
}

/// The table: `file, rank, region, total_duration_seconds`.
pub fn table(run: &Run, opts: &Options) -> Result<Table> {
    let h = heatmap(run, opts)?;
    let mut rows = Vec::new();
    for (name, col) in h.regions.iter().zip(&h.values) {
        for (rank, v) in h.ranks.iter().zip(col) {
            rows.push(vec![
                Cell::Text(run.label.clone()),
                Cell::Int(i64::from(*rank)),
                Cell::Text(name.clone()),
                Cell::Float(*v),
            ]);
        }
    }
    Ok(Table {
        kind: super::Kind::RankHeatmap,
        header: fixed_header(&["file", "rank", "region", "total_duration_seconds"]),
        rows,
        rows_key: "points",
        extra: Vec::new(),
    })
}
