//! What the analysis reads of a profile for each question, from the one reader
//! ([`schema::read()`]): the whole profile (`read_h5`), the index with stored statistics
//! (`read_h5_summary`, the fast path), the index with each row's ordering statistics (what
//! exports stream from), or the index with every row's statistics recomputed from its calls
//! ([`FromEvents`], planned as independent jobs so a caller can run them on threads or in
//! order).

use crate::hdf5lite::reader::File;
use crate::io::ReadAt;
use crate::schema::Summary;
use crate::schema::{self, Depth, EventReader, Profile, ProfileLayout, RowStatistics, Span};
use crate::sort::SortSlice;

use super::error::{Error, Result};

/// Reads the whole profile, every call included (`read_h5`).
pub fn read_full<R: ReadAt>(file: &File<R>) -> Result<Profile> {
    Ok(schema::read(file, Depth::Events)?)
}

/// Reads metadata and the rank count only.
pub fn read_metadata<R: ReadAt>(file: &File<R>) -> Result<Profile> {
    Ok(schema::read(file, Depth::Metadata)?)
}

/// Reads metadata and the index's stored statistics only (`read_h5_summary`): a tiny,
/// size-independent part of the file. [`Error::NoSummary`] when the file stores none
/// (schema 1, columnar files without `summary_statistics`).
pub fn read_summary<R: ReadAt>(file: &File<R>) -> Result<Profile> {
    let head = schema::read(file, Depth::Metadata)?;
    match head.layout {
        ProfileLayout::Legacy => return Err(Error::NoSummary),
        ProfileLayout::Columnar if !head.summary_statistics => return Err(Error::NoSummary),
        _ => {}
    }
    Ok(schema::read(file, Depth::Index)?)
}

/// Reads everything but the event columns, with the statistics the analysis orders regions
/// by on every row: from `summary_statistics` when stored, else from one pass over the row's
/// calls. Exports then read each row's calls through an [`EventReader`], so memory stays
/// bounded by the largest row. Schema 1 files have no shared columns and are read whole.
pub fn read_index<R: ReadAt>(file: &File<R>) -> Result<Profile> {
    let mut profile = schema::read(file, Depth::Index)?;
    let reader = EventReader::open(file)?;
    for row in profile.regions.iter_mut().flat_map(|r| r.ranks.iter_mut()) {
        let Some(span) = row.span else { continue };
        let ordered = row
            .statistics
            .as_ref()
            .is_some_and(|s| s.start_minimum().is_some() && s.end_maximum().is_some());
        if ordered {
            continue;
        }
        row.statistics = Some(match &reader {
            Some(reader) => {
                let calls = reader.read(span)?;
                RowStatistics {
                    count: span.count,
                    ..RowStatistics::default()
                }
                .with_start_minimum(Some(calls.starts.iter().copied().min().unwrap_or(0)))
                .with_end_maximum(Some(calls.ends.iter().copied().max().unwrap_or(0)))
            }
            None if span.count == 0 => RowStatistics::default(),
            None => return Err(no_events()),
        });
    }
    Ok(profile)
}

/// A profile opened for charts: its index ([`read_index`]), the reader of its event columns
/// (`None` when the file has none to read row by row), and the run's label: its `label`
/// metadata, else `fallback_label` (the file's stem, say).
pub fn read_labelled<R: ReadAt>(
    file: &File<R>,
    fallback_label: Option<String>,
) -> Result<(Profile, Option<EventReader<'_, R>>, String)> {
    let profile = read_index(file)?;
    let reader = EventReader::open(file)?;
    let label = super::metadata::label(&profile).or(fallback_label);
    Ok((profile, reader, label.unwrap_or_default()))
}

/// The profile that [`FlatJobs`](super::rows::FlatJobs) and
/// [`TreeJobs`](super::rows::TreeJobs) compute rows over: the index with every row's first
/// start and last end ([`read_index`]); its calls are not loaded. A report of those rows
/// says so with [`FileReport::rows_from_calls`](super::report::FileReport::rows_from_calls).
///
/// The rows' spans get the full read's check (within the event columns, not overlapping),
/// so a file the full read rejects for them is rejected here too.
pub fn read_for_jobs<R: ReadAt>(file: &File<R>) -> Result<Profile> {
    let profile = read_index(file)?;
    // The check runs over the rows in file order, as the full read's does: the order
    // decides which of two rows at one offset may be empty.
    schema::read(file, Depth::Spans)?;
    Ok(profile)
}

fn no_events() -> Error {
    Error::Corrupt("the index points at events but the file has no /events".into())
}

/// `--from-events`: every row's statistics computed from its calls rather than read from
/// `summary_statistics`. [`plan`](FromEvents::plan) takes a profile read to its index and
/// returns one job per row whose calls lie in the event columns, largest first; each job
/// streams its row in blocks through its own positional reads and is independent of the
/// others, so the CLI runs them on threads and a single-threaded caller (WebAssembly) runs
/// [`run_all`](FromEvents::run_all). Memory stays bounded by a few blocks per job.
#[derive(Debug, Clone, PartialEq)]
pub struct FromEvents {
    /// (region index, row index, span) of each job.
    jobs: Vec<(usize, usize, Span)>,
}

impl FromEvents {
    /// Plans the jobs for `profile` (read to [`Depth::Index`]). Rows whose calls are
    /// already loaded (schema 1) get their statistics here.
    pub fn plan(profile: &mut Profile) -> FromEvents {
        let mut jobs = Vec::new();
        for (i, region) in profile.regions.iter_mut().enumerate() {
            for (j, row) in region.ranks.iter_mut().enumerate() {
                match row.span {
                    Some(span) => jobs.push((i, j, span)),
                    None if row.statistics.is_none() => {
                        let mut summary = Summary::of(&row.starts, &row.ends);
                        for &g in row.gpu.iter().flatten().filter(|&&g| g >= 0) {
                            summary.gpu_count += 1;
                            summary.gpu_total = summary.gpu_total.wrapping_add(g);
                        }
                        row.statistics = Some(RowStatistics::computed(
                            row.calls(),
                            &summary,
                            row.exclusive_total,
                        ));
                    }
                    None => {}
                }
            }
        }
        jobs.sort_stable_by_key(|j| std::cmp::Reverse(j.2.count));
        FromEvents { jobs }
    }

    /// Number of jobs.
    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    /// Whether there is nothing to compute.
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// Job `job`: the statistics of its row, from its calls.
    pub fn run<R: ReadAt>(&self, job: usize, reader: &EventReader<'_, R>) -> Result<Summary> {
        let (_, _, span) = self.jobs.get(job).copied().unwrap_or_default();
        Ok(reader.summary(span)?)
    }

    /// Stores the result of job `job` in its row.
    pub fn apply(&self, profile: &mut Profile, job: usize, summary: &Summary) {
        let Some(&(i, j, span)) = self.jobs.get(job) else {
            return;
        };
        if let Some(row) = profile.regions.get_mut(i).and_then(|r| r.ranks.get_mut(j)) {
            row.statistics = Some(RowStatistics::computed(
                span.count,
                summary,
                row.exclusive_total,
            ));
        }
    }

    /// Checks the jobs can do without event columns (a file that has none): only when no
    /// row claims calls.
    pub fn without_events(&self) -> Result<()> {
        if self.jobs.iter().any(|j| j.2.count > 0) {
            return Err(no_events());
        }
        Ok(())
    }

    /// Runs every job in order and stores the results.
    pub fn run_all<R: ReadAt>(
        &self,
        profile: &mut Profile,
        reader: Option<&EventReader<'_, R>>,
    ) -> Result<()> {
        let Some(reader) = reader else {
            return self.without_events();
        };
        for job in 0..self.len() {
            let summary = self.run(job, reader)?;
            self.apply(profile, job, &summary);
        }
        Ok(())
    }
}

/// The profile's index with every row's statistics computed from its calls, in order on
/// this thread (see [`FromEvents`] to spread the rows over threads).
pub fn read_from_events<R: ReadAt>(file: &File<R>) -> Result<Profile> {
    let mut profile = schema::read(file, Depth::Index)?;
    let plan = FromEvents::plan(&mut profile);
    let reader = EventReader::open(file)?;
    plan.run_all(&mut profile, reader.as_ref())?;
    Ok(profile)
}
