//! The timeline: chosen ranks as lanes in numeric order, each rank's calls stacked by
//! nesting depth (a flame chart), from the library's call tree
//! ([`sp::analysis::calltree`]). A rank's rows are read when its lanes first come into view;
//! each view is then drawn from the library's level-of-detail pass ([`sp::analysis::lod`]):
//! a call at least a pixel wide is one rectangle, and runs of narrower calls merge into one
//! block that carries its dominant region, so a frame costs a few searches per pixel column
//! and lane however many calls are in range. Ranks that ran one after another (or on clocks
//! far apart) are drawn each from its own first call.

use serde_json::{json, Value as Json};
use sp::analysis::events::RowSource;
use sp::analysis::lanes::{stack_rank, DepthLanes};
use sp::analysis::lod::shapes;
use sp::analysis::units::duration_text;
use sp::schema::{Profile, Region};
use sp::sort::SortSlice;

/// The timeline of one profile's chosen ranks.
pub struct Timeline {
    ranks: Vec<u32>,
    read: Vec<Option<DepthLanes>>,
    /// Each rank is drawn from its first call (as of the last view).
    aligned: bool,
}

/// A view asked for: `[t0, t1]` ns over `width` pixels, lanes `[first, first + count)`;
/// `align`: draw each rank from its own first call (`None`: when the ranks' spans do not
/// overlap, as when they ran one after another or on clocks far apart).
pub struct View {
    pub t0: f64,
    pub t1: f64,
    pub width: f64,
    pub first: usize,
    pub count: usize,
    pub align: Option<bool>,
}

impl View {
    /// The view of a request's `t0`, `t1`, `width`, `first`, `count` (at most 4096 lanes)
    /// and `align`.
    pub fn from_request(req: &Json) -> View {
        let num = |k: &str| req[k].as_f64().unwrap_or(0.0);
        let count = |k: &str| req[k].as_u64().map_or(0, |v| v as usize);
        View {
            t0: num("t0"),
            t1: num("t1"),
            width: num("width"),
            first: count("first"),
            count: count("count").min(4096),
            align: req["align"].as_bool(),
        }
    }

    /// Pixels per ns (0 for an empty view).
    fn scale(&self) -> f64 {
        if self.t1 > self.t0 {
            self.width / (self.t1 - self.t0)
        } else {
            0.0
        }
    }
}

/// Floats per rectangle in a view's binary answer: x0, x1 (pixels), lane, region (of the
/// call, or the dominant one of a merged block), calls (1, or more for a merged block).
pub const RECT_FLOATS: usize = 5;

impl Timeline {
    pub fn new(ranks: Vec<u32>) -> Timeline {
        let read = ranks.iter().map(|_| None).collect();
        Timeline {
            ranks,
            read,
            aligned: false,
        }
    }

    /// Earliest start and latest end over the ranks read so far, ns.
    fn span(&self) -> Option<(i64, i64)> {
        self.read
            .iter()
            .filter_map(|r| r.as_ref()?.span)
            .reduce(|(a, b), (c, d)| (a.min(c), b.max(d)))
    }

    /// The ranks read so far ran one after another: no two of their spans overlap.
    fn disjoint(&self) -> bool {
        let mut spans: Vec<(i64, i64)> =
            self.read.iter().filter_map(|r| r.as_ref()?.span).collect();
        spans.sort_ord_unstable();
        spans.len() > 1 && spans.windows(2).all(|w| w[1].0 > w[0].1)
    }

    /// The view's time range as drawn: the span of the ranks read, or, aligned, from the
    /// earliest start to the end of the longest rank.
    pub fn extent(&self) -> Option<(i64, i64)> {
        let (lo, hi) = self.span()?;
        if !self.aligned {
            return Some((lo, hi));
        }
        let longest = self
            .read
            .iter()
            .filter_map(|r| r.as_ref()?.span)
            .map(|(a, b)| b - a)
            .max()
            .unwrap_or(0);
        Some((lo, lo.saturating_add(longest)))
    }

    /// How far rank `i`'s clock is moved back to be drawn, ns: when aligned, from its
    /// first call to the earliest of all, `lo`.
    fn offset(&self, i: usize, lo: Option<i64>) -> i64 {
        match (self.aligned, lo, self.read[i].as_ref().and_then(|r| r.span)) {
            (true, Some(lo), Some((start, _))) => start - lo,
            _ => 0,
        }
    }

    /// Lanes of rank `i` (one until it is read).
    fn lanes_of(&self, i: usize) -> usize {
        self.read[i].as_ref().map_or(1, |r| r.lanes.len().max(1))
    }

    /// The rank (its position) and depth of lane `lane`.
    fn lane(&self, lane: usize) -> Option<(usize, usize)> {
        let mut index = 0;
        for i in 0..self.ranks.len() {
            let n = self.lanes_of(i);
            if lane < index + n {
                return Some((i, lane - index));
            }
            index += n;
        }
        None
    }

    /// Reads the ranks whose lanes overlap lanes `[first, first + count)`, as lanes stand
    /// now (a read rank may grow, so this repeats until nothing new comes into view).
    fn read_visible(
        &mut self,
        profile: &Profile,
        source: &dyn RowSource,
        first: usize,
        count: usize,
    ) -> Result<(), String> {
        loop {
            let mut lane = 0;
            let mut todo = None;
            for i in 0..self.ranks.len() {
                let n = self.lanes_of(i);
                if lane + n > first && lane < first + count && self.read[i].is_none() {
                    todo = Some(i);
                    break;
                }
                lane += n;
                if lane >= first + count {
                    break;
                }
            }
            let Some(i) = todo else { return Ok(()) };
            self.read[i] = Some(read_rank(profile, source, self.ranks[i])?);
        }
    }

    /// The rectangles of `view` into `bin` ([`RECT_FLOATS`] f32 each); the answer gives the
    /// lanes (rank and depth of each), the extent, whether the ranks are aligned, and the
    /// rectangle count.
    pub fn view(
        &mut self,
        profile: &Profile,
        source: &dyn RowSource,
        view: &View,
        bin: &mut Vec<u8>,
    ) -> Result<Json, String> {
        self.read_visible(profile, source, view.first, view.count)?;
        Ok(self.draw(view, bin))
    }

    /// [`Timeline::view`] of the ranks read.
    fn draw(&mut self, view: &View, bin: &mut Vec<u8>) -> Json {
        self.aligned = view.align.unwrap_or_else(|| self.disjoint());
        let mut lanes = Vec::new();
        for (i, &rank) in self.ranks.iter().enumerate() {
            for depth in 0..self.lanes_of(i) {
                lanes.push((i, rank, depth));
            }
        }
        let scale = view.scale();
        let lo = self.span().map(|s| s.0);
        let mut rects = 0usize;
        bin.clear();
        let last = (view.first + view.count).min(lanes.len());
        for (index, &(i, _, depth)) in lanes.iter().enumerate().take(last).skip(view.first) {
            let Some(lane) = self.read[i].as_ref().and_then(|r| r.lanes.get(depth)) else {
                continue;
            };
            let off = self.offset(i, lo) as f64;
            let mut cursors = Vec::new();
            shapes(lane, view.t0 + off, view.t1 + off, scale, |s| {
                let region = match s.end - s.first {
                    1 => lane.regions[s.first],
                    _ => lane.dominant(s.first, s.end, &mut cursors).0,
                };
                let calls = (s.end - s.first) as f32;
                for v in [s.x0, s.x1, index as f32, region as f32, calls] {
                    bin.extend_from_slice(&v.to_le_bytes());
                }
                rects += 1;
                true
            });
        }
        let improper: Vec<u32> = self
            .ranks
            .iter()
            .zip(&self.read)
            .filter(|(_, r)| r.as_ref().is_some_and(|r| r.improper))
            .map(|(&rank, _)| rank)
            .collect();
        json!({
            "lanes": lanes.iter().map(|&(_, rank, depth)| [rank, depth as u32]).collect::<Vec<_>>(),
            "read": self.read.iter().map(Option::is_some).collect::<Vec<_>>(),
            "extent": self.extent().map(|(a, b)| [a, b]),
            "aligned": self.aligned,
            "rects": rects,
            "improper": improper,
        })
    }

    /// What is drawn at time `t` of lane `lane` in the request's view (see
    /// [`View::from_request`]): the call there (its region and name, rank, depth, start,
    /// end and their texts), or, over a merged block, what it holds (`merged`: its calls,
    /// dominant region and that region's share of their time, the time they cover, `view`: it
    /// on the view's clock); null
    /// when nothing is. `regions`: the profile's, for names.
    pub fn at(&self, req: &Json, regions: &[Region]) -> Json {
        let view = View::from_request(req);
        let t = req["t"].as_f64().unwrap_or(0.0);
        let Some((i, depth)) = req["lane"].as_u64().and_then(|l| self.lane(l as usize)) else {
            return Json::Null;
        };
        let Some(lane) = self.read[i].as_ref().and_then(|r| r.lanes.get(depth)) else {
            return Json::Null;
        };
        let off = self.offset(i, self.span().map(|s| s.0));
        let scale = view.scale();
        let found = if scale > 0.0 {
            // The shape drawn under the pointer, as the view drew it.
            let x = ((t - view.t0) * scale) as f32;
            let mut found = None;
            shapes(
                lane,
                view.t0 + off as f64,
                view.t1 + off as f64,
                scale,
                |s| {
                    if s.x0 <= x && x < s.x1.max(s.x0 + 1.0) {
                        found = Some((s.first, s.end));
                    }
                    found.is_none() && s.x0 <= x
                },
            );
            found
        } else {
            // The last call starting at or before t, if it is still running at t.
            let t = t + off as f64;
            let k = lane.starts.partition_point(|&s| (s as f64) <= t);
            k.checked_sub(1)
                .filter(|&k| (lane.ends[k] as f64) >= t)
                .map(|k| (k, k + 1))
        };
        let Some((first, end)) = found else {
            return Json::Null;
        };
        let origin = self.extent().map_or(0, |(lo, _)| lo) + off;
        let text = |ns: i64| duration_text(Some(ns as f64 / 1e9));
        let name = |region: u32| regions.get(region as usize).map(|r| r.name.as_str());
        let (start, stop) = (lane.starts[first], lane.ends[end - 1]);
        let mut call = json!({
            "rank": self.ranks[i], "depth": depth, "start": start, "end": stop,
            "start_text": text(start - origin),
        });
        if end - first == 1 {
            let region = lane.regions[first];
            call["region"] = json!(region);
            call["name"] = json!(name(region));
            call["duration_text"] = json!(text(lane.busy[end] - lane.busy[first]));
        } else {
            let (region, time, busy) = lane.dominant(first, end, &mut Vec::new());
            call["merged"] = json!(true);
            call["calls"] = json!(end - first);
            call["region"] = json!(region);
            call["name"] = json!(name(region));
            call["share"] = json!(if busy > 0 {
                time as f64 / busy as f64
            } else {
                1.0
            });
            call["region_text"] = json!(text(time));
            call["busy_text"] = json!(text(busy));
            call["span_text"] = json!(text(stop - start));
            call["view"] = json!([start - off, stop - off]);
        }
        call
    }
}

/// Reads one rank's rows and stacks its calls by depth.
fn read_rank(profile: &Profile, source: &dyn RowSource, rank: u32) -> Result<DepthLanes, String> {
    stack_rank(profile, source, rank, |_| true, |_| true)
        .map_err(|e| format!("Reading rank {rank}'s calls failed: {e}."))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sp::analysis::lod::Lane;

    fn lane_of(calls: &[(i64, i64, u32)]) -> Lane {
        Lane::of_calls(calls, 64)
    }

    /// A timeline of ranks already read, each one lane of calls.
    fn timeline(ranks: Vec<Vec<(i64, i64, u32)>>) -> Timeline {
        let mut t = Timeline::new((0..ranks.len() as u32).collect());
        for (i, calls) in ranks.iter().enumerate() {
            let lo = calls.iter().map(|c| c.0).min();
            let hi = calls.iter().map(|c| c.1).max();
            t.read[i] = Some(DepthLanes {
                lanes: vec![lane_of(calls)],
                improper: false,
                span: lo.zip(hi),
            });
        }
        t
    }

    fn rects(bin: &[u8]) -> Vec<[f32; RECT_FLOATS]> {
        bin.chunks(4 * RECT_FLOATS)
            .map(|r| {
                let mut v = [0f32; RECT_FLOATS];
                for (k, x) in r.chunks(4).enumerate() {
                    v[k] = f32::from_le_bytes(x.try_into().unwrap());
                }
                v
            })
            .collect()
    }

    /// The view's rectangles of a timeline whose ranks are all read.
    fn draw(t: &mut Timeline, view: &View) -> (Json, Vec<[f32; RECT_FLOATS]>) {
        let mut bin = Vec::new();
        let answer = t.draw(view, &mut bin);
        (answer, rects(&bin))
    }

    fn view(t0: f64, t1: f64, width: f64) -> View {
        View {
            t0,
            t1,
            width,
            first: 0,
            count: 10,
            align: None,
        }
    }

    #[test]
    fn a_merged_block_takes_the_region_with_the_most_time() {
        // Region 1: 28 calls of 2 ns (56 ns); region 2: 4 calls of 20 ns (80 ns); region
        // 5: 12 calls of 3 ns (36 ns). Region 1 has the most calls, region 2 the most time.
        let mut calls = Vec::new();
        let mut t = 0;
        for k in 0..44 {
            let (d, r) = match k % 11 {
                0 => (20, 2),
                1..=3 => (3, 5),
                _ => (2, 1),
            };
            calls.push((t, t + d, r));
            t += d + 1;
        }
        let counts = |r: u32| calls.iter().filter(|c| c.2 == r).count();
        assert_eq!((counts(1), counts(2), counts(5)), (28, 4, 12));
        let l = lane_of(&calls);
        // By running sums (44 calls) and by a scan (the first 12 calls: region 1 has 7
        // calls, 14 ns; region 2 two, 40 ns; then calls 4..11, region 1 alone).
        assert_eq!(
            l.dominant(0, 44, &mut Vec::new()),
            (2, 80, 28 * 2 + 80 + 36)
        );
        assert_eq!(l.dominant(0, 12, &mut Vec::new()), (2, 40, 40 + 9 + 14));
        assert_eq!(l.dominant(4, 11, &mut Vec::new()), (1, 14, 14));
        // Drawn at 1 px = 1000 ns, the whole lane is one block coloured by region 2.
        let mut tl = timeline(vec![calls.clone()]);
        let (_, r) = draw(&mut tl, &view(0.0, 100_000.0, 100.0));
        assert_eq!(r, vec![[0.0, 1.0, 0.0, 2.0, 44.0]]);
        // Hovering it says what it holds.
        let regions: Vec<Region> = (0..6)
            .map(|k| Region {
                name: format!("r{k}"),
                ranks: Vec::new(),
            })
            .collect();
        let req = json!({"lane": 0, "t": 500.0, "t0": 0.0, "t1": 100_000.0, "width": 100.0});
        let at = tl.at(&req, &regions);
        assert_eq!(at["merged"], true);
        assert_eq!(at["calls"], 44);
        assert_eq!(at["name"], "r2");
        assert_eq!(at["share"], 80.0 / 172.0);
        assert_eq!(
            (at["start"].as_i64(), at["end"].as_i64()),
            (Some(0), Some(t - 1))
        );
        // Zoomed in, the first call is one call of its own.
        let req = json!({"lane": 0, "t": 5.0, "t0": 0.0, "t1": 100.0, "width": 1000.0});
        let at = tl.at(&req, &regions);
        assert_eq!(
            (at["name"].as_str(), at["merged"].as_bool()),
            (Some("r2"), None)
        );
        assert_eq!(at["duration_text"], duration_text(Some(20e-9)));
    }

    #[test]
    fn ranks_that_ran_one_after_another_are_aligned_at_their_first_call() {
        // Rank 0 runs at [1000, 1100], rank 1 at [5000, 5200]: drawn from their own starts.
        let ranks = vec![vec![(1000, 1100, 0)], vec![(5000, 5200, 1)]];
        let mut tl = timeline(ranks.clone());
        let (answer, r) = draw(&mut tl, &view(1000.0, 1200.0, 200.0));
        assert_eq!(answer["aligned"], true);
        assert_eq!(answer["extent"], json!([1000, 1200]));
        assert_eq!(
            r,
            vec![[0.0, 100.0, 0.0, 0.0, 1.0], [0.0, 200.0, 1.0, 1.0, 1.0]]
        );
        // Hover on rank 1 gives its call, timed from its own start.
        let req = json!({"lane": 1, "t": 1150.0, "t0": 1000.0, "t1": 1200.0, "width": 200.0});
        assert_eq!(tl.at(&req, &[])["start"], 5000);
        // Asked not to align: the shared clock.
        let mut v = view(1000.0, 5200.0, 420.0);
        v.align = Some(false);
        let (answer, r) = draw(&mut tl, &v);
        assert_eq!(
            (answer["aligned"].as_bool(), answer["extent"].clone()),
            (Some(false), json!([1000, 5200]))
        );
        assert_eq!(r[1], [400.0, 420.0, 1.0, 1.0, 1.0]);
        // Ranks that overlap in time keep the shared clock.
        let mut tl = timeline(vec![vec![(1000, 1100, 0)], vec![(1050, 1200, 1)]]);
        assert_eq!(
            draw(&mut tl, &view(1000.0, 1200.0, 200.0)).0["aligned"],
            false
        );
    }
}
