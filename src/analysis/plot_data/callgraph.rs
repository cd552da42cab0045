//! `callgraph_data`: who calls whom on one rank (the first of `--ranks`, else rank 0), of
//! the first file only, as the reference's `plot_callgraph` writes it. A Python run records
//! each call's id and its caller's (`call_ids`, `parent_ids`), and those are the graph;
//! otherwise the nesting is recovered from timestamps over the selected regions
//! ([`calltree::build`], the reference's `call_stack`) and calls are numbered in start
//! order. Either way a call whose caller was filtered out hangs off its nearest kept
//! ancestor.
//!
//! - By default one row per call, in start order: `call_id, parent_id, name, depth`
//!   (JSON: the rows under `calls`).
//! - `--compact-callgraph` (and `--fluid-callgraph`, whose layout is not data): one node
//!   per region, in the order the calls first name them, and one edge per distinct
//!   caller → callee pair of region names, sorted. The CSV holds the edges (`parent,
//!   child`); the JSON adds the nodes under `regions`: the region's calls, total, own
//!   (exclusive) and average time on the rank, its source, the reference's hover text, and
//!   whether it lies on the critical path (the root-to-leaf chain of calls with the most
//!   own time). Own time is nested over every region of the run on every rank, as the
//!   reference computes it, so calls that do not nest on any rank fail the export.
//!
//! ```
//! use sp::analysis::plot_data::callgraph::hover_summary;
//! let s = hover_summary("A", 2, &[50, 30], &[50, 30], None);
//! assert!(s.starts_with("<b>A</b><br>calls: 2<br>total: 8e-08 s<br>self: 8e-08 s"));
//! ```

use super::fixed_header;
use std::collections::{BTreeMap, HashMap};

use serde_json::{json, Value};

use super::durations::rank_row;
use super::{regions, Cell, Kind, Options, Run, Table};
use crate::analysis::calltree;
use crate::analysis::numeric;
use crate::analysis::report::format::python_g6;
use crate::analysis::{Error, Result};
use crate::schema::Region;
use crate::sort::SortSlice;

/// One call of the graph: its id (the file's own for a Python run, else its place in
/// start order), its caller's, its region (an index into the kept regions), its number
/// within the region's row and its depth among the kept calls.
struct Node {
    id: i64,
    parent: Option<i64>,
    region: usize,
    call_index: usize,
    depth: usize,
}

/// The table of the call graph of `run` (`compact`: one node per region).
pub fn table(run: &Run, opts: &Options, compact: bool) -> Result<Table> {
    let rank = (opts.selection.ranks.as_ref())
        .and_then(|r| r.first().copied())
        .unwrap_or(0);
    let no_calls =
        || Error::Unavailable("no calls recorded for the requested rank or filters".into());
    let kept = regions(run.profile, &opts.selection).map_err(|_| no_calls())?;
    let nodes = match recorded(run, &kept, rank)? {
        Some(nodes) => nodes,
        None => nested(run, &kept, rank)?,
    };
    if nodes.is_empty() {
        return Err(no_calls());
    }
    if !compact {
        let rows = (nodes.iter())
            .map(|n| {
                vec![
                    Cell::Int(n.id),
                    n.parent.map_or(Cell::Null, Cell::Int),
                    Cell::Text(kept[n.region].name.clone()),
                    Cell::Int(n.depth as i64),
                ]
            })
            .collect();
        return Ok(Table {
            kind: Kind::Callgraph,
            header: fixed_header(&["call_id", "parent_id", "name", "depth"]),
            rows,
            rows_key: "calls",
            extra: Vec::new(),
        });
    }

    // Own time of every call on `rank`, by region name and call number.
    let own = own_times(run, rank)?;
    let own_of = |n: &Node| -> f64 {
        (own.get(kept[n.region].name.as_str()))
            .and_then(|v| v.get(n.call_index))
            .map_or(0.0, |&ns| ns as f64 / 1e9)
    };
    let by_id: HashMap<i64, usize> = (nodes.iter().enumerate()).map(|(i, n)| (n.id, i)).collect();
    // The critical path: the chain whose own times add up most (the first such end).
    let mut cumulative: HashMap<i64, f64> = HashMap::with_capacity(nodes.len());
    let mut end = None::<(i64, f64)>;
    for n in &nodes {
        let above = n.parent.and_then(|p| cumulative.get(&p).copied());
        let total = own_of(n) + above.unwrap_or(0.0);
        cumulative.insert(n.id, total);
        if end.is_none_or(|(_, best)| total > best) {
            end = Some((n.id, total));
        }
    }
    let mut critical = vec![false; kept.len()];
    let mut at = end.map(|(id, _)| id);
    // Callers have smaller ids than their calls; the bound guards a malformed file.
    for _ in 0..nodes.len() {
        let Some(&i) = at.and_then(|id| by_id.get(&id)) else {
            break;
        };
        critical[nodes[i].region] = true;
        at = nodes[i].parent;
    }

    let mut regions_json = Vec::new();
    let mut seen = vec![false; kept.len()];
    for n in &nodes {
        if std::mem::replace(&mut seen[n.region], true) {
            continue;
        }
        let region = kept[n.region];
        let critical = critical[n.region];
        regions_json.push(node(run, region, rank, n.depth, &own, critical)?);
    }
    let mut edges: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for n in &nodes {
        if let Some(&p) = n.parent.and_then(|p| by_id.get(&p)) {
            let pair = (
                kept[nodes[p].region].name.as_str(),
                kept[n.region].name.as_str(),
            );
            *edges.entry(pair).or_default() += 1;
        }
    }
    let rows = (edges.keys())
        .map(|(p, c)| vec![Cell::Text(p.to_string()), Cell::Text(c.to_string())])
        .collect();
    Ok(Table {
        kind: Kind::Callgraph,
        header: fixed_header(&["parent", "child"]),
        rows,
        rows_key: "edges",
        extra: vec![("regions", Value::Array(regions_json))],
    })
}

/// The calls of `kept` on `rank` nested from their timestamps, numbered in start order.
fn nested(run: &Run, kept: &[&Region], rank: u32) -> Result<Vec<Node>> {
    let mut rows = Vec::with_capacity(kept.len());
    for region in kept {
        rows.push(rank_row(run, region, rank)?);
    }
    let refs: Vec<&Region> = rows.iter().collect();
    let calls = calltree::build(&refs, rank).map_err(|_| not_nested(rank))?;
    Ok((calls.iter().enumerate())
        .map(|(id, c)| Node {
            id: id as i64,
            parent: c.parent.map(|p| p as i64),
            region: c.region,
            call_index: c.call_index,
            depth: c.depth,
        })
        .collect())
}

/// The calls of `kept` on `rank` from the ids the run recorded (`None` unless every region
/// on the rank has them), in id order. A call whose caller was filtered out hangs off its
/// nearest kept ancestor, walked through every region of the rank.
fn recorded(run: &Run, kept: &[&Region], rank: u32) -> Result<Option<Vec<Node>>> {
    let all = regions(run.profile, &crate::analysis::Selection::all()).unwrap_or_default();
    let mut columns = Vec::new();
    for region in all {
        let Some(row) = region.rank(rank) else {
            continue;
        };
        let Some((ids, parents)) = run.source.call_ids(row)? else {
            return Ok(None);
        };
        let keep = kept.iter().position(|k| k.name == region.name);
        columns.push((keep, ids, parents));
    }
    if columns.is_empty() {
        return Ok(None);
    }
    let mut parent_of: BTreeMap<i64, Option<i64>> = BTreeMap::new();
    let mut kept_calls: BTreeMap<i64, (usize, usize)> = BTreeMap::new();
    for (keep, ids, parents) in &columns {
        for (index, (&id, &parent)) in ids.iter().zip(parents).enumerate() {
            parent_of.insert(id, (parent >= 0).then_some(parent));
            if let Some(k) = keep {
                kept_calls.insert(id, (*k, index));
            }
        }
    }
    // Callers have smaller ids, so one ascending pass resolves every chain.
    let mut nearest: HashMap<i64, Option<i64>> = HashMap::with_capacity(parent_of.len());
    let mut depths: HashMap<i64, usize> = HashMap::with_capacity(kept_calls.len());
    for (&id, &parent) in &parent_of {
        let ancestor = match parent {
            None => None,
            Some(p) if kept_calls.contains_key(&p) => Some(p),
            Some(p) => nearest.get(&p).copied().flatten(),
        };
        nearest.insert(id, ancestor);
        if kept_calls.contains_key(&id) {
            let depth = match ancestor {
                None => 0,
                Some(a) => depths.get(&a).map(|d| d + 1).ok_or_else(|| {
                    Error::Unavailable(format!(
                        "rank {rank}'s call {id} names caller {a}, recorded after it"
                    ))
                })?,
            };
            depths.insert(id, depth);
        }
    }
    Ok(Some(
        (kept_calls.iter())
            .map(|(&id, &(region, call_index))| Node {
                id,
                parent: nearest.get(&id).copied().flatten(),
                region,
                call_index,
                depth: depths.get(&id).copied().unwrap_or(0),
            })
            .collect(),
    ))
}

fn not_nested(rank: u32) -> Error {
    Error::Unavailable(format!(
        "rank {rank}'s calls do not nest (a call ends inside another one)"
    ))
}

/// Each region's own time per call (ns) on `rank`, nested over every region of the run;
/// every rank's calls must nest, as the reference resolves them all at once.
fn own_times(run: &Run, rank: u32) -> Result<HashMap<String, Vec<i64>>> {
    let profile = run.profile;
    let mut ranks: Vec<u32> = (profile.regions.iter())
        .flat_map(|r| r.ranks.iter().map(|row| row.rank))
        .collect();
    ranks.sort_ord_unstable();
    ranks.dedup();
    let mut out = HashMap::new();
    for r in ranks {
        let mut rows = Vec::with_capacity(profile.regions.len());
        for region in &profile.regions {
            rows.push(rank_row(run, region, r)?);
        }
        let refs: Vec<&Region> = rows.iter().collect();
        let calls = calltree::build(&refs, r).map_err(|_| not_nested(r))?;
        if r != rank {
            continue;
        }
        let mut own: Vec<Vec<i64>> = (rows.iter())
            .map(|row| {
                row.ranks
                    .first()
                    .map_or(Vec::new(), |c| c.durations_ns().collect())
            })
            .collect();
        for c in &calls {
            if let Some(slot) = own[c.region].get_mut(c.call_index) {
                *slot = c.exclusive_ns;
            }
        }
        for (region, own) in profile.regions.iter().zip(own) {
            out.entry(region.name.clone()).or_insert(own);
        }
    }
    Ok(out)
}

/// A region's node of the compact graph (`depth`: that of its first call).
fn node(
    run: &Run,
    region: &Region,
    rank: u32,
    depth: usize,
    own: &HashMap<String, Vec<i64>>,
    critical: bool,
) -> Result<Value> {
    let name = region.name.as_str();
    let Some(stored) = region.rank(rank) else {
        return Ok(json!({
            "name": name, "depth": depth, "calls": 0, "total_duration": 0.0,
            "exclusive_duration": 0.0, "average_duration": 0.0, "source": "",
            "summary": format!("<b>{name}</b>"), "critical": critical,
        }));
    };
    let events = run.source.events(stored)?;
    let durations: Vec<i64> = (events.starts.iter().zip(&events.ends))
        .map(|(s, e)| e.wrapping_sub(*s))
        .collect();
    let own: &[i64] = own.get(name).map_or(&[], Vec::as_slice);
    let calls = durations.len();
    let total = int_sum(&durations) / 1e9;
    let own_seconds: Vec<f64> = own.iter().map(|&ns| ns as f64 / 1e9).collect();
    let gpu = events.gpu.as_deref().filter(|g| g.iter().any(|&v| v >= 0));
    let source = match (&stored.source_file, stored.source_line) {
        (Some(file), Some(line)) => format!("{file}:{line}"),
        (Some(file), None) => format!("{file}:None"),
        _ => String::new(),
    };
    Ok(json!({
        "name": name,
        "depth": depth,
        "calls": calls,
        "total_duration": total,
        "exclusive_duration": numeric::sum(&own_seconds),
        "average_duration": if calls > 0 { total / calls as f64 } else { 0.0 },
        "source": source,
        "summary": hover_summary(name, calls, &durations, own, gpu),
        "critical": critical,
    }))
}

/// Exact sum of nanosecond values, as numpy sums int64 (wrapping), as a float.
fn int_sum(ns: &[i64]) -> f64 {
    ns.iter().fold(0i64, |a, &b| a.wrapping_add(b)) as f64
}

/// The reference's hover text of a region on one rank (`_hover_summary` of its
/// `get_summary()`): its name in bold, then calls, total, self, avg, min, max, first, last
/// and std (`.6g` seconds), and the GPU total and average when it has GPU timings.
pub fn hover_summary(
    name: &str,
    calls: usize,
    durations: &[i64],
    own: &[i64],
    gpu: Option<&[i64]>,
) -> String {
    let s = |x: f64| format!("{} s", python_g6(x));
    let as_f64 = |v: &[i64]| v.iter().map(|&x| x as f64).collect::<Vec<f64>>();
    let d = as_f64(durations);
    let timed = !durations.is_empty();
    let or0 = |x: Option<f64>| if timed { x.unwrap_or(0.0) } else { 0.0 };
    let mut lines = vec![format!("<b>{name}</b>"), format!("calls: {calls}")];
    let total = int_sum(durations) / 1e9;
    lines.push(format!("total: {}", s(total)));
    lines.push(format!("self: {}", s(int_sum(own) / 1e9)));
    lines.push(format!("avg: {}", s(or0(numeric::mean(&d)) / 1e9)));
    let min = durations.iter().min().map(|&x| x as f64);
    let max = durations.iter().max().map(|&x| x as f64);
    lines.push(format!("min: {}", s(or0(min) / 1e9)));
    lines.push(format!("max: {}", s(or0(max) / 1e9)));
    lines.push(format!("first: {}", s(or0(d.first().copied()) / 1e9)));
    lines.push(format!("last: {}", s(or0(d.last().copied()) / 1e9)));
    lines.push(format!("std: {}", s(or0(numeric::std(&d)) / 1e9)));
    if let Some(g) = gpu.filter(|g| !g.is_empty()) {
        let gf = as_f64(g);
        lines.push(format!("GPU total: {}", s(int_sum(g) / 1e9)));
        lines.push(format!(
            "GPU avg: {}",
            s(numeric::mean(&gf).unwrap_or(0.0) / 1e9)
        ));
    }
    lines.join("<br>")
}
