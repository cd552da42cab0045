//! The call tree's rows of a profile read to its index, rank by rank: each job reads one
//! rank's calls once through its rows' spans, nests them with a stack (per lane), and
//! reduces every call path of the rank to a few numbers and its durations;
//! [`TreeRows`](super::TreeRows) folds the ranks' results in rank order into the
//! reference's numbers, bit for bit: the sums Python folds left to right are folded in the
//! same order, and numpy's reductions (mean, std, percentiles) run over each path's
//! durations at the end, kept as 32-bit integers where they fit. Memory is the durations
//! plus a rank or two in flight.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use super::parent_rows::{self, MAX_TIME};
use super::path_stats::Durations;
use super::rank_path::{RankTree, Spare, WalkKind};
use super::tree_walk::{self, RankInput, Walk, WalkRow};
use super::{present_ranks, selected_indices, RowOptions};
use crate::analysis::error::{Error, Result};
use crate::analysis::numeric::seconds;
use crate::analysis::Selection;
use crate::io::ReadAt;
use crate::schema::read::events::{release_over, KEPT_BUFFER_BYTES};
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
    spare: Spare,
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
            // A set, not a list: searching a list of the ranks seen made 100,000 ranks
            // quadratic (half of `sp inspect`'s time there).
            let mut seen = HashSet::with_capacity(region.ranks.len());
            for (k, row) in region.ranks.iter().enumerate() {
                // `Region::rank`: the first row of a rank.
                if !seen.insert(row.rank) {
                    continue;
                }
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
            spare: Spare::default(),
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

    /// Gives back a folded path's own times for a later rank's.
    pub(super) fn recycle(&self, own: Durations) {
        self.spare.give(own);
    }

    /// Job `job`: one rank's calls read, nested and reduced per call path.
    pub fn run<R: ReadAt>(
        &self,
        job: usize,
        reader: Option<&EventReader<'_, R>>,
    ) -> Result<RankTree> {
        with_buffers(|buffers| {
            let tree = self.run_in(job, reader, buffers);
            buffers.release_large();
            tree
        })
    }

    fn run_in<R: ReadAt>(
        &self,
        job: usize,
        reader: Option<&EventReader<'_, R>>,
        buffers: &mut RankBuffers,
    ) -> Result<RankTree> {
        let mut tree = RankTree::default();
        if !buffers.load(self, job, reader, &mut tree)? {
            tree.nesting = true;
            return Ok(tree);
        }
        let input = RankInput {
            starts: &buffers.starts,
            ends: &buffers.ends,
            rows: &buffers.rows,
            regions: self.regions.len(),
            origin: self.origin,
            spare: &self.spare,
            in_range: buffers.in_range,
            distribution: self.options.distribution,
        };
        let by_rows = buffers
            .rows
            .iter()
            .all(|row| row.lanes.is_none() && row.sorted);
        let mut walk = Walk::Pooled;
        if by_rows {
            match parent_rows::by_parent_rows(&input, &mut buffers.own) {
                Some(paths) => {
                    walk = Walk::Paths(paths);
                    tree.walk = WalkKind::ParentRows;
                }
                None => {
                    walk = tree_walk::by_rows(&input, &mut buffers.path_of, &mut buffers.own);
                    if !matches!(walk, Walk::Pooled) {
                        tree.walk = WalkKind::Rows;
                    }
                }
            }
        }
        if let Walk::Pooled = walk {
            walk = tree_walk::by_calls(&input);
        }
        match walk {
            Walk::Paths(mut paths) => {
                for path in &mut paths {
                    path.coverage.close();
                }
                tree.paths = paths;
            }
            Walk::Nesting | Walk::Pooled => tree.nesting = true,
        }
        Ok(tree)
    }
}

/// One rank's calls and the walk's per-call room, in buffers a thread keeps from rank to
/// rank: reading every rank into fresh vectors made the kernel fault in a gigabyte of new
/// pages on a large profile.
#[derive(Default)]
struct RankBuffers {
    starts: Vec<i64>,
    ends: Vec<i64>,
    rows: Vec<WalkRow>,
    /// Per call, its path ([`tree_walk::by_rows`]).
    path_of: Vec<u32>,
    /// Per call, its own time, ns: its duration once read, as [`parent_rows`] needs.
    own: Vec<i64>,
    /// Every time read is within `±MAX_TIME`.
    in_range: bool,
}

thread_local! {
    static BUFFERS: RefCell<RankBuffers> = RefCell::default();
}

/// `f` with this thread's [`RankBuffers`].
fn with_buffers<T>(f: impl FnOnce(&mut RankBuffers) -> T) -> T {
    BUFFERS.with(|cell| match cell.try_borrow_mut() {
        Ok(mut buffers) => f(&mut buffers),
        Err(_) => f(&mut RankBuffers::default()),
    })
}

impl RankBuffers {
    /// Frees every buffer holding more than [`KEPT_BUFFER_BYTES`].
    fn release_large(&mut self) {
        release_over(&mut self.starts, KEPT_BUFFER_BYTES);
        release_over(&mut self.ends, KEPT_BUFFER_BYTES);
        release_over(&mut self.path_of, KEPT_BUFFER_BYTES);
        release_over(&mut self.own, KEPT_BUFFER_BYTES);
        self.rows.clear();
    }

    /// Reads the rows of job `job` one after another, noting each row's first start in
    /// `tree`; `false` where a call ends before it starts (the calls do not nest).
    fn load<R: ReadAt>(
        &mut self,
        jobs: &TreeJobs<'_>,
        job: usize,
        reader: Option<&EventReader<'_, R>>,
        tree: &mut RankTree,
    ) -> Result<bool> {
        self.starts.clear();
        self.ends.clear();
        self.rows.clear();
        self.in_range = true;
        let rows = jobs.rows.get(job).map_or(&[][..], Vec::as_slice);
        for &(region, k) in rows {
            let row = jobs.row(region, k);
            let first = self.starts.len();
            let (gpu, lanes) = match row.span {
                Some(span) => {
                    let Some(reader) = reader else {
                        return Err(Error::Corrupt(
                            "the index points at events but the file has no /events".into(),
                        ));
                    };
                    reader.append_calls(span, &mut self.starts, &mut self.ends)?;
                    let gpu = reader.read_gpu(span)?;
                    let lanes = match reader.has_lanes() {
                        true => reader.read_lanes(span)?.lanes(),
                        false => None,
                    };
                    (gpu.filter(|g| g.iter().any(|&v| v >= 0)), lanes)
                }
                None => {
                    // A call is a start and its end: a row's columns pair up to the shorter.
                    let n = row.starts.len().min(row.ends.len());
                    self.starts.extend_from_slice(&row.starts[..n]);
                    self.ends.extend_from_slice(&row.ends[..n]);
                    (row.gpu.clone(), row.lanes.clone())
                }
            };
            let (starts, ends) = (&self.starts[first..], &self.ends[first..]);
            // Own times start as durations (for parent_rows); the same pass checks the
            // times' range, the order of starts and calls that end before they start
            // (exactly, where a time is out of range or the starts fall somewhere).
            // (Grown only: earlier ranks' values are overwritten, never read.)
            if self.own.len() < first + starts.len() {
                self.own.resize(first + starts.len(), 0);
            }
            let own = &mut self.own[first..first + starts.len()];
            let (mut outside, mut negative, mut falling) = (0u64, 0i64, 0i64);
            for ((o, &s), &e) in own.iter_mut().zip(starts).zip(ends) {
                *o = e.wrapping_sub(s);
                negative |= *o;
                outside |= (s.wrapping_add(MAX_TIME) | e.wrapping_add(MAX_TIME)) as u64;
            }
            for pair in starts.windows(2) {
                falling |= pair[1].wrapping_sub(pair[0]);
            }
            // Every time in `-MAX_TIME..MAX_TIME` moved up by `MAX_TIME` stays under
            // `2 * MAX_TIME`, and no difference of two such times overflows.
            let in_range = outside < 2 * MAX_TIME as u64;
            self.in_range &= in_range;
            let (min, sorted, backwards) = match starts.first() {
                Some(&first) if in_range && falling >= 0 => (first, true, negative < 0),
                _ => {
                    let (mut min, mut sorted, mut backwards) = (i64::MAX, true, false);
                    let mut previous = i64::MIN;
                    for (&s, &e) in starts.iter().zip(ends) {
                        min = min.min(s);
                        sorted &= previous <= s;
                        backwards |= e < s;
                        previous = s;
                    }
                    (min, sorted, backwards)
                }
            };
            let min = if starts.is_empty() { 0.0 } else { seconds(min) };
            tree.first_starts.push((region, k, min));
            if backwards {
                return Ok(false);
            }
            self.rows.push(WalkRow {
                first,
                len: starts.len(),
                region,
                name: jobs.name_ids[region as usize],
                sorted,
                gpu,
                lanes,
            });
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::synthetic;
    use crate::analysis::rows::flat_jobs::tests::each_case;
    use crate::analysis::rows::tree_rows::tree_rows;
    use crate::analysis::rows::{region_rows, RowOptions};

    /// Every shipped profile: the jobs over the index give the rows of the full read.
    #[test]
    fn jobs_equal_the_full_read() {
        let mut streamed = 0;
        each_case(false, |full, index, reader, sel, options| {
            if let Some(got) = tree_rows(index, sel, options, reader).unwrap() {
                let want = region_rows(full, sel, options);
                assert_eq!(got, want, "{options:?}");
                streamed += 1;
                if !options.sort.needs_distribution() {
                    let lean = RowOptions {
                        distribution: false,
                        ..options
                    };
                    let got = tree_rows(index, sel, lean, reader).unwrap();
                    assert_eq!(got, Some(synthetic::without_distribution(want)), "{lean:?}");
                }
            }
        });
        assert!(streamed > 100, "{streamed}");
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

    /// `rows` without the statistics of their calls' distribution where they are rows of
    /// the call tree (flat rows keep them).
    pub(in crate::analysis::rows) fn without_distribution(rows: Vec<RegionRow>) -> Vec<RegionRow> {
        rows.into_iter()
            .map(|row| match row.call_path {
                None => row,
                Some(_) => RegionRow {
                    avg: None,
                    min: None,
                    max: None,
                    std: None,
                    p50: None,
                    p95: None,
                    p99: None,
                    ..row
                },
            })
            .collect()
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
                        distribution: true,
                    };
                    let want = region_rows(&full, &sel, options);
                    let got = tree_rows(&index, &sel, options, reader.as_ref()).unwrap();
                    if let Some(got) = &got {
                        // Debug text: equal floats print alike, and so do NaNs.
                        assert_eq!(format!("{got:?}"), format!("{want:?}"), "{sort:?} {mode:?}");
                    }
                    if !sort.needs_distribution() {
                        let options = RowOptions {
                            distribution: false,
                            ..options
                        };
                        let lean = tree_rows(&index, &sel, options, reader.as_ref()).unwrap();
                        let want = got.clone().map(without_distribution);
                        assert_eq!(
                            format!("{lean:?}"),
                            format!("{want:?}"),
                            "{sort:?} {mode:?}"
                        );
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

    /// The next of a xorshift stream at `state` (not 0), below `below` (0 where it is 0):
    /// random test data from a seed.
    pub(in crate::analysis::rows) fn xorshift(state: &mut u64, below: u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state % below.max(1)
    }

    /// Random nested calls of one rank, per region (each region's calls in start order):
    /// children split their parent's time into disjoint (possibly touching or empty)
    /// spans; with `recursion`, a child may take an ancestor's region (and its parent's
    /// whole span).
    struct CallTree {
        state: u64,
        regions: usize,
        recursion: bool,
        calls: Vec<Vec<(i64, i64)>>,
        /// (region, time) of every empty call.
        empty: std::collections::HashSet<(usize, i64)>,
    }

    impl CallTree {
        fn rank(seed: u64, regions: usize, recursion: bool) -> Vec<RegionCalls> {
            let mut tree = CallTree {
                state: seed | 1,
                regions,
                recursion,
                calls: vec![Vec::new(); regions],
                empty: Default::default(),
            };
            let roots = 1 + tree.next(4);
            let mut at = 1_000_000_000_000;
            for _ in 0..roots {
                let length = tree.next(5_000) as i64;
                tree.call(at, at + length, &[]);
                at += length + tree.next(3) as i64;
            }
            tree.calls
                .iter_mut()
                .enumerate()
                .map(|(r, calls)| {
                    calls.sort_by_key(|c| c.0);
                    region(&format!("r{r}"), calls)
                })
                .collect()
        }

        fn next(&mut self, below: u64) -> u64 {
            xorshift(&mut self.state, below)
        }

        /// A call of some region over `start..end` (not one of `taken`), and its
        /// children; its region.
        fn call(&mut self, start: i64, end: i64, taken: &[usize]) -> Option<usize> {
            let free: Vec<usize> = (0..self.regions)
                .filter(|r| self.recursion || !taken.contains(r))
                .collect();
            if free.is_empty() {
                return None;
            }
            let region = free[self.next(free.len() as u64) as usize];
            // Empty calls at one time nest in one another in the walk, whatever their
            // parents: without recursion, one per region.
            if !self.recursion && start == end && !self.empty.insert((region, start)) {
                return None;
            }
            self.calls[region].push((start, end));
            if taken.len() >= 4 {
                return Some(region);
            }
            // Without recursion a child's region is none of its ancestors' nor its older
            // siblings': touching siblings and empty calls may nest in one another in
            // the walk.
            let mut below = taken.to_vec();
            below.push(region);
            let mut at = start;
            for _ in 0..self.next(4) {
                let from = at + self.next(((end - at) / 2 + 1) as u64) as i64;
                let to = from + self.next((end - from + 1) as u64) as i64;
                // A child over its parent's whole span may come first in the walk and
                // become the parent; an empty child at its parent's end follows the
                // parent's later sibling starting there, and nests in it.
                if self.recursion || ((from, to) != (start, end) && from != end) {
                    if let Some(child) = self.call(from, to, &below) {
                        below.push(child);
                    }
                }
                at = to;
            }
            Some(region)
        }
    }

    /// Random call trees on three ranks: the jobs give the full read's rows; the number
    /// of ranks not walked call by call.
    fn random_ranks(seed: u64, regions: usize, recursion: bool) -> usize {
        let ranks: Vec<Vec<RegionCalls>> = (0..3u64)
            .map(|r| CallTree::rank(seed.wrapping_add(r), regions, recursion))
            .collect();
        let bytes = profile(&ranks);
        assert!(compare(&bytes).is_some());
        let file = File::open(&bytes[..]).unwrap();
        let index = load::read_for_jobs(&file).unwrap();
        let reader = EventReader::open(&file).unwrap();
        let options = RowOptions {
            sort: SortKey::Start,
            mode: PercentageMode::Coverage,
            flat: false,
            distribution: true,
        };
        let jobs = TreeJobs::plan(&index, &Selection::all(), options).unwrap();
        let trees: Vec<RankTree> = (0..jobs.len())
            .map(|job| jobs.run(job, reader.as_ref()).unwrap())
            .collect();
        assert!(trees.iter().all(|t| !t.nesting));
        trees.iter().filter(|t| t.walk != WalkKind::Calls).count()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        /// Without recursion every rank is walked by rows; with it, by rows or by calls,
        /// the rows are the full read's.
        #[test]
        fn random_call_trees_equal_the_full_read(
            seed in proptest::prelude::any::<u64>(),
            regions in 1usize..6,
            recursion in proptest::prelude::any::<bool>(),
        ) {
            let by_rows = random_ranks(seed, regions, recursion);
            if !recursion {
                proptest::prop_assert_eq!(by_rows, 3);
            }
        }
    }

    /// Recursive call trees take the pooling walk (on most ranks) and still give the full
    /// read's rows.
    #[test]
    fn recursive_call_trees_are_walked_by_calls() {
        let ranks = 40 * 3;
        let by_rows: usize = (0..40).map(|seed| random_ranks(seed * 7, 3, true)).sum();
        assert!(by_rows < ranks / 2, "{by_rows} of {ranks}");
    }

    /// Empty rows at the offset where another rank's rows start: valid in file order
    /// (each empty row at the end of the row before it), though not region by region.
    #[test]
    fn empty_rows_at_shared_offsets_equal_the_full_read() {
        let rank = || {
            vec![
                region("r0", &[]),
                region("r1", &[(10, 20), (30, 40), (40, 50)]),
                region("r2", &[(0, 60)]),
                region("r3", &[]),
            ]
        };
        let last = vec![
            region("r0", &[(0, 5)]),
            region("r1", &[]),
            region("r2", &[]),
            region("r3", &[]),
        ];
        let rows = compare(&profile(&[rank(), rank(), last])).unwrap();
        let r1 = rows.iter().find(|r| r.name == "r1").unwrap();
        assert_eq!(
            r1.call_path.as_deref(),
            Some(&["r2".to_string(), "r1".into()][..])
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
