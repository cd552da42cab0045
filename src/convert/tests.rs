//! The pipeline against the in-memory route (`trace::parse` → `Merger` → `to_hdf5`), in
//! memory: the same bytes whether the jobs run in order or not, compressed or not.

use std::collections::BTreeMap;

use super::*;
use crate::schema::{write, Merger, RegionCalls};
use crate::trace::{encode, parse, Endian, Region, Trace, TraceErrorKind, Version};

/// A region of `calls` calls with pseudo-random gaps and durations (a few negative).
fn region(name: &str, calls: usize, seed: u64) -> Region {
    let mut state = seed;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        state >> 33
    };
    let mut t = 1_000_000_000_000i64 + (next() % 1_000_000) as i64;
    let (mut starts, mut ends) = (Vec::with_capacity(calls), Vec::with_capacity(calls));
    for _ in 0..calls {
        t += (next() % 10_000) as i64;
        starts.push(t);
        let d = (next() % (1 << (next() % 30))) as i64;
        ends.push(if next() % 97 == 0 { t - d / 5 } else { t + d });
    }
    Region {
        name: name.into(),
        source_file: (seed % 2 == 0).then(|| format!("{name}.c")),
        source_line: (seed % 2 == 0).then_some(12),
        starts,
        ends,
    }
}

/// A version-2 little-endian trace of one region on `rank`.
fn one_region(rank: i32, name: &str, calls: usize, seed: u64) -> Vec<u8> {
    let trace = Trace {
        rank,
        regions: vec![region(name, calls, seed)],
    };
    encode(&trace, Version::V2, Endian::Little)
}

/// Three ranks: a region over two blocks, one of exactly a block and one just over, small
/// and empty ones; both versions and byte orders.
fn inputs() -> (Vec<Input>, Vec<Vec<u8>>) {
    let traces = [
        (
            Trace {
                rank: 0,
                regions: vec![
                    region("hot", 2 * BLOCK as usize + 17, 1),
                    region("small", 1_000, 2),
                    region("idle", 0, 3),
                ],
            },
            Version::V2,
            Endian::Little,
        ),
        (
            Trace {
                rank: 1,
                regions: vec![region("small", 70_000, 4), region("hot", 9, 5)],
            },
            Version::V1,
            Endian::Big,
        ),
        (
            Trace {
                rank: 7,
                regions: vec![
                    region("late", BLOCK as usize, 6),
                    region("edge", BLOCK as usize + 1, 8),
                ],
            },
            Version::V2,
            Endian::Big,
        ),
    ];
    let names = (0..traces.len())
        .map(|i| Input::new(format!("run_rank{i:05}.spt")))
        .collect();
    let bytes = traces
        .iter()
        .map(|(t, version, endian)| encode(t, *version, *endian))
        .collect();
    (names, bytes)
}

/// The in-memory route's file.
fn in_memory(names: &[Input], bytes: &[Vec<u8>], label: &str) -> Vec<u8> {
    let mut merger = Merger::new();
    for (name, bytes) in names.iter().zip(bytes) {
        let view = parse(bytes).unwrap();
        let regions = view.regions.iter().map(RegionCalls::from).collect();
        merger
            .add_rank(&name.name, i64::from(view.rank), regions, None)
            .unwrap();
    }
    let mut out = Vec::new();
    write::to_hdf5(&merger.finish(Some(label)))
        .unwrap()
        .finish(&mut out)
        .unwrap();
    out
}

fn options(compress: Option<Deflate>) -> Options {
    Options {
        label: Some("run".into()),
        compress,
        ..Options::default()
    }
}

/// Every phase's jobs in reverse order, packed units appended as their turn comes.
fn reversed(inputs: &[Input], bytes: &[Vec<u8>], options: &Options) -> (Vec<u8>, Converted) {
    let sources = bytes;
    let mut worker = Worker::new();
    let mut results: Vec<_> = (0..inputs.len())
        .rev()
        .map(|i| scan_input(i, &inputs[i], &bytes[i][..], &mut worker))
        .collect();
    results.reverse();
    let names = inputs.iter().map(|i| i.name.clone()).collect();
    let mut scan = Scan::new(names, results);
    let jobs = scan.segments();
    assert!(jobs.len() >= 5, "three regions over a block: {jobs:?}");
    let mut done: Vec<_> = jobs
        .iter()
        .rev()
        .map(|job| (*job, scan.summarise(job, &sources, &mut worker)))
        .collect();
    done.reverse();
    scan.join(done);
    let mut out = Vec::new();
    let conversion = Plan::new(scan, options)
        .unwrap()
        .write_head(&mut out)
        .unwrap();
    let mut appender = conversion.appender();
    let mut ready = BTreeMap::new();
    let mut tally = conversion.tally();
    for job in conversion.jobs().into_iter().rev() {
        conversion
            .run_units(job, &sources, &mut worker, &mut out, |_, done, _| {
                if let Some(packed) = done.packed {
                    ready.insert(packed.unit(), packed);
                }
                tally.add(done.stats);
                Ok(())
            })
            .unwrap();
    }
    if let Some(appender) = appender.as_mut() {
        for (_, packed) in ready {
            appender.append(packed, &mut out).unwrap();
        }
    }
    let converted = conversion.finish(tally, appender, &mut out).unwrap();
    (out, converted)
}

#[test]
fn in_order_and_out_of_order_jobs_give_the_in_memory_route_s_bytes() {
    let (names, bytes) = inputs();
    let expected = in_memory(&names, &bytes, "run");
    let mut ours = Vec::new();
    let converted = convert(&names, &&bytes[..], &options(None), &mut ours).unwrap();
    assert!(
        ours == expected,
        "the pipeline differs from the in-memory route"
    );
    // By earliest start; the region without calls first.
    assert_eq!(
        converted.region_names,
        ["idle", "small", "hot", "edge", "late"]
    );
    let (reversed, again) = reversed(&names, &bytes, &options(None));
    assert!(reversed == expected, "jobs out of order change the bytes");
    assert_eq!(again, converted);

    // Every row's exact total, as the printed table sums them.
    let parsed: Vec<_> = bytes.iter().map(|b| parse(b).unwrap()).collect();
    let hot: i128 = parsed
        .iter()
        .flat_map(|v| &v.regions)
        .filter(|r| r.name == "hot")
        .map(|r| {
            let (s, e) = (r.starts.to_vec(), r.ends.to_vec());
            crate::schema::stats::exact_total(&s, &e)
        })
        .sum();
    let hot_rows = converted.rows.iter().filter(|r| r.region_id == 2);
    assert_eq!(hot_rows.map(|r| r.total_ns).sum::<i128>(), hot);
}

#[test]
fn compressed_jobs_in_any_order_give_the_same_bytes() {
    let (names, bytes) = inputs();
    let mut ours = Vec::new();
    convert(
        &names,
        &&bytes[..],
        &options(Some(Deflate::Level(1))),
        &mut ours,
    )
    .unwrap();
    let (reversed, _) = reversed(&names, &bytes, &options(Some(Deflate::Level(1))));
    assert!(
        ours == reversed,
        "compressed output depends on the job order"
    );
    assert!(ours.len() < in_memory(&inputs().0, &bytes, "run").len());
}

#[test]
fn errors_name_the_input_in_input_order() {
    let (names, mut bytes) = inputs();
    let cut = bytes[1].len() - 3;
    bytes[1].truncate(cut);
    bytes[2] = b"SCOPEPRF".to_vec();
    let err = convert(&names, &&bytes[..], &options(None), &mut Vec::new()).unwrap_err();
    assert_eq!(err.input(), Some("run_rank00001.spt"));
    assert!(matches!(
        &err,
        Error::Trace { source, .. } if matches!(source.kind(), TraceErrorKind::Truncated { .. })
    ));

    let one = one_region(3, "a", 5, 9);
    let names = [Input::new("a.spt"), Input::new("b.spt")];
    let err = convert(&names, &&[&one, &one][..], &options(None), &mut Vec::new()).unwrap_err();
    assert!(matches!(
        err,
        Error::Merge(crate::schema::Error::DuplicateRank { rank: 3, .. })
    ));
    assert!(!err.is_output());
}

/// Profiles are inputs too: the parts of a sharded run (one with compressed columns, read
/// a chunk range at a time, rows over two blocks included), merged in memory, give the
/// one-shot bytes.
#[test]
fn shards_merged_in_memory_give_the_one_shot_bytes() {
    let (names, bytes) = inputs();
    let mut one = Vec::new();
    convert(&names, &&bytes[..], &options(None), &mut one).unwrap();
    let mut parts = Vec::new();
    for (index, compress) in [(0, Some(Deflate::Runs)), (1, None)] {
        let shard = Shard::new(index, 2).unwrap();
        let range = shard.inputs(names.len());
        let options = Options {
            label: Some(format!("part{index}")),
            compress,
            shard: Some(shard),
            ..Options::default()
        };
        let mut part = Vec::new();
        convert(&names[range.clone()], &&bytes[range], &options, &mut part).unwrap();
        parts.push(part);
    }
    let part_names = [Input::new("part1.h5"), Input::new("part0.h5")];
    assert_eq!(part_names[0].kind, InputKind::Profile);
    let mut merged = Vec::new();
    // Listed out of shard order: the parts' attributes restore it.
    let sources = [&parts[1], &parts[0]];
    convert(&part_names, &&sources[..], &options(None), &mut merged).unwrap();
    assert!(
        merged == one,
        "the merged parts differ from the one-shot output"
    );
}

/// A schema-1 profile (rank groups; its rows read whole, one over a block) merged with a
/// trace converts as the in-memory route converts it.
#[test]
fn a_schema1_profile_converts_as_in_memory() {
    use crate::hdf5lite::{Data, Datatype, FileWriter, Shape, StorageLayout};
    use crate::schema::read_profile;

    let big = region("big", BLOCK as usize + 3, 31);
    let mut w = FileWriter::new();
    let meta = w.create_group(FileWriter::ROOT, "metadata").unwrap();
    w.set_attribute(
        meta,
        "hostname",
        Datatype::VLEN_UTF8,
        Shape::Scalar,
        Data::strings(&["n1"]),
    )
    .unwrap();
    for (rank, calls) in [(4u32, &big), (2, &region("big", 3, 32))] {
        let g = w
            .create_group(FileWriter::ROOT, &format!("rank{rank}"))
            .unwrap();
        let regions = w.create_group(g, "regions").unwrap();
        let group = w.create_group(regions, "big").unwrap();
        for (name, values) in [("start_times", &calls.starts), ("end_times", &calls.ends)] {
            w.create_dataset(
                group,
                name,
                Datatype::I64,
                Shape::vector(values.len() as u64),
                Data::i64s(values),
                StorageLayout::Contiguous,
            )
            .unwrap();
        }
    }
    let mut profile = Vec::new();
    w.finish(&mut profile).unwrap();
    let trace = one_region(0, "t", 10, 33);

    // The in-memory route: read whole, merged, written.
    let mut merger = Merger::new();
    let stored = read_profile(&crate::hdf5lite::reader::File::open(&profile[..]).unwrap()).unwrap();
    let metadata = stored.metadata.clone();
    for (rank, regions) in stored.into_ranks() {
        merger
            .add_rank("old_rank4.h5", i64::from(rank), regions, Some(&metadata))
            .unwrap();
    }
    let view = parse(&trace).unwrap();
    let regions = view.regions.iter().map(RegionCalls::from).collect();
    merger.add_rank("t.spt", 0, regions, None).unwrap();
    let mut expected = Vec::new();
    write::to_hdf5(&merger.finish(Some("run")))
        .unwrap()
        .finish(&mut expected)
        .unwrap();

    let inputs = [Input::new("old_rank4.h5"), Input::new("t.spt")];
    let mut ours = Vec::new();
    convert(&inputs, &&[&profile, &trace][..], &options(None), &mut ours).unwrap();
    assert!(ours == expected, "a schema-1 input converts differently");
}

/// A damaged profile input fails with its name; a trace given as one does too.
#[test]
fn a_damaged_profile_fails_with_its_name() {
    let trace = one_region(1, "a", 10, 41);
    let mut profile = Vec::new();
    convert(
        &[Input::new("t.spt")],
        &&[&trace][..],
        &options(None),
        &mut profile,
    )
    .unwrap();
    let cut = &profile[..profile.len() / 2];
    let inputs = [Input::new("p_rank1.h5")];
    let err = convert(&inputs, &&[cut][..], &options(None), &mut Vec::new()).unwrap_err();
    assert_eq!(err.input(), Some("p_rank1.h5"), "{err}");
    assert!(err.to_string().starts_with("p_rank1.h5: "), "{err}");
    let err = convert(&inputs, &&[&trace][..], &options(None), &mut Vec::new()).unwrap_err();
    assert!(matches!(err, Error::Hdf5 { .. }), "{err}");
    assert!(
        err.to_string()
            .starts_with("p_rank1.h5: not a readable HDF5 file: "),
        "{err}"
    );
}
