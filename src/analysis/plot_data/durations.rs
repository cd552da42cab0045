//! `durations_data`: one bar per region (or per `--combine-regions` group) of a duration
//! statistic pooled over the selected ranks, in the profile's order unless `--sort-by`
//! (descending, ties by name; `name` alphabetical) and `--top-n` say otherwise. With
//! `--stack-children` ([`stacked`]) each bar is split into the region's own time and the
//! time of each region called from it.

use super::fixed_header;
use crate::sort::SortSlice;
use std::collections::{BTreeMap, HashMap};

use super::{pooled, regions, rows, statistic, tab20, Cell, Metric, Options, Run, Table};
use crate::analysis::calltree;
use crate::analysis::pattern::Pattern;
use crate::analysis::selection::Selection;
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
        None | Some("name") => scored.sort_stable_by(|a, b| a.1.cmp(&b.1)),
        Some(_) => scored.sort_stable_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1))),
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
    sorted.sort_ord_unstable();
    if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
        return Err(Error::Unavailable(format!(
            "--combine-regions group name {:?} collides with a region or another group",
            w[0]
        )));
    }
    Ok(out)
}

/// The segment of a stacked bar that is its own (exclusive) time.
pub const SELF: &str = "self";

/// The bars split by `--stack-children` (`_stacked_bar_values`): every bar's time as its
/// own time ([`SELF`]) plus one segment per region called directly from it, the child's
/// whole time inside it. Nesting comes from timestamps ([`calltree::build`]) over every
/// region of the run, filtered out or not, so a segment may name a region with no bar.
#[derive(Debug, Clone, PartialEq)]
pub struct Stacked {
    /// The segments: [`SELF`], then the children by their descending total over the bars
    /// (ties by name); a child that is a member of a `--combine-regions` group is named by
    /// its group.
    pub segments: Vec<String>,
    /// Per bar (in the bars' order), per segment, seconds: with `--metric avg` per call of
    /// the bar. NaN where the bar has no calls to divide by.
    pub values: Vec<Vec<f64>>,
}

impl Stacked {
    /// A bar's whole value: the sum of its segments (NaN when one is).
    pub fn total(&self, bar: usize) -> f64 {
        self.values[bar].iter().sum()
    }
}

/// Splits `bars` (of [`bars`]) into own time and children. Only `total` and `avg` split
/// that way; a rank whose calls do not nest cannot be split either.
pub fn stacked(run: &Run, opts: &Options, bars: &[Bar]) -> Result<Stacked> {
    let bars: Vec<(String, Vec<String>)> = (bars.iter())
        .map(|b| (b.name.clone(), b.members.clone()))
        .collect();
    let (segments, mut values) = stacked_runs(std::slice::from_ref(run), opts, &bars, &mut None)?;
    Ok(Stacked {
        segments,
        values: values.pop().unwrap_or_default(),
    })
}

/// One run's seconds per bar (in the bars' order) and segment.
type BarSegments = Vec<Vec<f64>>;

/// [`stacked`] over several runs (`_stacked_bar_values`): `bars` are names and members
/// over every run ([`bars_runs`]); the segments are pooled over the runs, and each run has
/// its values per bar and segment. The runs' nesting does not depend on the metric:
/// `kept` holds it from one metric to the next.
fn stacked_runs(
    runs: &[Run],
    opts: &Options,
    bars: &[(String, Vec<String>)],
    kept: &mut Option<Vec<RunSegments>>,
) -> Result<(Vec<String>, Vec<BarSegments>)> {
    if !matches!(opts.metric, Metric::Total | Metric::Avg) {
        return Err(Error::Unavailable(format!(
            "--stack-children splits --metric total and avg only (own time plus children), not {}",
            opts.metric.name()
        )));
    }
    let per_run = match kept {
        Some(per_run) => per_run,
        None => kept.insert(runs_segments(runs, opts)?),
    };
    let mut pooled: HashMap<&str, f64> = HashMap::new();
    for segments in per_run.iter() {
        for (bar, _) in bars {
            let under = (segments.children.range(children_of(bar)))
                .take_while(|((parent, _), _)| parent == bar);
            for ((_, child), ns) in under {
                *pooled.entry(child.as_str()).or_insert(0.0) += ns;
            }
        }
    }
    let mut order: Vec<(&str, f64)> = pooled.into_iter().collect();
    order.sort_stable_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    let mut segments = vec![SELF.to_string()];
    segments.extend(order.iter().map(|(l, _)| l.to_string()));
    let values = (runs.iter().zip(per_run.iter()))
        .map(|(run, run_segments)| {
            (bars.iter())
                .map(|(bar, members)| {
                    let calls = match opts.metric {
                        Metric::Avg => (members.iter())
                            .filter_map(|m| run.profile.region(m))
                            .flat_map(|r| rows(r, &opts.selection.ranks))
                            .map(|row| row.calls() as f64)
                            .sum(),
                        _ => 1.0,
                    };
                    (segments.iter().enumerate())
                        .map(|(s, segment)| {
                            let ns = match s {
                                0 => run_segments.own.get(bar.as_str()).copied(),
                                _ => (run_segments.children)
                                    .get(&(bar.clone(), segment.clone()))
                                    .copied(),
                            };
                            match calls == 0.0 {
                                true => f64::NAN,
                                false => ns.unwrap_or(0.0) / 1e9 / calls,
                            }
                        })
                        .collect()
                })
                .collect()
        })
        .collect();
    Ok((segments, values))
}

/// Each run's [`RunSegments`], every region in the bar of its `--combine-regions` group, the
/// groups being those of every run's kept regions, whether or not their bar is drawn.
fn runs_segments(runs: &[Run], opts: &Options) -> Result<Vec<RunSegments>> {
    let groups = group(&kept_names(runs, opts)?, &opts.combine)?;
    let bar_of: HashMap<&str, &str> = (groups.iter())
        .flat_map(|(bar, members)| members.iter().map(move |m| (m.as_str(), bar.as_str())))
        .collect();
    (runs.iter())
        .map(|run| run_segments(run, opts, &bar_of))
        .collect()
}

/// The names of the regions any run keeps, the first run's first (`_all_region_names`).
fn kept_names(runs: &[Run], opts: &Options) -> Result<Vec<String>> {
    let mut names: Vec<String> = Vec::new();
    for run in runs {
        for r in regions(run.profile, &opts.selection).unwrap_or_default() {
            if !names.contains(&r.name) {
                names.push(r.name.clone());
            }
        }
    }
    if names.is_empty() {
        return Err(Error::Unavailable(
            "no regions matched the selected filters".into(),
        ));
    }
    Ok(names)
}

/// The `(parent, child)` keys from `bar`'s first child on (in key order, so its children
/// come first).
fn children_of(bar: &str) -> std::ops::RangeFrom<(String, String)> {
    (bar.to_string(), String::new())..
}

/// One run's time under each bar, nanoseconds (`_stacked_segments`): the bar's own time, and
/// per (parent bar, child bar) the child's whole time inside the parent.
struct RunSegments {
    own: HashMap<String, f64>,
    children: BTreeMap<(String, String), f64>,
}

/// Nesting comes from timestamps ([`calltree::build`]) over every region of the run,
/// filtered out or not, so a segment may name a region with no bar.
fn run_segments(run: &Run, opts: &Options, bar_of: &HashMap<&str, &str>) -> Result<RunSegments> {
    let all = regions(run.profile, &Selection::all())?;
    let mut labels: Vec<&str> = Vec::new();
    let mut label_index: HashMap<&str, usize> = HashMap::new();
    let of_region: Vec<usize> = (all.iter())
        .map(|r| {
            let label = bar_of.get(r.name.as_str()).copied().unwrap_or(&r.name);
            *label_index.entry(label).or_insert_with(|| {
                labels.push(label);
                labels.len() - 1
            })
        })
        .collect();
    let mut ranks: Vec<u32> = (all.iter())
        .flat_map(|r| r.ranks.iter().map(|row| row.rank))
        .collect();
    ranks.sort_ord_unstable();
    ranks.dedup();
    if let Some(keep) = &opts.selection.ranks {
        ranks.retain(|r| keep.contains(r));
    }
    // Nanoseconds, summed per rank in the calls' order and then over the ranks, as numpy's
    // bincount does it.
    let mut own = vec![0.0f64; labels.len()];
    let mut children: BTreeMap<(usize, usize), f64> = BTreeMap::new();
    for rank in ranks {
        let rows = (all.iter())
            .map(|r| rank_row(run, r, rank))
            .collect::<Result<Vec<Region>>>()?;
        let refs: Vec<&Region> = rows.iter().collect();
        let calls = calltree::build(&refs, rank).map_err(|_| {
            Error::Unavailable(format!(
                "rank {rank}'s calls do not nest (a call ends inside another one), so \
                 --stack-children cannot split the bars"
            ))
        })?;
        let mut own_rank = vec![0.0f64; labels.len()];
        let mut children_rank: BTreeMap<(usize, usize), f64> = BTreeMap::new();
        for c in &calls {
            let bar = of_region[c.region];
            own_rank[bar] += c.exclusive_ns as f64;
            // A call under its own bar (recursion, two members of one group) stays in its
            // own time, so the segments add up to the bar.
            let parent = c.parent.map(|p| of_region[calls[p].region]);
            if let Some(parent) = parent.filter(|&p| p != bar) {
                let entry = children_rank.entry((parent, bar)).or_insert(0.0);
                *entry += c.end_ns.wrapping_sub(c.start_ns) as f64;
            }
        }
        own.iter_mut().zip(own_rank).for_each(|(t, v)| *t += v);
        for (key, v) in children_rank {
            *children.entry(key).or_insert(0.0) += v;
        }
    }
    Ok(RunSegments {
        own: (labels.iter().zip(own))
            .map(|(l, ns)| (l.to_string(), ns))
            .collect(),
        children: (children.into_iter())
            .map(|((p, c), ns)| ((labels[p].to_string(), labels[c].to_string()), ns))
            .collect(),
    })
}

/// `region` with only its calls on `rank` (none when it has no row there), read.
pub(crate) fn rank_row(run: &Run, region: &Region, rank: u32) -> Result<Region> {
    let mut row = Region {
        name: region.name.clone(),
        ranks: Vec::new(),
    };
    if let Some(stored) = region.rank(rank) {
        row.ranks.push(crate::analysis::stacks::timed_row(
            run.source, stored, rank,
        )?);
    }
    Ok(row)
}

/// The table: `file, region, metric, value_seconds`; with `--stack-children`
/// `file, region, metric, segment, value_seconds`, segment by segment, each bar's own time
/// always and a child only where it is not zero.
pub fn table(run: &Run, opts: &Options) -> Result<Table> {
    let bars = bars(run, opts)?;
    if opts.stack_children {
        let bars: Vec<(String, Vec<String>)> =
            (bars.into_iter()).map(|b| (b.name, b.members)).collect();
        return stacked_table(
            std::slice::from_ref(run),
            std::slice::from_ref(&run.label),
            opts,
            &bars,
            &mut None,
        );
    }
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
        header: fixed_header(&["file", "region", "metric", "value_seconds"]),
        rows,
        rows_key: "bars",
        extra: vec![
            ("colors", serde_json::Value::Object(colors)),
            ("metrics", serde_json::json!([opts.metric.name()])),
            ("options", serde_json::json!({"stack_children": false})),
        ],
    })
}

/// The `--stack-children` table of `runs` (named `labels`) and its segment colours: run
/// by run, segment by segment, each bar's own time always and a child only where it is not
/// zero; `kept` as [`stacked_runs`] takes it.
fn stacked_table(
    runs: &[Run],
    labels: &[String],
    opts: &Options,
    bars: &[(String, Vec<String>)],
    kept: &mut Option<Vec<RunSegments>>,
) -> Result<Table> {
    let (segments, values) = stacked_runs(runs, opts, bars, kept)?;
    let mut rows = Vec::new();
    for (label, run_values) in labels.iter().zip(&values) {
        for (s, segment) in segments.iter().enumerate() {
            for ((bar, _), values) in bars.iter().zip(run_values) {
                if s > 0 && values[s] == 0.0 {
                    continue;
                }
                rows.push(vec![
                    Cell::Text(label.clone()),
                    Cell::Text(bar.clone()),
                    Cell::Text(opts.metric.name().into()),
                    Cell::Text(segment.clone()),
                    Cell::Float(values[s]),
                ]);
            }
        }
    }
    let colors: serde_json::Map<String, serde_json::Value> = (segments.iter())
        .zip(tab20(segments.len()))
        .map(|(segment, color)| (segment.clone(), color.into()))
        .collect();
    Ok(Table {
        kind: super::Kind::Durations,
        header: fixed_header(&["file", "region", "metric", "segment", "value_seconds"]),
        rows,
        rows_key: "bars",
        extra: vec![
            ("colors", serde_json::Value::Object(colors)),
            ("metrics", serde_json::json!([opts.metric.name()])),
            ("options", serde_json::json!({"stack_children": true})),
        ],
    })
}

/// The table over several files and statistics (`--metrics`): for each statistic, each file
/// (`labels`, in order) and each bar. The bars are the regions of any file (the first
/// file's, then those only later ones have), grouped, and sorted by their worst value over
/// the files; a file without a bar's regions has NaN there. One file is [`table`].
pub fn table_runs(
    runs: &[Run],
    labels: &[String],
    opts: &Options,
    metrics: &[Metric],
) -> Result<Table> {
    let with = |metric: Metric| Options {
        metric,
        ..opts.clone()
    };
    let mut tables = Vec::new();
    if let [run] = runs {
        let run = Run {
            profile: run.profile,
            source: run.source,
            label: labels[0].clone(),
        };
        for &m in metrics {
            tables.push(table(&run, &with(m))?);
        }
    } else {
        let bars = bars_runs(runs, opts)?;
        let mut nesting = None;
        for &m in metrics {
            if opts.stack_children {
                tables.push(stacked_table(runs, labels, &with(m), &bars, &mut nesting)?);
                continue;
            }
            let mut rows = Vec::new();
            for (run, label) in runs.iter().zip(labels) {
                for (name, members) in &bars {
                    let regions: Vec<&Region> = (members.iter())
                        .filter_map(|n| run.profile.region(n))
                        .collect();
                    rows.push(vec![
                        Cell::Text(label.clone()),
                        Cell::Text(name.clone()),
                        Cell::Text(m.name().into()),
                        Cell::Float(pooled_value(run, &regions, m, opts)?),
                    ]);
                }
            }
            let colors: serde_json::Map<String, serde_json::Value> = (labels.iter())
                .zip(tab20(labels.len()))
                .map(|(l, c)| (l.clone(), c.into()))
                .collect();
            tables.push(Table {
                kind: super::Kind::Durations,
                header: fixed_header(&["file", "region", "metric", "value_seconds"]),
                rows,
                rows_key: "bars",
                extra: vec![
                    ("colors", serde_json::Value::Object(colors)),
                    ("metrics", serde_json::json!([])),
                    ("options", serde_json::json!({"stack_children": false})),
                ],
            });
        }
    }
    let mut all = tables.remove(0);
    for t in tables {
        all.rows.extend(t.rows);
        all.extra[0] = t.extra[0].clone();
    }
    let names: Vec<&str> = metrics.iter().map(|m| m.name()).collect();
    all.extra[1].1 = serde_json::json!(names);
    Ok(all)
}

/// The bars over several files: names and members, sorted and cut as [`bars`] does, by the
/// largest finite value over the files.
fn bars_runs(runs: &[Run], opts: &Options) -> Result<Vec<(String, Vec<String>)>> {
    let names = kept_names(runs, opts)?;
    let groups = group(&names, &opts.combine)?;
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
                let mut best = f64::NEG_INFINITY;
                for run in runs {
                    let regions: Vec<&Region> = (members.iter())
                        .filter_map(|n| run.profile.region(n))
                        .collect();
                    let v = pooled_value(run, &regions, m, opts)?;
                    if v.is_finite() && v > best {
                        best = v;
                    }
                }
                best
            }
        };
        scored.push((score, name, members));
    }
    match opts.sort_by.as_deref() {
        None if opts.top_n.is_none() => {}
        None | Some("name") => scored.sort_stable_by(|a, b| a.1.cmp(&b.1)),
        Some(_) => scored.sort_stable_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1))),
    }
    if let Some(n) = opts.top_n {
        scored.truncate(n);
    }
    Ok(scored.into_iter().map(|(_, n, m)| (n, m)).collect())
}
