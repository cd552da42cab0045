//! `sp export plot-data FILES… -o DIR` against the reference's `scope-profiler export
//! plot-data` with the same arguments, on the golden profiles and with its options: the
//! same files in the directory; the same columns, rows in the same order, strings and
//! counts exact, floats within 1e-9 relative; the JSON documents (and
//! `region_statistics.json`) hold the same values; bad options are one line and exit 1 or 2
//! with no output left.
//!
//! Needs the reference (`$SP_PYTHON`, else `<repo>/.venv/bin/python`).

mod support;

use std::path::Path;

use serde_json::Value;
use support::{repo, run_python, scratch_dir, show, sp};

/// The kinds sp exports.
const KINDS: [&str; 6] = [
    "durations",
    "histogram",
    "rank_heatmap",
    "imbalance",
    "timeseries",
    "density",
];
/// Golden profiles with calls.
const PROFILES: [&str; 8] = [
    "tests/golden/c_trace/expected/profiling_data.h5",
    "tests/golden/fortran/expected/profiling_data.h5",
    "tests/golden/synthetic/expected/golden.h5",
    "tests/golden/h5_python_rich/expected/rich_import.h5",
    "tests/golden/mixed/expected/merged.h5",
    SEQUENTIAL,
    "tests/golden/h5_lzf_with_traces/expected/lzf_with_traces.h5",
    "tests/golden/chunked/expected/big.h5",
];

/// The golden profile of 70,000 calls in a row over six ranks (gzip): the reference takes
/// minutes on its flame chart and call graph, so those come from the smaller profiles.
const SEQUENTIAL: &str = "tests/golden/h5_gzip_with_traces/expected/h5_gzip_with_traces.h5";

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

/// Runs the reference and sp on `inputs` with `--plots KINDS… ARGS…` (no `--plots` when
/// `kinds` is empty) and `--format format`, and compares every file the reference wrote
/// with sp's (sp writes no other).
fn compare_files(inputs: &[&Path], kinds: &[&str], args: &[&str], format: &str, tag: &str) {
    let dir = scratch_dir(&format!("plot-data-{tag}"));
    let mut common: Vec<&str> = inputs.iter().map(|p| p.to_str().unwrap()).collect();
    common.extend(["--format", format]);
    if !kinds.is_empty() {
        common.push("--plots");
        common.extend(kinds);
    }
    common.extend(args);
    let mut reference = vec!["-m", "scope_profiler", "export", "plot-data", "-o", "ref"];
    reference.extend(&common);
    run_python(&dir, &reference);
    let run = sp()
        .current_dir(&*dir)
        .args(["export", "plot-data", "-o", "ours"])
        .args(&common)
        .output()
        .unwrap();
    assert!(run.status.success(), "{tag}: {}", show(&run));
    let names = |d: &str| {
        let mut v: Vec<String> = std::fs::read_dir(dir.join(d))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    assert_eq!(names("ours"), names("ref"), "{tag}: the files written");
    for name in names("ref") {
        let theirs = std::fs::read_to_string(dir.join("ref").join(&name)).unwrap();
        let ours = std::fs::read_to_string(dir.join("ours").join(&name)).unwrap();
        let at = format!("{tag} {name} ({inputs:?})");
        if name.ends_with(".csv") {
            assert_same_csv(&ours, &theirs, &at);
        } else {
            assert_same_json(&ours, &theirs, &at);
        }
    }
}

/// [`compare_files`] for one profile and every kind sp has.
fn compare(input: &Path, args: &[&str], format: &str, tag: &str) {
    compare_files(&[input], &KINDS, args, format, tag)
}

/// [`compare_files`] for one profile and `kinds`.
fn compare_kinds(kinds: &[&str], input: &Path, args: &[&str], format: &str, tag: &str) {
    compare_files(&[input], kinds, args, format, tag)
}

/// The same JSON values (floats within 1e-9; the reference's NaN is our null), with every
/// object's keys in the reference's order (serde_json keeps the order of the text).
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
        compare(&repo().join(path), &[], "csv", &format!("golden{i}"));
    }
}

/// No --plots: the reference's default kinds (durations and gantt) and the statistics.
#[test]
fn the_default_kinds_and_the_statistics_equal_the_reference() {
    let mixed = repo().join("tests/golden/mixed/expected/merged.h5");
    compare_files(&[&mixed], &[], &[], "csv", "default");
    compare_files(&[&mixed], &[], &["--plots"], "json", "none");
}

/// Several files: durations pooled over the regions of any file, the other kinds one file
/// after another; `--label` names them, and a repeated name is made unique.
#[test]
fn several_files_equal_the_reference() {
    let mixed = repo().join("tests/golden/mixed/expected/merged.h5");
    let gzip = repo().join(SEQUENTIAL);
    let lzf = repo().join("tests/golden/h5_lzf_with_traces/expected/lzf_with_traces.h5");
    // The pairs are of small profiles (the gzip one's time series alone takes the reference
    // half a minute); the labelled three bring the large one in once.
    let two: [&Path; 2] = [&mixed, &lzf];
    compare_files(&two, &KINDS, &[], "csv", "multi");
    compare_files(&two, &KINDS, &[], "json", "multi-json");
    let args = [
        "--sort-by",
        "max",
        "--top-n",
        "4",
        "--metrics",
        "avg",
        "first",
    ];
    compare_files(&two, &KINDS, &args, "csv", "multi-sorted");
    let args = [
        "--label", "a", "--label", "a", "--label", "b", "--ranks", "1-3",
    ];
    compare_files(&[&gzip, &lzf, &mixed], &KINDS, &args, "csv", "multi-labels");
    compare_files(
        &[&lzf, &mixed],
        &KINDS,
        &["--combine-regions", "s=s.*"],
        "csv",
        "multi-combine",
    );
}

/// The kinds drawn from the calls in time order: every call (gantt, with its depth in JSON),
/// every nested call (flame chart) and every call path (flame graph).
const TIMELINE: [&str; 3] = ["gantt", "flame_chart", "flame_graph"];

#[test]
fn timeline_kinds_equal_the_reference() {
    let (nests, overlaps) = PROFILES.split_at(7);
    for (i, path) in nests.iter().enumerate() {
        let input = repo().join(path);
        // The reference stacks a flame chart in quadratic time: 70,000 calls in a row take
        // it two minutes, so that profile's flame chart is left to the lzf profile's 12,000
        // nested calls.
        let kinds: &[&str] = if *path == SEQUENTIAL {
            &["gantt", "flame_graph"]
        } else {
            &TIMELINE
        };
        compare_files(&[&input], kinds, &[], "csv", &format!("timeline{i}"));
        compare_files(&[&input], kinds, &[], "json", &format!("timeline-json{i}"));
    }
    // Calls that do not nest: the gantt has no depths, the flame kinds fail in both.
    let big = repo().join(overlaps[0]);
    compare_files(&[&big], &["gantt"], &[], "json", "timeline-big");
    let dir = scratch_dir("plot-data-timeline-overlap");
    let out = dir.join("ours");
    let ours = sp()
        .args(["export", "plot-data"])
        .arg(&big)
        .arg("-o")
        .arg(&out)
        .args(["--plots", "gantt", "flame_graph"])
        .output()
        .unwrap();
    assert_eq!(ours.status.code(), Some(1), "{}", show(&ours));
    assert!(String::from_utf8_lossy(&ours.stderr).contains("do not nest"));
    assert!(!out.exists());

    let mixed = repo().join("tests/golden/mixed/expected/merged.h5");
    let dir = scratch_dir("plot-data-timeline-multirank");
    let examples = repo().join("examples/c_multirank");
    support::sp_convert(&dir, &[examples.to_str().unwrap(), "-o", "multirank.h5"]);
    let multirank = dir.join("multirank.h5");
    let two: [&Path; 2] = [&mixed, &multirank];
    compare_files(
        &two,
        &TIMELINE,
        &["--ranks", "0-2"],
        "json",
        "timeline-multi",
    );
    let args = ["--ranks", "1", "2", "--label", "x", "--label", "x"];
    compare_files(&two, &TIMELINE, &args, "csv", "timeline-labels");
    let args = ["--ranks", "0-3", "-e", "prologue"];
    compare_files(&[&multirank], &TIMELINE, &args, "json", "timeline-ranks");
    let args = [
        "-i",
        "o.*",
        "i.*",
        "--start-time",
        "0.001",
        "--end-time",
        "0.5",
        "--aggregate-calls",
        "3",
        "--collapse-depth",
        "1",
        "--min-duration",
        "1e-6",
    ];
    compare_files(&[&multirank], &TIMELINE, &args, "csv", "timeline-window");
    compare_files(&[&multirank], &[], &[], "csv", "timeline-default");
}

/// The call graph of one rank (the first of `--ranks`, else 0) of the first file, from the
/// ids a Python run records or else from timestamps: one row per call, or with `--compact-callgraph` (and `--fluid-callgraph`) the edges between
/// regions, and in JSON the regions with their times, hover text and critical path. Calls
/// that do not nest on any rank, an unknown rank and an empty selection fail in both.
#[test]
fn callgraph_equals_the_reference() {
    let callgraph = ["callgraph"];
    let (nests, overlaps) = PROFILES.split_at(7);
    // Every call in CSV, the compact graph in JSON (its edges are the compact CSV's rows).
    for (i, path) in nests.iter().enumerate().filter(|(_, p)| **p != SEQUENTIAL) {
        let input = repo().join(path);
        compare_files(&[&input], &callgraph, &[], "csv", &format!("callgraph{i}"));
        let compact = ["--compact-callgraph"];
        let tag = format!("callgraph-compact{i}");
        compare_files(&[&input], &callgraph, &compact, "json", &tag);
    }
    let dir = scratch_dir("plot-data-callgraph-multirank");
    let examples = repo().join("examples/c_multirank");
    support::sp_convert(&dir, &[examples.to_str().unwrap(), "-o", "multirank.h5"]);
    let multirank = dir.join("multirank.h5");
    let mixed = repo().join("tests/golden/mixed/expected/merged.h5");
    // A Python run records its call graph (call_ids, parent_ids): filtered, its ids stay.
    let python = repo().join("tests/golden/merge_zstd/inputs/base.h5");
    let cases: [(&[&Path], &[&str], &str); 10] = [
        (&[&multirank], &[], "csv"),
        (&[&multirank], &["--compact-callgraph"], "json"),
        (
            &[&multirank],
            &["--fluid-callgraph", "--ranks", "2"],
            "json",
        ),
        (
            &[&multirank],
            &["--ranks", "3", "1", "-e", "prologue"],
            "csv",
        ),
        (
            &[&multirank],
            &["--compact-callgraph", "-e", "outer"],
            "json",
        ),
        (
            &[&multirank],
            &["--compact-callgraph", "-i", "inner", "descend"],
            "csv",
        ),
        (&[&multirank, &mixed], &["--compact-callgraph"], "csv"),
        (
            &[&mixed, &multirank],
            &["--label", "a", "--label", "b"],
            "json",
        ),
        (&[&python], &["-e", "scope_profiler.session"], "csv"),
        (&[&python], &["--compact-callgraph", "-e", "outer"], "json"),
    ];
    for (i, (inputs, args, format)) in cases.into_iter().enumerate() {
        compare_files(
            inputs,
            &callgraph,
            args,
            format,
            &format!("callgraph-opts{i}"),
        );
    }

    let big = repo().join(overlaps[0]);
    for (input, args, says) in [
        (&big, &["--compact-callgraph"][..], "do not nest"),
        (&big, &[][..], "do not nest"),
        (&multirank, &["--ranks", "9"][..], "no calls recorded"),
        (&multirank, &["-i", "nothing"][..], "no calls recorded"),
    ] {
        let reference = std::process::Command::new(support::python())
            .current_dir(&*dir)
            .args(["-m", "scope_profiler", "export", "plot-data"])
            .arg(input)
            .args(["-o", "ref", "--plots", "callgraph"])
            .args(args)
            .output()
            .unwrap();
        assert!(
            !reference.status.success(),
            "{args:?}: {}",
            show(&reference)
        );
        let out = dir.join("ours");
        let ours = sp()
            .args(["export", "plot-data"])
            .arg(input)
            .arg("-o")
            .arg(&out)
            .args(["--plots", "callgraph"])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(ours.status.code(), Some(1), "{args:?}: {}", show(&ours));
        let err = String::from_utf8_lossy(&ours.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(!out.exists());
    }
}

/// The scaling kinds over the MPI strong and weak series (tests/golden/scaling), alone and
/// pooled; one file writes none of them.
#[test]
fn scaling_kinds_equal_the_reference() {
    let kinds = [
        "speedup",
        "scaling_efficiency",
        "weak_scaling",
        "weak_scaling_efficiency",
    ];
    let series = |dir: &str| -> Vec<std::path::PathBuf> {
        ["ranks1.h5", "ranks2.h5", "ranks4.h5"]
            .map(|f| repo().join("tests/golden/scaling").join(dir).join(f))
            .to_vec()
    };
    let (strong, weak) = (series("strong"), series("weak"));
    let strong: Vec<&Path> = strong.iter().map(|p| p.as_path()).collect();
    let both: Vec<&Path> = strong
        .iter()
        .copied()
        .chain(weak.iter().map(|p| p.as_path()))
        .collect();
    compare_files(&strong, &kinds, &[], "csv", "scaling-strong");
    compare_files(&both, &kinds, &[], "json", "scaling-both");
    compare_files(&strong[..1], &kinds, &[], "csv", "scaling-one");
}

/// The options that choose rows, bins and metrics, mostly on the lzf profile (six ranks):
/// the gzip one's 70,000 calls cost the reference a minute a run, so it has only the window.
#[test]
fn options_equal_the_reference() {
    let mixed = repo().join("tests/golden/mixed/expected/merged.h5");
    let gzip = repo().join(SEQUENTIAL);
    let lzf = repo().join("tests/golden/h5_lzf_with_traces/expected/lzf_with_traces.h5");
    let cases: [(&Path, &[&str]); 8] = [
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
        ),
        (
            &lzf,
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
        ),
        (&lzf, &["--ranks", "1", "3-4", "--bins", "12"]),
        (&lzf, &["-r", "1,3", "-i", "s.*", "-e", "B"]),
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
        ),
        (
            &mixed,
            &[
                "--metrics",
                "last",
                "total",
                "--combine-regions",
                "ab=A,B",
                "--sort-by",
                "max",
            ],
        ),
    ];
    for (i, (input, args)) in cases.into_iter().enumerate() {
        compare(input, args, "csv", &format!("opts{i}"));
    }
}

#[test]
fn json_documents_equal_the_reference() {
    let mixed = repo().join("tests/golden/mixed/expected/merged.h5");
    compare(&mixed, &["--sort-by", "total"], "json", "json");
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
            let tag = format!("stacked{i}-{metric}");
            compare_kinds(
                &durations,
                &input,
                &["--metrics", metric, stack],
                "csv",
                &tag,
            );
        }
    }
    let mixed = repo().join("tests/golden/mixed/expected/merged.h5");
    let gzip = repo().join(SEQUENTIAL);
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
        compare_kinds(&durations, input, &args, "csv", &format!("stacked-opts{i}"));
    }
    compare_kinds(
        &durations,
        &mixed,
        &["--metrics", "avg", stack],
        "json",
        "stacked-json",
    );
    let args = ["--metrics", "avg", "--ranks", "1", "2", stack];
    compare_kinds(&durations, &multirank, &args, "json", "stacked-json-avg");
    // Several files: the segments pooled over the runs, then each run's bars in turn; a bar
    // a run lacks has no own time there (and no average: NaN).
    let lzf = repo().join("tests/golden/h5_lzf_with_traces/expected/lzf_with_traces.h5");
    let two: [&Path; 2] = [&mixed, &multirank];
    compare_files(&two, &durations, &[stack], "csv", "stacked-multi");
    let args = [
        "--metrics",
        "avg",
        "total",
        "--label",
        "a",
        "--label",
        "b",
        stack,
    ];
    compare_files(&two, &durations, &args, "json", "stacked-multi-json");
    let args = [
        "--combine-regions",
        "o=outer,inner",
        "--sort-by",
        "total",
        "--top-n",
        "4",
        "--ranks",
        "0-2",
        stack,
    ];
    let (a, b): (&Path, &Path) = (&multirank, &lzf);
    compare_files(&[a, b], &durations, &args, "csv", "stacked-multi-combine");

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
    let out = dir.join("ours");
    let ours = sp()
        .args(["export", "plot-data"])
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .args(["--plots", "durations", stack])
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
    let out = dir.join("out");
    for (args, code) in [
        (vec!["rank_heatmap", "--ranks", "99"], 1),
        (vec!["imbalance", "--imbalance-metric", "first"], 1),
        (vec!["density", "--start-time", "5", "--end-time", "1"], 1),
        (vec!["durations", "--include", "nothing_matches"], 1),
        (vec!["durations", "--combine-regions", "g=nothing"], 1),
        (vec!["durations", "--stack-children", "--metrics", "max"], 1),
        (vec!["durations", "--label", "a", "--label", "b"], 1),
        (vec!["nosuchkind"], 2),
        (vec!["likwid"], 2),
        (vec!["gantt", "--ranks", "8"], 1),
        (vec!["flame_chart", "--ranks", "9"], 1),
        (vec!["durations", "--format", "parquet"], 2),
        (vec!["durations", "--with", "flamegraph"], 2),
        (vec!["callgraph", "--with", "pstats"], 2),
        (vec!["histogram", "--bins", "0"], 2),
    ] {
        let mut cmd = sp();
        cmd.args(["export", "plot-data"])
            .arg(&mixed)
            .arg("-o")
            .arg(&out)
            .arg("--plots")
            .args(&args);
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
    // A file that is not a profile, second of two, is named, and nothing is written.
    let bad = dir.join("bad.h5");
    std::fs::write(&bad, b"not a profile").unwrap();
    let run = sp()
        .args(["export", "plot-data"])
        .arg(&mixed)
        .arg(&bad)
        .arg("-o")
        .arg(&out)
        .args(["--plots", "durations"])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1), "{}", show(&run));
    assert!(String::from_utf8_lossy(&run.stderr).contains("bad.h5"));
    assert!(!out.exists());
}

/// Loads every `.prof` of `ours` and of `theirs` with Python's `marshal` and asserts the
/// same dicts: the same keys in the same order, the same counts, the same float bits, the
/// same callers in the same order.
fn assert_same_prof(dir: &Path, ours: &str, theirs: &str, tag: &str) {
    let script = r#"
import marshal, os, sys
ours, theirs = sys.argv[1], sys.argv[2]
names = sorted(n for n in os.listdir(theirs) if n.endswith('.prof'))
assert names, 'the reference wrote no .prof'
assert names == sorted(n for n in os.listdir(ours) if n.endswith('.prof')), (names, os.listdir(ours))
for name in names:
    a = marshal.load(open(os.path.join(ours, name), 'rb'))
    b = marshal.load(open(os.path.join(theirs, name), 'rb'))
    assert list(a) == list(b), (name, list(a), list(b))
    for key in b:
        assert a[key][:4] == b[key][:4], (name, key, a[key][:4], b[key][:4])
        assert list(a[key][4].items()) == list(b[key][4].items()), (name, key, a[key][4], b[key][4])
print(len(names))
"#;
    let out = run_python(dir, ["-c", script, ours, theirs]);
    let count = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    assert!(count.parse::<usize>().unwrap_or(0) > 0, "{tag}: {count}");
}

/// `--with prof speedscope` (and bare `--with`): the reference's `profile_rank<N>.prof`,
/// one per rank asked for (rank 0 by default) and run, and `profile.speedscope.json`, on
/// profiles with source files, threads and several ranks, alone and two at once (the
/// runs' label slugs in the names).
#[test]
fn companions_equal_the_reference() {
    let mixed = repo().join("tests/golden/mixed/expected/merged.h5");
    let rich = repo().join("tests/golden/h5_python_rich/expected/rich_import.h5");
    let lzf = repo().join("tests/golden/h5_lzf_with_traces/expected/lzf_with_traces.h5");
    let cases: [(&[&Path], &[&str]); 4] = [
        (
            &[&mixed],
            &["--with", "prof", "speedscope", "--ranks", "0", "1"],
        ),
        (&[&rich], &["--with", "--ranks", "0", "1"]),
        (&[&lzf], &["--with", "all", "--ranks", "0-5"]),
        (&[&mixed, &lzf], &["--with", "prof", "--exclude", "H"]),
    ];
    for (i, (inputs, args)) in cases.iter().enumerate() {
        let tag = format!("companions{i}");
        let dir = scratch_dir(&format!("plot-data-{tag}"));
        let mut common: Vec<&str> = inputs.iter().map(|p| p.to_str().unwrap()).collect();
        common.push("--plots");
        common.extend(*args);
        let mut reference = vec!["-m", "scope_profiler", "export", "plot-data", "-o", "ref"];
        reference.extend(&common);
        run_python(&dir, &reference);
        let run = (sp().current_dir(&*dir))
            .args(["export", "plot-data", "-o", "ours"])
            .args(&common)
            .output()
            .unwrap();
        assert!(run.status.success(), "{tag}: {}", show(&run));
        assert_same_prof(&dir, "ours", "ref", &tag);
        for name in support::listing(&dir.join("ref")) {
            if !name.ends_with(".speedscope.json") {
                continue;
            }
            // sp's frames carry the source file and line where the profile has them.
            let frames = |d: &str| -> Value {
                let text = std::fs::read_to_string(dir.join(d).join(&name)).unwrap();
                let mut doc: Value = serde_json::from_str(&text).unwrap();
                for frame in doc["shared"]["frames"].as_array_mut().unwrap() {
                    let frame = frame.as_object_mut().unwrap();
                    frame.remove("file");
                    frame.remove("line");
                }
                doc.as_object_mut().unwrap().remove("exporter");
                doc
            };
            assert_eq!(frames("ours"), frames("ref"), "{tag}: {name}");
        }
    }
}

/// [`sp::analysis::pstats`] with one entry per region (no call paths) equals the
/// reference's `export prof --no-call-paths`: recursion, callers and the root frame.
#[test]
fn prof_by_region_equals_the_reference() {
    use sp::analysis::plot_data::Run;
    use sp::analysis::stored::StoredProfile;
    let mixed = repo().join("tests/golden/mixed/expected/merged.h5");
    let lzf = repo().join("tests/golden/h5_lzf_with_traces/expected/lzf_with_traces.h5");
    for (i, path) in [mixed, lzf].iter().enumerate() {
        let dir = scratch_dir(&format!("prof-by-region-{i}"));
        let p = path.to_str().unwrap();
        let args = ["export", "prof", p, "-o", "ref", "--ranks", "0", "1"];
        run_python(
            &dir,
            ["-m", "scope_profiler"]
                .iter()
                .chain(&args)
                .chain(&["--no-call-paths"]),
        );
        let file = StoredProfile::open(sp::io::file::LocalFile::open(path).unwrap()).unwrap();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let (profile, reader, label) = file.index(Some(stem)).unwrap();
        let input = sp::chart::plot::Input::new("", &profile, reader.as_ref(), &label);
        let run = Run::from(&input);
        let selection = sp::analysis::Selection::all();
        let files = sp::analysis::pstats::files(
            &[run],
            std::slice::from_ref(&label),
            &selection,
            &[0, 1],
            "profile",
            false,
        )
        .unwrap();
        std::fs::create_dir_all(dir.join("ours")).unwrap();
        for (name, bytes) in files {
            std::fs::write(dir.join("ours").join(name), bytes).unwrap();
        }
        assert_same_prof(&dir, "ours", "ref", &format!("by-region{i}"));
    }
}

/// `sp export prof FILES… -o DIR` writes what the reference's `export prof` writes: the
/// same `.prof` names (the label slugs with several files, `_rank<N>` for each rank
/// asked for, rank 0 by default) and the same dicts, by call path and by region
/// (`--no-call-paths`), with labels and region filters.
#[test]
fn export_prof_equals_the_reference() {
    let mixed = repo().join("tests/golden/mixed/expected/merged.h5");
    let rich = repo().join("tests/golden/h5_python_rich/expected/rich_import.h5");
    let lzf = repo().join("tests/golden/h5_lzf_with_traces/expected/lzf_with_traces.h5");
    let cases: [(&[&Path], &[&str]); 5] = [
        (&[&mixed], &[]),
        (&[&lzf], &["--ranks", "0-5", "--no-call-paths"]),
        (&[&rich], &["--ranks", "0", "1", "--include", "^[a-m]"]),
        (
            &[&mixed, &lzf],
            &["--ranks", "0", "1", "--label", "x", "--label", "y z"],
        ),
        (&[&mixed, &mixed], &["--exclude", "H", "--no-call-paths"]),
    ];
    for (i, (inputs, args)) in cases.iter().enumerate() {
        let tag = format!("export-prof{i}");
        let dir = scratch_dir(&tag);
        let mut common: Vec<&str> = inputs.iter().map(|p| p.to_str().unwrap()).collect();
        common.extend(*args);
        let mut reference = vec!["-m", "scope_profiler", "export", "prof", "-o", "ref"];
        reference.extend(&common);
        run_python(&dir, &reference);
        let run = (sp().current_dir(&*dir))
            .args(["export", "prof", "-o", "ours"])
            .args(&common)
            .output()
            .unwrap();
        assert!(run.status.success(), "{tag}: {}", show(&run));
        let listing = support::listing(&dir.join("ours"));
        assert_eq!(listing, support::listing(&dir.join("ref")), "{tag}");
        assert_same_prof(&dir, "ours", "ref", &tag);
    }
}

/// `sp export prof` refuses a rank the profile does not have, as the reference does, and
/// a file that is not a profile: one line naming the file, exit 1, nothing written.
#[test]
fn export_prof_refuses_a_missing_rank() {
    let dir = scratch_dir("export-prof-bad");
    let mixed = repo().join("tests/golden/mixed/expected/merged.h5");
    let bad = dir.join("bad.h5");
    std::fs::write(&bad, b"not a profile").unwrap();
    let cases: [(&[&Path], &str, &str); 2] = [
        (&[&mixed], "99", "invalid rank requested: 99"),
        (&[&mixed, &bad], "0", "bad.h5"),
    ];
    for (inputs, rank, said) in cases {
        let out = dir.join("out");
        let run = (sp().current_dir(&*dir))
            .args(["export", "prof", "-o", out.to_str().unwrap()])
            .args(inputs)
            .args(["--ranks", rank])
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(1), "{}", show(&run));
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(said), "{stderr}");
        assert!(stderr.contains(".h5"), "{stderr}");
        assert!(!out.exists());
    }
}
