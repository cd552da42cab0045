//! Tables of records written three ways: JSON (a document holding the records), CSV (one
//! line per record, the record's keys as columns) and an aligned text table. The runs
//! table and the scaling table both write through here, so the CLI and the page's
//! downloads give the same bytes for the same records.

use std::io::{self, Write};

use serde_json::{Map, Value as Json};

use crate::analysis::report::format::python_g;
use crate::analysis::report::Format;
use crate::text::{self, Show};

/// One record: its columns in order.
pub type Record = Vec<(String, Json)>;

/// A JSON number, or null when not finite (JSON has no NaN).
pub fn num(v: f64) -> Json {
    serde_json::Number::from_f64(v).map_or(Json::Null, Json::Number)
}

/// An optional number.
pub fn opt(v: Option<f64>) -> Json {
    v.map_or(Json::Null, num)
}

/// An optional string.
pub fn opt_str(v: Option<&str>) -> Json {
    v.map_or(Json::Null, |s| Json::String(s.to_string()))
}

/// Writes `records` in `format`: JSON as `head` with the records under `key`, CSV with
/// the first record's keys as the header, a table padded to the widest cell.
pub fn write_records(
    out: &mut impl Write,
    format: Format,
    show: Show,
    mut head: Map<String, Json>,
    key: &str,
    records: &[Record],
) -> io::Result<()> {
    match format {
        Format::Json => {
            let list = records
                .iter()
                .map(|r| Json::Object(r.iter().cloned().collect()))
                .collect();
            head.insert(key.to_string(), Json::Array(list));
            serde_json::to_writer_pretty(&mut *out, &Json::Object(head))?;
            writeln!(out)
        }
        Format::Csv => {
            let Some(first) = records.first() else {
                return Ok(());
            };
            let header: Vec<String> = first
                .iter()
                .map(|(k, _)| crate::analysis::report::csv::cell(k))
                .collect();
            writeln!(out, "{}", header.join(","))?;
            for r in records {
                let cells: Vec<String> = r
                    .iter()
                    .map(|(_, v)| match v {
                        Json::Null => String::new(),
                        Json::String(s) => crate::analysis::report::csv::cell(s),
                        v => v.to_string(),
                    })
                    .collect();
                writeln!(out, "{}", cells.join(","))?;
            }
            Ok(())
        }
        _ => write_table(out, show, records),
    }
}

/// A value as the table shows it: numbers with 6 significant digits, `-` for none.
pub fn cell_text(v: &Json) -> String {
    match v {
        Json::Null => "-".into(),
        Json::String(s) => s.clone(),
        Json::Number(n) if n.is_f64() => python_g(n.as_f64().unwrap_or(0.0), 6),
        v => v.to_string(),
    }
}

fn write_table(out: &mut impl Write, show: Show, records: &[Record]) -> io::Result<()> {
    let Some(first) = records.first() else {
        return Ok(());
    };
    let header: Vec<String> = first
        .iter()
        .map(|(k, _)| show.text(k).into_owned())
        .collect();
    let cells: Vec<Vec<String>> = records
        .iter()
        .map(|r| {
            r.iter()
                .map(|(_, v)| show.text(&cell_text(v)).into_owned())
                .collect()
        })
        .collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            cells
                .iter()
                .filter_map(|row| row.get(i))
                .chain(std::iter::once(&header[i]))
                .map(|c| text::width(c))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |row: &[String]| {
        row.iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (c, &w))| {
                if i == 0 {
                    text::pad(c, w).into_owned()
                } else {
                    text::pad_left(c, w).into_owned()
                }
            })
            .collect::<Vec<_>>()
            .join("  ")
    };
    writeln!(out, "{}", line(&header).trim_end())?;
    for row in &cells {
        writeln!(out, "{}", line(row).trim_end())?;
    }
    Ok(())
}
