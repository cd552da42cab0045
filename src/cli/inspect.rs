//! `sp inspect`: the shell over [`sp::analysis::report`] — arguments, files, the terminal
//! width, and the threads ([`Threads`]) that run the library's jobs for the rows
//! ([`file_rows`]).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::Args;
use sp::analysis::report::compute::FileRows;
use sp::analysis::report::{Column, FileReport, ReportOptions, ReportWriter};
use sp::analysis::{PercentageMode, SortKey};
use sp::text::Show;

use super::local_file::open_profile;
use super::options::{named, FormatArg, RegionFilter};
use super::Failure;
use sp::analysis::report::threads::Threads;

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
    #[arg(long, default_value = "start", value_parser = named(&SortKey::ALL))]
    sort: SortKey,
    /// Table columns to print (default: region percent total).
    #[arg(long, num_args = 1.., value_parser = column_names())]
    columns: Option<Vec<String>>,
    /// How % session is computed.
    #[arg(long, default_value = "coverage", value_parser = named(&PercentageMode::ALL))]
    percentage_mode: PercentageMode,
    #[command(flatten)]
    format: FormatArg,
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

pub fn sort_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(SortKey::ALL.map(|(_, n)| n))
}

fn column_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(Column::ALL.map(|(_, n, _)| n))
}

impl Opts {
    /// The library's report options for these arguments, fitted to `width` columns.
    fn report_options(&self, width: usize) -> ReportOptions {
        ReportOptions {
            sort: self.sort,
            mode: self.percentage_mode,
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
    let options = opts.report_options(super::terminal::width());
    let format = opts.format.format;
    let stdout = std::io::stdout();
    let show = Show::for_terminal(stdout.is_terminal());
    let mut report = ReportWriter::new(stdout.lock(), format, options.clone()).show(show);
    for (i, path) in opts.files.iter().enumerate() {
        let size = std::fs::metadata(path)
            .map_err(|e| Failure::io(path, "cannot open", e))?
            .len();
        let FileRows {
            profile,
            rows,
            from_calls,
        } = (open_profile(path)?)
            .into_rows(&options, format, &selection, &Threads)
            .map_err(|e| Failure::analysis(path, e))?;
        let name = path.display().to_string();
        report
            .file(&FileReport {
                name: &name,
                size,
                profile: &profile,
                rows: &rows,
                rows_from_calls: from_calls,
            })
            .map_err(Failure::Stdout)?;
        if i + 1 == opts.files.len() {
            // The process ends: freeing 100,000 ranks' million rows took a tenth of
            // `--flat`'s time.
            std::mem::forget(profile);
        }
    }
    report
        .finish()
        .map_err(Failure::Stdout)?
        .flush()
        .map_err(Failure::Stdout)
}
