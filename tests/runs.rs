//! `sp runs` against the reference's runs table (`report_model.runs_table_model`, what
//! `scope-profiler report` shows for many files): label, host, start, ranks, threads, wall
//! time and its change, on the MPI scaling series and golden profiles of other makers; and
//! the table's failure modes (a damaged file among many, --strict, --group-by).

mod support;

use serde_json::Value;

const FILES: [&str; 6] = [
    "tests/golden/scaling/strong/ranks1.h5",
    "tests/golden/scaling/strong/ranks2.h5",
    "tests/golden/scaling/strong/ranks4.h5",
    "tests/golden/h5_lzf_with_traces/expected/lzf_with_traces.h5",
    "tests/golden/h5_python_rich/expected/rich_import.h5",
    "tests/golden/h5_c_schema2/expected/profiling_data.h5",
];

fn sp_json(args: &[&str]) -> (Value, String, i32) {
    let out = support::sp()
        .current_dir(support::repo())
        .args(args)
        .output()
        .expect("run sp");
    let doc = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (doc, stderr, out.status.code().unwrap_or(-1))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
}

#[test]
fn runs_table_matches_the_reference() {
    let mut args = vec!["tests/runs/reference_runs.py"];
    args.extend(FILES);
    let out = support::run_python(&support::repo(), &args);
    let expected: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let mut ours = vec!["runs", "--format", "json"];
    ours.extend(FILES);
    let (doc, stderr, code) = sp_json(&ours);
    assert_eq!(code, 0, "{stderr}");
    let rows = doc["runs"].as_array().unwrap();
    assert_eq!(rows.len(), expected.len());
    for (ours, theirs) in rows.iter().zip(&expected) {
        for key in ["label", "host", "start", "ranks", "threads"] {
            assert_eq!(ours[key], theirs[key], "{key} of {}", ours["file"]);
        }
        assert!(close(
            ours["wall"].as_f64().unwrap(),
            theirs["wall"].as_f64().unwrap()
        ));
        match (ours["wall_pct"].as_f64(), theirs["pct"].as_f64()) {
            (Some(a), Some(b)) => assert!(close(a, b), "{a} {b}"),
            (a, b) => assert_eq!(a, b),
        }
    }
}

#[test]
fn a_damaged_profile_is_named_and_the_rest_tabulated() {
    let dir = support::scratch_dir("runs_damaged");
    let bad = dir.join("bad.h5");
    std::fs::write(&bad, b"not an hdf5 file at all").unwrap();
    let bad = bad.to_str().unwrap();
    let (doc, stderr, code) = sp_json(&["runs", "--format", "json", FILES[0], bad, FILES[1]]);
    assert_eq!(code, 0);
    assert!(stderr.contains("bad.h5"), "{stderr}");
    assert_eq!(doc["runs"].as_array().unwrap().len(), 2);
    assert_eq!(doc["failed"][0]["file"], bad);
    let (_, stderr, code) = sp_json(&["runs", "--strict", FILES[0], bad]);
    assert_eq!(code, 1);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("bad.h5"), "{stderr}");
}

#[test]
fn group_by_pools_repeated_runs() {
    let (doc, stderr, code) = sp_json(&[
        "runs",
        "tests/golden/scaling/strong",
        "tests/golden/scaling/strong/ranks1.h5",
        "--format",
        "json",
        "--group-by",
        "label",
        "--region",
        "compute",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let groups = doc["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 3);
    assert_eq!(groups[0]["label"], "strong-1");
    assert_eq!(groups[0]["runs"], 2);
    assert_eq!(groups[0]["wall cv"], 0.0);
    assert_eq!(groups[1]["wall cv"], Value::Null);
    assert_eq!(
        groups[0]["compute total mean"],
        groups[0]["compute total min"]
    );
    let out = support::sp()
        .current_dir(support::repo())
        .args(["runs", "--format", "csv", "tests/golden/scaling/weak"])
        .output()
        .unwrap();
    let csv = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        csv.lines().count(),
        4,
        "one line per run and the header: {csv}"
    );
    assert!(csv.starts_with("file,label,host,start,ranks,nodes,threads,cores,wall,wall_pct\n"));
}

/// `sp runs --changes 5` against the reference's "What changed" (`report_model.
/// candidate_model`): for each run after the first, the wall-time speed and the own-time
/// improvements and regressions, in order, with their deltas.
#[test]
fn what_changed_matches_the_reference() {
    let sets: [&[&str]; 2] = [
        &[
            "tests/golden/c_trace/expected/profiling_data.h5",
            "tests/golden/fortran/expected/profiling_data.h5",
            "tests/golden/scaling/strong/ranks1.h5",
        ],
        &[
            "tests/golden/scaling/strong/ranks1.h5",
            "tests/golden/scaling/strong/ranks2.h5",
            "tests/golden/scaling/strong/ranks4.h5",
            "tests/golden/scaling/weak/ranks4.h5",
        ],
    ];
    for files in sets {
        let mut args = vec!["tests/runs/reference_changes.py"];
        args.extend(files);
        let out = support::run_python(&support::repo(), &args);
        let expected: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
        let mut ours = vec!["runs", "--changes", "5", "--format", "json"];
        ours.extend(files);
        let (doc, stderr, code) = sp_json(&ours);
        assert_eq!(code, 0, "{stderr}");
        let changes = doc["changes"].as_array().unwrap();
        assert_eq!(changes.len(), expected.len());
        for (o, t) in changes.iter().zip(&expected) {
            assert_eq!(o["speed"], t["speed"], "{}", o["file"]);
            let (a, b) = (
                o["wall_pct"].as_f64().unwrap(),
                t["wall_pct"].as_f64().unwrap(),
            );
            assert!(close(a, b), "{a} {b}");
            for key in ["improvements", "regressions"] {
                let (o, t) = (o[key].as_array().unwrap(), t[key].as_array().unwrap());
                let names =
                    |v: &[Value], f: &dyn Fn(&Value) -> Value| v.iter().map(f).collect::<Vec<_>>();
                assert_eq!(
                    names(o, &|c| c["region"].clone()),
                    names(t, &|c| c[0].clone()),
                    "{key} of {files:?}"
                );
                for (o, t) in o.iter().zip(t) {
                    let (a, b) = (o["delta"].as_f64().unwrap(), t[1].as_f64().unwrap());
                    assert!(
                        (a - b).abs() <= 1e-9 * b.abs(),
                        "{key} {}: {a} vs {b}",
                        t[0]
                    );
                }
            }
        }
    }
    // The text names the changes under the table.
    let out = support::sp()
        .current_dir(support::repo())
        .args(["runs", "--changes", "3"])
        .args(sets[0])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("What changed (own time, against profiling_data):"),
        "{text}"
    );
    assert!(text.contains("slower: fib_call +"), "{text}");
}
