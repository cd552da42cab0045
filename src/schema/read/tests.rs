//! The reader against files built with our writer: every layout, every depth, and the
//! checks of `read_h5` with their wording.

use crate::hdf5lite::reader::File;
use crate::hdf5lite::{Data, Datatype, FileWriter, ObjectId, Shape, StorageLayout};
use crate::schema::read::columnar::check_event_index;
use crate::schema::{read, read_profile, Depth, Error, MetaValue, ProfileLayout, Span};

#[test]
fn event_index_checks() {
    assert!(check_event_index(&[0, 3], &[3, 2], 5).is_ok());
    assert!(
        check_event_index(&[0, 0], &[0, 3], 3).is_ok(),
        "zero-count row sharing offset"
    );
    let err = check_event_index(&[0, 3], &[3, 3], 5).unwrap_err();
    assert!(
        err.to_string().contains("claims 6 recorded events"),
        "{err}"
    );
    let err = check_event_index(&[0, 2], &[3, 1], 5).unwrap_err();
    assert!(err.to_string().contains("overlapping"), "{err}");
}

/// A file built with our writer, opened with our reader.
fn open(build: impl FnOnce(&mut FileWriter)) -> File<Vec<u8>> {
    let mut w = FileWriter::new();
    build(&mut w);
    let mut bytes = Vec::new();
    w.finish(&mut bytes).unwrap();
    File::open(bytes).unwrap()
}

fn attr_i64(w: &mut FileWriter, obj: ObjectId, name: &str, v: i64) {
    w.set_attribute(obj, name, Datatype::I64, Shape::Scalar, Data::i64s(&[v]))
        .unwrap();
}

fn column(
    w: &mut FileWriter,
    parent: ObjectId,
    name: &str,
    datatype: Datatype,
    data: Data,
    n: u64,
) {
    w.create_dataset(
        parent,
        name,
        datatype,
        Shape::vector(n),
        data,
        StorageLayout::Contiguous,
    )
    .unwrap();
}

/// A schema-2 columnar profile with absolute columns: two rows of `names`.
fn schema2(w: &mut FileWriter, schema: i64, region_ids: &[u32], offsets: &[u64], counts: &[u64]) {
    let root = FileWriter::ROOT;
    attr_i64(w, root, "scope_profiler_schema", schema);
    let meta = w.create_group(root, "metadata").unwrap();
    attr_i64(w, meta, "mpi_rank", 3);
    let table = w.create_group(root, "region_table").unwrap();
    column(
        w,
        table,
        "names",
        Datatype::VLEN_UTF8,
        Data::strings(&["late", "early"]),
        2,
    );
    let index = w.create_group(root, "rank_region_index").unwrap();
    let n = region_ids.len() as u64;
    column(
        w,
        index,
        "region_ids",
        Datatype::U32,
        Data::u32s(region_ids),
        n,
    );
    column(
        w,
        index,
        "ranks",
        Datatype::U32,
        Data::u32s(&vec![4; n as usize]),
        n,
    );
    column(
        w,
        index,
        "event_offsets",
        Datatype::U64,
        Data::u64s(offsets),
        n,
    );
    column(
        w,
        index,
        "event_counts",
        Datatype::U64,
        Data::u64s(counts),
        n,
    );
    column(
        w,
        index,
        "source_lines",
        Datatype::I64,
        Data::i64s(&vec![7; n as usize]),
        n,
    );
    let files: Vec<&str> = (0..n).map(|i| if i == 0 { "a.c" } else { "" }).collect();
    column(
        w,
        index,
        "source_files",
        Datatype::VLEN_UTF8,
        Data::strings(&files),
        n,
    );
    let texts = vec!["text"; n as usize];
    column(
        w,
        index,
        "source_texts",
        Datatype::VLEN_UTF8,
        Data::strings(&texts),
        n,
    );
    column(
        w,
        index,
        "tags",
        Datatype::VLEN_UTF8,
        Data::strings(&vec!["[]"; n as usize]),
        n,
    );
    let events = w.create_group(root, "events").unwrap();
    column(
        w,
        events,
        "start_times",
        Datatype::I64,
        Data::i64s(&[500, 600, 100]),
        3,
    );
    column(
        w,
        events,
        "end_times",
        Datatype::I64,
        Data::i64s(&[550, 690, 101]),
        3,
    );
}

#[test]
fn schema2_absolute_columns_and_sources_as_read_h5_sees_them() {
    let file = open(|w| schema2(w, 2, &[0, 1], &[0, 2], &[2, 1]));
    let p = read_profile(&file).unwrap();
    assert_eq!(p.schema, 2);
    assert_eq!(p.metadata["mpi_rank"], MetaValue::Int(3));
    assert_eq!(p.region_names, ["late", "early"]);
    let names: Vec<&str> = p.regions.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["early", "late"], "sorted by earliest start");
    let late = &p.regions[1].ranks[&4];
    assert_eq!(
        (late.starts.as_slice(), late.ends.as_slice()),
        (&[500, 600][..], &[550, 690][..])
    );
    assert_eq!(late.source_file.as_deref(), Some("a.c"));
    assert_eq!(
        (late.source_line, late.source_text.as_deref()),
        (Some(7), Some("text"))
    );
    let early = &p.regions[0].ranks[&4];
    assert_eq!(early.source_file, None);
}

#[test]
fn schema_attribute_must_be_an_integer_from_1_to_3() {
    let file = open(|w| schema2(w, 4, &[0], &[0], &[1]));
    let err = read_profile(&file).unwrap_err();
    assert!(matches!(err, Error::Schema(_)), "{err}");
    assert!(err.to_string().contains("version 4"), "{err}");
    let file = open(|w| schema2(w, 0, &[0], &[0], &[1]));
    assert!(matches!(read_profile(&file), Err(Error::Schema(_))));
    let file = open(|w| {
        w.set_attribute(
            FileWriter::ROOT,
            "scope_profiler_schema",
            Datatype::F64,
            Shape::Scalar,
            Data::f64s(&[3.0]),
        )
        .unwrap();
    });
    let err = read_profile(&file).unwrap_err();
    assert!(
        err.to_string()
            .contains("must be an integer scalar, got a float"),
        "{err}"
    );
}

#[test]
fn damaged_event_index_and_region_ids_are_corrupt() {
    let file = open(|w| schema2(w, 2, &[0, 1], &[0, 1], &[2, 1]));
    assert!(matches!(read_profile(&file), Err(Error::Corrupt(m)) if m.contains("overlapping")));
    let file = open(|w| schema2(w, 2, &[0, 1], &[0, 2], &[2, 2]));
    assert!(matches!(read_profile(&file), Err(Error::Corrupt(m)) if m.contains("claims 4")));
    let file = open(|w| schema2(w, 2, &[0, 9], &[0, 2], &[2, 1]));
    assert!(matches!(read_profile(&file), Err(Error::Corrupt(m)) if m.contains("region id 9")));
}

/// What an import streams from is checked as what it reads whole: the event index against
/// the event columns' lengths, without reading them.
#[test]
fn spans_check_the_event_index_as_events_do() {
    let file = open(|w| schema2(w, 2, &[0, 1], &[0, 2], &[2, 1]));
    let spans = read(&file, Depth::Spans).unwrap();
    let late = spans.region("late").unwrap().rank(4).unwrap();
    assert_eq!(
        late.span,
        Some(Span {
            offset: 0,
            count: 2
        })
    );
    assert!(late.starts.is_empty() && late.statistics.is_none());
    for (offsets, counts, wanted) in [
        ([0, 1], [2, 1], "overlapping"),
        ([0, 2], [2, 2], "claims 4"),
    ] {
        let file = open(|w| schema2(w, 2, &[0, 1], &offsets, &counts));
        for depth in [Depth::Events, Depth::Spans] {
            let err = read(&file, depth).unwrap_err();
            assert!(
                matches!(&err, Error::Corrupt(m) if m.contains(wanted)),
                "{depth:?}: {err}"
            );
        }
    }
}

#[test]
fn schema1_rank_groups() {
    let file = open(|w| {
        let meta = w.create_group(FileWriter::ROOT, "metadata").unwrap();
        attr_i64(w, meta, "mpi_size", 2);
        for (rank, start) in [(10u32, 50i64), (2, 70)] {
            let g = w
                .create_group(FileWriter::ROOT, &format!("rank{rank}"))
                .unwrap();
            let regions = w.create_group(g, "regions").unwrap();
            let solve = w.create_group(regions, "solve").unwrap();
            column(
                w,
                solve,
                "start_times",
                Datatype::I64,
                Data::i64s(&[start]),
                1,
            );
            column(
                w,
                solve,
                "end_times",
                Datatype::I64,
                Data::i64s(&[start + 5]),
                1,
            );
            w.set_attribute(
                solve,
                "source_file",
                Datatype::VLEN_UTF8,
                Shape::Scalar,
                Data::strings(&["s.py"]),
            )
            .unwrap();
            attr_i64(w, solve, "source_lineno", 9);
        }
    });
    let p = read_profile(&file).unwrap();
    assert_eq!(p.schema, 1);
    let ranks = p.into_ranks();
    assert_eq!(ranks.iter().map(|r| r.0).collect::<Vec<_>>(), [2, 10]);
    assert_eq!(ranks[1].1[0].starts, [50]);
    assert_eq!(ranks[0].1[0].source_file.as_deref(), Some("s.py"));
    assert_eq!(ranks[0].1[0].source_line, Some(9));
}

#[test]
fn an_empty_hdf5_file_is_not_a_profile() {
    let file = open(|_| {});
    assert!(matches!(read_profile(&file), Err(Error::NotAProfile(_))));
    // The analysis sees an empty schema-1 profile, as the reference's inspect does.
    let p = read(&file, Depth::Events).unwrap();
    assert_eq!((p.schema, p.num_ranks, p.regions.len()), (1, 0, 0));
}

/// The same file at each depth: metadata only, the index (spans, no calls, no statistics
/// without `summary_statistics`), every call.
#[test]
fn depths_read_what_they_promise() {
    let file = open(|w| schema2(w, 2, &[0, 1], &[0, 2], &[2, 1]));
    let meta = read(&file, Depth::Metadata).unwrap();
    assert_eq!(meta.layout, ProfileLayout::Columnar);
    assert_eq!((meta.num_ranks, meta.regions.len()), (5, 0));
    assert_eq!(meta.metadata["mpi_rank"], MetaValue::Int(3));

    let index = read(&file, Depth::Index).unwrap();
    assert!(!index.summary_statistics && !index.has_events());
    assert_eq!(index.region_names, ["late", "early"]);
    let names: Vec<&str> = index.regions.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["late", "early"], "region-table order");
    let late = &index.regions[0].ranks[0];
    assert_eq!(
        late.span,
        Some(Span {
            offset: 0,
            count: 2
        })
    );
    assert!(late.starts.is_empty() && late.statistics.is_none());
    assert_eq!(late.source_file.as_deref(), Some("a.c"));

    let full = read(&file, Depth::Events).unwrap();
    let late = &full.regions[0].ranks[0];
    assert_eq!(
        (late.starts.as_slice(), late.ends.as_slice()),
        (&[500, 600][..], &[550, 690][..])
    );
    assert_eq!((late.rank, late.span), (4, None));
}

/// The index depth never reads the event columns: a file whose index claims more events
/// than the columns hold still reads to the index, and fails only when its calls are
/// asked for.
#[test]
fn index_depth_does_not_read_the_event_columns() {
    let short = open(|w| schema2(w, 3, &[0, 1], &[0, 2], &[2, 5]));
    assert!(read(&short, Depth::Index).is_ok());
    let err = read(&short, Depth::Events).unwrap_err();
    assert!(
        err.to_string().contains("claims 7 recorded events"),
        "{err}"
    );
}

/// An aggregate-layout profile: statistics per row, no calls, at every depth but metadata.
#[test]
fn aggregate_rows_carry_their_statistics() {
    let file =
        File::open(&include_bytes!("../../../tests/corpus/golden/python_agg_agg.h5")[..]).unwrap();
    for depth in [Depth::Index, Depth::Events] {
        let p = read(&file, depth).unwrap();
        assert_eq!(p.layout, ProfileLayout::Aggregate);
        let row = &p.regions[0].ranks[0];
        let stats = row.statistics.as_ref().expect("aggregate statistics");
        assert!(stats.count > 0 && row.starts.is_empty() && row.span.is_none());
    }
    let input = read_profile(&file).unwrap();
    assert!(input
        .regions
        .iter()
        .all(|r| r.ranks.values().all(|c| c.starts.is_empty())));
}

#[test]
fn a_repeated_rank_keeps_its_first_place_and_its_last_row() {
    use crate::schema::profile::RankCalls;
    let row = |rank: u32, line: i64| RankCalls {
        rank,
        source_line: Some(line),
        ..RankCalls::default()
    };
    let rows_of = |rows: &[RankCalls]| -> Vec<(u32, i64)> {
        rows.iter()
            .map(|r| (r.rank, r.source_line.unwrap()))
            .collect()
    };
    // Increasing ranks are left as they are.
    let mut rows = vec![row(0, 1), row(1, 2), row(5, 3)];
    super::merge_repeated_ranks(&mut rows);
    assert_eq!(rows_of(&rows), [(0, 1), (1, 2), (5, 3)]);
    // Rank 3 three times and rank 1 twice, out of order: as a dict keyed by rank.
    let mut rows = vec![
        row(3, 1),
        row(1, 2),
        row(3, 3),
        row(0, 4),
        row(1, 5),
        row(3, 6),
    ];
    super::merge_repeated_ranks(&mut rows);
    assert_eq!(rows_of(&rows), [(3, 6), (1, 5), (0, 4)]);
}

/// The assembly merges a region's repeated ranks only when its rows did not come in
/// ascending rank order, and leaves the other regions' rows as they came.
#[test]
fn assembly_merges_only_regions_out_of_rank_order() {
    use crate::schema::profile::RankCalls;
    let row = |rank: u32, line: i64| RankCalls {
        rank,
        source_line: Some(line),
        ..RankCalls::default()
    };
    let names = ["a".to_string(), "b".to_string(), "c".to_string()];
    let mut out = super::Assembly::new(&names, &[0, 0, 0, 2, 2]);
    for (id, r) in [(0, row(0, 1)), (2, row(1, 2)), (0, row(2, 3))] {
        out.push(id, r);
    }
    out.push(0, row(0, 4));
    out.push(2, row(4, 5));
    let regions = out.finish();
    let rows_of = |i: usize| -> Vec<(u32, i64)> {
        (regions[i].ranks.iter())
            .map(|r| (r.rank, r.source_line.unwrap_or(-1)))
            .collect()
    };
    assert_eq!(
        regions.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
        ["a", "c"]
    );
    assert_eq!(rows_of(0), [(0, 4), (2, 3)]);
    assert_eq!(rows_of(1), [(1, 2), (4, 5)]);
}

/// The index's source strings are shared: every row naming the same file holds one
/// allocation (a 100,000-rank index held a million copies), and empty strings are `None`.
#[test]
fn index_rows_share_equal_source_strings() {
    use crate::schema::{write, Merger, RegionCalls};
    let mut m = Merger::new();
    let calls = |name: &str, file: &str| RegionCalls {
        name: name.into(),
        source_file: Some(file.into()).filter(|f: &String| !f.is_empty()),
        source_line: Some(3),
        starts: vec![1, 5],
        ends: vec![2, 7],
        ..RegionCalls::default()
    };
    for rank in 0..3 {
        let regions = vec![calls("x", "a.c"), calls("y", "b.c"), calls("z", "")];
        m.add_rank(&format!("r{rank}"), rank, regions, None)
            .unwrap();
    }
    let mut bytes = Vec::new();
    write::to_hdf5(&m.finish(Some("t")))
        .unwrap()
        .finish(&mut bytes)
        .unwrap();
    let p = read(&File::open(bytes).unwrap(), Depth::Index).unwrap();
    let file_of = |name: &str| -> Vec<_> {
        let region = p.region(name).unwrap();
        assert_eq!(region.ranks.len(), 3);
        region.ranks.iter().map(|r| r.source_file.clone()).collect()
    };
    let (x, y) = (file_of("x"), file_of("y"));
    assert_eq!(x[0].as_deref(), Some("a.c"));
    assert_eq!(y[0].as_deref(), Some("b.c"));
    for rows in [&x, &y] {
        let first = rows[0].as_ref().unwrap();
        assert!(rows
            .iter()
            .all(|f| std::sync::Arc::ptr_eq(f.as_ref().unwrap(), first)));
    }
    assert_eq!(file_of("z"), [None, None, None]);
}
