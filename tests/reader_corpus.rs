//! Walks every corpus file with our reader, builds the canonical JSON that
//! `tests/corpus/make_corpus.py` describes, and compares it with h5py's reading, value for
//! value. `to_json` is the walk-to-JSON the CLI's `ls --json --data` will reuse.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value as Json};
use sp::hdf5lite::messages::ChunkIndex;
use sp::hdf5lite::model::{ByteOrder, CharSet, Datatype, Shape, StrPad, StringLength};
use sp::hdf5lite::reader::{Attribute, File, LinkKind, Object, Storage, Value};
use sp::hdf5lite::{ErrorKind, Limits, ReadAt, Result};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

fn datatype_json(dt: &Datatype) -> Json {
    let order = |o: &ByteOrder| {
        if *o == ByteOrder::Big {
            "big"
        } else {
            "little"
        }
    };
    match dt {
        Datatype::Integer {
            size,
            signed,
            order: o,
        } => {
            json!({"class": "integer", "size": size, "signed": signed, "order": order(o)})
        }
        Datatype::Float { size, order: o } => {
            json!({"class": "float", "size": size, "order": order(o)})
        }
        Datatype::String {
            length,
            charset,
            padding,
        } => json!({
            "class": "string",
            "length": match length { StringLength::Fixed(n) => json!(n), StringLength::Variable => json!("variable") },
            "charset": if *charset == CharSet::Utf8 { "utf8" } else { "ascii" },
            "padding": match padding { StrPad::NullTerm => "nullterm", StrPad::NullPad => "nullpad", StrPad::SpacePad => "spacepad" },
        }),
        Datatype::Compound { size, members } => json!({
            "class": "compound", "size": if dt.is_variable_length() { Json::Null } else { json!(size) },
            "members": members.iter().map(|m| json!({"name": m.name, "offset": m.offset, "datatype": datatype_json(&m.datatype)})).collect::<Vec<_>>(),
        }),
        Datatype::Enum { base, members } => {
            let b = base.as_ref();
            json!({
                "class": "enum", "base": datatype_json(b),
                "members": members.iter().map(|m| {
                    let v = match b { Datatype::Integer { size, signed, order } =>
                        sp::hdf5lite::reader::value::int(&m.value, *size, *signed, *order, 0).unwrap(), _ => 0 };
                    json!([m.name, int_json(v)])
                }).collect::<Vec<_>>(),
            })
        }
        Datatype::Array { base, dims } => {
            json!({"class": "array", "base": datatype_json(base), "dims": dims})
        }
    }
}

fn int_json(v: i128) -> Json {
    match i64::try_from(v) {
        Ok(i) => json!(i),
        Err(_) => json!(u64::try_from(v).unwrap()),
    }
}

fn value_json(v: &Value) -> Json {
    match v {
        Value::Int(i) => int_json(*i),
        Value::Float(f) => json!(format!("0x{:016x}", f.to_bits())),
        Value::String(s) => json!(s),
        Value::Bytes(b) => {
            json!({"bytes": b.iter().map(|x| format!("{x:02x}")).collect::<String>()})
        }
        Value::Enum { name, value } => json!({"name": name, "value": int_json(*value)}),
        Value::Compound(ms) => {
            Json::Array(ms.iter().map(|(n, v)| json!([n, value_json(v)])).collect())
        }
        Value::Array(vs) => Json::Array(vs.iter().map(value_json).collect()),
    }
}

fn shape_json(s: &Option<Shape>) -> Json {
    match s {
        Some(Shape::Simple(d)) => json!(d),
        _ => Json::Null,
    }
}

fn attrs_json<R: ReadAt>(f: &File<R>, attrs: Vec<Attribute>) -> Result<Json> {
    let mut m = Map::new();
    for a in attrs {
        let v = a.value(f)?;
        m.insert(
            a.name().to_string(),
            json!({"datatype": datatype_json(a.datatype()), "shape": shape_json(&a.shape()), "value": value_json(&v)}),
        );
    }
    Ok(Json::Object(m))
}

/// The canonical JSON of a whole file (see make_corpus.py).
pub fn to_json<R: ReadAt>(f: &File<R>) -> Result<Json> {
    let mut out = Map::new();
    let root = f.root()?;
    out.insert(
        "/".into(),
        json!({"kind": "group", "attributes": attrs_json(f, root.attributes()?)?}),
    );
    let mut stack = vec!["/".to_string()];
    while let Some(path) = stack.pop() {
        let g = f.group(&path)?;
        for link in g.links()? {
            let child = if path == "/" {
                format!("/{}", link.name)
            } else {
                format!("{path}/{}", link.name)
            };
            if !matches!(link.kind, LinkKind::Hard(_)) {
                continue;
            }
            match f.object(&child)? {
                Object::Group(cg) => {
                    out.insert(
                        child.clone(),
                        json!({"kind": "group", "attributes": attrs_json(f, cg.attributes()?)?}),
                    );
                    stack.push(child);
                }
                Object::Dataset(d) => {
                    let shape = d.shape();
                    let values = d.read_values()?;
                    let value = match shape {
                        Some(Shape::Scalar) => value_json(&values[0]),
                        _ => Json::Array(values.iter().map(value_json).collect()),
                    };
                    let (layout, chunks, filters) = match d.storage() {
                        Storage::Compact => ("compact", Json::Null, json!([])),
                        Storage::Contiguous => ("contiguous", Json::Null, json!([])),
                        Storage::Chunked { chunk, filters, .. } => (
                            "chunked",
                            json!(chunk),
                            json!(filters.iter().map(|f| f.id.0).collect::<Vec<_>>()),
                        ),
                    };
                    let maxshape = match (&shape, d.max_shape()) {
                        (Some(Shape::Simple(_)), Some(m)) => {
                            json!(m
                                .iter()
                                .map(|&x| if x == u64::MAX { Json::Null } else { json!(x) })
                                .collect::<Vec<_>>())
                        }
                        _ => Json::Null,
                    };
                    out.insert(
                        child,
                        json!({
                            "kind": "dataset",
                            "datatype": datatype_json(d.datatype()),
                            "shape": shape_json(&shape),
                            "maxshape": maxshape,
                            "layout": layout,
                            "chunks": chunks,
                            "filters": filters,
                            "attributes": attrs_json(f, d.attributes()?)?,
                            "value": value,
                        }),
                    );
                }
            }
        }
    }
    Ok(Json::Object(out))
}

fn check(path: &Path) {
    let bytes = std::fs::read(path).unwrap();
    let expected: Json =
        serde_json::from_slice(&std::fs::read(path.with_extension("json")).unwrap()).unwrap();
    let file = File::open(bytes.as_slice()).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let got = to_json(&file).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (Json::Object(g), Json::Object(e)) = (&got, &expected) else {
        unreachable!()
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
        eprintln!(
            "{k}: ours …{}… h5py …{}…",
            &gs[i.saturating_sub(80)..(i + 80).min(gs.len())],
            &es[i.saturating_sub(80)..(i + 80).min(es.len())]
        );
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
fn hdf5_2_layout_v5_is_unsupported_not_wrong() {
    let bytes = std::fs::read(corpus().join("layout_v5.h5")).unwrap();
    let file = File::open(bytes.as_slice()).unwrap();
    let err = file.dataset("/gzip").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported);
    assert_eq!(err.path(), Some("/gzip"));
    assert!(
        err.message().contains("layout message version 5"),
        "{}",
        err.message()
    );
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

#[test]
fn mutated_files_never_panic() {
    // Truncations and byte flips of several files: any typed result is fine, a panic is not.
    for name in [
        "types_earliest.h5",
        "groups_latest.h5",
        "chunk_indexes_latest.h5",
        "golden/python_gzip_auto_gzip.h5",
    ] {
        let original = std::fs::read(corpus().join(name)).unwrap();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..150 {
            let mut bytes = original.clone();
            if round % 3 == 0 {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                bytes.truncate((seed >> 33) as usize % bytes.len());
            } else {
                for _ in 0..4 {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let i = (seed >> 33) as usize % bytes.len();
                    bytes[i] ^= (seed >> 20) as u8 | 1;
                }
            }
            let limits = Limits {
                max_read_bytes: 64 << 20,
                max_chunk_bytes: 16 << 20,
                ..Limits::default()
            };
            if let Ok(f) = File::open_with_limits(bytes.as_slice(), limits) {
                let _ = to_json(&f);
            }
        }
    }
}
