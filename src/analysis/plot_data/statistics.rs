//! `region_statistics.json`, which `export plot-data` writes beside every export: per file,
//! per selected region, the pooled duration statistics of its calls on the selected ranks
//! and the same per rank (`collect_region_statistics`), with numpy's reductions.

use crate::sort::SortSlice;
use serde_json::{json, Map, Value};

use super::{durations, rows, Run};
use crate::analysis::metadata::meta_seconds;
use crate::analysis::numeric;
use crate::analysis::selection::Selection;
use crate::analysis::Result;
use crate::schema::Region;

/// The statistics of `values`, with the first and last call's duration given (they are not
/// statistics of pooled values): all `null` when there are none.
fn stats(values: &[f64], first: Option<f64>, last: Option<f64>) -> Map<String, Value> {
    let float = |x: Option<f64>| x.map_or(Value::Null, |x| json!(x));
    let mut m = Map::new();
    m.insert("count".into(), values.len().into());
    let empty = values.is_empty();
    let of = |x: f64| if empty { Value::Null } else { json!(x) };
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    m.insert(
        "average_duration_seconds".into(),
        float(numeric::mean(values)),
    );
    m.insert("min_duration_seconds".into(), of(min));
    m.insert("max_duration_seconds".into(), of(max));
    let (first, last) = if empty { (None, None) } else { (first, last) };
    m.insert("first_duration_seconds".into(), float(first));
    m.insert("last_duration_seconds".into(), float(last));
    m.insert("std_duration_seconds".into(), float(numeric::std(values)));
    m.insert("total_duration_seconds".into(), of(numeric::sum(values)));
    m
}

/// The kept regions of a profile in the reference's order (none is not an error here).
fn kept<'p>(run: &Run<'p>, selection: &Selection) -> Vec<&'p Region> {
    super::regions(run.profile, selection).unwrap_or_default()
}

/// The document's keys after `plot`: units, filters, common regions, and one entry per
/// file (`labels` in the runs' order, `paths` the files' absolute paths).
pub fn document(
    runs: &[Run],
    labels: &[String],
    paths: &[String],
    selection: &Selection,
) -> Result<Vec<(&'static str, Value)>> {
    let opts = super::Options {
        selection: selection.clone(),
        ..super::Options::default()
    };
    let mut files = Vec::new();
    let mut first_names: Vec<String> = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let mut regions = Map::new();
        for region in kept(run, selection) {
            if i == 0 {
                first_names.push(region.name.clone());
            }
            let all = rows(region, &selection.ranks);
            let values = super::pooled(run.source, &all)?;
            let first = durations::first_last(run, &[region], &opts, true)?;
            let last = durations::first_last(run, &[region], &opts, false)?;
            let known = |x: f64| (!x.is_nan()).then_some(x);
            let mut entry = stats(&values, known(first), known(last));
            let mut by_rank: Vec<_> = region.ranks.iter().collect();
            by_rank.sort_stable_by_key(|r| r.rank);
            by_rank.dedup_by_key(|r| r.rank);
            let mut per_rank = Map::new();
            for row in by_rank {
                if (selection.ranks.as_ref()).is_some_and(|keep| !keep.contains(&row.rank)) {
                    continue;
                }
                let values = super::durations(run.source, row)?;
                let (f, l) = (values.first().copied(), values.last().copied());
                per_rank.insert(row.rank.to_string(), Value::Object(stats(&values, f, l)));
            }
            entry.insert("per_rank".into(), Value::Object(per_rank));
            regions.insert(region.name.clone(), Value::Object(entry));
        }
        let total = match (
            meta_seconds(run.profile, "start_time_ns"),
            meta_seconds(run.profile, "finalize_time_ns"),
        ) {
            (Some(a), Some(b)) => json!(b - a),
            _ => Value::Null,
        };
        files.push(json!({
            "label": labels[i],
            "file_path": paths[i],
            "num_ranks": run.profile.num_ranks,
            "total_time_seconds": total,
            "region_statistics": Value::Object(regions),
        }));
    }
    let common: Vec<String> = if runs.len() > 1 {
        let first: Vec<String> = (kept(&runs[0], selection).iter())
            .map(|r| r.name.clone())
            .collect();
        let others: Vec<Vec<&Region>> = runs[1..].iter().map(|r| kept(r, selection)).collect();
        (first.into_iter())
            .filter(|n| others.iter().all(|o| o.iter().any(|r| &r.name == n)))
            .collect()
    } else {
        first_names
    };
    let list = |p: &Option<Vec<crate::analysis::pattern::Pattern>>| {
        (p.as_ref()).map_or(Value::Null, |v| {
            json!(v.iter().map(|p| p.as_str()).collect::<Vec<_>>())
        })
    };
    Ok(vec![
        ("units", json!({"durations": "seconds"})),
        (
            "filters",
            json!({
                "include": list(&selection.include),
                "exclude": list(&selection.exclude),
                "ranks": selection.ranks.as_ref().map_or(Value::Null, |r| json!(r)),
            }),
        ),
        ("common_regions", json!(common)),
        ("files", Value::Array(files)),
    ])
}
