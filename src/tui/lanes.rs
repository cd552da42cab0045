//! The timeline's lanes: one rank's calls stacked by depth ([`calltree::build`], or one
//! lane in start order when they do not nest), each depth a [`Lane`] the page's level of
//! detail ([`sp::analysis::lod`]) draws from. Read per rank as the view needs it, through
//! the file's event reader (or the loaded calls), and kept.

use sp::analysis::calltree;
use sp::analysis::events::{Loaded, RowSource};
use sp::analysis::lod::Lane;
use sp::schema::{EventReader, Profile, RankCalls, Region};

use super::data::Hdf5;

/// One rank's lanes, by depth, and the span of its calls (ns).
pub struct RankLanes {
    pub lanes: Vec<Lane>,
    pub span: Option<(i64, i64)>,
}

/// Reads rank `rank`'s calls and stacks them by depth.
pub fn read_rank(profile: &Profile, file: &Hdf5, rank: u32) -> Result<RankLanes, String> {
    let reader = EventReader::open(&**file).map_err(|e| e.to_string())?;
    let source: &dyn RowSource = match &reader {
        Some(r) => r,
        None => &Loaded,
    };
    let mut regions = Vec::with_capacity(profile.regions.len());
    for region in &profile.regions {
        let mut row = Region {
            name: region.name.clone(),
            ranks: Vec::new(),
        };
        if let Some(stored) = region.rank(rank) {
            let events = source
                .events(stored)
                .map_err(|e| format!("rank {rank}'s calls could not be read: {e}"))?
                .into_owned();
            row.ranks.push(RankCalls {
                lanes: events.lanes(),
                starts: events.starts,
                ends: events.ends,
                rank,
                ..RankCalls::default()
            });
        }
        regions.push(row);
    }
    let refs: Vec<&Region> = regions.iter().collect();
    let calls = match calltree::build(&refs, rank) {
        Ok(calls) => calls,
        Err(_) => {
            let mut calls = calltree::unnested(&refs, rank);
            calls.sort_by_key(|c| (c.start_ns, c.end_ns));
            calls
        }
    };
    let depth = calls.iter().map(|c| c.depth + 1).max().unwrap_or(0);
    let mut lanes: Vec<Lane> = (0..depth).map(|_| Lane::default()).collect();
    let mut span: Option<(i64, i64)> = None;
    for c in calls {
        lanes[c.depth].push(c.start_ns, c.end_ns, c.region as u32);
        let (lo, hi) = span.unwrap_or((c.start_ns, c.end_ns));
        span = Some((lo.min(c.start_ns), hi.max(c.end_ns)));
    }
    for lane in &mut lanes {
        lane.finish(regions.len());
    }
    Ok(RankLanes { lanes, span })
}
