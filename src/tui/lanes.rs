//! The timeline's ranks: each a [`RankIndex`] of the library's streaming timeline summary,
//! summarised (by a job, [`super::jobs`]) for the window and width on screen and kept until
//! either changes. A rank's
//! first summary reads its calls once (building the index); zoom and pan then read only the
//! calls in the window, so memory follows the screen, not the profile.

use sp::analysis::events::{Loaded, RowSource};
use sp::analysis::lanes::extent;
use sp::analysis::selection::Selection;
use sp::analysis::timeline::{RankIndex, Summary, View};
use sp::schema::{EventReader, Profile, Region};

use super::data::Hdf5;

/// One rank's index (`None` while a job summarises it) and its last summary.
pub struct RankLanes {
    pub index: Option<RankIndex>,
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

/// The part of `profile` the timeline's job over `ranks` (ascending) needs: every region,
/// with only those ranks' rows (at 100,000 ranks a job copies its own rows, not the index).
pub fn part(profile: &Profile, ranks: &[u32]) -> Profile {
    let regions = (profile.regions.iter())
        .map(|r| Region {
            name: r.name.clone(),
            ranks: (r.ranks.iter())
                .filter(|row| ranks.binary_search(&row.rank).is_ok())
                .cloned()
                .collect(),
        })
        .collect();
    Profile {
        regions,
        metadata: Default::default(),
        region_names: Vec::new(),
        ..*profile
    }
}

/// A rank not yet read.
pub fn rank(profile: &Profile, rank: u32) -> RankLanes {
    RankLanes {
        index: Some(RankIndex::new(profile, rank, |_| true)),
        summary: None,
    }
}
