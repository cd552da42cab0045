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

/// One shape of a view with what a picture says of it: a call, or a merged block of calls.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Drawn {
    /// One call: its start and end (the latest end in its lane up to it), ns.
    Call {
        x0: f32,
        x1: f32,
        start: i64,
        end: i64,
        region: u32,
    },
    /// A run of calls narrower than a pixel: the first one's start, how many, the region
    /// with most time among them (the lowest id on a tie), that time and all their time, ns.
    Block {
        x0: f32,
        x1: f32,
        start: i64,
        calls: u64,
        region: u32,
        region_ns: i64,
        busy_ns: i64,
    },
}

impl Drawn {
    /// Shape `s` of `lane`, described.
    pub fn of(lane: &Lane, s: &Shape, cursors: &mut Vec<usize>) -> Drawn {
        if s.end - s.first == 1 {
            Drawn::Call {
                x0: s.x0,
                x1: s.x1,
                start: lane.starts[s.first],
                end: lane.ends[s.first],
                region: lane.regions[s.first],
            }
        } else {
            let (region, region_ns, busy_ns) = lane.dominant(s.first, s.end, cursors);
            Drawn::Block {
                x0: s.x0,
                x1: s.x1,
                start: lane.starts[s.first],
                calls: (s.end - s.first) as u64,
                region,
                region_ns,
                busy_ns,
            }
        }
    }
}

/// A block of narrow calls being gathered by [`LaneStream`].
struct Open {
    x0: f32,
    x1: f32,
    /// The time of the right edge the calls that join are compared with.
    edge: f64,
    /// The latest end of the calls joined.
    reach: i64,
    start: i64,
    calls: u64,
    busy: i64,
}

/// Time per region of the open block's calls: a short list, or past [`SCAN`] regions a
/// table by region id (where the lane has one) with the ids touched.
#[derive(Default)]
struct Tally {
    list: Vec<(u32, i64)>,
    table: Vec<i64>,
    touched: Vec<u32>,
    /// The table's size, the profile's regions (0: no table).
    regions: usize,
}

impl Tally {
    #[inline]
    fn add(&mut self, region: u32, d: i64) {
        if !self.touched.is_empty() {
            if let Some(t) = self.table.get_mut(region as usize) {
                if *t == i64::MIN {
                    *t = 0;
                    self.touched.push(region);
                }
                *t = t.saturating_add(d);
                return;
            }
        }
        match self.list.iter_mut().find(|t| t.0 == region) {
            Some(t) => t.1 = t.1.saturating_add(d),
            None => {
                self.list.push((region, d));
                if self.list.len() > SCAN && self.touched.is_empty() && self.regions > 0 {
                    self.tabulate();
                }
            }
        }
    }

    /// Moves the list's regions in range into the table.
    fn tabulate(&mut self) {
        if self.table.len() != self.regions {
            self.table = vec![i64::MIN; self.regions];
        }
        let mut rest = Vec::new();
        for (region, t) in self.list.drain(..) {
            match self.table.get_mut(region as usize) {
                Some(slot) => {
                    *slot = t;
                    self.touched.push(region);
                }
                None => rest.push((region, t)),
            }
        }
        self.list = rest;
    }

    /// The region with the most time (the lowest id on a tie) and its time; emptied.
    fn take_best(&mut self) -> (u32, i64) {
        let mut best = (u32::MAX, i64::MIN);
        let mut consider = |region: u32, t: i64| {
            if t > best.1 || (t == best.1 && region < best.0) {
                best = (region, t);
            }
        };
        for &(region, t) in &self.list {
            consider(region, t);
        }
        for &region in &self.touched {
            if let Some(slot) = self.table.get_mut(region as usize) {
                consider(region, *slot);
                *slot = i64::MIN;
            }
        }
        self.list.clear();
        self.touched.clear();
        best
    }
}

/// The shapes of [`shapes`] for a lane whose calls arrive one at a time in start order,
/// without keeping them: the same shapes, described ([`Drawn`]), from memory of one block.
pub struct LaneStream {
    t0: f64,
    t1: f64,
    scale: f64,
    calls: u64,
    /// The latest end of the calls so far.
    reach: i64,
    /// A call has reached the window (the calls before it ended before it).
    begun: bool,
    /// A call started after the window with no block open: the shapes are complete.
    done: bool,
    open: Option<Open>,
    tally: Tally,
    drawn: Vec<Drawn>,
}

impl LaneStream {
    /// A lane drawn over `[t0, t1]` at `scale` pixels per ns; `regions` (the profile's
    /// count, or 0) sizes the table a block of many regions is tallied in.
    pub fn new(t0: f64, t1: f64, scale: f64, regions: usize) -> LaneStream {
        LaneStream {
            t0,
            t1,
            scale,
            calls: 0,
            reach: i64::MIN,
            begun: false,
            done: false,
            open: None,
            tally: Tally {
                regions,
                ..Tally::default()
            },
            drawn: Vec::new(),
        }
    }

    fn px(&self, t: i64) -> f32 {
        ((t as f64 - self.t0) * self.scale) as f32
    }

    fn time(&self, x: f32) -> f64 {
        self.t0 + f64::from(x) / self.scale
    }

    /// Whether no call was pushed.
    pub fn is_empty(&self) -> bool {
        self.calls == 0
    }

    /// Adds the call `[start, end)` of `region`, the lane's next in start order.
    #[inline]
    pub fn push(&mut self, start: i64, end: i64, region: u32) {
        self.calls += 1;
        self.reach = if self.calls == 1 {
            end
        } else {
            self.reach.max(end)
        };
        let reach = self.reach;
        let d = end.saturating_sub(start).max(0);
        if let Some(open) = self.open.as_mut() {
            if (start as f64) < open.edge {
                open.calls += 1;
                open.busy = open.busy.saturating_add(d);
                open.reach = reach;
                self.tally.add(region, d);
                return;
            }
        }
        self.push_slow(start, reach, region, d);
    }

    /// [`push`](LaneStream::push) of a call that does not simply join the open block.
    fn push_slow(&mut self, start: i64, reach: i64, region: u32, d: i64) {
        if self.done {
            return;
        }
        if !self.begun {
            if (reach as f64) < self.t0 {
                return;
            }
            self.begun = true;
        }
        if let Some(mut open) = self.open.take() {
            open.x1 = open.x1.max(self.px(open.reach));
            let x = self.px(start);
            if x < open.x1 + 1.0 && self.px(reach) - x < 1.0 {
                open.x1 = open.x1.max(x + 1.0);
                open.calls += 1;
                open.busy = open.busy.saturating_add(d);
                open.reach = reach;
                self.tally.add(region, d);
                open.edge = self.time(open.x1);
                self.open = Some(open);
                return;
            }
            self.close(open);
        }
        if (start as f64) > self.t1 {
            self.done = true;
            return;
        }
        let (x0, x1) = (self.px(start), self.px(reach));
        if x1 - x0 >= 1.0 || self.scale == 0.0 {
            self.drawn.push(Drawn::Call {
                x0,
                x1,
                start,
                end: reach,
                region,
            });
            return;
        }
        let bx1 = (x0 + 1.0).max(x1);
        self.tally.add(region, d);
        self.open = Some(Open {
            x0,
            x1: bx1,
            edge: self.time(bx1),
            reach,
            start,
            calls: 1,
            busy: d,
        });
    }

    fn close(&mut self, open: Open) {
        let (region, time) = self.tally.take_best();
        if open.calls == 1 {
            // A narrow call alone: a call a pixel wide, as `shapes` gives it.
            self.drawn.push(Drawn::Call {
                x0: open.x0,
                x1: open.x1,
                start: open.start,
                end: open.reach,
                region,
            });
            return;
        }
        self.drawn.push(Drawn::Block {
            x0: open.x0,
            x1: open.x1,
            start: open.start,
            calls: open.calls,
            region,
            region_ns: time.max(0),
            busy_ns: open.busy,
        });
    }

    /// The shapes, left to right.
    pub fn finish(mut self) -> Vec<Drawn> {
        if let Some(mut open) = self.open.take() {
            open.x1 = open.x1.max(self.px(open.reach));
            self.close(open);
        }
        self.drawn
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
    fn a_stream_of_calls_draws_the_shapes_of_their_lane() {
        // Calls of 40 regions, 4 of them most often (so blocks tally both ways), mostly narrow with a few wide ones, some overlapping (the
        // lane's running end), seen through windows from the whole to a few ns.
        let mut state = 99u64;
        let mut next = |m: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % m
        };
        let mut calls = Vec::new();
        let mut t = 1_000i64;
        for _ in 0..5000 {
            let d = if next(20) == 0 {
                500 + next(5000)
            } else {
                next(8)
            } as i64;
            let r = if next(3) == 0 { next(40) } else { next(4) } as u32;
            calls.push((t, t + d, r));
            t += [0, 1, 3, 40, 900][next(5) as usize] + if next(50) == 0 { -1 } else { 0 };
        }
        calls.sort_stable_by_key(|c| c.0);
        let l = lane_of(&calls);
        let end = t as f64 + 6000.0;
        for (t0, t1, width) in [
            (0.0, end, 800.0),
            (0.0, end, 3.0),
            (5_000.0, 60_000.0, 1200.0),
            (20_000.0, 20_050.0, 640.0),
            (end / 2.0, end / 2.0, 100.0),
        ] {
            let scale = if t1 > t0 { width / (t1 - t0) } else { 0.0 };
            let mut want = Vec::new();
            let mut cursors = Vec::new();
            shapes(&l, t0, t1, scale, |s| {
                want.push(Drawn::of(&l, &s, &mut cursors));
                true
            });
            let mut stream = LaneStream::new(t0, t1, scale, 64);
            for &(s, e, r) in &calls {
                stream.push(s, e, r);
            }
            let got = stream.finish();
            assert!(!want.is_empty());
            let k = (0..want.len().max(got.len()))
                .find(|&k| got.get(k) != want.get(k))
                .map(|k| (k, got.get(k), want.get(k)));
            assert_eq!(
                k,
                None,
                "[{t0}, {t1}] over {width} px: {} shapes",
                want.len()
            );
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
