//! Comparing several profiles at once (`sp diff A B C …`): one row per region, the metric
//! in every run, and each run's change against one of them, the baseline. Each run's
//! change is the pairwise comparison `diff baseline run` ([`diff_flat`]), so a column of
//! the N-way table holds exactly the numbers `sp diff` gives for that pair.
//!
//! ```
//! use sp::analysis::compare::nway::diff_many;
//! use sp::analysis::compare::{DiffOptions, FlatRows};
//! use sp::analysis::Selection;
//! # fn demo(profiles: &[sp::schema::Profile]) -> Result<(), sp::analysis::compare::nway::NwayError> {
//! let rows: Vec<FlatRows> = profiles.iter().map(|p| FlatRows::of(p, &Selection::all())).collect();
//! let table = diff_many(&rows, 0, &DiffOptions::default())?;
//! for row in &table.rows {
//!     println!("{}: {:?} {:?}", row.name, row.values, row.pct);
//! }
//! # Ok(()) }
//! ```

use crate::sort::SortSlice;
use std::collections::BTreeMap;
use std::fmt;
use std::io::{self, Write};

use serde_json::{json, Map, Value as Json};

use super::output::{delta_text, pct_text, value_text};
use super::{diff_flat, DiffOptions, DiffOrder, DiffRow, FlatRows, Metric};
use crate::analysis::report::grid::{column_widths, draw};
use crate::analysis::report::Format;
use crate::analysis::runs::records::{num, opt, write_records, Record};
use crate::analysis::runs::Run;
use crate::text::Show;

/// One region of an N-way comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct NwayRow {
    pub name: String,
    /// The metric in each run (`None` where the run lacks the region or a value).
    pub values: Vec<Option<f64>>,
    /// Each run's `run − baseline` as `sp diff baseline run` gives it; `None` for the
    /// baseline itself and where neither side has a value.
    pub delta: Vec<Option<f64>>,
    /// Each run's percent change, likewise (`None` also without a baseline value).
    pub pct: Vec<Option<f64>>,
}

/// The rows of an N-way comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct NwayComparison {
    pub options: DiffOptions,
    /// The index of the baseline run.
    pub baseline: usize,
    pub runs: usize,
    pub rows: Vec<NwayRow>,
}

/// Why profiles cannot make an N-way comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NwayError {
    /// Fewer than two profiles.
    TooFew(usize),
    /// `--baseline` names no run (the text given, the number of runs).
    UnknownBaseline(String, usize),
}

impl fmt::Display for NwayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NwayError::TooFew(n) => write!(
                f,
                "a comparison needs at least two profiles, and was given {n}"
            ),
            NwayError::UnknownBaseline(b, n) => write!(
                f,
                "--baseline {b:?} is neither an index from 0 to {} nor a file or label of the runs",
                n.saturating_sub(1)
            ),
        }
    }
}

impl std::error::Error for NwayError {}

/// The run `spec` names: an index from 0, else the first run whose file or label (its
/// `label` metadata, else the file's stem) is `spec`.
pub fn resolve_baseline(spec: &str, runs: &[Run]) -> Result<usize, NwayError> {
    if let Ok(i) = spec.trim().parse::<usize>() {
        if i < runs.len() {
            return Ok(i);
        }
    }
    runs.iter()
        .position(|r| r.file == spec || r.label == spec)
        .ok_or_else(|| NwayError::UnknownBaseline(spec.to_string(), runs.len()))
}

/// [`diff_many`] of runs read to their index ([`crate::analysis::runs::read`]), whose
/// flat rows are those [`FlatRows::of`] gives.
pub fn diff_runs(
    runs: &[Run],
    baseline: usize,
    options: &DiffOptions,
) -> Result<NwayComparison, NwayError> {
    let rows: Vec<FlatRows> = (runs.iter())
        .map(|r| {
            FlatRows(
                r.rows
                    .iter()
                    .map(|row| (row.name.clone(), row.clone()))
                    .collect(),
            )
        })
        .collect();
    diff_many(&rows, baseline, options)
}

/// `label - file (N ranks)`, as the two-file comparison titles a side.
fn title(run: &Run) -> String {
    let n = run.ranks;
    let ranks = if n == 1 { "rank" } else { "ranks" };
    match run.meta("label").filter(|l| !l.is_empty()) {
        Some(label) => format!("{label} - {} ({n} {ranks})", run.file),
        None => format!("{} ({n} {ranks})", run.file),
    }
}

/// Compares every run of `rows` with run `baseline`: a row per region any run has a value
/// for, kept when some run's pairwise row passes the threshold, ordered by the largest
/// change of any run (or by name).
pub fn diff_many(
    rows: &[FlatRows],
    baseline: usize,
    options: &DiffOptions,
) -> Result<NwayComparison, NwayError> {
    if rows.len() < 2 {
        return Err(NwayError::TooFew(rows.len()));
    }
    if baseline >= rows.len() {
        return Err(NwayError::UnknownBaseline(baseline.to_string(), rows.len()));
    }
    let unfiltered = DiffOptions {
        order: DiffOrder::Name,
        threshold: None,
        ..*options
    };
    // Each run against the baseline, by region name.
    let pairs: Vec<BTreeMap<String, DiffRow>> = rows
        .iter()
        .map(|run| {
            (diff_flat(&rows[baseline], run, &unfiltered)
                .rows
                .into_iter())
            .map(|r| (r.name.clone(), r))
            .collect()
        })
        .collect();
    let mut names: Vec<&String> = pairs.iter().flat_map(|p| p.keys()).collect();
    names.sort_ord_unstable();
    names.dedup();
    let passes = |r: &DiffRow| match (options.threshold, r.pct) {
        (Some(t), Some(p)) => p.abs() >= t,
        _ => true,
    };
    let metric = options.metric;
    let mut out: Vec<NwayRow> = names
        .into_iter()
        .filter(|name| {
            (pairs.iter().enumerate())
                .any(|(i, p)| i != baseline && p.get(*name).is_some_and(passes))
        })
        .map(|name| {
            let pair = |i: usize| pairs[i].get(name).filter(|_| i != baseline);
            NwayRow {
                name: name.clone(),
                values: (rows.iter())
                    .map(|r| r.0.get(name).and_then(|row| metric.of(row)))
                    .collect(),
                delta: (0..rows.len()).map(|i| pair(i).map(|r| r.delta)).collect(),
                pct: (0..rows.len())
                    .map(|i| pair(i).and_then(|r| r.pct))
                    .collect(),
            }
        })
        .collect();
    let largest = |v: &[Option<f64>]| v.iter().flatten().map(|x| x.abs()).fold(-1.0, f64::max);
    match options.order {
        DiffOrder::Name => {}
        DiffOrder::Delta => {
            out.sort_stable_by(|x, y| largest(&y.delta).total_cmp(&largest(&x.delta)))
        }
        DiffOrder::Pct => out.sort_stable_by(|x, y| largest(&y.pct).total_cmp(&largest(&x.pct))),
    }
    Ok(NwayComparison {
        options: *options,
        baseline,
        runs: rows.len(),
        rows: out,
    })
}

/// Writes `table` of `runs` (in order) as a boxed text table, JSON or CSV.
///
/// JSON: `{"baseline", "runs": [{"index", "file", "label", "num_ranks"}], "metric",
/// "sort", "threshold", "rows": [{"name", "values", "delta", "pct"}]}`, each of
/// `values`, `delta` and `pct` a list with one entry per run (null for none). CSV: one line
/// per row, `name,value_0,value_1,delta_1,pct_1,…` (no delta or pct for the baseline).
pub fn write_many(
    out: &mut impl Write,
    format: Format,
    show: Show,
    runs: &[Run],
    table: &NwayComparison,
) -> io::Result<()> {
    let metric = table.options.metric;
    let base = table.baseline;
    match format {
        Format::Table => {
            let rule = "=".repeat(78);
            let mut s = format!("{rule}\n");
            for (i, run) in runs.iter().enumerate() {
                let tag = if i == base { " (baseline)" } else { "" };
                s.push_str(&format!("#{i}{tag}: {}\n", show.text(&title(run))));
            }
            s.push_str(&format!("{rule}\n\n"));
            s.push_str(&format!("Regions ({})\n", table.rows.len()));
            if table.rows.is_empty() {
                s.push_str("  (no regions to compare)\n");
                return out.write_all(s.as_bytes());
            }
            let (headers, cells) = grid(table, show);
            let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
            s.push_str(&draw(&headers, &cells, &column_widths(&headers, &cells)));
            for i in 0..table.runs {
                let missing: Vec<_> = (table.rows.iter())
                    .filter(|r| r.values[i].is_none())
                    .map(|r| show.text(&r.name).into_owned())
                    .collect();
                if !missing.is_empty() {
                    s.push_str(&format!("  Not in #{i}: {}\n", missing.join(", ")));
                }
            }
            s.push('\n');
            out.write_all(s.as_bytes())
        }
        Format::Json => {
            let count = |v: Option<f64>| match v {
                Some(v) if metric.is_count() && v.is_finite() => json!(v as i64),
                v => opt(v),
            };
            let list = |v: &[Option<f64>], f: &dyn Fn(Option<f64>) -> Json| {
                Json::Array(v.iter().map(|x| f(*x)).collect())
            };
            let mut doc = Map::new();
            doc.insert("baseline".into(), json!(base));
            let runs = runs.iter().enumerate().map(|(i, r)| {
                json!({"index": i, "file": r.file, "label": r.label, "num_ranks": r.ranks})
            });
            doc.insert("runs".into(), Json::Array(runs.collect()));
            doc.insert("metric".into(), json!(metric.name()));
            doc.insert("sort".into(), json!(table.options.order.name()));
            doc.insert("threshold".into(), opt(table.options.threshold));
            let rows = table.rows.iter().map(|r| {
                json!({"name": r.name, "values": list(&r.values, &count), "delta": list(&r.delta, &count), "pct": list(&r.pct, &opt)})
            });
            doc.insert("rows".into(), Json::Array(rows.collect()));
            serde_json::to_writer_pretty(&mut *out, &Json::Object(doc))?;
            writeln!(out)
        }
        Format::Csv => {
            let value = |v: Option<f64>| match v {
                Some(v) if metric.is_count() && v.is_finite() => json!(v as i64),
                v => opt(v),
            };
            let records: Vec<Record> = (table.rows.iter())
                .map(|r| {
                    let mut rec: Record = vec![("name".into(), Json::String(r.name.clone()))];
                    for i in 0..table.runs {
                        rec.push((format!("value_{i}"), value(r.values[i])));
                        if i != base {
                            rec.push((format!("delta_{i}"), value(r.delta[i])));
                            rec.push((format!("pct_{i}"), r.pct[i].map_or(Json::Null, num)));
                        }
                    }
                    rec
                })
                .collect();
            write_records(out, Format::Csv, show, Map::new(), "rows", &records)
        }
    }
}

/// The text table's header (`region`, then per run the metric, and but for the baseline
/// its delta and delta %) and cells, as `sp diff A B C` prints them.
pub fn grid(table: &NwayComparison, show: Show) -> (Vec<String>, Vec<Vec<String>>) {
    let metric = table.options.metric;
    let mut headers = vec!["region".to_string()];
    for i in 0..table.runs {
        headers.push(format!("{} #{i}", metric.label()));
        if i != table.baseline {
            headers.push(format!("delta #{i}"));
            headers.push(format!("delta [%] #{i}"));
        }
    }
    let cells = (table.rows.iter())
        .map(|r| cells(r, metric, table.baseline, show))
        .collect();
    (headers, cells)
}

/// A row's cells in the text table, as the two-file table prints them.
fn cells(row: &NwayRow, metric: Metric, base: usize, show: Show) -> Vec<String> {
    let mut c = vec![show.text(&row.name).into_owned()];
    for i in 0..row.values.len() {
        c.push(value_text(row.values[i], metric));
        if i != base {
            c.push(row.delta[i].map_or("-".into(), |d| delta_text(d, metric)));
            c.push(pct_text(row.pct[i]));
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::compare::tests::profile;
    use crate::analysis::Selection;

    fn flat(p: &crate::schema::Profile) -> FlatRows {
        FlatRows::of(p, &Selection::all())
    }

    #[test]
    fn each_column_is_the_pairwise_diff() {
        let runs = [
            flat(&profile(&[
                ("solve", &[(0, 10), (20, 50)]),
                ("io", &[(60, 64)]),
            ])),
            flat(&profile(&[
                ("solve", &[(0, 10), (20, 70)]),
                ("plot", &[(1, 4)]),
            ])),
            flat(&profile(&[("solve", &[(0, 5)]), ("io", &[(0, 8)])])),
        ];
        for base in 0..3 {
            let options = DiffOptions::default();
            let t = diff_many(&runs, base, &options).unwrap();
            for (i, run) in runs.iter().enumerate() {
                let pair = diff_flat(&runs[base], run, &options);
                for r in &t.rows {
                    let p = pair.rows.iter().find(|p| p.name == r.name);
                    if i == base {
                        assert_eq!((r.delta[i], r.pct[i]), (None, None));
                        continue;
                    }
                    assert_eq!(r.delta[i], p.map(|p| p.delta), "{} #{i}", r.name);
                    assert_eq!(r.pct[i], p.and_then(|p| p.pct), "{} #{i}", r.name);
                    assert_eq!(r.values[i], p.and_then(|p| p.b), "{} #{i}", r.name);
                    assert_eq!(r.values[base], p.and_then(|p| p.a).or(r.values[base]));
                }
            }
        }
        let t = diff_many(&runs, 0, &DiffOptions::default()).unwrap();
        let names: Vec<&str> = t.rows.iter().map(|r| r.name.as_str()).collect();
        // Largest |delta| of any run: solve 25 ns, io 4 ns, plot 3 ns.
        assert_eq!(names, ["solve", "io", "plot"]);
    }

    #[test]
    fn bad_inputs_are_errors() {
        let one = [flat(&profile(&[("a", &[(0, 1)])]))];
        assert_eq!(
            diff_many(&one, 0, &DiffOptions::default()),
            Err(NwayError::TooFew(1))
        );
        let p = profile(&[("a", &[(0, 1)])]);
        let mut runs = [
            Run::of("a.h5", &p, &Selection::all()),
            Run::of("b.h5", &p, &Selection::all()),
        ];
        runs[1].label = "fast".into();
        assert_eq!(resolve_baseline("1", &runs), Ok(1));
        assert_eq!(resolve_baseline("fast", &runs), Ok(1));
        assert_eq!(resolve_baseline("a.h5", &runs), Ok(0));
        let err = resolve_baseline("2", &runs).unwrap_err();
        assert_eq!(
            err.to_string(),
            "--baseline \"2\" is neither an index from 0 to 1 nor a file or label of the runs"
        );
    }
}
