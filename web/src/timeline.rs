//! The timeline: chosen ranks as lanes in numeric order, each rank's calls stacked by
//! nesting depth (a flame chart), from the library's call tree
//! ([`sp::analysis::calltree`]). A rank's rows are read when its lanes first come into view;
//! each view is then drawn from a level-of-detail pass: a call at least a pixel wide is one
//! rectangle, and runs of narrower calls merge into one block, so a frame costs a few
//! binary searches per pixel column and lane however many calls are in range.

use serde_json::{json, Value as Json};
use sp::analysis::calltree;
use sp::analysis::events::RowSource;
use sp::schema::{Profile, RankCalls, Region};

/// One lane: one rank's calls at one depth, in start order. Calls at one depth do not
/// overlap, so their ends are in order too.
struct Lane {
    starts: Vec<i64>,
    ends: Vec<i64>,
    regions: Vec<u32>,
}

/// A rank's lanes, once read.
struct RankLanes {
    lanes: Vec<Lane>,
    /// The calls did not nest (then they all lie in one lane).
    improper: bool,
}

/// The timeline of one profile's chosen ranks.
pub struct Timeline {
    ranks: Vec<u32>,
    read: Vec<Option<RankLanes>>,
    /// Earliest start and latest end over the ranks read.
    extent: Option<(i64, i64)>,
}

/// Floats per rectangle in a view's binary answer: x0, x1 (pixels), lane, region (−1 for
/// a merged block), calls.
pub const RECT_FLOATS: usize = 5;

impl Timeline {
    pub fn new(ranks: Vec<u32>) -> Timeline {
        let read = ranks.iter().map(|_| None).collect();
        Timeline {
            ranks,
            read,
            extent: None,
        }
    }

    /// Earliest start and latest end over the ranks read so far, ns.
    pub fn extent(&self) -> Option<(i64, i64)> {
        self.extent
    }

    /// Lanes of rank `i` (one until it is read).
    fn lanes_of(&self, i: usize) -> usize {
        self.read[i].as_ref().map_or(1, |r| r.lanes.len().max(1))
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
            let rank = read_rank(profile, source, self.ranks[i])?;
            for l in &rank.lanes {
                if let (Some(&s), Some(&e)) = (l.starts.first(), l.ends.last()) {
                    let (lo, hi) = self.extent.unwrap_or((s, e));
                    self.extent = Some((lo.min(s), hi.max(e)));
                }
            }
            self.read[i] = Some(rank);
        }
    }

    /// The rectangles of the view `[t0, t1]` ns over `width` pixels, for lanes
    /// `[first, first + count)`, into `bin` ([`RECT_FLOATS`] f32 each); the answer gives the
    /// lanes (rank and depth of each), the extent and the rectangle count.
    #[allow(clippy::too_many_arguments)]
    pub fn view(
        &mut self,
        profile: &Profile,
        source: &dyn RowSource,
        t0: f64,
        t1: f64,
        width: f64,
        first: usize,
        count: usize,
        bin: &mut Vec<u8>,
    ) -> Result<Json, String> {
        self.read_visible(profile, source, first, count)?;
        let mut lanes = Vec::new();
        for (i, &rank) in self.ranks.iter().enumerate() {
            for depth in 0..self.lanes_of(i) {
                lanes.push((i, rank, depth));
            }
        }
        let scale = if t1 > t0 { width / (t1 - t0) } else { 0.0 };
        let mut rects = 0usize;
        bin.clear();
        let last = (first + count).min(lanes.len());
        for (index, &(i, _, depth)) in lanes.iter().enumerate().take(last).skip(first) {
            let Some(lane) = self.read[i].as_ref().and_then(|r| r.lanes.get(depth)) else {
                continue;
            };
            rects += lod(lane, t0, t1, scale, index as f32, bin);
        }
        let improper: Vec<u32> = self
            .ranks
            .iter()
            .zip(&self.read)
            .filter(|(_, r)| r.as_ref().is_some_and(|r| r.improper))
            .map(|(&rank, _)| rank)
            .collect();
        Ok(json!({
            "lanes": lanes.iter().map(|&(_, rank, depth)| [rank, depth as u32]).collect::<Vec<_>>(),
            "read": self.read.iter().map(Option::is_some).collect::<Vec<_>>(),
            "extent": self.extent.map(|(a, b)| [a, b]),
            "rects": rects,
            "improper": improper,
        }))
    }

    /// What lies at time `t` in lane `lane`: the call there (region id, start, end, depth,
    /// rank), or null.
    pub fn at(&self, lane: usize, t: f64) -> Json {
        let mut index = 0;
        for (i, &rank) in self.ranks.iter().enumerate() {
            let n = self.lanes_of(i);
            if lane < index + n {
                let depth = lane - index;
                let Some(l) = self.read[i].as_ref().and_then(|r| r.lanes.get(depth)) else {
                    return Json::Null;
                };
                // The last call starting at or before t, if it is still running at t.
                let k = l.starts.partition_point(|&s| (s as f64) <= t);
                return match k.checked_sub(1) {
                    Some(k) if (l.ends[k] as f64) >= t => json!({
                        "rank": rank, "depth": depth, "region": l.regions[k],
                        "start": l.starts[k], "end": l.ends[k],
                    }),
                    _ => Json::Null,
                };
            }
            index += n;
        }
        Json::Null
    }
}

/// Reads one rank's rows and stacks its calls by depth.
fn read_rank(profile: &Profile, source: &dyn RowSource, rank: u32) -> Result<RankLanes, String> {
    let mut regions = Vec::with_capacity(profile.regions.len());
    for region in &profile.regions {
        let mut row = Region {
            name: region.name.clone(),
            ranks: Vec::new(),
        };
        if let Some(stored) = region.rank(rank) {
            let events = source
                .events(stored)
                .map_err(|e| format!("Reading rank {rank}'s calls failed: {e}."))?;
            let events = events.into_owned();
            row.ranks.push(RankCalls {
                lanes: events.lanes(),
                starts: events.starts,
                ends: events.ends,
                rank,
                ..RankCalls::default()
            });
        }
        regions.push(row);
    }
    let refs: Vec<&Region> = regions.iter().collect();
    let (calls, improper) = match calltree::build(&refs, rank) {
        Ok(calls) => (calls, false),
        Err(_) => {
            // Calls that do not nest: one lane, in start order.
            let mut calls = calltree::unnested(&refs, rank);
            calls.sort_by_key(|c| (c.start_ns, c.end_ns));
            (calls, true)
        }
    };
    let depth = calls.iter().map(|c| c.depth + 1).max().unwrap_or(0);
    let mut lanes: Vec<Lane> = (0..depth)
        .map(|_| Lane {
            starts: Vec::new(),
            ends: Vec::new(),
            regions: Vec::new(),
        })
        .collect();
    for c in calls {
        let lane = &mut lanes[c.depth];
        lane.starts.push(c.start_ns);
        // Ends kept in order within a lane, so a view can binary-search them.
        let end = lane.ends.last().map_or(c.end_ns, |&e| e.max(c.end_ns));
        lane.ends.push(end);
        lane.regions.push(c.region as u32);
    }
    Ok(RankLanes { lanes, improper })
}

/// The level-of-detail rectangles of one lane in `[t0, t1]` at `scale` pixels per ns.
fn lod(lane: &Lane, t0: f64, t1: f64, scale: f64, index: f32, bin: &mut Vec<u8>) -> usize {
    let px = |t: i64| ((t as f64 - t0) * scale) as f32;
    // The time at pixel x.
    let time = |x: f32| t0 + f64::from(x) / scale;
    let n = lane.starts.len();
    let mut i = lane.ends.partition_point(|&e| (e as f64) < t0);
    let mut rects = 0;
    let mut push = |x0: f32, x1: f32, region: f32, calls: f32| {
        for v in [x0, x1, index, region, calls] {
            bin.extend_from_slice(&v.to_le_bytes());
        }
        rects += 1;
    };
    while i < n && (lane.starts[i] as f64) <= t1 {
        let (x0, x1) = (px(lane.starts[i]), px(lane.ends[i]));
        if x1 - x0 >= 1.0 || scale == 0.0 {
            push(x0, x1, lane.regions[i] as f32, 1.0);
            i += 1;
            continue;
        }
        // A run of calls narrower than a pixel, with gaps under a pixel: one block.
        let (bx0, mut bx1) = (x0, (x0 + 1.0).max(x1));
        let mut j = i + 1;
        loop {
            // Every call starting before the block's right edge joins it.
            let edge = time(bx1);
            j = j.max(lane.starts.partition_point(|&s| (s as f64) < edge));
            bx1 = bx1.max(px(lane.ends[j - 1]));
            match lane.starts.get(j) {
                Some(&s) if px(s) < bx1 + 1.0 && px(lane.ends[j]) - px(s) < 1.0 => {
                    bx1 = bx1.max(px(s) + 1.0);
                    j += 1;
                }
                _ => break,
            }
        }
        let region = if j - i == 1 {
            lane.regions[i] as f32
        } else {
            -1.0
        };
        push(bx0, bx1, region, (j - i) as f32);
        i = j;
    }
    rects
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lane(calls: &[(i64, i64)]) -> Lane {
        Lane {
            starts: calls.iter().map(|c| c.0).collect(),
            ends: calls.iter().map(|c| c.1).collect(),
            regions: calls.iter().map(|_| 3).collect(),
        }
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

    #[test]
    fn wide_calls_are_rectangles_and_narrow_runs_merge() {
        // Two wide calls, then 1000 calls of 1 ns with 1 ns gaps.
        let mut calls = vec![(0, 100), (200, 300)];
        calls.extend((0..1000).map(|k| (400 + 2 * k, 401 + 2 * k)));
        let l = lane(&calls);
        let mut bin = Vec::new();
        // 1 px = 10 ns over [0, 2400].
        let n = lod(&l, 0.0, 2400.0, 0.1, 7.0, &mut bin);
        let r = rects(&bin);
        assert_eq!(n, 3);
        assert_eq!(r[0], [0.0, 10.0, 7.0, 3.0, 1.0]);
        assert_eq!(r[1], [20.0, 30.0, 7.0, 3.0, 1.0]);
        assert_eq!(r[2][2..], [7.0, -1.0, 1000.0]);
        assert_eq!(r[2][0], 40.0);
        assert!((r[2][1] - 239.9).abs() < 0.2, "{:?}", r[2]);
        // Zoomed in on 20 ns: the calls there are rectangles of their own.
        bin.clear();
        let n = lod(&l, 400.0, 420.0, 10.0, 0.0, &mut bin);
        assert_eq!(n, 11);
        assert!(rects(&bin).iter().all(|r| r[3] == 3.0 && r[4] == 1.0));
    }
}
