//! `sp export chrome-trace` holds the same calls (name, rank, start, duration, to the bit)
//! as the reference's chrome-trace export of the same golden profile, and has the Trace
//! Event structure viewers require.

mod support;

use std::process::Command;

use serde_json::Value;

type Slice = (u64, String, u64, u64);

fn slices(doc: &Value) -> Vec<Slice> {
    let events = doc["traceEvents"].as_array().expect("traceEvents array");
    let mut out: Vec<Slice> = events
        .iter()
        .filter(|e| e["ph"] == "X")
        .map(|e| {
            assert_eq!(e["cat"], "scope-profiler");
            assert!(e["tid"].is_u64() && e["args"].is_object(), "{e}");
            (
                e["pid"].as_u64().expect("pid"),
                e["name"].as_str().expect("name").to_string(),
                e["ts"].as_f64().expect("ts").to_bits(),
                e["dur"].as_f64().expect("dur").to_bits(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn chrome_trace_holds_the_reference_calls() {
    let repo = support::repo();
    let cases = [
        ("tests/golden/synthetic/expected/golden.h5", 2),
        ("tests/golden/mixed/expected/merged.h5", 8),
        ("tests/golden/c_trace/expected/profiling_data.h5", 1),
        ("tests/corpus/golden/python_rich_rich.h5", 2),
    ];
    for (name, ranks) in cases {
        let file = repo.join(name);
        let dir = support::scratch_dir(&format!("export-{ranks}-{}", name.len()));
        let rank_args: Vec<String> = (0..ranks).map(|r| r.to_string()).collect();
        support::run_ok(
            Command::new(support::python())
                .args(["-m", "scope_profiler", "export", "chrome-trace"])
                .arg(&file)
                .arg("-o")
                .arg(dir.join("ref"))
                .arg("--ranks")
                .args(&rank_args),
        );
        let reference_path = std::fs::read_dir(dir.join("ref"))
            .expect("reference output dir")
            .filter_map(|e| Some(e.ok()?.path()))
            .find(|p| p.to_string_lossy().ends_with(".json"))
            .expect("reference trace");
        let ours_path = dir.join("ours.json");
        support::run_ok(
            support::sp()
                .args(["export", "chrome-trace"])
                .arg(&file)
                .arg("-o")
                .arg(&ours_path),
        );
        let reference: Value =
            serde_json::from_slice(&std::fs::read(reference_path).expect("read")).expect("json");
        let ours: Value =
            serde_json::from_slice(&std::fs::read(&ours_path).expect("read")).expect("json");
        assert_eq!(ours["displayTimeUnit"], "ms");
        let expected = slices(&reference);
        assert!(!expected.is_empty(), "{name}: reference has no calls");
        assert_eq!(slices(&ours), expected, "{name}");
        // One process_name record per rank.
        let processes = ours["traceEvents"]
            .as_array()
            .expect("events")
            .iter()
            .filter(|e| e["name"] == "process_name")
            .count();
        assert_eq!(processes, ranks, "{name}");
    }
}
