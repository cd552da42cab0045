//! Aggregated call stacks: every call of a rank filed under its full call path (the
//! nesting of [`calltree::build`], as the reference's flame graph aggregates
//! `build_call_stack`), with the calls, inclusive and own time summed per path, over one
//! rank or several merged. The one model behind the flame graph (`sp export flamegraph`,
//! [`crate::chart::flamegraph`]) and the folded stacks of `flamegraph.pl`, inferno and
//! speedscope ([`Stacks::write_folded`]).
//!
//! A rank is streamed in start order ([`RankIndex::each_call`]), each call filed under its
//! path as it comes, with the open calls on a stack: memory is the paths, not the calls.
//! Ranks the stream cannot take (thread lanes, rows out of start order) are read whole and
//! nested by [`calltree::build`].

use crate::sort::SortSlice;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{self, Write};

use super::calltree::{self, Nesting};
use super::error::{Error, Result};
use super::events::RowSource;
use super::selection::Selection;
use super::timeline::{RankIndex, Streamed};
use crate::schema::{Profile, RankCalls, Region};

/// One call path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The region (its index in the profile's region table).
    pub region: u32,
    /// The enclosing path's frame (an earlier index), `None` at the top.
    pub parent: Option<usize>,
    pub depth: usize,
    pub calls: u64,
    /// Time inside the path's calls, and inside them but not in a child call, ns.
    pub total_ns: i64,
    pub own_ns: i64,
}

/// Call paths and their time, frames in the order their first call started (a parent
/// before its children).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Stacks {
    /// Region names by region index.
    pub names: Vec<String>,
    pub frames: Vec<Frame>,
    /// The ranks aggregated, ascending.
    pub ranks: Vec<u32>,
    index: PathIndex,
}

const TOP: usize = usize::MAX;

/// The hash of a (parent frame, region) key: one multiply per word (as rustc's `FxHasher`),
/// since every call looks its path up.
#[derive(Default)]
struct PathHasher(u64);

impl Hasher for PathHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type PathIndex = HashMap<(usize, u32), usize, BuildHasherDefault<PathHasher>>;

/// A call still open while a rank streams: its path, duration and its children's.
struct Open {
    frame: usize,
    duration: i64,
    covered: i64,
}

impl Stacks {
    /// No stacks yet, for a profile whose regions are named `names`.
    pub fn new(names: Vec<String>) -> Stacks {
        Stacks {
            names,
            ..Stacks::default()
        }
    }

    /// Adds `rank`'s calls over `regions` (whose region indices are `ids`).
    pub fn add_rank(&mut self, regions: &[&Region], ids: &[u32], rank: u32) -> Result<(), Nesting> {
        let calls = calltree::build(regions, rank)?;
        // The frame of each call, filled in call order (a parent comes before its children).
        let mut frame_of = Vec::with_capacity(calls.len());
        for c in &calls {
            let region = ids.get(c.region).copied().unwrap_or(u32::MAX);
            let parent = c.parent.map_or(TOP, |p| frame_of[p]);
            let next = self.frames.len();
            let f = *self.index.entry((parent, region)).or_insert(next);
            if f == next {
                self.frames.push(Frame {
                    region,
                    parent: (parent != TOP).then_some(parent),
                    depth: c.depth,
                    calls: 0,
                    total_ns: 0,
                    own_ns: 0,
                });
            }
            let frame = &mut self.frames[f];
            frame.calls += 1;
            frame.total_ns = frame
                .total_ns
                .saturating_add(c.end_ns.saturating_sub(c.start_ns));
            frame.own_ns = frame.own_ns.saturating_add(c.exclusive_ns);
            frame_of.push(f);
        }
        if let Err(at) = self.ranks.binary_search(&rank) {
            self.ranks.insert(at, rank);
        }
        Ok(())
    }

    /// Adds `rank`'s calls of the regions `profile`'s selection keeps, streamed in start
    /// order; `Ok(None)` where the rank cannot be streamed (thread lanes, rows out of start
    /// order: read it whole and [`add_rank`](Stacks::add_rank)). Nothing is added where
    /// the calls do not nest.
    pub fn add_streamed(
        &mut self,
        profile: &Profile,
        source: &dyn RowSource,
        selection: &Selection,
        rank: u32,
    ) -> Result<Option<Result<(), Nesting>>> {
        // The rank's paths on their own first (a rank found not to nest, or not in order,
        // adds nothing), then merged.
        let mut frames: Vec<Frame> = Vec::new();
        let mut index = PathIndex::default();
        let mut open: Vec<Open> = Vec::new();
        let mut improper = false;
        let close = |frames: &mut [Frame], o: Open| {
            let f = &mut frames[o.frame];
            f.own_ns = f.own_ns.saturating_add(o.duration.wrapping_sub(o.covered));
        };
        let mut calls = RankIndex::new(profile, rank, |name| selection.keeps(name));
        let streamed = calls.each_call(profile, source, |depth, s, e, region| {
            if depth > open.len() {
                improper = true;
            }
            while open.len() > depth {
                if let Some(o) = open.pop() {
                    close(&mut frames, o);
                }
            }
            let parent = open.last().map_or(TOP, |o| o.frame);
            let next = frames.len();
            let f = *index.entry((parent, region)).or_insert(next);
            if f == next {
                frames.push(Frame {
                    region,
                    parent: (parent != TOP).then_some(parent),
                    depth,
                    calls: 0,
                    total_ns: 0,
                    own_ns: 0,
                });
            }
            let frame = &mut frames[f];
            frame.calls += 1;
            frame.total_ns = frame.total_ns.saturating_add(e.saturating_sub(s));
            let duration = e.wrapping_sub(s);
            if let Some(p) = open.last_mut() {
                p.covered = p.covered.wrapping_add(duration);
            }
            open.push(Open {
                frame: f,
                duration,
                covered: 0,
            });
        })?;
        while let Some(o) = open.pop() {
            close(&mut frames, o);
        }
        match streamed {
            Some(Streamed::Nested) if !improper => {}
            Some(Streamed::Nested | Streamed::Improper) => return Ok(Some(Err(Nesting))),
            Some(Streamed::Unsorted) | None => return Ok(None),
        }
        // Merged in the rank's order of first calls: a path new here is numbered as
        // [`add_rank`](Stacks::add_rank) would number it.
        let mut global = Vec::with_capacity(frames.len());
        for local in &frames {
            let parent = local.parent.map_or(TOP, |p| global[p]);
            let next = self.frames.len();
            let f = *self.index.entry((parent, local.region)).or_insert(next);
            if f == next {
                self.frames.push(Frame {
                    parent: (parent != TOP).then_some(parent),
                    calls: 0,
                    total_ns: 0,
                    own_ns: 0,
                    ..local.clone()
                });
            }
            let frame = &mut self.frames[f];
            frame.calls += local.calls;
            frame.total_ns = frame.total_ns.saturating_add(local.total_ns);
            frame.own_ns = frame.own_ns.saturating_add(local.own_ns);
            global.push(f);
        }
        if let Err(at) = self.ranks.binary_search(&rank) {
            self.ranks.insert(at, rank);
        }
        Ok(Some(Ok(())))
    }

    /// The time of every top-level path together, ns.
    pub fn total_ns(&self) -> i64 {
        self.frames
            .iter()
            .filter(|f| f.parent.is_none())
            .fold(0i64, |t, f| t.saturating_add(f.total_ns))
    }

    /// Each frame's children, in the order their first calls started; the top-level
    /// frames last (at index `frames.len()`).
    pub fn children(&self) -> Vec<Vec<usize>> {
        let mut kids = vec![Vec::new(); self.frames.len() + 1];
        for (i, f) in self.frames.iter().enumerate() {
            kids[f.parent.unwrap_or(self.frames.len())].push(i);
        }
        kids
    }

    /// The name of frame `i`'s region.
    pub fn name(&self, i: usize) -> &str {
        self.names
            .get(self.frames[i].region as usize)
            .map_or("?", String::as_str)
    }

    /// The names along frame `i`'s path, outermost first.
    pub fn path(&self, i: usize) -> Vec<&str> {
        let mut path = Vec::with_capacity(self.frames[i].depth + 1);
        let mut at = Some(i);
        while let Some(k) = at {
            path.push(self.name(k));
            at = self.frames[k].parent;
        }
        path.reverse();
        path
    }

    /// Writes the folded ("collapsed") stacks: one line per path with own time, the names
    /// from the outermost joined by `;`, a space, and the own time in ns — what
    /// `flamegraph.pl`, inferno and speedscope read. Lines are sorted; paths with no own
    /// time are left out (their time is in their children's lines). A `;` in a name would
    /// split the frame, so it is written as `:`; control characters as spaces.
    pub fn write_folded<W: Write>(&self, out: &mut W) -> io::Result<()> {
        let clean = |name: &str| -> String {
            name.chars()
                .map(|c| match c {
                    ';' => ':',
                    c if c.is_control() => ' ',
                    c => c,
                })
                .collect()
        };
        let names: Vec<String> = self.names.iter().map(|n| clean(n)).collect();
        let mut lines: Vec<(String, i64)> = Vec::new();
        for (i, f) in self.frames.iter().enumerate() {
            if f.own_ns <= 0 {
                continue;
            }
            let mut parts = Vec::with_capacity(f.depth + 1);
            let mut at = Some(i);
            while let Some(k) = at {
                let region = self.frames[k].region as usize;
                parts.push(names.get(region).map_or("?", String::as_str));
                at = self.frames[k].parent;
            }
            parts.reverse();
            lines.push((parts.join(";"), f.own_ns));
        }
        lines.sort_ord();
        for (stack, ns) in lines {
            writeln!(out, "{stack} {ns}")?;
        }
        Ok(())
    }
}

/// The stacks of `profile`'s selected regions on `ranks` (each rank's calls nest among the
/// selected regions alone, as the reference builds them), read through `source`.
pub fn read(
    profile: &Profile,
    source: &dyn RowSource,
    selection: &Selection,
    ranks: &[u32],
) -> Result<Stacks> {
    let names: Vec<String> = profile.regions.iter().map(|r| r.name.clone()).collect();
    let mut stacks = Stacks::new(names);
    for &rank in ranks {
        let added = match stacks.add_streamed(profile, source, selection, rank)? {
            Some(added) => added,
            None => {
                let (regions, ids) = rank_regions(profile, source, selection, rank)?;
                let refs: Vec<&Region> = regions.iter().collect();
                stacks.add_rank(&refs, &ids, rank)
            }
        };
        added.map_err(|_| {
            Error::Unavailable(format!(
                "rank {rank}'s calls do not nest (a call ends inside another one), so they have no call stacks"
            ))
        })?;
    }
    Ok(stacks)
}

/// `rank`'s calls of the selected regions, one region per row with its index.
fn rank_regions(
    profile: &Profile,
    source: &dyn RowSource,
    selection: &Selection,
    rank: u32,
) -> Result<(Vec<Region>, Vec<u32>)> {
    let mut regions = Vec::new();
    let mut ids = Vec::new();
    for (id, region) in profile.regions.iter().enumerate() {
        if !selection.keeps(&region.name) {
            continue;
        }
        let Some(stored) = region.rank(rank) else {
            continue;
        };
        regions.push(Region {
            name: region.name.clone(),
            ranks: vec![timed_row(source, stored, rank)?],
        });
        ids.push(id as u32);
    }
    Ok((regions, ids))
}

/// A row's calls as nesting needs them: their starts and ends, and their thread lanes (the
/// events', else the stored row's), read through `source`.
pub(crate) fn timed_row(
    source: &dyn RowSource,
    stored: &RankCalls,
    rank: u32,
) -> Result<RankCalls> {
    let events = source.events(stored)?.into_owned();
    Ok(RankCalls {
        calls: crate::schema::Calls {
            lanes: events.lanes().or_else(|| stored.lanes.clone()),
            starts: events.starts,
            ends: events.ends,
            ..Default::default()
        }
        .into(),
        rank,
        ..RankCalls::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(name: &str, calls: &[(i64, i64)]) -> Region {
        Region {
            name: name.into(),
            ranks: vec![RankCalls {
                calls: crate::schema::Calls {
                    starts: calls.iter().map(|c| c.0).collect(),
                    ends: calls.iter().map(|c| c.1).collect(),
                    ..Default::default()
                }
                .into(),
                rank: 0,
                ..RankCalls::default()
            }],
        }
    }

    fn sample() -> Stacks {
        // main [0, 100] calls solve twice ([10, 40], [50, 90]); solve calls kernel once in
        // each ([20, 30], [60, 85]); io [100, 120] at the top.
        let main = region("main", &[(0, 100)]);
        let solve = region("solve", &[(10, 40), (50, 90)]);
        let kernel = region("ker;nel", &[(20, 30), (60, 85)]);
        let io = region("io", &[(100, 120)]);
        let mut s = Stacks::new(vec![
            "main".into(),
            "solve".into(),
            "ker;nel".into(),
            "io".into(),
        ]);
        s.add_rank(&[&main, &solve, &kernel, &io], &[0, 1, 2, 3], 0)
            .unwrap();
        s
    }

    #[test]
    fn calls_are_filed_under_their_path() {
        let s = sample();
        let rows: Vec<(Vec<&str>, u64, i64, i64)> = (0..s.frames.len())
            .map(|i| {
                (
                    s.path(i),
                    s.frames[i].calls,
                    s.frames[i].total_ns,
                    s.frames[i].own_ns,
                )
            })
            .collect();
        assert_eq!(
            rows,
            vec![
                (vec!["main"], 1, 100, 30),
                (vec!["main", "solve"], 2, 70, 35),
                (vec!["main", "solve", "ker;nel"], 2, 35, 35),
                (vec!["io"], 1, 20, 20),
            ]
        );
        assert_eq!(s.total_ns(), 120);
        assert_eq!(s.children()[4], vec![0, 3]);
        assert_eq!(s.ranks, vec![0]);
    }

    #[test]
    fn folded_stacks_are_one_sorted_line_per_path_with_own_time() {
        let mut out = Vec::new();
        sample().write_folded(&mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "io 20\nmain 30\nmain;solve 35\nmain;solve;ker:nel 35\n"
        );
    }

    #[test]
    fn streamed_ranks_file_their_calls_as_ranks_read_whole() {
        use crate::analysis::events::Loaded;
        use crate::schema::{Depth, ProfileLayout};
        // Rank 0: the sample's calls; rank 1: recursion (solve in solve), a zero-length
        // call at its parent's start, paths new to rank 1; rank 2: calls that do not nest.
        type Calls<'a> = &'a [(i64, i64)];
        let rows: [(&str, [Calls; 3]); 4] = [
            ("main", [&[(0, 100)], &[(0, 50), (60, 90)], &[(0, 10)]]),
            (
                "solve",
                [&[(10, 40), (50, 90)], &[(5, 45), (10, 20)], &[(5, 15)]],
            ),
            (
                "ker;nel",
                [&[(20, 30), (60, 85)], &[(60, 60), (61, 70)], &[]],
            ),
            ("io", [&[(100, 120)], &[(12, 14), (95, 99)], &[]]),
        ];
        let profile = Profile {
            schema: 3,
            layout: ProfileLayout::Columnar,
            metadata: Default::default(),
            num_ranks: 3,
            region_names: Vec::new(),
            regions: (rows.iter())
                .map(|(name, ranks)| Region {
                    name: (*name).into(),
                    ranks: (0..3)
                        .map(|r| RankCalls {
                            calls: crate::schema::Calls {
                                starts: ranks[r].iter().map(|c| c.0).collect(),
                                ends: ranks[r].iter().map(|c| c.1).collect(),
                                ..Default::default()
                            }
                            .into(),
                            rank: r as u32,
                            ..RankCalls::default()
                        })
                        .collect(),
                })
                .collect(),
            depth: Depth::Events,
            summary_statistics: false,
        };
        let names: Vec<String> = rows.iter().map(|r| r.0.to_string()).collect();
        let all = Selection::all();
        let mut whole = Stacks::new(names.clone());
        let mut streamed = Stacks::new(names);
        for rank in 0..3u32 {
            let (regions, ids) = rank_regions(&profile, &Loaded, &all, rank).unwrap();
            let refs: Vec<&Region> = regions.iter().collect();
            let want = whole.add_rank(&refs, &ids, rank);
            let got = streamed
                .add_streamed(&profile, &Loaded, &all, rank)
                .unwrap();
            assert_eq!(got, Some(want.clone()), "rank {rank}");
            assert_eq!(want.is_err(), rank == 2);
            assert_eq!(streamed.frames, whole.frames, "after rank {rank}");
        }
        assert_eq!(streamed.ranks, vec![0, 1]);
        assert!(streamed.frames.len() > 5, "{:?}", streamed.frames);
        let recursion = streamed.frames.iter().enumerate().any(|(i, f)| {
            f.parent
                .is_some_and(|p| streamed.frames[p].region == f.region && i > p)
        });
        assert!(recursion, "{:?}", streamed.frames);
    }

    #[test]
    fn ranks_merge_into_one_tree() {
        let a = region("a", &[(0, 10)]);
        let mut b = region("a", &[(5, 9)]);
        b.ranks[0].rank = 1;
        let mut s = Stacks::new(vec!["a".into()]);
        s.add_rank(&[&a], &[0], 0).unwrap();
        s.add_rank(&[&b], &[0], 1).unwrap();
        assert_eq!(s.frames.len(), 1);
        assert_eq!((s.frames[0].calls, s.frames[0].total_ns), (2, 14));
        assert_eq!(s.ranks, vec![0, 1]);
        let mut overlap = region("b", &[(0, 10), (5, 15)]);
        overlap.ranks[0].rank = 2;
        assert!(s.add_rank(&[&overlap], &[0], 2).is_err());
    }
}
