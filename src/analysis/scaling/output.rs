//! The scaling table as records ([`crate::analysis::runs::records`]): one per region and
//! point; with models, one per region's model; with a prediction, one per region's share.

use std::io::{self, Write};

use serde_json::{json, Map, Value as Json};

use super::{Fitted, Mode, Prediction, ScalingTable, XValue};
use crate::analysis::report::Format;
use crate::analysis::runs::records::{num, opt, write_records, Record};
use crate::text::Show;

fn x_json(x: &XValue) -> Json {
    match x {
        XValue::Int(i) => Json::from(*i),
        XValue::Text(t) => Json::String(t.clone()),
    }
}

/// A model as the JSON's `model` object: `constant`, `terms` (`coefficient`,
/// `exponent` as a fraction string, `log_exponent`), `adjusted_r2`, `text`.
pub fn model_json(fitted: &Fitted) -> Json {
    match &fitted.model {
        None => Json::Null,
        Some(m) => json!({
            "constant": num(m.constant),
            "terms": m.terms.iter().map(|t| json!({
                "coefficient": num(t.coefficient),
                "exponent": t.exponent_text(),
                "log_exponent": t.log_exponent,
            })).collect::<Vec<_>>(),
            "adjusted_r2": num(m.adjusted_r2),
            "text": m.text(),
        }),
    }
}

/// Writes `table` for `mode` in `format`. JSON: `{"mode", "x_field", "x_label",
/// "baseline", "points": [...], "models": [{"region", "model"}], "prediction"}`; the
/// table and CSV give the points, or the models when there are some.
pub fn write_scaling(
    out: &mut impl Write,
    format: Format,
    show: Show,
    table: &ScalingTable,
    mode: Mode,
    models: Option<&[Fitted]>,
    prediction: Option<&Prediction>,
) -> io::Result<()> {
    let field = table.axis.field();
    let (strong, weak) = (mode != Mode::Weak, mode != Mode::Strong);
    let points: Vec<Record> = table
        .regions
        .iter()
        .flat_map(|r| r.points.iter().map(move |p| (r, p)))
        .map(|(r, p)| {
            let mut rec: Record = vec![
                ("region".into(), Json::String(r.name.clone())),
                (field.to_string(), x_json(&p.x)),
                ("time".into(), num(p.time)),
            ];
            if strong {
                rec.push(("speedup".into(), num(p.speedup)));
                rec.push(("efficiency".into(), opt(p.efficiency)));
            }
            if weak {
                rec.push(("normalized_runtime".into(), num(p.normalized_runtime)));
                rec.push(("weak_efficiency".into(), num(p.weak_efficiency)));
            }
            rec
        })
        .collect();
    let model_records: Option<Vec<Record>> = models.map(|ms| {
        ms.iter()
            .map(|f| {
                let m = f.model.as_ref();
                let t = m.and_then(|m| m.terms.first());
                vec![
                    ("region".into(), Json::String(f.region.clone())),
                    (
                        "model".into(),
                        m.map_or(Json::Null, |m| Json::String(m.text())),
                    ),
                    (
                        "exponent".into(),
                        t.map_or(Json::Null, |t| t.exponent_text().into()),
                    ),
                    (
                        "log_exponent".into(),
                        t.map_or(Json::Null, |t| t.log_exponent.into()),
                    ),
                    ("adjusted_r2".into(), opt(m.map(|m| m.adjusted_r2))),
                ]
            })
            .collect()
    });
    let predicted: Option<Vec<Record>> = prediction.map(|p| {
        p.regions
            .iter()
            .map(|(name, v, share, measured)| {
                vec![
                    ("region".into(), Json::String(name.clone())),
                    ("predicted".into(), num(*v)),
                    ("share".into(), num(*share)),
                    ("measured_share".into(), num(*measured)),
                ]
            })
            .collect()
    });
    if format != Format::Json {
        if let Some(p) = &predicted {
            write_records(out, format, show, Map::new(), "", p)?;
            if let (Some(pr), Format::Table) = (prediction, format) {
                let name = pr.first_to_stop.as_deref().unwrap_or("no region");
                let x = crate::analysis::units::python_g(pr.x, 6);
                writeln!(
                    out,
                    "\nAt {x} {}, {} stops scaling first.",
                    table.axis.label(),
                    show.text(name)
                )?;
            }
            return Ok(());
        }
        let records = model_records.as_deref().unwrap_or(&points);
        return write_records(out, format, show, Map::new(), "", records);
    }
    let mut head = Map::new();
    let mode_name = match mode {
        Mode::Strong => "strong",
        Mode::Weak => "weak",
        Mode::Both => "both",
    };
    head.insert("mode".into(), mode_name.into());
    head.insert("x_field".into(), field.into());
    head.insert("x_label".into(), table.axis.label().into());
    head.insert("baseline".into(), x_json(&table.baseline));
    if let Some(ms) = models {
        let list = ms
            .iter()
            .map(|f| json!({"region": f.region, "model": model_json(f)}))
            .collect();
        head.insert("models".into(), Json::Array(list));
    }
    if let (Some(p), Some(rows)) = (prediction, predicted) {
        let rows: Vec<Json> = rows
            .into_iter()
            .map(|r| Json::Object(r.into_iter().collect()))
            .collect();
        head.insert(
            "prediction".into(),
            json!({"x": num(p.x), "regions": rows, "first_to_stop": p.first_to_stop}),
        );
    }
    write_records(out, format, show, head, "points", &points)
}
