//! The page's views other than the region table, as JSON: the overview, the load balance
//! and its heatmap matrix, the metadata and one region's percentiles. All numbers come from
//! `sp::analysis`; texts from [`sp::analysis::units`].

use serde_json::{json, Value as Json};
use sp::analysis::balance::{balance_lines, deviation, Balance};
use sp::analysis::metadata::PyValue;
use sp::analysis::overview::{Overview, Part};
use sp::analysis::quantiles::Percentiles;
use sp::analysis::rank_distribution::{distribution, MANY_RANKS, OUTLIERS_SHOWN};
use sp::analysis::units::duration_text;
use sp::schema::Profile;

fn parts(parts: &[Part]) -> Json {
    Json::Array(
        parts
            .iter()
            .map(|p| match p {
                Part::Text(t) => json!(t),
                Part::Region(r) => json!({ "region": r }),
                Part::Anchor { anchor, text } => json!({ "anchor": anchor, "text": text }),
            })
            .collect(),
    )
}

/// The overview: headline numbers, findings and the hotspot list.
pub fn overview_json(ov: &Overview) -> Json {
    json!({
        "empty": ov.empty,
        "wall": ov.wall,
        "wall_text": duration_text(Some(ov.wall)),
        "ranks": ov.ranks,
        "regions": ov.regions,
        "kpis": ov.kpis.iter().map(|k| json!({
            "label": k.label,
            "value": parts(&k.value),
            "detail": k.detail,
            "tone": k.tone.name(),
        })).collect::<Vec<_>>(),
        "findings": ov.findings.iter().map(|f| json!({
            "tone": f.tone.name(),
            "parts": parts(&f.parts),
        })).collect::<Vec<_>>(),
        "hotspots": ov.hotspots.iter().map(|h| json!({
            "name": h.hotspot.name,
            "context": h.hotspot.context,
            "kind": h.hotspot.kind.name(),
            "time": h.hotspot.time,
            "calls": h.hotspot.calls,
            "share": h.share,
            "share_text": format!("{:.1}%", h.share),
            "details": h.details,
            "flag": h.flag,
        })).collect::<Vec<_>>(),
    })
}

/// The load-balance table, and the heatmap matrix in `bin`: for each region line (then one
/// line of per-rank totals) its value on every rank as little-endian f64s, followed by the
/// same number of shades (sign × alpha against the line's mean, 0 within the noise).
pub fn balance_json(balance: &Balance, bin: &mut Vec<u8>) -> Json {
    let lines = balance_lines(balance);
    let totals_mean = balance.totals_mean();
    let mut matrix: Vec<(&[f64], f64)> = balance
        .regions
        .iter()
        .map(|r| (r.values.as_slice(), r.mean))
        .collect();
    matrix.push((&balance.totals, totals_mean));
    bin.clear();
    for (values, _) in &matrix {
        for v in *values {
            bin.extend_from_slice(&v.to_le_bytes());
        }
    }
    for (values, mean) in &matrix {
        for &v in *values {
            let shade = deviation(v, *mean).map_or(0.0, |(sign, alpha)| f64::from(sign) * alpha);
            bin.extend_from_slice(&shade.to_le_bytes());
        }
    }
    // Past MANY_RANKS ranks, each line's distribution over them (quartiles, outlier ranks).
    let spread: Option<Vec<Json>> = (balance.ranks.len() > MANY_RANKS).then(|| {
        (balance.regions.iter())
            .map(
                |r| match distribution(&balance.ranks, &r.values, OUTLIERS_SHOWN) {
                    None => Json::Null,
                    Some(d) => json!({
                        "q1": d.q1, "median": d.median, "q3": d.q3,
                        "quartiles_text": format!(
                            "{} · {} · {}",
                            duration_text(Some(d.q1)),
                            duration_text(Some(d.median)),
                            duration_text(Some(d.q3))
                        ),
                        "outlier_count": d.outlier_count,
                        "outliers": d.outliers.iter().map(|o| json!({
                            "rank": o.rank, "value": o.value,
                            "text": duration_text(Some(o.value)),
                        })).collect::<Vec<_>>(),
                    }),
                },
            )
            .collect()
    });
    let mut out = json!({
        "metric": balance.metric(),
        "own": balance.own,
        "ranks": balance.ranks,
        "slowest_rank": balance.slowest_rank(),
        "totals_mean": totals_mean,
        "totals_mean_text": duration_text(Some(totals_mean)),
        "lines": lines.iter().map(|l| json!({
            "name": l.name,
            "mean": l.mean, "min": l.min, "max": l.max,
            "slowest": l.slowest,
            "imbalance": l.imbalance,
            "imbalance_text": format!("+{:.0}%", l.imbalance),
            "excess": l.excess,
            "mean_text": l.mean_text, "min_text": l.min_text, "max_text": l.max_text,
            "excess_text": l.excess_text,
            "flag": l.flag,
            "low": l.low, "high": l.high, "mean_pos": l.mean_pos,
        })).collect::<Vec<_>>(),
    });
    if let (Some(spread), Some(map)) = (spread, out.as_object_mut()) {
        map.insert("spread".into(), Json::Array(spread));
    }
    out
}

/// One heatmap cell in words (see [`Balance::cell`]).
pub fn cell_json(balance: &Balance, rank: u32, region: Option<&str>) -> Result<Json, String> {
    let cell = balance.cell(rank, region).ok_or_else(|| match region {
        Some(name) if balance.ranks.binary_search(&rank).is_ok() => {
            format!("No region {name:?} has time on these ranks.")
        }
        _ => "That rank is not selected.".to_string(),
    })?;
    Ok(json!({
        "value": cell.value,
        "value_text": duration_text(Some(cell.value)),
        "mean_text": duration_text(Some(cell.mean)),
        "change_text": cell.change_text(),
    }))
}

/// The metadata attributes, sorted by name, as `[name, text]` pairs.
pub fn metadata_json(profile: &Profile) -> Json {
    Json::Array(
        profile
            .metadata
            .iter()
            .map(|(k, v)| json!([k, PyValue::of(v).text()]))
            .collect(),
    )
}

/// One region's percentiles, as numbers and texts.
pub fn percentiles_json(p: &Percentiles) -> Json {
    json!({
        "v": {"p50": p.p50, "p95": p.p95, "p99": p.p99},
        "t": {"p50": duration_text(p.p50), "p95": duration_text(p.p95), "p99": duration_text(p.p99)},
    })
}
