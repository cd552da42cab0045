//! The timeline's ranks: each a [`RankIndex`] of the library's streaming timeline summary,
//! summarised for the window and width on screen and kept until either changes. A rank's
//! first summary reads its calls once (building the index); zoom and pan then read only the
//! calls in the window, so memory follows the screen, not the profile.

use sp::analysis::events::{Loaded, RowSource};
use sp::analysis::lanes::extent;
use sp::analysis::selection::Selection;
use sp::analysis::timeline::{RankIndex, Summary, View};
use sp::schema::{EventReader, Profile};

use super::data::Hdf5;

/// One rank's index and its summary of the last view asked for.
pub struct RankLanes {
    pub index: RankIndex,
    pub summary: Option<(View, Result<Summary, String>)>,
}

/// Runs `f` with the source of the profile's calls: the file's event reader, or the
/// loaded calls.
fn with_source<T>(
    file: Option<&Hdf5>,
    f: impl FnOnce(&dyn RowSource) -> Result<T, String>,
) -> Result<T, String> {
    let reader = match file {
        Some(file) => EventReader::open(&**file).map_err(|e| e.to_string())?,
        None => None,
    };
    match &reader {
        Some(r) => f(r),
        None => f(&Loaded),
    }
}

/// The earliest start and latest end of the profile's calls (ns), from the rows' stored
/// statistics where they have them.
pub fn span(profile: &Profile, file: Option<&Hdf5>) -> Result<Option<(i64, i64)>, String> {
    with_source(file, |source| {
        extent(profile, source, &Selection::all()).map_err(|e| e.to_string())
    })
}

/// Summarises `rank` for `view`, unless its summary of that view is kept.
pub fn summarise(profile: &Profile, file: Option<&Hdf5>, lanes: &mut RankLanes, view: View) {
    if lanes.summary.as_ref().is_some_and(|(v, _)| *v == view) {
        return;
    }
    let rank = lanes.index.rank();
    let summary = with_source(file, |source| {
        lanes
            .index
            .summary(profile, source, &view)
            .map_err(|e| format!("rank {rank}'s calls could not be read: {e}"))
    });
    lanes.summary = Some((view, summary));
}

/// A rank not yet read.
pub fn rank(profile: &Profile, rank: u32) -> RankLanes {
    RankLanes {
        index: RankIndex::new(profile, rank, |_| true),
        summary: None,
    }
}
