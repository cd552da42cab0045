//! The calls of a time-ordered chart (gantt, flame chart) as level-of-detail lanes
//! ([`lod::Lane`]): one per rank and region (the gantt's rows, as the reference's
//! `gantt_data` has them), or one per rank and nesting depth (the flame chart). Calls are
//! read row by row and only the kept ones enter a lane, so a chart of a 64 M-call run holds
//! one rank's calls at a time, and draws as many shapes as a small one.

use super::calltree;
use super::error::{Error, Result};
use super::events::RowSource;
use super::lod::Lane;
use super::selection::Selection;
use crate::schema::{Profile, ProfileLayout, RankCalls, Region};
use crate::sort::SortSlice;

/// Which calls a chart keeps: a time window (ns from the first call kept by the selection),
/// a shortest duration, and (flame chart) the deepest level.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Window {
    pub start_ns: Option<i64>,
    pub end_ns: Option<i64>,
    pub min_duration_ns: i64,
    pub max_depth: Option<usize>,
}

impl Window {
    /// Whether the window drops any call (the chart's subtitle says so).
    pub fn drops(&self) -> bool {
        self.start_ns.is_some()
            || self.end_ns.is_some()
            || self.min_duration_ns > 0
            || self.max_depth.is_some()
    }
}

/// The ranks of the selection (all of the run's when it names none), ascending.
pub fn ranks(profile: &Profile, selection: &Selection) -> Vec<u32> {
    match &selection.ranks {
        Some(r) => r.clone(),
        None => (0..profile.num_ranks)
            .filter_map(|r| u32::try_from(r).ok())
            .collect(),
    }
}

/// Refuses a profile with no calls to draw in time order: one sentence saying why.
pub fn needs_events(profile: &Profile) -> Result<()> {
    // Rows with calls but neither events loaded nor a place in `/events`.
    let no_events = profile
        .regions
        .iter()
        .flat_map(|r| &r.ranks)
        .filter(|row| row.calls() > 0)
        .all(|row| row.span.is_none() && row.starts.is_empty());
    if profile.layout == ProfileLayout::Aggregate || no_events {
        return Err(Error::Unavailable(
            "the profile stores no events (it is an aggregate profile), and a timeline is drawn from its calls".into(),
        ));
    }
    Ok(())
}

/// The earliest start and latest end of the selected calls, ns: from the rows' stored
/// statistics when they have them, else from their calls. `None` when there are none.
pub fn extent(
    profile: &Profile,
    source: &dyn RowSource,
    selection: &Selection,
) -> Result<Option<(i64, i64)>> {
    let mut span: Option<(i64, i64)> = None;
    let mut widen = |lo: i64, hi: i64| {
        let (a, b) = span.unwrap_or((lo, hi));
        span = Some((a.min(lo), b.max(hi)));
    };
    for &rank in &ranks(profile, selection) {
        for region in profile.regions.iter().filter(|r| selection.keeps(&r.name)) {
            let Some(row) = region.rank(rank).filter(|r| r.calls() > 0) else {
                continue;
            };
            let stored = row
                .statistics
                .as_ref()
                .and_then(|s| s.start_minimum().zip(s.end_maximum()));
            match stored {
                Some((lo, hi)) if row.starts.is_empty() => widen(lo, hi),
                _ => {
                    let ev = source.events(row)?;
                    if let (Some(&lo), Some(&hi)) = (ev.starts.iter().min(), ev.ends.iter().max()) {
                        widen(lo, hi);
                    }
                }
            }
        }
    }
    Ok(span)
}

/// The window's bounds in absolute ns, given the first call at `origin`.
pub(crate) fn bounds(window: &Window, origin: i64) -> (i64, i64) {
    (
        window
            .start_ns
            .map_or(i64::MIN, |s| origin.saturating_add(s)),
        window.end_ns.map_or(i64::MAX, |e| origin.saturating_add(e)),
    )
}

/// Whether the window within `[lo, hi]` (its [`bounds`]) keeps the call `[s, e]`.
pub(crate) fn kept(window: &Window, lo: i64, hi: i64, s: i64, e: i64) -> bool {
    e >= lo && s <= hi && e.saturating_sub(s) >= window.min_duration_ns
}

/// `rank`'s lanes, one per selected region with kept calls, in region order: each given
/// to `each` (with the region's index) as soon as it is built, so one row is held at a time.
pub fn region_lanes(
    profile: &Profile,
    source: &dyn RowSource,
    selection: &Selection,
    rank: u32,
    window: &Window,
    origin: i64,
    mut each: impl FnMut(u32, Lane),
) -> Result<()> {
    let (lo, hi) = bounds(window, origin);
    let n = profile.regions.len();
    for (id, region) in profile.regions.iter().enumerate() {
        if !selection.keeps(&region.name) {
            continue;
        }
        let Some(row) = region.rank(rank) else {
            continue;
        };
        let ev = source.events(row)?;
        let mut calls: Vec<(i64, i64)> = ev
            .starts
            .iter()
            .zip(&ev.ends)
            .map(|(&s, &e)| (s, e))
            .filter(|&(s, e)| kept(window, lo, hi, s, e))
            .collect();
        drop(ev);
        if calls.is_empty() {
            continue;
        }
        if !calls.windows(2).all(|w| w[0].0 <= w[1].0) {
            calls.sort_ord_unstable();
        }
        let mut lane = Lane::default();
        for (s, e) in calls {
            lane.push(s, e, id as u32);
        }
        lane.finish(n);
        each(id as u32, lane);
    }
    Ok(())
}

/// One rank's calls stacked by nesting depth: a [`Lane`] per depth (the top first), the
/// span of the calls stacked (ns), and whether they failed to nest (then they all lie in one
/// lane, in start order). The timelines of the page and the terminal UI and the flame chart
/// all stack a rank this way.
#[derive(Default)]
pub struct DepthLanes {
    pub lanes: Vec<Lane>,
    pub span: Option<(i64, i64)>,
    pub improper: bool,
}

/// Reads `rank`'s rows of the regions `keeps_region` takes, nests their calls
/// ([`calltree::build`], else [`calltree::unnested`] in start order) and stacks those
/// `keeps_call` takes by depth.
pub fn stack_rank(
    profile: &Profile,
    source: &dyn RowSource,
    rank: u32,
    keeps_region: impl Fn(&str) -> bool,
    keeps_call: impl Fn(&calltree::Call) -> bool,
) -> Result<DepthLanes> {
    let (calls, improper) = nest_rank(profile, source, rank, keeps_region)?;
    let mut stacked = DepthLanes {
        improper,
        ..DepthLanes::default()
    };
    for c in calls.iter().filter(|c| keeps_call(c)) {
        while stacked.lanes.len() <= c.depth {
            stacked.lanes.push(Lane::default());
        }
        stacked.lanes[c.depth].push(c.start_ns, c.end_ns, c.region as u32);
        let (lo, hi) = stacked.span.unwrap_or((c.start_ns, c.end_ns));
        stacked.span = Some((lo.min(c.start_ns), hi.max(c.end_ns)));
    }
    for lane in &mut stacked.lanes {
        lane.finish(profile.regions.len());
    }
    Ok(stacked)
}

/// Reads `rank`'s rows of the regions `keeps_region` takes and nests their calls
/// ([`calltree::build`]), or, where they do not nest (`true`), gives them in start order
/// ([`calltree::unnested`]): what [`stack_rank`] stacks.
pub fn nest_rank(
    profile: &Profile,
    source: &dyn RowSource,
    rank: u32,
    keeps_region: impl Fn(&str) -> bool,
) -> Result<(Vec<calltree::Call>, bool)> {
    let mut regions = Vec::with_capacity(profile.regions.len());
    for region in &profile.regions {
        let mut row = Region {
            name: region.name.clone(),
            ranks: Vec::new(),
        };
        if let Some(stored) = region.rank(rank).filter(|_| keeps_region(&region.name)) {
            let events = source.events(stored)?.into_owned();
            row.ranks.push(RankCalls {
                calls: crate::schema::Calls {
                    lanes: events.lanes(),
                    starts: events.starts,
                    ends: events.ends,
                    ..Default::default()
                }
                .into(),
                rank,
                ..RankCalls::default()
            });
        }
        regions.push(row);
    }
    let refs: Vec<&Region> = regions.iter().collect();
    Ok(match calltree::build(&refs, rank) {
        Ok(calls) => (calls, false),
        Err(_) => {
            let mut calls = calltree::unnested(&refs, rank);
            calls.sort_stable_by_key(|c| (c.start_ns, c.end_ns));
            (calls, true)
        }
    })
}

/// `rank`'s kept calls stacked by nesting depth (one lane per depth, the top first), and
/// whether they failed to nest (then they all lie in one lane, in start order).
pub fn depth_lanes(
    profile: &Profile,
    source: &dyn RowSource,
    selection: &Selection,
    rank: u32,
    window: &Window,
    origin: i64,
) -> Result<(Vec<Lane>, bool)> {
    let (lo, hi) = bounds(window, origin);
    let max_depth = window.max_depth.unwrap_or(usize::MAX);
    let stacked = stack_rank(
        profile,
        source,
        rank,
        |name| selection.keeps(name),
        |c| c.depth <= max_depth && kept(window, lo, hi, c.start_ns, c.end_ns),
    )?;
    Ok((stacked.lanes, stacked.improper))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::events::Loaded;

    type Row<'a> = (&'a str, u32, &'a [(i64, i64)]);

    fn profile(rows: &[Row]) -> Profile {
        let mut p = Profile {
            schema: 3,
            layout: ProfileLayout::Columnar,
            metadata: Default::default(),
            num_ranks: 2,
            region_names: Vec::new(),
            regions: Vec::new(),
            depth: crate::schema::Depth::Events,
            summary_statistics: false,
        };
        for &(name, rank, calls) in rows {
            let row = RankCalls {
                calls: crate::schema::Calls {
                    starts: calls.iter().map(|c| c.0).collect(),
                    ends: calls.iter().map(|c| c.1).collect(),
                    ..Default::default()
                }
                .into(),
                rank,
                ..RankCalls::default()
            };
            match p.regions.iter_mut().find(|r| r.name == name) {
                Some(r) => r.ranks.push(row),
                None => p.regions.push(Region {
                    name: name.into(),
                    ranks: vec![row],
                }),
            }
        }
        p
    }

    #[test]
    fn lanes_by_region_and_by_depth_keep_the_window() {
        let p = profile(&[
            ("main", 0, &[(0, 100)]),
            ("k", 0, &[(10, 20), (30, 31), (60, 90)]),
            ("io", 1, &[(5, 50)]),
        ]);
        let all = Selection::all();
        assert_eq!(extent(&p, &Loaded, &all).unwrap(), Some((0, 100)));
        let w = Window {
            min_duration_ns: 5,
            ..Window::default()
        };
        let mut got = Vec::new();
        region_lanes(&p, &Loaded, &all, 0, &w, 0, |id, lane| {
            got.push((id, lane.starts.clone()))
        })
        .unwrap();
        assert_eq!(got, vec![(0, vec![0]), (1, vec![10, 60])]);
        let w = Window {
            start_ns: Some(50),
            ..Window::default()
        };
        let (lanes, improper) = depth_lanes(&p, &Loaded, &all, 0, &w, 0).unwrap();
        assert!(!improper);
        assert_eq!(lanes.len(), 2);
        assert_eq!(
            (lanes[0].starts.clone(), lanes[1].starts.clone()),
            (vec![0], vec![60])
        );
        let w = Window {
            max_depth: Some(0),
            ..Window::default()
        };
        assert_eq!(depth_lanes(&p, &Loaded, &all, 0, &w, 0).unwrap().0.len(), 1);
    }
}
