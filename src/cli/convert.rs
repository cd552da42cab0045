//! `sp convert`: merge per-rank native output into one schema-3 profile, with the inputs,
//! defaults and output of `scope-profiler import-native`.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use sp::hdf5lite;
use sp::schema::{self, Merger, RegionCalls};
use sp::trace;

mod packer;
mod progress;
mod stream;

use super::inputs::{self, InputPath};
use super::local_file::LocalFile;
use super::output::write_atomically;
use super::{summary, Failure};

/// Merge native traces (.spt) into one HDF5 profile, as `scope-profiler import-native` does.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  sp convert traces/ -o run.h5          every *.spt and *_rank<N>.h5 in traces/
  sp convert run_rank*.spt --label baseline -q

Directories are scanned (not recursively) for *.spt and *_rank[0-9]*.h5, hidden files
included. Inputs are read in sorted path order; each rank may appear only once. The output is
written to a temporary file beside it and renamed into place when complete.")]
pub struct Opts {
    /// Trace files, per-rank profiles, and/or directories holding them.
    #[arg(required = true, value_name = "INPUTS")]
    inputs: Vec<String>,

    /// HDF5 file to write.
    #[arg(
        short,
        long,
        default_value = "profiling_data.h5",
        value_name = "OUTPUT"
    )]
    output: PathBuf,

    /// Name for the run in summaries, charts and exports [default: the output file's stem].
    #[arg(long, value_name = "LABEL")]
    label: Option<String>,

    /// An existing profile to combine the native output with (region names must not clash).
    #[arg(long, value_name = "PROFILE.h5")]
    merge: Option<PathBuf>,

    /// Store the event columns chunked with shuffle + gzip at LEVEL (0-9) [default: 4].
    #[arg(
        long,
        value_name = "LEVEL",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "4",
        value_parser = clap::value_parser!(u8).range(0..=9)
    )]
    compress: Option<u8>,

    /// Do not print the summary table and the `wrote` line.
    #[arg(short, long)]
    quiet: bool,
}

pub fn run(opts: Opts) -> Result<(), Failure> {
    super::output::prepare(&opts.output)?;
    let paths = inputs::discover(&opts.inputs)?;
    if opts.merge.is_none() && paths.iter().all(|p| !p.is_hdf5()) {
        return run_streaming(&opts, &paths);
    }
    let mut merger = Merger::new();
    for path in &paths {
        add_input(&mut merger, path)?;
    }

    let profile = match &opts.merge {
        // With --merge the label is only what --label says (even ""), never the stem.
        Some(merge) => {
            let base = read_stored(&InputPath::new(&merge.to_string_lossy()))?;
            merger
                .merge_into(base, opts.label.as_deref())
                .map_err(Failure::schema)?
        }
        None => {
            let label = opts
                .label
                .clone()
                .filter(|l| !l.is_empty())
                .unwrap_or_else(|| output_stem(&opts.output));
            merger.finish(Some(&label))
        }
    };
    match opts.compress {
        Some(level) => stream::write_compressed(&profile, &opts.output, level)?,
        None => {
            let file = schema::write::to_hdf5(&profile)
                .map_err(|e| Failure::in_file(opts.output.display(), e))?;
            write_atomically(&opts.output, |out| {
                file.finish(out).map(|_| ()).map_err(|e| {
                    Failure::in_file(opts.output.display(), format!("cannot write: {e}"))
                })
            })?;
        }
    }

    if !opts.quiet {
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        // A closed pipe (`sp convert … | head`) is not a failure of the conversion.
        let _ = summary::print(&profile, &mut out)
            .and_then(|()| writeln!(out, "\nwrote {}", opts.output.display()));
    }
    Ok(())
}

/// Traces only: the streaming conversion, in bounded memory on all cores.
fn run_streaming(opts: &Opts, paths: &[InputPath]) -> Result<(), Failure> {
    let label = opts
        .label
        .clone()
        .filter(|l| !l.is_empty())
        .unwrap_or_else(|| output_stem(&opts.output));
    let files: Vec<std::path::PathBuf> = paths.iter().map(|p| p.as_path().to_owned()).collect();
    let names: Vec<String> = paths.iter().map(|p| p.as_str().to_owned()).collect();
    let progress = progress::Progress::new(!opts.quiet);
    // Both passes read every input's timestamps once.
    let input_bytes: u64 = files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    progress.set_total(input_bytes.saturating_mul(2));
    let converted = progress.around(|| {
        stream::convert(
            &files,
            &names,
            &label,
            &opts.output,
            opts.compress,
            &progress,
        )
    })?;
    if !opts.quiet {
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        // A closed pipe (`sp convert … | head`) is not a failure of the conversion.
        let _ = summary::print_rows(
            &converted.region_names,
            converted.totals.into_iter(),
            &mut out,
        )
        .and_then(|()| writeln!(out, "\nwrote {}", opts.output.display()));
    }
    Ok(())
}

/// Reads one input and adds its rank(s) to the merge.
fn add_input(merger: &mut Merger, path: &InputPath) -> Result<(), Failure> {
    if path.is_hdf5() {
        let stored = read_stored(path)?;
        let metadata = stored.metadata.clone();
        for (rank, regions) in stored.into_ranks() {
            merger
                .add_rank(path.as_str(), i64::from(rank), regions, Some(&metadata))
                .map_err(Failure::schema)?;
        }
        return Ok(());
    }
    let bytes = std::fs::read(path.as_path())
        .map_err(|e| Failure::in_file(path, format!("cannot read: {e}")))?;
    let view = trace::parse(&bytes).map_err(|error| Failure::Trace {
        path: path.as_path().to_owned(),
        error,
    })?;
    let regions = view.regions.iter().map(RegionCalls::from).collect();
    merger
        .add_rank(path.as_str(), i64::from(view.rank), regions, None)
        .map_err(Failure::schema)
}

/// Reads a stored profile (a per-rank `.h5` from the C API or a merged profile).
fn read_stored(path: &InputPath) -> Result<schema::ProfileInput, Failure> {
    let source = LocalFile::open(path.as_path())
        .map_err(|e| Failure::io(path.as_path(), "cannot open", e))?;
    let file =
        hdf5lite::reader::File::open(source).map_err(|e| Failure::hdf5(path.as_path(), e))?;
    schema::read_profile(&file).map_err(|error| Failure::Schema {
        path: Some(path.as_path().to_owned()),
        error,
    })
}

/// `Path(output).stem` in Python's sense: the file name without its last suffix.
fn output_stem(output: &Path) -> String {
    output
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}
