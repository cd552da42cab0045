//! `sp convert`: merge per-rank native output into one schema-3 profile, with the inputs,
//! defaults and output of `scope-profiler import-native`.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::Args;
use sp::convert::parallel::{convert_files, inputs_of, progress_total};
use sp::convert::{Deflate, Options, Shard};

mod progress;

use super::Failure;

/// Merge native traces (.spt) into one HDF5 profile, as `scope-profiler import-native` does.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  sp convert traces/ -o run.h5          every *.spt and *_rank<N>.h5 in traces/
  sp convert run_rank*.spt --label baseline -q

Directories are scanned (not recursively) for *.spt and *_rank[0-9]*.h5, hidden files
included. Inputs are read in sorted path order; each rank may appear only once. The output is
written to a temporary file beside it and renamed into place when complete.

Sharding a run over N processes (e.g. one per node under Slurm or mpirun):
  srun -n 64 sh -c 'sp convert traces/ --shard $SLURM_PROCID/$SLURM_NTASKS -o part_$SLURM_PROCID.h5'
  sp convert part_*.h5 -o run.h5        the same profile as `sp convert traces/ -o run.h5`
With --shard I/N the inputs, sorted as above, are cut into N runs of consecutive files whose
lengths differ by at most one, and only run I (from 0) is converted: files floor(I*n/N) up to
floor((I+1)*n/N) - 1 of the n inputs. A part records its shard, its regions' order of first
appearance and where its metadata came from (sp_* attributes in /metadata), which the merge
uses and drops.")]
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

    /// Store the event columns chunked with shuffle + gzip. Alone: zlib's run-length
    /// strategy, smaller than level 4 on event columns and twice as fast; =LEVEL (0-9):
    /// zlib's default strategy at that level.
    #[arg(
        long,
        value_name = "LEVEL",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "runs",
        value_parser = clap::value_parser!(Deflate)
    )]
    compress: Option<Deflate>,

    /// Convert only part I (from 0) of N of the inputs, as one of N processes of a sharded
    /// run; merge the parts' outputs with `sp convert` (see below).
    #[arg(long, value_name = "I/N", conflicts_with = "merge")]
    shard: Option<Shard>,

    /// Do not print the summary table and the `wrote` line.
    #[arg(short, long)]
    quiet: bool,
}

pub fn run(opts: Opts) -> Result<(), Failure> {
    super::output::prepare(&opts.output)?;
    let merge = opts.merge.as_ref().map(|m| m.to_string_lossy());
    let inputs = inputs_of(&opts.inputs, opts.shard, merge.as_deref())?;
    let output = opts.output.to_string_lossy();
    let label = Options::label_for(opts.label.as_deref(), opts.merge.is_some(), &output);
    let options = Options {
        label,
        compress: opts.compress,
        shard: opts.shard,
        merge: opts.merge.is_some(),
    };
    let progress = progress::Progress::new(!opts.quiet);
    progress.set_total(progress_total(&inputs));
    let out = super::output::AtomicOutput::create(&opts.output)?;
    let show_stderr = sp::text::Show::for_terminal(std::io::stderr().is_terminal());
    let converted = progress
        .around(|| {
            convert_files(
                &inputs,
                &options,
                out.file(),
                &|n| progress.add(n),
                &mut |left_out| {
                    eprintln!("sp: warning: {}", show_stderr.text(&left_out.to_string()))
                },
            )
        })
        .map_err(|e| Failure::convert(&opts.output, e))?;
    out.commit()?;
    if !opts.quiet {
        let output = opts.output.display().to_string();
        super::terminal::print(|out, show| {
            sp::convert::summary::write(&mut *out, &converted, show)?;
            writeln!(out, "\nwrote {}", show.text(&output))
        })?;
    }
    Ok(())
}
