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

/// Three ranks: a region over two blocks, one of exactly a block and one just over, small
/// and empty ones; both versions and byte orders.
fn inputs() -> (Vec<String>, Vec<Vec<u8>>) {
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
        .map(|i| format!("run_rank{i:05}.spt"))
        .collect();
    let bytes = traces
        .iter()
        .map(|(t, version, endian)| encode(t, *version, *endian))
        .collect();
    (names, bytes)
}

/// The in-memory route's file.
fn in_memory(names: &[String], bytes: &[Vec<u8>], label: &str) -> Vec<u8> {
    let mut merger = Merger::new();
    for (name, bytes) in names.iter().zip(bytes) {
        let view = parse(bytes).unwrap();
        let regions = view.regions.iter().map(RegionCalls::from).collect();
        merger
            .add_rank(name, i64::from(view.rank), regions, None)
            .unwrap();
    }
    let mut out = Vec::new();
    write::to_hdf5(&merger.finish(Some(label)))
        .unwrap()
        .finish(&mut out)
        .unwrap();
    out
}

fn options(compress: Option<u8>) -> Options {
    Options {
        label: Some("run".into()),
        compress,
    }
}

/// Every phase's jobs in reverse order, packed units appended as their turn comes.
fn reversed(names: Vec<String>, bytes: &[Vec<u8>], options: &Options) -> (Vec<u8>, Converted) {
    let sources = bytes;
    let mut worker = Worker::new();
    let mut results: Vec<_> = (0..names.len())
        .rev()
        .map(|i| scan_trace(i, &names[i], &bytes[i][..], &mut worker))
        .collect();
    results.reverse();
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
    let mut stats = Vec::new();
    for u in (0..conversion.units()).rev() {
        let done = conversion
            .run_unit(u, &sources, &mut worker, &mut out)
            .unwrap();
        if let Some(packed) = done.packed {
            ready.insert(packed.unit(), packed);
        }
        stats.push(done.stats);
    }
    if let Some(appender) = appender.as_mut() {
        for (_, packed) in ready {
            appender.append(packed, &mut out).unwrap();
        }
    }
    let converted = conversion.finish(stats, appender, &mut out).unwrap();
    (out, converted)
}

#[test]
fn in_order_and_out_of_order_jobs_give_the_in_memory_route_s_bytes() {
    let (names, bytes) = inputs();
    let expected = in_memory(&names, &bytes, "run");
    let mut ours = Vec::new();
    let converted = convert(names.clone(), &&bytes[..], &options(None), &mut ours).unwrap();
    assert!(
        ours == expected,
        "the pipeline differs from the in-memory route"
    );
    // By earliest start; the region without calls first.
    assert_eq!(
        converted.region_names,
        ["idle", "small", "hot", "edge", "late"]
    );
    let (reversed, again) = reversed(names, &bytes, &options(None));
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
    convert(names.clone(), &&bytes[..], &options(Some(1)), &mut ours).unwrap();
    let (reversed, _) = reversed(names, &bytes, &options(Some(1)));
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
    let err = convert(names, &&bytes[..], &options(None), &mut Vec::new()).unwrap_err();
    assert_eq!(err.input(), Some("run_rank00001.spt"));
    assert!(matches!(
        &err,
        Error::Trace { source, .. } if matches!(source.kind(), TraceErrorKind::Truncated { .. })
    ));

    let one = encode(
        &Trace {
            rank: 3,
            regions: vec![region("a", 5, 9)],
        },
        Version::V2,
        Endian::Little,
    );
    let names = vec!["a.spt".to_owned(), "b.spt".to_owned()];
    let err = convert(names, &&[&one, &one][..], &options(None), &mut Vec::new()).unwrap_err();
    assert!(matches!(
        err,
        Error::Merge(crate::schema::Error::DuplicateRank { rank: 3, .. })
    ));
    assert!(!err.is_output());
}
