//! Whole-file tests: the SCHEMA.md fixtures and golden traces, every error kind through
//! [`parse`], and property tests (round trip, mutations never panic).

use super::*;
use proptest::prelude::*;

/// SCHEMA.md §1.1, v1 fixture (89 bytes): rank 0, `solve`, starts 10,20,40, ends 15,33,55.
const FIXTURE_V1: &[u8] = &[
    b'S', b'C', b'O', b'P', b'E', b'P', b'R', b'F', // magic
    0x01, 0, 0, 0, // version 1 (LE)
    0, 0, 0, 0, // rank 0
    0x01, 0, 0, 0, 0, 0, 0, 0, // 1 region
    0x05, 0, 0, 0, // name length 5
    b's', b'o', b'l', b'v', b'e', // "solve"
    0x03, 0, 0, 0, 0, 0, 0, 0, // 3 calls
    0x0a, 0, 0, 0, 0, 0, 0, 0, // start 10
    0x14, 0, 0, 0, 0, 0, 0, 0, // start 20
    0x28, 0, 0, 0, 0, 0, 0, 0, // start 40
    0x0f, 0, 0, 0, 0, 0, 0, 0, // end 15
    0x21, 0, 0, 0, 0, 0, 0, 0, // end 33
    0x37, 0, 0, 0, 0, 0, 0, 0, // end 55
];

/// SCHEMA.md §1.1, v2 fixture (105 bytes): as v1 plus `solver.c`, line 7.
const FIXTURE_V2: &[u8] = &[
    b'S', b'C', b'O', b'P', b'E', b'P', b'R', b'F', // magic
    0x02, 0, 0, 0, // version 2 (LE)
    0, 0, 0, 0, // rank 0
    0x01, 0, 0, 0, 0, 0, 0, 0, // 1 region
    0x05, 0, 0, 0, // name length 5
    b's', b'o', b'l', b'v', b'e', // "solve"
    0x08, 0, 0, 0, // source length 8
    b's', b'o', b'l', b'v', b'e', b'r', b'.', b'c', // "solver.c"
    0x07, 0, 0, 0, // line 7
    0x03, 0, 0, 0, 0, 0, 0, 0, // 3 calls
    0x0a, 0, 0, 0, 0, 0, 0, 0, // start 10
    0x14, 0, 0, 0, 0, 0, 0, 0, // start 20
    0x28, 0, 0, 0, 0, 0, 0, 0, // start 40
    0x0f, 0, 0, 0, 0, 0, 0, 0, // end 15
    0x21, 0, 0, 0, 0, 0, 0, 0, // end 33
    0x37, 0, 0, 0, 0, 0, 0, 0, // end 55
];

/// Hand-made big-endian v2: rank 2, `a` (`a.c`, line -1 → none) with 1 call, then `b`
/// (no file, line 4 kept raw) with 0 calls.
const BE_V2: &[u8] = &[
    b'S', b'C', b'O', b'P', b'E', b'P', b'R', b'F', // magic
    0, 0, 0, 0x02, // version 2 (BE)
    0, 0, 0, 0x02, // rank 2
    0, 0, 0, 0, 0, 0, 0, 0x02, // 2 regions
    0, 0, 0, 0x01, // name length 1
    b'a', // "a"
    0, 0, 0, 0x03, // source length 3
    b'a', b'.', b'c', // "a.c"
    0xff, 0xff, 0xff, 0xff, // line -1
    0, 0, 0, 0, 0, 0, 0, 0x01, // 1 call
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf6, // start -10
    0, 0, 0, 0x01, 0, 0, 0, 0, // end 2^32
    0, 0, 0, 0x01, // name length 1
    b'b', // "b"
    0, 0, 0, 0, // source length 0
    0, 0, 0, 0x04, // line 4
    0, 0, 0, 0, 0, 0, 0, 0, // 0 calls
];

/// Hand-made big-endian v1 with zero regions: rank 9.
const BE_V1_EMPTY: &[u8] = &[
    b'S', b'C', b'O', b'P', b'E', b'P', b'R', b'F', // magic
    0, 0, 0, 0x01, // version 1 (BE)
    0, 0, 0, 0x09, // rank 9
    0, 0, 0, 0, 0, 0, 0, 0, // 0 regions
];

fn solve(source: bool) -> Region {
    Region {
        name: "solve".into(),
        source_file: source.then(|| "solver.c".into()),
        source_line: source.then_some(7),
        starts: vec![10, 20, 40],
        ends: vec![15, 33, 55],
    }
}

fn err(bytes: &[u8]) -> TraceError {
    parse(bytes).unwrap_err()
}

#[test]
fn schema_fixtures() {
    let v1 = parse(FIXTURE_V1).unwrap();
    assert_eq!(
        (v1.version, v1.endian, v1.rank),
        (Version::V1, Endian::Little, 0)
    );
    assert_eq!(
        v1.to_trace(),
        Trace {
            rank: 0,
            regions: vec![solve(false)]
        }
    );
    assert_eq!(v1.regions[0].offset, 24);
    assert_eq!(v1.total_calls(), 3);

    let v2 = parse(FIXTURE_V2).unwrap();
    assert_eq!(
        (v2.version, v2.endian, v2.rank),
        (Version::V2, Endian::Little, 0)
    );
    assert_eq!(
        v2.to_trace(),
        Trace {
            rank: 0,
            regions: vec![solve(true)]
        }
    );

    let trace = Trace {
        rank: 0,
        regions: vec![solve(true)],
    };
    assert_eq!(encode(&trace, Version::V1, Endian::Little), FIXTURE_V1);
    assert_eq!(encode(&trace, Version::V2, Endian::Little), FIXTURE_V2);
}

#[test]
fn hand_made_big_endian() {
    let v = parse(BE_V2).unwrap();
    assert_eq!((v.version, v.endian, v.rank), (Version::V2, Endian::Big, 2));
    let expected = Trace {
        rank: 2,
        regions: vec![
            Region {
                name: "a".into(),
                source_file: Some("a.c".into()),
                source_line: None,
                starts: vec![-10],
                ends: vec![1 << 32],
            },
            Region {
                name: "b".into(),
                source_file: None,
                source_line: Some(4),
                starts: vec![],
                ends: vec![],
            },
        ],
    };
    assert_eq!(v.to_trace(), expected);
    assert_eq!(encode(&expected, Version::V2, Endian::Big), BE_V2);

    let v = parse(BE_V1_EMPTY).unwrap();
    assert_eq!((v.version, v.endian, v.rank), (Version::V1, Endian::Big, 9));
    assert!(v.regions.is_empty());
    assert_eq!(
        encode(
            &Trace {
                rank: 9,
                regions: vec![]
            },
            Version::V1,
            Endian::Big
        ),
        BE_V1_EMPTY
    );
}

// SCHEMA.md §6.1 inputs, produced for the reference's golden output.
const G_RANK0: &[u8] = include_bytes!("testdata/g_rank00000.spt");
const G_RANK1: &[u8] = include_bytes!("testdata/g_rank00001.spt");

#[test]
fn golden_synthetic_rank0_v2_little_endian() {
    let v = parse(G_RANK0).unwrap();
    assert_eq!(
        (v.version, v.endian, v.rank),
        (Version::V2, Endian::Little, 0)
    );
    assert_eq!(
        v.to_trace(),
        Trace {
            rank: 0,
            regions: vec![
                Region {
                    name: "solve".into(),
                    source_file: Some("solver.c".into()),
                    source_line: Some(42),
                    starts: vec![1000, 5000, 9000],
                    ends: vec![1800, 5900, 9950],
                },
                Region {
                    name: "assemble".into(),
                    source_file: None,
                    source_line: None,
                    starts: vec![200, 4100, 8200],
                    ends: vec![900, 4900, 8800],
                },
                Region {
                    name: "idle".into(),
                    ..Region::default()
                },
            ],
        }
    );
    assert_eq!(encode(&v.to_trace(), Version::V2, Endian::Little), G_RANK0);
}

#[test]
fn golden_synthetic_rank1_v1_big_endian() {
    let v = parse(G_RANK1).unwrap();
    assert_eq!((v.version, v.endian, v.rank), (Version::V1, Endian::Big, 1));
    let io = Region {
        name: "io".into(),
        starts: vec![150],
        ends: vec![400],
        ..Region::default()
    };
    let solve = Region {
        name: "solve".into(),
        starts: vec![1100, 1200],
        ends: vec![1900, 1300],
        ..Region::default()
    };
    assert_eq!(
        v.to_trace(),
        Trace {
            rank: 1,
            regions: vec![io, solve]
        }
    );
    assert_eq!(encode(&v.to_trace(), Version::V1, Endian::Big), G_RANK1);
}

/// (name, calls, sum of starts, sum of ends, first two starts, first two ends), as the
/// reference's `read_trace` reports them.
type Expected = (&'static str, usize, i128, i128, [i64; 2], [i64; 2]);

fn check_real(bytes: &[u8], expected: &[Expected]) {
    let v = parse(bytes).unwrap();
    assert_eq!(
        (v.version, v.endian, v.rank),
        (Version::V2, Endian::Little, 0)
    );
    assert_eq!(v.regions.len(), expected.len());
    for (r, &(name, calls, starts, ends, first_starts, first_ends)) in
        v.regions.iter().zip(expected)
    {
        assert_eq!(r.name, name);
        assert_eq!((r.source_file, r.source_line), (None, None), "{name}");
        assert_eq!(r.calls(), calls, "{name}");
        assert_eq!(
            r.starts.iter().map(i128::from).sum::<i128>(),
            starts,
            "{name}"
        );
        assert_eq!(r.ends.iter().map(i128::from).sum::<i128>(), ends, "{name}");
        let two = |ts: &Timestamps<'_>| [ts.get(0), ts.get(1).or(ts.get(0))];
        assert_eq!(two(&r.starts), first_starts.map(Some), "{name}");
        assert_eq!(two(&r.ends), first_ends.map(Some), "{name}");
    }
    assert_eq!(encode(&v.to_trace(), Version::V2, Endian::Little), bytes);
}

#[test]
fn golden_c_example() {
    check_real(
        include_bytes!("testdata/c_rank00000.spt"),
        &[
            (
                "solve",
                20,
                9082684865564,
                9082686776686,
                [454132948824, 454133106590],
                [454133061522, 454133219288],
            ),
            (
                "assemble",
                20,
                9082684100202,
                9082684864953,
                [454132903597, 454133061552],
                [454132948794, 454133106549],
            ),
            (
                "checkpoint",
                2,
                908269860832,
                908269881413,
                [454134268854, 454135591978],
                [454134280081, 454135601332],
            ),
            (
                "fibonacci",
                1,
                454135604477,
                454135634872,
                [454135604477, 454135604477],
                [454135634872, 454135634872],
            ),
            (
                "fib_call",
                465,
                211173063895048,
                211173064105251,
                [454135607101, 454135607171],
                [454135634812, 454135625368],
            ),
        ],
    );
}

#[test]
fn golden_fortran_example() {
    check_real(
        include_bytes!("testdata/fortran_rank00000.spt"),
        &[
            (
                "solve",
                20,
                9084350003475,
                9084351883552,
                [454216239616, 454216388127],
                [454216350912, 454216481206],
            ),
            (
                "assemble",
                20,
                9084349251133,
                9084350002985,
                [454216195069, 454216350942],
                [454216239576, 454216388107],
            ),
            (
                "checkpoint",
                2,
                908436361525,
                908436383939,
                [454217522280, 454218839245],
                [454217533507, 454218850432],
            ),
            (
                "fibonacci",
                1,
                454218855179,
                454218892725,
                [454218855179, 454218855179],
                [454218892725, 454218892725],
            ),
            (
                "fib_call",
                465,
                211211777344511,
                211211777609577,
                [454218857943, 454218858043],
                [454218892565, 454218880457],
            ),
        ],
    );
}

#[test]
fn golden_mixed_inputs() {
    let v = parse(include_bytes!("testdata/run_rank00000.spt")).unwrap();
    assert_eq!((v.version, v.rank), (Version::V2, 0));
    assert_eq!(
        v.to_trace().regions,
        [
            Region {
                name: "A".into(),
                source_file: Some("a.c".into()),
                source_line: Some(12),
                starts: vec![100, 300],
                ends: vec![150, 330],
            },
            Region {
                name: "B".into(),
                starts: vec![50],
                ends: vec![400],
                ..Region::default()
            },
        ]
    );
    let v = parse(include_bytes!("testdata/run_rank00001.spt")).unwrap();
    assert_eq!(
        (v.version, v.endian, v.rank),
        (Version::V1, Endian::Little, 1)
    );
    let names: Vec<_> = v.regions.iter().map(|r| r.name).collect();
    assert_eq!(names, ["C", "A"]);
}

#[test]
fn header_errors_in_the_reference_order() {
    assert_eq!(
        err(&FIXTURE_V1[..23]).kind(),
        &TraceErrorKind::TooShort { len: 23 }
    );
    assert_eq!(err(&[]).kind(), &TraceErrorKind::TooShort { len: 0 });

    let mut bad = FIXTURE_V1.to_vec();
    bad[0] = b's';
    bad[8] = 9; // also a bad version: the magic is reported first
    assert_eq!(
        err(&bad).to_string(),
        "not a scope-profiler Fortran trace (expected b'SCOPEPRF', found b'sCOPEPRF')"
    );
    bad[0] = b'S';
    assert_eq!(
        err(&bad).to_string(),
        "unsupported trace format version 9 (this scope-profiler reads versions (1, 2))"
    );
}

#[test]
fn negative_and_oversized_region_counts() {
    let mut bytes = BE_V1_EMPTY.to_vec();
    bytes[16..24].copy_from_slice(&(-1i64).to_be_bytes());
    let e = err(&bytes);
    assert_eq!(e.kind(), &TraceErrorKind::NegativeRegionCount(-1));
    assert_eq!(e.offset(), Some(16));
    assert_eq!(
        e.to_string(),
        "invalid trace: the header has a negative region count (-1) at offset 16"
    );

    // 2 regions claimed, room for one minimal v1 record (12 bytes) and a bit.
    let mut bytes = BE_V1_EMPTY.to_vec();
    bytes[16..24].copy_from_slice(&2i64.to_be_bytes());
    bytes.extend_from_slice(&[0; 15]);
    let e = err(&bytes);
    assert_eq!(
        e.kind(),
        &TraceErrorKind::TooManyRegions {
            count: 2,
            min_bytes: 24,
            available: 15
        }
    );
    assert_eq!(e.offset(), Some(24));

    bytes[16..24].copy_from_slice(&i64::MAX.to_be_bytes());
    let e = err(&bytes);
    assert_eq!(
        e.to_string(),
        "truncated trace: the header claims 9223372036854775807 regions needing at least \
         110680464442257309684 bytes at offset 24, only 15 remain"
    );
}

#[test]
fn truncated_record_is_reported_with_its_region() {
    // The second region's timestamps are cut short.
    let mut bytes = encode(
        &Trace {
            rank: 3,
            regions: vec![solve(false), {
                let mut r = solve(false);
                r.name = "fib".into();
                r
            }],
        },
        Version::V1,
        Endian::Little,
    );
    bytes.truncate(bytes.len() - 8);
    let e = err(&bytes);
    assert_eq!(
        e.kind(),
        &TraceErrorKind::Truncated {
            field: Field::Timestamps,
            region: RegionRef {
                index: 1,
                name: Some("fib".into())
            },
            needed: 48,
            available: 40
        }
    );
    assert_eq!(e.offset(), Some(89 + 4 + 3 + 8));
    assert_eq!(
        e.to_string(),
        "truncated trace: region \"fib\" (#1) needs 48 bytes of timestamps at offset 104, only \
         40 remain"
    );
}

#[test]
fn trailing_bytes() {
    let mut bytes = FIXTURE_V2.to_vec();
    bytes.extend_from_slice(&[0, 0, 0]);
    let e = err(&bytes);
    assert_eq!(e.kind(), &TraceErrorKind::TrailingBytes(3));
    assert_eq!(e.offset(), Some(105));
    assert_eq!(e.to_string(), "3 trailing byte(s) after the last region");

    // A region count that is too small leaves the other records as trailing bytes.
    let mut bytes = BE_V2.to_vec();
    bytes[23] = 1;
    assert_eq!(
        err(&bytes).kind(),
        &TraceErrorKind::TrailingBytes(BE_V2.len() as u64 - 64)
    );
}

#[test]
fn negative_rank() {
    let trace = Trace {
        rank: -3,
        regions: vec![solve(true)],
    };
    let e = err(&encode(&trace, Version::V2, Endian::Little));
    assert_eq!(e.kind(), &TraceErrorKind::NegativeRank(-3));
    assert_eq!(e.offset(), Some(12));
    assert_eq!(
        e.to_string(),
        "invalid trace: negative rank -3 at offset 12 (profiles store ranks as unsigned 32-bit \
         numbers)"
    );
    // Structural errors take precedence, as in the reference.
    let mut bytes = encode(&trace, Version::V2, Endian::Little);
    bytes.push(0);
    assert_eq!(err(&bytes).kind(), &TraceErrorKind::TrailingBytes(1));
}

#[test]
fn duplicate_region_names() {
    let mut other = solve(false);
    other.name = "other".into();
    let trace = Trace {
        rank: 0,
        regions: vec![solve(true), other, solve(false)],
    };
    let bytes = encode(&trace, Version::V2, Endian::Big);
    let e = err(&bytes);
    assert_eq!(
        e.kind(),
        &TraceErrorKind::DuplicateRegion {
            name: "solve".into(),
            first_index: 0,
            second_index: 2
        }
    );
    // 24-byte header, 81 bytes of `solve` with its source, 73 of `other` without.
    assert_eq!(e.offset(), Some(24 + 81 + 73));
    assert_eq!(
        e.to_string(),
        "invalid trace: region \"solve\" appears twice (#0 and #2, the second at offset 178)"
    );
}

#[test]
fn nul_bytes_in_names_and_sources() {
    let mut r = solve(true);
    r.name = "so\0lve".into();
    let bytes = encode(
        &Trace {
            rank: 0,
            regions: vec![r],
        },
        Version::V2,
        Endian::Little,
    );
    let e = err(&bytes);
    assert_eq!(
        e.kind(),
        &TraceErrorKind::NulInName {
            field: Field::Name,
            region: RegionRef {
                index: 0,
                name: Some("so\0lve".into())
            }
        }
    );
    assert_eq!(e.offset(), Some(24 + 4 + 2));
    assert_eq!(
        e.to_string(),
        "invalid trace: the name of region \"so\\0lve\" (#0) contains a NUL byte at offset 30"
    );

    let mut r = solve(true);
    r.source_file = Some("x\0".into());
    let bytes = encode(
        &Trace {
            rank: 0,
            regions: vec![r],
        },
        Version::V2,
        Endian::Little,
    );
    let e = err(&bytes);
    assert!(matches!(
        e.kind(),
        TraceErrorKind::NulInName {
            field: Field::SourceFile,
            ..
        }
    ));
    assert_eq!(e.offset(), Some(24 + 4 + 5 + 4 + 1));
}

#[test]
fn every_mutation_of_the_goldens_is_handled() {
    for golden in [FIXTURE_V1, FIXTURE_V2, BE_V2, G_RANK0, G_RANK1] {
        for cut in 0..golden.len() {
            assert!(parse(&golden[..cut]).is_err(), "prefix of {cut} bytes");
        }
        let mut bytes = golden.to_vec();
        for i in 0..bytes.len() {
            let orig = bytes[i];
            for b in [0x00, 0xff, 0x80, 0x7f, orig ^ 1, orig.wrapping_add(16)] {
                bytes[i] = b;
                let _ = parse(&bytes);
            }
            bytes[i] = orig;
        }
    }
}

fn name() -> impl Strategy<Value = String> {
    // Any non-control characters: no NUL, multi-byte UTF-8 included.
    "\\PC{0,6}"
}

fn region(with_source: bool) -> impl Strategy<Value = Region> {
    let source = if with_source {
        (
            proptest::option::of("\\PC{1,8}"),
            proptest::option::of(0..=i32::MAX),
        )
            .boxed()
    } else {
        Just((None, None)).boxed()
    };
    (
        source,
        proptest::collection::vec((any::<i64>(), any::<i64>()), 0..12),
    )
        .prop_map(|((source_file, source_line), calls)| Region {
            name: String::new(),
            source_file,
            source_line,
            starts: calls.iter().map(|c| c.0).collect(),
            ends: calls.iter().map(|c| c.1).collect(),
        })
}

fn trace(with_source: bool) -> impl Strategy<Value = Trace> {
    (
        0..=i32::MAX,
        proptest::collection::hash_set(name(), 0..6),
        proptest::collection::vec(region(with_source), 6),
    )
        .prop_map(|(rank, names, regions)| Trace {
            rank,
            regions: names
                .into_iter()
                .zip(regions)
                .map(|(name, r)| Region { name, ..r })
                .collect(),
        })
}

fn version_endian() -> impl Strategy<Value = (Version, Endian)> {
    (
        prop_oneof![Just(Version::V1), Just(Version::V2)],
        prop_oneof![Just(Endian::Little), Just(Endian::Big)],
    )
}

proptest! {
    #[test]
    fn round_trip_v2((_, endian) in version_endian(), t in trace(true)) {
        let bytes = encode(&t, Version::V2, endian);
        let v = parse(&bytes).unwrap();
        prop_assert_eq!((v.version, v.endian), (Version::V2, endian));
        prop_assert_eq!(v.to_trace(), t);
    }

    #[test]
    fn round_trip_v1_drops_source((_, endian) in version_endian(), t in trace(true)) {
        let bytes = encode(&t, Version::V1, endian);
        let v = parse(&bytes).unwrap();
        prop_assert_eq!((v.version, v.endian), (Version::V1, endian));
        let expected = Trace {
            rank: t.rank,
            regions: t.regions.into_iter().map(|r| Region {
                source_file: None,
                source_line: None,
                ..r
            }).collect(),
        };
        prop_assert_eq!(v.to_trace(), expected);
    }

    #[test]
    fn streaming_writer_matches_encode(
        (version, endian) in version_endian(),
        t in trace(true),
        split in 0usize..12,
    ) {
        let mut w = TraceWriter::new(Vec::new(), version, endian, t.rank, t.regions.len() as u64)
            .unwrap();
        for r in &t.regions {
            w.begin_region(&r.name, r.source_file.as_deref(), r.source_line, r.starts.len() as u64)
                .unwrap();
            let at = split.min(r.starts.len());
            w.write_starts(&r.starts[..at]).unwrap();
            w.write_starts(&r.starts[at..]).unwrap();
            w.write_ends(&r.ends[..at]).unwrap();
            w.write_ends(&r.ends[at..]).unwrap();
        }
        prop_assert_eq!(w.finish().unwrap(), encode(&t, version, endian));
    }

    #[test]
    fn truncation_is_always_an_error(
        (version, endian) in version_endian(),
        t in trace(true),
        cut in any::<prop::sample::Index>(),
    ) {
        let bytes = encode(&t, version, endian);
        let cut = cut.index(bytes.len());
        prop_assert!(parse(&bytes[..cut]).is_err());
    }

    #[test]
    fn mutations_never_panic(
        (version, endian) in version_endian(),
        t in trace(true),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
    ) {
        let mut bytes = encode(&t, version, endian);
        for (at, value) in edits {
            let i = at.index(bytes.len());
            bytes[i] = value;
        }
        let _ = parse(&bytes);
    }
}
