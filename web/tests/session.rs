//! The page's requests answered natively, over golden files held in memory: what each kind
//! of file opens as, the error sentences, and the rows of the index and of the call tree.

mod support;

use serde_json::{json, Value as Json};
use sp::analysis::{load, region_rows, RowOptions, Selection};
use sp::hdf5lite::reader::File;
use sp::schema::Profile;
use sp_web::source::Bytes;
use sp_web::Session;
use support::{ask, golden};

#[test]
fn a_profile_opens_from_its_index_then_reads_its_tree() {
    let path = "tests/golden/mixed/expected/merged.h5";
    let bytes = golden(path);
    let size = bytes.len() as u64;
    let mut s = Session::default();
    let info = s
        .open("merged.h5".into(), Bytes::Memory(bytes.clone()), false)
        .unwrap();
    assert_eq!(info["kind"], "profile");
    assert_eq!(info["tree"], "available");
    assert_eq!(info["num_ranks"], 8);
    let id = info["file"].as_u64().unwrap();
    assert!(info["io"]["bytes"].as_u64().unwrap() <= size);

    let index = ask(&mut s, json!({"op": "table", "file": id, "tree": false})).unwrap();
    assert_eq!(index["source"], "index");
    let flat: Vec<&str> = index["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    let file = File::open(bytes.clone()).unwrap();
    let whole = load::read_full(&file).unwrap();
    let want = |p: &Profile, flat: bool| -> Vec<(String, Option<Vec<String>>)> {
        let options = RowOptions {
            flat,
            ..RowOptions::default()
        };
        region_rows(p, &Selection::all(), options)
            .into_iter()
            .map(|r| (r.name, r.call_path))
            .collect()
    };
    let index_profile = load::read_summary(&file).unwrap();
    assert_eq!(
        flat,
        want(&index_profile, true)
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
    );

    assert_eq!(
        ask(&mut s, json!({"op": "tree", "file": id})).unwrap()["tree"],
        "loaded"
    );
    let tree = ask(&mut s, json!({"op": "table", "file": id})).unwrap();
    assert_eq!(tree["source"], "tree");
    let got: Vec<(String, Option<Vec<String>>)> = tree["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_string(),
                serde_json::from_value(r["path"].clone()).unwrap(),
            )
        })
        .collect();
    assert_eq!(got, want(&whole, false));
    let own = tree["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| !r["own"].is_null())
        .count();
    assert_eq!(own, 2, "B and E have nested rows");
}

#[test]
fn views_answer_from_the_same_rows() {
    let mut s = Session::default();
    let info = s
        .open(
            "merged.h5".into(),
            Bytes::Memory(golden("tests/golden/mixed/expected/merged.h5")),
            false,
        )
        .unwrap();
    let id = info["file"].clone();
    let ov = ask(&mut s, json!({"op": "overview", "file": id, "tree": false})).unwrap();
    assert_eq!(ov["source"], "index");
    assert_eq!(ov["kpis"][1]["label"], "Ranks");
    let mut bin = Vec::new();
    let answer: Json = serde_json::from_str(&s.call(
        &json!({"op": "balance", "file": id, "ranks": "0-3"}).to_string(),
        &mut bin,
    ))
    .unwrap();
    let b = &answer["ok"]["balance"];
    assert_eq!(b["ranks"], json!([0, 1, 2, 3]));
    let lines = b["lines"].as_array().unwrap().len();
    assert_eq!(bin.len(), 2 * (lines + 1) * 4 * 8, "values and shades, f64");
    let cell = ask(
        &mut s,
        json!({"op": "cell", "file": id, "ranks": "0-3", "rank": 0, "region": null}),
    )
    .unwrap();
    assert!(cell["value_text"].as_str().unwrap().ends_with('s'));
    let p = ask(
        &mut s,
        json!({"op": "percentiles", "file": id, "region": "A"}),
    )
    .unwrap();
    assert_eq!(p["calls"], 5);
    assert!(p["v"]["p50"].as_f64().unwrap() > 0.0);
    assert!(
        ask(&mut s, json!({"op": "table", "file": id, "include": ["("]}))
            .unwrap_err()
            .contains("pattern")
    );
    assert_eq!(
        ask(&mut s, json!({"op": "close", "file": id})).unwrap(),
        json!({})
    );
    assert!(ask(&mut s, json!({"op": "table", "file": id})).is_err());
}

#[test]
fn other_files_get_a_sentence_or_the_raw_view() {
    let mut s = Session::default();
    let err = s
        .open(
            "notes.txt".into(),
            Bytes::Memory(b"just some text, not HDF5".to_vec()),
            false,
        )
        .unwrap_err();
    assert_eq!(
        err,
        "notes.txt is not an HDF5 file: it has no HDF5 signature."
    );

    let mut cut = golden("tests/golden/h5_python_rich/inputs/rich.h5");
    cut.truncate(20_000);
    let err = s
        .open("cut.h5".into(), Bytes::Memory(cut), false)
        .unwrap_err();
    assert!(err.starts_with("cut.h5 is truncated: "), "{err}");

    let trace = golden("tests/golden/c_trace/inputs/profile_rank00000.spt");
    let err = s
        .open("rank0.spt".into(), Bytes::Memory(trace), false)
        .unwrap_err();
    assert!(
        err.starts_with("rank0.spt is a scope-profiler native trace"),
        "{err}"
    );

    let plain = s
        .open(
            "groups.h5".into(),
            Bytes::Memory(golden("tests/corpus/groups_latest.h5")),
            false,
        )
        .unwrap();
    assert_eq!(plain["kind"], "hdf5");
    assert!(plain["notice"]
        .as_str()
        .unwrap()
        .starts_with("groups.h5 is an HDF5 file but not a scope-profiler profile"));
}

#[test]
fn download_csv_is_the_cli_csv() {
    let path = "tests/golden/c_trace/expected/profiling_data.h5";
    let mut s = Session::default();
    let info = s
        .open(path.into(), Bytes::Memory(golden(path)), false)
        .unwrap();
    let id = info["file"].clone();
    let csv = ask(&mut s, json!({"op": "csv", "file": id, "tree": false})).unwrap();
    assert_eq!(csv["source"], "index");
    // `sp inspect --flat --format csv` of the same file, recorded by the CLI tests.
    assert_eq!(
        csv["csv"].as_str().unwrap(),
        std::fs::read_to_string(format!(
            "{}/../tests/inspect/snapshots/c_trace_flat_csv.txt",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    );
}

#[test]
fn the_raw_view_lists_what_sp_ls_lists() {
    use sp::hdf5lite::tree::{self, Options, Walk};
    for path in [
        "tests/golden/synthetic/expected/golden.h5",
        "tests/corpus/groups_latest.h5",
    ] {
        let bytes = golden(path);
        let mut s = Session::default();
        let info = s
            .open("f.h5".into(), Bytes::Memory(bytes.clone()), false)
            .unwrap();
        let raw = ask(&mut s, json!({"op": "raw", "file": info["file"]})).unwrap();
        let mut joined = String::new();
        for e in raw["entries"].as_array().unwrap() {
            joined.push_str(e["path"].as_str().unwrap());
            joined.push_str("  ");
            joined.push_str(e["head"].as_str().unwrap());
            joined.push('\n');
            for line in e["lines"].as_array().unwrap() {
                joined.push_str(line.as_str().unwrap());
                joined.push('\n');
            }
        }
        // `sp ls FILE --data` prints this walk with these options.
        let file = File::open(bytes.as_slice()).unwrap();
        let options = Options {
            values: true,
            max_elements: Some(8),
        };
        let mut want = Vec::new();
        tree::write_text(&mut want, Walk::new(&file, "/", options).unwrap()).unwrap();
        assert_eq!(joined, String::from_utf8(want).unwrap(), "{path}");
        assert!(raw["summary"].as_str().unwrap().starts_with("f.h5: "));
    }
}

#[test]
fn exports_are_the_library_exporters_bytes() {
    use sp::analysis::export::{Exporter, Format};
    let bytes = golden("tests/golden/mixed/expected/merged.h5");
    let mut s = Session::default();
    let id = s
        .open("merged.h5".into(), Bytes::Memory(bytes.clone()), false)
        .unwrap()["file"]
        .as_u64()
        .unwrap();
    let file = File::open(bytes).unwrap();
    let exporter = Exporter::open(&file, "merged").unwrap();
    for (name, format, suffix) in [
        ("chrome-trace", Format::ChromeTrace, "trace.json"),
        ("speedscope", Format::Speedscope, "speedscope.json"),
        ("json", Format::Json, "json"),
    ] {
        for ranks in [None, Some(vec![0u32, 1, 2, 5])] {
            let mut want = Vec::new();
            exporter
                .write(format, &Selection::ranks(ranks.clone()), &mut want)
                .unwrap();
            let spec = ranks.as_ref().map(|_| "0-2,5");
            let req = json!({"op": "export", "file": id, "format": name, "ranks": spec});
            let mut parts = Vec::new();
            let mut bin = Vec::new();
            let answer: Json =
                serde_json::from_str(&s.call_with_parts(&req.to_string(), &mut bin, &mut |p| {
                    parts.extend_from_slice(p)
                }))
                .unwrap();
            assert_eq!(answer["ok"]["name"], format!("merged.{suffix}"));
            assert_eq!(answer["ok"]["bytes"], want.len());
            assert_eq!(parts, want, "{name} {spec:?}");
            assert!(bin.is_empty());
        }
    }
    let bad = ask(&mut s, json!({"op": "export", "file": id, "format": "svg"}));
    assert_eq!(
        bad.unwrap_err(),
        "There is no export format \"svg\": the page writes chrome-trace, speedscope and json."
    );
}

#[test]
fn merging_traces_is_the_convert_pipeline() {
    use sp::convert::{convert, Deflate, Input, Options};
    let names = ["g_rank00001.spt", "g_rank00000.spt"];
    let files: Vec<Vec<u8>> = names
        .iter()
        .map(|n| golden(&format!("tests/golden/synthetic/inputs/{n}")))
        .collect();
    let memory: Vec<Json> = names
        .iter()
        .zip(&files)
        .map(|(n, b)| json!({"name": n, "bytes": b}))
        .collect();
    let mut s = Session::default();
    // The page's `compress: true` is `--compress` alone; a number is `--compress=LEVEL`.
    for (label, compress, how) in [
        (None, json!(null), None),
        (Some("golden"), json!(4), Some(Deflate::Level(4))),
        (Some("runs"), json!(true), Some(Deflate::Runs)),
    ] {
        let req = json!({"op": "merge", "memory": memory, "label": label, "compress": compress});
        let mut parts = Vec::new();
        let answer: Json = serde_json::from_str(&s.call_with_parts(
            &req.to_string(),
            &mut Vec::new(),
            &mut |p| parts.extend_from_slice(p),
        ))
        .unwrap();
        // The same as `sp convert g_rank00000.spt g_rank00001.spt --label LABEL`: sorted by
        // name, the default label `profiling_data`.
        let label = label.unwrap_or("profiling_data");
        let sorted = [&files[1], &files[0]];
        let inputs = [Input::new(names[1]), Input::new(names[0])];
        let options = Options {
            label: Some(label.into()),
            compress: how,
            ..Options::default()
        };
        let mut want = Vec::new();
        convert(&inputs, &&sorted[..], &options, &mut want).unwrap();
        assert_eq!(answer["ok"]["name"], format!("{label}.h5"));
        assert_eq!(answer["ok"]["inputs"], json!([names[1], names[0]]));
        assert_eq!(answer["ok"]["bytes"], want.len());
        assert!(parts == want, "{label}");
    }
    let twice = json!({"op": "merge", "memory": [memory[0], memory[0]]});
    assert_eq!(
        ask(&mut s, twice).unwrap_err(),
        "Two of the dropped files are named g_rank00001.spt: merge files with distinct names."
    );
    let not_a_trace = json!({"op": "merge", "memory": [{"name": "x.spt", "bytes": [1, 2, 3]}]});
    let err = ask(&mut s, not_a_trace).unwrap_err();
    assert!(
        err.starts_with("Merging the traces failed: x.spt: "),
        "{err}"
    );
}
