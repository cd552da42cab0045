//! The flat rows of a profile read to its index, region by region: each job reads one
//! region's calls through its rows' spans and computes its row exactly as [`region_rows`](super::region_rows)
//! does over a fully read profile (`--flat` with percentiles), so memory stays bounded by
//! the largest region and the jobs run on as many threads as the caller has.

use crate::sort::SortSlice;
use std::cell::RefCell;
use std::ops::Range;

use super::flat::{distribution_ns, imbalance_of, merged_length, py_sum};
use super::path_stats::Coverage;
use super::{finish_rows, flat_row, RegionRow, RowOptions};
use crate::analysis::error::Result;
use crate::analysis::numeric::{self, seconds};
use crate::analysis::{PercentageMode, Selection};
use crate::io::ReadAt;
use crate::schema::read::events::{release_over, RowTimes, KEPT_BUFFER_BYTES};
use crate::schema::{EventReader, Profile, Region};

/// The flat rows of [`region_rows`](super::region_rows) (with `flat` set) for a profile read to
/// [`Depth::Index`](crate::schema::Depth::Index), planned as one independent job per
/// selected region: [`run`](FlatJobs::run) on any thread, in any order, then
/// [`finish`](FlatJobs::finish) with the results in job order.
#[derive(Debug, Clone)]
pub struct FlatJobs {
    /// Index in `profile.regions` of each job's region.
    regions: Vec<usize>,
    ranks: Option<Vec<u32>>,
    options: RowOptions,
}

/// One region's flat row and the key [`selected_regions`](super::selected_regions) orders regions by, from its calls.
#[derive(Debug, Clone)]
pub struct FlatRow {
    row: RegionRow,
    sort_key: f64,
}

impl FlatJobs {
    /// Plans one job per region `sel` keeps.
    pub fn plan(profile: &Profile, sel: &Selection, options: RowOptions) -> FlatJobs {
        let regions = (0..profile.regions.len())
            .filter(|&i| sel.keeps(&profile.regions[i].name))
            .collect();
        FlatJobs {
            regions,
            ranks: sel.ranks.clone(),
            options,
        }
    }

    /// Number of jobs.
    pub fn len(&self) -> usize {
        self.regions.len()
    }

    /// Whether there is nothing to compute.
    pub fn is_empty(&self) -> bool {
        self.regions.is_empty()
    }

    /// Job `job`: its region's row, from the region's calls (every row of the region is
    /// read: the imbalance and the start order look at all of them).
    pub fn run<R: ReadAt>(
        &self,
        profile: &Profile,
        job: usize,
        reader: Option<&EventReader<'_, R>>,
    ) -> Result<FlatRow> {
        let Some(region) = self.regions.get(job).and_then(|&i| profile.regions.get(i)) else {
            return Err(crate::analysis::Error::Corrupt(format!(
                "no flat job {job}"
            )));
        };
        if let Some(reader) = reader.filter(|_| region.ranks.iter().all(|r| r.span.is_some())) {
            return with_scratch(|scratch| {
                let row = scratch
                    .digest(region, self.ranks.as_deref(), reader)
                    .map(|()| scratch.row(region, self.ranks.as_deref(), self.options.mode));
                scratch.release_large();
                row
            });
        }
        let loaded = load_region(region, reader)?;
        let exclusive = match self.options.mode {
            PercentageMode::Exclusive => Some(Ok(Default::default())),
            PercentageMode::Coverage => None,
        };
        Ok(FlatRow {
            row: flat_row(&loaded, self.ranks.as_deref(), exclusive.as_ref()),
            sort_key: loaded.sort_key(),
        })
    }

    /// The table from every job's result, in job order.
    pub fn finish(&self, results: Vec<FlatRow>) -> Vec<RegionRow> {
        // `selected_regions`' order: by earliest start, ties in file order.
        let mut order: Vec<usize> = (0..results.len()).collect();
        order.sort_stable_by(|&a, &b| results[a].sort_key.total_cmp(&results[b].sort_key));
        let names: Vec<&str> = order
            .iter()
            .map(|&i| results[i].row.name.as_str())
            .collect();
        finish_rows(Vec::new(), &names, self.options.sort, |i| {
            results[order[i]].row.clone()
        })
    }
}

/// What a region's flat row needs from one of its rows' calls, gathered as the row is
/// decoded: the numbers [`flat_row`] reads from the row loaded whole ([`load_region`]).
#[derive(Debug, Clone, Default)]
struct RowDigest {
    calls: u64,
    /// Earliest start and latest end in seconds, 0.0 without calls
    /// (`RankCalls::first_start_s`, `last_end_s`).
    first_start_s: f64,
    last_end_s: f64,
    /// The first and last call's durations in seconds, 0.0 without calls.
    first: f64,
    last: f64,
    /// `RankCalls::total_s`.
    total_s: f64,
    /// The row's wall-clock coverage (`_covered_duration`'s term), for selected rows.
    coverage: f64,
    /// Wrapping sum and number of the GPU column's values, when any is set.
    gpu: Option<(i64, u64)>,
    exclusive_total: Option<i64>,
    /// Where the row's durations lie in the pool, for selected rows.
    pooled: Range<usize>,
}

/// Durations of a region's calls in ns, as `u32` while every one fits (halving the memory
/// the distribution's passes read), else as `i64`.
#[derive(Debug, Default)]
struct Pool {
    narrow: Vec<u32>,
    wide: Vec<i64>,
    is_wide: bool,
}

impl Pool {
    fn clear(&mut self) {
        self.narrow.clear();
        self.wide.clear();
        self.is_wide = false;
    }

    fn len(&self) -> usize {
        if self.is_wide {
            self.wide.len()
        } else {
            self.narrow.len()
        }
    }

    /// Appends `durations`; `fit` says whether every one is in `0..=u32::MAX`. The first
    /// that does not makes the pool wide.
    fn extend(&mut self, durations: &[i64], fit: bool) {
        if !self.is_wide && !fit {
            self.wide.clear();
            self.wide.extend(self.narrow.iter().map(|&d| i64::from(d)));
            self.narrow.clear();
            self.is_wide = true;
        }
        if self.is_wide {
            self.wide.extend_from_slice(durations);
        } else {
            self.narrow.extend(durations.iter().map(|&d| d as u32));
        }
    }

    /// `self` emptied and refilled with `from`'s durations at `ranges`, in that order.
    fn gather<'a>(&mut self, from: &Pool, ranges: impl Iterator<Item = &'a Range<usize>>) {
        self.clear();
        self.is_wide = from.is_wide;
        for range in ranges {
            if from.is_wide {
                self.wide.extend_from_slice(&from.wide[range.clone()]);
            } else {
                self.narrow.extend_from_slice(&from.narrow[range.clone()]);
            }
        }
    }

    /// [`distribution_ns`] over the durations.
    fn distribution(&self, row: RegionRow) -> (RegionRow, Option<f64>) {
        if self.is_wide {
            distribution_ns(&[&self.wide], None, row)
        } else {
            distribution_ns(&[&self.narrow], None, row)
        }
    }
}

/// A thread's buffers for region jobs, kept from job to job: a region's rows are decoded
/// one at a time into the same buffers and only their digests and durations kept, where
/// loading them whole put fresh starts, ends and copies of every row in new pages.
#[derive(Debug, Default)]
struct Scratch {
    times: RowTimes,
    intervals: Vec<(f64, f64)>,
    digests: Vec<RowDigest>,
    /// Index in the region's rows of each selected row, in the selection's order.
    selected: Vec<usize>,
    /// The selected rows' durations in the region's row order.
    pool: Pool,
    /// The same in the selection's order, when that differs.
    ordered: Pool,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

/// `f` with this thread's [`Scratch`].
fn with_scratch<T>(f: impl FnOnce(&mut Scratch) -> T) -> T {
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut scratch) => f(&mut scratch),
        Err(_) => f(&mut Scratch::default()),
    })
}

impl Scratch {
    /// Frees every buffer holding more than [`KEPT_BUFFER_BYTES`].
    fn release_large(&mut self) {
        self.times.release_over(KEPT_BUFFER_BYTES);
        release_over(&mut self.intervals, KEPT_BUFFER_BYTES);
        release_over(&mut self.digests, KEPT_BUFFER_BYTES);
        for pool in [&mut self.pool, &mut self.ordered] {
            release_over(&mut pool.narrow, KEPT_BUFFER_BYTES);
            release_over(&mut pool.wide, KEPT_BUFFER_BYTES);
        }
    }

    /// Reads every row of `region` (each with a span) through `reader`, digesting it and
    /// pooling the durations of the rows `ranks` selects (the region's rows as
    /// [`per_rank`](super::flat::per_rank) picks them).
    fn digest<R: ReadAt>(
        &mut self,
        region: &Region,
        ranks: Option<&[u32]>,
        reader: &EventReader<'_, R>,
    ) -> Result<()> {
        self.selected.clear();
        match ranks {
            None => self.selected.extend(0..region.ranks.len()),
            Some(list) => self.selected.extend(
                list.iter()
                    .filter_map(|&r| region.ranks.iter().position(|row| row.rank == r)),
            ),
        }
        self.pool.clear();
        self.digests.clear();
        for (i, row) in region.ranks.iter().enumerate() {
            let Some(span) = row.span else {
                return Err(crate::analysis::Error::Corrupt(format!(
                    "row {i} of {} has no events",
                    region.name
                )));
            };
            reader.read_times(span, &mut self.times)?;
            let gpu = reader.read_gpu(span)?.filter(|g| g.iter().any(|&v| v >= 0));
            let mut digest = RowDigest {
                exclusive_total: row.exclusive_total,
                gpu: gpu.map(|g| {
                    (
                        g.iter().fold(0i64, |a, &v| a.wrapping_add(v)),
                        g.len() as u64,
                    )
                }),
                ..RowDigest::default()
            };
            let selected = ranks.is_none() || self.selected.contains(&i);
            self.add_calls(&mut digest, selected);
            self.digests.push(digest);
        }
        Ok(())
    }

    /// The digest of the row in [`times`](Self::times), its durations pooled and its
    /// coverage measured when `selected`.
    fn add_calls(&mut self, digest: &mut RowDigest, selected: bool) {
        let RowTimes {
            starts, durations, ..
        } = &self.times;
        let (Some(&first), Some(&last)) = (durations.first(), durations.last()) else {
            return;
        };
        let (mut earliest, mut latest) = (i64::MAX, i64::MIN);
        let (mut sorted, mut fit) = (true, true);
        let mut previous = i64::MIN;
        for (&s, &d) in starts.iter().zip(durations) {
            earliest = earliest.min(s);
            latest = latest.max(s.wrapping_add(d));
            sorted &= previous <= s;
            previous = s;
            fit &= u32::try_from(d).is_ok();
        }
        digest.calls = durations.len() as u64;
        digest.first_start_s = seconds(earliest);
        digest.last_end_s = seconds(latest);
        digest.first = seconds(first);
        digest.last = seconds(last);
        digest.total_s = numeric::sum_of(durations, |d| d as f64) / 1e9;
        if !selected {
            return;
        }
        let ends = starts
            .iter()
            .zip(durations)
            .map(|(&s, &d)| s.wrapping_add(d));
        digest.coverage = if sorted {
            // In start order, which is all the sweep needs: merged as they come.
            let mut sweep = Coverage::default();
            for (&s, e) in starts.iter().zip(ends) {
                sweep.add(seconds(s), seconds(e));
            }
            sweep.close();
            sweep.length
        } else {
            self.intervals.clear();
            let seconds_of = |(&s, e): (&i64, i64)| (seconds(s), seconds(e));
            self.intervals
                .extend(starts.iter().zip(ends).map(seconds_of));
            merged_length(&mut self.intervals)
        };
        let at = self.pool.len();
        self.pool.extend(durations, fit);
        digest.pooled = at..self.pool.len();
    }

    /// The flat row of `region` from the digests of [`digest`](Self::digest):
    /// [`flat_row`] of the region loaded whole, number for number.
    fn row(&mut self, region: &Region, ranks: Option<&[u32]>, mode: PercentageMode) -> FlatRow {
        let all = &self.digests;
        let rows: Vec<&RowDigest> = self.selected.iter().map(|&i| &all[i]).collect();
        let gpu_rows = rows.iter().filter_map(|r| r.gpu);
        let gpu_total = py_sum(gpu_rows.clone().map(|(total, _)| seconds(total)));
        let gpu_n: u64 = gpu_rows.map(|(_, n)| n).sum();
        let (gpu_total, gpu_avg) = if gpu_n > 0 {
            (Some(gpu_total), Some(gpu_total / gpu_n as f64))
        } else {
            (None, None)
        };
        let timed = || rows.iter().copied().filter(|r| r.calls > 0);
        let first = timed()
            .reduce(|a, b| {
                if b.first_start_s < a.first_start_s {
                    b
                } else {
                    a
                }
            })
            .map(|r| r.first);
        let last = timed()
            .reduce(|a, b| if b.last_end_s > a.last_end_s { b } else { a })
            .map(|r| r.last);
        let calls: u64 = rows.iter().map(|r| r.calls).sum();
        let coverage = timed()
            .next()
            .is_some()
            .then(|| timed().fold(0.0, |total, r| total + r.coverage));
        let exclusive = (mode == PercentageMode::Exclusive).then(|| {
            py_sum(rows.iter().map(|r| match r.exclusive_total {
                Some(ns) if r.calls > 0 => seconds(ns),
                _ => 0.0,
            }))
        });
        let totals: Vec<f64> = match ranks {
            None => all.iter().map(|r| r.total_s).collect(),
            Some(_) => rows.iter().map(|r| r.total_s).collect(),
        };
        let base = RegionRow {
            name: region.name.clone(),
            num_ranks: rows.len(),
            calls,
            coverage,
            exclusive,
            gpu_total,
            gpu_avg,
            imbalance: Some(imbalance_of(&totals)),
            ..RegionRow::default()
        };
        let in_order = self.selected.windows(2).all(|w| w[0] < w[1]);
        let (row, total) = if in_order {
            self.pool.distribution(base)
        } else {
            let ranges = self.selected.iter().map(|&i| &all[i].pooled);
            self.ordered.gather(&self.pool, ranges);
            self.ordered.distribution(base)
        };
        // `flat_row` over every row of the region, selected or not.
        let earliest = |rows: &mut dyn Iterator<Item = &RowDigest>| {
            rows.map(|r| r.first_start_s).fold(f64::INFINITY, f64::min)
        };
        let start = if all.iter().any(|r| r.calls > 0) {
            let s = earliest(&mut all.iter().filter(|r| r.calls > 0));
            if s.is_finite() {
                s
            } else {
                0.0
            }
        } else {
            f64::INFINITY
        };
        FlatRow {
            row: RegionRow {
                total,
                first,
                last,
                depth: 0,
                recursive: false,
                start,
                ..row
            },
            sort_key: earliest(&mut all.iter()),
        }
    }
}

/// `region` (read to its index) with every row's calls, as a full read gives it.
pub(super) fn load_region<R: ReadAt>(
    region: &Region,
    reader: Option<&EventReader<'_, R>>,
) -> Result<Region> {
    let mut loaded = Region {
        name: region.name.clone(),
        ranks: Vec::with_capacity(region.ranks.len()),
    };
    for row in &region.ranks {
        let Some(span) = row.span else {
            loaded.ranks.push(row.clone());
            continue;
        };
        let Some(reader) = reader else {
            return Err(crate::analysis::Error::Corrupt(
                "the index points at events but the file has no /events".into(),
            ));
        };
        let mut full = reader.read(span)?.into_calls(row);
        full.span = None;
        loaded.ranks.push(full);
    }
    Ok(loaded)
}

/// The flat rows the jobs give, computed in order on this thread.
pub fn flat_rows<R: ReadAt>(
    profile: &Profile,
    sel: &Selection,
    options: RowOptions,
    reader: Option<&EventReader<'_, R>>,
) -> Result<Vec<RegionRow>> {
    let jobs = FlatJobs::plan(profile, sel, options);
    let results = (0..jobs.len())
        .map(|job| jobs.run(profile, job, reader))
        .collect::<Result<Vec<_>>>()?;
    Ok(jobs.finish(results))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::analysis::rows::region_rows;
    use crate::analysis::{load, SortKey};
    use crate::hdf5lite::reader::File;

    /// Every profile under `tests/` and `examples/` (up to 3 MB) that reads whole.
    pub(crate) fn shipped_profiles() -> Vec<Vec<u8>> {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, out);
                } else if path.extension().is_some_and(|x| x == "h5")
                    && entry.metadata().is_ok_and(|m| m.len() <= 3 << 20)
                {
                    out.push(path);
                }
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut paths = Vec::new();
        walk(&root.join("tests"), &mut paths);
        walk(&root.join("examples"), &mut paths);
        paths.sort_ord();
        let profiles: Vec<Vec<u8>> = paths
            .iter()
            .filter_map(|p| std::fs::read(p).ok())
            .filter(|bytes| {
                File::open(&bytes[..])
                    .ok()
                    .is_some_and(|f| load::read_full(&f).is_ok())
            })
            .collect();
        assert!(profiles.len() >= 30, "{}", profiles.len());
        profiles
    }

    /// Every shipped profile read whole and read for the jobs, under every sort, mode and
    /// rank set the tests compare: `check(full, index, reader, selection, options)`.
    pub(crate) fn each_case(
        flat: bool,
        mut check: impl FnMut(
            &Profile,
            &Profile,
            Option<&EventReader<'_, &[u8]>>,
            &Selection,
            RowOptions,
        ),
    ) {
        for bytes in shipped_profiles() {
            let file = File::open(&bytes[..]).unwrap();
            let full = load::read_full(&file).unwrap();
            let index = load::read_for_jobs(&file).unwrap();
            let reader = EventReader::open(&file).unwrap();
            for sort in [SortKey::Start, SortKey::P95, SortKey::Name] {
                for mode in [PercentageMode::Coverage, PercentageMode::Exclusive] {
                    for ranks in [None, Some(vec![0]), Some(vec![1, 3])] {
                        let options = RowOptions {
                            sort,
                            mode,
                            flat,
                            distribution: true,
                        };
                        check(
                            &full,
                            &index,
                            reader.as_ref(),
                            &Selection::ranks(ranks),
                            options,
                        );
                    }
                }
            }
        }
    }

    /// Rows the shipped profiles lack: durations past `u32` after narrow ones (the pool
    /// widens mid-region) and below zero, starts out of order (coverage by sorting), under
    /// selections out of the rows' order and repeated: the jobs give the full read's rows.
    #[test]
    fn jobs_equal_the_full_read_on_wide_and_unordered_rows() {
        use crate::analysis::rows::tree_jobs::synthetic::{profile, region};
        let long = 1i64 << 33;
        let ranks = [
            vec![
                region("a", &[(0, 10), (5, 3_000_000), (40, 41)]),
                region("b", &[(100, 250), (50, 60), (55, 120)]),
            ],
            vec![
                region("a", &[(10, 10 + long), (20, 25)]),
                region("b", &[(7, 9)]),
            ],
            vec![region("a", &[(30, 20), (31, 31 + long / 3)])],
        ];
        let bytes = profile(&ranks);
        let file = File::open(&bytes[..]).unwrap();
        let full = load::read_full(&file).unwrap();
        let index = load::read_for_jobs(&file).unwrap();
        let reader = EventReader::open(&file).unwrap();
        assert!(index
            .regions
            .iter()
            .flat_map(|r| &r.ranks)
            .all(|r| r.span.is_some()));
        for ranks in [
            None,
            Some(vec![2, 0]),
            Some(vec![1, 1, 0]),
            Some(vec![0, 2]),
        ] {
            for mode in [PercentageMode::Coverage, PercentageMode::Exclusive] {
                let options = RowOptions {
                    sort: SortKey::Start,
                    mode,
                    flat: true,
                    distribution: true,
                };
                let sel = Selection::ranks(ranks.clone());
                let want = region_rows(&full, &sel, options);
                let got = flat_rows(&index, &sel, options, reader.as_ref()).unwrap();
                assert_eq!(got, want, "{ranks:?} {mode:?}");
            }
        }
    }

    #[test]
    fn pool_widens_keeping_what_it_holds() {
        let mut pool = Pool::default();
        pool.extend(&[3, u32::MAX.into()], true);
        assert!(!pool.is_wide);
        pool.extend(&[-1, 1 << 40], false);
        pool.extend(&[7], true);
        assert!(pool.is_wide);
        assert_eq!(pool.wide, [3, u32::MAX.into(), -1, 1 << 40, 7]);
        let mut ordered = Pool::default();
        ordered.gather(&pool, [3..5, 0..1, 0..1].iter());
        assert_eq!(
            (ordered.is_wide, &ordered.wide[..]),
            (true, &[1 << 40, 7, 3, 3][..])
        );
        pool.clear();
        pool.extend(&[5, 6], true);
        ordered.gather(&pool, [1..2, 0..2].iter());
        assert_eq!(
            (ordered.is_wide, &ordered.narrow[..]),
            (false, &[6, 5, 6][..])
        );
    }

    #[test]
    fn scratch_gives_back_only_large_buffers() {
        let mut scratch = Scratch::default();
        scratch.pool.narrow = Vec::with_capacity(KEPT_BUFFER_BYTES / 4 + 1);
        scratch.ordered.wide = Vec::with_capacity(KEPT_BUFFER_BYTES / 8 + 1);
        scratch.pool.wide = Vec::with_capacity(KEPT_BUFFER_BYTES / 8);
        scratch.release_large();
        assert_eq!(scratch.pool.narrow.capacity(), 0);
        assert_eq!(scratch.ordered.wide.capacity(), 0);
        assert!(scratch.pool.wide.capacity() >= KEPT_BUFFER_BYTES / 8);
    }

    /// Every shipped profile: the jobs over the index give the rows of the full read.
    #[test]
    fn jobs_equal_the_full_read() {
        each_case(true, |full, index, reader, sel, options| {
            let want = region_rows(full, sel, options);
            assert_eq!(
                flat_rows(index, sel, options, reader).unwrap(),
                want,
                "{options:?}"
            );
        });
    }
}
