//! The JSON report: one document for every profile (layout in the [module docs](super)).

use std::io::{self, Write};

use serde_json::{json, Map, Value as Json};

use crate::analysis::metadata::PyValue;
use crate::analysis::rows::{session_total, PercentageMode, RegionRow};

use super::{FileReport, ReportOptions};

fn meta_json(v: &PyValue) -> Json {
    match v {
        PyValue::Int(i) => json!(i),
        PyValue::Float(f) => json!(f),
        PyValue::Bool(b) => json!(b),
        PyValue::Str(s) => json!(s),
        PyValue::List(items) => Json::Array(items.iter().map(meta_json).collect()),
    }
}

/// One row as the JSON report writes it (the CSV's columns too); `percent` as `mode`
/// says, against the session total `session`.
pub fn row(row: &RegionRow, mode: PercentageMode, session: Option<f64>) -> Json {
    let f = |v: Option<f64>| v.filter(|x| x.is_finite()).map_or(Json::Null, |x| json!(x));
    json!({
        "name": row.name,
        "call_path": row.call_path,
        "depth": row.depth,
        "recursive": row.recursive,
        "num_ranks": row.num_ranks,
        "calls": row.calls,
        "total": f(row.total),
        "coverage": f(row.coverage),
        "exclusive": f(row.exclusive),
        "avg": f(row.avg),
        "min": f(row.min),
        "max": f(row.max),
        "first": f(row.first),
        "last": f(row.last),
        "std": f(row.std),
        "p50": f(row.p50),
        "p95": f(row.p95),
        "p99": f(row.p99),
        "imbalance": f(row.imbalance),
        "gpu_total": f(row.gpu_total),
        "gpu_avg": f(row.gpu_avg),
        "start": f(Some(row.start)),
        "parent_coverage": f(row.parent_coverage),
        "percent": f(row.percent(mode, session)),
    })
}

/// The document entry of one profile.
pub(super) fn file(file: &FileReport<'_>, options: &ReportOptions) -> Json {
    let profile = file.profile;
    let session = session_total(file.rows);
    let mut metadata = Map::new();
    for (k, v) in &profile.metadata {
        metadata.insert(k.clone(), meta_json(&PyValue::of(v)));
    }
    let mut doc = Map::new();
    doc.insert("file".into(), json!(file.name));
    doc.insert("schema".into(), json!(profile.schema));
    doc.insert("layout".into(), json!(profile.layout.name()));
    doc.insert("num_ranks".into(), json!(profile.num_ranks));
    if !options.regions_only {
        doc.insert("metadata".into(), Json::Object(metadata));
    }
    if !options.metadata_only {
        doc.insert(
            "regions".into(),
            Json::Array(
                file.rows
                    .iter()
                    .map(|r| row(r, options.mode, session))
                    .collect(),
            ),
        );
    }
    Json::Object(doc)
}

/// `{"files": [...]}`, pretty-printed, and a newline.
pub(super) fn write_document(out: &mut impl Write, files: Vec<Json>) -> io::Result<()> {
    let doc = json!({ "files": files });
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}
