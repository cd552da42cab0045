//! The page's `compare` request answered natively, over golden profiles held in memory: its
//! rows, only-in lists and verdict are those of the library's `diff` and `check` over the
//! reads `sp diff` and `sp check` make (the index; every call for the percentiles).

mod support;

use serde_json::{json, Value as Json};
use sp::analysis::compare::{check, diff, Budget, DiffOptions, DiffOrder, Metric};
use sp::analysis::Selection;
use sp::hdf5lite::reader::File;
use sp_web::source::Bytes;
use sp_web::Session;
use support::{ask, golden};

/// A value as the answer carries it: written, then parsed back as the answer was (serde's
/// parser may differ from the browser's in the last bit; both read the same text).
fn number(v: Option<f64>) -> Json {
    serde_json::from_str(&v.map_or(Json::Null, |x| json!(x)).to_string()).unwrap()
}

#[test]
fn compare_answers_as_the_library_over_the_cli_reads() {
    let pairs = [
        (
            "tests/golden/h5_gzip_with_traces/expected/h5_gzip_with_traces.h5",
            "tests/golden/merge_gzip/expected/merged.h5",
        ),
        (
            "tests/golden/c_trace/expected/profiling_data.h5",
            "tests/golden/fortran/expected/profiling_data.h5",
        ),
        (
            "tests/golden/mixed/expected/merged.h5",
            "tests/golden/h5_mixed_with_traces/expected/mixed.h5",
        ),
    ];
    for (path_a, path_b) in pairs {
        let (bytes_a, bytes_b) = (golden(path_a), golden(path_b));
        let mut s = Session::default();
        let a = s
            .open("a.h5".into(), Bytes::Memory(bytes_a.clone()), false)
            .unwrap()["file"]
            .clone();
        let b = s
            .open("b.h5".into(), Bytes::Memory(bytes_b.clone()), false)
            .unwrap()["file"]
            .clone();
        let (file_a, file_b) = (File::open(bytes_a).unwrap(), File::open(bytes_b).unwrap());
        for (metric, ranks) in [
            (Metric::Total, None),
            (Metric::P95, None),
            (Metric::Calls, None),
            (Metric::P50, Some(vec![0, 1])),
            (Metric::Imbalance, Some(vec![1])),
        ] {
            let sel = Selection::ranks(ranks.clone());
            let read_a = metric.reading().read(&file_a).unwrap();
            let read_b = metric.reading().read(&file_b).unwrap();
            let spec =
                ranks.map(|r: Vec<u32>| r.iter().map(u32::to_string).collect::<Vec<_>>().join(","));
            for (max_regression, threshold) in [(0.0, None), (10.0, Some(5.0))] {
                let got = ask(
                    &mut s,
                    json!({"op": "compare", "file": a, "other": b, "metric": metric.name(),
                           "order": "pct", "threshold": threshold, "ranks": spec,
                           "max_regression": max_regression, "fail_on_new": true}),
                )
                .unwrap();
                let options = DiffOptions {
                    metric,
                    order: DiffOrder::Pct,
                    threshold,
                };
                let want = diff(&read_a, &read_b, &sel, &options);
                let rows = got["rows"].as_array().unwrap();
                assert_eq!(rows.len(), want.rows.len(), "{path_a} {metric:?}");
                for (g, w) in rows.iter().zip(&want.rows) {
                    assert_eq!(g["name"], w.name);
                    assert_eq!(g["a"], number(w.a), "{} {metric:?}", w.name);
                    assert_eq!(g["b"], number(w.b), "{} {metric:?}", w.name);
                    assert_eq!(
                        g["delta"],
                        number(Some(w.delta)),
                        "{path_a} {} {metric:?}",
                        w.name
                    );
                    assert_eq!(g["pct"], number(w.pct));
                }
                assert_eq!(
                    got["only_in_a"],
                    json!(want.only_in_a().collect::<Vec<_>>())
                );
                assert_eq!(
                    got["only_in_b"],
                    json!(want.only_in_b().collect::<Vec<_>>())
                );
                let budget = Budget::new(max_regression, true).unwrap();
                let verdict = check(&read_a, &read_b, &sel, metric, budget);
                assert_eq!(
                    got["check"]["passed"],
                    verdict.passed(),
                    "{path_a} {metric:?}"
                );
                assert_eq!(
                    got["check"]["violations"],
                    json!(verdict.violations().map(|r| &r.name).collect::<Vec<_>>())
                );
            }
        }
    }
}

#[test]
fn a_negative_budget_and_unknown_files_are_sentences() {
    let mut s = Session::default();
    let path = "tests/golden/c_trace/expected/profiling_data.h5";
    let a = s
        .open("a.h5".into(), Bytes::Memory(golden(path)), false)
        .unwrap()["file"]
        .clone();
    let got = ask(
        &mut s,
        json!({"op": "compare", "file": a, "other": a, "max_regression": -1}),
    )
    .unwrap();
    assert_eq!(
        got["check"]["error"],
        "The budget cannot be applied: the maximum regression must be non-negative, not -1%."
    );
    assert_eq!(got["rows"].as_array().unwrap().len(), 5);
    assert_eq!(
        ask(&mut s, json!({"op": "compare", "file": a, "other": 7})).unwrap_err(),
        "No file 7 is open."
    );
    assert_eq!(
        ask(
            &mut s,
            json!({"op": "compare", "file": a, "other": a, "metric": "speed"})
        )
        .unwrap_err(),
        "There is no metric \"speed\" to compare."
    );
}
