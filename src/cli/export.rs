//! `sp export`: hand a profile to the viewers people already use.

use std::io::{BufWriter, Write};
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use sp::analysis::{export, Profile, Selection};
use sp::hdf5lite::reader::File;

use super::inspect::parse_ranks;
use super::local_file::LocalFile;
use super::Failure;

/// Export a profile for a trace viewer.
///
/// Examples:
///   sp export chrome-trace profiling_data.h5 -o trace.json     # open in Perfetto
///   sp export chrome-trace run.h5 --ranks 0-3 -o trace.json
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
}

pub fn run(opts: Opts) -> Result<(), Failure> {
    let path = &opts.file;
    let source = LocalFile::open(path)
        .map_err(|e| Failure::in_file(path.display(), format!("cannot open: {e}")))?;
    let file = File::open(source)
        .map_err(|e| Failure::in_file(path.display(), format!("not a readable HDF5 file: {e}")))?;
    let profile = Profile::read(&file).map_err(|e| Failure::in_file(path.display(), e))?;
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
    let out = std::fs::File::create(&opts.output)
        .map_err(|e| Failure::in_file(opts.output.display(), format!("cannot create: {e}")))?;
    let mut out = BufWriter::new(out);
    match opts.format {
        Format::ChromeTrace => export::chrome_trace(&profile, &sel, &label, &mut out),
    }
    .map_err(|e| Failure::in_file(opts.output.display(), e))?;
    out.flush()
        .map_err(|e| Failure::in_file(opts.output.display(), format!("cannot write: {e}")))
}
