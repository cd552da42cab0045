//! `sp export`: the shell over [`sp::analysis::export`] — arguments, the input file, and the
//! output written to a temporary file renamed into place.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use sp::analysis::export::Format;
use sp::analysis::{parse_ranks, Selection};

use super::options::OutputArg;
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
///   flamegraph    a standalone SVG flame graph of the aggregated call stacks (no script;
///                 hover a frame for its time, share and path): every rank merged, or one
///                 file per rank with --per-rank (OUT_rank<N>.svg). A .png output is drawn
///                 as a picture instead.
///   folded        collapsed stacks, one line per call path with its own time in ns
///                 (`main;solve;kernel 1234`), for flamegraph.pl, inferno and speedscope.
///   plot-data     `plot-data FILES… -o DIR --plots KIND…`: the reference's data behind its
///                 charts, CSV or JSON, under its file names, and region_statistics.json.
///   prof          `prof FILES… -o DIR`: cProfile's pstats files, DIR/profile_rank<N>.prof
///                 per rank (rank 0 unless --ranks) and file, for snakeviz and gprof2dot.
///
/// All ranks are exported unless --ranks is given. Calls are read row by row and written
/// as they are read, so large profiles export in little memory. The output is written to a
/// temporary file beside it and renamed into place when complete.
///
/// Examples:
///   sp export chrome-trace profiling_data.h5 -o trace.json     # open in Perfetto
///   sp export chrome-trace run.h5 --ranks 0-3 -o trace.json
///   sp export speedscope run.h5 -o run.speedscope.json          # drop on speedscope.app
///   sp export json run.h5 -o run.json
///   sp export flamegraph run.h5 -o flame.svg --threshold 0.5
///   sp export flamegraph run.h5 --ranks 0-3 --per-rank -o flame.svg   # flame_rank0.svg …
///   sp export folded run.h5 -o run.folded && flamegraph.pl run.folded > flame.svg
///   sp export plot-data run.h5 -o data --plots durations histogram --sort-by total --top-n 10
///   sp export prof run.h5 -o prof --ranks 0-3 --no-call-paths && snakeviz prof/profile_rank0.prof
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct Opts {
    /// Output format.
    #[arg(value_enum)]
    format: OutputFormat,
    /// The profile (plot-data, prof: one or more).
    file: PathBuf,
    #[arg(hide = true)]
    more: Vec<PathBuf>,
    #[command(flatten)]
    output: OutputArg,
    /// Ranks to export, e.g. `0 2` or `0-3` (default: all).
    #[arg(short, long, num_args = 1..)]
    ranks: Option<Vec<String>>,
    #[command(flatten)]
    stacks: super::flamegraph::StackOpts,
    #[command(flatten)]
    plot_data: sp::analysis::plot_data::args::PlotDataArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum OutputFormat {
    ChromeTrace,
    Speedscope,
    Json,
    Flamegraph,
    Folded,
    PlotData,
    Prof,
}

pub fn run(opts: Opts) -> Result<(), Failure> {
    let selection = Selection::ranks(opts.ranks.as_deref().map(parse_ranks).transpose()?);
    let directory = matches!(opts.format, OutputFormat::PlotData | OutputFormat::Prof);
    if !opts.more.is_empty() && !directory {
        return Err(Failure::usage("sp export takes one profile"));
    }
    if !directory {
        opts.output.prepare()?;
    }
    let format = match opts.format {
        OutputFormat::ChromeTrace => Format::ChromeTrace,
        OutputFormat::Speedscope => Format::Speedscope,
        OutputFormat::Json => Format::Json,
        OutputFormat::PlotData | OutputFormat::Prof => {
            let (include, exclude) = (
                opts.stacks.include.as_deref(),
                opts.stacks.exclude.as_deref(),
            );
            let selection = Selection::new(include, exclude, selection.ranks)?;
            let files = sp::io::inputs::distinct([&[opts.file][..], &opts.more].concat());
            let (prof, out) = (opts.format == OutputFormat::Prof, &opts.output.output);
            return super::plot_data::run(prof, &opts.plot_data, &files, selection, out);
        }
        OutputFormat::Flamegraph | OutputFormat::Folded => {
            let folded = opts.format == OutputFormat::Folded;
            return opts
                .stacks
                .run(folded, &opts.file, &opts.output.output, selection);
        }
    };
    opts.stacks.only_for_stacks()?;
    let path = &opts.file;
    let file = super::local_file::open_profile(path)?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let exporter = file
        .exporter(&stem)
        .map_err(|e| Failure::analysis(path, e))?;
    let mut out = opts.output.create()?;
    exporter
        .write(format, &selection, out.writer())
        .map_err(|e| match e {
            // Only a failed write is about the output; the rest is about the profile read.
            sp::analysis::Error::Write(_) => Failure::analysis(&opts.output.output, e),
            _ => Failure::analysis(path, e),
        })?;
    Ok(out.commit()?)
}
