//! `sp inspect`: the shell over [`sp::analysis::report`] — arguments, files, the terminal
//! width, and the threads that compute `--flat --from-events` rows.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use clap::{Args, ValueEnum};
use sp::analysis::report::{Column, FileReport, Format, Reading, ReportOptions, ReportWriter};
use sp::analysis::{parse_ranks, FromEvents, PercentageMode, Selection, SortKey};
use sp::hdf5lite::reader::File;
use sp::io::ReadAt;
use sp::schema::{self, Depth, EventReader, Profile, Summary};

use super::local_file::LocalFile;
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
    /// Only report regions whose name matches one of these regexes (anchored at the start).
    #[arg(long, num_args = 1..)]
    include: Option<Vec<String>>,
    /// Skip regions whose name matches one of these regexes.
    #[arg(long, num_args = 1..)]
    exclude: Option<Vec<String>>,
    /// Restrict statistics to these ranks, e.g. `0 2` or `0-3`.
    #[arg(long, num_args = 1..)]
    ranks: Option<Vec<String>>,
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
    let mut selection = Selection::new(opts.include.as_deref(), opts.exclude.as_deref(), None)?;
    selection.ranks = opts.ranks.as_deref().map(parse_ranks).transpose()?;
    let options = opts.report_options(terminal_width());
    let reading = options.reading();
    let format = match opts.format {
        OutputFormat::Table => Format::Table,
        OutputFormat::Json => Format::Json,
        OutputFormat::Csv => Format::Csv,
    };
    let stdout = std::io::stdout();
    let mut report = ReportWriter::new(stdout.lock(), format, options.clone());
    for path in &opts.files {
        let source = LocalFile::open(path).map_err(|e| Failure::io(path, "cannot open", e))?;
        let size = source.len();
        let file = File::open(source).map_err(|e| Failure::hdf5(path, e))?;
        let profile = match reading {
            Reading::FromEvents => read_from_events(&file),
            other => other.read(&file),
        }
        .map_err(|e| Failure::analysis(path, e))?;
        let rows = options.rows(&profile, &selection);
        let name = path.display().to_string();
        report
            .file(&FileReport {
                name: &name,
                size,
                profile: &profile,
                rows: &rows,
            })
            .map_err(Failure::Stdout)?;
    }
    report
        .finish()
        .map_err(Failure::Stdout)?
        .flush()
        .map_err(Failure::Stdout)
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
    let next = AtomicUsize::new(0);
    let work = || -> sp::analysis::Result<Vec<(usize, Summary)>> {
        let mut done = Vec::new();
        loop {
            let job = next.fetch_add(1, Ordering::Relaxed);
            if job >= plan.len() {
                return Ok(done);
            }
            done.push((job, plan.run(job, &reader)?));
        }
    };
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(plan.len())
        .max(1);
    let results: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = (1..workers).map(|_| scope.spawn(work)).collect();
        let mut results = vec![work()];
        for h in handles {
            results.push(h.join().unwrap_or_else(|_| {
                Err(sp::analysis::Error::Corrupt(
                    "a worker thread panicked".into(),
                ))
            }));
        }
        results
    });
    for result in results {
        for (job, summary) in result? {
            plan.apply(&mut profile, job, &summary);
        }
    }
    Ok(profile)
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
