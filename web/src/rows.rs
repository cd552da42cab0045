//! The region table's rows for the page: each row as the library's JSON report writes it
//! (the values `sp inspect --format csv` writes, at full precision), plus the same numbers
//! as a person reads them and the `(own)` line under each row that has nested rows, as
//! `sp inspect`'s table draws it.

use serde_json::{json, Map, Value as Json};
use sp::analysis::report::{has_own_line, parent_paths, row_json, OwnLine};
use sp::analysis::rows::{percent_of, session_total};
use sp::analysis::units::{count_text, duration_text, pct_text};
use sp::analysis::{PercentageMode, RegionRow};

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

/// Percentage columns.
const PERCENTS: [&str; 3] = ["imbalance", "percent", "parent_percent"];

/// The rows as the page's table takes them: per row its name, call path, depth, recursion
/// mark, rank and call counts, `v` (the JSON report's values, plus `parent_percent`) and
/// `t` (their texts) keyed by column, and `own` (values and texts of its `(own)` line)
/// when other rows nest under it.
pub fn rows_json(rows: &[RegionRow], mode: PercentageMode) -> Json {
    let session = session_total(rows);
    let parents = parent_paths(rows);
    let list: Vec<Json> = rows
        .iter()
        .map(|row| {
            let mut v = row_json(row, mode, session);
            v["parent_percent"] = number(percent_of(row.coverage, row.parent_coverage));
            let mut t = Map::new();
            for key in DURATIONS {
                t.insert(key.into(), json!(duration_text(v[key].as_f64())));
            }
            for key in PERCENTS {
                t.insert(key.into(), json!(pct_text(v[key].as_f64())));
            }
            t.insert("calls".into(), json!(count_text(row.calls)));
            let own = has_own_line(row, &parents).then(|| {
                let own = OwnLine::of(row, session);
                json!({
                    "v": {"total": number(own.total), "avg": number(own.avg),
                          "percent": number(own.percent),
                          "parent_percent": number(own.parent_percent)},
                    "t": {"total": duration_text(own.total), "avg": duration_text(own.avg),
                          "percent": pct_text(own.percent),
                          "parent_percent": pct_text(own.parent_percent)},
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

/// A finite number, else null (as the JSON report writes it).
fn number(v: Option<f64>) -> Json {
    v.filter(|x| x.is_finite()).map_or(Json::Null, |x| json!(x))
}
