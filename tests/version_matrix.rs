//! The libhdf5 version matrix. sp's outputs (every golden case, plain and `--compress`)
//! open and read identical in libhdf5 1.10 (Debian's `h5dump` and `h5ls`), 1.12, 1.14 and
//! 2.0 (h5py wheels that bundle them, one venv each, made and cached under target/matrix/ by
//! scripts/matrix-venvs.sh); and sp reads what each of those versions writes with libver
//! `earliest` and `latest`, value for value.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value as Json;

/// (libhdf5 version, python) of each venv, made on first use: once per test binary, since
/// the tests run in parallel and the script rebuilds a venv it finds incomplete.
fn venvs() -> Vec<(String, PathBuf)> {
    static VENVS: OnceLock<Vec<(String, PathBuf)>> = OnceLock::new();
    VENVS.get_or_init(make_venvs).clone()
}

fn make_venvs() -> Vec<(String, PathBuf)> {
    let out = support::run_ok(&mut Command::new(
        support::repo().join("scripts/matrix-venvs.sh"),
    ));
    let venvs: Vec<(String, PathBuf)> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (v, p) = l.split_once(' ').unwrap();
            (v.to_owned(), PathBuf::from(p))
        })
        .collect();
    let versions: Vec<&str> = venvs.iter().map(|(v, _)| v.as_str()).collect();
    assert_eq!(versions, ["1.12", "1.14", "2.0"]);
    venvs
}

/// Every golden case converted by sp, plain and compressed, into `dir`.
fn golden_outputs(dir: &Path) -> Vec<PathBuf> {
    let golden = support::repo().join("tests/golden");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&golden)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("case.txt").is_file())
        .collect();
    cases.sort();
    assert!(cases.len() >= 16, "golden cases not found: {cases:?}");
    let count = cases.len();
    let mut outputs = Vec::new();
    for case in cases {
        let spec = std::fs::read_to_string(case.join("case.txt")).unwrap();
        let mut lines = spec.lines();
        let inputs: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
        let output = lines.next().unwrap();
        let extra: Vec<&str> = lines.next().unwrap_or("").split_whitespace().collect();
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        for compress in [false, true] {
            let sub = dir.join(format!("{name}{}", if compress { "-gzip" } else { "" }));
            std::fs::create_dir_all(&sub).unwrap();
            let out = sub.join(output);
            let mut cmd = support::sp();
            cmd.current_dir(&case)
                .arg("convert")
                .args(&inputs)
                .arg("-o")
                .arg(&out)
                .arg("-q")
                .args(&extra);
            if compress {
                cmd.arg("--compress");
            }
            support::run_ok(&mut cmd);
            outputs.push(out);
        }
    }
    assert_eq!(outputs.len(), 2 * count);
    outputs
}

/// What a venv's h5py reads from `files` (tests/interop/readback.py trees).
fn trees(python: &Path, files: &[PathBuf]) -> Vec<Json> {
    let out = support::run_ok(
        Command::new(python)
            .env("PYTHONIOENCODING", "utf-8")
            .arg(support::repo().join("tests/interop/readback.py"))
            .arg("trees")
            .args(files),
    );
    match serde_json::from_slice(&out.stdout).unwrap() {
        Json::Array(trees) => trees,
        other => panic!("not a list: {other}"),
    }
}

#[test]
fn sp_outputs_read_identical_in_libhdf5_1_10_to_2_0() {
    let venvs = venvs();
    let dir = support::scratch_dir("matrix-outputs");
    let outputs = golden_outputs(&dir);

    // 1.12, 1.14 and 2.0 read the same values; plain and compressed hold the same.
    let reference = trees(&venvs[2].1, &outputs);
    for (version, python) in &venvs[..2] {
        let got = trees(python, &outputs);
        for ((file, a), b) in outputs.iter().zip(&got).zip(&reference) {
            assert_eq!(
                a,
                b,
                "libhdf5 {version} reads {} differently",
                file.display()
            );
        }
    }
    for pair in reference.chunks(2) {
        assert_eq!(pair[0], pair[1], "--compress changed the content");
        assert!(pair[0].as_object().unwrap().len() > 5);
    }

    // 1.10: h5ls walks and h5dump reads every object; the index and event columns hold
    // the same numbers as 2.0 reads.
    for (file, tree) in outputs.iter().zip(&reference) {
        support::run_ok(Command::new("h5ls").arg("-r").arg(file));
        support::run_ok(Command::new("h5dump").arg(file));
        for (path, entry) in tree.as_object().unwrap() {
            let columns = [
                "/events/",
                "/rank_region_index/ranks",
                "/rank_region_index/event_offsets",
                "/rank_region_index/event_counts",
            ];
            if path.contains('@') || !columns.iter().any(|c| path.starts_with(c)) {
                continue;
            }
            let values: Vec<i64> = entry["values"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_i64().unwrap())
                .collect();
            if !values.is_empty() {
                assert_eq!(
                    support::h5dump_ints(file, path),
                    values,
                    "libhdf5 1.10 reads {path} of {} differently",
                    file.display()
                );
            }
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn sp_reads_what_each_libhdf5_writes_with_earliest_and_latest_formats() {
    let venvs = venvs();
    let golden = support::repo().join("tests/golden");
    // Profiles of every layout: schema 1 and 2 per-rank files, columnar, gzip-chunked,
    // aggregate, LIKWID groups.
    let sources: Vec<PathBuf> = [
        "c_trace/expected/profiling_data.h5",
        "chunked/expected/big.h5",
        "h5_c_schema2/inputs/profile_rank00000.h5",
        "h5_python_agg/inputs/agg.h5",
        "h5_python_rich/inputs/rich.h5",
        "merge_gzip/inputs/base.h5",
        "merge_rich_likwid/expected/with_likwid.h5",
    ]
    .iter()
    .map(|rel| golden.join(rel))
    .collect();
    let dir = support::scratch_dir("matrix-libver");
    for (version, python) in &venvs {
        for libver in ["earliest", "latest"] {
            let out = dir.join(format!("{version}-{libver}"));
            std::fs::create_dir_all(&out).unwrap();
            support::run_ok(
                Command::new(python)
                    .arg(support::repo().join("tests/interop/rewrite_libver.py"))
                    .arg(libver)
                    .arg(&out)
                    .args(&sources),
            );
            for (i, source) in sources.iter().enumerate() {
                let written = out.join(format!("{i}.h5"));
                support::assert_same_content_by_our_reader(&written, source);
                let inspect = support::sp().arg("inspect").arg(&written).output().unwrap();
                assert!(
                    inspect.status.success(),
                    "sp inspect of {} as libhdf5 {version} writes it ({libver}): {}",
                    source.display(),
                    String::from_utf8_lossy(&inspect.stderr)
                );
            }
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}
