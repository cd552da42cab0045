//! The tools, as `scope_profiler.mcp_server.tools` computes them: each takes the call's
//! arguments and returns the reference's structured result, or a [`ToolError`] with the
//! reference's message. The numbers come from the same library functions as `sp inspect`,
//! `sp diff` and `sp plot`.

use std::fmt;
use std::io;

use serde_json::{json, Map, Value as Json};

use super::Files;
use crate::analysis::compare::{self, DiffOptions, DiffOrder, Metric};
use crate::analysis::metadata::{label, meta_seconds, PyValue, Sections};
use crate::analysis::overview::time_span;
use crate::analysis::report::compute::{file_rows, profile_rows, FileRows};
use crate::analysis::report::{Format, ReportOptions};
use crate::analysis::stored::{OpenError, StoredProfile};
use crate::analysis::{RegionRow, Selection, SortKey};
use crate::chart::plot::{self as chart_plot, Input, Kind, PlotOptions};
use crate::hdf5lite::reader::Value;
use crate::hdf5lite::Shape;
use crate::schema::likwid::{LikwidByRank, StoredArray};
use crate::schema::{import, Depth, MetaValue, Profile};

#[cfg(not(target_arch = "wasm32"))]
const RUNNER: crate::analysis::report::threads::Threads = crate::analysis::report::threads::Threads;
#[cfg(target_arch = "wasm32")]
const RUNNER: crate::analysis::report::compute::InOrder = crate::analysis::report::compute::InOrder;

/// How many regions a tool returns unless told (`_DEFAULT_TOP_N`).
pub const DEFAULT_TOP_N: i64 = 20;

/// A tool's failure, for the agent to read: bad arguments, a missing or unreadable file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError(pub String);

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ToolError {}

type Result<T> = std::result::Result<T, ToolError>;

fn fail<T>(message: impl Into<String>) -> Result<T> {
    Err(ToolError(message.into()))
}

/// A call's arguments, checked as the reference's signatures check them.
struct Args<'a>(&'a Map<String, Json>);

impl Args<'_> {
    /// The argument, `None` when absent or null.
    fn get(&self, key: &str) -> Option<&Json> {
        self.0.get(key).filter(|v| !v.is_null())
    }

    fn invalid<T>(key: &str, what: &str) -> Result<T> {
        fail(format!("invalid argument {key}: expected {what}"))
    }

    fn string(&self, key: &str) -> Result<Option<&str>> {
        match self.get(key) {
            None => Ok(None),
            Some(Json::String(s)) => Ok(Some(s)),
            Some(_) => Self::invalid(key, "a string"),
        }
    }

    fn required(&self, key: &str) -> Result<&str> {
        match self.string(key)? {
            Some(s) => Ok(s),
            None => fail(format!("missing argument {key}")),
        }
    }

    fn strings(&self, key: &str) -> Result<Option<Vec<String>>> {
        let Some(value) = self.get(key) else {
            return Ok(None);
        };
        let items = value.as_array().map(|items| {
            items
                .iter()
                .map(|v| v.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
        });
        match items {
            Some(Some(items)) => Ok(Some(items)),
            _ => Self::invalid(key, "a list of strings or null"),
        }
    }

    fn ranks(&self) -> Result<Option<Vec<u32>>> {
        let Some(value) = self.get("ranks") else {
            return Ok(None);
        };
        let items = value.as_array().map(|items| {
            items
                .iter()
                .map(|v| v.as_u64().and_then(|r| u32::try_from(r).ok()))
                .collect::<Option<Vec<_>>>()
        });
        match items {
            Some(Some(items)) => Ok(Some(items)),
            _ => Self::invalid("ranks", "a list of non-negative rank numbers or null"),
        }
    }

    /// `top_n`: 20 when absent, `None` when null, else a positive integer (the reference
    /// refuses 0 and negatives).
    fn top_n(&self) -> Result<Option<usize>> {
        let n = match self.0.get("top_n") {
            None => DEFAULT_TOP_N,
            Some(Json::Null) => return Ok(None),
            Some(v) => match v.as_i64() {
                Some(n) => n,
                None => return Self::invalid("top_n", "an integer or null"),
            },
        };
        if n < 1 {
            return fail("top_n must be a positive integer, or None/0 for no limit");
        }
        Ok(Some(usize::try_from(n).unwrap_or(usize::MAX)))
    }

    fn boolean(&self, key: &str, default: bool) -> Result<bool> {
        match self.get(key) {
            None => Ok(default),
            Some(Json::Bool(b)) => Ok(*b),
            Some(_) => Self::invalid(key, "a boolean"),
        }
    }

    fn number(&self, key: &str, default: f64) -> Result<f64> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v
                .as_f64()
                .map_or_else(|| Self::invalid(key, "a number"), Ok),
        }
    }

    fn selection(&self) -> Result<Selection> {
        let (include, exclude) = (self.strings("include")?, self.strings("exclude")?);
        Selection::new(include.as_deref(), exclude.as_deref(), self.ranks()?)
            .map_err(|e| ToolError(e.to_string()))
    }
}

/// Python's `repr` of a tuple or list of names.
fn py_names(names: &[&str], open: char, close: char) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    format!("{open}{}{close}", quoted.join(", "))
}

fn open<F: Files>(files: &F, path: &str) -> Result<StoredProfile<F::Source>> {
    let source = files.open(path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => ToolError(format!("HDF5 file not found: {path}")),
        _ => unreadable(path, &e),
    })?;
    StoredProfile::open(source).map_err(|e| match e {
        OpenError::Io(e) => unreadable(path, &e),
        other => unreadable(path, &other),
    })
}

fn unreadable(path: &str, e: &dyn fmt::Display) -> ToolError {
    ToolError(format!("Could not read '{path}' as a profiling file: {e}"))
}

/// `pathlib.PurePosixPath(path)` as `str()` gives it: no repeated or trailing separators,
/// no `.` components.
fn py_path(path: &str) -> String {
    let absolute = path.starts_with('/');
    let parts: Vec<&str> = path
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    let joined = parts.join("/");
    match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".into(),
        (false, false) => joined,
    }
}

/// `Path(path).stem`: the last component without its last suffix.
fn stem(path: &str) -> String {
    let name = py_path(path);
    let name = name.rsplit('/').next().unwrap_or("");
    match name.rfind('.') {
        Some(i) if i > 0 && i + 1 < name.len() => name[..i].to_string(),
        _ => name.to_string(),
    }
}

fn number(v: Option<f64>) -> Json {
    v.filter(|x| x.is_finite()).map_or(Json::Null, |x| json!(x))
}

/// A metadata value as the reference's JSON carries it.
fn meta_json(v: &PyValue) -> Json {
    match v {
        PyValue::Int(i) => json!(i),
        PyValue::Float(f) => number(Some(*f)),
        PyValue::Bool(b) => json!(b),
        PyValue::Str(s) => json!(s),
        PyValue::List(items) => Json::Array(items.iter().map(meta_json).collect()),
    }
}

/// `total_time`: seconds from `setup()` to `finalize()`, from the metadata.
fn total_time(profile: &Profile) -> Option<f64> {
    Some(meta_seconds(profile, "finalize_time_ns")? - meta_seconds(profile, "start_time_ns")?)
}

/// `_profile_headline`: the numbers every tool that reads a file returns.
fn headline(path: &str, profile: &Profile) -> Map<String, Json> {
    let timed = profile.regions.iter().any(|r| r.has_timing());
    let mut m = Map::new();
    m.insert("file_path".into(), json!(py_path(path)));
    m.insert(
        "label".into(),
        json!(label(profile).unwrap_or_else(|| stem(path))),
    );
    m.insert("num_ranks".into(), json!(profile.num_ranks));
    m.insert("num_regions".into(), json!(profile.regions.len()));
    m.insert("total_time_seconds".into(), number(total_time(profile)));
    m.insert(
        "wall_clock_seconds".into(),
        number(timed.then(|| time_span(profile))),
    );
    m
}

/// `_metadata_payload`: the metadata by section, lower-case titles; without `full` the
/// environment and other fields only counted.
fn metadata_payload(profile: &Profile, full: bool) -> Json {
    let Sections { sections, modules } = Sections::of(&profile.metadata);
    let mut payload = Map::new();
    for (title, entries) in sections {
        let key = title.to_lowercase();
        if !full && (key == "environment" || key == "other") {
            if !entries.is_empty() {
                payload.insert(format!("{key}_field_count"), json!(entries.len()));
            }
            continue;
        }
        if !entries.is_empty() {
            let section: Map<String, Json> = entries
                .into_iter()
                .map(|(k, v)| (k.to_string(), meta_json(&PyValue::of(v))))
                .collect();
            payload.insert(key, Json::Object(section));
        }
    }
    if let Some(modules) = modules {
        // `list(modules)`: a string's characters, a list's items.
        let items = match PyValue::of(modules) {
            PyValue::List(items) => items.iter().map(meta_json).collect(),
            PyValue::Str(s) => s.chars().map(|c| json!(c.to_string())).collect(),
            other => vec![meta_json(&other)],
        };
        payload.insert("modules".into(), Json::Array(items));
    }
    Json::Object(payload)
}

/// One row of `summary.region_rows` as the reference's dict, its keys in the dict's order:
/// `call_path` joined with " > " and the GPU times after `total`; a row without a call
/// path (a region's summary) has the GPU times after `name`.
fn row_json(row: &RegionRow) -> Json {
    let f = |v: Option<f64>| number(v);
    let mut m = Map::new();
    let gpu = [("gpu_total", row.gpu_total), ("gpu_avg", row.gpu_avg)];
    m.insert("name".into(), json!(row.name));
    if let Some(path) = &row.call_path {
        m.insert("call_path".into(), json!(path.join(" > ")));
    } else {
        m.extend(gpu.map(|(k, v)| (k.to_owned(), f(v))));
    }
    m.insert("num_ranks".into(), json!(row.num_ranks));
    m.insert("calls".into(), json!(row.calls));
    m.insert("total".into(), f(row.total));
    if row.call_path.is_some() {
        m.extend(gpu.map(|(k, v)| (k.to_owned(), f(v))));
    }
    for (key, value) in [
        ("coverage", row.coverage),
        ("exclusive", row.exclusive),
        ("avg", row.avg),
        ("min", row.min),
        ("max", row.max),
        ("first", row.first),
        ("last", row.last),
        ("std", row.std),
        ("p50", row.p50),
        ("p95", row.p95),
        ("p99", row.p99),
        ("imbalance", row.imbalance),
    ] {
        m.insert(key.into(), f(value));
    }
    m.insert("depth".into(), json!(row.depth));
    m.insert("recursive".into(), json!(row.recursive));
    m.insert("start".into(), f(Some(row.start)));
    m.insert("parent_coverage".into(), f(row.parent_coverage));
    Json::Object(m)
}

fn first<T: Clone>(items: &[T], n: Option<usize>) -> Vec<T> {
    items[..n.map_or(items.len(), |n| n.min(items.len()))].to_vec()
}

/// A stored array's elements as numbers (NaN where one is not a number).
fn numbers(array: &StoredArray) -> Vec<f64> {
    let value = MetaValue::Typed(
        array.datatype.clone(),
        array.shape.clone(),
        crate::hdf5lite::Data::Fixed(array.raw.clone()),
    );
    let elements = value.typed_elements().unwrap_or_default();
    elements
        .into_iter()
        .map(|v| match v {
            Value::Int(i) => i as f64,
            Value::Float(f) => f,
            _ => f64::NAN,
        })
        .collect()
}

/// `_likwid_payload`: each rank's LIKWID regions with their calls and their metrics
/// averaged over threads; null when the run recorded none.
fn likwid_payload(likwid: &LikwidByRank, ranks: Option<&[u32]>, top_n: Option<usize>) -> Json {
    let with_regions: Vec<u32> = likwid
        .iter()
        .filter(|(_, regions)| !regions.is_empty())
        .map(|(rank, _)| *rank)
        .collect();
    if with_regions.is_empty() {
        return Json::Null;
    }
    let kept: Vec<u32> = with_regions
        .into_iter()
        .filter(|r| ranks.is_none_or(|ranks| ranks.contains(r)))
        .collect();
    let mut entries = Vec::new();
    for rank in &kept {
        // Tags in order, as the reference sorts by (rank, region).
        for region in likwid.get(rank).into_iter().flat_map(|r| r.values()) {
            let metrics = numbers(&region.metrics);
            // One row per metric (over the threads), or one value each for a vector.
            let per_metric = match &region.metrics.shape {
                Shape::Simple(dims) if dims.len() == 2 => usize::try_from(dims[1]).unwrap_or(1),
                _ => 1,
            }
            .max(1);
            let means = metrics
                .chunks(per_metric)
                .map(|row| row.iter().sum::<f64>() / row.len() as f64);
            let metrics: Map<String, Json> = region
                .metric_names
                .iter()
                .zip(means)
                .map(|(name, mean)| (name.clone(), number(Some(mean))))
                .collect();
            let calls: f64 = numbers(&region.call_counts).iter().sum();
            entries.push(json!({
                "rank": rank,
                "region": region.tag,
                "group": region.group_name,
                "call_count": calls as i64,
                "metrics": metrics,
            }));
        }
    }
    let total = entries.len();
    let entries = first(&entries, top_n);
    json!({
        "ranks": kept,
        "region_count_total": total,
        "region_count_returned": entries.len(),
        "regions": entries,
    })
}

/// `inspect_profile`: one profile's headline, metadata and region statistics.
pub fn inspect_profile<F: Files>(files: &F, arguments: &Map<String, Json>) -> Result<Json> {
    let args = Args(arguments);
    let path = args.required("file_path")?;
    let selection = args.selection()?;
    let sort_name = args.string("sort")?.unwrap_or("total");
    let full = args.boolean("full_metadata", false)?;
    let Some(sort) = SortKey::ALL.iter().find(|k| k.1 == sort_name).map(|k| k.0) else {
        let names: Vec<&str> = SortKey::ALL.iter().map(|k| k.1).collect();
        return fail(format!(
            "sort must be one of {}, got '{sort_name}'",
            py_names(&names, '(', ')')
        ));
    };
    let top_n = args.top_n()?;
    let options = ReportOptions {
        sort,
        ..ReportOptions::default()
    };
    let (FileRows { profile, rows, .. }, likwid) = match open(files, path)? {
        StoredProfile::H5(file) => {
            let rows = file_rows(&*file, &options, Format::Json, &selection, &RUNNER)
                .map_err(|e| unreadable(path, &e))?;
            let (_, likwid) =
                import::read_input(&*file, Depth::Metadata).map_err(|e| unreadable(path, &e))?;
            (rows, likwid)
        }
        StoredProfile::Json(profile) => (
            profile_rows(profile, &options, &selection),
            LikwidByRank::new(),
        ),
    };
    let items: Vec<Json> = first(&rows, top_n).iter().map(row_json).collect();
    let mut payload = headline(path, &profile);
    payload.insert("metadata".into(), metadata_payload(&profile, full));
    payload.insert(
        "regions".into(),
        json!({
            "sort": sort_name,
            "returned": items.len(),
            "total_matching_filter": rows.len(),
            "items": items,
        }),
    );
    let likwid = likwid_payload(&likwid, selection.ranks.as_deref(), top_n);
    payload.insert("likwid".into(), likwid);
    Ok(Json::Object(payload))
}

/// `compare_profiles`: the baseline against the candidate, overall and region by region.
pub fn compare_profiles<F: Files>(files: &F, arguments: &Map<String, Json>) -> Result<Json> {
    let args = Args(arguments);
    let (path_a, path_b) = (
        args.required("baseline_path")?,
        args.required("candidate_path")?,
    );
    let selection = args.selection()?;
    let metric_name = args.string("metric")?.unwrap_or("total");
    let threshold = args.number("threshold_pct", 5.0)?;
    let Some(metric) = Metric::from_name(metric_name) else {
        let names: Vec<&str> = Metric::ALL.iter().map(|m| m.1).collect();
        return fail(format!(
            "metric must be one of {}, got '{metric_name}'",
            py_names(&names, '(', ')')
        ));
    };
    let top_n = args.top_n()?;
    let read = |path: &str| -> Result<Profile> {
        match open(files, path)? {
            StoredProfile::H5(file) => metric
                .reading()
                .read(&*file)
                .map_err(|e| unreadable(path, &e)),
            StoredProfile::Json(profile) => Ok(profile),
        }
    };
    let (a, b) = (read(path_a)?, read(path_b)?);
    let options = DiffOptions {
        metric,
        order: DiffOrder::Pct,
        threshold: None,
    };
    let comparison = compare::diff(&a, &b, &selection, &options);
    // Counts stay integers, as the reference's `calls` are.
    let value = |v: Option<f64>| match v {
        Some(x) if metric.is_count() && x.fract() == 0.0 && x.abs() < 9e15 => json!(x as i64),
        other => number(other),
    };
    let deltas: Vec<(Option<f64>, Json)> = comparison
        .rows
        .iter()
        .map(|r| {
            let item = json!({
                "name": r.name,
                "baseline": value(r.a),
                "candidate": value(r.b),
                "delta": value(Some(r.delta)),
                "pct": number(r.pct),
            });
            (r.pct, item)
        })
        .collect();
    let mut regressions: Vec<&(Option<f64>, Json)> = deltas
        .iter()
        .filter(|d| d.0.is_some_and(|p| p > threshold))
        .collect();
    regressions.sort_by(|x, y| y.0.unwrap_or(0.0).total_cmp(&x.0.unwrap_or(0.0)));
    let mut improvements: Vec<&(Option<f64>, Json)> = deltas
        .iter()
        .filter(|d| d.0.is_some_and(|p| p < -threshold))
        .collect();
    improvements.sort_by(|x, y| x.0.unwrap_or(0.0).total_cmp(&y.0.unwrap_or(0.0)));
    let items = |list: Vec<&(Option<f64>, Json)>| -> Vec<Json> {
        first(&list, top_n)
            .into_iter()
            .map(|d| d.1.clone())
            .collect()
    };
    let all: Vec<&(Option<f64>, Json)> = deltas.iter().collect();
    let limited = items(all);

    let (total_a, total_b) = (total_time(&a), total_time(&b));
    let overall = match (total_a, total_b) {
        (Some(ta), Some(tb)) => {
            let diff = tb - ta;
            // Python's truth of a float: NaN is true, only 0 is false.
            json!({
                "absolute_diff_seconds": number(Some(diff)),
                "relative_change_pct": number((ta != 0.0).then(|| (diff / ta) * 100.0)),
                "speedup": number((tb != 0.0).then(|| ta / tb)),
                "faster": tb < ta,
            })
        }
        _ => json!({
            "absolute_diff_seconds": null,
            "relative_change_pct": null,
            "speedup": null,
            "faster": null,
        }),
    };
    Ok(json!({
        "baseline": headline(path_a, &a),
        "candidate": headline(path_b, &b),
        "overall": overall,
        "metric": metric_name,
        "threshold_pct": number(Some(threshold)),
        "regions": {
            "returned": limited.len(),
            "total": deltas.len(),
            "items": limited,
        },
        "regressions": items(regressions),
        "improvements": items(improvements),
    }))
}

/// The plot types of the reference's tool (`_PLOT_FUNCS`), sorted as its message lists them.
const PLOT_TYPES: [&str; 7] = [
    "durations",
    "flame",
    "flame_chart",
    "flame_graph",
    "gantt",
    "speedup",
    "timeseries",
];

/// `plot_profile`: one chart of one or more profiles, written as a PNG (`matplotlib`) or
/// an HTML page holding the SVG (`plotly`).
pub fn plot_profile<F: Files>(files: &F, arguments: &Map<String, Json>) -> Result<Json> {
    let args = Args(arguments);
    let paths: Vec<String> = match args.get("file_paths") {
        Some(Json::String(s)) => vec![s.clone()],
        Some(_) => args.strings("file_paths")?.unwrap_or_default(),
        None => return fail("missing argument file_paths"),
    };
    let plot_type = args.string("plot_type")?.unwrap_or("gantt");
    let output_dir = args.string("output_dir")?;
    let selection = args.selection()?;
    let backend = args.string("backend")?.unwrap_or("matplotlib");
    let x_field = args.string("x_field")?;
    if paths.is_empty() {
        return fail("file_paths must contain at least one path");
    }
    if !PLOT_TYPES.contains(&plot_type) {
        return fail(format!(
            "plot_type must be one of {}, got '{plot_type}'",
            py_names(&PLOT_TYPES, '[', ']')
        ));
    }
    if plot_type == "speedup" && paths.len() < 2 {
        return fail("plot_type='speedup' requires at least 2 file_paths");
    }
    if backend != "matplotlib" && backend != "plotly" {
        return fail(format!(
            "backend must be 'matplotlib' or 'plotly', got '{backend}'"
        ));
    }
    if x_field.is_some() && plot_type != "speedup" {
        return fail("x_field only applies to plot_type='speedup'");
    }
    let kind = match plot_type {
        "flame" => Kind::FlameChart,
        other => Kind::parse(other).unwrap_or(Kind::Gantt),
    };
    let stored = paths
        .iter()
        .map(|p| open(files, p))
        .collect::<Result<Vec<_>>>()?;
    let indexes = paths
        .iter()
        .zip(&stored)
        .map(|(p, s)| s.index(Some(stem(p))).map_err(|e| unreadable(p, &e)))
        .collect::<Result<Vec<_>>>()?;
    let inputs: Vec<Input> = paths
        .iter()
        .zip(&indexes)
        .map(|(path, (profile, reader, label))| Input::new(path, profile, reader.as_ref(), label))
        .collect();
    // The reference's speedup is over `num_ranks` unless told.
    let axis = match x_field.unwrap_or("num_ranks") {
        "num_ranks" => crate::analysis::scaling::Axis::Ranks,
        "num_nodes" => crate::analysis::scaling::Axis::Nodes,
        "omp_num_threads" => crate::analysis::scaling::Axis::Threads,
        "total_cores" => crate::analysis::scaling::Axis::Cores,
        key => crate::analysis::scaling::Axis::Meta(key.to_string()),
    };
    let options = PlotOptions {
        selection,
        axis,
        command: chart_plot::describe(kind, &inputs),
        ..PlotOptions::default()
    };
    let scene = chart_plot::draw(kind, &inputs, &options).map_err(|e| ToolError(e.to_string()))?;
    let (name, bytes) = if backend == "plotly" {
        let svg = crate::chart::encode(&scene, crate::chart::Format::Svg)
            .map_err(|e| ToolError(e.to_string()))?;
        (
            format!("{plot_type}_plot.html"),
            html_page(&scene.title, &svg),
        )
    } else {
        (format!("{plot_type}_plot.png"), png(&scene)?)
    };
    let dir = output_dir.map(py_path);
    let written = files
        .write(dir.as_deref(), &name, &bytes)
        .map_err(|e| ToolError(format!("cannot write {name}: {e}")))?;
    Ok(json!({ "plot_type": plot_type, "backend": backend, "paths": [written] }))
}

#[cfg(feature = "png")]
fn png(scene: &crate::chart::scene::Scene) -> Result<Vec<u8>> {
    crate::chart::encode(scene, crate::chart::Format::Png { scale: 1.0 })
        .map_err(|e| ToolError(e.to_string()))
}

#[cfg(not(feature = "png"))]
fn png(_: &crate::chart::scene::Scene) -> Result<Vec<u8>> {
    fail("this build of sp draws no PNG: use backend 'plotly' for an HTML page")
}

/// A page that shows the chart: its SVG inline (SVG is valid inside HTML).
fn html_page(title: &str, svg: &[u8]) -> Vec<u8> {
    let title = crate::chart::text::escape(title);
    let mut page = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{title}</title>\n</head>\n<body>\n"
    )
    .into_bytes();
    page.extend_from_slice(svg);
    page.extend_from_slice(b"\n</body>\n</html>\n");
    page
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_print_as_pathlib_does() {
        assert_eq!(py_path("./a//b/./c.h5"), "a/b/c.h5");
        assert_eq!(py_path("/x/"), "/x");
        assert_eq!(py_path("."), ".");
        assert_eq!(stem("runs/run.v2.h5"), "run.v2");
        assert_eq!(stem(".hidden"), ".hidden");
    }

    /// Profiles in memory by name; charts written nowhere.
    struct Memory(Vec<(String, Vec<u8>)>);

    impl Files for Memory {
        type Source = Vec<u8>;
        fn open(&self, path: &str) -> io::Result<Vec<u8>> {
            let found = self.0.iter().find(|(name, _)| name == path);
            found
                .map(|f| f.1.clone())
                .ok_or(io::ErrorKind::NotFound.into())
        }
        fn write(&self, dir: Option<&str>, name: &str, _: &[u8]) -> io::Result<String> {
            Ok(format!("{}/{name}", dir.unwrap_or("tmp")))
        }
    }

    /// Arguments of every shape, and damaged files, give results or errors, never a panic.
    #[test]
    fn no_argument_or_file_panics() {
        let good = include_bytes!("../../tests/golden/synthetic/expected/golden.h5").to_vec();
        let mut files = vec![("good".to_string(), good.clone())];
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for i in 0..24 {
            let mut bad = good.clone();
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            if i % 2 == 0 {
                bad.truncate((state >> 33) as usize % good.len());
            } else {
                for k in 0..8 {
                    let at = ((state >> (k * 4)) as usize).wrapping_mul(2654435761) % bad.len();
                    bad[at] ^= 0xff;
                }
            }
            files.push((format!("bad{i}"), bad));
        }
        files.push((
            "json".into(),
            br#"{"format": "scope-profiler-profile"}"#.to_vec(),
        ));
        let files = Memory(files);
        let values = [
            json!(null),
            json!(0),
            json!(-1),
            json!(1e300),
            json!("x"),
            json!([]),
            json!(["(", "good"]),
            json!([1, -2]),
            json!({"a": 1}),
            json!(true),
            json!(u64::MAX),
            json!([u64::MAX]),
        ];
        let keys = [
            "file_path",
            "baseline_path",
            "candidate_path",
            "file_paths",
            "include",
            "exclude",
            "ranks",
            "sort",
            "top_n",
            "metric",
            "threshold_pct",
            "plot_type",
            "backend",
            "x_field",
            "output_dir",
            "full_metadata",
        ];
        let names: Vec<String> = files.0.iter().map(|f| f.0.clone()).collect();
        type Tool = fn(&Memory, &Map<String, Json>) -> Result<Json>;
        let tools: [Tool; 3] = [inspect_profile, compare_profiles, plot_profile];
        for name in &names {
            let base = json!({"file_path": name, "baseline_path": "good",
                "candidate_path": name, "file_paths": ["good", name], "plot_type": "speedup",
                "backend": "plotly"});
            for tool in tools {
                let _ = tool(&files, base.as_object().unwrap());
            }
        }
        for key in keys {
            for value in &values {
                let mut args = json!({"file_path": "good", "baseline_path": "good",
                    "candidate_path": "good", "file_paths": "good", "backend": "plotly"});
                args[key] = value.clone();
                for tool in tools {
                    let _ = tool(&files, args.as_object().unwrap());
                }
            }
        }
    }

    #[test]
    fn arguments_are_checked() {
        let args = json!({"top_n": 0, "ranks": [-1], "include": "x", "flag": 1});
        let args = Args(args.as_object().unwrap());
        assert!(args.top_n().is_err());
        assert!(args.ranks().is_err());
        assert!(args.strings("include").is_err());
        assert!(args.boolean("flag", false).is_err());
        let none = Map::new();
        assert_eq!(Args(&none).top_n(), Ok(Some(20)));
    }
}
