//! The writers through the real libraries: proptest generates traces (regions with names
//! and source files in any Unicode, empty regions, now and then one with 50 000 calls, both
//! byte orders, both versions) that `sp convert` merges, and datasets and attributes that
//! the hdf5lite writer writes; h5py reads every value back identical (tests/interop/
//! readback.py), and `h5dump` reads the same numbers. Cases are few (each runs Python and
//! h5dump): `PROPTEST_CASES` raises them.

mod support;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use proptest::prelude::*;
use serde_json::Value as Json;
use sp::hdf5lite::{Data, Datatype, FileWriter, Shape, StorageLayout};
use sp::trace::{encode, Endian, Region, Trace, Version};

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(16)
}

/// What h5py reads, through readback.py in `mode`.
fn readback(mode: &str, file: &Path) -> Json {
    let out = support::run_ok(
        Command::new(support::python())
            .env("PYTHONIOENCODING", "utf-8")
            .arg(support::repo().join("tests/interop/readback.py"))
            .arg(mode)
            .arg(file),
    );
    serde_json::from_slice(&out.stdout).expect("readback.py prints JSON")
}

// ------------------------------------------------------------------ traces -> sp convert

/// A region name or source file: any printable Unicode, no NUL.
fn text(max: usize) -> impl Strategy<Value = String> {
    proptest::string::string_regex(&format!("\\PC{{1,{max}}}")).unwrap()
}

fn calls() -> impl Strategy<Value = Vec<(i64, i64)>> {
    prop_oneof![
        8 => prop::collection::vec((0i64..1 << 50, 0i64..1 << 30), 1..60),
        2 => Just(Vec::new()),
        1 => any::<u64>().prop_map(|seed| {
            // Large within limits: 50 000 calls from a seeded generator.
            let mut x = seed | 1;
            (0..50_000)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    ((x >> 14) as i64, (x & 0xffff) as i64)
                })
                .collect()
        }),
    ]
}

fn region() -> impl Strategy<Value = Region> {
    (
        text(12),
        proptest::option::of(text(20)),
        -1i32..5000,
        calls(),
    )
        .prop_map(|(name, source_file, line, calls)| Region {
            name,
            source_file,
            source_line: Some(line),
            starts: calls.iter().map(|c| c.0).collect(),
            ends: calls.iter().map(|c| c.0 + c.1).collect(),
        })
}

/// One rank's trace: distinct region names (the format requires it).
fn trace(rank: i32) -> impl Strategy<Value = (Trace, Version, Endian)> {
    (
        prop::collection::vec(region(), 0..6),
        prop_oneof![Just(Version::V1), Just(Version::V2)],
        prop_oneof![Just(Endian::Little), Just(Endian::Big)],
    )
        .prop_map(move |(mut regions, version, endian)| {
            let mut seen = BTreeSet::new();
            regions.retain(|r| seen.insert(r.name.clone()));
            (Trace { rank, regions }, version, endian)
        })
}

fn traces() -> impl Strategy<Value = Vec<(Trace, Version, Endian)>> {
    (1usize..4).prop_flat_map(|n| (0..n as i32).map(trace).collect::<Vec<_>>())
}

/// Converts the traces with `sp convert` and compares what h5py and h5dump read.
fn check_convert(traces: &[(Trace, Version, Endian)], compress: bool) {
    let dir = support::scratch_dir("writer-interop-convert");
    let inputs = dir.join("in");
    std::fs::create_dir(&inputs).unwrap();
    for (trace, version, endian) in traces {
        let name = format!("t_rank{:05}.spt", trace.rank);
        std::fs::write(inputs.join(name), encode(trace, *version, *endian)).unwrap();
    }
    let out = dir.join("out.h5");
    let mut cmd = support::sp();
    cmd.arg("convert")
        .arg(&inputs)
        .arg("-o")
        .arg(&out)
        .arg("-q");
    if compress {
        cmd.arg("--compress=1");
    }
    support::run_ok(&mut cmd);

    // Every region with calls comes back with the same calls; an empty one, if stored,
    // with none.
    let mut expected: Vec<(i64, String, Vec<i64>, Vec<i64>)> = Vec::new();
    let mut empty = BTreeSet::new();
    for (trace, _, _) in traces {
        for r in &trace.regions {
            if r.starts.is_empty() {
                empty.insert((i64::from(trace.rank), r.name.clone()));
            } else {
                let key = (i64::from(trace.rank), r.name.clone());
                expected.push((key.0, key.1, r.starts.clone(), r.ends.clone()));
            }
        }
    }
    let read = readback("profile", &out);
    let mut got = Vec::new();
    for row in read.as_array().unwrap() {
        let rank = row[0].as_i64().unwrap();
        let name = row[1].as_str().unwrap().to_owned();
        let ints = |v: &Json| -> Vec<i64> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_i64().unwrap())
                .collect()
        };
        let (starts, ends) = (ints(&row[2]), ints(&row[3]));
        if starts.is_empty() {
            assert!(empty.contains(&(rank, name.clone())), "{rank} {name:?}");
            continue;
        }
        got.push((rank, name, starts, ends));
    }
    expected.sort();
    got.sort();
    assert_eq!(got, expected, "h5py reads other calls than sp was given");

    // h5dump reads the same event columns as h5py.
    let tree = readback("tree", &out);
    for column in ["/events/start_deltas", "/events/durations"] {
        let h5py: Vec<i64> = tree[column]["values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_i64().unwrap())
            .collect();
        if !h5py.is_empty() {
            assert_eq!(support::h5dump_ints(&out, column), h5py, "{column}");
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

// ------------------------------------------------------------------ datasets -> FileWriter

#[derive(Debug, Clone)]
enum Values {
    I64(Vec<i64>),
    U32(Vec<u32>),
    U64(Vec<u64>),
    F64(Vec<f64>),
    Str(Vec<String>),
}

impl Values {
    fn len(&self) -> usize {
        match self {
            Values::I64(v) => v.len(),
            Values::U32(v) => v.len(),
            Values::U64(v) => v.len(),
            Values::F64(v) => v.len(),
            Values::Str(v) => v.len(),
        }
    }

    fn typed(&self) -> (Datatype, Data) {
        match self {
            Values::I64(v) => (Datatype::I64, Data::i64s(v)),
            Values::U32(v) => (Datatype::U32, Data::u32s(v)),
            Values::U64(v) => (Datatype::U64, Data::u64s(v)),
            Values::F64(v) => (Datatype::F64, Data::f64s(v)),
            Values::Str(v) => (Datatype::VLEN_UTF8, Data::strings(v)),
        }
    }

    /// As readback.py prints them.
    fn json(&self) -> Json {
        let bits = |f: &f64| serde_json::json!({"f64bits": f.to_bits() as i64});
        match self {
            Values::I64(v) => serde_json::json!(v),
            Values::U32(v) => serde_json::json!(v),
            Values::U64(v) => serde_json::json!(v),
            Values::F64(v) => Json::Array(v.iter().map(bits).collect()),
            Values::Str(v) => serde_json::json!(v),
        }
    }
}

fn values() -> impl Strategy<Value = Values> {
    let n = 0..40usize;
    prop_oneof![
        prop::collection::vec(any::<i64>(), n.clone()).prop_map(Values::I64),
        prop::collection::vec(any::<u32>(), n.clone()).prop_map(Values::U32),
        prop::collection::vec(any::<u64>(), n.clone()).prop_map(Values::U64),
        prop::collection::vec(
            any::<f64>().prop_filter("finite", |f| f.is_finite()),
            n.clone()
        )
        .prop_map(Values::F64),
        prop::collection::vec(proptest::string::string_regex("\\PC{0,16}").unwrap(), n)
            .prop_map(Values::Str),
    ]
}

/// A link or attribute name: printable Unicode without `/`, never `.`.
fn object_name() -> impl Strategy<Value = String> {
    proptest::string::string_regex("[^/\\p{C}]{1,10}")
        .unwrap()
        .prop_filter("not .", |s| s != ".")
}

type Tree = Vec<(String, bool, Values, Vec<(String, Values)>)>;

/// Datasets (name, in the subgroup?, values, attributes).
fn tree() -> impl Strategy<Value = Tree> {
    prop::collection::vec(
        (
            object_name(),
            any::<bool>(),
            values(),
            prop::collection::vec((object_name(), values()), 0..3),
        ),
        1..6,
    )
    .prop_map(|mut t| {
        let mut seen = BTreeSet::new();
        t.retain(|(name, ..)| seen.insert(name.clone()));
        for (_, _, _, attrs) in &mut t {
            let mut seen = BTreeSet::new();
            attrs.retain(|(name, _)| seen.insert(name.clone()));
        }
        t
    })
}

fn check_tree(tree: &Tree) {
    let mut w = FileWriter::new();
    let sub = w.create_group(FileWriter::ROOT, "sub").unwrap();
    let mut expected = serde_json::Map::new();
    for (name, in_sub, values, attrs) in tree {
        let (dt, data) = values.typed();
        let parent = if *in_sub { sub } else { FileWriter::ROOT };
        let shape = Shape::vector(values.len() as u64);
        let id = w
            .create_dataset(parent, name, dt, shape, data, StorageLayout::Contiguous)
            .unwrap();
        let path = if *in_sub {
            format!("/sub/{name}")
        } else {
            format!("/{name}")
        };
        expected.insert(
            path.clone(),
            serde_json::json!({"shape": [values.len()], "values": values.json()}),
        );
        for (attr, values) in attrs {
            let (dt, data) = values.typed();
            w.set_attribute(id, attr, dt, Shape::vector(values.len() as u64), data)
                .unwrap();
            expected.insert(
                format!("{path}@{attr}"),
                serde_json::json!({"shape": [values.len()], "values": values.json()}),
            );
        }
    }
    let dir = support::scratch_dir("writer-interop-tree");
    let file = dir.join("tree.h5");
    let mut bytes = Vec::new();
    w.finish(&mut bytes).unwrap();
    std::fs::write(&file, bytes).unwrap();

    assert_eq!(readback("tree", &file), Json::Object(expected));
    // h5dump reads the whole file, and each integer dataset's numbers; `h5dump -d` takes
    // `[` as the start of a subset, so datasets with one in their name are read only whole.
    support::run_ok(Command::new("h5dump").arg(&file));
    for (name, in_sub, values, _) in tree.iter().filter(|t| !t.0.contains('[')) {
        let path = if *in_sub {
            format!("/sub/{name}")
        } else {
            format!("/{name}")
        };
        let ints: Option<Vec<i64>> = match values {
            Values::I64(v) => Some(v.clone()),
            Values::U32(v) => Some(v.iter().map(|&x| i64::from(x)).collect()),
            _ => None,
        };
        if let Some(ints) = ints.filter(|v| !v.is_empty()) {
            assert_eq!(support::h5dump_ints(&file, &path), ints, "h5dump {path:?}");
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn converted_traces_read_back_identical_in_h5py_and_h5dump(
        traces in traces(),
        compress in any::<bool>(),
    ) {
        check_convert(&traces, compress);
    }

    #[test]
    fn written_datasets_read_back_identical_in_h5py_and_h5dump(tree in tree()) {
        check_tree(&tree);
    }
}
