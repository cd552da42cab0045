//! Two open profiles compared region by region, as `sp diff` and `sp check` compare them:
//! every number comes from [`sp::analysis::compare`]. Each side's flat rows come from what
//! the page holds of it (the index, else the whole read); for the percentile metrics each
//! region's p50/p95/p99 are read from its calls on demand and kept, as the region table
//! reads them ([`Opened::region_percentiles`]), which gives the values of `sp diff`'s full
//! read.
//!
//! Request: `compare {file, other, metric, order, threshold, max_regression, fail_on_new,
//! include, exclude, ranks}`, `file` being the baseline (a) and `other` the candidate (b).
//! Answer: the metric and its label, both sides, `rows` (`name, a, b, delta, pct`, their
//! texts, and `violation`), `only_in_a`, `only_in_b`, `hidden` (rows under the threshold),
//! `warnings`, `check` (the budget's verdict, or `error` for a budget that cannot be
//! applied), and the texts `sp diff --format csv|json` and `sp check --format json` print
//! for the same options (`downloads`).

use serde_json::{json, Value as Json};
use sp::analysis::compare::{
    self, check_flat, diff_flat, gpu_warnings, Budget, CheckOutcome, Comparison, DiffOptions,
    DiffOrder, DiffRow, FlatRows, Format, Metric, Side,
};
use sp::analysis::units::{count_text, duration_text, pct_text, signed_pct};
use sp::analysis::Selection;

use crate::profile::Opened;
use crate::selection::Options;
use crate::session::Answer;

/// The comparison of baseline `a` with candidate `b` a request asks for.
pub fn compare(a: &Opened, b: &Opened, req: &Json) -> Answer {
    let metric_name = req["metric"].as_str().unwrap_or("total");
    let metric = Metric::from_name(metric_name)
        .ok_or_else(|| format!("There is no metric {metric_name:?} to compare."))?;
    let order_name = req["order"].as_str().unwrap_or("delta");
    let order = DiffOrder::from_name(order_name)
        .ok_or_else(|| format!("There is no order {order_name:?} for a comparison."))?;
    let threshold = req["threshold"].as_f64();
    let selection = Options::from_request(req)?.selection;
    let rows_a = flat_rows(a, &selection, metric)?;
    let rows_b = flat_rows(b, &selection, metric)?;
    let options = DiffOptions {
        metric,
        order,
        threshold,
    };
    let mut comparison = diff_flat(&rows_a, &rows_b, &options);
    comparison.warnings = gpu_warnings(a.head()?, b.head()?, &selection);
    let all = diff_flat(
        &rows_a,
        &rows_b,
        &DiffOptions {
            threshold: None,
            ..options
        },
    )
    .rows;
    let budget = Budget::new(
        req["max_regression"].as_f64().unwrap_or(0.0),
        req["fail_on_new"].as_bool().unwrap_or(false),
    );
    let outcome = budget.map(|budget| check_flat(&rows_a, &rows_b, metric, budget));
    let (side_a, side_b) = (side(a)?, side(b)?);
    Ok(json!({
        "metric": metric.name(),
        "label": metric.label(),
        "metrics": Metric::ALL.iter().map(|(m, n)| json!([n, m.label()])).collect::<Vec<_>>(),
        "a": side_json(&side_a),
        "b": side_json(&side_b),
        "rows": comparison.rows.iter().map(|row| row_json(row, metric, outcome.as_ref().ok())).collect::<Vec<_>>(),
        "only_in_a": comparison.only_in_a().collect::<Vec<_>>(),
        "only_in_b": comparison.only_in_b().collect::<Vec<_>>(),
        "hidden": all.len() - comparison.rows.len(),
        "warnings": comparison.warnings,
        "check": match &outcome {
            Ok(outcome) => check_json(outcome),
            Err(e) => json!({ "error": format!("The budget cannot be applied: {e}.") }),
        },
        "downloads": downloads(&side_a, &side_b, &comparison, outcome.as_ref().ok())?,
        "io_a": a.io(),
        "io_b": b.io(),
    }))
}

/// One side's flat rows, with the percentiles read from its calls when `metric` needs them.
fn flat_rows(side: &Opened, selection: &Selection, metric: Metric) -> Result<FlatRows, String> {
    let rows = FlatRows::of(side.head()?, selection);
    if !matches!(metric, Metric::P50 | Metric::P95 | Metric::P99) {
        return Ok(rows);
    }
    let ranks = selection.ranks.as_deref();
    rows.with_percentiles(|name| side.region_percentiles(name, ranks).map(|(p, _)| p))
}

fn side(opened: &Opened) -> Result<Side<'_>, String> {
    Ok(Side {
        name: opened.name(),
        profile: opened.head()?,
    })
}

fn side_json(side: &Side<'_>) -> Json {
    json!({
        "name": side.name,
        "title": side.title(),
        "num_ranks": side.profile.num_ranks,
    })
}

/// A value of the metric in words: a duration, a count or a percentage.
fn value_text(v: Option<f64>, metric: Metric) -> String {
    match v {
        None => "–".into(),
        Some(v) if metric.is_count() => count_text(v as u64),
        Some(v) if metric == Metric::Imbalance => pct_text(Some(v)),
        Some(v) => duration_text(Some(v)),
    }
}

/// A change of the metric in words, its sign always shown.
fn delta_text(v: f64, metric: Metric) -> String {
    if metric.is_count() {
        let n = count_text(v.abs() as u64);
        return if v < 0.0 {
            format!("−{n}")
        } else {
            format!("+{n}")
        };
    }
    let text = value_text(Some(v.abs()), metric);
    if v < 0.0 {
        format!("−{text}")
    } else {
        format!("+{text}")
    }
}

fn row_json(row: &DiffRow, metric: Metric, outcome: Option<&CheckOutcome>) -> Json {
    json!({
        "name": row.name,
        "a": number(row.a),
        "b": number(row.b),
        "delta": number(Some(row.delta)),
        "pct": number(row.pct),
        "a_text": value_text(row.a, metric),
        "b_text": value_text(row.b, metric),
        "delta_text": delta_text(row.delta, metric),
        "pct_text": row.pct.filter(|p| p.is_finite()).map_or("–".into(), signed_pct),
        "violation": outcome.is_some_and(|o| o.budget.violated_by(row)),
    })
}

fn check_json(outcome: &CheckOutcome) -> Json {
    let violations: Vec<&str> = outcome.violations().map(|r| r.name.as_str()).collect();
    json!({
        "passed": outcome.passed(),
        "max_regression": number(Some(outcome.budget.max_regression())),
        "fail_on_new": outcome.budget.fail_on_new(),
        "violations": violations,
        "compared": outcome.comparison.rows.len(),
    })
}

/// The texts the CLI prints for the same options: `sp diff --format csv`, `sp diff
/// --format json` and `sp check --format json`.
fn downloads(
    a: &Side<'_>,
    b: &Side<'_>,
    comparison: &Comparison,
    outcome: Option<&CheckOutcome>,
) -> Result<Json, String> {
    let text = |write: &dyn Fn(&mut Vec<u8>) -> std::io::Result<()>| -> Result<String, String> {
        let mut out = Vec::new();
        write(&mut out).map_err(|e| format!("Writing the comparison failed: {e}."))?;
        String::from_utf8(out).map_err(|_| "The comparison is not UTF-8.".to_string())
    };
    let check = match outcome {
        Some(o) => Json::String(text(&|out| {
            compare::write_check(out, Format::Json, a, b, o)
        })?),
        None => Json::Null,
    };
    Ok(json!({
        "diff_csv": text(&|out| compare::write_diff(out, Format::Csv, a, b, comparison))?,
        "diff_json": text(&|out| compare::write_diff(out, Format::Json, a, b, comparison))?,
        "check_json": check,
    }))
}

/// A float as JSON, `null` when absent or not finite.
fn number(v: Option<f64>) -> Json {
    v.filter(|x| x.is_finite()).map_or(Json::Null, |x| json!(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_changes_read_in_their_unit() {
        assert_eq!(value_text(Some(0.000210203), Metric::Total), "210 µs");
        assert_eq!(value_text(Some(12.0), Metric::Calls), "12");
        assert_eq!(value_text(Some(61.25), Metric::Imbalance), "61.2%");
        assert_eq!(value_text(None, Metric::P95), "–");
        assert_eq!(delta_text(-3.1045e-05, Metric::Total), "−31 µs");
        assert_eq!(delta_text(5.4863e-05, Metric::Total), "+54.9 µs");
        assert_eq!(delta_text(-3.0, Metric::Calls), "−3");
        assert_eq!(delta_text(0.0, Metric::Calls), "+0");
    }
}
