//! The timeline's lanes: one rank's calls stacked by depth ([`stack_rank`], which the
//! page's timeline uses too), each depth a [`Lane`] the page's level of
//! detail ([`sp::analysis::lod`]) draws from. Read per rank as the view needs it, through
//! the file's event reader (or the loaded calls), and kept.

use sp::analysis::events::{Loaded, RowSource};
use sp::analysis::lanes::stack_rank;
use sp::analysis::lod::Lane;
use sp::schema::{EventReader, Profile};

use super::data::Hdf5;

/// One rank's lanes, by depth, and the span of its calls (ns).
pub struct RankLanes {
    pub lanes: Vec<Lane>,
    pub span: Option<(i64, i64)>,
}

/// Reads rank `rank`'s calls and stacks them by depth.
pub fn read_rank(profile: &Profile, file: Option<&Hdf5>, rank: u32) -> Result<RankLanes, String> {
    let reader = match file {
        Some(file) => EventReader::open(&**file).map_err(|e| e.to_string())?,
        None => None,
    };
    let source: &dyn RowSource = match &reader {
        Some(r) => r,
        None => &Loaded,
    };
    let stacked = stack_rank(profile, source, rank, |_| true, |_| true)
        .map_err(|e| format!("rank {rank}'s calls could not be read: {e}"))?;
    Ok(RankLanes {
        lanes: stacked.lanes,
        span: stacked.span,
    })
}
