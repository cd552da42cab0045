//! The timeline: chosen ranks as lanes in numeric order, each rank's calls stacked by
//! nesting depth (a flame chart), drawn from the library's streaming timeline summary
//! ([`sp::analysis::timeline`]). A rank is read once when its lanes first come into view
//! (which indexes its rows); each view then reads only the calls in its window and keeps
//! a summary per pixel and lane, so the worker's memory follows the picture, not the
//! profile. A call at least a pixel wide is one rectangle; a run of pixels of narrower
//! calls with the same dominant region (the one with the most time) is one block.
//! Ranks that ran one after another (or on clocks far apart) are drawn each from its own
//! first call.

use serde_json::{json, Value as Json};
use sp::analysis::events::RowSource;
use sp::analysis::progress::Progress;
use sp::analysis::timeline::{self, Call, RankIndex, Summary};
use sp::analysis::units::{bytes_text, duration_text};
use sp::schema::{Profile, Region};
use sp::sort::SortSlice;

/// One rank: its index (once made), its summary of the last view drawn and that of the
/// last view of its whole span, kept so that zooming back out reads nothing.
struct Rank {
    rank: u32,
    /// The earliest start and latest end of its calls (from the rows' stored statistics).
    span: Option<(i64, i64)>,
    index: Option<RankIndex>,
    summary: Option<(timeline::View, Summary)>,
    whole: Option<(timeline::View, Summary)>,
}

impl Rank {
    /// Its summary of `window`, if kept.
    fn of(&self, window: timeline::View) -> Option<&Summary> {
        [&self.summary, &self.whole]
            .into_iter()
            .flatten()
            .find(|(w, _)| *w == window)
            .map(|(_, s)| s)
    }
}

/// The timeline of one profile's chosen ranks.
pub struct Timeline {
    ranks: Vec<Rank>,
    /// The ranks' spans are known.
    spanned: bool,
    /// Each rank is drawn from its first call (as of the last view).
    aligned: bool,
    /// Bytes read by the views since one last read all the ranks in view.
    reading: u64,
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
        if self.t1 > self.t0 && self.width >= 1.0 {
            self.width / (self.t1 - self.t0)
        } else {
            0.0
        }
    }

    /// The library's window of this view on a clock moved by `off` ns: whole ns, and
    /// no more pixels than ns (nor than 32,768).
    fn window(&self, off: i64) -> Option<timeline::View> {
        if self.scale() <= 0.0 {
            return None;
        }
        let t0 = (self.t0.floor() as i64).saturating_add(off);
        let t1 = (self.t1.ceil() as i64).saturating_add(off).max(t0 + 1);
        let span = u64::try_from(t1 - t0).unwrap_or(u64::MAX);
        let width = (self.width.round() as u64).clamp(1, span.clamp(1, 1 << 15)) as usize;
        Some(timeline::View { t0, t1, width })
    }
}

/// Bytes of calls a view reads of ranks not yet read before it answers with what it has
/// (the page then asks again, showing how far it has got, until Esc).
pub const READ_STEP: u64 = 24 << 20;

/// Floats per rectangle in a view's binary answer: x0, x1 (pixels), lane, region (of the
/// call, or the dominant one of a merged block), calls (1, or more for a merged block:
/// the calls touching its pixels, a call at least a pixel wide beside it among them).
pub const RECT_FLOATS: usize = 5;

/// What a lane shows: a call at least a pixel wide, or a run of pixels `[p0, p1)` of
/// narrower calls with the same dominant region.
enum Shape<'a> {
    Call(&'a Call),
    Run {
        p0: usize,
        p1: usize,
        region: u32,
        calls: u64,
        busy: i64,
        region_busy: i64,
    },
}

/// The shapes of lane `depth` of `summary` over the pixel `edges`, in order: its wide
/// calls, and runs of the pixels they do not cover.
fn shapes<'a>(summary: &'a Summary, depth: usize, edges: &[i64]) -> Vec<Shape<'a>> {
    let Some(pixels) = summary.lanes.get(depth) else {
        return Vec::new();
    };
    let mut wide = summary.wide.iter().filter(|c| c.depth == depth).peekable();
    let mut out = Vec::new();
    // The latest end of the wide calls starting at or before the pixel's start, and of
    // those starting inside the last pixel.
    let (mut reach, mut inside) = (i64::MIN, i64::MIN);
    let mut run: Option<Shape> = None;
    let flush = |run: &mut Option<Shape<'a>>, out: &mut Vec<Shape<'a>>| {
        if let Some(r) = run.take() {
            out.push(r);
        }
    };
    for (p, px) in pixels.iter().enumerate() {
        let (lo, hi) = (edges[p], edges[p + 1]);
        reach = reach.max(inside);
        inside = i64::MIN;
        // The wide calls starting before this pixel's end are drawn before it.
        while let Some(c) = wide.next_if(|c| c.start < hi) {
            flush(&mut run, &mut out);
            out.push(Shape::Call(c));
            if c.start <= lo {
                reach = reach.max(c.end);
            } else {
                inside = inside.max(c.end);
            }
        }
        let covered = reach >= hi;
        let Some(region) = px.region.filter(|_| px.calls > 0 && !covered) else {
            flush(&mut run, &mut out);
            continue;
        };
        match &mut run {
            Some(Shape::Run {
                p1,
                region: r,
                calls,
                busy,
                region_busy,
                ..
            }) if *r == region && *p1 == p => {
                *p1 = p + 1;
                *calls += px.first;
                *busy += px.busy;
                *region_busy += px.region_busy;
            }
            _ => {
                flush(&mut run, &mut out);
                run = Some(Shape::Run {
                    p0: p,
                    p1: p + 1,
                    region,
                    calls: px.calls,
                    busy: px.busy,
                    region_busy: px.region_busy,
                });
            }
        }
    }
    flush(&mut run, &mut out);
    out.extend(wide.map(Shape::Call));
    out
}

impl Timeline {
    pub fn new(ranks: Vec<u32>) -> Timeline {
        Timeline {
            ranks: ranks
                .into_iter()
                .map(|rank| Rank {
                    rank,
                    span: None,
                    index: None,
                    summary: None,
                    whole: None,
                })
                .collect(),
            spanned: false,
            aligned: false,
            reading: 0,
        }
    }

    /// Finds each rank's span from its rows' stored statistics; that of a rank with a row
    /// without them is known once the rank is read.
    fn find_spans(&mut self, profile: &Profile) {
        if self.spanned {
            return;
        }
        for r in &mut self.ranks {
            let mut span: Option<(i64, i64)> = None;
            let mut known = true;
            for row in (profile.regions.iter())
                .filter_map(|g| g.rank(r.rank))
                .filter(|row| row.calls() > 0)
            {
                let stats = row.statistics.as_ref();
                match stats.and_then(|s| s.start_minimum().zip(s.end_maximum())) {
                    Some((lo, hi)) => {
                        let (a, b) = span.unwrap_or((lo, hi));
                        span = Some((a.min(lo), b.max(hi)));
                    }
                    None => known = false,
                }
            }
            r.span = span.filter(|_| known);
        }
        self.spanned = true;
    }

    /// Earliest start and latest end over the ranks, ns.
    fn span(&self) -> Option<(i64, i64)> {
        self.ranks
            .iter()
            .filter_map(|r| r.span)
            .reduce(|(a, b), (c, d)| (a.min(c), b.max(d)))
    }

    /// The ranks ran one after another: no two of their spans overlap.
    fn disjoint(&self) -> bool {
        let mut spans: Vec<(i64, i64)> = self.ranks.iter().filter_map(|r| r.span).collect();
        spans.sort_ord_unstable();
        spans.len() > 1 && spans.windows(2).all(|w| w[1].0 > w[0].1)
    }

    /// The view's time range as drawn: the span of the ranks, or, aligned, from the
    /// earliest start to the end of the longest rank.
    pub fn extent(&self) -> Option<(i64, i64)> {
        let (lo, hi) = self.span()?;
        if !self.aligned {
            return Some((lo, hi));
        }
        let longest = (self.ranks.iter().filter_map(|r| r.span))
            .map(|(a, b)| b - a)
            .max()
            .unwrap_or(0);
        Some((lo, lo.saturating_add(longest)))
    }

    /// How far rank `i`'s clock is moved back to be drawn, ns: when aligned, from its
    /// first call to the earliest of all.
    fn offset(&self, i: usize) -> i64 {
        match (self.aligned, self.span(), self.ranks[i].span) {
            (true, Some((lo, _)), Some((start, _))) => start - lo,
            _ => 0,
        }
    }

    /// Whether rank `i`'s calls have been read (and indexed).
    fn is_read(&self, i: usize) -> bool {
        self.ranks[i].index.as_ref().is_some_and(|x| x.is_read())
    }

    /// Lanes of rank `i` (one until it is read).
    fn lanes_of(&self, i: usize) -> usize {
        match &self.ranks[i].index {
            Some(index) if index.is_read() => index.depths().max(1),
            _ => 1,
        }
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

    /// The ranks (positions) whose lanes overlap lanes `[first, first + count)`.
    fn visible(&self, first: usize, count: usize) -> Vec<usize> {
        let mut lane = 0;
        let mut out = Vec::new();
        for i in 0..self.ranks.len() {
            if lane >= first + count {
                break;
            }
            let n = self.lanes_of(i);
            if lane + n > first {
                out.push(i);
            }
            lane += n;
        }
        out
    }

    /// Summarises rank `i` for `window` (on its own clock), unless its summary of that
    /// window is kept; the first summary of a rank reads (and indexes) all its calls.
    fn summarise(
        &mut self,
        profile: &Profile,
        source: &dyn RowSource,
        i: usize,
        window: Option<timeline::View>,
        progress: &Progress,
    ) -> Result<(), String> {
        let Some(window) = window else {
            return Ok(());
        };
        let r = &mut self.ranks[i];
        if r.of(window).is_some() {
            return Ok(());
        }
        let rank = r.rank;
        let index = r
            .index
            .get_or_insert_with(|| RankIndex::new(profile, rank, |_| true));
        let summary = index
            .summary_with(profile, source, &window, Some(progress))
            .map_err(|e| e.to_string())?;
        r.span = r.span.or(index.span());
        let whole = r
            .span
            .is_some_and(|(a, b)| window.t0 <= a && b <= window.t1);
        *(if whole { &mut r.whole } else { &mut r.summary }) = Some((window, summary));
        Ok(())
    }

    /// The rectangles of `view` into `bin` ([`RECT_FLOATS`] f32 each); the answer gives the
    /// lanes (rank and depth of each; a rank not read yet has one), the extent and whether
    /// the ranks are aligned. An empty view (as the first, before the extent is known) draws
    /// nothing and reads only the ranks whose rows store no span. Once it has read
    /// [`READ_STEP`] bytes of ranks not read before, it draws those it has and says in
    /// `progress` how much of the ranks in view it has read (`null` when all).
    pub fn view(
        &mut self,
        profile: &Profile,
        source: &dyn RowSource,
        view: &View,
        bin: &mut Vec<u8>,
    ) -> Result<Json, String> {
        self.find_spans(profile);
        let progress = Progress::default();
        {
            // Ranks whose rows store no span are read to find it (the first view asks for
            // the extent).
            let all = timeline::View {
                t0: i64::MIN / 4,
                t1: i64::MAX / 4,
                width: 1,
            };
            for i in 0..self.ranks.len() {
                if self.ranks[i].span.is_none() && !self.is_read(i) {
                    self.summarise(profile, source, i, Some(all), &progress)?;
                }
            }
        }
        self.aligned = view.align.unwrap_or_else(|| self.disjoint());
        let mut todo = 0;
        if view.scale() > 0.0 {
            // Reading a rank may give it more lanes and push the next ones out of view:
            // read the first unread one in view until none is, or the step is read.
            while let Some(i) =
                (self.visible(view.first, view.count).into_iter()).find(|&i| !self.is_read(i))
            {
                let window = view.window(self.offset(i));
                if progress.done() >= READ_STEP {
                    let r = &self.ranks[i];
                    let index = RankIndex::new(profile, r.rank, |_| true);
                    todo = window.map_or(0, |w| index.to_read(profile, &w));
                    break;
                }
                self.summarise(profile, source, i, window, &progress)?;
            }
            let visible = self.visible(view.first, view.count);
            for i in 0..self.ranks.len() {
                if visible.contains(&i) && (todo == 0 || self.is_read(i)) {
                    let window = view.window(self.offset(i));
                    self.summarise(profile, source, i, window, &progress)?;
                } else {
                    // Out of view: its summary would only hold memory.
                    self.ranks[i].summary = None;
                }
            }
        }
        let mut answer = self.draw(view, bin);
        self.reading = if todo > 0 {
            self.reading + progress.done()
        } else {
            0
        };
        if todo > 0 {
            // The ranks in view still unread, each with as many lanes as the most of those
            // read.
            let visible = self.visible(view.first, view.count);
            let (read, unread): (Vec<usize>, Vec<usize>) =
                visible.into_iter().partition(|&i| self.is_read(i));
            let used: usize = read.iter().map(|&i| self.lanes_of(i)).sum();
            let most = (0..self.ranks.len())
                .map(|i| self.lanes_of(i))
                .max()
                .unwrap_or(1);
            let fit = view
                .count
                .saturating_sub(used)
                .div_ceil(most)
                .clamp(1, unread.len());
            let total = self.reading + todo * fit as u64;
            let text = format!("{} of {}", bytes_text(self.reading), bytes_text(total));
            answer["progress"] = json!(text);
        }
        Ok(answer)
    }

    /// [`Timeline::view`] of the summaries made.
    fn draw(&self, view: &View, bin: &mut Vec<u8>) -> Json {
        let mut lanes = Vec::new();
        for (i, r) in self.ranks.iter().enumerate() {
            for depth in 0..self.lanes_of(i) {
                lanes.push((i, r.rank, depth));
            }
        }
        let scale = view.scale();
        bin.clear();
        let last = (view.first + view.count).min(lanes.len());
        for (index, &(i, _, depth)) in lanes.iter().enumerate().take(last).skip(view.first) {
            let off = self.offset(i);
            let Some(window) = view.window(off) else {
                continue;
            };
            let Some(summary) = self.ranks[i].of(window) else {
                continue;
            };
            let edges = window.edges();
            let x = |t: i64| ((t - off) as f64 - view.t0) * scale;
            for shape in shapes(summary, depth, &edges) {
                let (x0, x1, region, calls) = match shape {
                    Shape::Call(c) => (x(c.start), x(c.end), c.region, 1),
                    Shape::Run {
                        p0,
                        p1,
                        region,
                        calls,
                        ..
                    } => (x(edges[p0]), x(edges[p1]), region, calls),
                };
                let (x0, x1) = (x0.max(-1.0), x1.min(view.width + 1.0));
                for v in [
                    x0 as f32,
                    x1 as f32,
                    index as f32,
                    region as f32,
                    calls as f32,
                ] {
                    bin.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
        json!({
            "lanes": lanes.iter().map(|&(_, rank, depth)| [rank, depth as u32]).collect::<Vec<_>>(),
            "extent": self.extent().map(|(a, b)| [a, b]),
            "aligned": self.aligned,
        })
    }

    /// What is drawn at time `t` of lane `lane` in the request's view (see
    /// [`View::from_request`]): the call there or a merged block (the page knows the lane's
    /// rank and depth), with its region's name, `view` (its start and end on the view's
    /// clock), the texts of its start
    /// and duration, and for a block (`merged`) the calls touching its pixels, the dominant
    /// region's share of their time and the time they cover; null when nothing is, or
    /// when the view is not the one last drawn. `regions`: the profile's, for names.
    pub fn at(&self, req: &Json, regions: &[Region]) -> Json {
        let view = View::from_request(req);
        let t = req["t"].as_f64().unwrap_or(0.0);
        let Some((i, depth)) = req["lane"].as_u64().and_then(|l| self.lane(l as usize)) else {
            return Json::Null;
        };
        let off = self.offset(i);
        let Some(window) = view.window(off) else {
            return Json::Null;
        };
        let Some(summary) = self.ranks[i].of(window) else {
            return Json::Null;
        };
        let scale = view.scale();
        let edges = window.edges();
        let x = |t: i64| ((t - off) as f64 - view.t0) * scale;
        let px = (t - view.t0) * scale;
        let mut found = None;
        for shape in shapes(summary, depth, &edges) {
            let (x0, x1) = match &shape {
                Shape::Call(c) => (x(c.start), x(c.end)),
                Shape::Run { p0, p1, .. } => (x(edges[*p0]), x(edges[*p1])),
            };
            if x0 <= px && px < x1.max(x0 + 1.0) {
                found = Some(shape);
                if matches!(found, Some(Shape::Call(_))) {
                    break;
                }
            }
        }
        let Some(shape) = found else {
            return Json::Null;
        };
        let origin = self.extent().map_or(0, |(lo, _)| lo) + off;
        let text = |ns: i64| duration_text(Some(ns as f64 / 1e9));
        let name = |region: u32| regions.get(region as usize).map(|r| r.name.as_str());
        // One object for both, the fields of the other null (one `json!` is less code).
        let (start, end, region, run) = match shape {
            Shape::Call(c) => (c.start, c.end, c.region, None),
            Shape::Run {
                p0,
                p1,
                region,
                calls,
                busy,
                region_busy,
            } => (
                edges[p0],
                edges[p1],
                region,
                Some((calls, busy, region_busy)),
            ),
        };
        let (calls, busy, region_busy) = run.unwrap_or((1, end - start, end - start));
        // Its duration (a block's: the time from its start to its end).
        let span = text(end - start);
        // Every field for both (one shape of `json!` is less code in the page).
        json!({
            "start_text": text(start - origin), "name": name(region),
            "duration_text": span, "merged": run.is_some(), "calls": calls,
            "share": region_busy as f64 / busy.max(1) as f64,
            "busy_text": text(busy), "view": [start - off, end - off],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sp::analysis::events::Loaded;
    use sp::schema::{Depth, ProfileLayout, RankCalls};

    /// A profile of six regions `r0`…`r5` whose rank `k` made the calls `ranks[k]`
    /// (start, end, region).
    fn profile(ranks: &[Vec<(i64, i64, u32)>]) -> Profile {
        let regions = (0..6u32)
            .map(|id| Region {
                name: format!("r{id}"),
                ranks: (ranks.iter().enumerate())
                    .map(|(rank, calls)| {
                        let mine = calls.iter().filter(|c| c.2 == id);
                        RankCalls {
                            calls: sp::schema::Calls {
                                starts: mine.clone().map(|c| c.0).collect(),
                                ends: mine.map(|c| c.1).collect(),
                                ..Default::default()
                            }
                            .into(),
                            rank: rank as u32,
                            ..RankCalls::default()
                        }
                    })
                    .filter(|r| !r.starts.is_empty())
                    .collect(),
            })
            .collect();
        Profile {
            regions,
            schema: 3,
            layout: ProfileLayout::Columnar,
            metadata: Default::default(),
            num_ranks: ranks.len() as u64,
            region_names: Vec::new(),
            depth: Depth::Events,
            summary_statistics: false,
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

    /// The view's answer and rectangles.
    fn draw(t: &mut Timeline, p: &Profile, view: &View) -> (Json, Vec<[f32; RECT_FLOATS]>) {
        let mut bin = Vec::new();
        let answer = t.view(p, &Loaded, view, &mut bin).unwrap();
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
    fn ranks_not_read_come_in_steps_that_say_how_far_they_are() {
        // Three ranks of a little over READ_STEP each: a step reads one.
        let n = (READ_STEP / 16 + 10) as i64;
        let calls: Vec<(i64, i64, u32)> = (0..n).map(|i| (i * 10, i * 10 + 5, 0)).collect();
        let mut p = profile(&[calls.clone(), calls.clone(), calls]);
        // Their spans stored, as a converted profile's are: the first view reads no call.
        for row in &mut p.regions[0].ranks {
            row.statistics = Some(
                sp::schema::RowStatistics {
                    count: n as u64,
                    ..Default::default()
                }
                .with_start_minimum(Some(0))
                .with_end_maximum(Some(n * 10 - 5)),
            );
        }
        let mut t = Timeline::new(vec![0, 1, 2]);
        let v = view(0.0, (n * 10) as f64, 100.0);
        let rank = bytes_text(n as u64 * 16);
        let (a, _) = draw(&mut t, &p, &v);
        assert_eq!(
            a["progress"],
            json!(format!("{rank} of {}", bytes_text(n as u64 * 48)))
        );
        assert_eq!((t.is_read(0), t.is_read(1)), (true, false));
        let (a, _) = draw(&mut t, &p, &v);
        assert_eq!(
            a["progress"],
            json!(format!(
                "{} of {}",
                bytes_text(n as u64 * 32),
                bytes_text(n as u64 * 48)
            ))
        );
        let (a, r) = draw(&mut t, &p, &v);
        assert!(a.get("progress").is_none() && t.is_read(2) && !r.is_empty());
        // Read, the ranks answer in one step.
        let (a, _) = draw(&mut t, &p, &view(0.0, (n * 5) as f64, 100.0));
        assert!(a.get("progress").is_none());
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
        let p = profile(std::slice::from_ref(&calls));
        let mut tl = Timeline::new(vec![0]);
        // The first view, before the extent is known, draws nothing; the rows store no
        // statistics, so the rank is read to find its span.
        let (answer, r) = draw(&mut tl, &p, &view(0.0, 0.0, 100.0));
        assert_eq!((answer["extent"].clone(), r.len()), (json!([0, t - 1]), 0));
        // Drawn at 1 px = 1000 ns, the whole lane is one block coloured by region 2.
        let (answer, r) = draw(&mut tl, &p, &view(0.0, 100_000.0, 100.0));
        assert_eq!(answer["lanes"], json!([[0, 0]]));
        assert_eq!(r, vec![[0.0, 1.0, 0.0, 2.0, 44.0]]);
        // Hovering it says what it holds.
        let req = json!({"lane": 0, "t": 500.0, "t0": 0.0, "t1": 100_000.0, "width": 100.0});
        let at = tl.at(&req, &p.regions);
        assert_eq!(at["merged"], true);
        assert_eq!(at["calls"], 44);
        assert_eq!(at["name"], "r2");
        assert_eq!(at["share"], 80.0 / 172.0);
        assert_eq!(at["view"], json!([0, 1000]));
        // Zoomed in, the first call is one call of its own, named on hover.
        let (_, r) = draw(&mut tl, &p, &view(0.0, 100.0, 1000.0));
        assert_eq!(r[0], [0.0, 200.0, 0.0, 2.0, 1.0]);
        let req = json!({"lane": 0, "t": 5.0, "t0": 0.0, "t1": 100.0, "width": 1000.0});
        let at = tl.at(&req, &p.regions);
        assert_eq!(
            (at["name"].as_str(), at["merged"].as_bool()),
            (Some("r2"), Some(false))
        );
        assert_eq!(at["duration_text"], duration_text(Some(20e-9)));
        // A view other than the one drawn has nothing to say.
        let req = json!({"lane": 0, "t": 5.0, "t0": 0.0, "t1": 90.0, "width": 1000.0});
        assert_eq!(tl.at(&req, &p.regions), Json::Null);
    }

    /// Counts the row reads of a [`Loaded`] profile.
    struct Counted(std::cell::Cell<u32>);

    impl RowSource for Counted {
        fn events<'a>(
            &'a self,
            row: &'a sp::schema::RankCalls,
        ) -> sp::analysis::Result<std::borrow::Cow<'a, sp::schema::RowEvents>> {
            self.0.set(self.0.get() + 1);
            Loaded.events(row)
        }
    }

    #[test]
    fn zooming_back_out_to_the_whole_run_reads_nothing() {
        let calls: Vec<_> = (0..100).map(|k| (10 * k, 10 * k + 5, 1)).collect();
        let p = profile(&[calls]);
        let mut tl = Timeline::new(vec![0]);
        let source = Counted(Default::default());
        let mut bin = Vec::new();
        let whole = view(0.0, 1000.0, 100.0);
        tl.view(&p, &source, &whole, &mut bin).unwrap();
        let first = rects(&bin);
        tl.view(&p, &source, &view(100.0, 200.0, 100.0), &mut bin)
            .unwrap();
        let reads = source.0.get();
        assert!(reads > 0);
        tl.view(&p, &source, &whole, &mut bin).unwrap();
        assert_eq!((source.0.get(), rects(&bin)), (reads, first));
        // Another window is read.
        tl.view(&p, &source, &view(200.0, 300.0, 100.0), &mut bin)
            .unwrap();
        assert!(source.0.get() > reads);
    }

    #[test]
    fn a_call_covers_its_pixels_and_narrow_ones_beside_it_merge() {
        // One wide call over [0, 500), then ten 1 ns calls in [600, 620).
        let mut calls = vec![(0, 500, 0)];
        calls.extend((0..10).map(|k| (600 + 2 * k, 601 + 2 * k, 1)));
        let p = profile(&[calls]);
        let mut tl = Timeline::new(vec![0]);
        let (_, r) = draw(&mut tl, &p, &view(0.0, 1000.0, 100.0));
        assert_eq!(
            r,
            vec![[0.0, 50.0, 0.0, 0.0, 1.0], [60.0, 62.0, 0.0, 1.0, 10.0]]
        );
    }

    #[test]
    fn ranks_that_ran_one_after_another_are_aligned_at_their_first_call() {
        // Rank 0 runs at [1000, 1100], rank 1 at [5000, 5200]: drawn from their own starts.
        let p = profile(&[vec![(1000, 1100, 0)], vec![(5000, 5200, 1)]]);
        let mut tl = Timeline::new(vec![0, 1]);
        let (answer, r) = draw(&mut tl, &p, &view(1000.0, 1200.0, 200.0));
        assert_eq!(answer["aligned"], true);
        assert_eq!(answer["extent"], json!([1000, 1200]));
        assert_eq!(
            r,
            vec![[0.0, 100.0, 0.0, 0.0, 1.0], [0.0, 200.0, 1.0, 1.0, 1.0]]
        );
        // Hover on rank 1 gives its call, timed from its own start.
        let req = json!({"lane": 1, "t": 1150.0, "t0": 1000.0, "t1": 1200.0, "width": 200.0});
        let at = tl.at(&req, &p.regions);
        assert_eq!(
            (at["name"].as_str(), at["view"].clone()),
            (Some("r1"), json!([1000, 1200]))
        );
        // Asked not to align: the shared clock.
        let mut v = view(1000.0, 5200.0, 420.0);
        v.align = Some(false);
        let (answer, r) = draw(&mut tl, &p, &v);
        assert_eq!(
            (answer["aligned"].as_bool(), answer["extent"].clone()),
            (Some(false), json!([1000, 5200]))
        );
        assert_eq!(r[1], [400.0, 420.0, 1.0, 1.0, 1.0]);
        // Ranks that overlap in time keep the shared clock.
        let p = profile(&[vec![(1000, 1100, 0)], vec![(1050, 1200, 1)]]);
        let mut tl = Timeline::new(vec![0, 1]);
        let answer = draw(&mut tl, &p, &view(1000.0, 1200.0, 200.0)).0;
        assert_eq!(answer["aligned"], false);
    }
}
