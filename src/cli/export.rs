//! `sp export`: hand a profile to the viewers people already use.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use sp::analysis::{export, EventReader, Lanes, Loaded, Profile, RowSource, Selection};
use sp::hdf5lite::reader::File;

use super::inspect::parse_ranks;
use super::local_file::LocalFile;
use super::output::AtomicOutput;
use super::Failure;

/// Export a profile for a trace viewer, or as one JSON document
///
/// Formats:
///   chrome-trace  Chrome Trace Event JSON (Perfetto, chrome://tracing): one process per
///                 rank, one thread per thread/task lane, one slice per call (µs).
///   speedscope    speedscope JSON: one evented profile per rank and lane, frames with
///                 file and line.
///   json          the whole profile: {format: "scope-profiler-profile", format_version: 1,
///                 exporter, time_unit: "nanoseconds", num_ranks, event_data_available,
///                 metadata: {key: value}, regions: [{name, rank, source_file,
///                 source_lineno, start_times_ns, end_times_ns, gpu_durations_ns?,
///                 thread_ids?, task_ids?, exclusive_total_ns? | aggregate}],
///                 threads?, tasks?} — the reference's `export json` layout.
///
/// All ranks are exported unless --ranks is given. Calls are read row by row and written
/// as they are read, so large profiles export in little memory.
///
/// Examples:
///   sp export chrome-trace profiling_data.h5 -o trace.json     # open in Perfetto
///   sp export chrome-trace run.h5 --ranks 0-3 -o trace.json
///   sp export speedscope run.h5 -o run.speedscope.json          # drop on speedscope.app
///   sp export json run.h5 -o run.json
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct Opts {
    /// Output format.
    #[arg(value_enum)]
    format: Format,
    /// The profile.
    file: PathBuf,
    /// Output file.
    #[arg(short, long)]
    output: PathBuf,
    /// Ranks to export, e.g. `0 2` or `0-3` (default: all).
    #[arg(long, num_args = 1..)]
    ranks: Option<Vec<String>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    ChromeTrace,
    Speedscope,
    Json,
}

pub fn run(opts: Opts) -> Result<(), Failure> {
    super::output::prepare(&opts.output)?;
    let path = &opts.file;
    let source = LocalFile::open(path)
        .map_err(|e| Failure::in_file(path.display(), format!("cannot open: {e}")))?;
    let file = File::open(source)
        .map_err(|e| Failure::in_file(path.display(), format!("not a readable HDF5 file: {e}")))?;
    let in_file = |e| Failure::in_file(path.display(), e);
    let profile = Profile::read_index(&file).map_err(in_file)?;
    let reader = EventReader::open(&file).map_err(in_file)?;
    let source: &dyn RowSource = match &reader {
        Some(r) => r,
        None => &Loaded,
    };
    let lanes = Lanes::read(&file).map_err(in_file)?;
    let ranks = opts.ranks.as_deref().map(parse_ranks).transpose()?;
    let sel = Selection {
        keep: &|_| true,
        filtered: false,
        ranks,
    };
    let label = profile.label().unwrap_or_else(|| {
        path.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    });
    let mut output = AtomicOutput::create(&opts.output)?;
    let out = output.writer();
    match opts.format {
        Format::ChromeTrace => export::chrome_trace(&profile, source, &lanes, &sel, &label, out),
        Format::Speedscope => export::speedscope(&profile, source, &lanes, &sel, &label, out),
        Format::Json => export::json(&profile, source, &lanes, &sel, out),
    }
    .map_err(|e| Failure::in_file(opts.output.display(), e))?;
    output.commit()
}
