//! `gantt_data`: every call of every selected region on every selected rank, as seconds from
//! the profile's first call, region by region and rank by rank (the time window,
//! `--min-duration`, `--aggregate-calls` and `--collapse-depth` shape the picture, not the
//! data). The JSON document adds each call's nesting depth where its rank's calls nest
//! ([`calltree::build`] over every region, so filters do not change it), the regions'
//! colours and each file's rank count.

use super::fixed_header;
use std::collections::HashMap;

use super::durations::rank_row;
use super::{first_start, region_colors_in_order, regions, Cell, Kind, Options, Run, Table};
use crate::analysis::calltree;
use crate::analysis::selection::Selection;
use crate::analysis::{Error, Result};
use crate::schema::Region;

/// The selected ranks (`0..num_ranks` when none are asked for); a rank the profile does
/// not have is an error, as in the reference.
pub fn ranks(run: &Run, opts: &Options) -> Result<Vec<u32>> {
    let n = u32::try_from(run.profile.num_ranks).unwrap_or(u32::MAX);
    match &opts.selection.ranks {
        None => Ok((0..n).collect()),
        Some(asked) => {
            let bad: Vec<String> = (asked.iter())
                .filter(|&&r| r >= n)
                .map(|r| r.to_string())
                .collect();
            if bad.is_empty() {
                Ok(asked.clone())
            } else {
                Err(Error::Unavailable(format!(
                    "invalid ranks requested: [{}]",
                    bad.join(", ")
                )))
            }
        }
    }
}

/// Each region's call depths on `rank`, by call number, or `None` when the calls of the
/// rank do not nest.
fn depths(run: &Run, rank: u32) -> Result<Option<HashMap<String, Vec<usize>>>> {
    let all = regions(run.profile, &Selection::all())?;
    let rows = (all.iter())
        .map(|r| rank_row(run, r, rank))
        .collect::<Result<Vec<Region>>>()?;
    let refs: Vec<&Region> = rows.iter().collect();
    let Ok(calls) = calltree::build(&refs, rank) else {
        return Ok(None);
    };
    let mut out: HashMap<String, Vec<usize>> = HashMap::new();
    for row in &rows {
        let n = row.ranks.first().map_or(0, |r| r.starts.len());
        out.insert(row.name.clone(), vec![0; n]);
    }
    for c in &calls {
        if let Some(d) = out.get_mut(&rows[c.region].name) {
            if let Some(slot) = d.get_mut(c.call_index) {
                *slot = c.depth;
            }
        }
    }
    Ok(Some(out))
}

/// The table of `run`: `file, rank, region, start_seconds, end_seconds`, and for the JSON
/// document (`json`) a `depth` cell on the calls of ranks that nest (a row shorter than the
/// header leaves the key out).
pub fn table(run: &Run, opts: &Options, json: bool) -> Result<Table> {
    let kept = regions(run.profile, &opts.selection)?;
    let ranks = ranks(run, opts)?;
    let origin = first_start(run.profile);
    let mut by_rank = HashMap::new();
    if json {
        for &rank in &ranks {
            by_rank.insert(rank, depths(run, rank)?);
        }
    }
    let mut rows = Vec::new();
    for region in &kept {
        for &rank in &ranks {
            let Some(row) = region.rank(rank) else {
                continue;
            };
            let ev = run.source.events(row)?;
            let depth = (by_rank.get(&rank))
                .and_then(|d| d.as_ref())
                .and_then(|d| d.get(&region.name));
            for (i, (s, e)) in ev.starts.iter().zip(ev.ends.iter()).enumerate() {
                let mut cells = vec![
                    Cell::Text(run.label.clone()),
                    Cell::Int(rank.into()),
                    Cell::Text(region.name.clone()),
                    Cell::Float(*s as f64 / 1e9 - origin),
                    Cell::Float(*e as f64 / 1e9 - origin),
                ];
                if let Some(d) = depth.and_then(|d| d.get(i)) {
                    cells.push(Cell::Int(*d as i64));
                }
                rows.push(cells);
            }
        }
    }
    let mut header = vec!["file", "rank", "region", "start_seconds", "end_seconds"];
    if json {
        header.push("depth");
    }
    let names: Vec<&str> = kept.iter().map(|r| r.name.as_str()).collect();
    let file_ranks: serde_json::Map<String, serde_json::Value> =
        [(run.label.clone(), run.profile.num_ranks.into())]
            .into_iter()
            .collect();
    Ok(Table {
        kind: Kind::Gantt,
        header: fixed_header(&header),
        rows,
        rows_key: "intervals",
        extra: vec![
            ("colors", region_colors_in_order(&names)),
            ("file_ranks", serde_json::Value::Object(file_ranks)),
        ],
    })
}
