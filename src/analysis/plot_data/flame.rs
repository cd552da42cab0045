//! `flame_chart_data` and `flame_graph_data`: the calls of each selected rank (rank 0 unless
//! `--ranks`), nested over the selected regions ([`calltree::build`], sorted by start, then
//! longest first), with ids, parents, call paths and depths. The flame chart keeps every
//! call at its recorded time (seconds on the recording clock, as the reference's
//! `build_call_stack` gives them); the flame graph merges the calls of one call path, in
//! the order the paths first appear, and lays them end to end from 0, children from their
//! parent's start. A rank whose calls do not nest fails the export, as in the reference.

use super::fixed_header;
use crate::sort::SortSlice;
use std::collections::HashMap;

use serde_json::Value;

use super::{linspace, regions, Cell, Kind, Options, Run, Table};
use crate::analysis::calltree;
use crate::analysis::{Error, Result};
use crate::schema::{RankCalls, Region};

/// One call, or one merged call path of the flame graph.
#[derive(Debug, Clone, PartialEq)]
pub struct FlameCall {
    pub name: String,
    pub call_path: String,
    pub parent: Option<usize>,
    pub depth: usize,
    pub start: f64,
    pub end: f64,
    pub inclusive: f64,
    pub exclusive: f64,
    pub source_file: Option<String>,
    pub source_line: Option<i64>,
}

/// The calls of `rank` over `kept`, in start order (`build_call_stack`).
pub fn calls(run: &Run, kept: &[&Region], rank: u32) -> Result<Vec<FlameCall>> {
    let mut rows = Vec::with_capacity(kept.len());
    for region in kept {
        rows.push(super::durations::rank_row(run, region, rank)?);
    }
    let refs: Vec<&Region> = rows.iter().collect();
    let tree = calltree::build(&refs, rank).map_err(|_| {
        Error::Unavailable(format!(
            "rank {rank}'s calls do not nest (a call ends inside another one)"
        ))
    })?;
    let source = |i: usize| kept[i].rank(rank);
    let mut out: Vec<FlameCall> = Vec::with_capacity(tree.len());
    for c in &tree {
        let name = kept[c.region].name.clone();
        let call_path = match c.parent {
            None => name.clone(),
            Some(p) => format!("{} > {name}", out[p].call_path),
        };
        let stored: Option<&RankCalls> = source(c.region);
        out.push(FlameCall {
            name,
            call_path,
            parent: c.parent,
            depth: c.depth,
            start: c.start_ns as f64 / 1e9,
            end: c.end_ns as f64 / 1e9,
            inclusive: c.end_ns.wrapping_sub(c.start_ns) as f64 / 1e9,
            exclusive: c.exclusive_ns as f64 / 1e9,
            source_file: stored.and_then(|r| r.source_file.as_deref().map(str::to_owned)),
            source_line: stored.and_then(|r| r.source_line),
        });
    }
    Ok(out)
}

/// The flame graph of `calls` (`_aggregate_flame_calls`): one node per call path.
pub fn aggregate(calls: &[FlameCall]) -> Vec<FlameCall> {
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut nodes: Vec<FlameCall> = Vec::new();
    for c in calls {
        match index.get(c.call_path.as_str()) {
            Some(&i) => {
                nodes[i].inclusive += c.inclusive;
                nodes[i].exclusive += c.exclusive;
            }
            None => {
                index.insert(&c.call_path, nodes.len());
                nodes.push(FlameCall {
                    parent: None,
                    depth: c.call_path.matches(" > ").count(),
                    start: 0.0,
                    end: 0.0,
                    ..c.clone()
                });
            }
        }
    }
    let parent_of = |path: &str| path.rsplit_once(" > ").map(|(p, _)| p.to_string());
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    let mut roots = Vec::new();
    for (i, node) in nodes.iter_mut().enumerate() {
        let parent = parent_of(&node.call_path).and_then(|p| index.get(p.as_str()).copied());
        node.parent = parent;
        match parent {
            Some(p) => children[p].push(i),
            None => roots.push(i),
        }
    }
    // Depth first from each root, children from their parent's start.
    let mut stack: Vec<(usize, f64)> = Vec::new();
    let mut cursor = 0.0;
    for &root in &roots {
        stack.push((root, cursor));
        cursor += nodes[root].inclusive;
        while let Some((i, start)) = stack.pop() {
            nodes[i].start = start;
            let mut at = start;
            let mut next = Vec::new();
            for &child in &children[i] {
                next.push((child, at));
                at += nodes[child].inclusive;
            }
            stack.extend(next.into_iter().rev());
        }
    }
    for n in &mut nodes {
        n.end = n.start + n.inclusive;
    }
    nodes
}

/// matplotlib's `inferno` (256 entries), the reference's flame colours.
const INFERNO: [u32; 256] = [
    0x000004, 0x010005, 0x010106, 0x010108, 0x02010a, 0x02020c, 0x02020e, 0x030210, 0x040312,
    0x040314, 0x050417, 0x060419, 0x07051b, 0x08051d, 0x09061f, 0x0a0722, 0x0b0724, 0x0c0826,
    0x0d0829, 0x0e092b, 0x10092d, 0x110a30, 0x120a32, 0x140b34, 0x150b37, 0x160b39, 0x180c3c,
    0x190c3e, 0x1b0c41, 0x1c0c43, 0x1e0c45, 0x1f0c48, 0x210c4a, 0x230c4c, 0x240c4f, 0x260c51,
    0x280b53, 0x290b55, 0x2b0b57, 0x2d0b59, 0x2f0a5b, 0x310a5c, 0x320a5e, 0x340a5f, 0x360961,
    0x380962, 0x390963, 0x3b0964, 0x3d0965, 0x3e0966, 0x400a67, 0x420a68, 0x440a68, 0x450a69,
    0x470b6a, 0x490b6a, 0x4a0c6b, 0x4c0c6b, 0x4d0d6c, 0x4f0d6c, 0x510e6c, 0x520e6d, 0x540f6d,
    0x550f6d, 0x57106e, 0x59106e, 0x5a116e, 0x5c126e, 0x5d126e, 0x5f136e, 0x61136e, 0x62146e,
    0x64156e, 0x65156e, 0x67166e, 0x69166e, 0x6a176e, 0x6c186e, 0x6d186e, 0x6f196e, 0x71196e,
    0x721a6e, 0x741a6e, 0x751b6e, 0x771c6d, 0x781c6d, 0x7a1d6d, 0x7c1d6d, 0x7d1e6d, 0x7f1e6c,
    0x801f6c, 0x82206c, 0x84206b, 0x85216b, 0x87216b, 0x88226a, 0x8a226a, 0x8c2369, 0x8d2369,
    0x8f2469, 0x902568, 0x922568, 0x932667, 0x952667, 0x972766, 0x982766, 0x9a2865, 0x9b2964,
    0x9d2964, 0x9f2a63, 0xa02a63, 0xa22b62, 0xa32c61, 0xa52c60, 0xa62d60, 0xa82e5f, 0xa92e5e,
    0xab2f5e, 0xad305d, 0xae305c, 0xb0315b, 0xb1325a, 0xb3325a, 0xb43359, 0xb63458, 0xb73557,
    0xb93556, 0xba3655, 0xbc3754, 0xbd3853, 0xbf3952, 0xc03a51, 0xc13a50, 0xc33b4f, 0xc43c4e,
    0xc63d4d, 0xc73e4c, 0xc83f4b, 0xca404a, 0xcb4149, 0xcc4248, 0xce4347, 0xcf4446, 0xd04545,
    0xd24644, 0xd34743, 0xd44842, 0xd54a41, 0xd74b3f, 0xd84c3e, 0xd94d3d, 0xda4e3c, 0xdb503b,
    0xdd513a, 0xde5238, 0xdf5337, 0xe05536, 0xe15635, 0xe25734, 0xe35933, 0xe45a31, 0xe55c30,
    0xe65d2f, 0xe75e2e, 0xe8602d, 0xe9612b, 0xea632a, 0xeb6429, 0xeb6628, 0xec6726, 0xed6925,
    0xee6a24, 0xef6c23, 0xef6e21, 0xf06f20, 0xf1711f, 0xf1731d, 0xf2741c, 0xf3761b, 0xf37819,
    0xf47918, 0xf57b17, 0xf57d15, 0xf67e14, 0xf68013, 0xf78212, 0xf78410, 0xf8850f, 0xf8870e,
    0xf8890c, 0xf98b0b, 0xf98c0a, 0xf98e09, 0xfa9008, 0xfa9207, 0xfa9407, 0xfb9606, 0xfb9706,
    0xfb9906, 0xfb9b06, 0xfb9d07, 0xfc9f07, 0xfca108, 0xfca309, 0xfca50a, 0xfca60c, 0xfca80d,
    0xfcaa0f, 0xfcac11, 0xfcae12, 0xfcb014, 0xfcb216, 0xfcb418, 0xfbb61a, 0xfbb81d, 0xfbba1f,
    0xfbbc21, 0xfbbe23, 0xfac026, 0xfac228, 0xfac42a, 0xfac62d, 0xf9c72f, 0xf9c932, 0xf9cb35,
    0xf8cd37, 0xf8cf3a, 0xf7d13d, 0xf7d340, 0xf6d543, 0xf6d746, 0xf5d949, 0xf5db4c, 0xf4dd4f,
    0xf4df53, 0xf4e156, 0xf3e35a, 0xf3e55d, 0xf2e661, 0xf2e865, 0xf2ea69, 0xf1ec6d, 0xf1ed71,
    0xf1ef75, 0xf1f179, 0xf2f27d, 0xf2f482, 0xf3f586, 0xf3f68a, 0xf4f88e, 0xf5f992, 0xf6fa96,
    0xf8fb9a, 0xf9fc9d, 0xfafda1, 0xfcffa4,
];

/// The reference's flame colours of `names`: inferno sampled at `np.linspace(0, 1, n)` over
/// the names sorted.
fn inferno_colors(names: &[&str]) -> Value {
    let mut sorted: Vec<&str> = names.to_vec();
    sorted.sort_ord_unstable();
    sorted.dedup();
    let xs = linspace(0.0, 1.0, sorted.len().max(1));
    let map: serde_json::Map<String, Value> = (sorted.iter().zip(xs))
        .map(|(n, x)| {
            let rgb = INFERNO[((x * 256.0) as usize).min(255)];
            (n.to_string(), format!("#{rgb:06x}").into())
        })
        .collect();
    Value::Object(map)
}

/// The table of `kind` (the flame chart or graph) over `runs`, named by `labels` (as
/// given: the reference makes them unique per file and rank).
pub fn table(kind: Kind, runs: &[Run], labels: &[String], opts: &Options) -> Result<Table> {
    let graph = kind == Kind::FlameGraph;
    let ranks = opts.selection.ranks.clone().unwrap_or_else(|| vec![0]);
    let mut names: Vec<&str> = Vec::new();
    let mut kept_all = Vec::new();
    for run in runs {
        let kept = regions(run.profile, &opts.selection)?;
        names.extend(kept.iter().map(|r| r.name.as_str()));
        kept_all.push(kept);
    }
    let mut prepared = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        for &rank in &ranks {
            if u64::from(rank) >= run.profile.num_ranks {
                return Err(Error::Unavailable(format!(
                    "invalid rank requested: {rank}"
                )));
            }
            let mut c = calls(run, &kept_all[i], rank)?;
            if graph {
                c = aggregate(&c);
            }
            if !c.is_empty() {
                prepared.push((i, rank, c));
            }
        }
    }
    if prepared.is_empty() {
        return Err(Error::Unavailable(
            "no calls recorded for the requested ranks".into(),
        ));
    }
    let given: Vec<String> = prepared
        .iter()
        .map(|(i, _, _)| labels[*i].clone())
        .collect();
    let unique = super::files::unique_labels(&given);
    let mut rows = Vec::new();
    let mut used: Vec<&str> = Vec::new();
    for ((_, rank, calls), label) in prepared.iter().zip(&unique) {
        for (id, c) in calls.iter().enumerate() {
            used.push(&c.name);
            let mut row = vec![
                Cell::Text(label.clone()),
                Cell::Int((*rank).into()),
                Cell::Int(id as i64),
                c.parent.map_or(Cell::Null, |p| Cell::Int(p as i64)),
                Cell::Text(c.name.clone()),
                Cell::Text(c.call_path.clone()),
            ];
            if !graph {
                row.push(c.source_file.clone().map_or(Cell::Null, Cell::Text));
                row.push(c.source_line.map_or(Cell::Null, Cell::Int));
            }
            row.extend([
                Cell::Int(c.depth as i64),
                Cell::Float(c.start),
                Cell::Float(c.end),
                Cell::Float(c.inclusive),
                Cell::Float(c.exclusive),
            ]);
            rows.push(row);
        }
    }
    let mut header = vec![
        "file",
        "rank",
        "call_id",
        "parent_call_id",
        "region",
        "call_path",
    ];
    if !graph {
        header.extend(["source_file", "source_lineno"]);
    }
    header.extend([
        "depth",
        "start_seconds",
        "end_seconds",
        "inclusive_duration_seconds",
        "exclusive_duration_seconds",
    ]);
    let mut extra = Vec::new();
    if !graph {
        let all = inferno_colors(&names);
        let used: serde_json::Map<String, Value> = (used.iter())
            .filter_map(|n| Some((n.to_string(), all.get(*n)?.clone())))
            .collect();
        let file_ranks: serde_json::Map<String, Value> = (prepared.iter().zip(&unique))
            .map(|((i, _, _), l)| (l.clone(), runs[*i].profile.num_ranks.into()))
            .collect();
        extra.push(("colors", Value::Object(used)));
        extra.push(("file_ranks", Value::Object(file_ranks)));
    }
    Ok(Table {
        kind,
        header: fixed_header(&header),
        rows,
        rows_key: "calls",
        extra,
    })
}
