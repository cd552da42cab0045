//! The runs table as records ([`super::records`]): one per run, or one per group with
//! `--group-by`, in JSON, CSV or a text table.

use std::io::{self, Write};

use serde_json::{Map, Value as Json};

use super::changes::{Change, RunChanges};
use super::records::{cell_text, num, opt, opt_str, write_records, Record};
use super::{Pooled, RunsTable};
use crate::analysis::report::Format;
use crate::analysis::units::{duration_text, signed_pct};
use crate::text::Show;

/// Writes `table` in `format`. JSON: `{"metric", "baseline", "regions", "group_by",
/// "runs": [...]}` (or `"groups"` when pooled); CSV and the table have the same keys as
/// columns. `failed` lists files that could not be read, with the reason (JSON only;
/// the CLI says them on stderr). With `changes` ("what changed", [`super::changes`]):
/// JSON has `"changes": [{"file", "label", "wall_pct", "speed", "improvements",
/// "regressions"}]`, each change `{"region", "base", "value", "delta", "pct"}` in seconds;
/// the table is followed by them; CSV is one line per change instead of per run.
pub fn write_runs(
    out: &mut impl Write,
    format: Format,
    show: Show,
    table: &RunsTable<'_>,
    failed: &[(String, String)],
    changes: Option<&[RunChanges]>,
) -> io::Result<()> {
    let (mut head, key, records) = records(table, failed);
    let Some(changes) = changes else {
        if format == Format::Table {
            return write_records(out, format, show, head, key, &shown(records));
        }
        return write_records(out, format, show, head, key, &records);
    };
    let run = |c: &RunChanges| table.rows.get(c.run).map(|r| r.run);
    match format {
        Format::Table => {
            write_records(out, format, show, head, key, &shown(records))?;
            writeln!(out)?;
            for line in changed_lines(table, changes, show) {
                writeln!(out, "{line}")?;
            }
            Ok(())
        }
        Format::Json => {
            let list = changes.iter().filter_map(|c| {
                let r = run(c)?;
                let items = |v: &[Change]| v.iter().map(change_json).collect::<Vec<_>>();
                Some(serde_json::json!({"file": r.file, "label": r.label, "wall_pct": opt(c.wall_pct()),
                    "speed": c.speed(), "improvements": items(&c.improvements), "regressions": items(&c.regressions)}))
            });
            head.insert("changes".into(), Json::Array(list.collect()));
            write_records(out, format, show, head, key, &records)
        }
        Format::Csv => {
            let mut rows: Vec<Record> = Vec::new();
            for c in changes {
                let Some(r) = run(c) else { continue };
                for (what, list) in [("faster", &c.improvements), ("slower", &c.regressions)] {
                    for ch in list.iter() {
                        let mut rec: Record = vec![
                            ("file".into(), Json::String(r.file.clone())),
                            ("change".into(), Json::String(what.into())),
                        ];
                        if let Json::Object(m) = change_json(ch) {
                            rec.extend(m);
                        }
                        rows.push(rec);
                    }
                }
            }
            write_records(out, format, show, head, "changes", &rows)
        }
    }
}

/// The table's head (metric, baseline, regions, group_by, failed), the key its records go
/// under (`runs`, or `groups` when pooled) and the records, as JSON and CSV write them.
fn records(
    table: &RunsTable<'_>,
    failed: &[(String, String)],
) -> (Map<String, Json>, &'static str, Vec<Record>) {
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
    (head, key, records)
}

/// The text table's header and cells (wall time in its unit, changes as signed percents,
/// other numbers to 6 significant digits): what `sp runs` prints, for a front end to lay
/// out as it likes.
pub fn cells(table: &RunsTable<'_>) -> (Vec<String>, Vec<Vec<String>>) {
    let (_, _, records) = records(table, &[]);
    let shown = shown(records);
    let header = shown
        .first()
        .map(|r| r.iter().map(|(k, _)| k.clone()).collect())
        .unwrap_or_default();
    let rows = shown
        .iter()
        .map(|r| r.iter().map(|(_, v)| cell_text(v)).collect())
        .collect();
    (header, rows)
}

/// "What changed" as the text table ends: a heading, then per run its wall time and its
/// largest own-time improvements and regressions (`  b: wall 1.0 s → 0.5 s (−50.0%, 2.0x
/// faster)`, `    faster: solve −0.6 s (−60.0%)`).
pub fn changed_lines(table: &RunsTable<'_>, changes: &[RunChanges], show: Show) -> Vec<String> {
    let base = table
        .rows
        .get(table.baseline)
        .map_or("", |r| r.run.label.as_str());
    let mut lines = vec![format!(
        "What changed (own time, against {}):",
        show.text(base)
    )];
    for c in changes {
        let Some(r) = table.rows.get(c.run).map(|r| r.run) else {
            continue;
        };
        let wall = c.wall_pct().map_or("-".into(), signed_pct);
        let speed = c.speed().map_or(String::new(), |s| format!(", {s}"));
        let (before, after) = (duration_text(Some(c.wall.0)), duration_text(Some(c.wall.1)));
        let label = show.text(&r.label);
        lines.push(format!(
            "  {label}: wall {before} → {after} ({wall}{speed})"
        ));
        for (what, list) in [("faster", &c.improvements), ("slower", &c.regressions)] {
            let items: Vec<String> = list.iter().map(|ch| change_text(ch, show)).collect();
            let items = if items.is_empty() {
                "none".into()
            } else {
                items.join(", ")
            };
            lines.push(format!("    {what}: {items}"));
        }
    }
    lines
}

/// `solve −0.6 s (−60.0%)`, `io +0.1 s (new)`.
fn change_text(c: &Change, show: Show) -> String {
    let sign = if c.delta > 0.0 { "+" } else { "−" };
    let pct = c.pct().map_or("new".into(), signed_pct);
    let size = duration_text(Some(c.delta.abs()));
    format!("{} {sign}{size} ({pct})", show.text(&c.name))
}

fn change_json(c: &Change) -> Json {
    let mut m = Map::new();
    m.insert("region".into(), Json::String(c.name.clone()));
    m.insert("base".into(), num(c.base));
    m.insert("value".into(), num(c.value));
    m.insert("delta".into(), num(c.delta));
    m.insert("pct".into(), opt(c.pct()));
    Json::Object(m)
}

/// The table's cells: wall time in its unit, the change as a signed percent.
fn shown(records: Vec<Record>) -> Vec<Record> {
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
