//! Option groups that several subcommands share: `#[command(flatten)]` one into a
//! subcommand's arguments instead of declaring the same flags again.
//!
//! - [`RegionFilter`]: `--include`, `--exclude`, `--ranks` (the reference's region filter).
//! - [`FormatArg`]: `--format table|json|csv`.
//! - [`OutputArg`]: `-o/--output FILE`, checked before any work and written atomically.
//!
//! Values with names come from the library's tables through [`named`].
//!
//! Printing to stdout with names escaped for a terminal is [`super::terminal::print`].

use std::path::PathBuf;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::Args;
use sp::analysis::report::Format;
use sp::analysis::{parse_ranks, Selection};

use super::output::{prepare, AtomicOutput};
use super::Failure;

/// Which regions and ranks a report pools.
#[derive(Debug, Args)]
pub struct RegionFilter {
    /// Use only the regions whose name matches one of these regexes (anchored at the start).
    #[arg(long, num_args = 1..)]
    pub include: Option<Vec<String>>,
    /// Skip regions whose name matches one of these regexes.
    #[arg(long, num_args = 1..)]
    pub exclude: Option<Vec<String>>,
    /// Restrict region statistics to these ranks, e.g. `0 2` or `0-3`.
    #[arg(long, num_args = 1..)]
    pub ranks: Option<Vec<String>>,
}

impl RegionFilter {
    /// The library's selection; a bad regex or rank list is a usage error.
    pub fn selection(&self) -> Result<Selection, Failure> {
        let mut selection = Selection::new(self.include.as_deref(), self.exclude.as_deref(), None)?;
        selection.ranks = self.ranks.as_deref().map(parse_ranks).transpose()?;
        Ok(selection)
    }
}

/// How a report is printed: `--format table|json|csv` (default: table).
#[derive(Debug, Args)]
pub struct FormatArg {
    /// Output format.
    #[arg(long, value_name = "VALUE", default_value = "table", value_parser = named(&Format::ALL))]
    pub format: Format,
}

/// A value parser over one of the library's name tables (`Format::ALL`, `Theme::ALL`…):
/// `--help` lists the names, and the value is the table's.
pub fn named<T: Copy + Send + Sync + 'static>(
    table: &'static [(T, &'static str)],
) -> impl TypedValueParser<Value = T> {
    PossibleValuesParser::new(table.iter().map(|(_, n)| *n)).map(move |name| {
        let found = table.iter().find(|(_, n)| *n == name);
        found.map_or(table[0].0, |(value, _)| *value)
    })
}

/// The file a subcommand writes: `-o/--output FILE` (required).
#[derive(Debug, Args)]
pub struct OutputArg {
    /// Output file.
    #[arg(short, long)]
    pub output: PathBuf,
}

impl OutputArg {
    /// Checks, before any work, that the output can be written (see [`prepare`]).
    pub fn prepare(&self) -> Result<(), Failure> {
        prepare(&self.output)
    }

    /// The temporary file that becomes the output on [`AtomicOutput::commit`].
    pub fn create(&self) -> Result<AtomicOutput, Failure> {
        Ok(AtomicOutput::create(&self.output)?)
    }

    /// Writes `bytes` as the whole output, atomically.
    pub fn write(&self, bytes: &[u8]) -> Result<(), Failure> {
        write_atomically(&self.output, bytes)
    }
}

/// Writes `bytes` to `path` through a temporary file renamed into place.
pub fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> Result<(), Failure> {
    let mut out = AtomicOutput::create(path)?;
    std::io::Write::write_all(out.writer(), bytes)
        .map_err(|e| Failure::io(path, "cannot write", e))?;
    Ok(out.commit()?)
}
