//! Runs `sp ls --json --data` on every corpus and golden file and compares its output with
//! h5py's reading of the same file (`<name>.json`, written by `tests/corpus/make_corpus.py`),
//! value for value. Also: chunk-index kinds, named unsupported features, range reads.

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

fn check(path: &Path) {
    let expected: Json =
        serde_json::from_slice(&std::fs::read(path.with_extension("json")).unwrap()).unwrap();
    let got = ls_json(path);
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

#[test]
fn every_corpus_file_has_a_test() {
    let named = [
        "chunk_indexes_latest.h5",
        "chunk_indexes_v5.h5",
        "chunked_earliest.h5",
        "chunked_latest.h5",
        "chunked_v5.h5",
        "groups_earliest.h5",
        "groups_latest.h5",
        "layout_v5.h5",
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

#[test]
fn unsupported_features_are_named() {
    let bytes = std::fs::read(corpus().join("unsupported.h5")).unwrap();
    let file = File::open(bytes.as_slice()).unwrap();
    let err = file.dataset("/lzf").unwrap().read_raw().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported);
    assert_eq!(err.path(), Some("/lzf"));
    assert!(err.message().contains("32000 (lzf)"), "{}", err.message());
    let err = file
        .dataset("/scaleoffset")
        .unwrap()
        .read_raw()
        .unwrap_err();
    assert!(err.message().contains("scaleoffset"), "{}", err.message());
    let err = file.dataset("/external").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported);
    assert!(err.message().contains("external"), "{}", err.message());
    let err = file.dataset("/uses_named_type").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported);
    assert_eq!(err.path(), Some("/uses_named_type"));
    let err = file.object("/named_type").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported);
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
    assert_eq!(d["filters"], serde_json::json!([1]));
    assert_eq!(d["maxshape"], serde_json::json!([null, null]));
    assert!(d.get("value").is_none());
    assert_eq!(doc.as_object().unwrap().len(), 18);
}

#[test]
fn ls_lists_what_it_cannot_read() {
    let out = stdout_of(&["unsupported.h5", "--data"]);
    assert_eq!(
        out,
        "/  group\n\
         /external  not readable here: external data files\n\
         /lzf  not readable here: filter 32000 (lzf) is not supported\n\
         /named_type  committed datatype\n\
         /scaleoffset  not readable here: filter 6 (scaleoffset) is not supported\n\
         /uses_named_type  not readable here: shared datatype message (committed datatype or SOHM)\n"
    );
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
