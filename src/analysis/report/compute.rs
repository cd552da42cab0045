//! A report's rows, computed the fastest way the file allows: the library's jobs over the
//! index where the rows need every call (the flat rows with percentiles, [`FlatJobs`]; the
//! call tree, [`TreeJobs`]; `--flat --from-events`, [`FromEvents`]), else a read to the
//! depth the options need. The jobs run on a [`Runner`]: the CLI's runs them on every core,
//! [`InOrder`] one after another (WebAssembly, tests). The rows are the same either way.

use super::{Format, Reading, ReportOptions};
use crate::analysis::error::Result;
use crate::analysis::rows::{FlatJobs, TreeJobs, TreeRows};
use crate::analysis::{load, FromEvents, RegionRow, RowOptions, Selection};
use crate::hdf5lite::reader::File;
use crate::io::ReadAt;
use crate::schema::{self, Depth, EventReader, Profile};
use crate::sort::SortSlice;

/// Runs jobs `0..jobs`, in any order or at once, and hands each result to `done` on the
/// caller's thread as it arrives; the first error stops the work and is returned.
pub trait Runner {
    fn run<T: Send>(
        &self,
        jobs: usize,
        run: impl Fn(usize) -> Result<T> + Sync,
        done: impl FnMut(usize, T),
    ) -> Result<()>;
}

/// Runs the jobs one after another, in order, on the caller's thread.
#[derive(Debug, Clone, Copy, Default)]
pub struct InOrder;

impl Runner for InOrder {
    fn run<T: Send>(
        &self,
        jobs: usize,
        run: impl Fn(usize) -> Result<T> + Sync,
        mut done: impl FnMut(usize, T),
    ) -> Result<()> {
        for job in 0..jobs {
            done(job, run(job)?);
        }
        Ok(())
    }
}

/// The rows of one file of a report.
#[derive(Debug, Clone)]
pub struct FileRows {
    /// The profile as the report shows it.
    pub profile: Profile,
    pub rows: Vec<RegionRow>,
    /// Whether the rows came from every call ([`FileReport::rows_from_calls`](super::FileReport)).
    pub from_calls: bool,
}

/// The profile in `file` and its rows for a report in `format` with `options`. Rows that
/// need every call are computed by the library's jobs on `runner`, reading the calls row
/// by row; a file the jobs cannot read (no event columns, or any error) is read whole, as
/// the reference reads it, so its rows or its error are the full read's.
pub fn file_rows<R: ReadAt + Sync>(
    file: &File<R>,
    options: &ReportOptions,
    format: Format,
    selection: &Selection,
    runner: &impl Runner,
) -> Result<FileRows> {
    let reading = options.reading();
    if reading == Reading::Full {
        if let Ok(Some((profile, rows))) =
            streamed_rows(file, options.row_options(format), selection, runner)
        {
            return Ok(FileRows {
                profile,
                rows,
                from_calls: true,
            });
        }
    }
    let profile = match reading {
        Reading::FromEvents => read_from_events(file, runner),
        other => other.read(file),
    }?;
    let rows = options.rows(&profile, selection);
    let from_calls = profile.has_events();
    Ok(FileRows {
        profile,
        rows,
        from_calls,
    })
}

/// The rows of a profile already read whole (a JSON profile, which is parsed whole as the
/// reference parses it), as [`file_rows`] gives them for an HDF5 file: from the calls, from
/// each row's statistics for the flat index-only reading, or none with `metadata_only`.
pub fn profile_rows(
    mut profile: Profile,
    options: &ReportOptions,
    selection: &Selection,
) -> FileRows {
    match options.reading() {
        Reading::Metadata => {
            profile.regions.clear();
            profile.region_names.clear();
            profile.depth = Depth::Metadata;
        }
        // What the index read gives: each row's statistics, not its calls.
        Reading::Summary | Reading::FromEvents if profile.has_events() => {
            FromEvents::plan(&mut profile);
            for row in profile.regions.iter_mut().flat_map(|r| r.ranks.iter_mut()) {
                (row.starts, row.ends, row.gpu, row.lanes) = Default::default();
            }
            profile.depth = Depth::Index;
        }
        _ => {}
    }
    let rows = options.rows(&profile, selection);
    let from_calls = profile.has_events();
    FileRows {
        profile,
        rows,
        from_calls,
    }
}

/// The rows by the library's jobs over the index: the flat rows with percentiles
/// ([`FlatJobs`], one per region) or the call tree ([`TreeJobs`], one per rank); `None`
/// without event columns or where the library leaves the rows to the full read.
fn streamed_rows<R: ReadAt + Sync>(
    file: &File<R>,
    options: RowOptions,
    selection: &Selection,
    runner: &impl Runner,
) -> Result<Option<(Profile, Vec<RegionRow>)>> {
    let profile = load::read_for_jobs(file)?;
    let Some(reader) = EventReader::open(file)? else {
        return Ok(None);
    };
    let rows = if options.flat {
        let jobs = FlatJobs::plan(&profile, selection, options);
        let mut results = Vec::with_capacity(jobs.len());
        runner.run(
            jobs.len(),
            |job| jobs.run(&profile, job, Some(&reader)),
            |job, row| results.push((job, row)),
        )?;
        results.sort_stable_by_key(|r| r.0);
        Some(jobs.finish(results.into_iter().map(|r| r.1).collect()))
    } else {
        tree_rows(&profile, &reader, options, selection, runner)?
    };
    Ok(rows.map(|rows| (profile, rows)))
}

/// The ranks' trees, folded in rank order as they finish; then each call path's row.
fn tree_rows<R: ReadAt + Sync>(
    profile: &Profile,
    reader: &EventReader<'_, R>,
    options: RowOptions,
    selection: &Selection,
    runner: &impl Runner,
) -> Result<Option<Vec<RegionRow>>> {
    let Some(jobs) = TreeJobs::plan(profile, selection, options) else {
        return Ok(None);
    };
    let mut rows = TreeRows::new();
    runner.run(
        jobs.len(),
        |job| jobs.run(job, Some(reader)),
        |job, tree| rows.add(&jobs, job, tree),
    )?;
    let Some(paths) = rows.paths(&jobs) else {
        return Ok(None);
    };
    let mut path_rows = vec![RegionRow::default(); paths.len()];
    runner.run(
        paths.len(),
        |i| Ok(paths.run(i)),
        |i, row| path_rows[i] = row,
    )?;
    paths.finish(path_rows, Some(reader)).map(Some)
}

/// `--flat --from-events`: the [`FromEvents`] jobs, largest row first, each streaming its
/// row by its own positional reads.
fn read_from_events<R: ReadAt + Sync>(file: &File<R>, runner: &impl Runner) -> Result<Profile> {
    let mut profile = schema::read(file, Depth::Index)?;
    let plan = FromEvents::plan(&mut profile);
    let Some(reader) = EventReader::open(file)? else {
        plan.without_events()?;
        return Ok(profile);
    };
    let mut results = Vec::with_capacity(plan.len());
    runner.run(
        plan.len(),
        |job| plan.run(job, &reader),
        |job, summary| results.push((job, summary)),
    )?;
    for (job, summary) in results {
        plan.apply(&mut profile, job, &summary);
    }
    Ok(profile)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The jobs' rows equal the full read's, for the call tree, the flat rows with
    /// percentiles and `--flat --from-events`.
    #[test]
    fn jobs_give_the_rows_of_a_full_read() {
        let bytes = include_bytes!("../../../tests/golden/synthetic/expected/golden.h5");
        let file = File::open(&bytes[..]).unwrap();
        let all = Selection::all();
        for options in [
            ReportOptions::default(),
            ReportOptions {
                flat: true,
                columns: Some(vec![
                    super::super::Column::Region,
                    super::super::Column::P95,
                ]),
                ..ReportOptions::default()
            },
            ReportOptions {
                flat: true,
                from_events: true,
                ..ReportOptions::default()
            },
        ] {
            let got = file_rows(&file, &options, Format::Json, &all, &InOrder).unwrap();
            let profile = options.reading().read(&file).unwrap();
            assert_eq!(got.rows, options.rows(&profile, &all), "{options:?}");
            assert_eq!(got.from_calls, !options.from_events, "{options:?}");
            assert!(!got.rows.is_empty());
        }
    }
}
