//! What `export plot-data FILES… -o DIR` writes: for each kind asked for (`--plots`, the
//! reference's default `durations gantt`) its table under the reference's file name, in CSV
//! or JSON, then `region_statistics.json`. Everything is computed before anything is
//! returned, so a front end writes all the files or none.
//!
//! ```
//! use sp::analysis::plot_data::files::{plots, DEFAULT};
//! assert_eq!(plots(None).unwrap(), ["gantt", "durations"]);
//! assert!(plots(Some(&["likwid".into()])).is_err());
//! ```

use serde_json::{Map, Value};

use super::{statistics, table, write, Kind, Metric, Options, Run, Table};
use crate::analysis::{Error, Result};

/// The reference's kinds, in the order of its `--plots` choices.
pub const CATALOG: [&str; 17] = [
    "gantt",
    "density",
    "flame_chart",
    "flame_graph",
    "callgraph",
    "durations",
    "timeseries",
    "speedup",
    "weak_scaling",
    "weak_scaling_efficiency",
    "rank_heatmap",
    "scaling_efficiency",
    "histogram",
    "imbalance",
    "likwid",
    "roofline",
    "perf_events",
];

/// The kinds written when `--plots` is not given.
pub const DEFAULT: [&str; 2] = ["durations", "gantt"];

/// Kinds that need calls: when no file has any, the reference writes no plot data at all.
const TIMED: [&str; 8] = [
    "gantt",
    "flame_chart",
    "flame_graph",
    "durations",
    "timeseries",
    "histogram",
    "imbalance",
    "density",
];

/// The kinds asked for, checked (`None`: [`DEFAULT`]), in the order the reference writes
/// them.
pub fn plots(asked: Option<&[String]>) -> std::result::Result<Vec<&'static str>, String> {
    const ORDER: [&str; 17] = [
        "gantt",
        "density",
        "flame_chart",
        "flame_graph",
        "callgraph",
        "durations",
        "timeseries",
        "histogram",
        "imbalance",
        "likwid",
        "roofline",
        "perf_events",
        "speedup",
        "weak_scaling",
        "weak_scaling_efficiency",
        "rank_heatmap",
        "scaling_efficiency",
    ];
    let asked: Vec<&str> = match asked {
        None => DEFAULT.to_vec(),
        Some(asked) => asked.iter().map(String::as_str).collect(),
    };
    for name in &asked {
        if !CATALOG.contains(name) {
            return Err(format!(
                "--plots has no kind {name:?}: {}",
                CATALOG.join(", ")
            ));
        }
        if ["likwid", "roofline", "perf_events"].contains(name) {
            return Err(format!(
                "--plots {name} needs hardware-counter data, which sp does not export"
            ));
        }
        if Kind::parse(name).is_none() {
            return Err(format!("--plots {name} is not supported by sp yet"));
        }
    }
    Ok(ORDER.into_iter().filter(|k| asked.contains(k)).collect())
}

/// The options of the export beyond the tables' own ([`Options`]).
#[derive(Debug, Clone)]
pub struct Request {
    /// The kinds, as [`plots`] returns them.
    pub plots: Vec<&'static str>,
    /// JSON documents instead of CSV files.
    pub json: bool,
    /// `--metrics`: the durations' statistics, in order.
    pub metrics: Vec<Metric>,
    /// `--imbalance-metric`.
    pub imbalance_metric: Metric,
    /// `--label`, one per file; `None`: each run's own label, made unique.
    pub labels: Option<Vec<String>>,
    /// Each file's absolute path, for `region_statistics.json`.
    pub paths: Vec<String>,
    /// `--x`: the scaling kinds' axis (`num_ranks` …).
    pub x: String,
    /// `--compact-callgraph` (or `--fluid-callgraph`): one call-graph node per region.
    pub compact_callgraph: bool,
    /// `--with`: the exports written beside the plot data.
    pub companions: Vec<Companion>,
    /// `export prof`: an entry per call path (`parent > child`); `--no-call-paths`: one
    /// per region. `--with prof` always keeps the paths, as the reference's does.
    pub call_paths: bool,
}

/// An export `--with` writes beside the plot data, under the reference's names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Companion {
    /// `profile_rank<N>.prof` ([`crate::analysis::pstats`]).
    Prof,
    /// `profile.speedscope.json` ([`crate::analysis::export::speedscope`]).
    Speedscope,
}

/// One file to write into the output directory.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    /// The reference's file name (`durations_data.csv` …).
    pub name: String,
    pub bytes: Vec<u8>,
}

/// The reference's `_unique_labels`: a repeated label gets ` (2)`, ` (3)` ….
pub fn unique_labels(labels: &[String]) -> Vec<String> {
    let mut seen: Vec<(&str, usize)> = Vec::new();
    (labels.iter())
        .map(|l| {
            let n = match seen.iter_mut().find(|(s, _)| *s == l) {
                Some((_, n)) => {
                    *n += 1;
                    *n
                }
                None => {
                    seen.push((l, 1));
                    1
                }
            };
            if n > 1 {
                format!("{l} ({n})")
            } else {
                l.clone()
            }
        })
        .collect()
}

/// The runs' labels as given (`--label`, else each run's own) and made unique.
fn labels(runs: &[Run], req: &Request) -> Result<(Vec<String>, Vec<String>)> {
    let given: Vec<String> = match &req.labels {
        Some(labels) if labels.len() != runs.len() => {
            return Err(Error::Unavailable(format!(
                "--label given {} time(s) for {} file(s); pass one per file, in order",
                labels.len(),
                runs.len()
            )))
        }
        Some(labels) => labels.clone(),
        None => runs.iter().map(|r| r.label.clone()).collect(),
    };
    let unique = unique_labels(&given);
    Ok((given, unique))
}

/// The files of the reference's `export prof FILES… -o DIR`: `profile_rank<N>.prof` per
/// run and rank (`--ranks`, else rank 0), by call path unless `--no-call-paths`.
pub fn prof(runs: &[Run], req: &Request, opts: &Options) -> Result<Vec<Output>> {
    let (_, unique) = labels(runs, req)?;
    let ranks = opts.selection.ranks.clone().unwrap_or(vec![0]);
    let files = crate::analysis::pstats::files(
        runs,
        &unique,
        &opts.selection,
        &ranks,
        "profile",
        req.call_paths,
    )?;
    Ok((files.into_iter())
        .map(|(name, bytes)| Output { name, bytes })
        .collect())
}

/// Every file of the export of `runs`, in the order the reference writes them.
pub fn files(runs: &[Run], req: &Request, opts: &Options) -> Result<Vec<Output>> {
    let (given, unique) = labels(runs, req)?;
    let ext = if req.json { "json" } else { "csv" };
    let timed = runs
        .iter()
        .any(|r| (r.profile.regions.iter()).any(|g| g.ranks.iter().any(|row| row.calls() > 0)));
    let mut out = Vec::new();
    let skip_all = !timed && req.plots.iter().any(|p| TIMED.contains(p));
    for name in req.plots.iter().filter(|_| !skip_all) {
        let Some(kind) = Kind::parse(name) else {
            continue;
        };
        // The scaling kinds compare files: one file has none.
        if (name.contains("scal") || *name == "speedup") && runs.len() < 2 {
            continue;
        }
        let table = kind_table(kind, runs, &given, &unique, req, opts)?;
        out.push(Output {
            name: format!("{}.{ext}", kind.file_stem()),
            bytes: table.bytes(req.json),
        });
    }
    let mut doc = Map::new();
    doc.insert("format".into(), "scope-profiler-plot-data".into());
    doc.insert("format_version".into(), 1.into());
    doc.insert("plot".into(), "region_statistics".into());
    for (k, v) in statistics::document(runs, &unique, &req.paths, &opts.selection)? {
        doc.insert(k.into(), v);
    }
    let mut bytes = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = write::write_value(&Value::Object(doc), &mut bytes);
    out.push(Output {
        name: "region_statistics.json".into(),
        bytes,
    });
    for companion in &req.companions {
        out.extend(companion_files(*companion, runs, &unique, opts)?);
    }
    Ok(out)
}

/// The files of one `--with` export: the ranks of `--ranks`, else rank 0, as the
/// reference's `export prof` and `export speedscope` default to.
fn companion_files(
    companion: Companion,
    runs: &[Run],
    labels: &[String],
    opts: &Options,
) -> Result<Vec<Output>> {
    let ranks = opts.selection.ranks.clone().unwrap_or(vec![0]);
    let outputs = match companion {
        Companion::Prof => {
            crate::analysis::pstats::files(runs, labels, &opts.selection, &ranks, "profile", true)?
        }
        Companion::Speedscope => {
            let mut selection = opts.selection.clone();
            selection.ranks = Some(ranks);
            let mut out = Vec::new();
            for (run, label) in runs.iter().zip(labels) {
                let mut bytes = Vec::new();
                let lanes = crate::schema::Lanes::default();
                crate::analysis::export::speedscope(
                    run.profile,
                    run.source,
                    &lanes,
                    &selection,
                    label,
                    &mut bytes,
                )?;
                let name = match runs.len() {
                    1 => "profile.speedscope.json".to_owned(),
                    _ => format!(
                        "profile_{}.speedscope.json",
                        crate::analysis::pstats::filename_slug(label)
                    ),
                };
                out.push((name, bytes));
            }
            out
        }
    };
    Ok((outputs.into_iter())
        .map(|(name, bytes)| Output { name, bytes })
        .collect())
}

/// The table of `kind` over every run: durations pools them; the others are each run's
/// table one after another (their `colors` over every region named).
fn kind_table(
    kind: Kind,
    runs: &[Run],
    given: &[String],
    unique: &[String],
    req: &Request,
    opts: &Options,
) -> Result<Table> {
    match kind {
        Kind::Durations => return super::durations::table_runs(runs, unique, opts, &req.metrics),
        Kind::FlameChart | Kind::FlameGraph => return super::flame::table(kind, runs, given, opts),
        // The reference draws the call graph of the first file only.
        Kind::Callgraph => {
            let run = runs
                .first()
                .ok_or_else(|| Error::Unavailable("no profile given".into()))?;
            return super::callgraph::table(run, opts, req.compact_callgraph);
        }
        Kind::Speedup
        | Kind::ScalingEfficiency
        | Kind::WeakScaling
        | Kind::WeakScalingEfficiency => return super::scaling::table(kind, runs, opts, &req.x),
        _ => {}
    }
    // The heatmap and the density name a file by its label as given.
    let labels = match kind {
        Kind::RankHeatmap | Kind::Density => given,
        _ => unique,
    };
    let opts = Options {
        metric: match kind {
            Kind::Imbalance => req.imbalance_metric,
            _ => opts.metric,
        },
        ..opts.clone()
    };
    let mut all: Option<Table> = None;
    let mut colors: Vec<String> = Vec::new();
    for (run, label) in runs.iter().zip(labels) {
        let run = Run {
            profile: run.profile,
            source: run.source,
            label: label.clone(),
        };
        let t = match kind {
            Kind::Gantt => super::gantt::table(&run, &opts, req.json)?,
            _ => table(kind, &run, &opts)?,
        };
        for (k, v) in &t.extra {
            if let (&"colors", Value::Object(m)) = (k, v) {
                colors.extend(
                    m.keys()
                        .filter(|n| !colors.contains(n))
                        .cloned()
                        .collect::<Vec<_>>(),
                );
            }
        }
        match &mut all {
            None => all = Some(t),
            Some(all) => {
                all.rows.extend(t.rows);
                // Maps by file (the gantt's `file_ranks`) gather every file's entry.
                for ((k, mine), (_, theirs)) in all.extra.iter_mut().zip(t.extra) {
                    if let (Value::Object(m), Value::Object(t)) = (mine, theirs) {
                        if *k != "colors" {
                            m.extend(t);
                        }
                    }
                }
            }
        }
    }
    let mut all = all.ok_or_else(|| Error::Unavailable("no profile given".into()))?;
    if runs.len() > 1 {
        let names: Vec<&str> = colors.iter().map(String::as_str).collect();
        for (k, v) in all.extra.iter_mut() {
            // The gantt lists them in the order the regions come, the others sorted.
            if *k == "colors" && kind == Kind::Gantt {
                *v = super::region_colors_in_order(&names);
            } else if *k == "colors" {
                *v = super::region_colors(&names);
            }
        }
    }
    Ok(all)
}
