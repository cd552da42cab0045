//! A comparison written out: the reference's text (`diff.print_diff_table` and the
//! headings of `diff_files` / `check_files`, to the byte), or JSON and CSV for scripts.
//!
//! JSON is one document: `{"a": side, "b": side, "metric", "sort", "threshold", "rows":
//! [{"name", "a", "b", "delta", "pct"}], "only_in_a": [name, …], "only_in_b": [name, …],
//! "warnings": [text, …]}`, each side `{"file", "label", "num_ranks"}`; a check has
//! `"max_regression"`, `"fail_on_new"`, `"passed"` and `"violations"` (names) instead of
//! `"threshold"`, and a `"violation"` flag on every row. Values are in the metric's unit
//! (seconds, percent, or an integer count) at full precision, `null` where there is none.
//! CSV has one line per row with the row keys as columns.

use std::io::{self, Write};

use serde_json::{json, Map, Value as Json};

use super::{Budget, CheckOutcome, Comparison, DiffRow, Metric};
use crate::analysis::metadata::label;
use crate::analysis::report::csv::cell;
use crate::analysis::report::format::python_g;
use crate::analysis::report::grid::{column_widths, draw};
use crate::analysis::report::Format;
use crate::schema::Profile;
use crate::text::Show;

/// One compared profile: the name to show for it (a path, as the front end chooses) and
/// the profile.
#[derive(Debug, Clone, Copy)]
pub struct Side<'a> {
    pub name: &'a str,
    pub profile: &'a Profile,
}

impl<'a> Side<'a> {
    /// Sides a (the baseline) and b of two profiles and their names.
    pub fn pair(names: &'a [String; 2], profiles: &'a [Profile; 2]) -> (Side<'a>, Side<'a>) {
        let side = |i: usize| Side {
            name: &names[i],
            profile: &profiles[i],
        };
        (side(0), side(1))
    }

    /// `ProfilingResults.default_title`: `label - name (N ranks)`.
    pub fn title(&self) -> String {
        let n = self.profile.num_ranks;
        let ranks = if n == 1 { "rank" } else { "ranks" };
        match label(self.profile) {
            Some(label) => format!("{label} - {} ({n} {ranks})", self.name),
            None => format!("{} ({n} {ranks})", self.name),
        }
    }

    fn json(&self) -> Json {
        json!({
            "file": self.name,
            "label": label(self.profile),
            "num_ranks": self.profile.num_ranks,
        })
    }
}

/// Writes `comparison` of `a` and `b` as `scope-profiler diff` prints it, or as JSON or CSV.
pub fn write_diff(
    out: &mut impl Write,
    format: Format,
    a: &Side<'_>,
    b: &Side<'_>,
    comparison: &Comparison,
) -> io::Result<()> {
    write_diff_shown(out, format, Show::AsIs, a, b, comparison)
}

/// [`write_diff`], with the text from the profiles (names, labels, warnings) in the table
/// shown as `show` says: [`Show::Escaped`] for a terminal.
pub fn write_diff_shown(
    out: &mut impl Write,
    format: Format,
    show: Show,
    a: &Side<'_>,
    b: &Side<'_>,
    comparison: &Comparison,
) -> io::Result<()> {
    match format {
        Format::Table => {
            let mut s = format!("{}\n", "=".repeat(78));
            s.push_str(&format!(
                "a: {}\nb: {}\n",
                show.text(&a.title()),
                show.text(&b.title())
            ));
            s.push_str(&format!("{}\n\n", "=".repeat(78)));
            for warning in &comparison.warnings {
                s.push_str(&show.text(warning));
                s.push('\n');
            }
            let title = format!("Regions ({})", comparison.rows.len());
            s.push_str(&table(comparison, &title, show));
            out.write_all(s.as_bytes())
        }
        Format::Json => {
            let mut doc = document(a, b, comparison);
            doc.insert("threshold".into(), number(comparison.options.threshold));
            doc.insert("rows".into(), rows_json(comparison, None));
            doc.insert("warnings".into(), json!(comparison.warnings));
            write_json(out, doc)
        }
        Format::Csv => write_csv(out, comparison, None),
    }
}

/// Writes the outcome of a check of `candidate` against `baseline` as `scope-profiler
/// check` prints it, or as JSON or CSV.
pub fn write_check(
    out: &mut impl Write,
    format: Format,
    baseline: &Side<'_>,
    candidate: &Side<'_>,
    outcome: &CheckOutcome,
) -> io::Result<()> {
    write_check_shown(out, format, Show::AsIs, baseline, candidate, outcome)
}

/// [`write_check`], with the text from the profiles in the table shown as `show` says.
pub fn write_check_shown(
    out: &mut impl Write,
    format: Format,
    show: Show,
    baseline: &Side<'_>,
    candidate: &Side<'_>,
    outcome: &CheckOutcome,
) -> io::Result<()> {
    let comparison = &outcome.comparison;
    let budget = Some(&outcome.budget);
    match format {
        Format::Table => {
            let mut s = format!("Baseline: {}\n", show.text(&baseline.title()));
            s.push_str(&format!("Candidate: {}\n", show.text(&candidate.title())));
            s.push_str(&format!(
                "Regression budget: +{}% ({})\n",
                python_g(outcome.budget.max_regression(), 6),
                comparison.options.metric.name()
            ));
            let verdict = if outcome.passed() { "PASS" } else { "FAIL" };
            s.push_str(&table(
                comparison,
                &format!("Regression check: {verdict}"),
                show,
            ));
            let violations: Vec<_> = outcome.violations().map(|r| show.text(&r.name)).collect();
            if !violations.is_empty() {
                s.push_str(&format!("Budget violations: {}\n", violations.join(", ")));
            }
            out.write_all(s.as_bytes())
        }
        Format::Json => {
            let mut doc = document(baseline, candidate, comparison);
            doc.insert(
                "max_regression".into(),
                number(Some(outcome.budget.max_regression())),
            );
            doc.insert("fail_on_new".into(), json!(outcome.budget.fail_on_new()));
            doc.insert("passed".into(), json!(outcome.passed()));
            doc.insert(
                "violations".into(),
                json!(outcome.violations().map(|r| &r.name).collect::<Vec<_>>()),
            );
            doc.insert("rows".into(), rows_json(comparison, budget));
            write_json(out, doc)
        }
        Format::Csv => write_csv(out, comparison, budget),
    }
}

/// `print_diff_table`: the title, the boxed table (or a note that it is empty), and the
/// regions only one side has.
fn table(comparison: &Comparison, title: &str, show: Show) -> String {
    let mut s = format!("{title}\n");
    if comparison.rows.is_empty() {
        s.push_str("  (no regions to compare)\n");
        return s;
    }
    let metric = comparison.options.metric;
    let label = metric.label();
    let (header_a, header_b) = (format!("{label} (a)"), format!("{label} (b)"));
    let headers = ["region", &header_a, &header_b, "delta", "delta [%]"];
    let cells: Vec<Vec<String>> = comparison
        .rows
        .iter()
        .map(|row| {
            vec![
                show.text(&row.name).into_owned(),
                value_text(row.a, metric),
                value_text(row.b, metric),
                delta_text(row.delta, metric),
                pct_text(row.pct),
            ]
        })
        .collect();
    s.push_str(&draw(&headers, &cells, &column_widths(&headers, &cells)));
    let only_a: Vec<_> = comparison.only_in_a().map(|n| show.text(n)).collect();
    let only_b: Vec<_> = comparison.only_in_b().map(|n| show.text(n)).collect();
    if !only_a.is_empty() {
        s.push_str(&format!("\n  Only in a: {}\n", only_a.join(", ")));
    }
    if !only_b.is_empty() {
        s.push_str(&format!("  Only in b: {}\n", only_b.join(", ")));
    }
    s.push('\n');
    s
}

/// A count as Python's `int()` prints it (truncated, never `-0`).
fn count_text(v: f64) -> String {
    (v as i64).to_string()
}

/// `_format_value`: one side's value, `-` when there is none.
pub(super) fn value_text(v: Option<f64>, metric: Metric) -> String {
    match v {
        None => "-".into(),
        Some(v) if metric.is_count() => count_text(v),
        Some(v) => python_g(v, 6),
    }
}

/// `_format_delta`: the delta with its sign always shown.
pub(super) fn delta_text(v: f64, metric: Metric) -> String {
    let sign = if v >= 0.0 { "+" } else { "" };
    if metric.is_count() {
        format!("{sign}{}", count_text(v))
    } else {
        format!("{sign}{}", python_g(v, 6))
    }
}

/// `_format_pct`: the percent change with its sign, `-` without a baseline.
pub(super) fn pct_text(v: Option<f64>) -> String {
    match v {
        None => "-".into(),
        Some(v) => format!("{}{}%", if v >= 0.0 { "+" } else { "" }, python_g(v, 4)),
    }
}

/// A float as JSON, `null` when absent or not finite.
fn number(v: Option<f64>) -> Json {
    v.filter(|x| x.is_finite()).map_or(Json::Null, |x| json!(x))
}

/// A value of `metric` as JSON: an integer for a count.
fn metric_number(v: Option<f64>, metric: Metric) -> Json {
    match v {
        Some(v) if metric.is_count() && v.is_finite() => json!(v as i64),
        other => number(other),
    }
}

/// The fields every JSON document has.
fn document(a: &Side<'_>, b: &Side<'_>, comparison: &Comparison) -> Map<String, Json> {
    let mut doc = Map::new();
    doc.insert("a".into(), a.json());
    doc.insert("b".into(), b.json());
    doc.insert("metric".into(), json!(comparison.options.metric.name()));
    doc.insert("sort".into(), json!(comparison.options.order.name()));
    doc.insert(
        "only_in_a".into(),
        json!(comparison.only_in_a().collect::<Vec<_>>()),
    );
    doc.insert(
        "only_in_b".into(),
        json!(comparison.only_in_b().collect::<Vec<_>>()),
    );
    doc
}

/// One row as JSON, with its `violation` flag when a budget is applied.
fn row_json(row: &DiffRow, metric: Metric, budget: Option<&Budget>) -> Json {
    let mut j = json!({
        "name": row.name,
        "a": metric_number(row.a, metric),
        "b": metric_number(row.b, metric),
        "delta": metric_number(Some(row.delta), metric),
        "pct": number(row.pct),
    });
    if let (Some(budget), Json::Object(map)) = (budget, &mut j) {
        map.insert("violation".into(), json!(budget.violated_by(row)));
    }
    j
}

fn rows_json(comparison: &Comparison, budget: Option<&Budget>) -> Json {
    let metric = comparison.options.metric;
    Json::Array(
        comparison
            .rows
            .iter()
            .map(|r| row_json(r, metric, budget))
            .collect(),
    )
}

/// The document, pretty-printed, and a newline.
fn write_json(out: &mut impl Write, doc: Map<String, Json>) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &Json::Object(doc))?;
    writeln!(out)
}

/// One header line, then one line per row with the keys of the JSON rows as columns.
fn write_csv(
    out: &mut impl Write,
    comparison: &Comparison,
    budget: Option<&Budget>,
) -> io::Result<()> {
    const KEYS: [&str; 6] = ["name", "a", "b", "delta", "pct", "violation"];
    let metric = comparison.options.metric;
    let keys = if budget.is_some() {
        &KEYS[..]
    } else {
        &KEYS[..5]
    };
    writeln!(out, "{}", keys.join(","))?;
    for row in &comparison.rows {
        let j = row_json(row, metric, budget);
        let cells: Vec<String> = keys
            .iter()
            .map(|key| match &j[*key] {
                Json::Null => String::new(),
                Json::String(s) => cell(s),
                v => v.to_string(),
            })
            .collect();
        writeln!(out, "{}", cells.join(","))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the reference's `_format_value`, `_format_delta` and `_format_pct` print.
    #[test]
    fn cells_print_as_the_reference() {
        assert_eq!(value_text(Some(0.000210203), Metric::Total), "0.000210203");
        assert_eq!(value_text(Some(3.0395e-05), Metric::Total), "3.0395e-05");
        assert_eq!(value_text(None, Metric::Total), "-");
        assert_eq!(value_text(Some(5.0), Metric::Calls), "5");
        assert_eq!(delta_text(5.4863e-05, Metric::Total), "+5.4863e-05");
        assert_eq!(delta_text(-3.1045e-05, Metric::Total), "-3.1045e-05");
        assert_eq!(delta_text(0.0, Metric::Total), "+0");
        assert_eq!(delta_text(-3.0, Metric::Calls), "-3");
        assert_eq!(delta_text(0.0, Metric::Calls), "+0");
        assert_eq!(pct_text(Some(26.100278)), "+26.1%");
        assert_eq!(pct_text(Some(-1.624428)), "-1.624%");
        assert_eq!(pct_text(Some(-100.0)), "-100%");
        assert_eq!(pct_text(Some(0.0)), "+0%");
        assert_eq!(pct_text(None), "-");
    }
}
