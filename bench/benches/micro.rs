//! Micro-benchmarks of the stages of `sp convert`, on generated workload data:
//! trace parsing with timestamp decoding, summary statistics, schema-3 encoding, deflate of
//! one shuffled 64 KiB chunk with the available backends, decoding one 8 KiB event chunk
//! through each compression filter the reader undoes, and `sp inspect`'s per-rank call
//! tree job and percentile selection.
//!
//! `cargo bench -p sp-bench` (add `-- parse` etc. to pick a group).

use std::hint::black_box;
use std::io::Write;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use sp::hdf5lite::filters::{shuffle, Deflate, ShuffleDeflate};
use sp::schema::{self, MergedProfile, Merger, RegionCalls, Summary};
use sp::trace;
use sp_bench::{write_rank, Spec, Timeline};

/// The workload the benchmarks draw their data from.
fn w1() -> Spec {
    Spec::named("W1").expect("W1 exists")
}

/// One full W1 rank (40 regions × 10,000 calls, 6.4 MB) in memory.
fn w1_rank() -> Vec<u8> {
    write_rank(Vec::new(), &w1(), 1, 0).expect("writing to a Vec cannot fail")
}

fn parse(c: &mut Criterion) {
    let bytes = w1_rank();
    let mut g = c.benchmark_group("parse");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("structure/W1 rank", |b| {
        b.iter(|| trace::parse(black_box(&bytes)).map(|v| v.regions.len()))
    });
    g.bench_function("decode timestamps/W1 rank", |b| {
        b.iter(|| {
            let view = trace::parse(black_box(&bytes)).expect("valid trace");
            let mut starts = Vec::new();
            let mut ends = Vec::new();
            for r in &view.regions {
                r.starts.extend_into(&mut starts);
                r.ends.extend_into(&mut ends);
            }
            (starts.len(), ends.len())
        })
    });
    g.finish();
}

fn statistics(c: &mut Criterion) {
    let mut g = c.benchmark_group("summary");
    for (label, spec) in [
        ("W2 row (40k calls)", Spec::named("W2").expect("W2 exists")),
        (
            "W4 slice (1M calls)",
            Spec::named("W4").expect("W4 exists").scaled(0.02),
        ),
    ] {
        let (starts, ends): (Vec<i64>, Vec<i64>) = Timeline::new(&spec, 1, 0).calls(0).unzip();
        g.throughput(Throughput::Elements(starts.len() as u64));
        g.bench_function(label, |b| {
            b.iter(|| Summary::of(black_box(&starts), black_box(&ends)))
        });
    }
    g.finish();
}

/// A merged profile of `spec` as `sp convert` builds it before encoding.
fn profile(spec: &Spec) -> MergedProfile {
    let mut merger = Merger::new();
    for rank in 0..spec.ranks {
        let bytes = write_rank(Vec::new(), spec, 1, rank).expect("writing to a Vec");
        let view = trace::parse(&bytes).expect("valid trace");
        let regions = view.regions.iter().map(RegionCalls::from).collect();
        merger
            .add_rank("bench", i64::from(view.rank), regions, None)
            .expect("distinct ranks");
    }
    merger.finish(Some("bench"))
}

/// Encodes `profile` as a complete file in memory; returns its size.
fn encode(profile: &MergedProfile) -> u64 {
    let file = schema::write::to_hdf5(profile).expect("encodable profile");
    let mut out = Vec::new();
    file.finish(&mut out).expect("writing to a Vec")
}

/// Whether the HDF5 writer is implemented in this build (it panics while it is a stub),
/// probed once on a tiny profile with the panic message silenced.
fn writer_available() -> bool {
    let tiny = profile(&w1().scaled(0.0001));
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let ok = std::panic::catch_unwind(|| encode(&tiny)).is_ok();
    std::panic::set_hook(hook);
    ok
}

fn encoding(c: &mut Criterion) {
    if !writer_available() {
        eprintln!("encode: skipped, the HDF5 writer is not implemented in this build");
        return;
    }
    let spec = w1().scaled(0.1);
    let profile = profile(&spec);
    let mut g = c.benchmark_group("encode");
    g.throughput(Throughput::Elements(profile.event_count()));
    g.bench_function("schema 3/W1 at 0.1 (320k events)", |b| {
        b.iter(|| encode(black_box(&profile)))
    });
    g.finish();
}

fn deflate(c: &mut Criterion) {
    // One 64 KiB chunk (8192 values) of a kernel's start times.
    let chunk: Vec<i64> = Timeline::new(&Spec::named("W2").expect("W2 exists"), 1, 0)
        .calls(9)
        .map(|(s, _)| s)
        .take(8192)
        .collect();
    let raw: Vec<u8> = chunk.iter().flat_map(|v| v.to_le_bytes()).collect();
    let shuffled = shuffle(&raw, 8);
    let mut g = c.benchmark_group("deflate");
    g.throughput(Throughput::Bytes(shuffled.len() as u64));
    g.bench_function("shuffle 64 KiB", |b| b.iter(|| shuffle(black_box(&raw), 8)));
    g.bench_function("level 4/zlib-rs (flate2)", |b| {
        b.iter_batched(
            || Vec::with_capacity(shuffled.len()),
            |out| {
                let mut e = flate2::write::ZlibEncoder::new(out, flate2::Compression::new(4));
                e.write_all(black_box(&shuffled)).expect("Vec write");
                e.finish().expect("Vec write").len()
            },
            BatchSize::SmallInput,
        )
    });
    g.bench_function("level 4/miniz_oxide", |b| {
        b.iter(|| miniz_oxide::deflate::compress_to_vec_zlib(black_box(&shuffled), 4).len())
    });
    // The writer's own path, shuffle included: `--compress` and `--compress=4`.
    let mut sizes = Vec::new();
    for (name, how) in [
        ("shuffle + runs/sp --compress", Deflate::Runs),
        ("shuffle + level 4/sp --compress=4", Deflate::Level(4)),
    ] {
        let mut z = ShuffleDeflate::new(how);
        let mut out = Vec::new();
        g.bench_function(name, |b| {
            b.iter(|| {
                z.chunk(black_box(&raw), 8, &mut out).expect("deflate");
                out.len()
            })
        });
        sizes.push(out.len());
    }
    g.finish();
    eprintln!(
        "deflate: 65536 bytes through sp's writer -> runs {} bytes, level 4 {} bytes",
        sizes[0], sizes[1]
    );

    let zlib_rs = {
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(4));
        e.write_all(&shuffled).expect("Vec write");
        e.finish().expect("Vec write").len()
    };
    let miniz = miniz_oxide::deflate::compress_to_vec_zlib(&shuffled, 4).len();
    eprintln!(
        "deflate: 65536 shuffled bytes -> zlib-rs {zlib_rs} bytes, miniz_oxide {miniz} bytes"
    );
}

/// Decoding one chunk through the filters the reader undoes: a profile's 8 KiB event chunk
/// as the reference's writer stored it (shuffled, then lzf by h5py or zstd by hdf5plugin:
/// `bench/data`), with each pure-Rust decoder; deflate (zlib-rs) of the same bytes for
/// scale.
fn filters(c: &mut Criterion) {
    let data = |name: &str| {
        std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("data")
                .join(name),
        )
        .expect("bench/data")
    };
    let lzf_stream = data("start_deltas_chunk1.lzf");
    let zstd_frame = data("start_deltas_chunk1.zst");
    let n = 8192;
    let shuffled = lzf::decompress(&lzf_stream, n).expect("valid lzf");
    let zlib = {
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(4));
        e.write_all(&shuffled).expect("Vec write");
        e.finish().expect("Vec write")
    };
    let mut g = c.benchmark_group("filters");
    g.throughput(Throughput::Bytes(n as u64));
    g.bench_function("lzf/lzf", |b| {
        b.iter(|| {
            lzf::decompress(black_box(&lzf_stream), n)
                .expect("valid")
                .len()
        })
    });
    g.bench_function("lzf/lzf-rust", |b| {
        b.iter(|| {
            let mut out = vec![0u8; n];
            lzf_rust::decompress(black_box(&lzf_stream), &mut out).expect("valid")
        })
    });
    g.bench_function("zstd/ruzstd", |b| {
        b.iter(|| {
            sp::hdf5lite::filters::zstd::decode(black_box(&zstd_frame), n, 0)
                .expect("valid")
                .len()
        })
    });
    g.bench_function("deflate/zlib-rs", |b| {
        b.iter(|| {
            sp::hdf5lite::filters::inflate(black_box(&zlib), n, 0)
                .expect("valid")
                .len()
        })
    });
    g.finish();
}

/// The streamed call tree of `sp inspect`: one rank's job (its calls read, ordered and
/// folded into their call paths) on W2 at 0.1 scale (50 regions × 4,000 calls), and the
/// percentiles of one W2 row's durations by the histogram selection.
fn inspect(c: &mut Criterion) {
    use sp::analysis::rows::{RowOptions, TreeJobs};
    use sp::analysis::{load, quantiles, Selection};
    use sp::hdf5lite::reader::File;
    use sp::schema::EventReader;

    let spec = Spec::named("W2").expect("W2 exists").scaled(0.1);
    let one_rank = Spec { ranks: 1, ..spec };
    let bytes = {
        let file = schema::write::to_hdf5(&profile(&one_rank)).expect("encodable profile");
        let mut out = Vec::new();
        file.finish(&mut out).expect("writing to a Vec");
        out
    };
    let file = File::open(&bytes[..]).expect("the profile just written");
    let index = load::read_for_jobs(&file).expect("readable profile");
    let reader = EventReader::open(&file).expect("readable events");
    let jobs = TreeJobs::plan(&index, &Selection::all(), RowOptions::default())
        .expect("the whole tree streams");
    let calls = u64::from(spec.regions) * spec.calls;
    let mut g = c.benchmark_group("inspect");
    g.throughput(Throughput::Elements(calls));
    g.bench_function("tree/W2 rank at 0.1 (200k calls)", |b| {
        b.iter(|| jobs.run(0, reader.as_ref()).map(black_box))
    });
    let durations: Vec<i64> = Timeline::new(&Spec::named("W2").expect("W2 exists"), 1, 0)
        .calls(0)
        .map(|(s, e)| e - s)
        .collect();
    g.throughput(Throughput::Elements(durations.len() as u64));
    g.bench_function("percentiles/W2 row (40k calls)", |b| {
        b.iter(|| quantiles::of_durations(black_box(&durations)))
    });
    g.finish();
}

criterion_group!(benches, parse, statistics, encoding, deflate, filters, inspect);
criterion_main!(benches);
