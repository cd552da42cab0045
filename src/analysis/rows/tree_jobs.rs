//! The call tree's rows of a profile read to its index, rank by rank: each job reads one
//! rank's calls once through its rows' spans, nests them with a stack (per lane), and
//! reduces every call path of the rank to a few numbers and its durations;
//! [`TreeRows`](super::TreeRows) folds the ranks' results in rank order into the
//! reference's numbers, bit for bit: the sums Python folds left to right are folded in the
//! same order, and numpy's reductions (mean, std, percentiles) run over each path's
//! durations at the end, kept as 32-bit integers where they fit. Memory is the durations
//! plus a rank or two in flight.

use std::collections::HashMap;
use std::ops::ControlFlow;

use super::call_order;
use super::path_stats::{Bounds, Coverage, Durations};
use super::{present_ranks, selected_indices, RowOptions};
use crate::analysis::error::{Error, Result};
use crate::analysis::numeric::seconds;
use crate::analysis::Selection;
use crate::io::ReadAt;
use crate::schema::{EventReader, Profile, RankCalls};

/// The call tree of [`region_rows`](super::region_rows) for a profile read to its index
/// ([`load::read_for_jobs`](crate::analysis::load::read_for_jobs)), planned as one
/// independent job per rank: [`run`](TreeJobs::run) on any thread, in any order; the
/// results go to [`TreeRows::add`](super::TreeRows::add) in any order, and [`TreeRows::finish`](super::TreeRows::finish) gives the table.
pub struct TreeJobs<'p> {
    profile: &'p Profile,
    /// Index in `profile.regions` of each selected region, in `selected_regions` order.
    regions: Vec<usize>,
    /// Per selected region, the first selected region of the same name (calls nested in a
    /// region of their own name pool into their parent's path).
    name_ids: Vec<u32>,
    /// The ranks walked, one job each, in the order their calls are pooled.
    ranks: Vec<u32>,
    /// Per job, (selected region, row index) of each of its rank's rows.
    rows: Vec<Vec<(u32, usize)>>,
    origin: f64,
    options: RowOptions,
    selection: Selection,
}

impl<'p> TreeJobs<'p> {
    /// Plans the jobs; `None` where the streamed tree cannot give the full read's rows
    /// (flat rows asked for, or a region filter, whose own times come from the unfiltered
    /// tree): the caller reads the profile whole then.
    pub fn plan(profile: &'p Profile, sel: &Selection, options: RowOptions) -> Option<Self> {
        if options.flat || sel.filtered() {
            return None;
        }
        let regions = selected_indices(profile, sel);
        let selected: Vec<&crate::schema::Region> =
            regions.iter().map(|&i| &profile.regions[i]).collect();
        let mut first_of_name: HashMap<&str, u32> = HashMap::new();
        let name_ids = selected
            .iter()
            .enumerate()
            .map(|(i, r)| *first_of_name.entry(r.name.as_str()).or_insert(i as u32))
            .collect();
        let ranks = match &sel.ranks {
            Some(r) => r.clone(),
            None => present_ranks(profile),
        };
        let job_of: HashMap<u32, usize> = ranks.iter().enumerate().map(|(j, &r)| (r, j)).collect();
        let mut rows = vec![Vec::new(); ranks.len()];
        for (i, region) in selected.iter().enumerate() {
            let mut seen = Vec::new();
            for (k, row) in region.ranks.iter().enumerate() {
                // `Region::rank`: the first row of a rank.
                if seen.contains(&row.rank) {
                    continue;
                }
                seen.push(row.rank);
                if let Some(&job) = job_of.get(&row.rank) {
                    rows[job].push((i as u32, k));
                }
            }
        }
        Some(TreeJobs {
            profile,
            regions,
            name_ids,
            ranks,
            rows,
            origin: profile.time_origin(),
            options,
            selection: sel.clone(),
        })
    }

    /// Number of jobs.
    pub fn len(&self) -> usize {
        self.ranks.len()
    }

    /// Whether there is nothing to compute.
    pub fn is_empty(&self) -> bool {
        self.ranks.is_empty()
    }

    pub(super) fn row(&self, region: u32, k: usize) -> &'p RankCalls {
        &self.profile.regions[self.regions[region as usize]].ranks[k]
    }

    pub(super) fn profile(&self) -> &'p Profile {
        self.profile
    }

    /// Number of selected regions.
    pub(super) fn regions(&self) -> usize {
        self.regions.len()
    }

    /// The index in `profile.regions` of selected region `region`.
    pub(super) fn region_index(&self, region: u32) -> usize {
        self.regions[region as usize]
    }

    pub(super) fn options(&self) -> RowOptions {
        self.options
    }

    pub(super) fn selection(&self) -> &Selection {
        &self.selection
    }

    /// Job `job`: one rank's calls read, nested and reduced per call path.
    pub fn run<R: ReadAt>(
        &self,
        job: usize,
        reader: Option<&EventReader<'_, R>>,
    ) -> Result<RankTree> {
        let rows = self.rows.get(job).map_or(&[][..], Vec::as_slice);
        let mut tree = RankTree::default();
        let mut loaded: Vec<RankCalls> = Vec::with_capacity(rows.len());
        let mut any_lane = false;
        for &(region, k) in rows {
            let row = self.row(region, k);
            let mut full = match row.span {
                Some(span) => {
                    let Some(reader) = reader else {
                        return Err(Error::Corrupt(
                            "the index points at events but the file has no /events".into(),
                        ));
                    };
                    reader.read(span)?.into_calls(row)
                }
                None => row.clone(),
            };
            // A call is a start and its end: a row's columns pair up to the shorter one.
            let n = full.starts.len().min(full.ends.len());
            full.starts.truncate(n);
            full.ends.truncate(n);
            let first = full.starts.iter().min().map_or(0.0, |&s| seconds(s));
            tree.first_starts.push((region, k, first));
            any_lane |= full.lanes.is_some();
            if full.starts.iter().zip(&full.ends).any(|(s, e)| e < s) {
                tree.nesting = true;
                return Ok(tree);
            }
            loaded.push(full);
        }
        // What the walk needs of each row, in one place.
        let infos: Vec<RowInfo> = rows
            .iter()
            .zip(&loaded)
            .map(|(&(region, _), row)| RowInfo {
                region,
                name: self.name_ids[region as usize],
                calls: row.starts.len(),
            })
            .collect();
        let any_gpu = loaded.iter().any(|r| r.gpu.is_some());
        let starts: Vec<&[i64]> = loaded.iter().map(|r| r.starts.as_slice()).collect();
        let ends: Vec<&[i64]> = loaded.iter().map(|r| r.ends.as_slice()).collect();
        let mut stacks: Vec<(i64, Vec<Open>)> = vec![(-1, Vec::new())];
        let mut entries = Entries::new(self.regions.len());
        // The reference's order: start ascending, end descending, then region order and
        // position in the row (a stable sort of the calls listed row after row).
        let walk = call_order::each(&starts, &ends, |r, i, start, end| {
            let info = &infos[r];
            let at = if any_lane {
                let lane = loaded[r].lanes.as_ref().and_then(|l| l.get(i).copied());
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
            let start2 = start.wrapping_mul(2);
            while let Some(top) = stack.last() {
                if top.end2 > start2 {
                    break;
                }
                tree.paths[top.entry as usize].close_call(top.slot, top.exclusive);
                stack.pop();
            }
            let duration = end.wrapping_sub(start);
            let (entry, nested) = match stack.last_mut() {
                Some(parent) => {
                    if parent.end < end {
                        return ControlFlow::Break(());
                    }
                    parent.exclusive = parent.exclusive.wrapping_sub(duration);
                    if parent.name == info.name {
                        (parent.entry, true)
                    } else {
                        let entry = Some(parent.entry);
                        (
                            entries.get(&mut tree, entry, info.region, info.calls),
                            false,
                        )
                    }
                }
                None => (entries.get(&mut tree, None, info.region, info.calls), false),
            };
            let gpu = if any_gpu {
                loaded[r].gpu.as_ref().and_then(|g| g.get(i).copied())
            } else {
                None
            };
            let slot = tree.paths[entry as usize].push(self.origin, start, end, nested, gpu);
            let mut end2 = end.wrapping_mul(2);
            if end2 == start2 {
                end2 = end2.wrapping_add(1);
            }
            stack.push(Open {
                end2,
                end,
                name: info.name,
                exclusive: duration,
                entry,
                slot,
            });
            ControlFlow::Continue(())
        });
        if walk.is_break() {
            // A call ends after the call it starts in: the calls do not nest.
            tree.nesting = true;
            return Ok(tree);
        }
        for (_, stack) in stacks {
            for open in stack {
                tree.paths[open.entry as usize].close_call(open.slot, open.exclusive);
            }
        }
        for path in &mut tree.paths {
            path.coverage.close();
            // A region called on several paths reserved its row's length on each.
            path.durations.shrink();
        }
        Ok(tree)
    }
}

/// What the walk needs of one row: its selected region, the first selected region of the
/// same name (calls pool by name), and its number of calls.
struct RowInfo {
    region: u32,
    name: u32,
    calls: usize,
}

/// A call on the stack: its scaled end (a zero-length call ends just after its start),
/// its end and region name, its duration minus its children's so far, its path and its
/// place in the path's own times.
struct Open {
    end2: i64,
    end: i64,
    name: u32,
    exclusive: i64,
    entry: u32,
    slot: usize,
}

/// One rank's call paths, reduced: the result of a [`TreeJobs`] job.
#[derive(Debug, Default)]
pub struct RankTree {
    /// The calls do not nest: the table is flat.
    pub(super) nesting: bool,
    /// Paths in first-seen order.
    pub(super) paths: Vec<RankPath>,
    /// (selected region, row, first start in seconds) of every row read.
    pub(super) first_starts: Vec<(u32, usize, f64)>,
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

    /// The path of a call of `region` under `parent` (a new one at its first call, with
    /// room for `calls` calls: the length of the region's row).
    #[inline(always)]
    fn get(&mut self, tree: &mut RankTree, parent: Option<u32>, region: u32, calls: usize) -> u32 {
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
        self.add(tree, parent, region, calls)
    }

    /// [`get`](Entries::get) at a path's first call: the path added.
    #[cold]
    fn add(&mut self, tree: &mut RankTree, parent: Option<u32>, region: u32, calls: usize) -> u32 {
        let parent_row = parent.map_or(0, |p| p + 1);
        let entry = tree.paths.len() as u32;
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
        tree.paths.push(RankPath {
            parent,
            region,
            durations: Durations::with_capacity(calls),
            exclusive: Durations::with_capacity(calls),
            ..RankPath::default()
        });
        self.grow();
        entry
    }
}

/// One call path on one rank.
#[derive(Debug, Default)]
pub(super) struct RankPath {
    pub(super) parent: Option<u32>,
    pub(super) region: u32,
    pub(super) durations: Durations,
    /// Own time of every call, seconds, in order (folded across ranks in rank order).
    pub(super) exclusive: Durations,
    /// GPU time of every call of a row with GPU timing, ns, in order.
    pub(super) gpu: Vec<i64>,
    pub(super) coverage: Coverage,
    /// Sum of the durations of calls not nested in their own region (`py_sum`, which
    /// starts at 0: durations are never negative here, so `0.0 +` changes no bits).
    pub(super) total: f64,
    pub(super) bounds: Bounds,
}

impl RankPath {
    /// Adds a call (in start order); returns the slot of its own time, known when it ends.
    #[inline]
    fn push(&mut self, origin: f64, start: i64, end: i64, nested: bool, gpu: Option<i64>) -> usize {
        let duration_ns = end.wrapping_sub(start);
        let duration = seconds(duration_ns);
        let start = seconds(start) - origin;
        let end = seconds(end) - origin;
        self.durations.push(duration_ns);
        self.exclusive.push(0);
        if let Some(g) = gpu {
            self.gpu.push(g);
        }
        self.coverage.add(start, end);
        if !nested {
            self.total += duration;
        }
        self.bounds.add(start, end, duration, nested);
        self.exclusive.len() - 1
    }

    /// Records the own time (ns) of the call in `slot`.
    #[inline]
    fn close_call(&mut self, slot: usize, exclusive: i64) {
        self.exclusive.set(slot, exclusive);
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::rows::flat_jobs::tests::each_case;
    use crate::analysis::rows::region_rows;
    use crate::analysis::rows::tree_rows::tree_rows;

    /// Every shipped profile: the jobs over the index give the rows of the full read.
    #[test]
    fn jobs_equal_the_full_read() {
        let mut streamed = 0;
        each_case(false, |full, index, reader, sel, options| {
            if let Some(got) = tree_rows(index, sel, options, reader).unwrap() {
                assert_eq!(got, region_rows(full, sel, options), "{options:?}");
                streamed += 1;
            }
        });
        assert!(streamed > 100, "{streamed}");
    }
}

#[cfg(test)]
mod entries {
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
            let mut tree = RankTree::default();
            let got: Vec<u32> = calls
                .iter()
                .map(|&(parent, region)| entries.get(&mut tree, parent, region, 1))
                .collect();
            let parents: Vec<(Option<u32>, u32)> =
                tree.paths.iter().map(|p| (p.parent, p.region)).collect();
            (got, parents, entries.map.is_some())
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

#[cfg(test)]
pub(super) mod synthetic {
    use super::*;
    use crate::analysis::rows::region_rows;
    use crate::analysis::rows::tree_rows::tree_rows;
    use crate::analysis::{load, SortKey};
    use crate::analysis::{PercentageMode, RegionRow};
    use crate::hdf5lite::reader::File;
    use crate::schema::{Merger, RegionCalls};

    /// A region of one rank whose calls are `spans` (start, end).
    pub(in crate::analysis::rows) fn region(name: &str, spans: &[(i64, i64)]) -> RegionCalls {
        RegionCalls {
            name: name.into(),
            source_file: None,
            source_line: None,
            source_text: None,
            starts: spans.iter().map(|s| s.0).collect(),
            ends: spans.iter().map(|s| s.1).collect(),
        }
    }

    /// The bytes of the profile sp writes for ranks `0..` with these regions.
    pub(in crate::analysis::rows) fn profile(ranks: &[Vec<RegionCalls>]) -> Vec<u8> {
        let mut merger = Merger::new();
        for (rank, regions) in ranks.iter().enumerate() {
            merger
                .add_rank(&format!("r{rank}.spt"), rank as i64, regions.clone(), None)
                .unwrap();
        }
        let mut out = Vec::new();
        crate::schema::write::to_hdf5(&merger.finish(Some("t")))
            .unwrap()
            .finish(&mut out)
            .unwrap();
        out
    }

    fn compare(bytes: &[u8]) -> Option<Vec<RegionRow>> {
        let file = File::open(bytes).unwrap();
        let full = load::read_full(&file).unwrap();
        let index = load::read_for_jobs(&file).unwrap();
        let reader = EventReader::open(&file).unwrap();
        let mut last = None;
        for sort in [SortKey::Start, SortKey::Total, SortKey::P50] {
            for mode in [PercentageMode::Coverage, PercentageMode::Exclusive] {
                for ranks in [None, Some(vec![1]), Some(vec![0, 2, 7])] {
                    let sel = Selection::ranks(ranks);
                    let options = RowOptions {
                        sort,
                        mode,
                        flat: false,
                    };
                    let want = region_rows(&full, &sel, options);
                    let got = tree_rows(&index, &sel, options, reader.as_ref()).unwrap();
                    if let Some(got) = &got {
                        assert_eq!(got, &want, "{sort:?} {mode:?}");
                    }
                    last = got;
                }
            }
        }
        last
    }

    /// Recursion (pooled into one row, its nested calls left out of the total), identical
    /// intervals in two regions (region order breaks the tie), zero-length calls at a
    /// parent's start and end, durations past `u32`, and ranks with different paths.
    #[test]
    fn recursion_ties_and_zero_lengths_equal_the_full_read() {
        let big = 5_000_000_000;
        let rank0 = vec![
            region("main", &[(0, 1000), (2000, 2000 + big)]),
            region("solve", &[(10, 500), (20, 400), (30, 300), (2100, 2200)]),
            region("io", &[(600, 700), (600, 700), (1000, 1000), (10, 10)]),
            region("mirror", &[(600, 700)]),
        ];
        let rank1 = vec![
            region("main", &[(5, 900)]),
            region("solve", &[(6, 800), (7, 700)]),
            region("io", &[(850, 860)]),
        ];
        let rank2 = vec![region("io", &[(1, 2), (3, 4)]), region("main", &[(0, 10)])];
        let rows = compare(&profile(&[rank0, rank1, rank2])).unwrap();
        let solve = rows.iter().find(|r| r.name == "solve").unwrap();
        assert!(solve.recursive);
        assert_eq!(
            solve.call_path.as_deref(),
            Some(&["main".to_string(), "solve".into()][..])
        );
    }

    /// Calls that overlap without nesting: the reference shows flat rows, and the jobs
    /// leave them to the full read.
    #[test]
    fn calls_that_do_not_nest_are_left_to_the_full_read() {
        let rank0 = vec![region("a", &[(0, 100)]), region("b", &[(50, 150)])];
        let rank1 = vec![region("a", &[(0, 100)])];
        assert_eq!(compare(&profile(&[rank0, rank1])), None);
    }
}
