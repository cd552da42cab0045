//! The streaming timeline summary (`sp::analysis::timeline`) on a generated profile of 1.6 M
//! calls: at the whole run and at windows down to a few calls wide it equals a summary
//! computed here from every call (nested by `calltree::build`), and its memory stays that of
//! the picture while stacking one rank whole takes many times more.

use std::collections::HashMap;

use sp::analysis::calltree;
use sp::analysis::events::Loaded;
use sp::analysis::lanes::stack_rank;
use sp::analysis::timeline::{Pixel, RankIndex, View};
use sp::hdf5lite::reader::File;
use sp::schema::{read, Depth, EventReader, Merger, RegionCalls};
use sp::trace::{encode, parse, Endian, Region, Trace, Version};

/// The profile's bytes, counting what is read of them.
struct Counted {
    bytes: Vec<u8>,
    read: std::cell::Cell<u64>,
}

impl sp::io::ReadAt for Counted {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        self.read.set(self.read.get() + buf.len() as u64);
        self.bytes.read_exact_at(offset, buf)
    }
}

/// A field of `/proc/self/status`, in KiB.
fn status_kib(field: &str) -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with(field)).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Bytes of fresh memory the process touched while `f` ran: its peak resident set (reset
/// before, through `clear_refs`) over its resident set before.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    std::fs::write("/proc/self/clear_refs", "5").unwrap();
    let before = status_kib("VmRSS:");
    let out = f();
    (out, (status_kib("VmHWM:").saturating_sub(before)) << 10)
}

const RANKS: u32 = 4;
const STEPS: i64 = 40_000;

/// Rank `rank`'s trace: `STEPS` calls of `step`, each holding three phases one after
/// another, each phase two kernels (10 calls a step), durations varying per call.
fn trace(rank: u32) -> Trace {
    let names = [
        "step", "phase0", "k00", "k01", "phase1", "k10", "k11", "phase2", "k20", "k21",
    ];
    let mut rows: Vec<(Vec<i64>, Vec<i64>)> = vec![(Vec::new(), Vec::new()); names.len()];
    let mut mix = 0x1234_5678u64 ^ u64::from(rank);
    let mut next = |m: i64| {
        mix = mix
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((mix >> 33) % m as u64) as i64
    };
    let mut t = 1_000_000 + 1000 * i64::from(rank);
    for _ in 0..STEPS {
        let step_start = t;
        t += 1 + next(50);
        for phase in 0..3 {
            let p = 1 + 3 * phase;
            let phase_start = t;
            for kernel in 0..2 {
                let k = p + 1 + kernel;
                t += next(20);
                rows[k].0.push(t);
                t += 1 + next(2000);
                rows[k].1.push(t);
            }
            t += next(30);
            rows[p].0.push(phase_start);
            rows[p].1.push(t);
        }
        t += 1 + next(40);
        rows[0].0.push(step_start);
        rows[0].1.push(t);
        t += next(100);
    }
    Trace {
        rank: rank as i32,
        regions: names
            .iter()
            .zip(rows)
            .map(|(name, (starts, ends))| Region {
                name: (*name).into(),
                source_file: None,
                source_line: None,
                starts,
                ends,
            })
            .collect(),
    }
}

fn profile_bytes() -> Vec<u8> {
    let mut merger = Merger::new();
    for rank in 0..RANKS {
        let bytes = encode(&trace(rank), Version::V2, Endian::Little);
        let view = parse(&bytes).unwrap();
        let regions = view.regions.iter().map(RegionCalls::from).collect();
        let name = format!("run_rank{rank:05}.spt");
        merger
            .add_rank(&name, i64::from(rank), regions, None)
            .unwrap();
    }
    let mut out = Vec::new();
    sp::schema::write::to_hdf5(&merger.finish(Some("timeline")))
        .unwrap()
        .finish(&mut out)
        .unwrap();
    out
}

/// The summary of `rank` in `view` from every call: nested whole, each call's time split
/// over the pixels it touches.
fn from_every_call(calls: &[calltree::Call], view: &View) -> Vec<Vec<Pixel>> {
    let depths = calls.iter().map(|c| c.depth + 1).max().unwrap_or(0);
    let w = view.width as i128;
    let d = i128::from(view.t1 - view.t0);
    let edges: Vec<i64> = (0..=view.width)
        .map(|p| (i128::from(view.t0) + (p as i128 * d + w - 1) / w) as i64)
        .collect();
    let mut lanes = vec![vec![(0i64, 0u64, 0u64, HashMap::<u32, i64>::new()); view.width]; depths];
    for c in calls {
        let (s, e) = (c.start_ns, c.end_ns);
        let reach = e.max(s + 1);
        // The pixels whose edges the call lies across.
        let first = edges.partition_point(|&x| x <= s).saturating_sub(1);
        let last = edges.partition_point(|&x| x < reach).min(view.width);
        let mut touched = false;
        for p in first..last {
            let (lo, hi) = (edges[p], edges[p + 1]);
            if s < hi && reach > lo {
                let time = (e.min(hi) - s.max(lo)).max(0);
                let px = &mut lanes[c.depth][p];
                px.0 += time;
                px.1 += 1;
                px.2 += u64::from(!touched);
                touched = true;
                *px.3.entry(c.region as u32).or_default() += time;
            }
        }
    }
    lanes
        .into_iter()
        .map(|lane| {
            lane.into_iter()
                .map(|(busy, calls, first, by)| {
                    let best = by
                        .into_iter()
                        .max_by_key(|&(r, t)| (t, std::cmp::Reverse(r)));
                    Pixel {
                        busy,
                        calls,
                        first,
                        region: best.map(|b| b.0),
                        region_busy: best.map_or(0, |b| b.1),
                    }
                })
                .collect()
        })
        .collect()
}

#[test]
fn the_summary_equals_one_from_every_call_in_the_memory_of_the_picture() {
    let counted = Counted {
        bytes: profile_bytes(),
        read: Default::default(),
    };
    let file = File::open(&counted).unwrap();
    let index = read(&file, Depth::Index).unwrap();
    let reader = EventReader::open(&file).unwrap().unwrap();

    // Memory, before anything else is held: one rank's 400,000 calls summarised (the first
    // pass and a window) against the same rank stacked whole; the window reads a sliver.
    let view = View {
        t0: 0,
        t1: i64::MAX / 2,
        width: 200,
    };
    let ((whole_run, window, read_whole, read_window), streamed) = peak_of(|| {
        let mut r = RankIndex::new(&index, 1, |_| true);
        let at = counted.read.get();
        let whole = r.summary(&index, &reader, &view).unwrap();
        let read_whole = counted.read.get() - at;
        let (lo, _) = r.span().unwrap();
        let part = View {
            t0: lo + 1_000_000,
            t1: lo + 2_000_000,
            width: 200,
        };
        let at = counted.read.get();
        let window = r.summary(&index, &reader, &part).unwrap();
        (whole, window, read_whole, counted.read.get() - at)
    });
    let calls: u64 = whole_run.lanes.iter().flatten().map(|p| p.calls).sum();
    assert_eq!(calls, 10 * STEPS as u64);
    assert!(window.lanes[2].iter().any(|p| p.calls > 0));
    let (_, whole) = peak_of(|| stack_rank(&index, &reader, 1, |_| true, |_| true).unwrap());
    assert!(streamed < 2 << 20, "the summary took {streamed} bytes");
    assert!(whole > 16 << 20, "stacking whole took {whole} bytes");
    // Both columns of 400,000 calls, then a window of about 300 steps of ~10 blocks.
    assert!(read_whole >= 2 * 8 * 10 * STEPS as u64, "{read_whole}");
    assert!(
        read_window < read_whole / 20,
        "{read_window} of {read_whole}"
    );

    let every = read(&file, Depth::Events).unwrap();
    for rank in 0..RANKS {
        let mut streamed = RankIndex::new(&index, rank, |_| true);
        let refs: Vec<&sp::schema::Region> = every.regions.iter().collect();
        let calls = calltree::build(&refs, rank).expect("the generated calls nest");
        let (lo, hi) = every
            .regions
            .iter()
            .filter_map(|r| r.rank(rank))
            .flat_map(|r| r.starts.iter().zip(&r.ends))
            .fold((i64::MAX, i64::MIN), |(a, b), (&s, &e)| {
                (a.min(s), b.max(e))
            });
        let span = hi - lo;
        // The whole run first (it reads and indexes every call), then windows from a
        // tenth of it down to a few steps, at the start, in the middle and at the end.
        let windows = [
            (lo, hi + 1, 120),
            (lo + span / 3, lo + span / 3 + span / 10, 97),
            (lo + span / 2, lo + span / 2 + 50_000, 80),
            (hi - 30_000, hi + 5, 33),
            (lo + 7, lo + 7 + 3_000, 40),
        ];
        for (k, &(t0, t1, width)) in windows.iter().enumerate() {
            let view = View { t0, t1, width };
            let got = streamed.summary(&index, &reader, &view).unwrap();
            assert!(!got.improper && got.deeper == 0);
            let want = from_every_call(&calls, &view);
            assert_eq!(got.lanes.len(), 3, "rank {rank}, window {k}");
            assert_eq!(got.lanes, want, "rank {rank}, window {k}");
            if k == 0 {
                assert_eq!(streamed.span(), Some((lo, hi)));
                // The loaded profile summarises the same.
                let mut loaded = RankIndex::new(&every, rank, |_| true);
                assert_eq!(loaded.summary(&every, &Loaded, &view).unwrap().lanes, want);
                // The top lane's time is every step's.
                let steps = every.regions[0].rank(rank).unwrap();
                let total: i64 = steps
                    .starts
                    .iter()
                    .zip(&steps.ends)
                    .map(|(s, e)| e - s)
                    .sum();
                assert_eq!(got.lanes[0].iter().map(|p| p.busy).sum::<i64>(), total);
            }
        }
    }
}
