//! `sp export chrome-trace` holds the same calls (name, rank, start, duration, to the bit)
//! as the reference's chrome-trace export of the same golden profile, and has the Trace
//! Event structure viewers require.

mod support;

use std::process::Command;

use serde_json::Value;

/// pid, tid, name, ts bits, dur bits.
type Slice = (u64, u64, String, u64, u64);

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
                e["tid"].as_u64().expect("tid"),
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
        // One thread_name record per lane, named as the reference names it.
        let lanes = |d: &Value| -> Vec<(Value, Value, Value)> {
            let mut v: Vec<_> = d["traceEvents"]
                .as_array()
                .expect("events")
                .iter()
                .filter(|e| e["name"] == "thread_name")
                .map(|e| {
                    (
                        e["pid"].clone(),
                        e["tid"].clone(),
                        e["args"]["name"].clone(),
                    )
                })
                .collect();
            v.sort_by_key(|t| format!("{t:?}"));
            v
        };
        assert_eq!(lanes(&ours), lanes(&reference), "{name}");
    }
}

/// The golden profiles the exports are compared on, with their rank counts.
const GOLDEN: [(&str, usize); 4] = [
    ("tests/golden/synthetic/expected/golden.h5", 2),
    ("tests/golden/mixed/expected/merged.h5", 8),
    ("tests/golden/c_trace/expected/profiling_data.h5", 1),
    ("tests/corpus/golden/python_rich_rich.h5", 2),
];

/// Runs `scope-profiler export FORMAT` on all `ranks` of `file` and parses the one file written.
fn reference_export(
    format: &str,
    file: &std::path::Path,
    ranks: usize,
    dir: &std::path::Path,
) -> Value {
    let rank_args: Vec<String> = (0..ranks).map(|r| r.to_string()).collect();
    support::run_ok(
        Command::new(support::python())
            .args(["-m", "scope_profiler", "export", format])
            .arg(file)
            .arg("-o")
            .arg(dir.join("ref"))
            .arg("--ranks")
            .args(&rank_args),
    );
    let path = std::fs::read_dir(dir.join("ref"))
        .expect("reference output dir")
        .filter_map(|e| Some(e.ok()?.path()))
        .find(|p| p.to_string_lossy().ends_with(".json"))
        .expect("reference export");
    serde_json::from_slice(&std::fs::read(path).expect("read")).expect("json")
}

/// Runs `sp export FORMAT FILE` (all ranks) and parses the output.
fn our_export(format: &str, file: &std::path::Path, dir: &std::path::Path) -> Value {
    let out = dir.join("ours.json");
    support::run_ok(
        support::sp()
            .args(["export", format])
            .arg(file)
            .arg("-o")
            .arg(&out),
    );
    serde_json::from_slice(&std::fs::read(&out).expect("read")).expect("json")
}

/// Checks a document against speedscope's file-format schema
/// (`https://www.speedscope.app/file-format-schema.json`), written out field by field for
/// the evented profiles we produce, plus the rules the viewer enforces: balanced open/close
/// events, in time order, frames closed in stack order.
fn assert_speedscope_schema(doc: &Value) {
    let top = doc.as_object().expect("document object");
    for key in top.keys() {
        assert!(
            [
                "$schema",
                "exporter",
                "name",
                "activeProfileIndex",
                "shared",
                "profiles"
            ]
            .contains(&key.as_str()),
            "unknown top-level key {key}"
        );
    }
    assert_eq!(
        doc["$schema"],
        "https://www.speedscope.app/file-format-schema.json"
    );
    assert!(doc["exporter"].is_string() && doc["name"].is_string());
    let frames = doc["shared"]["frames"].as_array().expect("shared.frames");
    for f in frames {
        let f = f.as_object().expect("frame object");
        assert!(f["name"].is_string(), "{f:?}");
        for (k, v) in f {
            match k.as_str() {
                "name" | "file" => assert!(v.is_string(), "{k}: {v}"),
                "line" | "col" => assert!(v.is_number(), "{k}: {v}"),
                _ => panic!("unknown frame key {k}"),
            }
        }
    }
    let profiles = doc["profiles"].as_array().expect("profiles");
    let active = doc["activeProfileIndex"]
        .as_u64()
        .expect("activeProfileIndex");
    assert!((active as usize) < profiles.len().max(1));
    for p in profiles {
        assert_eq!(p["type"], "evented");
        assert!(p["name"].is_string());
        assert!([
            "none",
            "nanoseconds",
            "microseconds",
            "milliseconds",
            "seconds",
            "bytes"
        ]
        .contains(&p["unit"].as_str().expect("unit")));
        let start = p["startValue"].as_f64().expect("startValue");
        let end = p["endValue"].as_f64().expect("endValue");
        let mut stack: Vec<u64> = Vec::new();
        let mut last = f64::NEG_INFINITY;
        for e in p["events"].as_array().expect("events") {
            assert_eq!(e.as_object().expect("event").len(), 3, "{e}");
            let at = e["at"].as_f64().expect("at");
            let frame = e["frame"].as_u64().expect("frame");
            assert!((frame as usize) < frames.len(), "{e}");
            assert!(at >= last && at >= start && at <= end, "{e}");
            last = at;
            match e["type"].as_str().expect("type") {
                "O" => stack.push(frame),
                "C" => assert_eq!(stack.pop(), Some(frame), "{e}"),
                other => panic!("event type {other}"),
            }
        }
        assert!(stack.is_empty(), "unclosed frames in {}", p["name"]);
    }
}

/// One speedscope event: type, frame name, time bits.
type Event = (String, String, u64);

/// Per profile: its name and its events.
fn speedscope_calls(doc: &Value) -> Vec<(String, Vec<Event>)> {
    let frames = doc["shared"]["frames"].as_array().expect("frames");
    doc["profiles"]
        .as_array()
        .expect("profiles")
        .iter()
        .map(|p| {
            let events = p["events"]
                .as_array()
                .expect("events")
                .iter()
                .map(|e| {
                    let frame = &frames[e["frame"].as_u64().expect("frame") as usize];
                    (
                        e["type"].as_str().expect("type").to_string(),
                        frame["name"].as_str().expect("name").to_string(),
                        e["at"].as_f64().expect("at").to_bits(),
                    )
                })
                .collect();
            (p["name"].as_str().expect("name").to_string(), events)
        })
        .collect()
}

#[test]
fn speedscope_holds_the_reference_calls_and_follows_the_schema() {
    let repo = support::repo();
    for (name, ranks) in GOLDEN {
        let file = repo.join(name);
        let dir = support::scratch_dir(&format!("speedscope-{ranks}-{}", name.len()));
        let reference = reference_export("speedscope", &file, ranks, &dir);
        let ours = our_export("speedscope", &file, &dir);
        assert_speedscope_schema(&reference);
        assert_speedscope_schema(&ours);
        let expected = speedscope_calls(&reference);
        assert!(!expected.is_empty(), "{name}: reference has no profiles");
        assert_eq!(speedscope_calls(&ours), expected, "{name}");
        for key in ["startValue", "endValue"] {
            let values = |d: &Value| -> Vec<u64> {
                d["profiles"]
                    .as_array()
                    .expect("profiles")
                    .iter()
                    .map(|p| p[key].as_f64().expect("value").to_bits())
                    .collect()
            };
            assert_eq!(values(&ours), values(&reference), "{name} {key}");
        }
        // Frames: the same names in the same order; ours add the source location.
        let frame_names = |d: &Value| -> Vec<Value> {
            d["shared"]["frames"]
                .as_array()
                .expect("frames")
                .iter()
                .map(|f| f["name"].clone())
                .collect()
        };
        assert_eq!(frame_names(&ours), frame_names(&reference), "{name}");
        // The document's keys in the reference's order: the frames before the profiles.
        let keys = |d: &Value| -> Vec<String> {
            d.as_object().expect("document").keys().cloned().collect()
        };
        assert_eq!(keys(&ours), keys(&reference), "{name}");
    }
}

/// The region-row fields `sp export json` writes; the reference writes a few more
/// (call/parent ids, await times, tags, source text).
const JSON_ROW_FIELDS: [&str; 11] = [
    "name",
    "rank",
    "source_file",
    "source_lineno",
    "start_times_ns",
    "end_times_ns",
    "gpu_durations_ns",
    "thread_ids",
    "task_ids",
    "exclusive_total_ns",
    "aggregate",
];

#[test]
fn json_equals_the_reference_document() {
    let repo = support::repo();
    let cases = [
        ("tests/golden/synthetic/expected/golden.h5", 2),
        ("tests/golden/mixed/expected/merged.h5", 8),
        ("tests/golden/c_trace/expected/profiling_data.h5", 1),
        ("tests/golden/fortran/expected/profiling_data.h5", 1),
        ("tests/golden/merge_agg/expected/combined.h5", 6),
        ("tests/corpus/golden/python_agg_agg.h5", 1),
        ("tests/corpus/golden/python_rich_rich.h5", 2),
    ];
    for (name, ranks) in cases {
        let file = repo.join(name);
        let dir = support::scratch_dir(&format!("json-{ranks}-{}", name.len()));
        let reference = reference_export("json", &file, ranks, &dir);
        let ours = our_export("json", &file, &dir);
        for key in [
            "format",
            "format_version",
            "time_unit",
            "num_ranks",
            "event_data_available",
            "metadata",
        ] {
            assert_eq!(ours[key], reference[key], "{name}: {key}");
        }
        let rows = |d: &Value| -> Vec<Value> {
            d["regions"]
                .as_array()
                .expect("regions")
                .iter()
                .map(|r| {
                    let kept: serde_json::Map<String, Value> = r
                        .as_object()
                        .expect("row")
                        .iter()
                        .filter(|(k, _)| JSON_ROW_FIELDS.contains(&k.as_str()))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect();
                    Value::Object(kept)
                })
                .collect()
        };
        let expected = rows(&reference);
        assert!(!expected.is_empty(), "{name}");
        assert_eq!(rows(&ours), expected, "{name}");
        // Lane tables: the fields we write, value for value.
        for (table, fields) in [
            ("threads", &["index", "name", "ident", "native_id"][..]),
            ("tasks", &["index", "name", "coro_name", "thread_index"][..]),
        ] {
            let pick = |d: &Value| -> Value {
                let Some(by_rank) = d[table].as_object() else {
                    return Value::Null;
                };
                by_rank
                    .iter()
                    .map(|(rank, list)| {
                        let list: Vec<Value> = list
                            .as_array()
                            .expect("lane list")
                            .iter()
                            .map(|row| fields.iter().map(|f| row[*f].clone()).collect())
                            .collect();
                        (rank.clone(), Value::Array(list))
                    })
                    .collect()
            };
            assert_eq!(pick(&ours), pick(&reference), "{name}: {table}");
        }
    }
}

/// A byte source that records every read, to prove exports read row by row.
struct CountingReader {
    bytes: Vec<u8>,
    largest: std::cell::Cell<usize>,
    total: std::cell::Cell<u64>,
}

impl sp::io::ReadAt for CountingReader {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        self.largest.set(self.largest.get().max(buf.len()));
        self.total.set(self.total.get() + buf.len() as u64);
        self.bytes.as_slice().read_exact_at(offset, buf)
    }
}

#[test]
fn exports_stream_row_by_row() {
    use sp::analysis::{export, load, Loaded, Selection};
    use sp::hdf5lite::reader::File;
    use sp::schema::Lanes;
    use sp::schema::{EventReader, Profile};

    // 8503 calls in chunks of 1024 events (8 KiB), 68 KiB per event column.
    let path = support::repo().join("tests/golden/chunked/expected/big.h5");
    let bytes = std::fs::read(&path).expect("read golden");
    let whole = File::open(bytes.as_slice()).expect("open");
    let loaded = load::read_full(&whole).expect("read");
    let lanes = Lanes::read(&whole).expect("lanes");
    type Exporter = fn(
        &Profile,
        &dyn sp::analysis::RowSource,
        &Lanes,
        &mut Vec<u8>,
    ) -> sp::analysis::Result<()>;
    let formats: [(&str, Exporter); 3] = [
        ("chrome-trace", |p, s, l, o| {
            export::chrome_trace(p, s, l, &Selection::all(), "big", o)
        }),
        ("speedscope", |p, s, l, o| {
            export::speedscope(p, s, l, &Selection::all(), "big", o)
        }),
        ("json", |p, s, l, o| {
            export::json(p, s, l, &Selection::all(), o)
        }),
    ];
    for (format, run) in formats {
        let counting = CountingReader {
            bytes: bytes.clone(),
            largest: 0.into(),
            total: 0.into(),
        };
        let file = File::open(&counting).expect("open");
        let index = load::read_index(&file).expect("index");
        assert!(index
            .regions
            .iter()
            .all(|r| r.ranks.iter().all(|c| c.starts.is_empty())));
        let reader = EventReader::open(&file)
            .expect("events")
            .expect("has events");
        counting.largest.set(0);
        let mut streamed = Vec::new();
        let streamed_result =
            run(&index, &reader, &lanes, &mut streamed).map_err(|e| e.to_string());
        // No read spans more than the chunks of one row (the reader merges a row's
        // adjacent chunks into one read): the largest row, 8503 calls, lies in 9 chunks.
        assert!(
            counting.largest.get() <= 9 * 8192,
            "{format}: a read of {} bytes",
            counting.largest.get()
        );
        // And the result equals the export of the profile read whole.
        // (The generated calls overlap, so speedscope, which needs them nested, refuses both.)
        let mut in_memory = Vec::new();
        let memory_result =
            run(&loaded, &Loaded, &lanes, &mut in_memory).map_err(|e| e.to_string());
        let expected = if format == "speedscope" {
            Err("damaged profile: the calls of rank 0 do not nest".to_string())
        } else {
            Ok(())
        };
        assert_eq!(streamed_result, expected, "{format}");
        assert_eq!(memory_result, expected, "{format}");
        assert_eq!(streamed, in_memory, "{format}");
    }
}
