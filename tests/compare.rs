//! `sp diff` and `sp check` against the reference's `scope-profiler diff` and `check` on
//! the golden profiles: the same text to the byte and the same exit status, and in
//! `--format json` the same values, to the bit, as the reference's `diff.diff_rows` and
//! `diff.check_rows` (extracted by `tests/compare/reference_diff.py`).
//!
//! Needs the reference (`$SP_PYTHON`, else `<repo>/.venv/bin/python`); without it the tests
//! fail with the setup command, as every interop test does.

mod support;

use std::process::{Command, Output};

use serde_json::Value;

const C_TRACE: &str = "tests/golden/c_trace/expected/profiling_data.h5";
const FORTRAN: &str = "tests/golden/fortran/expected/profiling_data.h5";
const AGG_TRACES: &str = "tests/golden/h5_agg_with_traces/expected/h5_agg_with_traces.h5";
const MERGE_AGG: &str = "tests/golden/merge_agg/expected/combined.h5";
const GZIP_TRACES: &str = "tests/golden/h5_gzip_with_traces/expected/h5_gzip_with_traces.h5";
const MERGE_GZIP: &str = "tests/golden/merge_gzip/expected/merged.h5";
const SYNTHETIC: &str = "tests/golden/synthetic/expected/golden.h5";
const RICH: &str = "tests/golden/h5_python_rich/expected/rich_import.h5";
const LZF_TRACES: &str = "tests/golden/h5_lzf_with_traces/expected/lzf_with_traces.h5";
const MERGE_ZSTD: &str = "tests/golden/merge_zstd/expected/merged.h5";
const MIXED: &str = "tests/golden/mixed/expected/merged.h5";
const MIXED_TRACES: &str = "tests/golden/h5_mixed_with_traces/expected/mixed.h5";

/// `scope-profiler <args>`, run in the repository root (the titles name files relative to
/// the working directory).
fn reference(args: &[&str]) -> Output {
    Command::new(support::python())
        .current_dir(support::repo())
        .args(["-m", "scope_profiler"])
        .args(args)
        .output()
        .expect("run the reference")
}

/// `sp <args>`, run in the repository root.
fn ours(args: &[&str]) -> Output {
    support::sp()
        .current_dir(support::repo())
        .args(args)
        .output()
        .expect("run sp")
}

/// Both tools print the same bytes and exit with `status`.
fn same_as_reference(args: &[&str], status: i32) -> String {
    let expected = reference(args);
    assert_eq!(
        expected.status.code(),
        Some(status),
        "the reference, {args:?}: {}",
        support::show(&expected)
    );
    let got = ours(args);
    assert_eq!(
        got.status.code(),
        Some(status),
        "sp {args:?}: {}",
        support::show(&got)
    );
    let (expected, got) = (
        String::from_utf8_lossy(&expected.stdout),
        String::from_utf8_lossy(&got.stdout),
    );
    assert_eq!(
        got, expected,
        "sp {args:?} prints otherwise than the reference"
    );
    got.into_owned()
}

#[test]
fn diff_prints_what_the_reference_prints() {
    let cases: [&[&str]; 9] = [
        // The same regions on both sides.
        &["diff", C_TRACE, FORTRAN],
        // Regions only in a and only in b; percentiles read every call.
        &["diff", AGG_TRACES, MERGE_AGG, "--metric", "p95"],
        &[
            "diff", MERGE_AGG, AGG_TRACES, "--metric", "p50", "--sort", "pct",
        ],
        // A region without calls: 0 calls has no percentage.
        &["diff", SYNTHETIC, RICH, "--metric", "calls"],
        &[
            "diff",
            MERGE_ZSTD,
            LZF_TRACES,
            "--metric",
            "imbalance",
            "--sort",
            "name",
        ],
        &[
            "diff",
            MIXED,
            MIXED_TRACES,
            "--ranks",
            "0-2",
            "--metric",
            "max",
        ],
        &[
            "diff",
            C_TRACE,
            FORTRAN,
            "--threshold",
            "5",
            "--metric",
            "avg",
        ],
        &[
            "diff",
            GZIP_TRACES,
            MERGE_GZIP,
            "--include",
            "s.*",
            "D",
            "--exclude",
            "so.*",
        ],
        // Nothing left to compare.
        &["diff", C_TRACE, FORTRAN, "--include", "nothing"],
    ];
    for args in cases {
        same_as_reference(args, 0);
    }
    let text = same_as_reference(&["diff", AGG_TRACES, MERGE_AGG, "--metric", "p95"], 0);
    assert!(
        text.contains("\n  Only in a: solve, io\n  Only in b: B, A\n"),
        "{text}"
    );
}

#[test]
fn check_passes_and_fails_as_the_reference_does() {
    // fib_call is 26 % slower in the Fortran run.
    let failed = same_as_reference(&["check", C_TRACE, FORTRAN, "--max-regression", "10"], 1);
    assert!(failed.contains("Regression check: FAIL\n"), "{failed}");
    assert!(
        failed.ends_with("Budget violations: fib_call, fibonacci\n"),
        "{failed}"
    );
    let passed = same_as_reference(&["check", C_TRACE, FORTRAN, "--max-regression", "30"], 0);
    assert!(passed.contains("Regression check: PASS\n"), "{passed}");
    // Regions new in b fail only with --fail-on-new.
    same_as_reference(
        &["check", GZIP_TRACES, MERGE_GZIP, "--max-regression", "5"],
        0,
    );
    let new = same_as_reference(
        &[
            "check",
            GZIP_TRACES,
            MERGE_GZIP,
            "--max-regression",
            "5",
            "--fail-on-new",
        ],
        1,
    );
    assert!(new.ends_with("Budget violations: A, B\n"), "{new}");
    same_as_reference(
        &[
            "check",
            MERGE_AGG,
            AGG_TRACES,
            "--metric",
            "p99",
            "--max-regression",
            "2.5",
        ],
        0,
    );
    let new = same_as_reference(
        &[
            "check",
            MERGE_AGG,
            AGG_TRACES,
            "--metric",
            "p99",
            "--max-regression",
            "2.5",
            "--fail-on-new",
        ],
        1,
    );
    assert!(new.ends_with("Budget violations: io, solve\n"), "{new}");
    same_as_reference(&["check", SYNTHETIC, RICH, "--metric", "calls"], 0);
    same_as_reference(
        &[
            "check",
            C_TRACE,
            FORTRAN,
            "--include",
            "nothing",
            "--fail-on-new",
        ],
        0,
    );
}

fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", support::show(out)))
}

/// The reference's `diff_rows` (and `check_rows`) for `args`.
fn reference_rows(args: &[&str]) -> Value {
    let script = support::repo().join("tests/compare/reference_diff.py");
    let out = Command::new(support::python())
        .current_dir(support::repo())
        .arg(script)
        .args(args)
        .output()
        .expect("run reference_diff.py");
    assert!(out.status.success(), "{args:?}: {}", support::show(&out));
    json_of(&out)
}

/// Two JSON values are equal, numbers as f64 (`1` and `1.0` alike).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

#[test]
fn json_values_equal_the_reference_rows() {
    let cases: [(&[&str], i32); 6] = [
        (&["diff", C_TRACE, FORTRAN], 0),
        (&["diff", AGG_TRACES, MERGE_AGG, "--metric", "p99"], 0),
        (
            &[
                "diff", SYNTHETIC, RICH, "--metric", "calls", "--sort", "name",
            ],
            0,
        ),
        (
            &[
                "diff",
                MERGE_ZSTD,
                LZF_TRACES,
                "--metric",
                "min",
                "--threshold",
                "1",
            ],
            0,
        ),
        (&["check", C_TRACE, FORTRAN, "--max-regression", "10"], 1),
        (&["check", GZIP_TRACES, MERGE_GZIP, "--fail-on-new"], 1),
    ];
    for (args, status) in cases {
        let expected = reference_rows(args);
        let out = ours(&[args, &["--format", "json"]].concat());
        assert_eq!(
            out.status.code(),
            Some(status),
            "{args:?}: {}",
            support::show(&out)
        );
        let got = json_of(&out);
        let (Some(want), Some(have)) = (expected["rows"].as_array(), got["rows"].as_array()) else {
            panic!("{args:?}: no rows");
        };
        assert_eq!(have.len(), want.len(), "{args:?}: row count");
        for (w, h) in want.iter().zip(have) {
            for key in ["name", "a", "b", "delta", "pct"] {
                assert!(
                    same(&w[key], &h[key]),
                    "{args:?}: row {} {key}: reference {}, sp {}",
                    w["name"],
                    w[key],
                    h[key]
                );
            }
        }
        let only = |side: &str| -> Vec<Value> {
            want.iter()
                .filter(|r| r[side].is_null())
                .map(|r| r["name"].clone())
                .collect()
        };
        assert_eq!(got["only_in_a"], Value::Array(only("b")), "{args:?}");
        assert_eq!(got["only_in_b"], Value::Array(only("a")), "{args:?}");
        if args[0] == "check" {
            assert_eq!(got["violations"], expected["violations"], "{args:?}");
            assert_eq!(got["passed"], Value::Bool(status == 0), "{args:?}");
        }
    }
}

/// Each CSV line holds the reference's row: the same name, values equal as f64 (empty for
/// None), and whether `check_rows` lists it.
#[test]
fn csv_lines_hold_the_reference_rows() {
    let args: &[&str] = &[
        "check",
        C_TRACE,
        FORTRAN,
        "--metric",
        "avg",
        "--max-regression",
        "5",
    ];
    let expected = reference_rows(args);
    let out = ours(&[args, &["--format", "csv"]].concat());
    assert_eq!(out.status.code(), Some(1), "{}", support::show(&out));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("name,a,b,delta,pct,violation"));
    let want = expected["rows"].as_array().expect("rows");
    let violations = expected["violations"].as_array().expect("violations");
    let lines: Vec<&str> = lines.collect();
    assert_eq!(lines.len(), want.len(), "{text}");
    for (line, w) in lines.iter().zip(want) {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells.len(), 6, "{line}");
        assert_eq!(Some(cells[0]), w["name"].as_str(), "{line}");
        for (cell, key) in cells[1..5].iter().zip(["a", "b", "delta", "pct"]) {
            let value = (!cell.is_empty()).then(|| cell.parse::<f64>().expect("a number"));
            assert_eq!(value, w[key].as_f64(), "{line}: {key}");
        }
        let listed = violations.contains(&w["name"]);
        assert_eq!(cells[5], listed.to_string(), "{line}");
    }
}

/// A negative budget: the reference reads both files, then refuses it (`ValueError:
/// max_regression must be non-negative`, exit 1, nothing on stdout); sp exits 1 with one
/// line. NaN (which no change exceeds) and -0 it takes, and so does sp.
#[test]
fn a_negative_budget_fails_as_the_reference_does() {
    for budget in ["-1", "-0.5"] {
        let args = ["check", C_TRACE, FORTRAN, "--max-regression", budget];
        let expected = reference(&args);
        assert_eq!(
            expected.status.code(),
            Some(1),
            "{}",
            support::show(&expected)
        );
        assert!(expected.stdout.is_empty(), "{}", support::show(&expected));
        assert!(
            String::from_utf8_lossy(&expected.stderr)
                .trim_end()
                .ends_with("ValueError: max_regression must be non-negative"),
            "{}",
            support::show(&expected)
        );
        let got = ours(&args);
        assert_eq!(got.status.code(), Some(1), "{}", support::show(&got));
        assert!(got.stdout.is_empty(), "{}", support::show(&got));
        assert_eq!(
            String::from_utf8_lossy(&got.stderr),
            format!(
                "sp: --max-regression: the maximum regression must be non-negative, not {budget}%\n"
            ),
            "{}",
            support::show(&got)
        );
    }
    // The file is named before the budget is, as the reference reads first.
    let missing = ours(&["check", "no/such.h5", FORTRAN, "--max-regression", "-1"]);
    assert_eq!(
        missing.status.code(),
        Some(1),
        "{}",
        support::show(&missing)
    );
    assert!(
        String::from_utf8_lossy(&missing.stderr).starts_with("sp: no/such.h5: cannot open: "),
        "{}",
        support::show(&missing)
    );
    let nan = same_as_reference(&["check", C_TRACE, FORTRAN, "--max-regression", "nan"], 0);
    assert!(nan.contains("Regression budget: +nan% (total)\n"), "{nan}");
    let zero = same_as_reference(&["check", C_TRACE, FORTRAN, "--max-regression", "-0"], 1);
    assert!(zero.contains("Regression budget: +-0% (total)\n"), "{zero}");
}

#[test]
fn bad_arguments_and_files_are_one_line_errors() {
    let missing = ours(&["diff", "no/such.h5", FORTRAN]);
    assert_eq!(
        missing.status.code(),
        Some(1),
        "{}",
        support::show(&missing)
    );
    assert!(
        String::from_utf8_lossy(&missing.stderr).starts_with("sp: no/such.h5: cannot open: "),
        "{}",
        support::show(&missing)
    );
    let not_hdf5 = ours(&["check", C_TRACE, "Cargo.toml"]);
    assert_eq!(
        not_hdf5.status.code(),
        Some(1),
        "{}",
        support::show(&not_hdf5)
    );
    assert!(
        String::from_utf8_lossy(&not_hdf5.stderr).starts_with("sp: Cargo.toml: "),
        "{}",
        support::show(&not_hdf5)
    );
    let ranks = ours(&["diff", C_TRACE, FORTRAN, "--ranks", "3-1"]);
    assert_eq!(ranks.status.code(), Some(2), "{}", support::show(&ranks));
}

/// GPU timings (written by the reference's writer with a stand-in device clock): the GPU
/// metrics and the warning `diff` prints when device time far exceeds CPU time.
#[test]
fn gpu_metrics_and_warnings_print_as_the_reference() {
    let dir = support::scratch_dir("compare-gpu");
    let script = support::repo().join("tests/compare/make_gpu_profiles.py");
    support::run_ok(
        Command::new(support::python())
            .current_dir(&dir)
            .arg(script)
            .args(["a.h5", "b.h5"]),
    );
    let run = |program: Command, args: &[&str]| -> Output {
        let mut cmd = program;
        cmd.current_dir(&dir).args(args).output().expect("run")
    };
    let reference_in_dir = |args: &[&str]| {
        let mut cmd = Command::new(support::python());
        cmd.args(["-m", "scope_profiler"]);
        run(cmd, args)
    };
    let cases: [(&[&str], i32); 5] = [
        (&["diff", "a.h5", "b.h5"], 0),
        (&["diff", "a.h5", "b.h5", "--metric", "gpu_total"], 0),
        (
            &[
                "diff", "b.h5", "a.h5", "--metric", "gpu_avg", "--sort", "pct",
            ],
            0,
        ),
        (&["diff", "a.h5", "b.h5", "--metric", "p50"], 0),
        (
            &[
                "check",
                "a.h5",
                "b.h5",
                "--metric",
                "gpu_avg",
                "--max-regression",
                "10",
            ],
            1,
        ),
    ];
    for (args, status) in cases {
        let expected = reference_in_dir(args);
        let got = run(support::sp(), args);
        assert_eq!(
            expected.status.code(),
            Some(status),
            "{}",
            support::show(&expected)
        );
        assert_eq!(got.status.code(), Some(status), "{}", support::show(&got));
        let text = String::from_utf8_lossy(&got.stdout);
        assert_eq!(
            text,
            String::from_utf8_lossy(&expected.stdout),
            "sp {args:?}"
        );
        if args[0] == "diff" {
            assert!(
                text.contains("\na: Warning: GPU time exceeds CPU time by more than 2x for "),
                "{text}"
            );
        }
    }
}

/// Random golden pairs with random options (`tests/compare/sweep.py`, a fixed seed): every
/// output and exit status equals the reference's.
#[test]
fn random_golden_pairs_match_the_reference() {
    let sp = std::env::var_os("SP_BIN")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from(env!("CARGO_BIN_EXE_sp")));
    let out = Command::new(support::python())
        .current_dir(support::repo())
        .arg("tests/compare/sweep.py")
        .arg(sp)
        .args(["11", "80"])
        .output()
        .expect("run sweep.py");
    assert!(out.status.success(), "{}", support::show(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).ends_with("80 cases, 0 differ\n"),
        "{}",
        support::show(&out)
    );
}
