//! A stored profile as an input of `import-native` (an `.h5` input, or the `--merge`
//! profile): the [`Profile`] the one reader gives, checked for what an import can carry over
//! and arranged as the merge rules consume it — regions stably sorted by earliest start, the
//! calls of each rank, and the LIKWID results of `--merge` (SCHEMA.md §5.3, §5.5, §5.7).

use crate::hdf5lite::reader::File;
use crate::io::ReadAt;

use super::error::Error;
use super::likwid::{self, LikwidByRank};
use super::metadata::Metadata;
use super::names;
use super::native::{into_ranks, sort_regions, RegionCalls, RegionRanks};
use super::profile::{Depth, Profile, RankCalls};
use super::read::{self, not_a_profile, rank_groups};

/// The content of a stored profile that an import carries over.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ProfileInput {
    /// `scope_profiler_schema` (1 when absent).
    pub schema: i64,
    /// The attributes of `/metadata`.
    pub metadata: Metadata,
    /// Every name of the region table (with or without rows).
    pub region_names: Vec<String>,
    /// Regions that have rows, in the reference's order: names order, stably sorted by the
    /// earliest start over the region's ranks.
    pub regions: Vec<RegionRanks>,
    /// LIKWID results of the ranks that have them (kept only by `--merge`).
    pub likwid: LikwidByRank,
}

impl ProfileInput {
    /// The file's ranks ascending, each with its regions in the file's region order, as
    /// `import-native` iterates an `.h5` input.
    pub fn into_ranks(self) -> Vec<(u32, Vec<RegionCalls>)> {
        into_ranks(self.regions)
    }

    /// The import's view of a profile read whole: its LIKWID results are given apart.
    pub fn from_profile(profile: Profile, likwid: LikwidByRank) -> ProfileInput {
        let mut regions: Vec<RegionRanks> = profile
            .regions
            .into_iter()
            .map(|region| RegionRanks {
                ranks: region
                    .ranks
                    .into_iter()
                    .map(|row| (row.rank, region_calls(&region.name, row)))
                    .collect(),
                name: region.name,
            })
            .collect();
        sort_regions(&mut regions);
        ProfileInput {
            schema: profile.schema,
            metadata: profile.metadata,
            region_names: profile.region_names,
            regions,
            likwid,
        }
    }
}

/// What an import keeps of a row: its calls and source location.
fn region_calls(name: &str, mut row: RankCalls) -> RegionCalls {
    RegionCalls {
        name: name.to_owned(),
        source_file: row.source_file.as_deref().map(str::to_owned),
        source_line: row.source_line,
        source_text: row.source_text.as_deref().map(str::to_owned),
        starts: std::mem::take(&mut row.starts),
        ends: std::mem::take(&mut row.ends),
    }
}

/// Reads the profile in `file` as an import input. Stricter than [`read::read`]: metadata
/// the writer cannot store again, and an HDF5 file without a single profile object (the
/// reference would import it as an empty profile), are errors.
pub fn read_profile<R: ReadAt>(file: &File<R>) -> Result<ProfileInput, Error> {
    let (profile, likwid) = read_input(file, Depth::Events)?;
    Ok(ProfileInput::from_profile(profile, likwid))
}

/// The profile in `file` read to `depth` with the checks of [`read_profile`], and its
/// LIKWID results: [`Depth::Spans`] for an import that streams the calls.
pub fn read_input<R: ReadAt>(
    file: &File<R>,
    depth: Depth,
) -> Result<(Profile, LikwidByRank), Error> {
    let profile = read::read(file, depth)?;
    let links = file.root()?.links()?;
    let groups = rank_groups(&links);
    if profile.schema < 2
        && groups.is_empty()
        && !links.iter().any(|l| l.name == names::METADATA.name)
    {
        return Err(not_a_profile(
            "it has no scope_profiler_schema attribute, no metadata and no rank groups",
        ));
    }
    let likwid = likwid::read(file, &groups)?;
    Ok((profile, likwid))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_sorted_by_earliest_start_across_ranks() {
        let calls = |name: &str, starts: Vec<i64>| RegionCalls {
            name: name.into(),
            ends: starts.clone(),
            starts,
            ..RegionCalls::default()
        };
        let region = |name: &str, ranks: Vec<(u32, Vec<i64>)>| RegionRanks {
            name: name.into(),
            ranks: ranks
                .into_iter()
                .map(|(r, s)| (r, calls(name, s)))
                .collect(),
        };
        let mut regions = vec![
            region("late", vec![(0, vec![500])]),
            region("early", vec![(1, vec![100])]),
            region("idle", vec![(0, vec![])]),
        ];
        sort_regions(&mut regions);
        let stored = ProfileInput {
            regions,
            ..ProfileInput::default()
        };
        let ranks = stored.into_ranks();
        let names: Vec<Vec<&str>> = ranks
            .iter()
            .map(|(_, r)| r.iter().map(|c| c.name.as_str()).collect())
            .collect();
        assert_eq!(ranks.iter().map(|r| r.0).collect::<Vec<_>>(), [0, 1]);
        assert_eq!(names, [vec!["idle", "late"], vec!["early"]]);
    }
}
