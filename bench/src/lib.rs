//! Benchmark workloads for `sp`: deterministic, realistic per-rank traces of any size,
//! written with [`sp::trace::TraceWriter`] without ever holding a whole region in memory.
//!
//! Each rank runs a loop of `calls` iterations. Every iteration is one call of the root
//! region `timestep`; inside it, a few `phase` regions run one after another, and inside
//! each phase a few `kernel` regions. So every region is called once per iteration, its
//! starts increase, every call ends at or after its start, and children lie inside their
//! parent's call, as in a real instrumented run.
//!
//! The timeline is counter-based: any call of any region is computed from the seed, the
//! rank, the region and the iteration through a hash, plus the running start of the root
//! loop. A region's calls are therefore produced in order in O(depth) each, once for the
//! starts and once again for the ends, which is what the trace layout (all starts, then all
//! ends) needs for streaming.
//!
//! Durations are log-normal: the root's directly, and each child's as a share of its
//! parent's that varies from call to call. Gaps between consecutive calls (between loop
//! iterations, and between siblings and their parent's edges) are log-uniform in
//! 100 ns–10 µs, shrunk only where a very short parent leaves no room.
//!
//! ```
//! use sp_bench::{write_rank, Spec};
//!
//! let spec = Spec::named("W1").unwrap().scaled(0.001);
//! let bytes = write_rank(Vec::new(), &spec, 1, 0)?;
//! let view = sp::trace::parse(&bytes).unwrap();
//! assert_eq!(view.regions.len(), 40);
//! assert_eq!(view.regions[0].name, "timestep");
//! assert_eq!(view.regions[0].calls(), 10);
//! # Ok::<(), std::io::Error>(())
//! ```

use std::io::{self, Write};

use sp::trace::{Endian, TraceWriter, Version};

/// The shape of a workload: how many ranks, regions per rank and calls per region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spec {
    pub name: &'static str,
    pub ranks: u32,
    pub regions: u32,
    pub calls: u64,
}

/// The benchmark workloads of the issue, at full scale.
pub const WORKLOADS: [Spec; 5] = [
    Spec {
        name: "W1",
        ranks: 8,
        regions: 40,
        calls: 10_000,
    },
    Spec {
        name: "W2",
        ranks: 32,
        regions: 50,
        calls: 40_000,
    },
    Spec {
        name: "W3",
        ranks: 2048,
        regions: 20,
        calls: 50,
    },
    Spec {
        name: "W4",
        ranks: 1,
        regions: 1,
        calls: 50_000_000,
    },
    Spec {
        name: "W6",
        ranks: 100_000,
        regions: 10,
        calls: 20,
    },
];

impl Spec {
    /// The workload called `name` (`W1` … `W4`, `W6`, any case).
    pub fn named(name: &str) -> Option<Spec> {
        WORKLOADS
            .iter()
            .find(|w| w.name.eq_ignore_ascii_case(name))
            .copied()
    }

    /// The same workload with `factor` times the calls per region (rounded, at least one).
    /// Ranks and regions are kept, so the file count and the profile's shape stay the same.
    pub fn scaled(self, factor: f64) -> Spec {
        let calls = (self.calls as f64 * factor).round();
        let calls = if calls.is_finite() && calls >= 1.0 {
            calls as u64
        } else {
            1
        };
        Spec { calls, ..self }
    }

    /// The same workload over `ranks` ranks (at least one): the rank-scaling benchmark runs
    /// W6's shape at 1,000, 10,000 and 100,000 ranks.
    pub fn with_ranks(self, ranks: u32) -> Spec {
        Spec {
            ranks: ranks.max(1),
            ..self
        }
    }

    /// Size in bytes of one rank's trace file.
    pub fn rank_bytes(&self) -> u64 {
        let heads: u64 = (0..self.regions)
            .map(|r| {
                let info = RegionInfo::new(r, self.regions);
                // v2 record head: name length, name, source length, source, line, count.
                (4 + info.name.len() + 4 + info.source_file.len() + 4 + 8) as u64
            })
            .sum();
        24 + heads + u64::from(self.regions) * self.calls * 16
    }

    /// Size in bytes of all trace files.
    pub fn total_bytes(&self) -> u64 {
        self.rank_bytes() * u64::from(self.ranks)
    }

    /// The trace file name of `rank`, as the C API names it (`%05d`).
    pub fn file_name(&self, rank: u32) -> String {
        format!("{}_rank{rank:05}.spt", self.name)
    }
}

/// Name, source location and place in the call tree of one region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionInfo {
    pub name: String,
    pub source_file: String,
    pub source_line: i32,
    /// `None` for the root.
    pub parent: Option<u32>,
}

impl RegionInfo {
    /// Region `id` of a rank with `count` regions. Id 0 is the root; ids `1..=phases` are
    /// its children; the rest are kernels dealt round-robin to the phases.
    pub fn new(id: u32, count: u32) -> RegionInfo {
        let phases = phase_count(count);
        let (name, source_file, parent) = if id == 0 {
            ("timestep".to_owned(), "main.c", None)
        } else if id <= phases {
            (format!("phase{id:02}"), "phases.c", Some(0))
        } else {
            let k = id - phases - 1;
            let phase = k % phases + 1;
            (
                format!("phase{phase:02}_kernel{:02}", k / phases + 1),
                "kernels.c",
                Some(phase),
            )
        };
        RegionInfo {
            name,
            source_file: source_file.to_owned(),
            source_line: i32::try_from(10 + 12 * u64::from(id)).unwrap_or(i32::MAX),
            parent,
        }
    }
}

/// Number of phase regions under the root: about the square root of the non-root regions,
/// so phases and kernels per phase are balanced.
fn phase_count(regions: u32) -> u32 {
    let rest = regions.saturating_sub(1);
    let mut k = 0u32;
    while k * k < rest {
        k += 1;
    }
    k
}

/// The file order of regions: the order a C run registers them in (first call), which is
/// the root, then each phase followed by its kernels.
pub fn registration_order(count: u32) -> Vec<u32> {
    let phases = phase_count(count);
    let mut order = Vec::with_capacity(count as usize);
    if count > 0 {
        order.push(0);
    }
    for phase in 1..=phases.min(count.saturating_sub(1)) {
        order.push(phase);
        order.extend(
            (phases + 1..count).filter(|&id| RegionInfo::new(id, count).parent == Some(phase)),
        );
    }
    order
}

/// SplitMix64's output function: a bijective 64-bit mixer, used as a counter-based PRNG.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

/// The `i`-th value of the stream named `key`.
fn draw(key: u64, i: u64) -> u64 {
    mix(key.wrapping_add(i.wrapping_mul(GOLDEN)))
}

/// A key for a sub-stream of `key`.
fn subkey(key: u64, part: u64) -> u64 {
    mix(key ^ mix(part.wrapping_add(GOLDEN)))
}

/// Log-uniform gaps of 100 ns–10 µs, indexed by 10 random bits.
fn gap_table() -> [i64; 1024] {
    let mut table = [0i64; 1024];
    for (k, slot) in table.iter_mut().enumerate() {
        *slot = (100.0 * 100f64.powf(k as f64 / 1023.0)).round() as i64;
    }
    table
}

/// A standard normal deviate, approximately: the Irwin–Hall sum of four 12-bit uniforms,
/// rescaled (bounded to ±3.46, which keeps durations finite and positive).
fn normal(bits: u64) -> f64 {
    let u = |shift: u32| ((bits >> shift) & 0xfff) as f64 / 4096.0;
    (u(0) + u(12) + u(24) + u(36) - 2.0) * 3f64.sqrt()
}

/// Spread of the log-normal durations (σ of the underlying normal).
const SIGMA: f64 = 0.5;

/// How one parent's call is divided among its children.
#[derive(Debug, Clone)]
struct Family {
    /// Per boundary: the key of its random stream.
    keys: Vec<u64>,
    /// Cumulative shares: child `c` owns `[cum[c], cum[c + 1])` of the parent's call,
    /// before jitter.
    cum: Vec<f64>,
    /// How far each boundary may move, as a share of the parent's call.
    jitter: Vec<f64>,
}

impl Family {
    fn new(key: u64, children: usize) -> Family {
        let weights: Vec<f64> = (0..children as u64)
            .map(|c| 8f64.powf((draw(subkey(key, 1), c) >> 11) as f64 / (1u64 << 53) as f64))
            .collect();
        let total: f64 = weights.iter().sum();
        let mut cum = Vec::with_capacity(children + 1);
        let mut acc = 0.0;
        cum.push(0.0);
        for w in &weights {
            acc += w / total;
            cum.push(acc);
        }
        if let Some(last) = cum.last_mut() {
            *last = 1.0;
        }
        // Inner boundaries move by up to 40% of the smaller neighbour, so every child
        // keeps at least 20% of its share.
        let jitter = (0..=children)
            .map(|b| {
                if b == 0 || b == children {
                    0.0
                } else {
                    0.4 * (weights[b - 1].min(weights[b]) / total)
                }
            })
            .collect();
        let keys = (0..=children as u64).map(|b| subkey(key, 2 + b)).collect();
        Family { keys, cum, jitter }
    }

    /// Child `c`'s call inside the parent's call `(ps, pe)` of iteration `i`.
    fn child(&self, c: usize, i: u64, (ps, pe): (i64, i64), gaps: &[i64; 1024]) -> (i64, i64) {
        let len = (pe - ps) as f64;
        // Boundary `b`: its position and the gaps just after and just before it.
        // Between siblings the gap is two halves; at the parent's edges, a whole one.
        let last = self.cum.len() - 1;
        let boundary = |b: usize| -> (i64, i64, i64) {
            let bits = draw(self.keys[b], i);
            let half = |g: i64, edge: bool| if edge { g } else { g / 2 };
            let after = half(gaps[(bits & 0x3ff) as usize], b == 0);
            let before = half(gaps[((bits >> 10) & 0x3ff) as usize], b == last);
            let shift = ((bits >> 20) as f64 / (1u64 << 44) as f64 * 2.0 - 1.0) * self.jitter[b];
            let at = if b == 0 {
                ps
            } else if b == last {
                pe
            } else {
                ps + ((self.cum[b] + shift) * len) as i64
            };
            (at, after, before)
        };
        let (lo, after, _) = boundary(c);
        let (hi, _, before) = boundary(c + 1);
        let room = (hi - lo) / 4;
        (lo + after.min(room), hi - before.min(room))
    }
}

/// One rank's timeline: its regions and how to compute any call of any of them.
#[derive(Debug, Clone)]
pub struct Timeline {
    regions: Vec<RegionInfo>,
    /// Per region: its index among its parent's children.
    child_index: Vec<usize>,
    /// Per region: how its own calls are divided among its children.
    families: Vec<Family>,
    root_key: u64,
    root_median: f64,
    origin: i64,
    calls: u64,
    gaps: [i64; 1024],
}

impl Timeline {
    /// Rank `rank` of workload `spec` with `seed`. Region shares are the same on every
    /// rank (the same code runs everywhere); durations, gaps and the start differ.
    pub fn new(spec: &Spec, seed: u64, rank: u32) -> Timeline {
        let count = spec.regions;
        let regions: Vec<RegionInfo> = (0..count).map(|id| RegionInfo::new(id, count)).collect();
        let mut children: Vec<Vec<u32>> = vec![Vec::new(); regions.len()];
        let mut child_index = vec![0usize; regions.len()];
        for (id, info) in (0u32..).zip(&regions) {
            if let Some(p) = info.parent {
                child_index[id as usize] = children[p as usize].len();
                children[p as usize].push(id);
            }
        }
        let code_key = subkey(seed, 0xc0de);
        let families = (0u64..)
            .zip(&children)
            .map(|(id, kids)| Family::new(subkey(code_key, id), kids.len()))
            .collect();
        let rank_key = subkey(subkey(seed, 0x4a4b), u64::from(rank));
        // A lone region is a hot inner call of about 2 µs; a loop body, about 2 ms.
        let root_median = if count <= 1 { 2_000.0 } else { 2_000_000.0 };
        // CLOCK_MONOTONIC-like origin: hours of uptime, plus up to 2 ms of rank skew.
        let origin = 3_600_000_000_000
            + (draw(subkey(seed, 0x0), 0) % 1_000_000_000_000) as i64
            + (draw(rank_key, u64::MAX) % 2_000_000) as i64;
        Timeline {
            regions,
            child_index,
            families,
            root_key: subkey(rank_key, 1),
            root_median,
            origin,
            calls: spec.calls,
            gaps: gap_table(),
        }
    }

    /// The regions, by id.
    pub fn regions(&self) -> &[RegionInfo] {
        &self.regions
    }

    /// The calls `(start, end)` of region `id`, in order. Panics if `id` is out of range.
    pub fn calls(&self, id: u32) -> Calls<'_> {
        let mut path = Vec::new();
        let mut at = id;
        while let Some(parent) = self.regions[at as usize].parent {
            path.push((parent, self.child_index[at as usize]));
            at = parent;
        }
        path.reverse();
        Calls {
            timeline: self,
            path,
            i: 0,
            root_start: self.origin,
        }
    }
}

/// Iterator over one region's calls; see [`Timeline::calls`].
#[derive(Debug, Clone)]
pub struct Calls<'a> {
    timeline: &'a Timeline,
    /// From the root down: (parent id, index of the next region on the path among its
    /// children).
    path: Vec<(u32, usize)>,
    i: u64,
    root_start: i64,
}

impl Iterator for Calls<'_> {
    type Item = (i64, i64);

    fn next(&mut self) -> Option<(i64, i64)> {
        let t = self.timeline;
        if self.i >= t.calls {
            return None;
        }
        let bits = draw(t.root_key, self.i);
        let duration = (t.root_median * (SIGMA * normal(bits)).exp()) as i64;
        let start = self.root_start;
        let end = start + duration.max(1);
        self.root_start = end + t.gaps[(bits >> 54) as usize];
        let mut call = (start, end);
        for &(parent, c) in &self.path {
            call = t.families[parent as usize].child(c, self.i, call, &t.gaps);
        }
        self.i += 1;
        Some(call)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = usize::try_from(self.timeline.calls - self.i).unwrap_or(usize::MAX);
        (left, Some(left))
    }
}

/// Values handed to the trace writer at a time.
const CHUNK: usize = 8192;

/// Writes rank `rank` of `spec` as a version-2 little-endian trace to `out`, region by
/// region in registration order, and returns `out`. Memory use is a few chunks, whatever
/// the size.
pub fn write_rank<W: Write>(out: W, spec: &Spec, seed: u64, rank: u32) -> io::Result<W> {
    let timeline = Timeline::new(spec, seed, rank);
    let rank_i32 = i32::try_from(rank)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "rank too large"))?;
    let mut w = TraceWriter::new(
        out,
        Version::V2,
        Endian::Little,
        rank_i32,
        u64::from(spec.regions),
    )?;
    let mut buf: Vec<i64> = Vec::with_capacity(CHUNK);
    for id in registration_order(spec.regions) {
        let info = &timeline.regions()[id as usize];
        w.begin_region(
            &info.name,
            Some(&info.source_file),
            Some(info.source_line),
            spec.calls,
        )?;
        for want_end in [false, true] {
            let mut calls = timeline.calls(id);
            loop {
                buf.clear();
                buf.extend(
                    calls
                        .by_ref()
                        .take(CHUNK)
                        .map(|(s, e)| if want_end { e } else { s }),
                );
                if buf.is_empty() {
                    break;
                }
                if want_end {
                    w.write_ends(&buf)?;
                } else {
                    w.write_starts(&buf)?;
                }
            }
        }
    }
    w.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sp::trace::parse;

    fn spec(regions: u32, calls: u64) -> Spec {
        Spec {
            name: "T",
            ranks: 2,
            regions,
            calls,
        }
    }

    #[test]
    fn workloads_have_the_issue_sizes() {
        let mib = |w: &str| Spec::named(w).unwrap().total_bytes() as f64 / (1 << 20) as f64;
        assert_eq!(mib("W1").round(), 49.0);
        assert_eq!(mib("W2").round(), 977.0);
        assert_eq!(mib("W3").round(), 33.0);
        assert_eq!(mib("W4").round(), 763.0);
        assert_eq!(mib("W6").round(), 346.0);
        assert_eq!(Spec::named("w4").unwrap().calls, 50_000_000);
        assert_eq!(Spec::named("W5"), None);
    }

    #[test]
    fn scaling_changes_only_calls_and_keeps_one() {
        let w3 = Spec::named("W3").unwrap();
        assert_eq!(w3.scaled(0.1).calls, 5);
        assert_eq!(w3.scaled(0.0).calls, 1);
        assert_eq!(w3.scaled(f64::NAN).calls, 1);
        assert_eq!(w3.scaled(0.1).ranks, 2048);
        assert_eq!(w3.scaled(0.1).regions, 20);
    }

    #[test]
    fn file_names_follow_the_c_api() {
        let w1 = Spec::named("W1").unwrap();
        assert_eq!(w1.file_name(7), "W1_rank00007.spt");
        assert_eq!(w1.file_name(1_234_567), "W1_rank1234567.spt");
    }

    #[test]
    fn call_tree_is_root_phases_kernels() {
        // 20 regions: root, 5 phases (ceil(sqrt(19))), 14 kernels.
        assert_eq!(phase_count(20), 5);
        assert_eq!(phase_count(1), 0);
        assert_eq!(phase_count(2), 1);
        let r = |id| RegionInfo::new(id, 20);
        assert_eq!(r(0).name, "timestep");
        assert_eq!(r(0).parent, None);
        assert_eq!(r(3).name, "phase03");
        assert_eq!(r(3).parent, Some(0));
        // Kernels 6.. go round-robin: 6 → phase 1, 7 → phase 2, 11 → phase 1 again.
        assert_eq!(r(6).name, "phase01_kernel01");
        assert_eq!(r(6).parent, Some(1));
        assert_eq!(r(7).parent, Some(2));
        assert_eq!(r(11).name, "phase01_kernel02");
        assert_eq!(r(11).source_line, 142);
        assert_eq!(
            registration_order(8),
            [0, 1, 4, 7, 2, 5, 3, 6],
            "3 phases; kernels 4..8 dealt to phases 1, 2, 3, 1"
        );
        assert_eq!(registration_order(1), [0]);
    }

    #[test]
    fn written_trace_parses_with_the_rank_size_and_regions() {
        let s = spec(8, 100);
        let bytes = write_rank(Vec::new(), &s, 42, 1).unwrap();
        assert_eq!(bytes.len() as u64, s.rank_bytes());
        let view = parse(&bytes).unwrap();
        assert_eq!(view.rank, 1);
        let names: Vec<&str> = view.regions.iter().map(|r| r.name).collect();
        assert_eq!(
            names,
            [
                "timestep",
                "phase01",
                "phase01_kernel01",
                "phase01_kernel02",
                "phase02",
                "phase02_kernel01",
                "phase03",
                "phase03_kernel01"
            ]
        );
        assert_eq!(view.regions[2].source_file, Some("kernels.c"));
        assert_eq!(view.regions[2].source_line, Some(58));
        assert!(view.regions.iter().all(|r| r.calls() == 100));
    }

    #[test]
    fn calls_nest_increase_and_keep_gaps_in_range() {
        let s = spec(20, 2000);
        let t = Timeline::new(&s, 7, 3);
        let all: Vec<Vec<(i64, i64)>> = (0..20).map(|id| t.calls(id).collect()).collect();
        for (id, calls) in all.iter().enumerate() {
            assert_eq!(calls.len(), 2000);
            for (i, &(s, e)) in calls.iter().enumerate() {
                assert!(e >= s, "region {id} call {i}: end before start");
                if i > 0 {
                    assert!(
                        s > calls[i - 1].1,
                        "region {id} call {i} overlaps the previous"
                    );
                }
                if let Some(p) = t.regions()[id].parent {
                    let (ps, pe) = all[p as usize][i];
                    assert!(ps < s && e < pe, "region {id} call {i} outside its parent");
                }
            }
        }
        // Gaps between root iterations are 100 ns – 10 µs.
        for w in all[0].windows(2) {
            let gap = w[1].0 - w[0].1;
            assert!((100..=10_000).contains(&gap), "root gap {gap}");
        }
        // Gaps between consecutive phases of one iteration: two half-gaps, at most 10 µs.
        for p in 1..5 {
            for (this, next) in all[p].iter().zip(&all[p + 1]) {
                let gap = next.0 - this.1;
                assert!((100..=10_000).contains(&gap), "phase gap {gap}");
            }
        }
    }

    #[test]
    fn root_durations_are_log_normal_around_the_median() {
        let t = Timeline::new(&spec(3, 20_000), 1, 0);
        let mut logs: Vec<f64> = t.calls(0).map(|(s, e)| ((e - s) as f64).ln()).collect();
        logs.sort_by(f64::total_cmp);
        let median = logs[logs.len() / 2].exp();
        let mean = logs.iter().sum::<f64>() / logs.len() as f64;
        let sd = (logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / logs.len() as f64).sqrt();
        assert!((median / 2e6 - 1.0).abs() < 0.02, "median {median}");
        assert!((sd - SIGMA).abs() < 0.01, "sd of log {sd}");
    }

    #[test]
    fn output_depends_only_on_seed_and_rank() {
        let s = spec(5, 300);
        let a = write_rank(Vec::new(), &s, 9, 0).unwrap();
        assert_eq!(a, write_rank(Vec::new(), &s, 9, 0).unwrap());
        assert_ne!(a, write_rank(Vec::new(), &s, 10, 0).unwrap());
        assert_ne!(a, write_rank(Vec::new(), &s, 9, 1).unwrap());
        // Streaming in chunks gives what the iterator gives.
        let view = parse(&a).unwrap();
        let t = Timeline::new(&s, 9, 0);
        let expect: Vec<i64> = t.calls(0).map(|c| c.1).collect();
        assert_eq!(view.regions[0].ends.to_vec(), expect);
    }

    #[test]
    fn a_lone_region_has_microsecond_calls() {
        let s = spec(1, 10_000);
        let t = Timeline::new(&s, 1, 0);
        let calls: Vec<(i64, i64)> = t.calls(0).collect();
        let mut d: Vec<i64> = calls.iter().map(|(s, e)| e - s).collect();
        d.sort_unstable();
        assert!((1800..2200).contains(&d[d.len() / 2]), "median {}", d[5000]);
        assert_eq!(registration_order(1), [0]);
    }
}
