//! The writer end to end: a profile-shaped file written with `FileWriter`, read back with
//! the crate's own on-disk parsers, structure asserted field by field.
//!
//! With `SP_WRITER_SMOKE_OUT=<path>` the file is also saved there, for
//! `tests/interop/writer_smoke.py` to check with h5dump and h5py.

use sp::hdf5lite::raw::cursor::Widths;
use sp::hdf5lite::raw::global_heap::GlobalHeapCollection;
use sp::hdf5lite::raw::messages::{
    datatype, Attribute, AttributeInfo, DataLayout, Dataspace, FillValue, GroupInfo, Link,
    LinkInfo, LinkTarget, MessageFlags, MessageType,
};
use sp::hdf5lite::raw::object_header::ObjectHeader;
use sp::hdf5lite::raw::superblock::Superblock;
use sp::hdf5lite::{Data, Datatype, ErrorKind, FileWriter, Limits, Shape, StorageLayout};

/// The 88-byte compound of `summary_statistics`, as profiles store it.
fn summary_type() -> Datatype {
    sp::schema::write::summary_datatype()
}

fn summary_row(total: i64, mean: f64, m2: f64) -> Vec<u8> {
    let mut row = Vec::new();
    for v in [total, 1, 2, 3, 4, 5, 6] {
        row.extend_from_slice(&v.to_le_bytes());
    }
    row.extend_from_slice(&0u64.to_le_bytes());
    row.extend_from_slice(&0i64.to_le_bytes());
    row.extend_from_slice(&mean.to_le_bytes());
    row.extend_from_slice(&m2.to_le_bytes());
    row
}

fn scalar_str(s: &str) -> Data {
    Data::strings(&[s])
}

/// The tree `writer_smoke.py` expects, value for value.
fn profile_tree() -> FileWriter {
    let mut w = FileWriter::new();
    let root = FileWriter::ROOT;
    w.set_attribute(
        root,
        "scope_profiler_schema",
        Datatype::I64,
        Shape::Scalar,
        Data::i64s(&[3]),
    )
    .unwrap();
    w.set_attribute(
        root,
        "storage_layout",
        Datatype::VLEN_UTF8,
        Shape::Scalar,
        scalar_str("columnar"),
    )
    .unwrap();

    let meta = w.create_group(root, "metadata").unwrap();
    let s = Datatype::VLEN_UTF8;
    let attrs: Vec<(&str, Datatype, Shape, Data)> = vec![
        ("source", s.clone(), Shape::Scalar, scalar_str("native")),
        (
            "trace_format_version",
            Datatype::I64,
            Shape::Scalar,
            Data::i64s(&[2]),
        ),
        (
            "start_time_ns",
            Datatype::I64,
            Shape::Scalar,
            Data::i64s(&[1_700_000_000_123_456_789]),
        ),
        ("label", s.clone(), Shape::Scalar, scalar_str("golden")),
        ("hostname", s.clone(), Shape::Scalar, scalar_str("nœud-é1")),
        (
            "timestamp",
            s.clone(),
            Shape::Scalar,
            scalar_str("2024-01-31T23:59:59+00:00"),
        ),
        ("mpi_rank", Datatype::I64, Shape::Scalar, Data::i64s(&[-2])),
        ("source_language", s.clone(), Shape::Scalar, scalar_str("")),
        ("ratio", Datatype::F64, Shape::Scalar, Data::f64s(&[0.1])),
        (
            "flag",
            Datatype::bool_enum(),
            Shape::Scalar,
            Data::Fixed(vec![1]),
        ),
        (
            "tags",
            s.clone(),
            Shape::vector(3),
            Data::strings(&["a", "", "é"]),
        ),
        (
            "empty_list",
            s.clone(),
            Shape::vector(0),
            Data::strings::<&str>(&[]),
        ),
    ];
    for (name, dt, shape, data) in attrs {
        w.set_attribute(meta, name, dt, shape, data).unwrap();
    }

    let rt = w.create_group(root, "region_table").unwrap();
    let ds = |w: &mut FileWriter, g, name: &str, dt: Datatype, n: u64, data: Data| {
        w.create_dataset(
            g,
            name,
            dt,
            Shape::vector(n),
            data,
            StorageLayout::Contiguous,
        )
        .unwrap()
    };
    ds(
        &mut w,
        rt,
        "names",
        s.clone(),
        3,
        Data::strings(&["solve", "io", "ünïcode"]),
    );

    let rri = w.create_group(root, "rank_region_index").unwrap();
    ds(
        &mut w,
        rri,
        "region_ids",
        Datatype::U32,
        3,
        Data::u32s(&[0, 1, 2]),
    );
    ds(
        &mut w,
        rri,
        "ranks",
        Datatype::U32,
        3,
        Data::u32s(&[0, 0, 1]),
    );
    ds(
        &mut w,
        rri,
        "event_offsets",
        Datatype::U64,
        3,
        Data::u64s(&[0, 2, 2]),
    );
    ds(
        &mut w,
        rri,
        "event_counts",
        Datatype::U64,
        3,
        Data::u64s(&[2, 0, 1]),
    );
    ds(
        &mut w,
        rri,
        "source_lines",
        Datatype::I64,
        3,
        Data::i64s(&[42, -1, 7]),
    );
    ds(
        &mut w,
        rri,
        "exclusive_totals",
        Datatype::I64,
        3,
        Data::i64s(&[-1, -1, -1]),
    );
    let mut rows = summary_row(1700, 850.0, 5000.0);
    rows.extend(summary_row(0, 0.0, 0.0));
    rows.extend(summary_row(-5, 883.3333333333334, 11666.666666666668));
    ds(
        &mut w,
        rri,
        "summary_statistics",
        summary_type(),
        3,
        Data::Fixed(rows),
    );
    ds(
        &mut w,
        rri,
        "source_files",
        s.clone(),
        3,
        Data::strings(&["solver.c", "", "io.f90"]),
    );
    ds(
        &mut w,
        rri,
        "source_texts",
        s.clone(),
        3,
        Data::strings(&["", "", ""]),
    );
    ds(
        &mut w,
        rri,
        "tags",
        s.clone(),
        3,
        Data::strings(&["[]", "[]", "[\"golden\", \"\\u00e9\"]"]),
    );
    ds(
        &mut w,
        rri,
        "event_metadata",
        s.clone(),
        3,
        Data::strings(&["[]", "[]", "[]"]),
    );
    ds(
        &mut w,
        rri,
        "empty_strings",
        s.clone(),
        0,
        Data::strings::<&str>(&[]),
    );

    let ev = w.create_group(root, "events").unwrap();
    ds(
        &mut w,
        ev,
        "start_deltas",
        Datatype::I64,
        3,
        Data::i64s(&[100, 50, i64::MIN]),
    );
    ds(
        &mut w,
        ev,
        "durations",
        Datatype::I64,
        3,
        Data::i64s(&[800, 900, -3]),
    );
    ds(&mut w, ev, "empty", Datatype::I64, 0, Data::i64s(&[]));
    w
}

fn write(w: FileWriter) -> Vec<u8> {
    let mut out = Vec::new();
    let n = w.finish(&mut out).unwrap();
    assert_eq!(n, out.len() as u64);
    out
}

struct Walk<'a> {
    file: &'a [u8],
    heaps: std::cell::RefCell<std::collections::HashMap<u64, GlobalHeapCollection>>,
}

fn walk(file: &[u8]) -> Walk<'_> {
    Walk {
        file,
        heaps: Default::default(),
    }
}

impl Walk<'_> {
    fn header(&self, addr: u64) -> ObjectHeader {
        ObjectHeader::read(self.file, addr, Widths::STANDARD, &Limits::default()).unwrap()
    }

    fn links(&self, oh: &ObjectHeader) -> Vec<(String, u64)> {
        oh.messages_of(MessageType::LINK)
            .map(|m| {
                let l = Link::parse(&mut m.cursor(Widths::STANDARD)).unwrap();
                match l.target {
                    LinkTarget::Hard(a) => (l.name, a),
                    other => panic!("unexpected link {other:?}"),
                }
            })
            .collect()
    }

    fn child(&self, oh: &ObjectHeader, name: &str) -> ObjectHeader {
        let (_, addr) = self
            .links(oh)
            .into_iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no link {name}"));
        self.header(addr)
    }

    fn attributes(&self, oh: &ObjectHeader) -> Vec<Attribute> {
        oh.messages_of(MessageType::ATTRIBUTE)
            .map(|m| Attribute::parse(&mut m.cursor(Widths::STANDARD)).unwrap())
            .collect()
    }

    /// Resolves vlen-string descriptors through the global heap.
    fn strings(&self, raw: &[u8]) -> Vec<String> {
        raw.chunks(16)
            .map(|d| {
                let len = u32::from_le_bytes(d[0..4].try_into().unwrap()) as usize;
                let addr = u64::from_le_bytes(d[4..12].try_into().unwrap());
                let index = u32::from_le_bytes(d[12..16].try_into().unwrap());
                let mut heaps = self.heaps.borrow_mut();
                let gcol = heaps.entry(addr).or_insert_with(|| {
                    GlobalHeapCollection::read(
                        self.file,
                        addr,
                        Widths::STANDARD,
                        &Limits::default(),
                    )
                    .unwrap()
                });
                let bytes = gcol.get(index).unwrap();
                assert_eq!(bytes.len(), len);
                String::from_utf8(bytes.to_vec()).unwrap()
            })
            .collect()
    }

    fn dataset(&self, oh: &ObjectHeader) -> (Datatype, Dataspace, FillValue, DataLayout, Vec<u8>) {
        let one = |k| {
            let mut it = oh.messages_of(k);
            let m = it.next().unwrap();
            assert!(it.next().is_none());
            m
        };
        let dt_msg = one(MessageType::DATATYPE);
        assert_eq!(dt_msg.flags, MessageFlags(MessageFlags::CONSTANT));
        let dt = datatype::parse(&mut dt_msg.cursor(Widths::STANDARD)).unwrap();
        let space =
            Dataspace::parse(&mut one(MessageType::DATASPACE).cursor(Widths::STANDARD)).unwrap();
        let fill =
            FillValue::parse(&mut one(MessageType::FILL_VALUE).cursor(Widths::STANDARD)).unwrap();
        let layout =
            DataLayout::parse(&mut one(MessageType::LAYOUT).cursor(Widths::STANDARD)).unwrap();
        let data = match &layout {
            DataLayout::Contiguous {
                address: Some(a),
                size,
            } => self.file[*a as usize..(*a + *size) as usize].to_vec(),
            DataLayout::Contiguous {
                address: None,
                size: 0,
            } => Vec::new(),
            other => panic!("unexpected layout {other:?}"),
        };
        (dt, space, fill, layout, data)
    }
}

#[test]
fn profile_shaped_file_reads_back() {
    let bytes = write(profile_tree());
    if let Some(path) = std::env::var_os("SP_WRITER_SMOKE_OUT") {
        std::fs::write(path, &bytes).unwrap();
    }
    let sb = Superblock::parse(bytes.as_slice()).unwrap();
    assert_eq!(sb.version, 2);
    assert_eq!(sb.eof_address, bytes.len() as u64);
    assert_eq!(sb.root_object_header, 48);
    let walk = walk(&bytes);
    let root = walk.header(sb.root_object_header);
    assert_eq!(root.version, 2);
    assert_eq!(root.attribute_phase_change, None);
    // Group messages: link info (compact), group info, then links.
    let kinds: Vec<_> = root.messages().iter().map(|m| m.kind).collect();
    assert_eq!(
        &kinds[..2],
        &[MessageType::LINK_INFO, MessageType::GROUP_INFO]
    );
    // Every v2 header carries an Attribute Info message: libhdf5 counts attributes with it.
    let ai = root
        .messages_of(MessageType::ATTRIBUTE_INFO)
        .next()
        .unwrap();
    assert_eq!(
        AttributeInfo::parse(&mut ai.cursor(Widths::STANDARD)).unwrap(),
        AttributeInfo::default()
    );
    let li = LinkInfo::parse(&mut root.messages()[0].cursor(Widths::STANDARD)).unwrap();
    assert_eq!(li, LinkInfo::default());
    let names: Vec<_> = walk.links(&root).into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        ["metadata", "region_table", "rank_region_index", "events"]
    );
    let root_attrs = walk.attributes(&root);
    assert_eq!(root_attrs[0].name, "scope_profiler_schema");
    assert_eq!(root_attrs[0].data, 3i64.to_le_bytes());
    assert_eq!(walk.strings(&root_attrs[1].data), ["columnar"]);

    // /metadata: 12 compact attributes kept compact by stored phase-change values.
    let meta = walk.child(&root, "metadata");
    assert_eq!(meta.attribute_phase_change, Some((12, 6)));
    let attrs = walk.attributes(&meta);
    assert_eq!(attrs.len(), 12);
    let by_name = |n: &str| attrs.iter().find(|a| a.name == n).unwrap();
    assert_eq!(walk.strings(&by_name("hostname").data), ["nœud-é1"]);
    assert_eq!(walk.strings(&by_name("source_language").data), [""]);
    assert_eq!(walk.strings(&by_name("tags").data), ["a", "", "é"]);
    assert_eq!(
        by_name("tags").dataspace,
        Dataspace::from_shape(&Shape::vector(3))
    );
    assert_eq!(by_name("empty_list").data, Vec::<u8>::new());
    assert_eq!(by_name("flag").datatype, Datatype::bool_enum());
    assert_eq!(by_name("flag").data, [1]);
    assert_eq!(by_name("ratio").data, 0.1f64.to_le_bytes());
    assert_eq!(by_name("mpi_rank").data, (-2i64).to_le_bytes());

    // /rank_region_index: 12 links, kept compact by the group info's phase change.
    let rri = walk.child(&root, "rank_region_index");
    let gi = GroupInfo::parse(
        &mut rri
            .messages_of(MessageType::GROUP_INFO)
            .next()
            .unwrap()
            .cursor(Widths::STANDARD),
    )
    .unwrap();
    assert_eq!(gi.phase_change, Some((12, 6)));
    assert_eq!(walk.links(&rri).len(), 12);
    let (dt, space, fill, _, data) = walk.dataset(&walk.child(&rri, "summary_statistics"));
    assert_eq!(dt, summary_type());
    assert_eq!(space, Dataspace::from_shape(&Shape::vector(3)));
    assert_eq!(fill, FillValue::NUMERIC);
    assert_eq!(data.len(), 3 * 88);
    assert_eq!(
        &data[2 * 88 + 72..2 * 88 + 80],
        &883.3333333333334f64.to_le_bytes()
    );
    let (dt, _, fill, _, data) = walk.dataset(&walk.child(&rri, "tags"));
    assert_eq!(dt, Datatype::VLEN_UTF8);
    assert_eq!(fill, FillValue::VLEN);
    assert_eq!(
        walk.strings(&data),
        ["[]", "[]", "[\"golden\", \"\\u00e9\"]"]
    );
    let (_, _, _, layout, _) = walk.dataset(&walk.child(&rri, "empty_strings"));
    assert_eq!(
        layout,
        DataLayout::Contiguous {
            address: None,
            size: 0
        }
    );

    let names = walk.child(&root, "region_table");
    let (_, _, _, _, data) = walk.dataset(&walk.child(&names, "names"));
    assert_eq!(walk.strings(&data), ["solve", "io", "ünïcode"]);

    let ev = walk.child(&root, "events");
    let (dt, _, _, _, data) = walk.dataset(&walk.child(&ev, "start_deltas"));
    assert_eq!(dt, Datatype::I64);
    assert_eq!(data, Data::i64s(&[100, 50, i64::MIN]).fixed_bytes());
    let (_, space, _, layout, _) = walk.dataset(&walk.child(&ev, "empty"));
    assert_eq!(space, Dataspace::from_shape(&Shape::vector(0)));
    assert_eq!(
        layout,
        DataLayout::Contiguous {
            address: None,
            size: 0
        }
    );
}

trait FixedBytes {
    fn fixed_bytes(self) -> Vec<u8>;
}

impl FixedBytes for Data {
    fn fixed_bytes(self) -> Vec<u8> {
        match self {
            Data::Fixed(b) => b,
            Data::VlenStrings(_) => panic!("not fixed"),
        }
    }
}

#[test]
fn output_is_deterministic() {
    assert_eq!(write(profile_tree()), write(profile_tree()));
}

#[test]
fn many_strings_split_into_several_collections() {
    let mut w = FileWriter::new();
    let strings: Vec<String> = (0..70_000).map(|i| format!("s{i}")).collect();
    w.create_dataset(
        FileWriter::ROOT,
        "many",
        Datatype::VLEN_UTF8,
        Shape::vector(strings.len() as u64),
        Data::strings(&strings),
        StorageLayout::Contiguous,
    )
    .unwrap();
    let bytes = write(w);
    let walk = walk(&bytes);
    let root = walk.header(48);
    let (_, _, _, _, data) = walk.dataset(&walk.child(&root, "many"));
    let addrs: std::collections::BTreeSet<_> = data
        .chunks(16)
        .map(|d| u64::from_le_bytes(d[4..12].try_into().unwrap()))
        .collect();
    assert_eq!(addrs.len(), 2);
    let back = walk.strings(&data);
    assert_eq!(back.len(), 70_000);
    assert_eq!(back[0], "s0");
    assert_eq!(back[65_535], "s65535");
    assert_eq!(back[69_999], "s69999");
}

#[test]
fn usage_errors() {
    let mut w = FileWriter::new();
    let err = w
        .create_dataset(
            FileWriter::ROOT,
            "x",
            Datatype::I64,
            Shape::vector(2),
            Data::i64s(&[1]),
            StorageLayout::Contiguous,
        )
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Usage);
    let err = w
        .create_dataset(
            FileWriter::ROOT,
            "x",
            Datatype::I64,
            Shape::vector(1),
            Data::strings(&["a"]),
            StorageLayout::Contiguous,
        )
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Usage);
    let d = w
        .create_dataset(
            FileWriter::ROOT,
            "x",
            Datatype::I64,
            Shape::vector(1),
            Data::i64s(&[1]),
            StorageLayout::Contiguous,
        )
        .unwrap();
    let err = w.create_group(FileWriter::ROOT, "x").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Usage);
    let err = w.create_group(d, "child").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Usage);
    let err = w.create_group(FileWriter::ROOT, "a/b").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Usage);
    let big: Vec<String> = (0..5000).map(|_| String::new()).collect();
    let err = w
        .set_attribute(
            d,
            "big",
            Datatype::VLEN_UTF8,
            Shape::vector(5000),
            Data::strings(&big),
        )
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Usage);
    // Setting an attribute twice replaces it.
    w.set_attribute(d, "a", Datatype::I64, Shape::Scalar, Data::i64s(&[1]))
        .unwrap();
    w.set_attribute(d, "a", Datatype::I64, Shape::Scalar, Data::i64s(&[2]))
        .unwrap();
    let bytes = write(w);
    let walk = walk(&bytes);
    let ds = walk.child(&walk.header(48), "x");
    let attrs = walk.attributes(&ds);
    assert_eq!(attrs.len(), 1);
    assert_eq!(attrs[0].data, 2i64.to_le_bytes());
}
