//! Aggregated call stacks: every call of a rank filed under its full call path (the
//! nesting of [`calltree::build`], as the reference's flame graph aggregates
//! `build_call_stack`), with the calls, inclusive and own time summed per path, over one
//! rank or several merged. The one model behind the flame graph (`sp export flamegraph`,
//! [`crate::chart::flamegraph`]) and the folded stacks of `flamegraph.pl`, inferno and
//! speedscope ([`Stacks::write_folded`]).

use crate::sort::SortSlice;
use std::collections::HashMap;
use std::io::{self, Write};

use super::calltree::{self, Nesting};
use super::error::{Error, Result};
use super::events::RowSource;
use super::selection::Selection;
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
    index: HashMap<(usize, u32), usize>,
}

const TOP: usize = usize::MAX;

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
        let (regions, ids) = rank_regions(profile, source, selection, rank)?;
        let refs: Vec<&Region> = regions.iter().collect();
        stacks.add_rank(&refs, &ids, rank).map_err(|_| {
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
        let events = source.events(stored)?.into_owned();
        regions.push(Region {
            name: region.name.clone(),
            ranks: vec![RankCalls {
                lanes: events.lanes().or_else(|| stored.lanes.clone()),
                starts: events.starts,
                ends: events.ends,
                rank,
                ..RankCalls::default()
            }],
        });
        ids.push(id as u32);
    }
    Ok((regions, ids))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(name: &str, calls: &[(i64, i64)]) -> Region {
        Region {
            name: name.into(),
            ranks: vec![RankCalls {
                rank: 0,
                starts: calls.iter().map(|c| c.0).collect(),
                ends: calls.iter().map(|c| c.1).collect(),
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
