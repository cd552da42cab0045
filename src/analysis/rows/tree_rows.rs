//! The ranks' [`RankTree`]s folded into the call tree's rows: [`TreeRows`] takes them in
//! rank order and keeps, per call path, what Python folds left to right (the own times,
//! per-rank totals, coverage, bounds) and the durations in rank order; then
//! [`TreePaths`] computes each path's row — numpy's mean, std and percentiles over the
//! path's durations, in rank order — as one independent job per path, so that last pass
//! runs on as many threads as the caller has too.

use crate::sort::SortSlice;
use std::collections::HashMap;

use super::flat::{distribution_ns, py_sum};
use super::flat_jobs::load_region;
use super::path_stats::{Bounds, Durations, Extremes, Parts};
use super::rank_path::RankTree;
use super::tree_jobs::TreeJobs;
use super::{finish_rows, flat_row, RegionRow, RowOptions};
use crate::analysis::error::Result;
use crate::analysis::numeric::{self, seconds};
use crate::analysis::{PercentageMode, Selection};
use crate::io::ReadAt;
use crate::schema::{EventReader, Profile};

/// The call tree's rows folded from the ranks' results in rank order.
pub struct TreeRows {
    next: usize,
    pending: HashMap<usize, RankTree>,
    nesting: bool,
    /// The region order assumed from the index differs from the calls'.
    stale: bool,
    paths: Vec<PathRow>,
    index: HashMap<(u32, u32), u32>,
}

/// One call path pooled over the ranks so far.
#[derive(Debug)]
struct PathRow {
    /// Selected regions, outermost first.
    path: Vec<u32>,
    calls: u64,
    /// Every call's duration, in rank order: each rank's durations as the job gave them
    /// (appending them to one vector copied and faulted in most of them twice).
    durations: Vec<Durations>,
    extremes: Extremes,
    exclusive: Option<f64>,
    gpu: Vec<i64>,
    coverage: f64,
    /// Per rank with calls, in pooling order.
    totals: Vec<f64>,
    bounds: Bounds,
}

impl Default for TreeRows {
    fn default() -> Self {
        Self::new()
    }
}

impl TreeRows {
    /// Nothing folded yet.
    pub fn new() -> Self {
        TreeRows {
            next: 0,
            pending: HashMap::new(),
            nesting: false,
            stale: false,
            paths: Vec::new(),
            index: HashMap::new(),
        }
    }

    /// Adds the result of job `job`; results are folded in job order, so one that arrives
    /// early waits for those before it.
    pub fn add(&mut self, jobs: &TreeJobs<'_>, job: usize, tree: RankTree) {
        self.pending.insert(job, tree);
        while let Some(tree) = self.pending.remove(&self.next) {
            self.next += 1;
            self.fold(jobs, tree);
        }
    }

    fn fold(&mut self, jobs: &TreeJobs<'_>, tree: RankTree) {
        if self.nesting || tree.nesting {
            self.nesting = true;
            self.paths.clear();
            return;
        }
        for &(region, k, first) in &tree.first_starts {
            let assumed = jobs.row(region, k).first_start_s();
            if assumed.to_bits() != first.to_bits() {
                self.stale = true;
            }
        }
        let mut global: Vec<u32> = Vec::with_capacity(tree.paths.len());
        // Own times, summed once the rank's paths are filed.
        let mut own_times: Vec<Durations> = Vec::with_capacity(tree.paths.len());
        for p in tree.paths {
            let parent = p.parent.and_then(|l| global.get(l as usize).copied());
            let key = (parent.map_or(u32::MAX, |g| g), p.region);
            let paths = &mut self.paths;
            let g = *self.index.entry(key).or_insert_with(|| {
                let mut path = parent.map_or_else(Vec::new, |g| paths[g as usize].path.clone());
                path.push(p.region);
                paths.push(PathRow {
                    path,
                    calls: 0,
                    durations: Vec::new(),
                    extremes: Extremes::default(),
                    exclusive: None,
                    gpu: Vec::new(),
                    coverage: 0.0,
                    totals: Vec::new(),
                    bounds: Bounds::default(),
                });
                (paths.len() - 1) as u32
            });
            global.push(g);
            let row = &mut self.paths[g as usize];
            row.calls += p.calls() as u64;
            row.durations.push(p.durations);
            row.extremes.merge(&p.extremes);
            own_times.push(p.exclusive);
            row.gpu.extend_from_slice(&p.gpu);
            row.coverage += p.coverage.length;
            row.totals.push(p.total);
            row.bounds.merge(&p.bounds);
        }
        // Python's sum, left to right over the ranks' own times in order: the sums of a
        // rank's paths side by side, where each path is filed once (it always is: a path
        // is its parent's and region's).
        let mut distinct = global.clone();
        distinct.sort_ord_unstable();
        distinct.dedup();
        if distinct.len() == global.len() {
            let mut sums: Vec<Option<f64>> = global
                .iter()
                .map(|&g| self.paths[g as usize].exclusive)
                .collect();
            let own: Vec<&Durations> = own_times.iter().collect();
            Durations::sum_seconds_after_each(&own, &mut sums);
            for (&g, sum) in global.iter().zip(sums) {
                self.paths[g as usize].exclusive = sum;
            }
        } else {
            for (&g, own) in global.iter().zip(&own_times) {
                let row = &mut self.paths[g as usize];
                row.exclusive = own.sum_seconds_after(row.exclusive);
            }
        }
        for own in own_times {
            jobs.recycle(own);
        }
    }

    /// The per-path jobs that give the table, once every job's result was added; `None`
    /// when the full read must give it instead (the calls do not nest, so the reference
    /// shows flat rows; or the index's statistics order regions differently from the
    /// calls).
    pub fn paths<'j, 'p>(self, jobs: &'j TreeJobs<'p>) -> Option<TreePaths<'j, 'p>> {
        if self.nesting || self.stale || self.next != jobs.len() {
            return None;
        }
        Some(TreePaths {
            jobs,
            paths: self.paths,
        })
    }

    /// The table, computed on this thread: [`paths`](TreeRows::paths), each path's row, and
    /// [`TreePaths::finish`].
    pub fn finish<R: ReadAt>(
        self,
        jobs: &TreeJobs<'_>,
        reader: Option<&EventReader<'_, R>>,
    ) -> Result<Option<Vec<RegionRow>>> {
        let Some(paths) = self.paths(jobs) else {
            return Ok(None);
        };
        let rows = (0..paths.len()).map(|i| paths.run(i)).collect();
        paths.finish(rows, reader).map(Some)
    }
}

/// The call tree's paths, pooled over every rank: [`run`](TreePaths::run) gives path `i`'s
/// row on any thread, in any order; [`finish`](TreePaths::finish) takes the rows in path
/// order and gives the table.
pub struct TreePaths<'j, 'p> {
    jobs: &'j TreeJobs<'p>,
    paths: Vec<PathRow>,
}

impl TreePaths<'_, '_> {
    /// Number of paths.
    pub fn len(&self) -> usize {
        self.paths.len()
    }

    /// Whether the tree has no path.
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// The row of path `i` (a default row for a path that does not exist).
    pub fn run(&self, i: usize) -> RegionRow {
        let Some(p) = self.paths.get(i) else {
            return RegionRow::default();
        };
        let profile = self.jobs.profile();
        let names: Vec<String> = p
            .path
            .iter()
            .map(|&r| profile.regions[self.jobs.region_index(r)].name.clone())
            .collect();
        let gpu: Vec<f64> = p.gpu.iter().map(|&g| seconds(g)).collect();
        let imbalance = if p.totals.len() < 2 {
            0.0
        } else {
            let max = p.totals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            (max / numeric::mean(&p.totals).unwrap_or(f64::NAN) - 1.0) * 100.0
        };
        let row = RegionRow {
            name: names.last().cloned().unwrap_or_default(),
            depth: names.len().saturating_sub(1),
            call_path: Some(names),
            recursive: p.bounds.recursive,
            num_ranks: p.totals.len(),
            calls: p.calls,
            total: Some(py_sum(p.totals.iter().copied())),
            gpu_total: (!gpu.is_empty()).then(|| py_sum(gpu.iter().copied())),
            gpu_avg: numeric::mean(&gpu),
            coverage: Some(p.coverage),
            exclusive: Some(p.exclusive.unwrap_or(0.0)),
            first: p.bounds.first.map(|f| f.1),
            last: p.bounds.last.map(|l| l.1),
            imbalance: Some(imbalance),
            start: p.bounds.start,
            parent_coverage: None,
            ..RegionRow::default()
        };
        if !self.jobs.options().distribution {
            return row;
        }
        match Durations::parts(&p.durations) {
            Parts::Narrow(parts) => distribution_ns(&parts, p.extremes.get(), row).0,
            Parts::Wide(all) => distribution_ns(&[&all], p.extremes.get(), row).0,
        }
    }

    /// The table from every path's row, in path order, with the flat rows of the selected
    /// regions no path holds (read through `reader`).
    pub fn finish<R: ReadAt>(
        self,
        rows: Vec<RegionRow>,
        reader: Option<&EventReader<'_, R>>,
    ) -> Result<Vec<RegionRow>> {
        let jobs = self.jobs;
        drop(self.paths);
        let profile = jobs.profile();
        let regions: Vec<&str> = (0..jobs.regions())
            .map(|r| profile.regions[jobs.region_index(r as u32)].name.as_str())
            .collect();
        let exclusive = match jobs.options().mode {
            PercentageMode::Exclusive => Some(Ok(Default::default())),
            PercentageMode::Coverage => None,
        };
        let ranks = jobs.selection().ranks.as_deref();
        let mut failed = None;
        let table = finish_rows(rows, &regions, jobs.options().sort, |i| {
            let region = &profile.regions[jobs.region_index(i as u32)];
            match load_region(region, reader) {
                Ok(loaded) => flat_row(&loaded, ranks, exclusive.as_ref()),
                Err(e) => {
                    failed = Some(e);
                    RegionRow::default()
                }
            }
        });
        match failed {
            Some(e) => Err(e),
            None => Ok(table),
        }
    }
}

/// The call tree's rows the jobs give, computed in order on this thread; `None` where
/// [`TreeJobs::plan`] or [`TreeRows::paths`] say the full read must give them.
pub fn tree_rows<R: ReadAt>(
    profile: &Profile,
    sel: &Selection,
    options: RowOptions,
    reader: Option<&EventReader<'_, R>>,
) -> Result<Option<Vec<RegionRow>>> {
    let Some(jobs) = TreeJobs::plan(profile, sel, options) else {
        return Ok(None);
    };
    let mut rows = TreeRows::new();
    for job in 0..jobs.len() {
        let tree = jobs.run(job, reader)?;
        rows.add(&jobs, job, tree);
    }
    rows.finish(&jobs, reader)
}
