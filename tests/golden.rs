//! Golden tests: `sp convert` on the reference's own inputs must give a file whose content
//! (every group, dataset, attribute, datatype and value) equals the reference's output in
//! `tests/golden/<case>/expected/`, produced by `tests/golden/regenerate.sh`.
//!
//! The comparison runs twice: through h5py (`tests/interop/h5content.py`), an independent
//! reader, and through our own reader.
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
    let extra: Vec<&str> = lines.next().unwrap_or("").split_whitespace().collect();

    let scratch = support::scratch_dir(&format!("golden-{name}"));
    let ours = scratch.join(output);
    let mut cmd = support::sp();
    cmd.current_dir(&case)
        .arg("convert")
        .args(&inputs)
        .arg("-o")
        .arg(&ours)
        .arg("-q")
        .args(&extra);
    support::run_ok(&mut cmd);

    let expected = case.join("expected").join(output);
    support::assert_same_content(&ours, &expected);
    support::assert_same_content_by_our_reader(&ours, &expected);
    support::assert_deterministic(&case, &inputs, &extra, output, &ours);
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
fn python_gzip_profile_with_two_level_chunk_btree() {
    check_case("h5_python_gzip");
}

#[test]
fn python_profile_with_every_optional_part() {
    check_case("h5_python_rich");
}

#[test]
fn python_aggregate_profile_becomes_callless_rows() {
    check_case("h5_python_agg");
}

#[test]
fn c_schema2_per_rank_profile() {
    check_case("h5_c_schema2");
}

#[test]
fn python_profile_mixed_with_traces_inherits_its_metadata() {
    check_case("h5_mixed_with_traces");
}

#[test]
fn gzip_profile_with_big_endian_v1_and_v2_traces() {
    check_case("h5_gzip_with_traces");
}

#[test]
fn aggregate_profile_with_traces() {
    check_case("h5_agg_with_traces");
}

#[test]
fn c_schema2_profile_with_traces() {
    check_case("h5_c_schema2_with_traces");
}

#[test]
fn merge_into_gzip_profile_with_label() {
    check_case("merge_gzip");
}

#[test]
fn merge_into_rich_profile_keeps_its_likwid_groups() {
    check_case("merge_rich_likwid");
}

#[test]
fn merge_into_aggregate_profile_without_label() {
    check_case("merge_agg");
}

#[test]
fn python_lzf_profile() {
    check_case("h5_python_lzf");
}

#[test]
fn python_zstd_profile() {
    check_case("h5_python_zstd");
}

#[test]
fn python_gzip_option_profile() {
    check_case("h5_python_gzip_option");
}

#[test]
fn lzf_profile_with_traces() {
    check_case("h5_lzf_with_traces");
}

#[test]
fn merge_into_zstd_profile() {
    check_case("merge_zstd");
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
        [
            "c_trace",
            "chunked",
            "fortran",
            "h5_agg_with_traces",
            "h5_c_schema2",
            "h5_c_schema2_with_traces",
            "h5_gzip_with_traces",
            "h5_lzf_with_traces",
            "h5_mixed_with_traces",
            "h5_python_agg",
            "h5_python_gzip",
            "h5_python_gzip_option",
            "h5_python_lzf",
            "h5_python_rich",
            "h5_python_zstd",
            "merge_agg",
            "merge_gzip",
            "merge_rich_likwid",
            "merge_zstd",
            "mixed",
            "synthetic",
        ]
    );
}

/// The reader-side comparison notices a difference in values alone: the C and Fortran
/// examples have the same structure and different timestamps.
#[test]
fn our_reader_comparison_detects_different_values() {
    let c = support::repo().join("tests/golden/c_trace/expected/profiling_data.h5");
    let fortran = support::repo().join("tests/golden/fortran/expected/profiling_data.h5");
    support::assert_same_content_by_our_reader(&c, &c);
    let outcome = std::panic::catch_unwind(|| {
        support::assert_same_content_by_our_reader(&c, &fortran);
    });
    let message = outcome.expect_err("different files must not compare equal");
    let text = message
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(text.contains("/events/start_deltas"), "{text}");
    assert!(text.contains("/metadata@start_time_ns"), "{text}");
}
