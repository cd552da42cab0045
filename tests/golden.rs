//! Golden tests: `sp convert` on the reference's own inputs must give a file whose content
//! (every group, dataset, attribute, datatype and value) equals the reference's output in
//! `tests/golden/<case>/expected/`, produced by `tests/golden/regenerate.sh`.
//!
//! The comparison runs through h5py (`tests/interop/h5content.py`), an independent reader.
//! Set `SP_BIN` to test another build of `sp` (the static musl binary in CI).

mod support;

use std::path::Path;

/// Converts one case's inputs into a scratch directory and compares with the expected file.
fn check_case(name: &str) {
    let case = support::repo().join("tests/golden").join(name);
    let spec = std::fs::read_to_string(case.join("case.txt")).expect("case.txt");
    let mut lines = spec.lines();
    let inputs: Vec<&str> = lines
        .next()
        .expect("inputs line")
        .split_whitespace()
        .collect();
    let output = lines.next().expect("output line");

    let scratch = support::scratch_dir(&format!("golden-{name}"));
    let ours = scratch.join(output);
    let mut cmd = support::sp();
    cmd.current_dir(&case)
        .arg("convert")
        .args(&inputs)
        .arg("-o")
        .arg(&ours)
        .arg("-q");
    support::run_ok(&mut cmd);

    let expected = case.join("expected").join(output);
    support::assert_same_content(&ours, &expected);
    support::assert_deterministic(&case, &inputs, output, &ours);
    std::fs::remove_dir_all(scratch).ok();
}

#[test]
fn synthetic_two_ranks_mixed_versions_and_byte_orders() {
    check_case("synthetic");
}

#[test]
fn c_api_trace() {
    check_case("c_trace");
}

#[test]
fn fortran_api_trace() {
    check_case("fortran");
}

#[test]
fn chunked_size_trace() {
    check_case("chunked");
}

#[test]
fn mixed_directory_with_c_hdf5_rank() {
    check_case("mixed");
}

#[test]
fn every_case_directory_is_tested() {
    let mut cases: Vec<String> = std::fs::read_dir(support::repo().join("tests/golden"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| Path::new(&e.path()).join("case.txt").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    cases.sort();
    assert_eq!(
        cases,
        ["c_trace", "chunked", "fortran", "mixed", "synthetic"]
    );
}
