//! The level of detail of one lane: its calls in start order, and the shapes they make at
//! a scale. Below every picture of calls in time order (the page's timeline, the gantt and
//! flame chart of `sp plot`), so a 64 M-call run makes as many shapes as a small one. A call at least a pixel wide is one rectangle; a run of narrower calls with
//! gaps under a pixel is one block. Finding the shapes costs a few searches per pixel
//! column, each stepping forward from the last ([`gallop`]), whatever the number of calls.
//!
//! A merged block carries its dominant region: the one with the most time among its calls.
//! Each lane keeps running sums of durations per region, so that costs at most two searches
//! per region of the lane (heaviest regions first, stopping once no other can overtake the
//! leader), or a scan of the block when it holds a few calls: bounded per pixel column too.

use crate::sort::SortSlice;
use std::cmp::Reverse;

/// One lane: one rank's calls at one depth, in start order.
#[derive(Default)]
pub struct Lane {
    pub starts: Vec<i64>,
    /// Each call's end, or the latest end before it if later: kept in order so a view can
    /// binary-search them (calls at one depth do not overlap when they nest).
    pub ends: Vec<i64>,
    pub regions: Vec<u32>,
    /// `busy[k]`: the durations of calls `[0, k)` summed.
    pub busy: Vec<i64>,
    /// The lane's calls by region, the region with the most time first.
    by_region: Vec<RegionCalls>,
}

/// One region's calls within a lane.
struct RegionCalls {
    region: u32,
    /// Their positions in the lane, increasing.
    at: Vec<u32>,
    /// `busy[k]`: the durations of the region's first `k` calls in the lane summed.
    busy: Vec<i64>,
}

impl RegionCalls {
    fn total(&self) -> i64 {
        self.busy.last().copied().unwrap_or(0)
    }
}

/// Blocks of at most this many calls find their dominant region by a scan.
const SCAN: usize = 16;

impl Lane {
    pub fn push(&mut self, start: i64, end: i64, region: u32) {
        if self.busy.is_empty() {
            self.busy.push(0);
        }
        let busy = self.busy.last().copied().unwrap_or(0);
        self.busy
            .push(busy.saturating_add(end.saturating_sub(start).max(0)));
        self.starts.push(start);
        self.ends
            .push(self.ends.last().map_or(end, |&e| e.max(end)));
        self.regions.push(region);
    }

    /// A finished lane of `(start, end, region)` calls in start order, region ids below
    /// `regions`.
    pub fn of_calls(calls: &[(i64, i64, u32)], regions: usize) -> Lane {
        let mut lane = Lane::default();
        for &(s, e, r) in calls {
            lane.push(s, e, r);
        }
        lane.finish(regions);
        lane
    }

    /// The number of calls.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// Groups the calls by region, once all are pushed (`regions`: the profile's count).
    pub fn finish(&mut self, regions: usize) {
        if self.busy.is_empty() {
            self.busy.push(0);
        }
        let mut slot = vec![usize::MAX; regions];
        let mut by_region: Vec<RegionCalls> = Vec::new();
        for (k, &region) in self.regions.iter().enumerate() {
            let Some(s) = slot.get_mut(region as usize) else {
                continue;
            };
            if *s == usize::MAX {
                *s = by_region.len();
                by_region.push(RegionCalls {
                    region,
                    at: Vec::new(),
                    busy: vec![0],
                });
            }
            let calls = &mut by_region[*s];
            let sum = calls.total() + (self.busy[k + 1] - self.busy[k]);
            calls.at.push(k as u32);
            calls.busy.push(sum);
        }
        by_region.sort_stable_by_key(|r| (Reverse(r.total()), r.region));
        self.by_region = by_region;
    }

    /// The region with the most time among calls `[i, j)` (the lowest id on a tie), that
    /// time, and the time of all of them (ns). `cursors` (one per region of the lane, or
    /// empty) hold where each region's search may start: blocks asked left to right reuse
    /// them, so each search steps a short way forward through memory it just read.
    pub fn dominant(&self, i: usize, j: usize, cursors: &mut Vec<usize>) -> (u32, i64, i64) {
        let busy = self.busy[j] - self.busy[i];
        let mut best = (u32::MAX, -1i64);
        let better = |best: &mut (u32, i64), region: u32, t: i64| {
            if t > best.1 || (t == best.1 && region < best.0) {
                *best = (region, t);
            }
        };
        if j - i <= SCAN {
            let mut tally = [(0u32, 0i64); SCAN];
            let mut n = 0;
            for k in i..j {
                let d = self.busy[k + 1] - self.busy[k];
                match tally[..n].iter_mut().find(|t| t.0 == self.regions[k]) {
                    Some(t) => t.1 += d,
                    None => {
                        tally[n] = (self.regions[k], d);
                        n += 1;
                    }
                }
            }
            for &(region, t) in &tally[..n] {
                better(&mut best, region, t);
            }
        } else {
            let mut seen = 0;
            cursors.resize(self.by_region.len(), 0);
            for (calls, cursor) in self.by_region.iter().zip(cursors.iter_mut()) {
                // Regions come heaviest first (then by id): once the leader has more than
                // this region's whole time, or than all the time left, nothing overtakes it.
                let total = calls.total();
                if best.1 > total || (best.1 == total && best.0 < calls.region) {
                    break;
                }
                if best.1 > busy - seen {
                    break;
                }
                let a = gallop(&calls.at, (*cursor).min(calls.at.len()), |k| {
                    (k as usize) < i
                });
                let b = gallop(&calls.at, a, |k| (k as usize) < j);
                *cursor = b;
                let t = calls.busy[b] - calls.busy[a];
                seen += t;
                if b > a {
                    better(&mut best, calls.region, t);
                }
            }
        }
        (best.0, best.1.max(0), busy)
    }
}

/// The first position at or after `from` where `before` is false, in `v` where `before`
/// holds on a prefix that reaches at least `from`; found in steps doubling from `from`, so
/// the cost grows with the distance, not the length.
fn gallop<T: Copy>(v: &[T], from: usize, before: impl Fn(T) -> bool) -> usize {
    let n = v.len();
    if from >= n || !before(v[from]) {
        return from.min(n);
    }
    // `before` holds at `lo`.
    let (mut lo, mut step) = (from, 1);
    loop {
        let hi = lo.saturating_add(step).min(n);
        if hi == n || !before(v[hi]) {
            return lo + 1 + v[lo + 1..hi].partition_point(|&x| before(x));
        }
        lo = hi;
        step *= 2;
    }
}

/// One shape of a view: the lane's calls `[first, end)` over pixels `[x0, x1]`: one call,
/// or a merged block of calls each narrower than a pixel.
pub struct Shape {
    pub x0: f32,
    pub x1: f32,
    pub first: usize,
    pub end: usize,
}

/// The level-of-detail shapes of one lane in `[t0, t1]` at `scale` pixels per ns, left to
/// right, each given to `emit` until it returns false.
pub fn shapes(lane: &Lane, t0: f64, t1: f64, scale: f64, mut emit: impl FnMut(Shape) -> bool) {
    let px = |t: i64| ((t as f64 - t0) * scale) as f32;
    // The time at pixel x.
    let time = |x: f32| t0 + f64::from(x) / scale;
    let n = lane.starts.len();
    let mut i = lane.ends.partition_point(|&e| (e as f64) < t0);
    while i < n && (lane.starts[i] as f64) <= t1 {
        let (x0, x1) = (px(lane.starts[i]), px(lane.ends[i]));
        if x1 - x0 >= 1.0 || scale == 0.0 {
            if !emit(Shape {
                x0,
                x1,
                first: i,
                end: i + 1,
            }) {
                return;
            }
            i += 1;
            continue;
        }
        // A run of calls narrower than a pixel, with gaps under a pixel: one block.
        let (bx0, mut bx1) = (x0, (x0 + 1.0).max(x1));
        let mut j = i + 1;
        loop {
            // Every call starting before the block's right edge joins it.
            let edge = time(bx1);
            j = gallop(&lane.starts, j, |s| (s as f64) < edge);
            bx1 = bx1.max(px(lane.ends[j - 1]));
            match lane.starts.get(j) {
                Some(&s) if px(s) < bx1 + 1.0 && px(lane.ends[j]) - px(s) < 1.0 => {
                    bx1 = bx1.max(px(s) + 1.0);
                    j += 1;
                }
                _ => break,
            }
        }
        if !emit(Shape {
            x0: bx0,
            x1: bx1,
            first: i,
            end: j,
        }) {
            return;
        }
        i = j;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lane_of(calls: &[(i64, i64, u32)]) -> Lane {
        Lane::of_calls(calls, 64)
    }

    fn lane(calls: &[(i64, i64)]) -> Lane {
        lane_of(&calls.iter().map(|&(s, e)| (s, e, 3)).collect::<Vec<_>>())
    }

    /// Shapes of a lane as (x0, x1, first, end).
    fn lod(lane: &Lane, t0: f64, t1: f64, scale: f64) -> Vec<(f32, f32, usize, usize)> {
        let mut out = Vec::new();
        shapes(lane, t0, t1, scale, |s| {
            out.push((s.x0, s.x1, s.first, s.end));
            true
        });
        out
    }

    #[test]
    fn wide_calls_are_rectangles_and_narrow_runs_merge() {
        // Two wide calls, then 1000 calls of 1 ns with 1 ns gaps.
        let mut calls = vec![(0, 100), (200, 300)];
        calls.extend((0..1000).map(|k| (400 + 2 * k, 401 + 2 * k)));
        let l = lane(&calls);
        // 1 px = 10 ns over [0, 2400].
        let r = lod(&l, 0.0, 2400.0, 0.1);
        assert_eq!(r.len(), 3);
        assert_eq!(r[0], (0.0, 10.0, 0, 1));
        assert_eq!(r[1], (20.0, 30.0, 1, 2));
        assert_eq!((r[2].0, r[2].2, r[2].3), (40.0, 2, 1002));
        assert!((r[2].1 - 239.9).abs() < 0.2, "{:?}", r[2]);
        // Zoomed in on 20 ns: the calls there are rectangles of their own.
        let r = lod(&l, 400.0, 420.0, 10.0);
        assert_eq!(r.len(), 11);
        assert!(r.iter().all(|s| s.3 - s.2 == 1));
    }

    #[test]
    fn running_sums_agree_with_a_scan_on_any_block() {
        // 3000 calls of 7 regions with pseudo-random durations and gaps.
        let mut state = 12345u64;
        let mut next = |m: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % m
        };
        let mut calls = Vec::new();
        let mut t = 0i64;
        for _ in 0..3000 {
            let d = 1 + next(50) as i64;
            let r = [0, 0, 0, 1, 2, 2, 3, 4, 5, 6][next(10) as usize];
            calls.push((t, t + d, r));
            t += d + next(5) as i64;
        }
        let l = lane_of(&calls);
        let scan = |i: usize, j: usize| {
            let mut time = [0i64; 7];
            for c in &calls[i..j] {
                time[c.2 as usize] += c.1 - c.0;
            }
            let best = (0..7u32)
                .max_by_key(|&r| (time[r as usize], Reverse(r)))
                .unwrap();
            (best, time[best as usize], time.iter().sum::<i64>())
        };
        // Blocks anywhere, each searched afresh.
        for _ in 0..500 {
            let i = next(3000) as usize;
            let j = i + 1 + next((3000 - i) as u64) as usize;
            assert_eq!(l.dominant(i, j, &mut Vec::new()), scan(i, j), "[{i}, {j})");
        }
        // Blocks left to right, as a view asks, sharing the search cursors.
        let mut cursors = Vec::new();
        let mut i = 0;
        while i < 3000 {
            let j = (i + 1 + next(200) as usize).min(3000);
            assert_eq!(l.dominant(i, j, &mut cursors), scan(i, j), "[{i}, {j})");
            i = j + next(30) as usize;
        }
    }

    #[test]
    fn gallop_finds_the_end_of_the_prefix_from_any_start_before_it() {
        let v: Vec<i64> = (0..1000).map(|k| 3 * k).collect();
        for from in [0, 1, 5, 100, 333, 334, 999, 1000] {
            for x in [-1, 0, 1, 3, 299, 1000, 1002, 2996, 2997, 2998, 5000] {
                let want = v.partition_point(|&s| s < x);
                if from <= want {
                    assert_eq!(gallop(&v, from, |s| s < x), want, "from {from}, x {x}");
                }
            }
        }
        assert_eq!(gallop::<i64>(&[], 0, |_| true), 0);
    }
}
