//! The streaming timeline summary: one rank's calls, stacked by nesting depth, summarised
//! per pixel of a time window — how busy each pixel is, how many calls touch it and which
//! region has most of its time. Memory follows the picture (lanes × pixels), not the
//! profile: the rank's rows are merged in start order a block at a time, and after a first
//! pass over the whole rank a sparse index of each row (a mark every [`MARK`] calls: where
//! the start deltas stand and how far the calls before reach) lets a zoomed or panned window
//! read only the calls it shows.
//!
//! Depths are those of [`calltree::build`](super::calltree::build): a rank whose calls do
//! not nest is summarised in one lane, and a rank whose rows track thread lanes or are not
//! in start order is stacked whole by `lanes::stack_rank` (its memory is that of the rank).
//!
//! ```
//! use sp::analysis::events::Loaded;
//! use sp::analysis::timeline::{RankIndex, View};
//! use sp::schema::{Calls, Depth, Profile, ProfileLayout, RankCalls, Region};
//!
//! let row = |starts: Vec<i64>, ends: Vec<i64>| RankCalls {
//!     calls: Calls { starts, ends, ..Calls::default() }.into(),
//!     ..RankCalls::default()
//! };
//! let profile = Profile {
//!     regions: vec![
//!         Region { name: "step".into(), ranks: vec![row(vec![0], vec![100])] },
//!         Region { name: "kernel".into(), ranks: vec![row(vec![10, 60], vec![40, 70])] },
//!     ],
//!     schema: 3,
//!     layout: ProfileLayout::Columnar,
//!     metadata: Default::default(),
//!     num_ranks: 1,
//!     region_names: Vec::new(),
//!     depth: Depth::Events,
//!     summary_statistics: false,
//! };
//! let mut rank = RankIndex::new(&profile, 0, |_| true);
//! let s = rank.summary(&profile, &Loaded, &View { t0: 0, t1: 100, width: 2 }).unwrap();
//! assert_eq!(s.lanes.len(), 2);
//! // The kernel's lane: 30 ns busy in the first half, 10 ns in the second.
//! assert_eq!((s.lanes[1][0].busy, s.lanes[1][1].busy), (30, 10));
//! assert_eq!(s.lanes[1][0].region, Some(1));
//! ```

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::error::{Error, Result};
use super::events::RowSource;
use super::lanes::nest_rank;
use super::progress::{Meter, Progress, CALL_BYTES};
use crate::schema::Profile;

/// A row's index holds a mark every this many calls.
pub const MARK: u64 = 512;
/// Calls buffered over all the rows of a rank being merged (each row reads blocks of this
/// over the number of rows, between [`MIN_BLOCK`] and [`MAX_BLOCK`] calls).
const BUDGET: u64 = 1 << 18;
const MIN_BLOCK: u64 = 64;
const MAX_BLOCK: u64 = 4096;
/// Depths summarised; deeper calls are counted in [`Summary::deeper`].
pub const MAX_LANES: usize = 256;

/// A time window (absolute ns, `t0 < t1`) cut into `width` pixels: pixel `p` covers
/// `[t0 + ⌈p·(t1 − t0)/width⌉, t0 + ⌈(p+1)·(t1 − t0)/width⌉)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct View {
    pub t0: i64,
    pub t1: i64,
    pub width: usize,
}

impl View {
    fn check(&self) -> Result<()> {
        if self.t1 <= self.t0 || self.width == 0 {
            return Err(Error::Unavailable(
                "a timeline window needs an end after its start and at least one pixel".into(),
            ));
        }
        Ok(())
    }

    /// The `width + 1` pixel edges, ns.
    pub fn edges(&self) -> Vec<i64> {
        let d = i128::from(self.t1) - i128::from(self.t0);
        let w = self.width as i128;
        (0..=self.width)
            .map(|p| {
                let off = (p as i128 * d + w - 1) / w;
                i64::try_from(i128::from(self.t0) + off).unwrap_or(self.t1)
            })
            .collect()
    }
}

/// One pixel of a lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pixel {
    /// Time its calls cover within the pixel, ns.
    pub busy: i64,
    /// Calls that touch it (a call `[s, e)` touches the pixels of `[s, max(e, s + 1))`).
    pub calls: u64,
    /// Those of them that touch no pixel before it: a run of pixels `[p, q)` is touched by
    /// `pixels[p].calls` plus the `first` of the others.
    pub first: u64,
    /// The region with the most time in it (the lowest id on a tie), if any call touches it.
    pub region: Option<u32>,
    /// That region's time in it, ns.
    pub region_busy: i64,
}

/// Entries of [`LaneSummary`]'s cache of where regions are tallied.
const SLOTS: usize = 64;

/// Summarises the calls of one lane, given in order of their starts.
pub struct LaneSummary {
    pixels: Vec<Pixel>,
    /// Time per region of the pixels not yet finished.
    tally: Vec<Vec<(u32, i64)>>,
    /// By region modulo [`SLOTS`]: the region last tallied, the pixel and its place in that
    /// pixel's tally. A pixel holds dozens of regions, and searching them for every call
    /// was half the time of `add`.
    slot: [(u32, usize, usize); SLOTS],
    /// Pixels before this are finished: no later call can touch them.
    frontier: usize,
    /// The pixel the last call started in.
    at: usize,
}

impl LaneSummary {
    pub fn new(width: usize) -> LaneSummary {
        LaneSummary {
            pixels: vec![Pixel::default(); width],
            tally: vec![Vec::new(); width],
            slot: [(u32::MAX, usize::MAX, 0); SLOTS],
            frontier: 0,
            at: 0,
        }
    }

    /// The pixel holding `t` (`edges[0] ≤ t < edges[width]`), searched from `self.at`.
    fn pixel(&self, edges: &[i64], t: i64) -> usize {
        let w = self.pixels.len();
        let p = self.at.min(w - 1);
        if edges[p] <= t && t < edges[p + 1] {
            return p;
        }
        if p + 2 <= w && edges[p + 1] <= t && t < edges[p + 2] {
            return p + 1;
        }
        edges.partition_point(|&x| x <= t).clamp(1, w) - 1
    }

    /// Adds the call `[s, e)` of `region` (`edges`: the view's); calls come in start order.
    pub fn add(&mut self, edges: &[i64], s: i64, e: i64, region: u32) {
        let w = self.pixels.len();
        let (t0, t1) = (edges[0], edges[w]);
        let reach = e.max(s.saturating_add(1));
        if s >= t1 || reach <= t0 {
            return;
        }
        let p0 = self.pixel(edges, s.max(t0));
        self.at = p0;
        self.finish_before(p0);
        let p1 = self.pixel(edges, reach.min(t1) - 1);
        self.pixels[p0].first += 1;
        for p in p0..=p1 {
            let (lo, hi) = (edges[p], edges[p + 1]);
            let time = e.min(hi).saturating_sub(s.max(lo)).max(0);
            let px = &mut self.pixels[p];
            px.busy = px.busy.saturating_add(time);
            px.calls += 1;
            let tally = &mut self.tally[p];
            let slot = &mut self.slot[region as usize % SLOTS];
            let k = match *slot {
                (r, at, k) if r == region && at == p => k,
                _ => match tally.iter().position(|t| t.0 == region) {
                    Some(k) => k,
                    None => {
                        tally.push((region, 0));
                        tally.len() - 1
                    }
                },
            };
            *slot = (region, p, k);
            if let Some(t) = tally.get_mut(k) {
                t.1 = t.1.saturating_add(time);
            }
        }
    }

    /// Finishes the pixels before `p`.
    fn finish_before(&mut self, p: usize) {
        while self.frontier < p.min(self.pixels.len()) {
            let f = self.frontier;
            // The most time, the lowest id on a tie (a loop: less code in the page).
            let mut best: Option<(u32, i64)> = None;
            for &(r, t) in &self.tally[f] {
                if best.is_none_or(|(br, bt)| t > bt || (t == bt && r < br)) {
                    best = Some((r, t));
                }
            }
            if let Some((r, t)) = best {
                self.pixels[f].region = Some(r);
                self.pixels[f].region_busy = t;
            }
            self.tally[f] = Vec::new();
            self.frontier += 1;
        }
    }

    /// The finished pixels.
    pub fn finish(mut self) -> Vec<Pixel> {
        self.finish_before(usize::MAX);
        self.pixels
    }
}

/// One rank's summary of a view: a lane of pixels per depth, the top first.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Summary {
    pub lanes: Vec<Vec<Pixel>>,
    /// The rank's calls do not nest: they all lie in the one lane.
    pub improper: bool,
    /// Calls deeper than [`MAX_LANES`] in the window, left out.
    pub deeper: u64,
    /// The calls of the window at least a pixel wide (also counted in the pixels), each
    /// lane's in order of their starts, at most [`MAX_WIDE`]: what a view draws one by one.
    pub wide: Vec<Call>,
}

/// Calls a [`Summary`] lists in [`Summary::wide`] (a lane holds at most a call per pixel
/// when its calls nest, so only a rank whose calls do not nest reaches it).
pub const MAX_WIDE: usize = 1 << 16;

/// One call of a summary's window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Call {
    /// Its lane (nesting depth, 0 for the top).
    pub depth: usize,
    pub start: i64,
    pub end: i64,
    pub region: u32,
}

/// Keeps the calls at least a pixel of `[t0, t1)` over `width` pixels wide.
struct Wide {
    t: i128,
    width: i128,
    calls: Vec<Call>,
}

impl Wide {
    fn new(edges: &[i64]) -> Wide {
        let width = edges.len() - 1;
        Wide {
            t: i128::from(edges[width]) - i128::from(edges[0]),
            width: width as i128,
            calls: Vec::new(),
        }
    }

    fn add(&mut self, depth: usize, start: i64, end: i64, region: u32) {
        let long = (i128::from(end) - i128::from(start)) * self.width >= self.t;
        if long && self.calls.len() < MAX_WIDE {
            self.calls.push(Call {
                depth,
                start,
                end,
                region,
            });
        }
    }
}

/// A mark of a row's index: before call `k · MARK`.
#[derive(Debug, Clone, Copy)]
struct Mark {
    /// The start of call `k · MARK − 1` (0 for the first call): where start deltas resume.
    base: i64,
    /// The latest end of the calls before.
    reach: i64,
}

/// One row (region) of the rank and its marks.
struct Row {
    region: usize,
    marks: Vec<Mark>,
}

impl Row {
    /// Where a window from `t0` starts reading the row: at the last mark before which
    /// every call ended before the window, with the start of the call before it.
    fn window_start(&self, t0: i64) -> (u64, i64) {
        let k = (self.marks)
            .partition_point(|m| m.reach < t0.saturating_sub(1))
            .saturating_sub(1);
        match self.marks.get(k) {
            Some(m) => (k as u64 * MARK, m.base),
            None => (0, 0),
        }
    }
}

/// The calls of a row, stored or loaded.
fn row_calls(row: &crate::schema::RankCalls) -> u64 {
    match row.span {
        Some(span) => span.count,
        None => row.starts.len().min(row.ends.len()) as u64,
    }
}

/// The calls a window's first read of a row asks for, of the first pass's `block`.
fn window_block(block: u64) -> u64 {
    MIN_BLOCK.max(block / 32)
}

/// How the rank is summarised, found by its first pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Not yet read: the next summary reads every call and builds the index.
    Unread,
    /// Merged from the rows' ranges, by depth or (improper) in one lane.
    Streamed { improper: bool },
    /// Stacked whole (`lanes::stack_rank`): thread lanes, or rows out of start order.
    Whole,
}

/// One rank's calls, ready to be summarised for any view: the regions kept, each row's
/// sparse index, and what the first pass learnt (depths, span, nesting).
pub struct RankIndex {
    rank: u32,
    rows: Vec<Row>,
    mode: Mode,
    depths: usize,
    span: Option<(i64, i64)>,
    keep: Vec<bool>,
}

/// A row being read, a block at a time.
struct Cursor {
    row: usize,
    next: u64,
    count: u64,
    base: i64,
    reach: i64,
    starts: Vec<i64>,
    ends: Vec<i64>,
    at: usize,
    /// Calls the next read asks for: a window's reads start small and double.
    block: u64,
}

impl RankIndex {
    /// The rank's rows of the regions `keeps` takes (by name); nothing is read yet.
    pub fn new(profile: &Profile, rank: u32, keeps: impl Fn(&str) -> bool) -> RankIndex {
        let keep: Vec<bool> = profile.regions.iter().map(|r| keeps(&r.name)).collect();
        RankIndex {
            rank,
            rows: Vec::new(),
            mode: Mode::Unread,
            depths: 0,
            span: None,
            keep,
        }
    }

    /// The rank.
    pub fn rank(&self) -> u32 {
        self.rank
    }

    /// The earliest start and latest end of the rank's calls, once a summary has read them.
    pub fn span(&self) -> Option<(i64, i64)> {
        self.span
    }

    /// The number of lanes (depths) of the rank's summaries, once one has read them.
    pub fn depths(&self) -> usize {
        self.depths
    }

    /// Whether the rank's calls have been read once (later views read only their window).
    pub fn is_read(&self) -> bool {
        self.mode != Mode::Unread
    }

    /// The summary of `view`: the first one reads every call of the rank (and indexes it),
    /// later ones only the calls of their window.
    pub fn summary(
        &mut self,
        profile: &Profile,
        source: &dyn RowSource,
        view: &View,
    ) -> Result<Summary> {
        self.summary_with(profile, source, view, None)
    }

    /// [`summary`](Self::summary), counting the bytes of calls it reads into `progress`
    /// (at most [`to_read`](Self::to_read), all of it once done) and stopping with
    /// [`Error::Cancelled`] within a block of calls of its cancel. A cancelled first read
    /// leaves the rank unread, to be read again by the next summary.
    pub fn summary_with(
        &mut self,
        profile: &Profile,
        source: &dyn RowSource,
        view: &View,
        progress: Option<&Progress>,
    ) -> Result<Summary> {
        view.check()?;
        let mut meter = Meter::new(progress, self.to_read(profile, view));
        meter.check()?;
        let summary = self.summary_metered(profile, source, view, &mut meter)?;
        meter.finish();
        Ok(summary)
    }

    /// The bytes of calls ([`CALL_BYTES`] a call) the summary of `view` will read: every
    /// call of the rank on its first read, else those from the marks before the window to
    /// the first mark after it.
    pub fn to_read(&self, profile: &Profile, view: &View) -> u64 {
        let count = |region: usize| {
            (profile.regions.get(region))
                .and_then(|r| r.rank(self.rank))
                .map_or(0, row_calls)
        };
        let calls: u64 = match self.mode {
            Mode::Unread | Mode::Whole => (0..profile.regions.len())
                .filter(|&id| self.keep.get(id).copied().unwrap_or(false))
                .map(count)
                .sum(),
            Mode::Streamed { .. } => (self.rows.iter())
                .map(|row| {
                    let (from, _) = row.window_start(view.t0);
                    let k1 = row.marks.partition_point(|m| m.base < view.t1);
                    let end = (k1 as u64).saturating_mul(MARK).min(count(row.region));
                    end.saturating_sub(from)
                })
                .sum(),
        };
        calls.saturating_mul(CALL_BYTES)
    }

    /// Calls each row reads at a time on a rank's first pass (a window's reads start at
    /// [`window_block`] of it and double).
    fn block(&self) -> u64 {
        (BUDGET / self.rows.len().max(1) as u64).clamp(MIN_BLOCK, MAX_BLOCK)
    }

    fn summary_metered(
        &mut self,
        profile: &Profile,
        source: &dyn RowSource,
        view: &View,
        meter: &mut Meter<'_>,
    ) -> Result<Summary> {
        let edges = view.edges();
        match self.mode {
            Mode::Unread => {
                let Some(rows) = self.streamable_rows(profile, source) else {
                    self.mode = Mode::Whole;
                    return self.whole(profile, source, &edges, meter);
                };
                self.rows = rows
                    .into_iter()
                    .map(|region| Row {
                        region,
                        marks: Vec::new(),
                    })
                    .collect();
                let (summary, pass) = self.merge(profile, source, &edges, None, meter)?;
                self.span = pass.span;
                if pass.unsorted {
                    self.rows = Vec::new();
                    self.mode = Mode::Whole;
                    return self.whole(profile, source, &edges, meter);
                }
                self.mode = Mode::Streamed {
                    improper: pass.improper,
                };
                self.depths = if pass.improper {
                    1
                } else {
                    pass.depths.min(MAX_LANES)
                };
                if pass.improper {
                    // The depths were nesting ones: summarise again in one lane.
                    return Ok(self.merge(profile, source, &edges, Some(true), meter)?.0);
                }
                Ok(summary)
            }
            Mode::Streamed { improper } => Ok(self
                .merge(profile, source, &edges, Some(improper), meter)?
                .0),
            Mode::Whole => self.whole(profile, source, &edges, meter),
        }
    }

    /// The rank stacked whole, then summarised.
    fn whole(
        &mut self,
        profile: &Profile,
        source: &dyn RowSource,
        edges: &[i64],
        meter: &mut Meter<'_>,
    ) -> Result<Summary> {
        // The names of the regions kept (searched only when some are not).
        let all = self.keep.iter().all(|&k| k);
        let kept: Vec<&str> = (profile.regions.iter().zip(&self.keep))
            .filter(|(_, &k)| k && !all)
            .map(|(r, _)| r.name.as_str())
            .collect();
        let keeps = |name: &str| all || kept.contains(&name);
        let (calls, improper) = nest_rank(profile, source, self.rank, keeps)?;
        meter.calls(calls.len() as u64);
        meter.check()?;
        self.span = (calls.iter())
            .map(|c| (c.start_ns, c.end_ns))
            .reduce(|(a, b), (c, d)| (a.min(c), b.max(d)));
        self.depths = calls.iter().map(|c| c.depth + 1).max().unwrap_or(0);
        self.depths = self.depths.min(MAX_LANES);
        let width = edges.len() - 1;
        let mut lanes: Vec<LaneSummary> =
            (0..self.depths).map(|_| LaneSummary::new(width)).collect();
        let mut summary = Summary {
            improper,
            ..Summary::default()
        };
        let mut wide = Wide::new(edges);
        let (t0, t1) = (edges[0], edges[width]);
        // The calls come in start order, so each lane's do.
        for c in &calls {
            let (s, e, region) = (c.start_ns, c.end_ns, c.region as u32);
            let Some(lane) = lanes.get_mut(c.depth) else {
                summary.deeper += 1;
                continue;
            };
            lane.add(edges, s, e, region);
            if s < t1 && e > t0 {
                wide.add(c.depth, s, e, region);
            }
        }
        summary.lanes = lanes.into_iter().map(LaneSummary::finish).collect();
        summary.wide = wide.calls;
        Ok(summary)
    }

    /// Merges the rows in start order into the lanes. `improper`: `None` on the first pass
    /// (every call read, the marks built, nesting checked), else whether to use one lane.
    fn merge(
        &mut self,
        profile: &Profile,
        source: &dyn RowSource,
        edges: &[i64],
        improper: Option<bool>,
        meter: &mut Meter<'_>,
    ) -> Result<(Summary, Pass)> {
        let width = edges.len() - 1;
        let (t0, t1) = (edges[0], edges[width]);
        let first = improper.is_none();
        let read = match improper {
            None => Read::First,
            Some(_) => Read::Window(t0, t1),
        };
        let flat = improper.unwrap_or(false);
        let mut lanes: Vec<LaneSummary> = Vec::new();
        let lanes_wanted = if first { MAX_LANES } else { self.depths.max(1) };
        let mut deeper = 0u64;
        let mut wide = Wide::new(edges);
        let pass = self.stream(
            profile,
            source,
            read,
            (flat, false),
            meter,
            |depth, s, e, region| {
                if s >= t1 || e.max(s.saturating_add(1)) <= t0 {
                    return;
                }
                if depth >= lanes_wanted {
                    deeper += 1;
                    return;
                }
                while lanes.len() <= depth {
                    lanes.push(LaneSummary::new(width));
                }
                lanes[depth].add(edges, s, e, region);
                wide.add(depth, s, e, region);
            },
        )?;
        let wanted = if first {
            pass.depths.min(MAX_LANES)
        } else {
            lanes_wanted
        };
        while lanes.len() < wanted {
            lanes.push(LaneSummary::new(width));
        }
        let summary = Summary {
            lanes: lanes.into_iter().map(LaneSummary::finish).collect(),
            improper: flat,
            deeper,
            wide: wide.calls,
        };
        Ok((summary, pass))
    }

    /// The kept regions with calls on this rank, or `None` when one of them has thread
    /// lanes: those are read whole, not streamed.
    fn streamable_rows(&self, profile: &Profile, source: &dyn RowSource) -> Option<Vec<usize>> {
        let rows: Vec<usize> = (profile.regions.iter().enumerate())
            .filter(|(id, r)| {
                self.keep.get(*id).copied().unwrap_or(false)
                    && r.rank(self.rank).is_some_and(|row| row.calls() > 0)
            })
            .map(|(id, _)| id)
            .collect();
        let lanes = rows.iter().any(|&id| {
            profile.regions[id]
                .rank(self.rank)
                .is_some_and(|row| source.has_lanes(row))
        });
        (!lanes).then_some(rows)
    }

    /// Every call of the rank once, in the order of [`calltree::build`](super::calltree::build)
    /// (by start, the longer first, then by region), each given to `each` with its nesting
    /// depth (the top level 0): how the first read goes, and what it learnt of the rank. A
    /// rank whose rows track thread lanes is not read (its calls nest per lane, and
    /// `lanes::stack_rank` stacks them); nor is a rank already read (`Ok(None)` for both).
    ///
    /// Where the calls do not nest ([`Streamed::Improper`]) the depths given were wrong:
    /// [`RankIndex::each_call_flat`] gives them again at depth 0. Where a row is not in that
    /// order ([`Streamed::Unsorted`]) neither is what `each` was given.
    pub fn each_call(
        &mut self,
        profile: &Profile,
        source: &dyn RowSource,
        each: impl FnMut(usize, i64, i64, u32),
    ) -> Result<Option<Streamed>> {
        if self.mode != Mode::Unread {
            return Ok(None);
        }
        let Some(rows) = self.streamable_rows(profile, source) else {
            self.mode = Mode::Whole;
            return Ok(None);
        };
        self.rows = rows
            .into_iter()
            .map(|region| Row {
                region,
                marks: Vec::new(),
            })
            .collect();
        let mut meter = Meter::new(None, 0);
        let order = (false, false);
        let pass = self.stream(profile, source, Read::First, order, &mut meter, each)?;
        self.span = pass.span;
        if pass.unsorted {
            self.rows = Vec::new();
            self.mode = Mode::Whole;
            return Ok(Some(Streamed::Unsorted));
        }
        self.mode = Mode::Streamed {
            improper: pass.improper,
        };
        self.depths = if pass.improper {
            1
        } else {
            pass.depths.min(MAX_LANES)
        };
        Ok(Some(if pass.improper {
            Streamed::Improper
        } else {
            Streamed::Nested
        }))
    }

    /// Every call of a rank [`each_call`](RankIndex::each_call) found improper, in the order
    /// `calltree::unnested` sorted by (start, end) gives them; `false` where a row is not in
    /// that order (then `each` was given a part of them, and the rank is to be read whole).
    pub fn each_call_flat(
        &mut self,
        profile: &Profile,
        source: &dyn RowSource,
        mut each: impl FnMut(i64, i64, u32),
    ) -> Result<bool> {
        if self.mode != (Mode::Streamed { improper: true }) {
            return Ok(false);
        }
        let again = Read::Again;
        let mut meter = Meter::new(None, 0);
        let pass = self.stream(
            profile,
            source,
            again,
            (true, true),
            &mut meter,
            |_, s, e, r| each(s, e, r),
        )?;
        Ok(!pass.unsorted)
    }

    /// Merges the rows' calls in start order (then the longer first, or with `ascending`
    /// the shorter), computing each one's depth (0 for all when `flat`), and gives them to
    /// `each`: every call on the first read (which marks the rows and checks the nesting),
    /// else those of the window.
    fn stream(
        &mut self,
        profile: &Profile,
        source: &dyn RowSource,
        read: Read,
        (flat, ascending): (bool, bool),
        meter: &mut Meter<'_>,
        mut each: impl FnMut(usize, i64, i64, u32),
    ) -> Result<Pass> {
        let first = read == Read::First;
        let (t0, t1) = match read {
            Read::First | Read::Again => (i64::MIN, None),
            Read::Window(t0, t1) => (t0, Some(t1)),
        };
        // The heap orders calls of one start by this key of their end.
        let key = |e: i64| if ascending { e } else { !e };
        let block = self.block();
        let mut cursors = Vec::with_capacity(self.rows.len());
        for (i, row) in self.rows.iter().enumerate() {
            let Some(calls) = profile.regions[row.region].rank(self.rank) else {
                continue;
            };
            let (next, base) = if t1.is_none() {
                (0, 0)
            } else {
                row.window_start(t0)
            };
            cursors.push(Cursor {
                row: i,
                next,
                count: row_calls(calls),
                base,
                reach: i64::MIN,
                starts: Vec::new(),
                ends: Vec::new(),
                at: 0,
                block: if t1.is_none() {
                    block
                } else {
                    window_block(block)
                },
            });
        }
        let mut pass = Pass::default();
        let mut heap = BinaryHeap::new();
        for (c, cursor) in cursors.iter_mut().enumerate() {
            if self.refill(profile, source, cursor, (block, first), meter)? {
                let (s, e) = (cursor.starts[0], cursor.ends[0]);
                heap.push(Reverse((s, key(e), c)));
            }
        }
        // Ends (doubled, as `calltree` compares them) of the calls still open, innermost
        // last, and the end of the last call at each depth. While the calls nest, the
        // open ones lie each in the one below, so closing from the top closes each call
        // `calltree` counts closed; once they do not, the depths are not used.
        let mut open: Vec<i64> = Vec::new();
        let mut last_end: Vec<i64> = Vec::new();
        while let Some(mut top) = heap.peek_mut() {
            let Reverse((s, k, c)) = *top;
            if t1.is_some_and(|t1| s >= t1) {
                break;
            }
            let cursor = &mut cursors[c];
            let e = cursor.ends[cursor.at];
            let region = self.rows[cursor.row].region as u32;
            cursor.at += 1;
            if cursor.at < cursor.starts.len()
                || self.refill(profile, source, cursor, (block, first), meter)?
            {
                let (s2, e2) = (cursor.starts[cursor.at], cursor.ends[cursor.at]);
                if (s2, key(e2)) < (s, k) {
                    pass.unsorted = true;
                }
                // The row's next call takes its place: one sift instead of a pop and a push.
                *top = Reverse((s2, key(e2), c));
                drop(top);
            } else {
                std::collections::binary_heap::PeekMut::pop(top);
            }
            if first {
                let (lo, hi) = pass.span.unwrap_or((s, e));
                pass.span = Some((lo.min(s), hi.max(e)));
            }
            let depth = if flat {
                0
            } else {
                let s2 = s.wrapping_mul(2);
                while open.last().is_some_and(|&x| x <= s2) {
                    open.pop();
                }
                let depth = open.len();
                let e2 = if e == s {
                    s2.wrapping_add(1)
                } else {
                    e.wrapping_mul(2)
                };
                open.push(e2);
                if first {
                    if e < s
                        || depth
                            .checked_sub(1)
                            .and_then(|d| last_end.get(d))
                            .is_some_and(|&p| p < e)
                    {
                        pass.improper = true;
                    }
                    if last_end.len() <= depth {
                        last_end.resize(depth + 1, i64::MIN);
                    }
                    last_end[depth] = e;
                    pass.depths = pass.depths.max(depth + 1);
                }
                depth
            };
            each(depth, s, e, region);
        }
        Ok(pass)
    }

    /// Reads the cursor's next block (marking it on the first pass); false at the row's end.
    fn refill(
        &mut self,
        profile: &Profile,
        source: &dyn RowSource,
        cursor: &mut Cursor,
        (block, first): (u64, bool),
        meter: &mut Meter<'_>,
    ) -> Result<bool> {
        if cursor.at < cursor.starts.len() {
            return Ok(true);
        }
        let row = &mut self.rows[cursor.row];
        let Some(calls) = profile.regions[row.region].rank(self.rank) else {
            return Ok(false);
        };
        cursor.starts.clear();
        cursor.ends.clear();
        cursor.at = 0;
        let n = cursor.block.min(cursor.count.saturating_sub(cursor.next));
        cursor.block = (cursor.block * 2).min(block);
        if n == 0 {
            return Ok(false);
        }
        meter.check()?;
        source.append_range(
            calls,
            cursor.next,
            n,
            cursor.base,
            &mut cursor.starts,
            &mut cursor.ends,
        )?;
        let got = cursor.starts.len().min(cursor.ends.len());
        cursor.starts.truncate(got);
        cursor.ends.truncate(got);
        if first {
            let mut prev = cursor.base;
            for (k, (&s, &e)) in cursor.starts.iter().zip(&cursor.ends).enumerate() {
                if (cursor.next + k as u64) % MARK == 0 {
                    row.marks.push(Mark {
                        base: prev,
                        reach: cursor.reach,
                    });
                }
                cursor.reach = cursor.reach.max(e);
                prev = s;
            }
        }
        cursor.next += got as u64;
        meter.calls(got as u64);
        cursor.base = cursor.starts.last().copied().unwrap_or(cursor.base);
        if got == 0 {
            // A source that gives fewer calls than the row counts: the row ends here.
            cursor.count = cursor.next;
        }
        Ok(got > 0)
    }
}

/// How a rank's calls were read by [`RankIndex::each_call`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Streamed {
    /// They nest: each was given with its depth.
    Nested,
    /// They do not nest: read them again with [`RankIndex::each_call_flat`].
    Improper,
    /// A row is not in start order: the rank is to be read whole (`lanes::stack_rank`).
    Unsorted,
}

/// Which calls a merge reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Read {
    /// Every call, marking the rows and checking the nesting.
    First,
    /// Every call again.
    Again,
    /// The calls of `[t0, t1)`, from the marks.
    Window(i64, i64),
}

/// What the first pass learnt.
#[derive(Default)]
struct Pass {
    depths: usize,
    span: Option<(i64, i64)>,
    improper: bool,
    unsorted: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::events::Loaded;
    use crate::schema::{Depth, ProfileLayout, RankCalls, Region, RowEvents};
    use std::borrow::Cow;
    use std::cell::Cell;

    /// One rank: a region of `n` back-to-back calls, each inside one of `outer`.
    fn profile(n: i64) -> Profile {
        let row = |starts: Vec<i64>, ends: Vec<i64>| RankCalls {
            calls: crate::schema::Calls {
                starts,
                ends,
                ..Default::default()
            }
            .into(),
            rank: 0,
            ..RankCalls::default()
        };
        let inner = row(
            (0..n).map(|i| i * 10).collect(),
            (0..n).map(|i| i * 10 + 5).collect(),
        );
        Profile {
            regions: vec![
                Region {
                    name: "outer".into(),
                    ranks: vec![row(vec![0], vec![n * 10])],
                },
                Region {
                    name: "inner".into(),
                    ranks: vec![inner],
                },
            ],
            schema: 3,
            layout: ProfileLayout::Columnar,
            metadata: Default::default(),
            num_ranks: 1,
            region_names: Vec::new(),
            depth: Depth::Events,
            summary_statistics: false,
        }
    }

    /// The loaded calls, cancelling `progress` after `after` reads of a range.
    struct Stopping<'a> {
        progress: &'a Progress,
        reads: Cell<u32>,
        after: u32,
    }

    impl RowSource for Stopping<'_> {
        fn events<'a>(&'a self, row: &'a RankCalls) -> Result<Cow<'a, RowEvents>> {
            Loaded.events(row)
        }

        fn append_range(
            &self,
            row: &RankCalls,
            from: u64,
            count: u64,
            base: i64,
            starts: &mut Vec<i64>,
            ends: &mut Vec<i64>,
        ) -> Result<()> {
            self.reads.set(self.reads.get() + 1);
            if self.reads.get() == self.after {
                self.progress.cancel();
            }
            Loaded.append_range(row, from, count, base, starts, ends)
        }
    }

    #[test]
    fn a_cancelled_summary_stops_early_and_a_full_one_reaches_the_total() {
        let n = 100_000;
        let profile = profile(n);
        let view = View {
            t0: 0,
            t1: n * 10,
            width: 80,
        };
        let plain = RankIndex::new(&profile, 0, |_| true)
            .summary(&profile, &Loaded, &view)
            .unwrap();

        let mut rank = RankIndex::new(&profile, 0, |_| true);
        let total = rank.to_read(&profile, &view);
        assert_eq!(total, (n as u64 + 1) * CALL_BYTES);
        let progress = Progress::default();
        progress.add_total(total);
        let stopping = Stopping {
            progress: &progress,
            reads: Cell::new(0),
            after: 2,
        };
        let got = rank.summary_with(&profile, &stopping, &view, Some(&progress));
        assert!(matches!(got, Err(Error::Cancelled)), "{got:?}");
        // Two reads of a block each (the outer call, then 4096 calls), then no more.
        assert_eq!(stopping.reads.get(), 2);
        assert!(progress.done() < total / 10, "{}", progress.done());
        assert!(!rank.is_read());

        // Read again in full: the same summary, and the progress reaches its total.
        let progress = Progress::default();
        progress.add_total(rank.to_read(&profile, &view));
        let full = rank.summary_with(&profile, &Loaded, &view, Some(&progress));
        assert_eq!(full.unwrap(), plain);
        assert_eq!((progress.done(), progress.total()), (total, total));

        // A zoomed window reads from the marks: less, and again all of what it announced.
        let zoom = View {
            t0: n * 5,
            t1: n * 5 + 20_000,
            width: 80,
        };
        let part = rank.to_read(&profile, &zoom);
        assert!(part > 0 && part < total / 10, "{part}");
        let progress = Progress::default();
        progress.add_total(part);
        rank.summary_with(&profile, &Loaded, &zoom, Some(&progress))
            .unwrap();
        assert_eq!(progress.done(), part);
    }

    #[test]
    fn regions_sharing_a_slot_are_tallied_apart() {
        // Regions 1 and 65 share a slot; 2 has its own. Pixel 0 ([0, 10)): 1 has 5 ns (3
        // and 2 of a call over [8, 20)), 65 has 3 ns in two calls, 2 has 2 ns; pixel 1:
        // the rest of that call, and one of 65.
        let view = View {
            t0: 0,
            t1: 20,
            width: 2,
        };
        let edges = view.edges();
        let mut lane = LaneSummary::new(2);
        for (s, e, r) in [(0, 2, 65), (2, 5, 1), (5, 7, 2), (7, 8, 65), (8, 20, 1)] {
            lane.add(&edges, s, e, r);
        }
        lane.add(&edges, 19, 20, 65);
        let px = lane.finish();
        assert_eq!((px[0].busy, px[0].calls, px[0].first), (10, 5, 5));
        assert_eq!((px[0].region, px[0].region_busy), (Some(1), 5));
        assert_eq!((px[1].busy, px[1].calls, px[1].first), (11, 2, 1));
        assert_eq!((px[1].region, px[1].region_busy), (Some(1), 10));
    }
}
