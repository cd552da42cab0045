//! Runs `sp ls --json --data` on every corpus and golden file and compares its output with
//! h5py's reading of the same file (`<name>.json`, written by `tests/corpus/make_corpus.py`),
//! value for value: floats bit for bit in their own width, after parsing both documents.
//! Also: the n-bit file against libhdf5's own reading, chunk-index kinds, what cannot be
//! read and why, range reads and how few reads they take.

mod support;

use std::path::{Path, PathBuf};

use serde_json::Value as Json;
use sp::hdf5lite::reader::ChunkIndex;
use sp::hdf5lite::reader::{File, Storage};
use sp::hdf5lite::ErrorKind;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

/// `sp ls --json --data FILE` parsed.
fn ls_json(path: &Path) -> Json {
    let out = support::run_ok(
        support::sp()
            .arg("ls")
            .arg("--json")
            .arg("--data")
            .arg(path),
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{}: output is not JSON: {e}", path.display()))
}

/// A float of `size` bytes as its bits in that width; NaN and the infinities as written.
fn float_bits(v: &Json, size: u64) -> Json {
    match v {
        Json::Number(n) => {
            let x = n.as_f64().expect("a float");
            Json::String(match size {
                8 => format!("f64:{:016x}", x.to_bits()),
                _ => format!("f32:{:08x}", (x as f32).to_bits()),
            })
        }
        other => other.clone(),
    }
}

/// One element of type `dt` with its floats as bits.
fn element(dt: &Json, v: &Json) -> Json {
    match dt["class"].as_str().unwrap_or("") {
        "float" => float_bits(v, dt["size"].as_u64().unwrap_or(8)),
        "array" | "vlen" => match v {
            Json::Array(items) => items.iter().map(|x| element(&dt["base"], x)).collect(),
            other => other.clone(),
        },
        "compound" => match v {
            Json::Array(members) => members
                .iter()
                .zip(dt["members"].as_array().into_iter().flatten())
                .map(|(m, d)| serde_json::json!([m[0], element(&d["datatype"], &m[1])]))
                .collect(),
            other => other.clone(),
        },
        _ => v.clone(),
    }
}

/// A value (one element for a scalar, a list otherwise) with its floats as bits.
fn value(dt: &Json, shape: &Json, v: &Json) -> Json {
    match (shape, v) {
        (Json::Array(dims), Json::Array(items)) if !dims.is_empty() => {
            items.iter().map(|x| element(dt, x)).collect()
        }
        (Json::Null, Json::Array(items)) => items.iter().map(|x| element(dt, x)).collect(),
        _ => element(dt, v),
    }
}

/// A listing whose floats are bits in their own width and whose filters are id and client
/// data (h5py's filter names are not the customary ones sp shows), so two listings compare
/// exactly with `==`.
fn comparable(doc: &Json) -> Json {
    let mut doc = doc.clone();
    for node in doc.as_object_mut().expect("an object").values_mut() {
        if let Some(v) = node.get("value").cloned() {
            node["value"] = value(&node["datatype"], &node["shape"], &v);
        }
        if let Some(Json::Array(filters)) = node.get_mut("filters") {
            for f in filters {
                if let Json::Object(f) = f {
                    f.remove("name");
                }
            }
        }
        if let Some(Json::Object(attrs)) = node.get_mut("attributes") {
            for a in attrs.values_mut() {
                if let Some(v) = a.get("value").cloned() {
                    a["value"] = value(&a["datatype"], &a["shape"], &v);
                }
            }
        }
    }
    doc
}

fn check(path: &Path) {
    let expected: Json =
        serde_json::from_slice(&std::fs::read(path.with_extension("json")).unwrap()).unwrap();
    let got = comparable(&ls_json(path));
    let expected = comparable(&expected);
    let (Json::Object(g), Json::Object(e)) = (&got, &expected) else {
        panic!("{}: not JSON objects", path.display())
    };
    let gk: Vec<_> = g.keys().collect();
    let ek: Vec<_> = e.keys().collect();
    assert_eq!(gk, ek, "{}: object paths", path.display());
    let bad: Vec<_> = e
        .iter()
        .filter(|(k, ev)| &g[k.as_str()] != *ev)
        .map(|(k, _)| k.clone())
        .collect();
    for k in &bad {
        let (gs, es) = (g[k].to_string(), e[k].to_string());
        let i = gs
            .bytes()
            .zip(es.bytes())
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        let around = |s: &str| {
            let lo = (i.saturating_sub(80)..=i)
                .find(|&j| s.is_char_boundary(j))
                .unwrap_or(0);
            let hi = ((i + 80).min(s.len())..=s.len())
                .find(|&j| s.is_char_boundary(j))
                .unwrap_or(s.len());
            s[lo..hi].to_string()
        };
        eprintln!("{k}: ours …{}… h5py …{}…", around(&gs), around(&es));
    }
    assert!(
        bad.is_empty(),
        "{}: {} objects differ: {bad:?}",
        path.display(),
        bad.len()
    );
}

fn corpus_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "h5") && p.with_extension("json").exists())
        .collect();
    v.sort();
    v
}

macro_rules! corpus_test {
    ($name:ident, $file:expr) => {
        #[test]
        fn $name() {
            check(&corpus().join($file));
        }
    };
}

corpus_test!(types_earliest, "types_earliest.h5");
corpus_test!(types_latest, "types_latest.h5");
corpus_test!(groups_earliest, "groups_earliest.h5");
corpus_test!(groups_latest, "groups_latest.h5");
corpus_test!(chunked_earliest, "chunked_earliest.h5");
corpus_test!(chunked_latest, "chunked_latest.h5");
corpus_test!(chunk_indexes_latest, "chunk_indexes_latest.h5");
corpus_test!(chunked_v5, "chunked_v5.h5");
corpus_test!(chunk_indexes_v5, "chunk_indexes_v5.h5");
corpus_test!(layout_v5, "layout_v5.h5");
corpus_test!(references_earliest, "references_earliest.h5");
corpus_test!(references_latest, "references_latest.h5");
corpus_test!(filters_earliest, "filters_earliest.h5");
corpus_test!(filters_latest, "filters_latest.h5");
corpus_test!(netcdf4, "netcdf4.h5");
corpus_test!(profile_gzip, "profile_gzip.h5");
corpus_test!(profile_lzf, "profile_lzf.h5");
corpus_test!(profile_zstd, "profile_zstd.h5");

#[test]
fn every_corpus_file_has_a_test() {
    let named = [
        "chunk_indexes_latest.h5",
        "chunk_indexes_v5.h5",
        "chunked_earliest.h5",
        "chunked_latest.h5",
        "chunked_v5.h5",
        "filters_earliest.h5",
        "filters_latest.h5",
        "groups_earliest.h5",
        "groups_latest.h5",
        "layout_v5.h5",
        "netcdf4.h5",
        "profile_gzip.h5",
        "profile_lzf.h5",
        "profile_zstd.h5",
        "references_earliest.h5",
        "references_latest.h5",
        "types_earliest.h5",
        "types_latest.h5",
    ];
    let found: Vec<String> = corpus_files(&corpus())
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(found, named);
}

#[test]
fn golden_profiles() {
    let files = corpus_files(&corpus().join("golden"));
    assert_eq!(files.len(), 12);
    for f in files {
        check(&f);
    }
}

#[test]
fn chunk_index_kinds() {
    let bytes = std::fs::read(corpus().join("chunk_indexes_latest.h5")).unwrap();
    let file = File::open(bytes.as_slice()).unwrap();
    let kind = |p: &str| match file.dataset(p).unwrap().storage() {
        Storage::Chunked { index, .. } => index,
        s => panic!("{p}: {s:?}"),
    };
    assert!(matches!(
        kind("/single"),
        ChunkIndex::SingleChunk { filtered: None }
    ));
    assert!(matches!(
        kind("/single_gzip"),
        ChunkIndex::SingleChunk { filtered: Some(_) }
    ));
    assert_eq!(kind("/implicit"), ChunkIndex::Implicit);
    assert!(matches!(
        kind("/fixed_array"),
        ChunkIndex::FixedArray { .. }
    ));
    assert!(matches!(
        kind("/ext_array"),
        ChunkIndex::ExtensibleArray { .. }
    ));
    assert!(matches!(kind("/btree2"), ChunkIndex::BTreeV2 { .. }));
}

/// The n-bit filter, on integers with padding bits that only libhdf5 1.10 still writes
/// (nbit.c): sp's values equal libhdf5's own reading, element for element.
#[test]
fn nbit_equals_libhdf5() {
    let expected: Json =
        serde_json::from_slice(&std::fs::read(corpus().join("nbit_libhdf5.json")).unwrap())
            .unwrap();
    let got = ls_json(&corpus().join("nbit.h5"));
    let names = expected.as_object().unwrap();
    assert_eq!(names.len(), 3);
    for (path, values) in names {
        assert_eq!(&got[path]["value"], values, "{path}");
    }
    assert_eq!(
        got["/signed_12_bits_at_4_be"]["datatype"],
        serde_json::json!({"class": "integer", "size": 4, "signed": true, "order": "big",
                           "precision": 12, "offset": 4})
    );
}

#[test]
fn unsupported_features_keep_their_metadata_and_name_what_fails() {
    let bytes = std::fs::read(corpus().join("unsupported.h5")).unwrap();
    let file = File::open(bytes.as_slice()).unwrap();
    for (path, filter) in [("/blosc", "32001 (blosc)"), ("/szip", "4 (szip)")] {
        let d = file.dataset(path).unwrap();
        assert_eq!(d.shape(), Some(sp::hdf5lite::Shape::vector(100)));
        let err = d.read_raw().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Unsupported);
        assert_eq!(err.path(), Some(path));
        assert_eq!(err.message(), format!("filter {filter} is not supported"));
    }
    let external = file.dataset("/external").unwrap();
    assert_eq!(external.storage(), Storage::External);
    let err = external.read_raw().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported);
    assert_eq!(err.message(), "external data files");
    assert_eq!(
        file.dataset("/readable").unwrap().read_i64s().unwrap(),
        [0, 1, 2]
    );
}

#[test]
fn hdf5_2_layout_v5_reads() {
    let bytes = std::fs::read(corpus().join("layout_v5.h5")).unwrap();
    let file = File::open(bytes.as_slice()).unwrap();
    let d = file.dataset("/gzip").unwrap();
    assert!(matches!(
        d.storage(),
        Storage::Chunked {
            index: ChunkIndex::FixedArray { page_bits: 10 },
            ..
        }
    ));
    assert_eq!(d.read_i64s().unwrap(), (0..100).collect::<Vec<i64>>());
}

#[test]
fn range_reads_touch_only_needed_chunks() {
    let bytes = std::fs::read(corpus().join("chunked_earliest.h5")).unwrap();
    let file = File::open(bytes.as_slice()).unwrap();
    let d = file.dataset("/gzip_shuffle").unwrap();
    let all = d.read_i64s().unwrap();
    let part = d.read_raw_range(1000, 300).unwrap();
    let got: Vec<i64> = part
        .chunks_exact(8)
        .map(|b| i64::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert_eq!(got, all[1000..1300]);
    assert_eq!(all[12345], (12345i64 * 7919) % 100_003);
}

/// Ranges read one after another, each larger or smaller than the last, give the values
/// the corpus wrote: runs of chunks with B-tree nodes between them (unfiltered) and runs
/// to decode (gzip) go through one buffer kept from read to read, which must never leak
/// a longer read's bytes into a shorter one.
#[test]
fn range_reads_in_a_row_give_the_written_values() {
    let bytes = std::fs::read(corpus().join("chunked_earliest.h5")).unwrap();
    let file = File::open(bytes.as_slice()).unwrap();
    let ints = |raw: Vec<u8>| -> Vec<i64> {
        raw.chunks_exact(8)
            .map(|b| i64::from_le_bytes(b.try_into().unwrap()))
            .collect()
    };
    let ranges = [
        (0, 14_900),
        (5, 7),
        (3_000, 9_000),
        (640, 1),
        (12_345, 2_555),
        (9, 700),
    ];
    let many = file.dataset("/many_chunks").unwrap();
    for (start, count) in ranges {
        let got = ints(many.read_raw_range(start, count).unwrap());
        assert_eq!(
            got,
            (start as i64..(start + count) as i64).collect::<Vec<_>>()
        );
    }
    let gzip = file.dataset("/gzip_shuffle").unwrap();
    for (start, count) in ranges.map(|(s, c)| (s, c.min(20_000 - s))) {
        let got = ints(gzip.read_raw_range(start, count).unwrap());
        let want: Vec<i64> = (start..start + count)
            .map(|i| (i as i64 * 7919) % 100_003)
            .collect();
        assert_eq!(got, want, "{start}+{count}");
    }
}

fn ls(args: &[&str]) -> std::process::Output {
    support::sp()
        .current_dir(corpus())
        .arg("ls")
        .args(args)
        .output()
        .unwrap()
}

fn stdout_of(args: &[&str]) -> String {
    let out = ls(args);
    assert!(
        out.status.success(),
        "sp ls {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Exit status 1 and exactly one line `sp: <file>: <message>` on stderr.
fn assert_fails(args: &[&str], file: &str, message: &str) {
    let out = ls(args);
    assert_eq!(out.status.code(), Some(1), "sp ls {args:?}");
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    let want = format!("sp: {file}: {message}");
    assert!(
        err.starts_with(&want),
        "{err:?} does not start with {want:?}"
    );
}

#[test]
fn ls_text_is_a_tree_with_attributes() {
    assert_eq!(
        stdout_of(&["groups_latest.h5", "/few"]),
        "/few  group\n\
         /few/nested  group\n\
         /few/nested/deeper  group\n    @leaf: vlen utf-8 string scalar = \"yes\"\n\
         /few/x  dataset  i64 LE  [3]  contiguous\n"
    );
    assert_eq!(
        stdout_of(&["chunked_earliest.h5", "gzip_shuffle", "--data"]),
        "/gzip_shuffle  dataset  i64 LE  [20000] of max [∞]  chunked(128) shuffle+deflate(4)\n    \
         = [0, 7919, 15838, 23757, 31676, 39595, 47514, 55433, … (20000 in all)]\n"
    );
    let root = stdout_of(&["types_latest.h5"]);
    for line in [
        "    @ints: i16 BE [4] = [0, 1, 2, 3]\n",
        "    @enum: enum i16 LE {BLUE = 42, GREEN = 1, RED = 0} scalar = BLUE\n",
        "    @fixed_spacepad: ascii string[6] space-padded scalar = \"ab\"\n",
        "/compact  dataset  i32 LE  [5]  compact\n",
        "/strings/vlen_scalar  dataset  vlen utf-8 string  scalar  contiguous\n",
        "/array  dataset  array[2×2] of i32 LE  [3]  contiguous\n",
    ] {
        assert!(root.contains(line), "no {line:?} in\n{root}");
    }
}

#[test]
fn ls_json_without_data_has_no_values() {
    let out = stdout_of(&["chunk_indexes_v5.h5", "--json"]);
    let doc: Json = serde_json::from_str(&out).unwrap();
    let d = &doc["/btree2_gzip"];
    assert_eq!(d["chunks"], serde_json::json!([3, 4]));
    assert_eq!(
        d["filters"],
        serde_json::json!([{"id": 1, "name": "deflate", "client_data": [4]}])
    );
    assert_eq!(d["maxshape"], serde_json::json!([null, null]));
    assert!(d.get("value").is_none());
    assert_eq!(doc.as_object().unwrap().len(), 18);
}

/// What cannot be read is listed with the reason, and the rest is read: exit status 0,
/// unless --strict.
#[test]
fn ls_lists_what_it_cannot_read() {
    let out = stdout_of(&["unsupported.h5", "--data"]);
    assert_eq!(
        out,
        "/  group\n\
         /blosc  dataset  i32 LE  [100]  chunked(10) blosc(32001)\n    \
         ! filter 32001 (blosc) is not supported\n\
         /external  dataset  i32 LE  [10]  external\n    ! external data files\n\
         /readable  dataset  i32 LE  [3]  contiguous\n    = [0, 1, 2]\n\
         /szip  dataset  i32 LE  [100]  chunked(10) szip(4)\n    \
         ! filter 4 (szip) is not supported\n"
    );
    let doc: Json =
        serde_json::from_str(&stdout_of(&["unsupported.h5", "--data", "--json"])).unwrap();
    assert_eq!(
        doc["/blosc"]["error"],
        "/blosc: filter 32001 (blosc) is not supported"
    );
    assert_eq!(doc["/blosc"]["layout"], "chunked");
    assert!(doc["/blosc"].get("value").is_none());
    assert_eq!(doc["/readable"]["value"], serde_json::json!([0, 1, 2]));
    let out = ls(&["unsupported.h5", "--data", "--strict"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!out.stdout.is_empty(), "the listing is still printed");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        err,
        "sp: unsupported.h5: 3 parts could not be read; the first: /blosc: filter 32001 \
         (blosc) is not supported\n"
    );
    // Without values, nothing failed: --strict passes.
    assert_eq!(ls(&["unsupported.h5", "--strict"]).status.code(), Some(0));
}

#[test]
fn ls_errors_name_the_file() {
    assert_fails(&["missing.h5"], "missing.h5", "cannot open: ");
    assert_fails(
        &["make_corpus.py"],
        "make_corpus.py",
        "not a readable HDF5 file: ",
    );
    assert_fails(
        &["groups_latest.h5", "/few/nope"],
        "groups_latest.h5",
        "/few: no object named \"nope\"",
    );
}

#[test]
fn ls_is_quiet_on_a_closed_pipe() {
    use std::process::Stdio;
    // Far more than a pipe buffer, so writes fail once the reader is gone.
    let mut child = support::sp()
        .current_dir(corpus())
        .args(["ls", "--json", "--data", "chunked_latest.h5"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn ls_shows_links_and_ends_on_cycles() {
    // links.h5: /a/loop is a hard link back to the root, /b a second hard link to /a.
    assert_eq!(
        stdout_of(&["links.h5"]),
        "/  group\n\
         /a  group\n    @n: i64 LE scalar = 1\n\
         /a/d  dataset  i16 LE  [3]  contiguous\n\
         /a/loop  group (same as /)\n\
         /b  group (same as /a)\n    @n: i64 LE scalar = 1\n\
         /dangling  soft link -> /nowhere\n\
         /ext  external link -> other.h5:/x\n\
         /soft  soft link -> /a\n"
    );
    // A soft link given as PATH is followed; the cycle under it still ends.
    let doc: Json = serde_json::from_str(&stdout_of(&["links.h5", "/soft", "--json"])).unwrap();
    let keys: Vec<&str> = doc
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "/soft",
            "/soft/d",
            "/soft/loop",
            "/soft/loop/a",
            "/soft/loop/b",
            "/soft/loop/dangling",
            "/soft/loop/ext",
            "/soft/loop/soft"
        ]
    );
    assert_eq!(doc["/soft/loop/a"]["same_as"], "/soft");
    assert_eq!(
        doc["/soft/loop/ext"],
        serde_json::json!({"kind": "external link", "file": "other.h5", "target": "/x"})
    );
    assert_fails(
        &["links.h5", "/dangling"],
        "links.h5",
        "/: no object named \"nowhere\"",
    );
}

// ------------------------------------------------------------------------------ profiles

/// Runs a Python snippet with the reference's interpreter (h5py, hdf5plugin), arguments
/// after it.
fn python(code: &str, args: &[&Path]) {
    let out = std::process::Command::new(support::python())
        .arg("-c")
        .arg(code)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "python: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `sp ARGS` in `dir`, which must succeed; its standard output.
fn sp_in(dir: &Path, args: &[&str]) -> Vec<u8> {
    support::run_ok(support::sp().current_dir(dir).args(args)).stdout
}

/// The JSON outputs of `inspect` (the rows, and the rows recomputed from every event) and
/// of `export json` for `profile.h5` in `dir`.
fn profile_outputs(dir: &Path) -> Vec<Vec<u8>> {
    sp_in(dir, &["export", "json", "profile.h5", "-o", "export.json"]);
    vec![
        sp_in(dir, &["inspect", "profile.h5", "--format", "json"]),
        sp_in(
            dir,
            &[
                "inspect",
                "profile.h5",
                "--flat",
                "--from-events",
                "--format",
                "json",
            ],
        ),
        std::fs::read(dir.join("export.json")).unwrap(),
    ]
}

/// Profiles the reference's Python writer compressed with lzf, zstd and gzip inspect and
/// export exactly as the same profiles stored without filters (copied by h5py).
#[test]
fn compressed_python_profiles_read_as_uncompressed_ones() {
    let golden = support::repo().join("tests/golden");
    for (case, input) in [
        ("h5_python_lzf", "lzf.h5"),
        ("h5_python_zstd", "zstd.h5"),
        ("h5_python_gzip_option", "gzip.h5"),
    ] {
        let compressed = support::scratch_dir(&format!("compressed-{case}"));
        let plain = support::scratch_dir(&format!("plain-{case}"));
        let src = golden.join(case).join("inputs").join(input);
        std::fs::copy(&src, compressed.join("profile.h5")).unwrap();
        python(
            "import sys, h5py, hdf5plugin\n\
             def copy(a, b):\n\
             \x20   for k, v in a.attrs.items(): b.attrs[k] = v\n\
             \x20   for name, obj in a.items():\n\
             \x20       if isinstance(obj, h5py.Group): copy(obj, b.create_group(name))\n\
             \x20       else:\n\
             \x20           d = b.create_dataset(name, data=obj[()], dtype=obj.dtype)\n\
             \x20           for k, v in obj.attrs.items(): d.attrs[k] = v\n\
             with h5py.File(sys.argv[1]) as a, h5py.File(sys.argv[2], 'w') as b: copy(a, b)\n",
            &[&src, &plain.join("profile.h5")],
        );
        let ours = profile_outputs(&compressed);
        let theirs = profile_outputs(&plain);
        for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            assert!(
                a == b,
                "{case}: output {i} differs from the uncompressed profile's"
            );
        }
        std::fs::remove_dir_all(compressed).ok();
        std::fs::remove_dir_all(plain).ok();
    }
}

/// A profile with foreign objects added by h5py (an object reference and a vlen sequence
/// on its root, a group holding a region reference, an opaque dataset and one behind a
/// filter sp lacks, a dataset beside the profile's groups) inspects and exports exactly as
/// the profile alone, and converts to what the reference's import-native makes of it.
#[test]
fn a_profile_with_foreign_objects_inspects_exports_and_converts() {
    let original = support::repo().join("tests/golden/h5_python_rich/inputs/rich.h5");
    let plain = support::scratch_dir("foreign-plain");
    let foreign = support::scratch_dir("foreign-added");
    std::fs::copy(&original, plain.join("profile.h5")).unwrap();
    std::fs::copy(&original, foreign.join("profile.h5")).unwrap();
    python(
        "import sys, h5py, hdf5plugin, numpy as np\n\
         with h5py.File(sys.argv[1], 'r+') as f:\n\
         \x20   f.attrs['foreign_ref'] = f['events/durations'].ref\n\
         \x20   ints = h5py.vlen_dtype(np.dtype('<i2'))\n\
         \x20   f.attrs.create('foreign_vlen', np.array([np.arange(2, dtype='<i2'), \
         np.arange(3, dtype='<i2')], dtype=object), dtype=ints)\n\
         \x20   g = f.create_group('foreign')\n\
         \x20   g.attrs['region'] = f['events/durations'].regionref[0:3]\n\
         \x20   g.create_dataset('opaque', data=np.array([b'ab', b'cd'], dtype='V2'))\n\
         \x20   g.create_dataset('blosc', data=np.arange(100), chunks=(10,), \
         **hdf5plugin.Blosc())\n\
         \x20   f.create_dataset('foreign_data', data=np.arange(5.0))\n",
        &[&foreign.join("profile.h5")],
    );
    // The foreign parts are there, and listed.
    let listing = String::from_utf8(sp_in(&foreign, &["ls", "profile.h5", "--data"])).unwrap();
    for line in [
        "    @foreign_ref: object reference scalar = /events/durations\n",
        "    @region: region reference scalar = /events/durations {(0)-(2)}\n",
        "/foreign/blosc  dataset  i64 LE  [100]  chunked(10) blosc(32001)\n    \
         ! filter 32001 (blosc) is not supported\n",
    ] {
        assert!(listing.contains(line), "no {line:?} in\n{listing}");
    }
    assert_eq!(profile_outputs(&foreign), profile_outputs(&plain));
    sp_in(&foreign, &["convert", "profile.h5", "-o", "out.h5", "-q"]);
    let reference = std::process::Command::new(support::python())
        .current_dir(&plain)
        .args(["-m", "scope_profiler", "import-native"])
        .arg(foreign.join("profile.h5"))
        .args(["-o", "out.h5", "-q"])
        .output()
        .unwrap();
    assert!(reference.status.success());
    support::assert_same_content(&foreign.join("out.h5"), &plain.join("out.h5"));
    std::fs::remove_dir_all(plain).ok();
    std::fs::remove_dir_all(foreign).ok();
}
