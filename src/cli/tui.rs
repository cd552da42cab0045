//! `sp tui`: the arguments; the interface is [`crate::tui`].

use std::path::PathBuf;

use clap::Args;

use super::Failure;

/// Explore a profile in the terminal: overview, call tree, regions, ranks, timeline
///
/// Keys: Tab switches views, arrows or hjkl move, Enter opens a region, / filters,
/// s sorts, ? lists every key, q quits. Give two files to compare them (as `sp diff`).
/// Any other HDF5 file opens on its tree. NO_COLOR turns colours off.
///
/// Examples:
///   sp tui profiling_data.h5
///   sp tui before.h5 after.h5
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct Opts {
    /// The profile, and optionally a second one to compare it with.
    #[arg(required = true, num_args = 1..=2, value_name = "FILE")]
    files: Vec<PathBuf>,
}

pub fn run(opts: Opts) -> Result<(), Failure> {
    crate::tui::run(&opts.files)
}
