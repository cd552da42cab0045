//! `sp inspect`: the shell over [`sp::analysis::report`] — arguments, files, the terminal
//! width, and the threads that run the library's jobs (`--flat --from-events` rows, flat
//! rows with percentiles, the call tree).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use clap::{Args, ValueEnum};
use sp::analysis::report::{Column, FileReport, Format, Reading, ReportOptions, ReportWriter};
use sp::analysis::rows::{FlatJobs, TreeJobs, TreeRows};
use sp::analysis::{load, FromEvents, PercentageMode, RegionRow, RowOptions, Selection, SortKey};
use sp::hdf5lite::reader::File;
use sp::io::ReadAt;
use sp::schema::{self, Depth, EventReader, Profile};
use sp::text::Show;

use super::local_file::LocalFile;
use super::selection::RegionFilter;
use super::Failure;

/// Print the metadata and region statistics of profiles
///
/// Examples:
///   sp inspect profiling_data.h5
///   sp inspect run.h5 --ranks 0-3 --sort total --columns region calls total p95 imbalance
///   sp inspect run.h5 --flat --format json    # index-only fast path, no event columns
///   sp inspect run.h5 --flat --from-events    # the same rows, every event decoded
///
/// JSON (--format json) is one document: {"files": [{"file", "schema", "layout",
/// "num_ranks", "metadata": {key: value}, "regions": [row, …]}]}. Each row carries name,
/// call_path (list of names, outermost first; null for a flat row), depth, recursive,
/// num_ranks, calls, and the statistics in seconds at full precision — total, coverage,
/// exclusive, avg, min, max, first, last, std, p50, p95, p99, imbalance (percent),
/// gpu_total, gpu_avg, start, parent_coverage, percent (of the scope_profiler.session row,
/// as --percentage-mode says) — null where the reference has None. CSV (--format csv) has
/// one line per row with the same keys as columns (call_path joined with " > ").
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct Opts {
    /// Profiles to inspect.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    filter: RegionFilter,
    /// Order regions by this column.
    #[arg(long, default_value = "start", value_parser = sort_names())]
    sort: String,
    /// Table columns to print (default: region percent total).
    #[arg(long, num_args = 1.., value_parser = column_names())]
    columns: Option<Vec<String>>,
    /// How % session is computed.
    #[arg(long, value_enum, default_value_t = Mode::Coverage)]
    percentage_mode: Mode,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    format: OutputFormat,
    /// One flat row per region from the stored summary statistics only: reads the index,
    /// never the event columns (no nesting; percentiles need --columns p50/p95/p99, which
    /// read the events).
    #[arg(long)]
    flat: bool,
    /// With --flat: compute each row's statistics from its calls (every event decoded, in
    /// parallel over rows) instead of reading the stored summary statistics.
    #[arg(long, requires = "flat")]
    from_events: bool,
    /// Print only the metadata.
    #[arg(long, conflicts_with = "regions_only")]
    metadata_only: bool,
    /// Print only the region statistics.
    #[arg(long)]
    regions_only: bool,
    /// Print long metadata values in full.
    #[arg(long)]
    full: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Mode {
    Coverage,
    Exclusive,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum OutputFormat {
    Table,
    Json,
    Csv,
}

fn sort_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(SortKey::ALL.map(|(_, n)| n))
}

fn column_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(Column::ALL.map(|(_, n, _)| n))
}

impl Opts {
    /// The library's report options for these arguments, fitted to `width` columns.
    fn report_options(&self, width: usize) -> ReportOptions {
        ReportOptions {
            sort: SortKey::ALL
                .iter()
                .find(|(_, n)| *n == self.sort)
                .map_or(SortKey::Start, |(k, _)| *k),
            mode: match self.percentage_mode {
                Mode::Coverage => PercentageMode::Coverage,
                Mode::Exclusive => PercentageMode::Exclusive,
            },
            columns: self
                .columns
                .as_ref()
                .map(|names| names.iter().filter_map(|n| Column::from_name(n)).collect()),
            flat: self.flat,
            from_events: self.from_events,
            metadata_only: self.metadata_only,
            regions_only: self.regions_only,
            full: self.full,
            width,
        }
    }
}

pub fn run(opts: Opts) -> Result<(), Failure> {
    let selection = opts.filter.selection()?;
    let options = opts.report_options(terminal_width());
    let format = match opts.format {
        OutputFormat::Table => Format::Table,
        OutputFormat::Json => Format::Json,
        OutputFormat::Csv => Format::Csv,
    };
    let stdout = std::io::stdout();
    let show = Show::for_terminal(stdout.is_terminal());
    let mut report = ReportWriter::new(stdout.lock(), format, options.clone()).show(show);
    for path in &opts.files {
        let source = LocalFile::open(path).map_err(|e| Failure::io(path, "cannot open", e))?;
        let size = source.len();
        let file = File::open(source).map_err(|e| Failure::hdf5(path, e))?;
        let (profile, rows, rows_from_calls) = read_rows(&file, &options, format, &selection)
            .map_err(|e| Failure::analysis(path, e))?;
        let name = path.display().to_string();
        report
            .file(&FileReport {
                name: &name,
                size,
                profile: &profile,
                rows: &rows,
                rows_from_calls,
            })
            .map_err(Failure::Stdout)?;
    }
    report
        .finish()
        .map_err(Failure::Stdout)?
        .flush()
        .map_err(Failure::Stdout)
}

/// The profile as the report shows it, its rows, and whether they came from every call. Rows that need every call are
/// computed by the library's jobs on every core, reading the calls row by row; a file the
/// jobs cannot read (no event columns, or any error) is read whole, as the reference reads
/// it, so its rows or its error are the full read's.
fn read_rows(
    file: &File<LocalFile>,
    options: &ReportOptions,
    format: Format,
    selection: &Selection,
) -> sp::analysis::Result<(Profile, Vec<RegionRow>, bool)> {
    let reading = options.reading();
    if reading == Reading::Full {
        if let Ok(Some((profile, rows))) =
            streamed_rows(file, options.row_options(format), selection)
        {
            return Ok((profile, rows, true));
        }
    }
    let profile = match reading {
        Reading::FromEvents => read_from_events(file),
        other => other.read(file),
    }?;
    let rows = options.rows(&profile, selection);
    let from_calls = profile.has_events();
    Ok((profile, rows, from_calls))
}

/// The rows by the library's jobs over the index: the flat rows with percentiles
/// ([`FlatJobs`], one per region) or the call tree ([`TreeJobs`], one per rank); `None`
/// without event columns or where the library leaves the rows to the full read.
fn streamed_rows(
    file: &File<LocalFile>,
    options: RowOptions,
    selection: &Selection,
) -> sp::analysis::Result<Option<(Profile, Vec<RegionRow>)>> {
    let profile = load::read_for_jobs(file)?;
    let Some(reader) = EventReader::open(file)? else {
        return Ok(None);
    };
    let rows = if options.flat {
        Some(flat_jobs(&profile, &reader, options, selection)?)
    } else {
        tree_jobs(&profile, &reader, options, selection)?
    };
    Ok(rows.map(|rows| (profile, rows)))
}

fn flat_jobs(
    profile: &Profile,
    reader: &EventReader<'_, LocalFile>,
    options: RowOptions,
    selection: &Selection,
) -> sp::analysis::Result<Vec<RegionRow>> {
    let jobs = FlatJobs::plan(profile, selection, options);
    let mut results = Vec::with_capacity(jobs.len());
    on_threads(
        jobs.len(),
        |job| jobs.run(profile, job, Some(reader)),
        |job, row| results.push((job, row)),
    )?;
    results.sort_by_key(|r| r.0);
    Ok(jobs.finish(results.into_iter().map(|r| r.1).collect()))
}

/// The ranks' trees are folded here in rank order as they finish; then each call path's
/// row is computed on every core too.
fn tree_jobs(
    profile: &Profile,
    reader: &EventReader<'_, LocalFile>,
    options: RowOptions,
    selection: &Selection,
) -> sp::analysis::Result<Option<Vec<RegionRow>>> {
    let Some(jobs) = TreeJobs::plan(profile, selection, options) else {
        return Ok(None);
    };
    let mut rows = TreeRows::new();
    on_threads(
        jobs.len(),
        |job| jobs.run(job, Some(reader)),
        |job, tree| rows.add(&jobs, job, tree),
    )?;
    let Some(paths) = rows.paths(&jobs) else {
        return Ok(None);
    };
    let mut path_rows = vec![RegionRow::default(); paths.len()];
    on_threads(
        paths.len(),
        |i| Ok(paths.run(i)),
        |i, row| path_rows[i] = row,
    )?;
    paths.finish(path_rows, Some(reader)).map(Some)
}

/// `--flat --from-events`: the library's [`FromEvents`] jobs on every core, largest row
/// first, each streaming its row by its own positional reads.
fn read_from_events(file: &File<LocalFile>) -> sp::analysis::Result<Profile> {
    let mut profile = schema::read(file, Depth::Index)?;
    let plan = FromEvents::plan(&mut profile);
    let Some(reader) = EventReader::open(file)? else {
        plan.without_events()?;
        return Ok(profile);
    };
    let mut results = Vec::with_capacity(plan.len());
    on_threads(
        plan.len(),
        |job| plan.run(job, &reader),
        |job, summary| results.push((job, summary)),
    )?;
    for (job, summary) in results {
        plan.apply(&mut profile, job, &summary);
    }
    Ok(profile)
}

/// Runs jobs `0..jobs` on every core, each worker taking the next job, and hands each
/// result to `done` on this thread as it arrives; the first error stops the workers.
fn on_threads<T: Send>(
    jobs: usize,
    run: impl Fn(usize) -> sp::analysis::Result<T> + Sync,
    mut done: impl FnMut(usize, T),
) -> sp::analysis::Result<()> {
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(jobs)
        .max(1);
    let (send, receive) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let send = send.clone();
            let (next, run) = (&next, &run);
            scope.spawn(move || loop {
                let job = next.fetch_add(1, Ordering::Relaxed);
                if job >= jobs {
                    return;
                }
                let result = run(job);
                let failed = result.is_err();
                if send.send((job, result)).is_err() || failed {
                    next.store(jobs, Ordering::Relaxed);
                    return;
                }
            });
        }
        drop(send);
        for (job, result) in receive {
            match result {
                Ok(value) => done(job, value),
                Err(e) => {
                    next.store(jobs, Ordering::Relaxed);
                    return Err(e);
                }
            }
        }
        Ok(())
    })
}

/// The width the table must fit: `COLUMNS` when set, else the width of the terminal on
/// stdout, else 100 (output to a file or a pipe).
fn terminal_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .or_else(|| {
            terminal_size::terminal_size_of(std::io::stdout())
                .map(|(terminal_size::Width(w), _)| usize::from(w))
        })
        .filter(|&w| w >= 40)
        .unwrap_or(100)
}
