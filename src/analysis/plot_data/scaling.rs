//! `speedup_data`, `scaling_efficiency_data`, `weak_scaling_data` and
//! `weak_scaling_efficiency_data`: the points of [`crate::analysis::scaling::ScalingTable`]
//! (the numbers of `sp scaling`) over two files or more, one row per region and point of
//! the axis (`--x`: `num_ranks`, `num_nodes`, `omp_num_threads`, `total_cores` or a
//! metadata field), in the reference's columns.

use serde_json::{json, Value};

use super::{tab20, Cell, Kind, Options, Run, Table};
use crate::analysis::scaling::{self, Axis, ScalingTable, XValue};
use crate::analysis::{Error, Result};

/// The axis the reference's `--x FIELD` names.
pub fn axis(field: &str) -> Axis {
    match field {
        "num_ranks" => Axis::Ranks,
        "num_nodes" => Axis::Nodes,
        "omp_num_threads" => Axis::Threads,
        "total_cores" => Axis::Cores,
        key => Axis::Meta(key.to_string()),
    }
}

fn x_json(x: &XValue) -> Value {
    match x {
        XValue::Int(i) => json!(i),
        XValue::Text(t) => json!(t),
    }
}

/// The table of the scaling `kind` over `runs`, on the axis `--x field`.
pub fn table(kind: Kind, runs: &[Run], opts: &Options, field: &str) -> Result<Table> {
    let which = match kind {
        Kind::Speedup => scaling::Kind::Speedup,
        Kind::ScalingEfficiency => scaling::Kind::ScalingEfficiency,
        Kind::WeakScaling => scaling::Kind::WeakScaling,
        _ => scaling::Kind::WeakScalingEfficiency,
    };
    let studied: Vec<crate::analysis::runs::Run> = (runs.iter())
        .map(|r| crate::analysis::runs::Run::of(&r.label, r.profile, &opts.selection))
        .collect();
    let table =
        ScalingTable::new(&studied, &axis(field)).map_err(|e| Error::Unavailable(e.to_string()))?;
    let mut rows = Vec::new();
    for region in &table.regions {
        for p in &region.points {
            let x = match &p.x {
                XValue::Int(i) => Cell::Int(*i),
                XValue::Text(t) => Cell::Text(t.clone()),
            };
            let y = p.value(which).map_or(Cell::Null, Cell::Float);
            rows.push(vec![Cell::Text(region.name.clone()), x, y]);
        }
    }
    let n = table.regions.iter().map(|r| r.index + 1).max().unwrap_or(0);
    let colors = tab20(n);
    let colors: serde_json::Map<String, Value> = (table.regions.iter())
        .map(|r| (r.name.clone(), colors[r.index].into()))
        .collect();
    let x_field = table.axis.field().to_string();
    Ok(Table {
        kind,
        header: vec![
            "region".into(),
            x_field.clone().into(),
            which.y_key().into(),
        ],
        rows,
        rows_key: "points",
        extra: vec![
            ("colors", Value::Object(colors)),
            (
                "options",
                json!({
                    "x_field": x_field,
                    "x_label": table.axis.label(),
                    "baseline": x_json(&table.baseline),
                }),
            ),
        ],
    })
}
