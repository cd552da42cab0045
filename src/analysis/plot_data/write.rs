//! A plot-data [`Table`] as the reference writes it: CSV from Python's `csv` module (minimal
//! quoting, `\r\n` lines, floats as Python's `repr`) or the JSON document of `_write_json`
//! (`format`, `format_version`, `plot`, then the kind's keys, indented by two).

use std::io::{self, Write};

use serde_json::{Map, Value};

use super::{Cell, Table};

/// Python's `repr` of a float: the shortest digits that round-trip, positional from 1e-4
/// up to 1e16, else `1.5e-07` style.
pub fn py_float(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    let s = format!("{x:e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if (-4..16).contains(&exp) {
        if exp >= 0 {
            let int_len = exp as usize + 1;
            let mut int_part = digits.chars().take(int_len).collect::<String>();
            while int_part.len() < int_len {
                int_part.push('0');
            }
            let frac: String = digits.chars().skip(int_len).collect();
            let frac = if frac.is_empty() { "0".into() } else { frac };
            format!("{sign}{int_part}.{frac}")
        } else {
            let zeros = "0".repeat((-exp - 1) as usize);
            format!("{sign}0.{zeros}{digits}")
        }
    } else {
        let (first, rest) = digits.split_at(1);
        let rest = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{first}{rest}e{esign}{:02}", exp.abs())
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\r', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn cell_text(cell: &Cell) -> String {
    match cell {
        Cell::Null => String::new(),
        Cell::Text(s) => csv_field(s),
        Cell::Int(i) => i.to_string(),
        Cell::Float(f) => py_float(*f),
    }
}

/// The table as the reference's CSV.
pub fn write_csv(table: &Table, out: &mut impl Write) -> io::Result<()> {
    let header: Vec<String> = table.header.iter().map(|h| csv_field(h)).collect();
    write!(out, "{}\r\n", header.join(","))?;
    for row in &table.rows {
        let cells: Vec<String> = row.iter().map(cell_text).collect();
        write!(out, "{}\r\n", cells.join(","))?;
    }
    Ok(())
}

fn cell_json(cell: &Cell) -> Value {
    match cell {
        Cell::Null => Value::Null,
        Cell::Text(s) => Value::String(s.clone()),
        Cell::Int(i) => Value::from(*i),
        // JSON has no NaN: the reference writes `NaN`, serde `null`.
        Cell::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
    }
}

/// The table as the reference's JSON document.
pub fn write_json(table: &Table, out: &mut impl Write) -> io::Result<()> {
    let mut doc = Map::new();
    doc.insert("format".into(), "scope-profiler-plot-data".into());
    doc.insert("format_version".into(), 1.into());
    doc.insert("plot".into(), table.kind.plot().into());
    let rows: Vec<Value> = (table.rows.iter())
        .map(|row| {
            let record: Map<String, Value> = (table.header.iter().zip(row))
                .map(|(h, c)| (h.to_string(), cell_json(c)))
                .collect();
            Value::Object(record)
        })
        .collect();
    let mut extra = table.extra.iter().peekable();
    // Keys the reference writes before its rows: the imbalance's `metric`, the compact
    // call graph's `regions` (before its `edges`).
    while let Some((k, v)) = extra.next_if(|(k, _)| matches!(*k, "metric" | "regions")) {
        doc.insert(k.to_string(), v.clone());
    }
    doc.insert(table.rows_key.into(), Value::Array(rows));
    for (k, v) in extra {
        doc.insert(k.to_string(), v.clone());
    }
    write_value(&Value::Object(doc), out)
}

/// A JSON document as the reference writes it: indented by two, a final newline.
pub fn write_value(doc: &Value, out: &mut impl Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, doc)?;
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_python_repr() {
        for (x, s) in [
            (1e-9, "1e-09"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.9999999999999996e-07, "1.9999999999999996e-07"),
            (164.13371914033334, "164.13371914033334"),
            (0.0001, "0.0001"),
            (1e-5, "1e-05"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (123.0, "123.0"),
            (1.5e300, "1.5e+300"),
            (f64::NAN, "nan"),
        ] {
            assert_eq!(py_float(x), s);
        }
        assert_eq!(csv_field("a,\"b\""), "\"a,\"\"b\"\"\"");
    }
}
