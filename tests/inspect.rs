//! `sp inspect`: its JSON statistics equal, value for value, what scope-profiler's own
//! `summary.region_rows` computes on the same file (extracted by
//! `tests/inspect/reference_rows.py`); the table output matches blessed snapshots
//! (`SP_BLESS=1` rewrites them); the fast path reads a tiny part of a large profile.

mod support;

use std::cell::Cell;
use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;
use sp::analysis::{load, region_rows, RowOptions, Selection};
use sp::hdf5lite::reader::File;
use sp::io::ReadAt;

fn golden_profiles() -> Vec<PathBuf> {
    let repo = support::repo();
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo.join("tests/corpus/golden"))
        .expect("corpus dir")
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "h5"))
        .collect();
    for case in ["c_trace", "chunked", "fortran", "mixed", "synthetic"] {
        for entry in std::fs::read_dir(repo.join("tests/golden").join(case).join("expected"))
            .expect("golden expected dir")
        {
            let path = entry.expect("entry").path();
            if path.extension().is_some_and(|e| e == "h5") {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(files.len() >= 17, "golden profiles missing: {files:?}");
    files
}

fn json_of(cmd: &mut Command) -> Value {
    let out = support::run_ok(cmd);
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

/// Numbers compare as f64 (Python writes `1`, `1.0`, Rust may differ in spelling only).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        _ => a == b,
    }
}

fn compare(file: &PathBuf, args: &[&str]) {
    let script = support::repo().join("tests/inspect/reference_rows.py");
    let reference = json_of(
        Command::new(support::python())
            .arg(&script)
            .arg(file)
            .args(args),
    );
    let ours = json_of(
        support::sp()
            .args(["inspect", "--format", "json"])
            .arg(file)
            .args(args),
    );
    let ours = &ours["files"][0];
    let context = format!("{} {args:?}", file.display());
    assert_eq!(ours["num_ranks"], reference["num_ranks"], "{context}");
    let (Some(expected), Some(got)) = (reference["regions"].as_array(), ours["regions"].as_array())
    else {
        panic!("{context}: no regions array");
    };
    assert_eq!(got.len(), expected.len(), "{context}: row count");
    for (e, g) in expected.iter().zip(got) {
        let Some(fields) = e.as_object() else {
            panic!("{context}: row is not an object");
        };
        for (key, value) in fields {
            assert!(
                same(value, &g[key]),
                "{context}: row {} field {key}: reference {value}, sp {}",
                e["name"],
                g[key]
            );
        }
    }
}

/// The option sets every profile is inspected with.
const VARIANTS: [&[&str]; 7] = [
    &[],
    &["--flat"],
    &["--sort", "total", "--ranks", "1"],
    &["--percentage-mode", "exclusive", "--sort", "name"],
    &["--include", "s.*", "A", "--exclude", ".*x"],
    &["--sort", "p95", "--ranks", "0", "2"],
    &["--flat", "--sort", "imbalance"],
];

#[test]
fn json_equals_reference_region_rows_on_every_golden_profile() {
    for file in golden_profiles() {
        for args in VARIANTS {
            compare(&file, args);
        }
    }
}

/// Real multi-rank runs of the C and Fortran APIs (`examples/`), converted by `sp convert`:
/// nesting, recursion, a call left open, ranks with different regions.
#[test]
fn json_equals_reference_region_rows_on_converted_multi_rank_runs() {
    let scratch = support::scratch_dir("inspect-multirank");
    for run in ["c_multirank", "fortran_multirank", "c_hdf5_multirank"] {
        let output = scratch.join(format!("{run}.h5"));
        support::run_ok(
            support::sp()
                .arg("convert")
                .arg(support::repo().join("examples").join(run))
                .arg("-o")
                .arg(&output)
                .arg("-q"),
        );
        for args in VARIANTS {
            compare(&output, args);
        }
    }
    std::fs::remove_dir_all(scratch).ok();
}

fn snapshot(name: &str, args: &[&str]) {
    snapshot_at(name, "100", args);
}

/// A snapshot of `sp inspect ARGS` in a terminal `columns` wide.
fn snapshot_at(name: &str, columns: &str, args: &[&str]) {
    let repo = support::repo();
    let out = support::run_ok(
        support::sp()
            .current_dir(&repo)
            .env("COLUMNS", columns)
            .arg("inspect")
            .args(args),
    );
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let path = repo
        .join("tests/inspect/snapshots")
        .join(format!("{name}.txt"));
    if std::env::var_os("SP_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, &text).expect("bless");
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with SP_BLESS=1)", path.display()));
    assert_eq!(
        text, expected,
        "snapshot {name} differs (SP_BLESS=1 to re-bless)"
    );
}

#[test]
fn table_output_matches_snapshots() {
    snapshot("synthetic", &["tests/golden/synthetic/expected/golden.h5"]);
    snapshot(
        "mixed_columns",
        &[
            "tests/golden/mixed/expected/merged.h5",
            "--columns",
            "region",
            "ranks",
            "calls",
            "total",
            "avg",
            "p95",
            "imbalance",
        ],
    );
    snapshot(
        "rich_regions_only",
        &["tests/corpus/golden/python_rich_rich.h5", "--regions-only"],
    );
    // A narrow terminal: names truncated with `…`, the Info box wrapped, nothing wider.
    snapshot_at(
        "mixed_narrow",
        "60",
        &[
            "tests/golden/mixed/expected/merged.h5",
            "--columns",
            "region",
            "ranks",
            "calls",
            "total",
            "avg",
            "p95",
        ],
    );
    snapshot(
        "agg_metadata_only",
        &["tests/corpus/golden/python_agg_agg.h5", "--metadata-only"],
    );
    snapshot(
        "c_trace_flat_csv",
        &[
            "tests/golden/c_trace/expected/profiling_data.h5",
            "--flat",
            "--format",
            "csv",
        ],
    );
}

/// A `ReadAt` that counts the bytes read through it.
struct Counting<'a> {
    bytes: &'a [u8],
    read: Cell<u64>,
}

impl ReadAt for Counting<'_> {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        self.read.set(self.read.get() + buf.len() as u64);
        self.bytes.read_exact_at(offset, buf)
    }
}

/// A schema-3 profile of 4 ranks × 8 regions × 100 000 calls (≈ 51 MB of events).
fn large_profile() -> Vec<u8> {
    use sp::schema::merged::{MergedProfile as Columnar, ProfileRow as Row};
    let mut profile = Columnar {
        region_names: (0..8).map(|i| format!("region_{i}")).collect(),
        ..Columnar::default()
    };
    for rank in 0..4u32 {
        for region in 0..8u32 {
            let base = i64::from(region) * 1_000_000_000;
            let starts: Vec<i64> = (0..100_000i64).map(|i| base + i * 1000).collect();
            let ends: Vec<i64> = starts.iter().map(|s| s + 500 + i64::from(rank)).collect();
            profile.rows.push(Row {
                rank,
                region_id: region,
                source_file: String::new(),
                source_line: -1,
                source_text: String::new(),
                starts,
                ends,
            });
        }
    }
    let writer = sp::schema::write::to_hdf5(&profile).expect("encode");
    let mut bytes = Vec::new();
    writer.finish(&mut bytes).expect("write");
    bytes
}

#[test]
fn fast_path_reads_a_tiny_fraction_of_a_large_profile() {
    let bytes = large_profile();
    assert!(bytes.len() > 50_000_000, "profile is {} bytes", bytes.len());

    let counting = Counting {
        bytes: &bytes,
        read: Cell::new(0),
    };
    let file = File::open(&counting).expect("open");
    let summary = load::read_summary(&file).expect("summary");
    let rows = region_rows(&summary, &Selection::all(), RowOptions::default());
    let read = counting.read.get();
    assert_eq!(rows.len(), 8);
    assert_eq!(rows[0].calls, 400_000);
    // 100 000 calls per rank of 500..503 ns: totals are exact.
    assert_eq!(
        rows[0].total,
        Some((500.0 + 501.0 + 502.0 + 503.0) * 100_000.0 / 1e9)
    );
    assert!(
        read < 64 * 1024,
        "fast path read {read} bytes of {}",
        bytes.len()
    );

    // The full read touches the event columns: orders of magnitude more.
    let counting = Counting {
        bytes: &bytes,
        read: Cell::new(0),
    };
    let file = File::open(&counting).expect("open");
    let full = load::read_full(&file).expect("full");
    assert!(full.has_events());
    assert!(counting.read.get() > 50_000_000);
}

/// `--flat --from-events` decodes every event and recomputes each row's statistics: on every
/// golden profile with `summary_statistics` it prints exactly what the stored statistics give.
/// The one exception is the file written by the C library's own HDF5 writer, whose stored
/// `m2` comes from a different summation order than numpy's: there `std` may differ in the
/// last bits and everything else is exact.
#[test]
fn flat_from_events_equals_flat_from_stored_summaries() {
    let mut compared = 0;
    for file in golden_profiles() {
        let stored = support::sp()
            .args(["inspect", "--flat", "--format", "json"])
            .arg(&file)
            .output()
            .expect("run sp");
        if !stored.status.success() {
            let err = String::from_utf8_lossy(&stored.stderr);
            assert!(
                err.contains("no summary_statistics"),
                "{}: {err}",
                file.display()
            );
            continue;
        }
        let computed = support::run_ok(
            support::sp()
                .args(["inspect", "--flat", "--from-events", "--format", "json"])
                .arg(&file),
        );
        let c_writer = file
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("c_hdf5_profile_rank"));
        if !c_writer {
            assert_eq!(
                String::from_utf8_lossy(&computed.stdout),
                String::from_utf8_lossy(&stored.stdout),
                "{}",
                file.display()
            );
        } else {
            let a: Value = serde_json::from_slice(&stored.stdout).expect("json");
            let b: Value = serde_json::from_slice(&computed.stdout).expect("json");
            let rows = |v: &Value| v["files"][0]["regions"].as_array().cloned();
            let (Some(a), Some(b)) = (rows(&a), rows(&b)) else {
                panic!("{}: no regions", file.display());
            };
            assert_eq!(a.len(), b.len());
            for (x, y) in a.iter().zip(&b) {
                let Some(fields) = x.as_object() else {
                    panic!("row is not an object");
                };
                for (key, value) in fields {
                    if key == "std" {
                        let (p, q) = (value.as_f64(), y[key].as_f64());
                        assert!(
                            p.zip(q)
                                .is_some_and(|(p, q)| (p - q).abs() <= 1e-12 * p.abs()),
                            "{} {}: std {value} vs {}",
                            file.display(),
                            x["name"],
                            y[key]
                        );
                    } else {
                        assert_eq!(value, &y[key], "{} {} {key}", file.display(), x["name"]);
                    }
                }
            }
        }
        compared += 1;
    }
    assert!(
        compared >= 12,
        "only {compared} profiles have summary_statistics"
    );
}

/// A profile with a `scope_profiler.session` root, `work` in it and `inner` in `work`, so a
/// row's coverage and exclusive time differ.
fn session_profile() -> Vec<u8> {
    use sp::schema::merged::{MergedProfile as Columnar, ProfileRow as Row};
    let row = |region_id: u32, starts: Vec<i64>, ends: Vec<i64>| Row {
        rank: 0,
        region_id,
        source_file: String::new(),
        source_line: -1,
        source_text: String::new(),
        starts,
        ends,
    };
    let profile = Columnar {
        region_names: vec![
            "scope_profiler.session".into(),
            "work".into(),
            "inner".into(),
        ],
        rows: vec![
            row(0, vec![0], vec![1_000]),
            row(1, vec![100, 500], vec![400, 600]),
            row(2, vec![150], vec![350]),
        ],
        ..Columnar::default()
    };
    let writer = sp::schema::write::to_hdf5(&profile).expect("encode");
    let mut bytes = Vec::new();
    writer.finish(&mut bytes).expect("write");
    bytes
}

/// `--format csv` follows `--percentage-mode` as the JSON and the table do (and as the
/// reference's `% session` column does: exclusive time over the session's total), where it
/// used to print coverage percentages whatever the mode.
#[test]
fn csv_percent_follows_the_percentage_mode() {
    let dir = support::scratch_dir("inspect-csv-mode");
    let file = dir.join("session.h5");
    std::fs::write(&file, session_profile()).expect("write profile");
    let reference = json_of(
        Command::new(support::python())
            .arg(support::repo().join("tests/inspect/reference_rows.py"))
            .arg(&file)
            .args(["--percentage-mode", "exclusive"]),
    );
    let rows = reference["regions"].as_array().expect("rows");
    let session = rows
        .iter()
        .find(|r| r["name"] == "scope_profiler.session")
        .and_then(|r| r["total"].as_f64())
        .expect("session total");
    let csv = support::run_ok(
        support::sp()
            .args([
                "inspect",
                "--format",
                "csv",
                "--percentage-mode",
                "exclusive",
            ])
            .arg(&file),
    );
    let text = String::from_utf8(csv.stdout).expect("utf-8");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).expect("column");
    let (name, percent, coverage) = (column("name"), column("percent"), column("coverage"));
    let mut checked = 0;
    for (line, expected) in lines.zip(rows) {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells[name], expected["name"].as_str().expect("name"));
        let base = if cells[name] == "scope_profiler.session" {
            expected["total"].as_f64()
        } else {
            expected["exclusive"].as_f64()
        };
        let want = 100.0 * base.expect("exclusive") / session;
        let got: f64 = cells[percent].parse().expect("percent");
        assert_eq!(got, want, "{line}");
        if cells[name] == "work" {
            let covered: f64 = cells[coverage].parse().expect("coverage");
            assert_ne!(
                got,
                100.0 * covered / session,
                "exclusive differs from coverage"
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 3);
    std::fs::remove_dir_all(dir).ok();
}
