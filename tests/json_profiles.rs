//! The reference's JSON profiles (`scope-profiler export json`, plain and `--gzip`) as
//! inputs: every golden profile and a converted example, exported by the reference, must
//! give `sp inspect`, `sp inspect --flat`, `sp diff` and `sp export plot-data` output
//! byte-identical to the `.h5` it came from. The format is told by content, so the three
//! files are given names of one length and the outputs compared with the name masked.

mod support;

use std::path::{Path, PathBuf};

/// Profiles the reference's JSON must stand in for: columnar, aggregate, GPU/lanes/LIKWID,
/// a region without calls, a gzip-compressed input.
const GOLDEN: &[&str] = &[
    "tests/golden/synthetic/expected/golden.h5",
    "tests/golden/h5_python_agg/inputs/agg.h5",
    "tests/golden/h5_mixed_with_traces/inputs/rich.h5",
    "tests/golden/h5_python_gzip/inputs/auto_gzip.h5",
    "tests/golden/fortran/expected/profiling_data.h5",
];

/// The names the three forms get: one length, so boxes sized by a path are alike.
const H5: &str = "hdf5ab/profile.h5";
const JSON: &str = "json/profile.json";
const GZ: &str = "g/profile.json.gz";

/// Copies `h5` into `dir` as [`H5`] and exports it with the reference as [`JSON`] and [`GZ`].
fn three_forms(dir: &Path, h5: &Path) {
    std::fs::create_dir_all(dir.join("hdf5ab")).expect("mkdir");
    std::fs::copy(h5, dir.join(H5)).expect("copy");
    let module = ["-m", "scope_profiler", "export", "json", H5];
    support::run_python(dir, module.iter().chain(&["-o", "json"]));
    support::run_python(dir, module.iter().chain(&["-o", "g", "--gzip"]));
    for name in [JSON, GZ] {
        assert!(dir.join(name).is_file(), "the reference wrote no {name}");
    }
}

/// `sp ARGS` in `dir`: its stdout with each of the three names masked, and the size on the
/// header line (each form's own file size, as the reference prints it) too.
fn sp_out(dir: &Path, args: &[&str]) -> String {
    let out = support::run_ok(support::sp().current_dir(dir).args(args));
    let mut text = String::from_utf8(out.stdout).expect("utf-8");
    for name in [H5, JSON, GZ] {
        text = text.replace(name, "PROFILE__________");
    }
    text.lines()
        .map(|line| match line.find(" MiB") {
            Some(end) => {
                let start = line[..end].rfind(", ").map_or(0, |i| i + 2);
                format!("{}SIZE{}", &line[..start], &line[end..])
            }
            None => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every command's output for the three forms of `h5`.
fn check_profile(h5: &Path) {
    let stem = h5.file_stem().expect("stem").to_string_lossy().into_owned();
    let dir = support::scratch_dir(&format!("json-profiles-{stem}"));
    three_forms(&dir, h5);
    // `sp inspect FILE OPTIONS…`
    let runs: &[&[&str]] = &[
        &[],
        &["--flat"],
        &["--flat", "--format", "csv"],
        &["--flat", "--from-events"],
        &["--format", "json"],
        &["--columns", "region", "calls", "total", "p95", "imbalance"],
        &["--metadata-only"],
    ];
    for args in runs {
        let expected = sp_out(&dir, &[&["inspect", H5][..], args].concat());
        for other in [JSON, GZ] {
            let got = sp_out(&dir, &[&["inspect", other][..], args].concat());
            assert_eq!(
                got, expected,
                "sp inspect {other} {args:?} differs from the .h5 ({stem})"
            );
        }
    }
    // Both sides read alike: the same comparison as of the .h5 with itself.
    let expected = sp_out(&dir, &["diff", H5, H5]);
    let got = sp_out(&dir, &["diff", JSON, GZ]);
    assert_eq!(got, expected, "sp diff {JSON} {GZ} differs ({stem})");
    // Across the formats, the reference's own text: it sums an .h5's stored totals and a
    // JSON profile's calls, which may differ in the last bit, and sp follows it.
    for (a, b) in [(H5, JSON), (GZ, H5)] {
        let ours = support::run_ok(support::sp().current_dir(&*dir).args(["diff", a, b]));
        let module = ["-m", "scope_profiler", "diff", a, b];
        let reference = support::run_python(&dir, module);
        assert_eq!(
            String::from_utf8_lossy(&ours.stdout),
            String::from_utf8_lossy(&reference.stdout),
            "sp diff {a} {b} differs from the reference's ({stem})"
        );
    }
    // plot-data labels the run by its file stem, as the reference does; the three have
    // the same stem only when named alike, which the content sniffing allows.
    for (name, form) in [("h5", H5), ("json", JSON), ("gz", GZ)] {
        std::fs::create_dir_all(dir.join(name)).expect("mkdir");
        std::fs::copy(dir.join(form), dir.join(name).join("run")).expect("copy");
    }
    let plot_data = |name: &str| {
        let input = format!("{name}/run");
        let output = format!("{name}-data");
        let args = [
            "export",
            "plot-data",
            &input,
            "-o",
            &output,
            "--plots",
            "durations",
        ];
        support::run_ok(support::sp().current_dir(&*dir).args(args));
        std::fs::read(dir.join(output).join("durations_data.csv")).expect("plot-data")
    };
    let expected = plot_data("h5");
    assert_eq!(
        plot_data("json"),
        expected,
        "plot-data of the .json ({stem})"
    );
    assert_eq!(
        plot_data("gz"),
        expected,
        "plot-data of the .json.gz ({stem})"
    );
}

#[test]
fn golden_profiles_read_the_same_as_json() {
    for path in GOLDEN {
        check_profile(&support::repo().join(path));
    }
}

#[test]
fn converted_example_reads_the_same_as_json() {
    let dir = support::scratch_dir("json-profiles-example");
    let example = support::repo().join("examples/c_multirank");
    let h5: PathBuf = dir.join("c_multirank.h5");
    support::sp_convert(&dir, &[&example.to_string_lossy(), "-o", "c_multirank.h5"]);
    check_profile(&h5);
}

#[test]
fn damaged_json_is_one_line_naming_the_file() {
    let dir = support::scratch_dir("json-profiles-damaged");
    let cases: &[(&str, &[u8])] = &[
        (
            "cut.json",
            b"{\"format\": \"scope-profiler-profile\", \"regions\": [{\"name\"",
        ),
        ("other.json", b"{\"traceEvents\": []}"),
        (
            "calls.json",
            b"{\"format\": \"scope-profiler-profile\", \"regions\": [{\"name\": \"a\", \
              \"rank\": 0, \"start_times_ns\": [1, 2], \"end_times_ns\": [3]}]}",
        ),
        (
            "bad.json.gz",
            b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage",
        ),
    ];
    for (name, bytes) in cases {
        std::fs::write(dir.join(name), bytes).expect("write");
        for args in [
            &["inspect", name][..],
            &["diff", name, name],
            &["inspect", "--flat", name],
        ] {
            let out = support::sp()
                .current_dir(&*dir)
                .args(args)
                .output()
                .expect("spawn");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(
                out.status.code(),
                Some(1),
                "{args:?}: {}",
                support::show(&out)
            );
            assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
            assert!(stderr.contains(name), "{args:?} names no file: {stderr}");
            assert!(out.stdout.is_empty(), "{args:?}: {}", support::show(&out));
        }
    }
}

/// `sp report` embeds what the page opens, which is HDF5 only: a JSON profile is refused in
/// one line naming it, before anything is written.
#[test]
fn report_refuses_a_json_profile_by_name() {
    let dir = support::scratch_dir("json-profiles-report");
    std::fs::write(dir.join("page.html"), "<html></html>").expect("page");
    let doc = "{\"format\": \"scope-profiler-profile\", \"format_version\": 1, \"regions\": []}";
    std::fs::write(dir.join("profile.json"), doc).expect("json");
    let args = [
        "report",
        "profile.json",
        "-o",
        "r.html",
        "--page",
        "page.html",
    ];
    let out = support::sp()
        .current_dir(&*dir)
        .args(args)
        .output()
        .expect("spawn");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{}", support::show(&out));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("profile.json") && stderr.contains("JSON profile"),
        "{stderr}"
    );
    assert!(!dir.join("r.html").exists());
}
