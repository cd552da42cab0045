//! The two ways a [`TreeJobs`](super::TreeJobs) job nests one rank's calls (in the order
//! [`CallOrder`] gives) and reduces them per call path:
//!
//! - [`by_rows`], where nothing pools: the walk only finds each call's path and own time;
//!   then every path takes its calls from its row's columns in runs, in tight loops. A path
//!   is one region under one parent path, and a rank has one row per region, so without
//!   pooling every path's calls lie in one row, in the row's order (which is the walk's
//!   order where the row is in start order and has no lanes).
//! - [`by_calls`], for everything else (recursion pooled into a parent's path, lanes, rows
//!   out of start order): each call is reduced as the walk reaches it.
//!
//! Both give the same [`RankPath`]s, paths in first-seen order. Where every row nests in
//! one other row, [`by_parent_rows`](super::parent_rows::by_parent_rows) proves as much
//! without a walk and gives them too, cheaper.

use std::collections::HashMap;

use super::call_order::{Call, CallOrder};
use super::rank_path::{RankPath, Spare};

/// One row of a rank as the walks see it: where its calls lie in the rank's columns, its
/// selected region, the first selected region of the same name (calls pool by name),
/// whether it is in start order, and its GPU times and lanes when it has them.
#[derive(Debug, Default)]
pub(super) struct WalkRow {
    pub first: usize,
    pub len: usize,
    pub region: u32,
    pub name: u32,
    pub sorted: bool,
    pub gpu: Option<Vec<i64>>,
    pub lanes: Option<Vec<i64>>,
}

/// One rank's calls: every row's starts and ends one after another (row `r`'s calls are
/// `starts[rows[r].first..][..rows[r].len]`), each end at or after its start.
pub(super) struct RankInput<'a> {
    pub starts: &'a [i64],
    pub ends: &'a [i64],
    pub rows: &'a [WalkRow],
    /// Number of selected regions.
    pub regions: usize,
    /// The profile's time origin, seconds.
    pub origin: f64,
    /// Where paths take the room for their own times.
    pub spare: &'a Spare,
    /// Every time is within `±MAX_TIME` ([`parent_rows`](super::parent_rows)).
    pub in_range: bool,
    /// Paths keep every call's duration ([`RowOptions::distribution`](super::RowOptions)).
    pub distribution: bool,
}

impl RankInput<'_> {
    /// Each row's starts and ends.
    pub(super) fn columns(&self) -> (Vec<&[i64]>, Vec<&[i64]>) {
        fn slice<'c>(column: &'c [i64], row: &WalkRow) -> &'c [i64] {
            column.get(row.first..row.first + row.len).unwrap_or(&[])
        }
        let starts = self.rows.iter().map(|r| slice(self.starts, r)).collect();
        let ends = self.rows.iter().map(|r| slice(self.ends, r)).collect();
        (starts, ends)
    }

    /// Number of calls of the rank.
    pub(super) fn calls(&self) -> usize {
        self.starts.len()
    }
}

/// How a walk ended.
#[derive(Debug)]
pub(super) enum Walk {
    /// The rank's paths, in first-seen order.
    Paths(Vec<RankPath>),
    /// A call ends after the call it starts in: the calls do not nest.
    Nesting,
    /// A call nests in a call of its own name ([`by_rows`] only: [`by_calls`] pools it).
    Pooled,
}

/// A call on the stack: its scaled end (a zero-length call ends just after its start),
/// its end and region name, its duration minus its children's so far, its path, and where
/// its own time goes (its index in the rank's columns for [`by_rows`], in its path's own
/// times for [`by_calls`]).
struct Open {
    end2: i64,
    end: i64,
    name: u32,
    exclusive: i64,
    entry: u32,
    slot: usize,
}

impl Open {
    fn new(start: i64, end: i64, name: u32, entry: u32, slot: usize) -> Self {
        let mut end2 = end.wrapping_mul(2);
        if end2 == start.wrapping_mul(2) {
            end2 = end2.wrapping_add(1);
        }
        Open {
            end2,
            end,
            name,
            exclusive: end.wrapping_sub(start),
            entry,
            slot,
        }
    }
}

/// Pops the calls that end at or before `start` off `stack`, giving each one's own time
/// to `close(path, slot, own time)`.
#[inline(always)]
fn close_before(stack: &mut Vec<Open>, start: i64, mut close: impl FnMut(u32, usize, i64)) {
    let start2 = start.wrapping_mul(2);
    while let Some(top) = stack.last() {
        if top.end2 > start2 {
            break;
        }
        close(top.entry, top.slot, top.exclusive);
        stack.pop();
    }
}

/// The walk where nothing pools (see the module doc): `path_of` and `own` are buffers the
/// caller keeps from rank to rank, of which the first [`RankInput::calls`] entries are
/// written. [`Walk::Pooled`] at the first call nested in its own name: the caller walks
/// the rank [`by_calls`] then.
pub(super) fn by_rows(input: &RankInput<'_>, path_of: &mut Vec<u32>, own: &mut Vec<i64>) -> Walk {
    let n = input.calls();
    // Every entry is written before it is read: earlier ranks' values need no clearing.
    if path_of.len() < n {
        path_of.resize(n, 0);
    }
    if own.len() < n {
        own.resize(n, 0);
    }
    let (path_of, own) = (&mut path_of[..n], &mut own[..n]);
    let (starts, ends) = input.columns();
    let mut stack: Vec<Open> = Vec::new();
    let mut entries = Entries::new(input.regions);
    let mut order = CallOrder::new(&starts, &ends);
    while let Some(batch) = order.next_batch() {
        for call in batch.iter() {
            let row = &input.rows[call.row];
            let id = row.first + call.pos;
            close_before(&mut stack, call.start, |_, slot, x| {
                if let Some(o) = own.get_mut(slot) {
                    *o = x;
                }
            });
            let parent = match stack.last_mut() {
                Some(parent) => {
                    if parent.end < call.end {
                        return Walk::Nesting;
                    }
                    if parent.name == row.name {
                        return Walk::Pooled;
                    }
                    let duration = call.end.wrapping_sub(call.start);
                    parent.exclusive = parent.exclusive.wrapping_sub(duration);
                    Some(parent.entry)
                }
                None => None,
            };
            let entry = entries.get(parent, row.region);
            if let Some(p) = path_of.get_mut(id) {
                *p = entry;
            }
            stack.push(Open::new(call.start, call.end, row.name, entry, id));
        }
    }
    for open in stack {
        if let Some(o) = own.get_mut(open.slot) {
            *o = open.exclusive;
        }
    }
    let mut counts = vec![0usize; entries.paths.len()];
    for &p in path_of.iter() {
        counts[p as usize] += 1;
    }
    let mut paths: Vec<RankPath> = entries
        .paths
        .iter()
        .zip(counts)
        .map(|(&(parent, region), calls)| {
            RankPath::new(parent, region, calls, input.distribution, input.spare)
        })
        .collect();
    // Each row's calls, in runs on one path (most rows are one run).
    for row in input.rows {
        let mut at = row.first;
        let end = row.first + row.len;
        while at < end {
            let path = path_of[at];
            let run = path_of[at..end]
                .iter()
                .position(|&p| p != path)
                .unwrap_or(end - at);
            let calls = at..at + run;
            let gpu = row.gpu.as_deref().map_or(&[][..], |g| {
                let within = |i: usize| (i - row.first).min(g.len());
                &g[within(calls.start)..within(calls.end)]
            });
            paths[path as usize].extend(
                input.origin,
                &input.starts[calls.clone()],
                &input.ends[calls.clone()],
                &own[calls],
                gpu,
            );
            at += run;
        }
    }
    Walk::Paths(paths)
}

/// The walk that reduces each call as it comes: recursion pools into the parent's path,
/// each lane has its own stack.
pub(super) fn by_calls(input: &RankInput<'_>) -> Walk {
    let (starts, ends) = input.columns();
    let any_lane = input.rows.iter().any(|r| r.lanes.is_some());
    let any_gpu = input.rows.iter().any(|r| r.gpu.is_some());
    let mut stacks: Vec<(i64, Vec<Open>)> = vec![(-1, Vec::new())];
    let mut entries = Entries::new(input.regions);
    let mut paths: Vec<RankPath> = Vec::new();
    let mut order = CallOrder::new(&starts, &ends);
    while let Some(batch) = order.next_batch() {
        for Call {
            start,
            end,
            row: r,
            pos: i,
        } in batch.iter()
        {
            let row = &input.rows[r];
            let at = if any_lane {
                let lane = row.lanes.as_ref().and_then(|l| l.get(i).copied());
                let lane = lane.unwrap_or(-1);
                match stacks.iter().position(|s| s.0 == lane) {
                    Some(at) => at,
                    None => {
                        stacks.push((lane, Vec::new()));
                        stacks.len() - 1
                    }
                }
            } else {
                0
            };
            let stack = &mut stacks[at].1;
            close_before(stack, start, |entry, slot, x| {
                paths[entry as usize].close_call(slot, x)
            });
            let (entry, nested) = match stack.last_mut() {
                Some(parent) => {
                    if parent.end < end {
                        return Walk::Nesting;
                    }
                    parent.exclusive = parent.exclusive.wrapping_sub(end.wrapping_sub(start));
                    if parent.name == row.name {
                        (parent.entry, true)
                    } else {
                        (entries.get(Some(parent.entry), row.region), false)
                    }
                }
                None => (entries.get(None, row.region), false),
            };
            if entry as usize == paths.len() {
                let (parent, region) = entries.paths[entry as usize];
                paths.push(RankPath::new(parent, region, row.len, true, input.spare));
            }
            let gpu = if any_gpu {
                row.gpu.as_ref().and_then(|g| g.get(i).copied())
            } else {
                None
            };
            let slot = paths[entry as usize].push(input.origin, start, end, nested, gpu);
            stack.push(Open::new(start, end, row.name, entry, slot));
        }
    }
    for (_, stack) in stacks {
        for open in stack {
            paths[open.entry as usize].close_call(open.slot, open.exclusive);
        }
    }
    for path in &mut paths {
        // A region called on several paths reserved its row's length on each.
        path.durations.shrink();
        path.exclusive.shrink();
    }
    Walk::Paths(paths)
}

/// A rank's paths by (parent path, region): a table with a row per path (and one for the
/// roots) and a column per selected region while it stays under [`Entries::TABLE_LIMIT`]
/// slots — one load per call instead of a search — and a hash map past that (many
/// regions on many paths).
struct Entries {
    regions: usize,
    limit: usize,
    /// `table[(parent + 1) * regions + region]`: the path, or [`Entries::NONE`].
    table: Vec<u32>,
    map: Option<HashMap<(u32, u32), u32>>,
    /// (parent, region) of every path, in first-seen order.
    paths: Vec<(Option<u32>, u32)>,
}

impl Entries {
    const NONE: u32 = u32::MAX;
    /// Slots of the table at most (16 MiB).
    const TABLE_LIMIT: usize = 1 << 22;

    fn new(regions: usize) -> Self {
        Self::with_limit(regions, Self::TABLE_LIMIT)
    }

    fn with_limit(regions: usize, limit: usize) -> Self {
        let mut entries = Entries {
            regions,
            limit,
            table: Vec::new(),
            map: None,
            paths: Vec::new(),
        };
        entries.grow();
        entries
    }

    /// Adds the table row of a new path (the roots' at first), or moves to the map when
    /// the table would pass its limit.
    fn grow(&mut self) {
        if self.map.is_some() {
            return;
        }
        if self.table.len() + self.regions > self.limit {
            let mut map = HashMap::new();
            for (slot, &entry) in self.table.iter().enumerate() {
                if entry != Self::NONE {
                    let parent = (slot / self.regions) as u32;
                    map.insert((parent, (slot % self.regions) as u32), entry);
                }
            }
            self.table = Vec::new();
            self.map = Some(map);
        } else {
            self.table
                .resize(self.table.len() + self.regions, Self::NONE);
        }
    }

    /// The path of a call of `region` under `parent` (a new one, numbered next, at its
    /// first call).
    #[inline(always)]
    fn get(&mut self, parent: Option<u32>, region: u32) -> u32 {
        // Row 0 holds the roots; path `p`'s children are in row `p + 1`.
        let parent_row = parent.map_or(0, |p| p + 1);
        let slot = parent_row as usize * self.regions + region as usize;
        let found = match &self.map {
            None => self.table.get(slot).copied().unwrap_or(Self::NONE),
            Some(map) => map
                .get(&(parent_row, region))
                .copied()
                .unwrap_or(Self::NONE),
        };
        if found != Self::NONE {
            return found;
        }
        self.add(parent, region)
    }

    /// [`get`](Entries::get) at a path's first call: the path added.
    #[cold]
    fn add(&mut self, parent: Option<u32>, region: u32) -> u32 {
        let parent_row = parent.map_or(0, |p| p + 1);
        let entry = self.paths.len() as u32;
        match &mut self.map {
            None => {
                let slot = parent_row as usize * self.regions + region as usize;
                if let Some(s) = self.table.get_mut(slot) {
                    *s = entry;
                }
            }
            Some(map) => {
                map.insert((parent_row, region), entry);
            }
        }
        self.paths.push((parent, region));
        self.grow();
        entry
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table and the map give the same paths; a tiny limit moves to the map midway.
    #[test]
    fn table_and_map_agree() {
        let calls: Vec<(Option<u32>, u32)> = vec![
            (None, 0),
            (Some(0), 1),
            (Some(1), 2),
            (Some(0), 1),
            (None, 2),
            (Some(3), 2),
            (Some(1), 2),
            (Some(4), 0),
            (None, 0),
        ];
        let walk = |mut entries: Entries| {
            let got: Vec<u32> = calls
                .iter()
                .map(|&(parent, region)| entries.get(parent, region))
                .collect();
            (got, entries.paths, entries.map.is_some())
        };
        let (table, table_paths, on_map) = walk(Entries::new(3));
        assert!(!on_map);
        assert_eq!(table, [0, 1, 2, 1, 3, 4, 2, 5, 0]);
        assert_eq!(
            table_paths,
            [
                (None, 0),
                (Some(0), 1),
                (Some(1), 2),
                (None, 2),
                (Some(3), 2),
                (Some(4), 0)
            ]
        );
        let (map, map_paths, on_map) = walk(Entries::with_limit(3, 7));
        assert!(on_map);
        assert_eq!(map, table);
        assert_eq!(map_paths, table_paths);
    }
}
