//! The region table's rows for the page: every statistic of [`Row`] at full precision (the
//! values `sp inspect --format csv` writes) and as a person reads it, with `% session`,
//! `% parent` and the `(own)` line under each row that has children, as `sp inspect`'s
//! table draws them.

use std::collections::HashSet;

use serde_json::{json, Map, Value as Json};
use sp::analysis::units::{count_text, duration_text};
use sp::analysis::{PercentageMode, Row};

/// The session root's region name.
const SESSION: &str = "scope_profiler.session";

/// Duration columns, by their `sp inspect --format csv` names.
const DURATIONS: [&str; 14] = [
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
    "gpu_total",
    "gpu_avg",
];

/// The `scope_profiler.session` row's total, the base of `% session`.
pub fn session_total(rows: &[Row]) -> Option<f64> {
    rows.iter()
        .find(|r| r.name == SESSION)
        .and_then(|r| r.total)
}

/// `% session` of a row: coverage (or, in exclusive mode, own time; the session's own
/// total) over the session's total.
pub fn percent(row: &Row, mode: PercentageMode, session: Option<f64>) -> Option<f64> {
    let value = match mode {
        PercentageMode::Exclusive if row.name == SESSION => row.total,
        PercentageMode::Exclusive => row.exclusive,
        PercentageMode::Coverage => row.coverage,
    };
    ratio(value, session)
}

fn ratio(value: Option<f64>, base: Option<f64>) -> Option<f64> {
    let base = base.filter(|&b| b > 0.0)?;
    Some(100.0 * value? / base)
}

fn number(v: Option<f64>) -> Json {
    v.filter(|x| x.is_finite()).map_or(Json::Null, |x| json!(x))
}

fn pct_text(v: Option<f64>) -> Json {
    v.filter(|x| x.is_finite())
        .map_or(Json::Null, |x| json!(format!("{x:.1}%")))
}

fn value(row: &Row, key: &str) -> Option<f64> {
    match key {
        "total" => row.total,
        "coverage" => row.coverage,
        "exclusive" => row.exclusive,
        "avg" => row.avg,
        "min" => row.min,
        "max" => row.max,
        "first" => row.first,
        "last" => row.last,
        "std" => row.std,
        "p50" => row.p50,
        "p95" => row.p95,
        "p99" => row.p99,
        "gpu_total" => row.gpu_total,
        "gpu_avg" => row.gpu_avg,
        _ => None,
    }
}

/// The rows as the page's table takes them: per row its name, call path, depth, recursion
/// mark, rank and call counts, `v` (numbers) and `t` (texts) keyed by column, and `own`
/// (numbers and texts of its `(own)` line) when other rows nest under it.
pub fn rows_json(rows: &[Row], mode: PercentageMode) -> Json {
    let session = session_total(rows);
    let parents: HashSet<&[String]> = rows
        .iter()
        .filter_map(|r| r.call_path.as_deref())
        .filter(|p| p.len() > 1)
        .map(|p| &p[..p.len() - 1])
        .collect();
    let list: Vec<Json> = rows
        .iter()
        .map(|row| {
            let mut v = Map::new();
            let mut t = Map::new();
            for key in DURATIONS {
                let x = value(row, key);
                v.insert(key.into(), number(x));
                t.insert(key.into(), json!(duration_text(x)));
            }
            let pct = percent(row, mode, session);
            let parent_pct = ratio(row.coverage, row.parent_coverage);
            v.insert("imbalance".into(), number(row.imbalance));
            t.insert("imbalance".into(), pct_text(row.imbalance));
            v.insert("percent".into(), number(pct));
            t.insert("percent".into(), pct_text(pct));
            v.insert("parent_percent".into(), number(parent_pct));
            t.insert("parent_percent".into(), pct_text(parent_pct));
            v.insert("start".into(), number(Some(row.start)));
            v.insert("parent_coverage".into(), number(row.parent_coverage));
            t.insert("calls".into(), json!(count_text(row.calls)));
            let own = row
                .call_path
                .as_deref()
                .filter(|p| parents.contains(p))
                .map(|_| {
                    let avg = row
                        .exclusive
                        .filter(|_| row.calls > 0)
                        .map(|e| e / row.calls as f64);
                    let pct = ratio(row.exclusive, session);
                    let parent = ratio(row.exclusive, row.coverage);
                    json!({
                        "v": {"total": number(row.exclusive), "avg": number(avg),
                              "percent": number(pct), "parent_percent": number(parent)},
                        "t": {"total": duration_text(row.exclusive), "avg": duration_text(avg),
                              "percent": pct_text(pct), "parent_percent": pct_text(parent)},
                    })
                });
            json!({
                "name": row.name,
                "path": row.call_path,
                "depth": row.depth,
                "recursive": row.recursive,
                "ranks": row.num_ranks,
                "calls": row.calls,
                "v": v,
                "t": t,
                "own": own,
            })
        })
        .collect();
    Json::Array(list)
}
