//! A profile of 20,000 ranks (small enough for CI) through the commands that read its
//! index: a cost that grows with ranks² (a linear search per row, as `sp inspect --flat`
//! once did, which took over 300 s at 100,000 ranks) fails here. The same commands on
//! 5,000 ranks must take over a quarter of the time, within a margin (a quadratic takes a
//! sixteenth), and each has a generous time limit. The speed targets themselves are in
//! bench/ranks.py.

mod support;

use std::io::BufWriter;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;
use sp::trace::{Endian, TraceWriter, Version};
use support::{run_ok, scratch_dir, sp};

const RANKS: u32 = 20_000;
/// The smaller profile the growth is measured from.
const FEWER: u32 = 5_000;
/// 4x the ranks may take at most this many times as long: linear gives about 4 (less,
/// with the fixed costs), quadratic 16.
const GROWTH: f64 = 6.0;
/// A root region and nine children called one after another inside it, as W6 has.
const CHILDREN: u32 = 9;
const CALLS: u64 = 2;
/// Generous for a debug build on a loaded 2-core runner: each command takes 2-4 s.
const LIMIT: Duration = Duration::from_secs(60);

/// Rank `rank`'s trace: `step` calls of 1,000 ns every 2,000 ns, each holding its nine
/// children of 50 ns, 100 ns apart; rank 7 takes 90 ns in `kernel3` (still nested).
fn write_trace(dir: &Path, rank: u32) {
    let path = dir.join(format!("many_rank{rank:05}.spt"));
    let file = BufWriter::new(std::fs::File::create(&path).unwrap());
    let mut w = TraceWriter::new(
        file,
        Version::V2,
        Endian::Little,
        rank as i32,
        u64::from(CHILDREN) + 1,
    )
    .unwrap();
    let base = 1_000_000 + i64::from(rank % 97);
    let starts: Vec<i64> = (0..CALLS as i64).map(|c| base + 2_000 * c).collect();
    w.begin_region("step", Some("main.c"), Some(10), CALLS)
        .unwrap();
    w.write_starts(&starts).unwrap();
    w.write_ends(&starts.iter().map(|s| s + 1_000).collect::<Vec<_>>())
        .unwrap();
    for k in 0..CHILDREN {
        let took = if rank == 7 && k == 3 { 90 } else { 50 };
        let at: Vec<i64> = starts.iter().map(|s| s + 1 + 100 * i64::from(k)).collect();
        w.begin_region(
            &format!("kernel{k}"),
            Some("kernels.c"),
            Some(20 + k as i32),
            CALLS,
        )
        .unwrap();
        w.write_starts(&at).unwrap();
        w.write_ends(&at.iter().map(|s| s + took).collect::<Vec<_>>())
            .unwrap();
    }
    w.finish().unwrap();
}

/// Runs `sp ARGS` in `dir` within [`LIMIT`]; its stdout and how long it took.
fn timed(dir: &Path, args: &[&str]) -> (String, Duration) {
    let started = Instant::now();
    let out = run_ok(sp().current_dir(dir).args(args));
    let took = started.elapsed();
    eprintln!("sp {args:?}: {took:?}");
    assert!(took < LIMIT, "sp {args:?} took {took:?}");
    (String::from_utf8(out.stdout).unwrap(), took)
}

/// `ranks` ranks' traces converted into `dir/NAME`.
fn profile(dir: &Path, ranks: u32, name: &str) {
    let traces = dir.join(format!("traces_{ranks}"));
    std::fs::create_dir(&traces).unwrap();
    for rank in 0..ranks {
        write_trace(&traces, rank);
    }
    let traces = traces.to_str().unwrap();
    timed(dir, &["convert", traces, "-o", name, "-q"]);
}

/// The three commands on `file`: their outputs and their summed time.
fn read_index(dir: &Path, file: &str) -> ([Value; 3], Duration) {
    let commands: [&[&str]; 3] = [
        &["inspect", file, "--flat", "--format", "json"],
        &["inspect", file, "--format", "json"],
        &["diff", file, file, "--format", "json"],
    ];
    let mut total = Duration::ZERO;
    let outputs = commands.map(|args| {
        let (out, took) = timed(dir, args);
        total += took;
        serde_json::from_str(&out).unwrap()
    });
    (outputs, total)
}

fn region<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["files"][0]["regions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no region {name}"))
}

#[test]
fn twenty_thousand_ranks_read_in_linear_time() {
    let scratch = scratch_dir("many-ranks");
    let dir: &Path = &scratch;
    profile(dir, FEWER, "fewer.h5");
    profile(dir, RANKS, "many.h5");
    let (_, fewer) = read_index(dir, "fewer.h5");
    let ([flat, tree, diff], many) = read_index(dir, "many.h5");
    let growth = many.as_secs_f64() / fewer.as_secs_f64();
    assert!(
        growth < GROWTH,
        "{RANKS} ranks took {growth:.1}x as long as {FEWER} ({many:?} against {fewer:?})"
    );

    assert_eq!(flat["files"][0]["num_ranks"], RANKS);
    let step = region(&flat, "step");
    assert_eq!(step["calls"], u64::from(RANKS) * CALLS);
    // 20,000 ranks x 2 calls of 1,000 ns.
    assert!((step["total"].as_f64().unwrap() - 40_000.0 * 1e-6).abs() < 1e-12);
    // kernel3: every call 50 ns but rank 7's, 90 ns.
    let kernel3 = region(&flat, "kernel3");
    let expected = (f64::from(RANKS - 1) * 2.0 * 50.0 + 2.0 * 90.0) * 1e-9;
    assert!((kernel3["total"].as_f64().unwrap() - expected).abs() < 1e-12);
    assert_eq!(kernel3["max"].as_f64().unwrap(), 90e-9);

    let kernel0 = region(&tree, "kernel0");
    assert_eq!(kernel0["depth"], 1, "kernel0 nests in step: {kernel0}");
    assert_eq!(kernel0["calls"], u64::from(RANKS) * CALLS);

    let rows = diff["rows"].as_array().expect("diff rows");
    assert_eq!(rows.len(), 1 + CHILDREN as usize);
    assert!(
        rows.iter().all(|r| r["delta"] == 0.0),
        "a profile differs from itself: {diff}"
    );
}
