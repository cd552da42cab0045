//! `durations_data`: one bar per region (or per `--combine-regions` group) of a duration
//! statistic pooled over the selected ranks, in the profile's order unless `--sort-by`
//! (descending, ties by name; `name` alphabetical) and `--top-n` say otherwise.

use super::{pooled, regions, rows, statistic, tab20, Cell, Metric, Options, Run, Table};
use crate::analysis::pattern::Pattern;
use crate::analysis::{Error, Result};
use crate::schema::Region;

/// One bar: its name, the regions it pools and its value in seconds (NaN: no calls).
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub name: String,
    pub members: Vec<String>,
    pub value: f64,
}

/// The bars of the chart, in order.
pub fn bars(run: &Run, opts: &Options) -> Result<Vec<Bar>> {
    let kept = regions(run.profile, &opts.selection)?;
    let names: Vec<String> = kept.iter().map(|r| r.name.clone()).collect();
    let groups = group(&names, &opts.combine)?;
    let value = |members: &[String], metric: Metric| -> Result<f64> {
        let regions: Vec<&Region> = (members.iter())
            .filter_map(|m| run.profile.region(m))
            .collect();
        pooled_value(run, &regions, metric, opts)
    };
    let mut scored = Vec::with_capacity(groups.len());
    for (name, members) in groups {
        let score = match opts.sort_by.as_deref() {
            None | Some("name") => 0.0,
            Some(s) => {
                let m = Metric::parse(s).filter(|m| !matches!(m, Metric::First | Metric::Last));
                let m = m.ok_or_else(|| {
                    Error::Unavailable(format!(
                        "unknown --sort-by {s:?}: name, avg, min, max or total"
                    ))
                })?;
                let v = value(&members, m)?;
                if v.is_finite() {
                    v
                } else {
                    f64::NEG_INFINITY
                }
            }
        };
        scored.push((score, name, members));
    }
    match opts.sort_by.as_deref() {
        None if opts.top_n.is_none() => {}
        None | Some("name") => scored.sort_by(|a, b| a.1.cmp(&b.1)),
        Some(_) => scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1))),
    }
    if let Some(n) = opts.top_n {
        scored.truncate(n);
    }
    scored
        .into_iter()
        .map(|(_, name, members)| {
            let value = value(&members, opts.metric)?;
            Ok(Bar {
                name,
                members,
                value,
            })
        })
        .collect()
}

/// The statistic of every call of `regions` on the selected ranks, pooled.
fn pooled_value(run: &Run, regions: &[&Region], metric: Metric, opts: &Options) -> Result<f64> {
    if regions.is_empty() {
        return Ok(f64::NAN);
    }
    if matches!(metric, Metric::First | Metric::Last) {
        return first_last(run, regions, opts, metric == Metric::First);
    }
    let all: Vec<_> = (regions.iter())
        .flat_map(|r| rows(r, &opts.selection.ranks))
        .collect();
    Ok(statistic(&pooled(run.source, &all)?, metric))
}

/// The duration of the chronologically first call (the row starting earliest) or the last
/// (the row ending latest) of `regions` (`_pooled_first_last_duration`).
pub fn first_last(run: &Run, regions: &[&Region], opts: &Options, first: bool) -> Result<f64> {
    let mut best: Option<(f64, f64)> = None;
    for region in regions {
        for row in rows(region, &opts.selection.ranks) {
            if row.calls() == 0 {
                continue;
            }
            let ev = run.source.events(row)?;
            let (key, dur) = if first {
                let (Some(s), Some(e)) = (ev.starts.first(), ev.ends.first()) else {
                    continue;
                };
                let min = ev.starts.iter().min().copied().unwrap_or(*s);
                (min as f64 / 1e9, e.wrapping_sub(*s) as f64 / 1e9)
            } else {
                let (Some(s), Some(e)) = (ev.starts.last(), ev.ends.last()) else {
                    continue;
                };
                let max = ev.ends.iter().max().copied().unwrap_or(*e);
                (max as f64 / 1e9, e.wrapping_sub(*s) as f64 / 1e9)
            };
            let better = best.is_none_or(|(k, _)| if first { key < k } else { key > k });
            if better {
                best = Some((key, dur));
            }
        }
    }
    Ok(best.map_or(f64::NAN, |(_, d)| d))
}

/// The bars' names and members: groups of `--combine-regions` in the place of their first
/// region, a region claimed by the first group matching it (`_group_regions`).
pub fn group(
    names: &[String],
    combine: &[(String, Vec<String>)],
) -> Result<Vec<(String, Vec<String>)>> {
    let mut claimed: Vec<Option<usize>> = vec![None; names.len()];
    let mut members: Vec<Vec<String>> = Vec::new();
    for (g, (group, patterns)) in combine.iter().enumerate() {
        let patterns = (patterns.iter())
            .map(|p| {
                Pattern::new(p)
                    .map_err(|e| Error::Unavailable(format!("--combine-regions {p:?}: {e}")))
            })
            .collect::<Result<Vec<_>>>()?;
        let mut matched = Vec::new();
        for (i, name) in names.iter().enumerate() {
            if claimed[i].is_none() && patterns.iter().any(|p| p.matches(name)) {
                claimed[i] = Some(g);
                matched.push(name.clone());
            }
        }
        if matched.is_empty() {
            return Err(Error::Unavailable(format!(
                "--combine-regions group {group:?} matched no regions"
            )));
        }
        members.push(matched);
    }
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut seen = vec![false; combine.len()];
    for (i, name) in names.iter().enumerate() {
        match claimed[i] {
            None => out.push((name.clone(), vec![name.clone()])),
            Some(g) if !seen[g] => {
                seen[g] = true;
                out.push((combine[g].0.clone(), members[g].clone()));
            }
            Some(_) => {}
        }
    }
    let mut sorted: Vec<&str> = out.iter().map(|(n, _)| n.as_str()).collect();
    sorted.sort_unstable();
    if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
        return Err(Error::Unavailable(format!(
            "--combine-regions group name {:?} collides with a region or another group",
            w[0]
        )));
    }
    Ok(out)
}

/// The table: `file, region, metric, value_seconds`.
pub fn table(run: &Run, opts: &Options) -> Result<Table> {
    let bars = bars(run, opts)?;
    let rows = (bars.into_iter())
        .map(|b| {
            vec![
                Cell::Text(run.label.clone()),
                Cell::Text(b.name),
                Cell::Text(opts.metric.name().into()),
                Cell::Float(b.value),
            ]
        })
        .collect();
    let colors: serde_json::Map<String, serde_json::Value> =
        [(run.label.clone(), tab20(1)[0].into())]
            .into_iter()
            .collect();
    Ok(Table {
        kind: super::Kind::Durations,
        header: vec!["file", "region", "metric", "value_seconds"],
        rows,
        rows_key: "bars",
        extra: vec![
            ("colors", serde_json::Value::Object(colors)),
            ("metrics", serde_json::json!([opts.metric.name()])),
            ("options", serde_json::json!({"stack_children": false})),
        ],
    })
}
