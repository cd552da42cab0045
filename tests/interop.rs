//! Differential tests of `sp convert` against the reference `scope-profiler import-native`.
//!
//! Real traces come from the C and Fortran APIs the reference ships (built and run by
//! `tests/interop/build_native.sh`, once per test process). For each input set both tools
//! convert the same inputs; the outputs must have identical HDF5 content
//! (`tests/interop/h5content.py compare`), read identically through `scope_profiler.read_h5`
//! and `read_h5_summary` (`tests/interop/check_read_h5.py`), and ours must be read by
//! `h5dump` and `h5ls -r` without a warning.
//!
//! Needs the environment `scripts/setup-env.sh` installs: a python with scope-profiler
//! 0.7.5 and h5py (`$SP_PYTHON`, else `<repo>/.venv/bin/python`), h5dump/h5ls, a C
//! compiler, gfortran and libhdf5. Missing pieces fail the tests; nothing is skipped.
//!
//! `SP_INTEROP_OURS=reference` makes the reference stand in for `sp` (a self-check of the
//! harness: every case must then pass).

mod support;

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use support::SETUP_HINT;

/// What every test shares: the interpreter and the directory of built native traces.
struct Harness {
    python: PathBuf,
    native: PathBuf,
    work: PathBuf,
}

fn repo() -> PathBuf {
    support::repo()
}

fn script(name: &str) -> PathBuf {
    repo().join("tests").join("interop").join(name)
}

fn run(cmd: &mut Command) -> Output {
    match cmd.output() {
        Ok(out) => out,
        Err(err) => panic!("cannot run {cmd:?}: {err} ({SETUP_HINT})"),
    }
}

fn find_tool(name: &str) -> Result<(), String> {
    match Command::new(name).arg("--version").output() {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(format!(
            "{name} --version failed: {SETUP_HINT}\n{}",
            support::show(&out)
        )),
        Err(err) => Err(format!("no {name} on PATH: {err}: {SETUP_HINT}")),
    }
}

fn setup() -> Result<Harness, String> {
    let python = support::python();
    find_tool("h5dump")?;
    find_tool("h5ls")?;
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("interop");
    if root.exists() {
        fs::remove_dir_all(&root).map_err(|e| format!("cannot clear {}: {e}", root.display()))?;
    }
    let native = root.join("native");
    let work = root.join("cases");
    fs::create_dir_all(&work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let out = Command::new("bash")
        .arg(script("build_native.sh"))
        .arg(&native)
        .env("SP_PYTHON", &python)
        .output()
        .map_err(|e| format!("cannot run build_native.sh: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "build_native.sh failed ({SETUP_HINT}?)\n{}",
            support::show(&out)
        ));
    }
    Ok(Harness {
        python,
        native,
        work,
    })
}

fn harness() -> &'static Harness {
    static HARNESS: OnceLock<Result<Harness, String>> = OnceLock::new();
    match HARNESS.get_or_init(setup) {
        Ok(h) => h,
        Err(msg) => panic!("{msg}"),
    }
}

impl Harness {
    /// A fresh, empty directory for one case.
    fn case_dir(&self, name: &str, sub: &str) -> PathBuf {
        let dir = self.work.join(name).join(sub);
        if dir.exists() {
            fs::remove_dir_all(&dir).unwrap_or_else(|e| panic!("clear {}: {e}", dir.display()));
        }
        fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("create {}: {e}", dir.display()));
        dir
    }

    fn inputs(&self, rel: &[&str]) -> Vec<PathBuf> {
        rel.iter().map(|r| self.native.join(r)).collect()
    }

    /// `scope-profiler import-native INPUTS -o OUTPUT -q EXTRA`.
    fn reference(&self, inputs: &[PathBuf], output: &Path, extra: &[&str]) -> Output {
        run(Command::new(&self.python)
            .args(["-m", "scope_profiler", "import-native"])
            .args(inputs)
            .arg("-o")
            .arg(output)
            .arg("-q")
            .args(extra))
    }

    /// `sp convert INPUTS -o OUTPUT -q EXTRA` (or the reference, as a harness self-check).
    fn ours(&self, inputs: &[PathBuf], output: &Path, extra: &[&str]) -> Output {
        if std::env::var("SP_INTEROP_OURS").as_deref() == Ok("reference") {
            return self.reference(inputs, output, extra);
        }
        run(support::sp()
            .arg("convert")
            .args(inputs)
            .arg("-o")
            .arg(output)
            .arg("-q")
            .args(extra))
    }

    fn py_script(&self, name: &str, args: &[&OsStr]) -> Output {
        run(Command::new(&self.python)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .arg(script(name))
            .args(args))
    }

    /// `h5content.py compare A B`.
    fn content_compare(&self, a: &Path, b: &Path) -> Output {
        self.py_script(
            "h5content.py",
            &["compare".as_ref(), a.as_ref(), b.as_ref()],
        )
    }

    /// `check_read_h5.py OURS REF`.
    fn read_compare(&self, ours: &Path, reference: &Path) -> Output {
        self.py_script("check_read_h5.py", &[ours.as_ref(), reference.as_ref()])
    }
}

/// Converts `rel_inputs` (relative to the native directory) with both tools and asserts
/// that the outputs are equal in content and as read by the package, and that ours reads
/// cleanly with h5dump and h5ls. Both outputs are named `out.h5` so the default label
/// (the output's stem) is the same.
fn check_case(name: &str, rel_inputs: &[&str], extra: &[&str]) {
    let h = harness();
    let inputs = h.inputs(rel_inputs);
    let ref_out = h.case_dir(name, "ref").join("out.h5");
    let our_out = h.case_dir(name, "ours").join("out.h5");

    let r = h.reference(&inputs, &ref_out, extra);
    assert!(
        r.status.success(),
        "reference import-native failed on {name}\n{}",
        support::show(&r)
    );
    let o = h.ours(&inputs, &our_out, extra);
    assert!(
        o.status.success(),
        "sp convert failed on {name}\n{}",
        support::show(&o)
    );
    assert!(
        our_out.is_file(),
        "sp convert wrote no {}",
        our_out.display()
    );
    assert!(
        o.stdout.is_empty() && o.stderr.is_empty(),
        "sp convert -q printed something\n{}",
        support::show(&o)
    );

    let c = h.content_compare(&our_out, &ref_out);
    assert_eq!(
        c.status.code(),
        Some(0),
        "HDF5 content differs on {name}\n{}",
        support::show(&c)
    );

    let c = h.read_compare(&our_out, &ref_out);
    assert_eq!(
        c.status.code(),
        Some(0),
        "read_h5 results differ on {name}\n{}",
        support::show(&c)
    );

    for tool in [&["h5dump"][..], &["h5ls", "-r"][..]] {
        let out = run(Command::new(tool[0]).args(&tool[1..]).arg(&our_out));
        assert!(
            out.status.success() && out.stderr.is_empty(),
            "{} on our output of {name} complained\n{}",
            tool.join(" "),
            support::show(&out)
        );
        assert!(
            !out.stdout.is_empty(),
            "{} printed nothing for {name}",
            tool.join(" ")
        );
    }
}

// ---------------------------------------------------------------------------------------
// The harness itself: these run on every branch.

#[test]
fn native_traces_are_built() {
    let h = harness();
    for (dir, count, suffix) in [
        ("c", 4, ".spt"),
        ("fortran", 3, ".spt"),
        ("c_hdf5", 3, ".h5"),
        ("mixed", 5, ".spt"),
    ] {
        let mut names: Vec<String> = fs::read_dir(h.native.join(dir))
            .unwrap_or_else(|e| panic!("read {dir}: {e}"))
            .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
            .collect::<Result<_, _>>()
            .unwrap_or_else(|e| panic!("read {dir}: {e}"));
        names.sort();
        assert_eq!(names.len(), count, "{dir}: {names:?}");
        assert!(
            names.iter().all(|n| n.ends_with(suffix)),
            "{dir}: {names:?}"
        );
    }
    // Every trace the drivers and examples write is version 2, little-endian.
    let trace = fs::read(h.native.join("fortran").join("run_rank00002.spt")).unwrap_or_default();
    assert_eq!(trace.get(..12), Some(&b"SCOPEPRF\x02\x00\x00\x00"[..]));
    assert_eq!(
        trace.get(12..16),
        Some(&2i32.to_le_bytes()[..]),
        "rank field"
    );
}

#[test]
fn comparisons_detect_altered_files() {
    let h = harness();
    let dir = h.case_dir("selftest", "ref");
    let reference = dir.join("out.h5");
    let r = h.reference(&h.inputs(&["mixed"]), &reference, &[]);
    assert!(
        r.status.success(),
        "reference import-native failed\n{}",
        support::show(&r)
    );
    let altered = h.case_dir("selftest", "altered");
    let out = h.py_script("selftest.py", &[reference.as_ref(), altered.as_ref()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "comparison self-test\n{}",
        support::show(&out)
    );
    // And the command-line exit status of a real difference: C rank 0 vs Fortran rank 0.
    let c_out = h.case_dir("selftest", "c").join("out.h5");
    let f_out = h.case_dir("selftest", "f").join("out.h5");
    for (inputs, out) in [
        (&["c/run_rank00000.spt"], &c_out),
        (&["fortran/run_rank00000.spt"], &f_out),
    ] {
        let r = h.reference(&h.inputs(inputs), out, &[]);
        assert!(r.status.success(), "{}", support::show(&r));
    }
    let out = h.content_compare(&c_out, &f_out);
    assert_eq!(
        out.status.code(),
        Some(1),
        "h5content.py compare\n{}",
        support::show(&out)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("  /rank_region_index/event_counts: "),
        "{text}"
    );
    let out = h.read_compare(&c_out, &f_out);
    assert_eq!(
        out.status.code(),
        Some(1),
        "check_read_h5.py\n{}",
        support::show(&out)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("read_h5['region_names']"), "{text}");
}

// ---------------------------------------------------------------------------------------
// `sp convert` against the reference. `SP_INTEROP_OURS=reference cargo test --test interop`
// checks that the harness passes when both sides are the reference.

#[test]
fn shipped_c_example() {
    check_case("shipped_c", &["example_c/profile_rank00000.spt"], &[]);
}

#[test]
fn shipped_fortran_example() {
    check_case("shipped_fortran", &["example_fortran"], &[]);
}

#[test]
fn c_four_ranks_directory() {
    check_case("c_dir", &["c"], &[]);
}

#[test]
fn c_ranks_as_files_in_reverse_order_with_label() {
    check_case(
        "c_files",
        &[
            "c/run_rank00003.spt",
            "c/run_rank00001.spt",
            "c/run_rank00002.spt",
            "c/run_rank00000.spt",
        ],
        &["--label", "C ranks \u{2713}"],
    );
}

#[test]
fn fortran_three_ranks_directory() {
    check_case("fortran_dir", &["fortran"], &[]);
}

#[test]
fn c_and_fortran_ranks_in_one_directory() {
    check_case("mixed", &["mixed"], &[]);
}

#[test]
fn directory_and_file_arguments_together() {
    check_case(
        "dir_and_files",
        &["fortran", "c/run_rank00003.spt"],
        &["--label", ""],
    );
}

#[test]
fn same_inputs_give_identical_bytes() {
    let h = harness();
    let inputs = h.inputs(&["mixed"]);
    let first = h.case_dir("determinism", "first").join("out.h5");
    let second = h.case_dir("determinism", "second").join("out.h5");
    for out in [&first, &second] {
        let o = h.ours(&inputs, out, &[]);
        assert!(
            o.status.success(),
            "sp convert failed\n{}",
            support::show(&o)
        );
    }
    let a = fs::read(&first).unwrap_or_else(|e| panic!("read {}: {e}", first.display()));
    let b = fs::read(&second).unwrap_or_else(|e| panic!("read {}: {e}", second.display()));
    assert!(!a.is_empty());
    assert!(
        a == b,
        "two conversions of the same inputs differ ({} vs {} bytes)",
        a.len(),
        b.len()
    );
}

#[test]
fn duplicate_rank_fails_like_reference() {
    let h = harness();
    // Rank 0 from both the C and the Fortran driver.
    let inputs = h.inputs(&["c/run_rank00000.spt", "fortran/run_rank00000.spt"]);
    let ref_out = h.case_dir("dup_rank", "ref").join("out.h5");
    let our_out = h.case_dir("dup_rank", "ours").join("out.h5");
    let r = h.reference(&inputs, &ref_out, &[]);
    assert_eq!(r.status.code(), Some(1), "{}", support::show(&r));
    let o = h.ours(&inputs, &our_out, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", support::show(&o));
    assert!(!ref_out.exists() && !our_out.exists());
    for dir in [ref_out.parent(), our_out.parent()].into_iter().flatten() {
        let left = fs::read_dir(dir).map(|d| d.count()).unwrap_or(usize::MAX);
        assert_eq!(left, 0, "files left behind in {}", dir.display());
    }
}

// Per-rank `.h5` inputs (the C library built with SP_HDF5=1) need the HDF5 reader.

#[test]
fn shipped_c_hdf5_example() {
    check_case(
        "shipped_c_hdf5",
        &["example_c_hdf5/profile_rank00000.h5"],
        &[],
    );
}

#[test]
fn c_hdf5_three_ranks_directory() {
    check_case("c_hdf5_dir", &["c_hdf5"], &[]);
}

#[test]
fn h5_and_trace_ranks_in_one_directory() {
    check_case("mixed_h5", &["mixed_h5"], &[]);
}

// `sp convert --compress`: the reference converts uncompressed (import-native has no such
// option); the content must still be identical, and our file chunked with shuffle + gzip.

fn check_compressed_case(name: &str, rel_inputs: &[&str], level: &str) {
    let h = harness();
    let inputs = h.inputs(rel_inputs);
    let ref_out = h.case_dir(name, "ref").join("out.h5");
    let our_out = h.case_dir(name, "ours").join("out.h5");
    let r = h.reference(&inputs, &ref_out, &[]);
    assert!(
        r.status.success(),
        "reference failed on {name}\n{}",
        support::show(&r)
    );
    let o = h.ours(&inputs, &our_out, &[level]);
    assert!(
        o.status.success(),
        "sp convert {level} failed on {name}\n{}",
        support::show(&o)
    );

    let c = h.content_compare(&our_out, &ref_out);
    assert_eq!(
        c.status.code(),
        Some(0),
        "content differs on {name}\n{}",
        support::show(&c)
    );
    let c = h.read_compare(&our_out, &ref_out);
    assert_eq!(
        c.status.code(),
        Some(0),
        "read_h5 differs on {name}\n{}",
        support::show(&c)
    );
    support::assert_same_content_by_our_reader(&our_out, &ref_out);
    for tool in [&["h5dump"][..], &["h5ls", "-r"][..]] {
        let out = run(Command::new(tool[0]).args(&tool[1..]).arg(&our_out));
        assert!(
            out.status.success() && out.stderr.is_empty() && !out.stdout.is_empty(),
            "{} on our compressed output of {name} complained\n{}",
            tool.join(" "),
            support::show(&out)
        );
    }
    let listing = run(Command::new("h5ls")
        .arg("-v")
        .arg(format!("{}/events/durations", our_out.display())));
    let text = String::from_utf8_lossy(&listing.stdout);
    let digits: String = level.chars().filter(char::is_ascii_digit).collect();
    let want = format!(
        "deflate-1 OPT {{{}}}",
        if digits.is_empty() { "4" } else { &digits }
    );
    assert!(
        text.contains("shuffle-2 OPT {8}") && text.contains(&want),
        "durations are not shuffled and deflated ({want}):\n{text}"
    );
}

#[test]
fn compressed_c_and_fortran_ranks() {
    check_compressed_case("compress_mixed", &["mixed"], "--compress");
}

#[test]
fn compressed_h5_and_trace_ranks_at_level_9() {
    check_compressed_case("compress_mixed_h5", &["mixed_h5"], "--compress=9");
}
