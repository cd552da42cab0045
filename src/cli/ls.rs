//! `sp ls`: the tree of any HDF5 file — groups, datasets with datatype, shape and storage,
//! attributes with their values — as readable text or as one JSON document. It is how a
//! user without HDF5 tools looks inside a file. The listing itself is
//! [`sp::hdf5lite::tree`]; this module chooses its options, opens the file and prints.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;
use sp::hdf5lite::reader::File;
use sp::hdf5lite::tree::{self, Node, Options, Problems, Walk};

use super::local_file::LocalFile;
use super::Failure;

/// Show the groups, datasets and attributes of an HDF5 file.
#[derive(Debug, Args)]
#[command(after_long_help = tree::JSON_FORMAT, after_help = "\
Examples:
  sp ls run.h5                        the whole tree, attributes with their values
  sp ls run.h5 /rank_region_index     one group and everything under it
  sp ls run.h5 /ranks/0/starts --data one dataset with its values
  sp ls run.h5 --json --data > run.json

Whatever cannot be read (an object, an attribute, a value) is listed with the reason; the
exit status is 0 when the tree was read, unless --strict. See `sp ls --help` for the JSON
format.")]
pub struct Opts {
    /// The HDF5 file.
    #[arg(value_name = "FILE")]
    file: PathBuf,

    /// Show only this object (and, for a group, everything under it).
    #[arg(value_name = "PATH", default_value = "/")]
    path: String,

    /// Print one JSON document instead of text.
    #[arg(long)]
    json: bool,

    /// Include dataset values (text mode reads and shows the first few; JSON all of them).
    #[arg(long)]
    data: bool,

    /// Fail (exit status 1) when any object, attribute or value could not be read.
    #[arg(long)]
    strict: bool,
}

/// Elements of each dataset read and shown in text mode.
const TEXT_ELEMENTS: u64 = 8;

pub fn run(opts: Opts) -> Result<(), Failure> {
    let name = opts.file.display();
    let source = LocalFile::open(&opts.file)
        .map_err(|e| Failure::in_file(&name, format!("cannot open: {e}")))?;
    let file = File::open(source)
        .map_err(|e| Failure::in_file(&name, format!("not a readable HDF5 file: {e}")))?;
    let options = Options {
        values: opts.data,
        max_elements: if opts.json { None } else { Some(TEXT_ELEMENTS) },
    };
    let walk = Walk::new(&file, &opts.path, options).map_err(|e| Failure::in_file(&name, e))?;

    // Count what could not be read while the nodes stream to the output.
    let mut problems = Problems::default();
    let nodes = walk.inspect(|node: &Node| problems.note(node));
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let written = if opts.json {
        tree::write_json(&mut out, nodes)
    } else {
        tree::write_text(&mut out, nodes)
    };
    // `sp ls big.h5 | head` ends quietly, by the one rule in `cli::run`.
    written
        .and_then(|()| out.flush())
        .map_err(Failure::Stdout)?;
    match problems.summary() {
        Some(summary) if opts.strict => Err(Failure::in_file(&name, summary)),
        _ => Ok(()),
    }
}
