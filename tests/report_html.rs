//! `sp report`: a page with the profiles embedded (the page itself is driven in Chromium by
//! `web/e2e/report.test.mjs`). Here: each profile's bytes come back out of the report, as
//! Python's `base64` reads them; and every bad input is one line, with no output left.

mod support;

use std::fs;
use std::path::Path;

const PAGE: &str =
    "<!doctype html><body><p>page</p>\n<!-- sp:embedded -->\n<script>SP.start();</script></body>\n";

fn golden(case: &str) -> std::path::PathBuf {
    let dir = support::repo()
        .join("tests/golden")
        .join(case)
        .join("expected");
    let name = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .find(|n| n.to_string_lossy().ends_with(".h5"))
        .unwrap();
    dir.join(name)
}

fn report(dir: &Path, args: &[&str]) -> std::process::Output {
    support::sp()
        .current_dir(dir)
        .env_remove("SP_PAGE")
        .arg("report")
        .args(args)
        .output()
        .unwrap()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn each_profile_comes_back_out_of_the_report() {
    let dir = support::scratch_dir("report-roundtrip");
    fs::write(dir.join("sp.html"), PAGE).unwrap();
    let a = golden("synthetic");
    let b = golden("merge_zstd");
    let a_s = a.to_str().unwrap();
    let b_s = b.to_str().unwrap();
    let out = report(&dir, &[a_s, b_s, "-o", "r.html", "--page", "sp.html"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let script = r#"
import base64, re, sys
html = open(sys.argv[1], encoding="utf-8").read()
parts = re.findall(r'<script type="application/x-sp-profile" data-name="([^"]*)">([^<]*)</script>', html)
for (name, data), path in zip(parts, sys.argv[2:]):
    assert base64.b64decode(data, validate=True) == open(path, "rb").read(), name
    print(name)
assert html.index("<!-- sp:embedded -->") > html.rindex("x-sp-profile")
assert html.endswith("<script>SP.start();</script></body>\n")
"#;
    let listed = support::run_python(&dir, ["-c", script, "r.html", a_s, b_s]);
    let names = String::from_utf8(listed.stdout).unwrap();
    let a_name = a.file_name().unwrap().to_string_lossy();
    let b_name = b.file_name().unwrap().to_string_lossy();
    assert_eq!(names, format!("{a_name}\n{b_name}\n"));
}

/// `--events never`: each profile's element says so and holds the profile without
/// `/events`, every other object as h5py reads it in the original.
#[test]
fn an_index_only_report_holds_the_profile_without_its_calls() {
    let dir = support::scratch_dir("report-index-only");
    fs::write(dir.join("sp.html"), PAGE).unwrap();
    let profile = golden("h5_gzip_with_traces");
    let profile = profile.to_str().unwrap();
    let args = [
        profile, "-o", "r.html", "--page", "sp.html", "--events", "never",
    ];
    let out = report(&dir, &args);
    assert!(out.status.success(), "{}", stderr(&out));
    let script = r#"
import base64, io, re, sys
import h5py, numpy as np
html = open(sys.argv[1], encoding="utf-8").read()
[(data,)] = [(d,) for d in re.findall(
    r'<script type="application/x-sp-profile" data-name="[^"]*" data-events="omitted">([^<]*)</script>', html)]
copy = h5py.File(io.BytesIO(base64.b64decode(data, validate=True)), "r")
whole = h5py.File(sys.argv[2], "r")
names = []
whole.visit(names.append)
kept = [n for n in names if n != "events" and not n.startswith("events/")]
copied = []
copy.visit(copied.append)
assert sorted(copied) == sorted(kept), (copied, kept)
for n in kept:
    a, b = whole[n], copy[n]
    assert dict(a.attrs).keys() == dict(b.attrs).keys(), n
    if isinstance(a, h5py.Dataset):
        assert a.dtype == b.dtype and a.shape == b.shape, n
        assert np.array_equal(a[()], b[()]), n
assert len(whole["events/durations"]) > 0
print(len(kept))
"#;
    let checked = support::run_python(&dir, ["-c", script, "r.html", profile]);
    let count: usize = String::from_utf8(checked.stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(count > 10, "{count} objects compared");
}

#[test]
fn bad_inputs_are_one_line_and_leave_no_output() {
    let dir = support::scratch_dir("report-bad");
    let profile = golden("synthetic");
    let profile = profile.to_str().unwrap();
    fs::write(dir.join("sp.html"), PAGE).unwrap();
    fs::write(dir.join("other.html"), "<html><body></body></html>").unwrap();
    fs::write(dir.join("notes.txt"), "not a profile").unwrap();
    fs::write(dir.join("kept.html"), "old").unwrap();
    // Over --events auto's 64 MiB (sparse): its index is read, and there is none.
    fs::File::create(dir.join("big.h5"))
        .unwrap()
        .set_len(65 << 20)
        .unwrap();

    let cases: [(&[&str], i32, &str); 4] = [
        (
            &[profile, "-o", "kept.html"],
            2,
            "sp: this sp was built without its page, sp.html: pass --page FILE or set SP_PAGE",
        ),
        (
            &[profile, "-o", "kept.html", "--page", "other.html"],
            1,
            "sp: other.html: not sp's page, or one older than sp report",
        ),
        (
            &["notes.txt", "-o", "kept.html", "--page", "sp.html"],
            1,
            "sp: notes.txt: not a readable HDF5 file",
        ),
        (
            &["big.h5", "-o", "kept.html", "--page", "sp.html"],
            1,
            "sp: big.h5: not a readable HDF5 file",
        ),
    ];
    for (args, code, start) in cases {
        let out = report(&dir, args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
        assert!(err.starts_with(start), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert_eq!(fs::read_to_string(dir.join("kept.html")).unwrap(), "old");
    }
    let mut left = support::listing(&dir);
    left.sort();
    assert_eq!(
        left,
        ["big.h5", "kept.html", "notes.txt", "other.html", "sp.html"]
    );
}
