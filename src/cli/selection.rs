//! The region and rank filter that `inspect`, `diff` and `check` share, as the reference's
//! `--include`, `--exclude` and `--ranks`.

use clap::Args;
use sp::analysis::{parse_ranks, Selection};

use super::Failure;

/// Which regions and ranks a report pools.
#[derive(Debug, Args)]
pub struct RegionFilter {
    /// Use only the regions whose name matches one of these regexes (anchored at the start).
    #[arg(long, num_args = 1..)]
    include: Option<Vec<String>>,
    /// Skip regions whose name matches one of these regexes.
    #[arg(long, num_args = 1..)]
    exclude: Option<Vec<String>>,
    /// Restrict region statistics to these ranks, e.g. `0 2` or `0-3`.
    #[arg(long, num_args = 1..)]
    ranks: Option<Vec<String>>,
}

impl RegionFilter {
    /// The library's selection; a bad regex or rank list is a usage error.
    pub fn selection(&self) -> Result<Selection, Failure> {
        let mut selection = Selection::new(self.include.as_deref(), self.exclude.as_deref(), None)?;
        selection.ranks = self.ranks.as_deref().map(parse_ranks).transpose()?;
        Ok(selection)
    }
}
