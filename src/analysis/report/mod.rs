//! The report of `sp inspect`: per profile its metadata and region statistics, as the
//! reference's terminal table (at a given width), as CSV, or as one JSON document. A front
//! end chooses [`ReportOptions`], reads each profile as [`ReportOptions::reading`] says,
//! and hands it to a [`ReportWriter`] over any [`Write`].
//!
//! JSON is one document:
//! `{"files": [{"file", "schema", "layout", "num_ranks", "metadata": {key: value},
//! "regions": [row, …]}]}`. Each row carries `name`, `call_path` (list of names, outermost
//! first; `null` for a flat row), `depth`, `recursive`, `num_ranks`, `calls`, and the
//! statistics in seconds at full precision — `total`, `coverage`, `exclusive`, `avg`,
//! `min`, `max`, `first`, `last`, `std`, `p50`, `p95`, `p99`, `imbalance` (percent),
//! `gpu_total`, `gpu_avg`, `start`, `parent_coverage`, `percent` (of the
//! `scope_profiler.session` row, as `percentage_mode` says) — `null` where the reference
//! has `None`. CSV has one line per row with the same keys as columns (call_path joined
//! with " > ").
//!
//! ```
//! use sp::analysis::report::{FileReport, Format, ReportOptions, ReportWriter};
//! use sp::analysis::Selection;
//! use sp::hdf5lite::reader::File;
//! # fn demo(bytes: &[u8]) -> Result<(), Box<dyn std::error::Error>> {
//! let options = ReportOptions::default();
//! let file = File::open(bytes)?;
//! let profile = options.reading().read(&file)?;
//! let rows = options.rows(&profile, &Selection::all());
//! let mut report = ReportWriter::new(Vec::new(), Format::Csv, options);
//! report.file(&FileReport { name: "run.h5", size: bytes.len() as u64, profile: &profile, rows: &rows,
//!     rows_from_calls: profile.has_events() })?;
//! let csv = String::from_utf8(report.finish()?)?;
//! # Ok(()) }
//! ```

pub mod compute;
pub(crate) mod csv;
pub(crate) mod format;
pub(crate) mod grid;
mod json;
mod own;
mod table;
#[cfg(not(target_arch = "wasm32"))]
pub mod threads;

pub use json::row as row_json;
pub use own::{has_own_line, parent_paths, OwnLine};

use crate::sort::SortSlice;
use std::io::{self, Write};

use crate::hdf5lite::reader::File;
use crate::io::ReadAt;
use crate::schema::Profile;
use crate::text::Show;

use super::error::Result;
use super::load;
use super::rows::{region_rows, PercentageMode, RegionRow, RowOptions, SortKey};
use super::selection::Selection;

/// A column of the table (`--columns`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    Region,
    Ranks,
    Calls,
    Total,
    Percent,
    ParentPercent,
    Avg,
    GpuTotal,
    GpuAvg,
    Min,
    Max,
    First,
    Last,
    Std,
    P50,
    P95,
    P99,
    Imbalance,
}

impl Column {
    /// Every column with its `--columns` name and its header, in the reference's order.
    pub const ALL: [(Column, &'static str, &'static str); 18] = [
        (Column::Region, "region", "region"),
        (Column::Ranks, "ranks", "ranks"),
        (Column::Calls, "calls", "n"),
        (Column::Total, "total", "total [s]"),
        (Column::Percent, "percent", "% session"),
        (Column::ParentPercent, "parent_percent", "% parent"),
        (Column::Avg, "avg", "avg/call [s]"),
        (Column::GpuTotal, "gpu_total", "gpu total [s]"),
        (Column::GpuAvg, "gpu_avg", "gpu avg [s]"),
        (Column::Min, "min", "min [s]"),
        (Column::Max, "max", "max [s]"),
        (Column::First, "first", "first [s]"),
        (Column::Last, "last", "last [s]"),
        (Column::Std, "std", "std [s]"),
        (Column::P50, "p50", "p50 [s]"),
        (Column::P95, "p95", "p95 [s]"),
        (Column::P99, "p99", "p99 [s]"),
        (Column::Imbalance, "imbalance", "imbalance [%]"),
    ];

    /// The column named `name` on the command line.
    pub fn from_name(name: &str) -> Option<Column> {
        Self::ALL.iter().find(|c| c.1 == name).map(|c| c.0)
    }

    /// The `--columns` name.
    pub fn name(self) -> &'static str {
        Self::entry(self).1
    }

    /// The table header.
    pub fn header(self) -> &'static str {
        Self::entry(self).2
    }

    fn entry(self) -> &'static (Column, &'static str, &'static str) {
        Self::ALL
            .iter()
            .find(|c| c.0 == self)
            .unwrap_or(&Self::ALL[0])
    }

    /// Whether the column needs every call (percentiles cannot come from stored statistics).
    fn needs_events(self) -> bool {
        matches!(self, Column::P50 | Column::P95 | Column::P99)
    }

    /// Whether the column shows a statistic of the calls' distribution
    /// ([`RowOptions::distribution`]).
    fn needs_distribution(self) -> bool {
        use Column::*;
        matches!(self, Avg | Min | Max | Std | P50 | P95 | P99)
    }
}

/// The reference's note (`summary.gpu_timing_warnings`) on rows whose GPU time exceeds twice their CPU time, if any.
pub fn gpu_timing_warning<'a>(rows: impl IntoIterator<Item = &'a RegionRow>) -> Option<String> {
    let mut names: Vec<&str> = rows
        .into_iter()
        .filter(|r| matches!((r.gpu_total, r.total), (Some(g), Some(t)) if g > 2.0 * t))
        .map(|r| r.name.as_str())
        .collect();
    names.sort_ord_unstable();
    names.dedup();
    (!names.is_empty()).then(|| {
        format!(
            "Warning: GPU time exceeds CPU time by more than 2x for {}. This may indicate \
             asynchronous GPU work; CPU time can measure enqueue time rather than device \
             execution. Use GPU metrics or opt in to gpu_sync_on_exit=True (disables CPU/GPU \
             overlap).",
            names.join(", ")
        )
    })
}

/// The output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The reference's terminal table.
    Table,
    /// One JSON document for all files.
    Json,
    /// One CSV line per row, one header line.
    Csv,
}

impl Format {
    /// Every format with its name (`--format`).
    pub const ALL: [(Format, &'static str); 3] = [
        (Format::Table, "table"),
        (Format::Json, "json"),
        (Format::Csv, "csv"),
    ];
}

/// What a report shows and how (the options of `sp inspect`).
#[derive(Debug, Clone, PartialEq)]
pub struct ReportOptions {
    /// Row order.
    pub sort: SortKey,
    /// What `% session` is computed from.
    pub mode: PercentageMode,
    /// Table columns (default: region, percent, total, and GPU columns when any row has GPU
    /// time).
    pub columns: Option<Vec<Column>>,
    /// One flat row per region from the stored statistics, reading only the index.
    pub flat: bool,
    /// With `flat`: every row's statistics computed from its calls instead.
    pub from_events: bool,
    /// Only the metadata.
    pub metadata_only: bool,
    /// Only the region statistics.
    pub regions_only: bool,
    /// Long metadata values in full.
    pub full: bool,
    /// The width the table must fit, in characters.
    pub width: usize,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            sort: SortKey::Start,
            mode: PercentageMode::Coverage,
            columns: None,
            flat: false,
            from_events: false,
            metadata_only: false,
            regions_only: false,
            full: false,
            width: 100,
        }
    }
}

/// What a report reads of each profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// Metadata and the rank count.
    Metadata,
    /// The index's stored statistics ([`load::read_summary`]).
    Summary,
    /// The index, every row's statistics computed from its calls ([`load::FromEvents`]).
    FromEvents,
    /// Every call ([`load::read_full`]).
    Full,
}

impl Reading {
    /// Reads `file` this way, on this thread.
    pub fn read<R: ReadAt>(self, file: &File<R>) -> Result<Profile> {
        match self {
            Reading::Metadata => load::read_metadata(file),
            Reading::Summary => load::read_summary(file),
            Reading::FromEvents => load::read_from_events(file),
            Reading::Full => load::read_full(file),
        }
    }
}

impl ReportOptions {
    /// What to read of each profile for these options.
    pub fn reading(&self) -> Reading {
        let percentiles = self
            .columns
            .as_ref()
            .is_some_and(|c| c.iter().any(|c| c.needs_events()));
        if self.metadata_only {
            Reading::Metadata
        } else if self.flat && self.from_events && !percentiles {
            Reading::FromEvents
        } else if self.flat && !percentiles {
            Reading::Summary
        } else {
            Reading::Full
        }
    }

    /// The region rows of `profile` (none with `metadata_only`).
    pub fn rows(&self, profile: &Profile, selection: &Selection) -> Vec<RegionRow> {
        if self.metadata_only {
            return Vec::new();
        }
        region_rows(profile, selection, self.row_options(Format::Json))
    }

    /// The row options for a report in `format`: the table leaves out the distribution of
    /// the calls where no column shows it and the rows are not ordered by it (JSON and
    /// CSV have every statistic).
    pub fn row_options(&self, format: Format) -> RowOptions {
        let shown = match (&self.columns, format) {
            (_, Format::Json | Format::Csv) => true,
            (Some(columns), Format::Table) => columns.iter().any(|c| c.needs_distribution()),
            (None, Format::Table) => false,
        };
        RowOptions {
            sort: self.sort,
            mode: self.mode,
            flat: self.flat,
            distribution: shown || self.sort.needs_distribution(),
        }
    }
}

/// One profile of a report: its name as shown (the path given), its size in bytes, the
/// profile as read, its rows, and whether those rows were computed from every call.
#[derive(Debug, Clone, Copy)]
pub struct FileReport<'a> {
    pub name: &'a str,
    pub size: u64,
    pub profile: &'a Profile,
    pub rows: &'a [RegionRow],
    /// The rows were computed from every call: by a full read
    /// ([`Profile::has_events`]) or by the library's jobs over the index
    /// ([`FlatJobs`](super::rows::FlatJobs), [`TreeJobs`](super::rows::TreeJobs)). The
    /// table's headline then gives the wall clock, as the reference's full read does.
    pub rows_from_calls: bool,
}

/// Writes a report of one or more profiles in one format.
pub struct ReportWriter<W: Write> {
    out: W,
    format: Format,
    options: ReportOptions,
    show: Show,
    files: usize,
    json: Vec<serde_json::Value>,
}

impl<W: Write> ReportWriter<W> {
    /// A report to `out`.
    pub fn new(out: W, format: Format, options: ReportOptions) -> Self {
        ReportWriter {
            out,
            format,
            options,
            show: Show::AsIs,
            files: 0,
            json: Vec::new(),
        }
    }

    /// Shows the text from the files (names, labels, metadata) as `show` says in the table:
    /// [`Show::Escaped`] when the output is a terminal. JSON and CSV quote it their own way.
    pub fn show(mut self, show: Show) -> Self {
        self.show = show;
        self
    }

    /// Adds one profile: written at once as a table or CSV, kept for the JSON document.
    pub fn file(&mut self, file: &FileReport<'_>) -> io::Result<()> {
        let first = self.files == 0;
        self.files += 1;
        match self.format {
            Format::Json => {
                self.json.push(json::file(file, &self.options));
                Ok(())
            }
            Format::Csv => csv::write(&mut self.out, file, self.options.mode, first),
            Format::Table => {
                if !first {
                    writeln!(self.out)?;
                }
                table::write(&mut self.out, file, &self.options, self.show)
            }
        }
    }

    /// Ends the report (writes the JSON document) and returns the output.
    pub fn finish(mut self) -> io::Result<W> {
        if self.format == Format::Json {
            json::write_document(&mut self.out, std::mem::take(&mut self.json))?;
        }
        self.out.flush()?;
        Ok(self.out)
    }
}
