//! The CSV report: one line per row, the keys of the JSON rows as columns (`call_path`
//! joined with " > "), after the file it comes from.

use std::io::{self, Write};

use serde_json::Value as Json;

use crate::analysis::rows::{session_total, PercentageMode};

use super::{json, FileReport};

/// The columns after `file`, in order.
const KEYS: [&str; 24] = [
    "name",
    "call_path",
    "depth",
    "recursive",
    "num_ranks",
    "calls",
    "total",
    "coverage",
    "exclusive",
    "avg",
    "min",
    "max",
    "first",
    "last",
    "std",
    "p50",
    "p95",
    "p99",
    "imbalance",
    "gpu_total",
    "gpu_avg",
    "start",
    "parent_coverage",
    "percent",
];

/// The rows of one profile, after the header line when `header`; `percent` as `mode` says.
pub(super) fn write(
    out: &mut impl Write,
    file: &FileReport<'_>,
    mode: PercentageMode,
    header: bool,
) -> io::Result<()> {
    if header {
        writeln!(out, "file,{}", KEYS.join(","))?;
    }
    let session = session_total(file.rows);
    for row in file.rows {
        let j = json::row(row, mode, session);
        let mut cells = vec![cell(file.name)];
        for key in KEYS {
            cells.push(match (&j[key], key) {
                (Json::Null, _) => String::new(),
                (Json::Array(parts), "call_path") => cell(
                    &parts
                        .iter()
                        .filter_map(Json::as_str)
                        .collect::<Vec<_>>()
                        .join(" > "),
                ),
                (Json::String(s), _) => cell(s),
                (v, _) => v.to_string(),
            });
        }
        writeln!(out, "{}", cells.join(","))?;
    }
    Ok(())
}

/// A CSV field, quoted when it holds a comma, a quote or a newline.
fn cell(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
