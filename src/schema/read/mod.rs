//! The one reader of stored profiles: schema 1, 2 or 3, columnar or aggregate, into the
//! [`Profile`] model, to the [`Depth`] a caller needs. It makes the checks the reference's
//! `read_h5` makes (SCHEMA.md §4) and follows its view of a file: region-table order, the
//! later of two rows of one (rank, region) wins, `num_ranks` from `mpi_size` and the ranks
//! column.
//!
//! ```
//! use sp::hdf5lite::reader::File;
//! use sp::schema::{read, Depth};
//! # fn demo(bytes: &[u8]) -> Result<(), sp::schema::Error> {
//! let file = File::open(bytes)?;
//! // Only region_table, rank_region_index and metadata: fast on a profile of any size.
//! let index = read(&file, Depth::Index)?;
//! for region in &index.regions {
//!     println!("{}: {} rank(s)", region.name, region.ranks.len());
//! }
//! # Ok(()) }
//! ```

mod aggregate;
mod columnar;
pub mod events;
mod legacy;
mod statistics;
mod summaries;
mod tags;
#[cfg(test)]
mod tests;

use crate::hdf5lite::reader::{File, Group, LinkEntry, LinkKind, Value};
use crate::hdf5lite::{Datatype, Shape, StringLength};
use crate::io::ReadAt;
use crate::sort::SortSlice;

use super::error::Error;
use super::metadata::{self, describe, MetaValue, Metadata};
use super::names;
use super::profile::{Depth, Profile, ProfileLayout, RankCalls, Region};

pub use statistics::read_statistics;
pub use tags::RegionTags;

/// The newest schema this crate reads.
pub const NEWEST_SCHEMA: i64 = 3;

/// Reads the profile in `file` to `depth`.
pub fn read<R: ReadAt>(file: &File<R>, depth: Depth) -> Result<Profile, Error> {
    let root = file.root()?;
    let schema = schema_version(file, &root)?;
    let links = root.links()?;
    let has = |name: &str| links.iter().any(|l| l.name == name);
    let metadata = if has(names::METADATA.name) {
        metadata::read(file, &file.group(names::METADATA.path)?)?
    } else {
        Metadata::new()
    };
    let mut profile = Profile {
        schema,
        layout: ProfileLayout::Legacy,
        metadata,
        num_ranks: 0,
        region_names: Vec::new(),
        regions: Vec::new(),
        depth,
        summary_statistics: false,
    };
    if schema < 2 {
        let groups = rank_groups(&links);
        profile.num_ranks = groups.len() as u64;
        if depth != Depth::Metadata {
            (profile.region_names, profile.regions) = legacy::read(file, &groups)?;
        }
        return Ok(profile);
    }
    if !has(names::REGION_TABLE.name) || !has(names::INDEX.name) {
        return Err(not_a_profile(
            "it has a schema attribute but no region_table or rank_region_index",
        ));
    }
    let aggregate = is_aggregate(file, &root)?;
    profile.layout = if aggregate {
        ProfileLayout::Aggregate
    } else {
        ProfileLayout::Columnar
    };
    let ranks = int_column(file, names::index::RANKS)?;
    profile.num_ranks = num_ranks(&profile.metadata, &ranks);
    if profile.num_ranks > MAX_RANKS {
        return Err(Error::Corrupt(format!(
            "the profile claims {} ranks (more than {MAX_RANKS})",
            profile.num_ranks
        )));
    }
    profile.summary_statistics = has_link(file, names::index::SUMMARY_STATISTICS)?;
    if depth == Depth::Metadata {
        return Ok(profile);
    }
    let names = file.dataset(names::REGION_NAMES.path)?.read_strings()?;
    profile.regions = if aggregate {
        aggregate::read(file, &names, ranks)?
    } else {
        columnar::read(file, depth, &names, ranks)?
    };
    profile.region_names = names;
    Ok(profile)
}

/// The rank groups of the root (`rank<N>` hard links), ranks ascending.
pub fn rank_groups(links: &[LinkEntry]) -> Vec<(u32, String)> {
    let mut groups: Vec<(u32, String)> = links
        .iter()
        .filter(|l| matches!(l.kind, LinkKind::Hard(_)))
        .filter_map(|l| names::rank::number(&l.name).map(|r| (r, l.name.clone())))
        .collect();
    groups.sort_ord();
    groups
}

pub(crate) fn not_a_profile(why: &str) -> Error {
    Error::NotAProfile(format!("not a scope-profiler profile: {why}"))
}

/// `scope_profiler_schema`: an integer scalar from 1 to 3, or absent (schema 1).
fn schema_version<R: ReadAt>(file: &File<R>, root: &Group<'_, R>) -> Result<i64, Error> {
    let Some(attr) = root.attribute(names::SCHEMA_VERSION)? else {
        return Ok(1);
    };
    let value = attr.value(file)?;
    let version = match (attr.datatype(), attr.shape(), &value) {
        (Datatype::Integer { .. }, Some(Shape::Scalar), Value::Int(v)) => *v,
        _ => {
            return Err(Error::Schema(format!(
                "HDF5 schema version attribute 'scope_profiler_schema' must be an integer \
                 scalar, got {}",
                describe(attr.datatype())
            )))
        }
    };
    if version < 1 {
        return Err(Error::Schema(format!(
            "unsupported scope-profiler HDF5 schema version {version}; versions must be positive"
        )));
    }
    if version > i128::from(NEWEST_SCHEMA) {
        return Err(Error::Schema(format!(
            "unsupported scope-profiler HDF5 schema version {version}; sp reads versions \
             through {NEWEST_SCHEMA}"
        )));
    }
    Ok(version as i64)
}

/// Whether `storage_layout` is the variable-length string "aggregate" (a fixed-length one
/// reads as columnar in the reference, which sees bytes, not str).
pub(crate) fn is_aggregate<R: ReadAt>(file: &File<R>, root: &Group<'_, R>) -> Result<bool, Error> {
    let Some(attr) = root.attribute(names::STORAGE_LAYOUT)? else {
        return Ok(false);
    };
    let variable = matches!(
        attr.datatype(),
        Datatype::String {
            length: StringLength::Variable,
            ..
        }
    );
    Ok(variable
        && attr.shape() == Some(Shape::Scalar)
        && attr.value(file)? == Value::String(names::AGGREGATE.into()))
}

/// The most ranks a profile may claim (`mpi_size`, or the largest rank + 1). Exports name
/// every rank, so a damaged value must not ask for billions; 2^20 is above the job sizes
/// scope-profiler runs at.
pub const MAX_RANKS: u64 = 1 << 20;

/// `max(int(mpi_size), highest rank + 1)` when there are rows, else 0. `mpi_size` counts
/// when it is a non-negative integer (or a string of one); otherwise it is 1.
fn num_ranks(metadata: &Metadata, ranks: &[i64]) -> u64 {
    let mpi_size = metadata
        .get("mpi_size")
        .and_then(|v| match v {
            MetaValue::Int(i) => u64::try_from(*i).ok(),
            MetaValue::Str(s) => s.parse().ok(),
            MetaValue::Typed(_, Shape::Scalar, _) => match v.typed_elements()?.as_slice() {
                [Value::Int(i)] => i64::try_from(*i).ok().and_then(|i| u64::try_from(i).ok()),
                _ => None,
            },
            _ => None,
        })
        .unwrap_or(1);
    match ranks.iter().max() {
        Some(&m) => mpi_size.max(u64::try_from(m).map_or(0, |m| m.saturating_add(1))),
        None => 0,
    }
}

/// Whether `dataset` exists (its group does and links it).
pub(crate) fn has_link<R: ReadAt>(file: &File<R>, dataset: names::Dataset) -> Result<bool, Error> {
    Ok(file
        .group(dataset.group.path)?
        .links()?
        .iter()
        .any(|l| l.name == dataset.name))
}

/// An integer column as `i64`.
fn int_column<R: ReadAt>(file: &File<R>, dataset: names::Dataset) -> Result<Vec<i64>, Error> {
    Ok(file.dataset(dataset.path)?.read_i64s()?)
}

/// `column` must hold at least the `rows` rows of `region_ids` (longer columns are cut, as
/// the reference indexes them row by row).
fn check_length(column: names::Dataset, len: usize, rows: usize) -> Result<(), Error> {
    if len < rows {
        return Err(Error::Corrupt(format!(
            "{} has {len} rows, region_ids has {rows}",
            column.path
        )));
    }
    Ok(())
}

/// Index of `region_ids[row]` into the region table.
fn region_index(row: usize, id: i64, names: usize) -> Result<usize, Error> {
    usize::try_from(id)
        .ok()
        .filter(|&i| i < names)
        .ok_or_else(|| {
            Error::Corrupt(format!(
                "row {row} has region id {id} but the region table holds {names} names"
            ))
        })
}

fn rank_of(value: i64) -> Result<u32, Error> {
    u32::try_from(value).map_err(|_| Error::Corrupt(format!("rank {value} is out of range")))
}

/// Rows (region index, row) gathered into regions in the region table's order as they are
/// read, dropping regions with no row: the reference cannot order them. A later row of the
/// same rank replaces the earlier one in its place, as a dict would. Rows go straight into
/// their region, so 100,000 ranks' rows are held once, not twice.
pub(super) struct Assembly {
    regions: Vec<Region>,
    /// Per region, whether its rows came in ascending rank order so far (as writers store
    /// them): then nothing is merged, and no walk of the rows checks it again (at 100,000
    /// ranks a walk of a million rows is a twentieth of `sp tui`'s first screen).
    ascending: Vec<bool>,
}

impl Assembly {
    /// No rows yet; each region's room is sized from `region_ids` (ids out of the table's
    /// range count nothing: the reader rejects them).
    pub(super) fn new(names: &[String], region_ids: &[i64]) -> Assembly {
        let mut rows = vec![0usize; names.len()];
        for id in region_ids {
            if let Some(n) = usize::try_from(*id).ok().and_then(|i| rows.get_mut(i)) {
                *n += 1;
            }
        }
        Assembly {
            regions: names
                .iter()
                .zip(rows)
                .map(|(n, rows)| Region {
                    name: n.clone(),
                    ranks: Vec::with_capacity(rows),
                })
                .collect(),
            ascending: vec![true; names.len()],
        }
    }

    /// Adds `row` to region `id` (a table index the caller checked).
    pub(super) fn push(&mut self, id: usize, row: RankCalls) {
        if let (Some(region), Some(ascending)) =
            (self.regions.get_mut(id), self.ascending.get_mut(id))
        {
            if region
                .ranks
                .last()
                .is_some_and(|last| last.rank >= row.rank)
            {
                *ascending = false;
            }
            region.ranks.push(row);
        }
    }

    /// The regions that have rows, each rank's rows merged into its first place.
    pub(super) fn finish(self) -> Vec<Region> {
        (self.regions.into_iter().zip(self.ascending))
            .filter(|(r, _)| !r.ranks.is_empty())
            .map(|(mut region, ascending)| {
                if !ascending {
                    merge_repeated_ranks(&mut region.ranks);
                }
                region
            })
            .collect()
    }
}

/// Keeps one row per rank: the last row of a rank replaces its first, in the first's
/// place, as a dict keyed by rank would. Ranks that only increase (how writers store them)
/// are checked in one pass; otherwise a sort finds the repeats, O(n log n) however many
/// ranks there are.
fn merge_repeated_ranks(rows: &mut Vec<RankCalls>) {
    if rows.windows(2).all(|w| w[0].rank < w[1].rank) {
        return;
    }
    let mut order: Vec<(u32, usize)> = rows.iter().enumerate().map(|(i, r)| (r.rank, i)).collect();
    order.sort_ord_unstable();
    let mut drop = vec![false; rows.len()];
    for run in order.chunk_by(|a, b| a.0 == b.0) {
        let (first, last) = (run[0].1, run[run.len() - 1].1);
        if first != last {
            rows.swap(first, last);
            for &(_, later) in &run[1..] {
                drop[later] = true;
            }
        }
    }
    let mut i = 0;
    rows.retain(|_| {
        i += 1;
        !drop[i - 1]
    });
}

/// A text attribute of a schema-1 region (UTF-8, or bytes decoded lossily).
fn text(value: Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s),
        Value::Bytes(b) => Some(String::from_utf8_lossy(&b).into_owned()),
        _ => None,
    }
}
