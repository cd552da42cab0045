//! The page's `runs` request answered natively, over golden profiles held in memory: its
//! downloads are the bytes the library writes for `sp runs FILES… --format csv|json` over
//! the reads `sp runs` makes (each file's index), and its cells are the text table's.

mod support;

use serde_json::json;
use sp::analysis::compare::{nway, DiffOptions, DiffOrder, Metric};
use sp::analysis::report::Format;
use sp::analysis::runs::{self, Run, RunsOptions, RunsTable};
use sp::analysis::Selection;
use sp::hdf5lite::reader::File;
use sp::text::Show;
use sp_web::source::Bytes;
use sp_web::Session;
use support::{ask, golden};

const FILES: [(&str, &str); 3] = [
    ("c.h5", "tests/golden/c_trace/expected/profiling_data.h5"),
    ("f.h5", "tests/golden/fortran/expected/profiling_data.h5"),
    ("m.h5", "tests/golden/mixed/expected/merged.h5"),
];

/// The three files read as `sp runs` and `sp diff` read them for `metric`.
fn read_runs(metric: Metric) -> Vec<Run> {
    FILES
        .iter()
        .map(|(name, path)| {
            let file = File::open(golden(path)).unwrap();
            runs::read(name, &file, &Selection::all(), metric).unwrap()
        })
        .collect()
}

/// What `sp runs c.h5 f.h5 m.h5 --format FORMAT` with these options prints.
fn cli(
    format: Format,
    metric: Metric,
    baseline: usize,
    region: Option<&[String]>,
    group_by: Option<&str>,
    changes: Option<usize>,
) -> String {
    let runs = read_runs(metric);
    let options = RunsOptions {
        baseline,
        regions: region.map(|r| Selection::new(Some(r), None, None).unwrap()),
        metric,
        group_by: group_by.map(String::from),
    };
    let table = RunsTable::new(&runs, &options);
    let changes = changes.map(|n| runs::changes::changes(&runs, baseline, n));
    let mut out = Vec::new();
    runs::write_runs(
        &mut out,
        format,
        Show::AsIs,
        &table,
        &[],
        changes.as_deref(),
    )
    .unwrap();
    String::from_utf8(out).unwrap()
}

/// What `sp diff c.h5 f.h5 m.h5 --baseline B --metric M --sort O --format FORMAT` prints.
fn cli_diff(format: Format, metric: Metric, baseline: usize, order: DiffOrder) -> String {
    let runs = read_runs(metric);
    let options = DiffOptions {
        metric,
        order,
        threshold: None,
    };
    let table = nway::diff_runs(&runs, baseline, &options).unwrap();
    let mut out = Vec::new();
    nway::write_many(&mut out, format, Show::AsIs, &runs, &table).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn runs_downloads_are_the_cli_bytes() {
    let mut s = Session::default();
    let ids: Vec<_> = FILES
        .iter()
        .map(|(name, path)| {
            s.open(name.to_string(), Bytes::Memory(golden(path)), false)
                .unwrap()["file"]
                .clone()
        })
        .collect();
    let regions = ["main".to_string(), "comp.*".to_string()];
    for (metric, baseline, region, group_by, changes, order) in [
        (Metric::Total, 0, None, None, None, DiffOrder::Delta),
        (
            Metric::Avg,
            1,
            Some(&regions[..]),
            None,
            Some(3),
            DiffOrder::Name,
        ),
        (
            Metric::Calls,
            2,
            None,
            Some("num_ranks"),
            None,
            DiffOrder::Pct,
        ),
    ] {
        let answer = ask(
            &mut s,
            json!({"op": "runs", "files": ids, "baseline": ids[baseline], "metric": metric.name(),
                   "region": region, "group_by": group_by, "changes": changes, "order": order.name()}),
        )
        .unwrap();
        for (format, key) in [(Format::Csv, "csv"), (Format::Json, "json")] {
            let want = cli_diff(format, metric, baseline, order);
            assert_eq!(
                answer["diff"]["downloads"][key],
                json!(want),
                "{metric:?} diff {key}"
            );
        }
        let diff_table = cli_diff(Format::Table, metric, baseline, order);
        for row in answer["diff"]["rows"].as_array().unwrap() {
            let name = row[0].as_str().unwrap();
            assert!(diff_table.contains(name), "{name} in {diff_table}");
        }
        for (format, key) in [(Format::Csv, "csv"), (Format::Json, "json")] {
            let want = cli(format, metric, baseline, region, group_by, changes);
            assert_eq!(answer["downloads"][key], json!(want), "{metric:?} {key}");
        }
        let table = cli(Format::Table, metric, baseline, region, group_by, changes);
        let header = answer["header"].as_array().unwrap();
        let first = table.lines().next().unwrap();
        for h in header {
            assert!(first.contains(h.as_str().unwrap()), "{h} in {first}");
        }
        let rows = answer["rows"].as_array().unwrap();
        assert_eq!(rows.len(), if group_by.is_some() { 1 } else { 3 });
        if changes.is_some() {
            let lines: Vec<String> = answer["changed"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l.as_str().unwrap().to_string())
                .collect();
            assert!(lines[0].starts_with("What changed (own time, against "));
            assert!(table.ends_with(&(lines.join("\n") + "\n")), "{table}");
        } else {
            assert!(answer["changed"].is_null());
        }
    }
}

#[test]
fn runs_says_what_is_wrong() {
    let mut s = Session::default();
    let id = s
        .open("c.h5".into(), Bytes::Memory(golden(FILES[0].1)), false)
        .unwrap()["file"]
        .clone();
    let ask_runs = |s: &mut Session, extra: serde_json::Value| {
        let mut req = json!({"op": "runs", "files": [id]});
        req.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        ask(s, req)
    };
    let e = ask_runs(&mut s, json!({"metric": "fastest"})).unwrap_err();
    assert_eq!(e, "There is no metric \"fastest\" for the runs table.");
    let e = ask_runs(&mut s, json!({"region": ["("]})).unwrap_err();
    assert!(e.starts_with("The regions cannot be matched: "), "{e}");
    let e = ask(&mut s, json!({"op": "runs", "files": [7]})).unwrap_err();
    assert_eq!(e, "No file 7 is open.");
    let e = ask(&mut s, json!({"op": "runs", "files": []})).unwrap_err();
    assert_eq!(e, "The runs table needs at least one open profile.");
}

/// A series opened for its runs alone (`open {runs: true}`) describes each file, tabulates
/// it and draws its scaling chart as the files opened whole do, and reads a file's index
/// when a view of it asks.
#[test]
fn a_series_opened_for_its_runs_answers_as_one_opened_whole() {
    let series = [
        "tests/golden/scaling/strong/ranks1.h5",
        "tests/golden/scaling/strong/ranks2.h5",
        "tests/golden/scaling/strong/ranks4.h5",
    ];
    let answers: Vec<_> = [false, true]
        .into_iter()
        .map(|runs| {
            let mut s = Session::default();
            let mut opens: Vec<_> = (series.iter())
                .map(|path| s.open(path.to_string(), Bytes::Memory(golden(path)), runs))
                .map(Result::unwrap)
                .collect();
            let ids: Vec<_> = opens.iter().map(|o| o["file"].clone()).collect();
            for open in &mut opens {
                open.as_object_mut().unwrap().remove("io");
            }
            let table = ask(
                &mut s,
                json!({"op": "runs", "files": ids, "region": [".*"], "changes": 5}),
            )
            .unwrap();
            let scaling = ask(
                &mut s,
                json!({"op": "scaling", "files": ids, "kind": "scaling_model", "model": true}),
            )
            .unwrap();
            let rows = ask(&mut s, json!({"op": "table", "file": ids[2]})).unwrap();
            (opens, table, scaling, rows["rows"].clone())
        })
        .collect();
    assert_eq!(answers[0].0, answers[1].0, "open");
    assert_eq!(answers[0].1, answers[1].1, "runs");
    assert_eq!(answers[0].2, answers[1].2, "scaling");
    assert_eq!(answers[0].3, answers[1].3, "table");
    assert!(answers[1].2["svg"].as_str().unwrap().starts_with("<svg"));
}
