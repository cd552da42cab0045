//! The command line's contract: exit statuses, one-line errors naming the file, quiet mode,
//! and outputs that are never left partial or clobbered by a failed run.

mod support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

fn golden(path: &str) -> PathBuf {
    support::repo().join("tests/golden").join(path)
}

fn sp_in(dir: &Path, args: &[&str]) -> Output {
    support::sp()
        .current_dir(dir)
        .args(args)
        .output()
        .expect("spawn sp")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Asserts exit status 1 and exactly one stderr line, equal to `expected`.
fn assert_fails_with(out: &Output, expected: &str) {
    assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr(out));
    assert_eq!(stderr(out), format!("{expected}\n"));
}

fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn usage_errors_exit_2_and_help_exits_0() {
    let dir = support::scratch_dir("cli-usage");
    let out = sp_in(&dir, &["convert"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("required"), "{}", stderr(&out));
    assert_eq!(sp_in(&dir, &["frobnicate"]).status.code(), Some(2));
    let help = sp_in(&dir, &["convert", "--help"]);
    assert_eq!(help.status.code(), Some(0));
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(
        text.contains("--output") && text.contains("Examples:"),
        "{text}"
    );
    assert!(
        entries(&dir).is_empty(),
        "nothing written: {:?}",
        entries(&dir)
    );
}

#[test]
fn missing_input_and_empty_directory() {
    let dir = support::scratch_dir("cli-missing");
    fs::create_dir(dir.join("empty")).unwrap();
    assert_fails_with(
        &sp_in(&dir, &["convert", "nosuch.spt"]),
        "sp: no such file or directory: nosuch.spt",
    );
    assert_fails_with(
        &sp_in(&dir, &["convert", "./empty/"]),
        "sp: no .spt traces and no per-rank .h5 profiles in empty",
    );
    assert_eq!(entries(&dir), ["empty"]);
}

#[test]
fn malformed_trace_names_the_file_and_the_problem() {
    let dir = support::scratch_dir("cli-malformed");
    fs::write(dir.join("bad.spt"), b"NOTATRACE-------------------").unwrap();
    assert_fails_with(
        &sp_in(&dir, &["convert", "bad.spt"]),
        "sp: bad.spt: not a scope-profiler Fortran trace (expected b'SCOPEPRF', found \
         b'NOTATRAC')",
    );
    let good = fs::read(golden("synthetic/inputs/g_rank00000.spt")).unwrap();
    fs::write(dir.join("cut.spt"), &good[..good.len() - 5]).unwrap();
    let out = sp_in(&dir, &["convert", "cut.spt"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.starts_with("sp: cut.spt: truncated trace: "), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!dir.join("profiling_data.h5").exists());
}

#[test]
fn duplicate_rank_names_both_files() {
    let dir = support::scratch_dir("cli-dup");
    fs::create_dir(dir.join("d")).unwrap();
    let trace = golden("synthetic/inputs/g_rank00000.spt");
    fs::copy(&trace, dir.join("d/run_rank00000.spt")).unwrap();
    fs::copy(&trace, dir.join("dup_rank00000.spt")).unwrap();
    assert_fails_with(
        &sp_in(&dir, &["convert", "d", "dup_rank00000.spt"]),
        "sp: dup_rank00000.spt and d/run_rank00000.spt both claim rank 0; pass the MPI rank \
         to sp_init() so each rank writes its own",
    );
}

#[test]
fn h5_inputs_that_are_not_profiles_are_errors() {
    let dir = support::scratch_dir("cli-not-profile");
    fs::write(dir.join("x.h5"), b"plain text, not HDF5").unwrap();
    let out = sp_in(&dir, &["convert", "x.h5"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("sp: x.h5: not a readable HDF5 file: "),
        "{}",
        stderr(&out)
    );

    // A valid HDF5 file without a single profile object (the reference writes an empty
    // profile from it; sp says what it is).
    let plain = support::repo().join("tests/corpus/types_earliest.h5");
    fs::copy(&plain, dir.join("plain.h5")).unwrap();
    let out = sp_in(&dir, &["convert", "plain.h5"]);
    assert_fails_with(
        &out,
        "sp: plain.h5: not a scope-profiler profile: it has no scope_profiler_schema \
         attribute, no metadata and no rank groups",
    );
}

#[test]
fn merge_refuses_clashing_region_names() {
    let dir = support::scratch_dir("cli-clash");
    let out = sp_in(
        &dir,
        &[
            "convert",
            golden("synthetic/inputs/g_rank00000.spt").to_str().unwrap(),
            "--merge",
            golden("synthetic/expected/golden.h5").to_str().unwrap(),
        ],
    );
    assert_fails_with(
        &out,
        "sp: region \"solve\" appears in more than one result set; merging them would \
         double-count it. Give the regions distinct names (a 'fortran:' prefix, say) before \
         merging.",
    );
}

#[test]
fn failure_leaves_an_existing_output_untouched_and_no_temporary() {
    let dir = support::scratch_dir("cli-atomic");
    fs::write(dir.join("out.h5"), b"previous run").unwrap();
    let good = golden("synthetic/inputs/g_rank00000.spt");
    fs::copy(&good, dir.join("a_rank00000.spt")).unwrap();
    fs::copy(&good, dir.join("b_rank00000.spt")).unwrap();
    let out = sp_in(
        &dir,
        &[
            "convert",
            "a_rank00000.spt",
            "b_rank00000.spt",
            "-o",
            "out.h5",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(fs::read(dir.join("out.h5")).unwrap(), b"previous run");
    assert_eq!(
        entries(&dir),
        ["a_rank00000.spt", "b_rank00000.spt", "out.h5"]
    );

    let out = sp_in(
        &dir,
        &["convert", "a_rank00000.spt", "-o", "missing/out.h5"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("sp: missing/out.h5: cannot create output"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn success_prints_summary_and_path_unless_quiet() {
    let dir = support::scratch_dir("cli-output");
    let input = golden("synthetic/inputs");
    let out = sp_in(&dir, &["convert", input.to_str().unwrap(), "-o", "run.h5"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "region    ranks         calls         total       average"
    );
    assert_eq!(
        lines[1],
        "idle          1             0             -             -"
    );
    assert_eq!(
        lines[2],
        "assemble      1             3      2.100 µs        700 ns"
    );
    assert_eq!(
        lines[3],
        "solve         2             5      3.550 µs        710 ns"
    );
    assert_eq!(
        lines[4],
        "io            1             1        250 ns        250 ns"
    );
    assert_eq!(&lines[5..], ["", "wrote run.h5"]);
    assert!(out.stderr.is_empty());

    let quiet = sp_in(
        &dir,
        &["convert", input.to_str().unwrap(), "-o", "q.h5", "-q"],
    );
    assert_eq!(quiet.status.code(), Some(0));
    assert!(quiet.stdout.is_empty() && quiet.stderr.is_empty());
    assert_eq!(entries(&dir), ["q.h5", "run.h5"]);
}

#[test]
fn closed_stdout_is_not_a_failure() {
    let dir = support::scratch_dir("cli-pipe");
    let input = golden("synthetic/inputs");
    let mut child = support::sp()
        .current_dir(&dir)
        .args(["convert", input.to_str().unwrap(), "-o", "run.h5"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
    assert!(dir.join("run.h5").exists());
}

const SUBCOMMANDS: [&str; 10] = [
    "convert",
    "inspect",
    "export",
    "diff",
    "check",
    "ls",
    "lines",
    "mcp",
    "completions",
    "man",
];

#[test]
fn completions_name_every_subcommand() {
    let dir = support::scratch_dir("cli-completions");
    for shell in ["bash", "zsh", "fish"] {
        let out = sp_in(&dir, &["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}: {}", stderr(&out));
        let script = String::from_utf8_lossy(&out.stdout);
        for sub in SUBCOMMANDS {
            assert!(script.contains(sub), "{shell} completions lack {sub}");
        }
        // Options of the subcommands too, not only their names.
        assert!(script.contains("percentage-mode"), "{shell}");
    }
    assert_eq!(sp_in(&dir, &["completions", "tcsh"]).status.code(), Some(2));
}

#[test]
fn man_page_names_every_subcommand() {
    let dir = support::scratch_dir("cli-man");
    let out = sp_in(&dir, &["man"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let page = String::from_utf8_lossy(&out.stdout);
    assert!(
        page.starts_with(".ie") && page.contains(".TH sp 1"),
        "{page}"
    );
    for sub in SUBCOMMANDS {
        assert!(
            page.contains(&format!("sp\\-{sub}")),
            "man page lacks {sub}"
        );
    }
    let convert = sp_in(&dir, &["man", "convert"]);
    let page = String::from_utf8_lossy(&convert.stdout);
    assert!(
        page.contains(".TH sp-convert 1") && page.contains("\\-\\-merge"),
        "{page}"
    );
    assert_fails_with(&sp_in(&dir, &["man", "nope"]), "sp: no subcommand \"nope\"");
}

/// `sp inspect … | head`: the reader closing the pipe ends sp quietly with status 0.
#[test]
fn inspect_on_a_closed_stdout_is_quiet() {
    let dir = support::scratch_dir("cli-inspect-pipe");
    let profile = golden("mixed/expected/merged.h5");
    let mut child = support::sp()
        .current_dir(&dir)
        .args(["inspect", profile.to_str().unwrap(), "--format", "csv"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
}

#[test]
fn bad_ranks_and_patterns_are_usage_errors() {
    let dir = support::scratch_dir("cli-usage-values");
    let profile = golden("synthetic/expected/golden.h5");
    let out = sp_in(
        &dir,
        &["inspect", profile.to_str().unwrap(), "--ranks", "3-1"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "sp: --ranks: \"3-1\" is not a rank or a range like 0-3\n"
    );
    let out = sp_in(
        &dir,
        &["inspect", profile.to_str().unwrap(), "--include", "("],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("sp: pattern \"(\": "),
        "{}",
        stderr(&out)
    );
}

/// An export that fails half-way leaves no output file behind.
#[test]
fn failed_export_leaves_no_output() {
    let dir = support::scratch_dir("cli-export-atomic");
    // Its calls overlap, so speedscope (which needs them nested) refuses it.
    let profile = golden("chunked/expected/big.h5");
    let out = sp_in(
        &dir,
        &[
            "export",
            "speedscope",
            profile.to_str().unwrap(),
            "-o",
            "out.json",
        ],
    );
    // The error is about the profile read, so it names the profile, not the output.
    assert_fails_with(
        &out,
        &format!(
            "sp: {}: damaged profile: the calls of rank 0 do not nest",
            profile.display()
        ),
    );
    assert!(entries(&dir).is_empty(), "{:?}", entries(&dir));
}
