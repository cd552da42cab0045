use super::*;

/// A root attribute, a small dataset, then two columns; `deferred` leaves the columns'
/// data to the caller.
fn tree(deferred: bool, columns: &[Vec<u8>; 2]) -> (FileWriter, Vec<ObjectId>) {
    let mut w = FileWriter::new();
    w.set_attribute(
        FileWriter::ROOT,
        "version",
        Datatype::I64,
        Shape::Scalar,
        Data::i64s(&[3]),
    )
    .unwrap();
    let g = w.create_group(FileWriter::ROOT, "events").unwrap();
    w.create_dataset(
        g,
        "names",
        Datatype::VLEN_UTF8,
        Shape::vector(2),
        Data::strings(&["a", "bc"]),
        StorageLayout::Contiguous,
    )
    .unwrap();
    let mut ids = Vec::new();
    for (name, bytes) in ["deltas", "durations"].iter().zip(columns) {
        let shape = Shape::vector(bytes.len() as u64 / 8);
        ids.push(if deferred {
            w.create_deferred_dataset(g, name, Datatype::I64, shape, StorageLayout::Contiguous)
                .unwrap()
        } else {
            w.create_dataset(
                g,
                name,
                Datatype::I64,
                shape,
                Data::Fixed(bytes.clone()),
                StorageLayout::Contiguous,
            )
            .unwrap()
        });
    }
    (w, ids)
}

fn columns() -> [Vec<u8>; 2] {
    let a: Vec<u8> = [5i64, -1, 7].iter().flat_map(|v| v.to_le_bytes()).collect();
    let b: Vec<u8> = [1i64, 2, 3].iter().flat_map(|v| v.to_le_bytes()).collect();
    [a, b]
}

#[test]
fn deferred_data_written_later_gives_the_same_bytes() {
    let cols = columns();
    let mut whole = Vec::new();
    let len = tree(false, &cols).0.finish(&mut whole).unwrap();
    assert_eq!(len, whole.len() as u64);

    let (w, ids) = tree(true, &cols);
    let mut out = Vec::new();
    let placement = w.finish_at(&mut out).unwrap();
    assert_eq!(placement.eof, len);
    // The second column first, and the first in two pieces: order does not matter.
    let second = placement.data(ids[1]).unwrap();
    assert_eq!(second.size, 24);
    out.write_all_at(second.address.unwrap(), &cols[1]).unwrap();
    let first = placement.data(ids[0]).unwrap();
    let at = first.address.unwrap();
    assert_eq!(at % 8, 0);
    assert_eq!(second.address, Some(at + 24));
    out.write_all_at(at + 8, &cols[0][8..]).unwrap();
    out.write_all_at(at, &cols[0][..8]).unwrap();
    assert_eq!(out, whole);
}

#[test]
fn empty_deferred_dataset_has_no_storage() {
    let (w, ids) = tree(true, &[Vec::new(), Vec::new()]);
    let mut out = Vec::new();
    let placement = w.finish_at(&mut out).unwrap();
    assert_eq!(
        placement.data(ids[0]),
        Some(DataPlace {
            address: None,
            size: 0
        })
    );
    assert_eq!(placement.eof, out.len() as u64);
    assert_eq!(placement.data(FileWriter::ROOT), None);
}

#[test]
fn deferred_needs_a_positional_sink_and_fixed_size_type() {
    let (w, _) = tree(true, &columns());
    let err = w.finish(&mut Vec::new()).unwrap_err();
    assert_eq!(err.kind(), super::super::ErrorKind::Usage);
    let mut w = FileWriter::new();
    let err = w
        .create_deferred_dataset(
            FileWriter::ROOT,
            "s",
            Datatype::VLEN_UTF8,
            Shape::vector(1),
            StorageLayout::Contiguous,
        )
        .unwrap_err();
    assert_eq!(err.kind(), super::super::ErrorKind::Usage);
}

/// A chunked dataset over three B-tree levels' worth of logic (200 chunks: 4 leaves and
/// a root), its chunks appended after the plan, read back by our reader.
#[test]
fn chunked_deferred_dataset_reads_back() {
    let n = 200_000u64 - 17; // the last chunk is partial, stored at full size
    let values: Vec<i64> = (0..n as i64).map(|i| i * i % 1009 - 500).collect();
    let mut w = FileWriter::new();
    let id = w
        .create_deferred_dataset(
            FileWriter::ROOT,
            "v",
            Datatype::I64,
            Shape::vector(n),
            StorageLayout::Chunked(Chunking {
                elements: 1000,
                deflate_level: 4,
            }),
        )
        .unwrap();
    let mut out = Vec::new();
    let placement = w.finish_at(&mut out).unwrap();
    let plan = placement.chunked(id).unwrap().clone();
    assert_eq!((plan.chunks(), plan.chunk_bytes()), (200, 8000));
    assert_eq!(plan.levels, [4, 1]);
    let mut at = placement.eof;
    let mut stored = Vec::new();
    let mut z =
        super::super::filters::ShuffleDeflate::new(super::super::filters::Deflate::Level(4));
    let mut packed = Vec::new();
    for chunk in values.chunks(1000) {
        let mut raw: Vec<u8> = chunk.iter().flat_map(|v| v.to_le_bytes()).collect();
        raw.resize(8000, 0);
        z.chunk(&raw, 8, &mut packed).unwrap();
        out.write_all_at(at, &packed).unwrap();
        stored.push(StoredChunk {
            address: at,
            size: packed.len() as u32,
        });
        at += packed.len() as u64;
    }
    placement.write_chunk_index(&mut out, id, &stored).unwrap();
    placement.write_eof(&mut out, at).unwrap();
    assert_eq!(out.len() as u64, at);

    let file = super::super::reader::File::open(out.as_slice()).unwrap();
    let ds = file.dataset("/v").unwrap();
    assert_eq!(ds.read_i64s().unwrap(), values);
    // Wrong chunk count is refused.
    assert!(placement
        .write_chunk_index(&mut Vec::new(), id, &stored[1..])
        .is_err());
}

#[test]
fn chunk_tree_levels() {
    let plan = |chunks: u64| ChunkPlan::new(chunks * 10, 10, 8).levels;
    assert_eq!(plan(1), [1]);
    assert_eq!(plan(64), [1]);
    assert_eq!(plan(65), [2, 1]);
    assert_eq!(plan(64 * 64), [64, 1]);
    assert_eq!(plan(64 * 64 + 1), [65, 2, 1]);
    assert_eq!(ChunkPlan::new(1, 1, 8).node_size, 2096);
}
