//! The runs table as records ([`super::records`]): one per run, or one per group with
//! `--group-by`, in JSON, CSV or a text table.

use std::io::{self, Write};

use serde_json::{Map, Value as Json};

use super::records::{num, opt, opt_str, write_records, Record};
use super::{Pooled, RunsTable};
use crate::analysis::report::Format;
use crate::text::Show;

/// Writes `table` in `format`. JSON: `{"metric", "baseline", "regions", "group_by",
/// "runs": [...]}` (or `"groups"` when pooled); CSV and the table have the same keys as
/// columns. `failed` lists files that could not be read, with the reason (JSON only;
/// the CLI says them on stderr).
pub fn write_runs(
    out: &mut impl Write,
    format: Format,
    show: Show,
    table: &RunsTable<'_>,
    failed: &[(String, String)],
) -> io::Result<()> {
    let mut head = Map::new();
    head.insert("metric".into(), Json::String(table.metric.name().into()));
    let base = table.rows.get(table.baseline).map(|r| r.run.file.as_str());
    head.insert("baseline".into(), opt_str(base));
    head.insert(
        "regions".into(),
        Json::Array(table.regions.iter().cloned().map(Json::String).collect()),
    );
    head.insert("group_by".into(), opt_str(table.group_by.as_deref()));
    head.insert(
        "failed".into(),
        Json::Array(
            failed
                .iter()
                .map(|(f, why)| serde_json::json!({"file": f, "error": why}))
                .collect(),
        ),
    );
    let metric = table.metric.name();
    let records: Vec<Record> = if table.group_by.is_some() {
        table
            .groups
            .iter()
            .map(|g| {
                let key = table.group_by.clone().unwrap_or_default();
                let mut r: Record = vec![
                    (key, opt_str(g.value.as_deref())),
                    ("runs".into(), Json::from(g.files.len())),
                ];
                pooled(&mut r, "wall", Some(&g.wall));
                for (name, v) in table.regions.iter().zip(&g.values) {
                    pooled(&mut r, &format!("{name} {metric}"), v.as_ref());
                }
                r
            })
            .collect()
    } else {
        table
            .rows
            .iter()
            .map(|row| {
                let run = row.run;
                let int = |v: Option<u64>| v.map_or(Json::Null, Json::from);
                let mut r: Record = vec![
                    ("file".into(), Json::String(run.file.clone())),
                    ("label".into(), Json::String(run.label.clone())),
                    ("host".into(), opt_str(run.host.as_deref())),
                    ("start".into(), opt_str(run.start.as_deref())),
                    ("ranks".into(), Json::from(run.ranks)),
                    ("nodes".into(), int(run.nodes)),
                    ("threads".into(), int(run.threads)),
                    ("cores".into(), int(run.cores)),
                    ("wall".into(), num(run.wall)),
                    ("wall_pct".into(), opt(row.wall_pct)),
                ];
                for (name, v) in table.regions.iter().zip(&row.values) {
                    r.push((format!("{name} {metric}"), opt(*v)));
                }
                r
            })
            .collect()
    };
    let key = if table.group_by.is_some() {
        "groups"
    } else {
        "runs"
    };
    if format == Format::Table {
        return write_records(out, format, show, head, key, &shown(records));
    }
    write_records(out, format, show, head, key, &records)
}

/// The table's cells: wall time in its unit, the change as a signed percent.
fn shown(records: Vec<Record>) -> Vec<Record> {
    use crate::analysis::units::{duration_text, signed_pct};
    records
        .into_iter()
        .map(|r| {
            r.into_iter()
                .map(|(k, v)| {
                    let f = v.as_f64();
                    let v = match k.as_str() {
                        "wall" | "wall mean" | "wall median" | "wall min" | "wall max" => {
                            Json::String(duration_text(f))
                        }
                        "wall_pct" => f.map_or(Json::Null, |p| Json::String(signed_pct(p))),
                        "wall cv" => {
                            f.map_or(Json::Null, |c| Json::String(format!("{:.1}%", 100.0 * c)))
                        }
                        _ => v,
                    };
                    (k, v)
                })
                .collect()
        })
        .collect()
}

/// `NAME mean`, `median`, `min`, `max`, `cv` of a pooled value.
fn pooled(r: &mut Record, name: &str, p: Option<&Pooled>) {
    r.push((format!("{name} mean"), opt(p.map(|p| p.mean))));
    r.push((format!("{name} median"), opt(p.map(|p| p.median))));
    r.push((format!("{name} min"), opt(p.map(|p| p.min))));
    r.push((format!("{name} max"), opt(p.map(|p| p.max))));
    r.push((format!("{name} cv"), opt(p.and_then(|p| p.cv))));
}
