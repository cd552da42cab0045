//! `sp export plot-data KIND FILE` against the reference's `scope-profiler export plot-data`
//! on the golden profiles, with its options: the same columns, rows in the same order,
//! strings and counts exact, floats within 1e-9 relative; the JSON documents hold the same
//! values; bad options are one line and exit 1 or 2 with no output left.
//!
//! Needs the reference (`$SP_PYTHON`, else `<repo>/.venv/bin/python`).

mod support;

use std::path::Path;

use serde_json::Value;
use support::{repo, run_python, scratch_dir, show, sp};

const KINDS: [(&str, &str); 6] = [
    ("durations", "durations_data"),
    ("histogram", "histogram_data"),
    ("rank_heatmap", "rank_heatmap_data"),
    ("imbalance", "imbalance_data"),
    ("timeseries", "duration_timeseries_data"),
    ("density", "timeline_density_data"),
];

/// Golden profiles with calls.
const PROFILES: [&str; 8] = [
    "tests/golden/c_trace/expected/profiling_data.h5",
    "tests/golden/fortran/expected/profiling_data.h5",
    "tests/golden/synthetic/expected/golden.h5",
    "tests/golden/h5_python_rich/expected/rich_import.h5",
    "tests/golden/mixed/expected/merged.h5",
    "tests/golden/h5_gzip_with_traces/expected/h5_gzip_with_traces.h5",
    "tests/golden/h5_lzf_with_traces/expected/lzf_with_traces.h5",
    "tests/golden/chunked/expected/big.h5",
];

/// A CSV file's records (Python's `csv` dialect: quoted fields, `\r\n`).
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let (mut rows, mut row, mut field) = (Vec::new(), Vec::new(), String::new());
    let (mut quoted, mut chars) = (false, text.chars().peekable());
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut field)),
            (false, '\r') => {}
            (false, '\n') => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => field.push(c),
        }
    }
    rows
}

fn same_number(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// Asserts two CSV tables are equal: text and integers exact, floats within 1e-9.
fn assert_same_csv(ours: &str, theirs: &str, at: &str) {
    let (ours, theirs) = (parse_csv(ours), parse_csv(theirs));
    assert_eq!(ours.len(), theirs.len(), "{at}: row count");
    assert_eq!(ours[0], theirs[0], "{at}: header");
    for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        assert_eq!(a.len(), b.len(), "{at} row {i}");
        for (x, y) in a.iter().zip(b) {
            let float = |s: &str| s.contains(['.', 'e', 'n']) && s.parse::<f64>().is_ok();
            if float(x) || float(y) {
                let (p, q) = (x.parse::<f64>().unwrap(), y.parse::<f64>().unwrap());
                assert!(same_number(p, q), "{at} row {i}: {x} vs {y}\n{a:?}\n{b:?}");
            } else {
                assert_eq!(x, y, "{at} row {i}");
            }
        }
    }
}

/// Runs the reference on `input` for every kind with `ref_args`, then sp for each kind with
/// `sp_args`, and compares the tables (`format` csv or json).
fn compare(input: &Path, ref_args: &[&str], sp_args: &[&str], format: &str, tag: &str) {
    compare_kinds(&KINDS, input, ref_args, sp_args, format, tag)
}

/// [`compare`] for `kinds` only.
fn compare_kinds(
    kinds: &[(&str, &str)],
    input: &Path,
    ref_args: &[&str],
    sp_args: &[&str],
    format: &str,
    tag: &str,
) {
    let dir = scratch_dir(&format!("plot-data-{tag}"));
    let mut args = vec!["-m", "scope_profiler", "export", "plot-data"];
    args.extend([
        input.to_str().unwrap(),
        "-o",
        "ref",
        "--format",
        format,
        "--plots",
    ]);
    args.extend(kinds.iter().map(|(k, _)| *k));
    args.extend(ref_args);
    run_python(&dir, &args);
    for &(kind, stem) in kinds {
        let theirs = std::fs::read_to_string(dir.join(format!("ref/{stem}.{format}"))).unwrap();
        let out = dir.join(format!("{stem}.{format}"));
        // The reference's imbalance has its own --imbalance-metric (avg, min, max, total),
        // ours reads --metric: first and last stay with the durations.
        let mut sp_args = sp_args.to_vec();
        if let Some(at) = sp_args
            .windows(2)
            .position(|w| w[0] == "--metric" && ["first", "last"].contains(&w[1]))
        {
            if kind == "imbalance" {
                sp_args.drain(at..at + 2);
            }
        }
        let run = sp()
            .args(["export", "plot-data", kind])
            .arg(input)
            .arg("-o")
            .arg(&out)
            .args(&sp_args)
            .output()
            .unwrap();
        assert!(run.status.success(), "{tag} {kind}: {}", show(&run));
        let ours = std::fs::read_to_string(&out).unwrap();
        let at = format!("{tag} {kind} ({})", input.display());
        if format == "csv" {
            assert_same_csv(&ours, &theirs, &at);
        } else {
            assert_same_json(&ours, &theirs, &at);
        }
    }
}

/// The same JSON values (floats within 1e-9; the reference's NaN is our null).
fn assert_same_json(ours: &str, theirs: &str, at: &str) {
    let theirs = theirs.replace("NaN", "null");
    let (a, b): (Value, Value) = (
        serde_json::from_str(ours).unwrap(),
        serde_json::from_str(&theirs).unwrap(),
    );
    fn same(a: &Value, b: &Value, at: &str) {
        match (a, b) {
            (Value::Number(x), Value::Number(y)) => {
                assert!(
                    same_number(x.as_f64().unwrap(), y.as_f64().unwrap()),
                    "{at}: {x} vs {y}"
                )
            }
            (Value::Array(x), Value::Array(y)) => {
                assert_eq!(x.len(), y.len(), "{at}");
                x.iter()
                    .zip(y)
                    .enumerate()
                    .for_each(|(i, (p, q))| same(p, q, &format!("{at}[{i}]")));
            }
            (Value::Object(x), Value::Object(y)) => {
                let keys =
                    |m: &serde_json::Map<String, Value>| m.keys().cloned().collect::<Vec<_>>();
                assert_eq!(keys(x), keys(y), "{at}");
                x.iter()
                    .for_each(|(k, v)| same(v, &y[k], &format!("{at}.{k}")));
            }
            _ => assert_eq!(a, b, "{at}"),
        }
    }
    same(&a, &b, at);
}

#[test]
fn every_golden_profile_equals_the_reference() {
    for (i, path) in PROFILES.iter().enumerate() {
        compare(&repo().join(path), &[], &[], "csv", &format!("golden{i}"));
    }
}

#[test]
fn options_equal_the_reference() {
    let mixed = repo().join("tests/golden/mixed/expected/merged.h5");
    let gzip = repo().join("tests/golden/h5_gzip_with_traces/expected/h5_gzip_with_traces.h5");
    let cases: [(&Path, &[&str], &[&str]); 7] = [
        (
            &mixed,
            &[
                "--metrics",
                "avg",
                "--imbalance-metric",
                "avg",
                "--sort-by",
                "total",
            ],
            &["--metric", "avg", "--sort-by", "total"],
        ),
        (
            &mixed,
            &[
                "--metrics",
                "max",
                "--imbalance-metric",
                "max",
                "--sort-by",
                "name",
                "--top-n",
                "2",
            ],
            &["--metric", "max", "--sort-by", "name", "--top-n", "2"],
        ),
        (
            &gzip,
            &[
                "--metrics",
                "min",
                "--imbalance-metric",
                "min",
                "--sort-by",
                "avg",
                "--bins",
                "7",
            ],
            &["--metric", "min", "--sort-by", "avg", "--bins", "7"],
        ),
        (
            &gzip,
            &["--ranks", "1", "3-4", "--bins", "12"],
            &["--ranks", "1", "3-4", "--bins", "12"],
        ),
        (
            &gzip,
            &[
                "--include",
                "s.*",
                "--exclude",
                "so.*",
                "--start-time",
                "0.0001",
                "--end-time",
                "0.002",
            ],
            &[
                "--include",
                "s.*",
                "--exclude",
                "so.*",
                "--start-time",
                "0.0001",
                "--end-time",
                "0.002",
            ],
        ),
        (
            &mixed,
            &[
                "--min-duration",
                "1e-8",
                "--metrics",
                "first",
                "--top-n",
                "3",
            ],
            &[
                "--min-duration",
                "1e-8",
                "--metric",
                "first",
                "--top-n",
                "3",
            ],
        ),
        (
            &mixed,
            &[
                "--metrics",
                "last",
                "--combine-regions",
                "ab=A,B",
                "--sort-by",
                "max",
            ],
            &[
                "--metric",
                "last",
                "--combine-regions",
                "ab=A,B",
                "--sort-by",
                "max",
            ],
        ),
    ];
    for (i, (input, theirs, ours)) in cases.into_iter().enumerate() {
        compare(input, theirs, ours, "csv", &format!("opts{i}"));
    }
}

#[test]
fn json_documents_equal_the_reference() {
    let mixed = repo().join("tests/golden/mixed/expected/merged.h5");
    compare(
        &mixed,
        &["--sort-by", "total"],
        &["--sort-by", "total"],
        "json",
        "json",
    );
}

/// `--stack-children`: the bars split into own time and children, as the reference splits
/// them (`segment` column; JSON colours per segment), on every golden profile and with the
/// options that change which calls and bars there are. Calls that do not nest (big.h5's
/// overlap) are refused by both.
#[test]
fn stacked_durations_equal_the_reference() {
    let durations = [KINDS[0]];
    let stack = "--stack-children";
    let (nests, overlaps) = PROFILES.split_at(7);
    for (i, path) in nests.iter().enumerate() {
        let input = repo().join(path);
        for metric in ["total", "avg"] {
            let (theirs, ours) = (["--metrics", metric, stack], ["--metric", metric, stack]);
            let tag = format!("stacked{i}-{metric}");
            compare_kinds(&durations, &input, &theirs, &ours, "csv", &tag);
        }
    }
    let mixed = repo().join("tests/golden/mixed/expected/merged.h5");
    let gzip = repo().join("tests/golden/h5_gzip_with_traces/expected/h5_gzip_with_traces.h5");
    // Four ranks with nesting three deep and recursion (sp convert's, as the reference's).
    let dir = scratch_dir("plot-data-stacked-multirank");
    let examples = repo().join("examples/c_multirank");
    support::sp_convert(&dir, &[examples.to_str().unwrap(), "-o", "multirank.h5"]);
    let multirank = dir.join("multirank.h5");
    let cases: [(&Path, &[&str]); 8] = [
        (
            &mixed,
            &["--combine-regions", "ab=A,B", "--sort-by", "total"],
        ),
        (
            &mixed,
            &["--exclude", "A", "--top-n", "3", "--sort-by", "avg"],
        ),
        (&gzip, &["--ranks", "1", "3-4", "--include", "s.*"]),
        (&gzip, &["--combine-regions", "s=s.*", "--sort-by", "name"]),
        (&multirank, &[]),
        (&multirank, &["--ranks", "1", "2", "--sort-by", "total"]),
        (&multirank, &["--combine-regions", "deep=descend,late"]),
        (
            &multirank,
            &[
                "--combine-regions",
                "o=outer,inner",
                "--exclude",
                "prologue",
            ],
        ),
    ];
    for (i, (input, args)) in cases.into_iter().enumerate() {
        let mut args = args.to_vec();
        args.push(stack);
        let tag = format!("stacked-opts{i}");
        compare_kinds(&durations, input, &args, &args, "csv", &tag);
    }
    let (theirs, ours) = (["--metrics", "avg", stack], ["--metric", "avg", stack]);
    compare_kinds(&durations, &mixed, &theirs, &ours, "json", "stacked-json");
    let ranks = ["--ranks", "1", "2", stack];
    let theirs = [&["--metrics", "avg"], &ranks[..]].concat();
    let ours = [&["--metric", "avg"], &ranks[..]].concat();
    compare_kinds(
        &durations,
        &multirank,
        &theirs,
        &ours,
        "json",
        "stacked-json-avg",
    );

    let dir = scratch_dir("plot-data-stacked-overlap");
    let input = repo().join(overlaps[0]);
    let reference = std::process::Command::new(support::python())
        .current_dir(&dir)
        .args(["-m", "scope_profiler", "export", "plot-data"])
        .arg(&input)
        .args(["-o", "ref", "--plots", "durations", stack])
        .output()
        .unwrap();
    assert!(!reference.status.success());
    assert!(String::from_utf8_lossy(&reference.stderr).contains("NestingError"));
    let out = dir.join("durations_data.csv");
    let ours = sp()
        .args(["export", "plot-data", "durations"])
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .arg(stack)
        .output()
        .unwrap();
    assert_eq!(ours.status.code(), Some(1), "{}", show(&ours));
    assert!(String::from_utf8_lossy(&ours.stderr).contains("do not nest"));
    assert!(!out.exists());
}

#[test]
fn bad_options_are_one_line_with_no_output() {
    let dir = scratch_dir("plot-data-bad");
    let mixed = repo().join("tests/golden/mixed/expected/merged.h5");
    let out = dir.join("x.csv");
    for (args, code) in [
        (vec!["rank_heatmap", "--ranks", "99"], 1),
        (vec!["imbalance", "--metric", "first"], 1),
        (vec!["density", "--start-time", "5", "--end-time", "1"], 1),
        (vec!["durations", "--include", "nothing_matches"], 1),
        (vec!["durations", "--combine-regions", "g=nothing"], 1),
        (vec!["durations", "--stack-children", "--metric", "max"], 1),
        (vec!["nosuchkind"], 2),
        (vec!["histogram", "--bins", "0"], 2),
    ] {
        let mut cmd = sp();
        cmd.args(["export", "plot-data", args[0]])
            .arg(&mixed)
            .arg("-o")
            .arg(&out)
            .args(&args[1..]);
        let run = cmd.output().unwrap();
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(code), "{args:?}: {}", show(&run));
        // A usage error is clap's (its line, then a hint); a failure is one line.
        if code == 1 || !err.starts_with("error: ") {
            assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        }
        assert!(
            err.starts_with("sp: ") || err.starts_with("error: "),
            "{err}"
        );
        assert!(!out.exists(), "{args:?} left an output");
    }
}
