//! Many runs of one code, side by side: the runs table of `sp runs` (one row per profile:
//! its label, host, start, ranks, nodes, threads, cores, wall time and change against a
//! baseline, and a metric of chosen regions), repeated runs pooled by a metadata key, and
//! the statistics behind the noise-aware `sp check` ([`stats`]).
//!
//! Everything is computed from each profile's index (a summary read,
//! [`load::read_summary`](super::load::read_summary)): a [`Run`] keeps only the flat
//! region rows and the few metadata fields the table shows, so thousands of profiles fit
//! in memory. The browser page builds the same [`Run`]s from the bytes it holds.
//!
//! ```
//! use sp::analysis::runs::{Run, RunsOptions, RunsTable};
//! use sp::analysis::Selection;
//! # fn demo(profiles: Vec<(String, sp::schema::Profile)>) {
//! let runs: Vec<Run> = profiles
//!     .iter()
//!     .map(|(file, p)| Run::of(file, p, &Selection::all()))
//!     .collect();
//! let table = RunsTable::new(&runs, &RunsOptions::default());
//! # }
//! ```

pub mod changes;
mod output;
pub mod records;
pub mod stats;
mod when;

use super::compare::Metric;
use super::error::{Error, Result};
use super::load;
use super::metadata::{self, PyValue};
use super::overview::time_span;
use super::report::Reading;
use super::rows::{region_rows, RegionRow, RowOptions};
use super::selection::Selection;
use crate::hdf5lite::reader::File;
use crate::io::ReadAt;
use crate::schema::Profile;

pub use output::{cells, changed_lines, write_runs};
pub use stats::Pooled;

/// What the runs table needs of one profile.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// The file as the user named it.
    pub file: String,
    /// The run's label, else the file's stem (the reference's `display_label`).
    pub label: String,
    pub host: Option<String>,
    /// The recorded `timestamp` in minutes, as the reference's runs table shows it.
    pub start: Option<String>,
    pub ranks: u64,
    /// `num_nodes`, else 1 for a single-rank run (the reference's `num_nodes`).
    pub nodes: Option<u64>,
    /// `omp_num_threads`.
    pub threads: Option<u64>,
    /// `ranks × threads`.
    pub cores: Option<u64>,
    /// Seconds from the earliest region entry to the latest exit.
    pub wall: f64,
    /// Every metadata field as Python prints it, for `--group-by` and metadata axes.
    pub metadata: Vec<(String, String)>,
    /// The flat region rows of the selection, in the profile's order.
    pub rows: Vec<RegionRow>,
}

impl Run {
    /// The run of `profile`, read from `file`, its rows pooled over `selection`.
    pub fn of(file: &str, profile: &Profile, selection: &Selection) -> Run {
        let int = |key: &str| match profile.meta(key).map(PyValue::of) {
            Some(PyValue::Int(i)) => u64::try_from(i).ok(),
            Some(PyValue::Float(f)) if f >= 0.0 && f == f.trunc() => Some(f as u64),
            Some(PyValue::Str(s)) => s.trim().parse().ok(),
            _ => None,
        };
        let text = |key: &str| {
            profile
                .meta(key)
                .map(|v| PyValue::of(v).text())
                .filter(|t| !t.is_empty())
        };
        let ranks = profile.num_ranks;
        let threads = int("omp_num_threads");
        Run {
            file: file.to_string(),
            label: metadata::label(profile).unwrap_or_else(|| stem(file)),
            host: text("hostname"),
            start: text("timestamp").map(|t| when::minutes(&t)),
            ranks,
            nodes: int("num_nodes").or((ranks == 1).then_some(1)),
            threads,
            cores: threads.map(|t| t.saturating_mul(ranks)),
            wall: time_span(profile),
            metadata: profile
                .metadata
                .iter()
                .map(|(k, v)| (k.clone(), PyValue::of(v).text()))
                .collect(),
            // Flat rows (one per region, no call tree), as the comparisons take them.
            rows: region_rows(
                profile,
                selection,
                RowOptions {
                    flat: true,
                    // Own time too, for "what changed".
                    mode: super::rows::PercentageMode::Exclusive,
                    ..RowOptions::default()
                },
            ),
        }
    }

    /// The row of region `name`.
    pub fn row(&self, name: &str) -> Option<&RegionRow> {
        self.rows.iter().find(|r| r.name == name)
    }

    /// The metadata field `key` as text.
    pub fn meta(&self, key: &str) -> Option<&str> {
        self.metadata
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Reads the run of `file` (named `name`) as `metric` needs: the index's stored
/// statistics, or every call for a percentile or a file that stores no statistics.
pub fn read<R: ReadAt>(
    name: &str,
    file: &File<R>,
    selection: &Selection,
    metric: Metric,
) -> Result<Run> {
    let profile = match metric.reading() {
        Reading::Full => load::read_full(file)?,
        // The stored statistics alone, when the file has them: the index's source strings
        // and spans are no part of a run.
        _ => match crate::schema::read::read_statistics(file)? {
            Some(profile) => profile,
            None => match load::read_summary(file) {
                Err(Error::NoSummary) => load::read_full(file)?,
                other => other?,
            },
        },
    };
    Ok(Run::of(name, &profile, selection))
}

/// The stem of a file name (`runs/a.h5` → `a`).
pub fn stem(file: &str) -> String {
    let name = file.rsplit(['/', '\\']).next().unwrap_or(file);
    match name.rfind('.') {
        Some(dot) if dot > 0 => name[..dot].to_string(),
        _ => name.to_string(),
    }
}

/// What the runs table shows.
#[derive(Debug, Clone, Default)]
pub struct RunsOptions {
    /// Index of the baseline run (the first by default).
    pub baseline: usize,
    /// Regions given a column each (names or patterns, as `--include` takes them).
    pub regions: Option<Selection>,
    pub metric: Metric,
    /// Pool runs that share this metadata field.
    pub group_by: Option<String>,
}

/// One row of the table: a run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRow<'a> {
    pub run: &'a Run,
    /// Wall-time change against the baseline, percent (`None` for the baseline itself or
    /// a run without timing).
    pub wall_pct: Option<f64>,
    /// The metric of each column's region (`None` where the run lacks it).
    pub values: Vec<Option<f64>>,
}

/// Runs pooled by a metadata value.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// The value of the key (`None`: runs that did not record it).
    pub value: Option<String>,
    pub files: Vec<String>,
    pub wall: Pooled,
    /// Each column's region pooled over the group's runs that have it.
    pub values: Vec<Option<Pooled>>,
}

/// The runs table (`sp runs`).
#[derive(Debug, Clone, PartialEq)]
pub struct RunsTable<'a> {
    pub metric: Metric,
    pub baseline: usize,
    /// The regions given a column, in first-appearance order over the runs.
    pub regions: Vec<String>,
    pub rows: Vec<RunRow<'a>>,
    /// The key pooled by and its groups, in first-appearance order.
    pub group_by: Option<String>,
    pub groups: Vec<Group>,
}

impl<'a> RunsTable<'a> {
    /// The table of `runs` (in the order given).
    pub fn new(runs: &'a [Run], options: &RunsOptions) -> RunsTable<'a> {
        let baseline = options.baseline.min(runs.len().saturating_sub(1));
        let mut regions: Vec<String> = Vec::new();
        if let Some(selection) = &options.regions {
            let mut seen = std::collections::HashSet::new();
            for row in runs.iter().flat_map(|r| &r.rows) {
                if selection.keeps(&row.name) && seen.insert(row.name.as_str()) {
                    regions.push(row.name.clone());
                }
            }
        }
        let base_wall = runs.get(baseline).map_or(0.0, |r| r.wall);
        let value = |run: &Run, name: &str| run.row(name).and_then(|r| options.metric.of(r));
        let rows = runs
            .iter()
            .enumerate()
            .map(|(i, run)| RunRow {
                run,
                wall_pct: (i != baseline && base_wall > 0.0 && run.wall > 0.0)
                    .then(|| 100.0 * (run.wall - base_wall) / base_wall),
                values: regions.iter().map(|n| value(run, n)).collect(),
            })
            .collect();
        let groups = match &options.group_by {
            None => Vec::new(),
            Some(key) => {
                let mut order: Vec<Option<String>> = Vec::new();
                for run in runs {
                    let v = run.meta(key).map(str::to_string);
                    if !order.contains(&v) {
                        order.push(v);
                    }
                }
                order
                    .into_iter()
                    .map(|v| {
                        let members: Vec<&Run> = runs
                            .iter()
                            .filter(|r| r.meta(key) == v.as_deref())
                            .collect();
                        let walls: Vec<f64> = members.iter().map(|r| r.wall).collect();
                        Group {
                            files: members.iter().map(|r| r.file.clone()).collect(),
                            wall: Pooled::of(&walls).unwrap_or(Pooled {
                                n: 0,
                                mean: 0.0,
                                median: 0.0,
                                min: 0.0,
                                max: 0.0,
                                cv: None,
                            }),
                            values: regions
                                .iter()
                                .map(|n| {
                                    let vs: Vec<f64> =
                                        members.iter().filter_map(|r| value(r, n)).collect();
                                    Pooled::of(&vs)
                                })
                                .collect(),
                            value: v,
                        }
                    })
                    .collect()
            }
        };
        RunsTable {
            metric: options.metric,
            baseline,
            regions,
            rows,
            group_by: options.group_by.clone(),
            groups,
        }
    }

    /// Whether any run recorded more than one thread, or the runs differ in threads (the
    /// reference shows the threads column then).
    pub fn show_threads(&self) -> bool {
        let threads: Vec<Option<u64>> = self.rows.iter().map(|r| r.run.threads).collect();
        threads.iter().any(|t| t.unwrap_or(1) > 1) || threads.windows(2).any(|w| w[0] != w[1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The run from the stored statistics alone ([`read`]) is the run of the whole index
    /// read, on profiles of 1 to 4 ranks and of another maker.
    #[test]
    fn the_statistics_alone_give_the_index_run() {
        for name in [
            "tests/golden/scaling/strong/ranks1.h5",
            "tests/golden/scaling/strong/ranks4.h5",
            "tests/golden/scaling/weak/ranks4.h5",
            "tests/golden/h5_c_schema2/expected/profiling_data.h5",
        ] {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
            let file = File::open(std::fs::read(path).unwrap()).unwrap();
            assert!(crate::schema::read::read_statistics(&file)
                .unwrap()
                .is_some());
            let lean = read(name, &file, &Selection::all(), Metric::Total).unwrap();
            let index = Run::of(name, &load::read_summary(&file).unwrap(), &Selection::all());
            assert!(lean.rows.len() > 1 && lean.ranks >= 1, "{name}");
            assert_eq!(lean, index, "{name}");
        }
    }

    #[test]
    fn stems() {
        assert_eq!(stem("runs/a.h5"), "a");
        assert_eq!(stem("b"), "b");
        assert_eq!(stem(".hidden"), ".hidden");
    }
}
