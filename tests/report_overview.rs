//! The overview and the load balance against what the reference's HTML report says about
//! every golden profile (`tests/report/overview_expected.json`, written by
//! `tests/report/make_expected.py` with scope-profiler 0.7.5's report model): from the
//! whole file (call-tree rows, the reference's `read_h5`) and from the index only (flat
//! rows, the reference's `read_h5_summary`; what the browser page shows first).

use serde_json::{json, Value as Json};
use sp::analysis::balance::{balance_lines, rank_balance, Balance};
use sp::analysis::overview::{overview, Overview, Part};
use sp::analysis::{load, region_rows, PercentageMode, RowOptions, Selection};
use sp::hdf5lite::reader::File;

fn expected() -> Vec<Json> {
    let text = include_str!("report/overview_expected.json");
    match serde_json::from_str(text) {
        Ok(Json::Array(cases)) => cases,
        other => panic!("overview_expected.json is not a list: {other:?}"),
    }
}

fn part_json(part: &Part) -> Json {
    match part {
        Part::Text(t) => Json::String(t.clone()),
        Part::Region(r) => json!({ "region": r }),
        Part::Anchor { anchor, text } => json!({ "anchor": anchor, "text": text }),
    }
}

/// Floats agree to the last bits: the index sums stored integer totals where the tree sums
/// per-call floats.
fn close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
}

fn f(v: &Json) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

/// The overview and balance of `path`, read whole or from its index only (as the page).
fn overview_of(path: &str, index: bool) -> (Overview, Option<Balance>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let file = File::open(bytes).unwrap_or_else(|e| panic!("{path}: {e}"));
    let profile = if index {
        load::read_index(&file)
    } else {
        load::read_full(&file)
    }
    .unwrap_or_else(|e| panic!("{path}: {e}"));
    let options = RowOptions {
        mode: PercentageMode::Exclusive,
        ..RowOptions::default()
    };
    let rows = region_rows(&profile, &Selection::all(), options);
    let balance = rank_balance(&profile, &rows, None);
    (overview(&profile, &rows, balance.as_ref()), balance)
}

fn check_overview(ctx: &str, ov: &Overview, want: &Json) {
    let summary = &want["summary"];
    assert_eq!(
        ov.empty,
        summary["empty"].as_bool().unwrap_or(false),
        "{ctx}"
    );
    assert!(
        close(ov.wall, f(&want["time_span"])),
        "{ctx}: wall {}",
        ov.wall
    );
    assert!(close(ov.base, f(&want["base"])), "{ctx}: base {}", ov.base);
    let kpis: Vec<Json> = ov
        .kpis
        .iter()
        .map(|k| {
            json!({
                "label": k.label,
                "value": k.value.iter().map(part_json).collect::<Vec<_>>(),
                "detail": k.detail,
                "tone": k.tone.name(),
            })
        })
        .collect();
    assert_eq!(Json::Array(kpis), summary["kpis"], "{ctx}: KPIs");
    let findings: Vec<Json> = ov
        .findings
        .iter()
        .map(|x| {
            json!({
                "tone": x.tone.name(),
                "parts": x.parts.iter().map(part_json).collect::<Vec<_>>(),
            })
        })
        .collect();
    assert_eq!(
        Json::Array(findings),
        summary["findings"],
        "{ctx}: findings"
    );
    let hotspots = want["hotspots"].as_array().expect("hotspots");
    assert_eq!(ov.hotspots.len(), hotspots.len(), "{ctx}: hotspot count");
    for (got, want) in ov.hotspots.iter().zip(hotspots) {
        let h = &got.hotspot;
        let ctx = format!("{ctx}: hotspot {}", h.name);
        assert_eq!(h.name, want["name"].as_str().unwrap_or_default(), "{ctx}");
        assert_eq!(json!(h.context), want["context"], "{ctx}");
        assert_eq!(
            h.kind.name(),
            want["kind"].as_str().unwrap_or_default(),
            "{ctx}"
        );
        assert_eq!(h.calls, want["calls"].as_u64().unwrap_or(0), "{ctx}");
        assert!(close(h.time, f(&want["time"])), "{ctx}: time");
        assert!(close(got.share, f(&want["share"])), "{ctx}: share");
        assert_eq!(json!(got.details), want["details"], "{ctx}");
        assert_eq!(json!(got.flag), want["flag"], "{ctx}");
    }
}

fn check_balance(ctx: &str, balance: Option<&Balance>, want: &Json) {
    let Some(balance) = balance else {
        assert!(want.is_null(), "{ctx}: the reference has a load balance");
        return;
    };
    assert!(!want.is_null(), "{ctx}: the reference has no load balance");
    assert_eq!(balance.own, want["own"].as_bool().unwrap_or(false), "{ctx}");
    assert_eq!(json!(balance.ranks), want["ranks"], "{ctx}");
    let rows = want["rows"].as_array().expect("rows");
    let lines = balance_lines(balance);
    assert_eq!(lines.len(), rows.len(), "{ctx}: rows");
    for ((line, region), row) in lines.iter().zip(&balance.regions).zip(rows) {
        let ctx = format!("{ctx}: {}", line.name);
        assert_eq!(line.name, row["name"].as_str().unwrap_or_default(), "{ctx}");
        assert_eq!(
            Some(u64::from(line.slowest)),
            row["slowest"].as_u64(),
            "{ctx}"
        );
        assert_eq!(line.flag, row["flag"].as_bool().unwrap_or(false), "{ctx}");
        for (key, got) in [
            ("mean_text", &line.mean_text),
            ("min_text", &line.min_text),
            ("max_text", &line.max_text),
            ("excess_text", &line.excess_text),
        ] {
            assert_eq!(got, row[key].as_str().unwrap_or_default(), "{ctx} {key}");
        }
        for (key, got) in [
            ("mean", line.mean),
            ("min", line.min),
            ("max", line.max),
            ("imbalance", line.imbalance),
            ("excess", line.excess),
            ("low", line.low),
            ("high", line.high),
            ("mean_pos", line.mean_pos),
        ] {
            assert!(
                close(got, f(&row[key])),
                "{ctx} {key}: {got} vs {}",
                row[key]
            );
        }
        let values: Vec<f64> = row["values"]
            .as_array()
            .expect("values")
            .iter()
            .map(f)
            .collect();
        assert_eq!(region.values, values, "{ctx}: per-rank values");
    }
}

#[test]
fn whole_file_overview_matches_the_reference_report() {
    let cases = expected();
    assert!(cases.len() >= 25, "{} cases", cases.len());
    let mut balanced = 0;
    for case in &cases {
        let path = case["file"].as_str().expect("file");
        let (ov, balance) = overview_of(path, false);
        check_overview(&format!("{path} (whole)"), &ov, &case["whole"]);
        check_balance(
            &format!("{path} (whole)"),
            balance.as_ref(),
            &case["whole"]["balance"],
        );
        balanced += usize::from(balance.is_some());
    }
    assert!(
        balanced >= 10,
        "only {balanced} profiles have a load balance"
    );
}

#[test]
fn index_overview_matches_the_reference_summary_read() {
    let mut compared = 0;
    for case in &expected() {
        let path = case["file"].as_str().expect("file");
        let want = &case["index"];
        if want.is_null() {
            continue;
        }
        let (ov, balance) = overview_of(path, true);
        check_overview(&format!("{path} (index)"), &ov, want);
        check_balance(
            &format!("{path} (index)"),
            balance.as_ref(),
            &want["balance"],
        );
        compared += 1;
    }
    assert!(compared >= 25, "only {compared} profiles have an index");
}
