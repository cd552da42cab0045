//! The `.spt` binary trace format written by scope-profiler's C and Fortran APIs
//! (SCHEMA.md §1): one rank's regions and their calls, versions 1 and 2, either byte order.
//!
//! [`index`] reads a trace through positional reads ([`ReadAt`](crate::io::ReadAt)) and
//! locates every record's timestamp arrays without reading them; [`parse`] is the same over
//! a whole file held in memory, with a [`TraceView`] that borrows names and timestamp arrays
//! from it, so even gigabyte traces are parsed without copying. Both reject everything the
//! reference rejects, with the reference's wording where it has one, and also negative
//! lengths and counts, call counts the file cannot hold, repeated region names, names with
//! NUL bytes and negative ranks.
//! [`encode`] and [`TraceWriter`] write traces for tests, samples and benchmarks.
//!
//! ```
//! use sp::trace::{encode, parse, Endian, Region, Trace, Version};
//!
//! let trace = Trace {
//!     rank: 0,
//!     regions: vec![Region {
//!         name: "solve".into(),
//!         source_file: Some("solver.c".into()),
//!         source_line: Some(7),
//!         starts: vec![10, 20, 40],
//!         ends: vec![15, 33, 55],
//!     }],
//! };
//! let bytes = encode(&trace, Version::V2, Endian::Little);
//! assert_eq!(bytes.len(), 105);
//!
//! let view = parse(&bytes)?;
//! assert_eq!(view.version.number(), 2);
//! assert_eq!(view.regions[0].name, "solve");
//! assert_eq!(view.regions[0].starts.iter().sum::<i64>(), 70);
//! assert_eq!(view.to_trace(), trace);
//! # Ok::<(), sp::trace::TraceError>(())
//! ```

mod bytes;
mod error;
mod header;
mod index;
mod model;
mod region;
mod timestamps;
mod writer;

use std::collections::HashMap;

pub use error::{Field, RegionRef, TraceError, TraceErrorKind};
pub use header::{parse_header, Endian, Header, Version, HEADER_LEN, MAGIC};
pub use index::{index, read_timestamps, IndexError, TraceIndex};
pub use model::{Region, Trace};
pub use region::{EncodeError, RegionIndex, RegionView};
pub use timestamps::{TimestampIter, Timestamps};
pub use writer::{encode, try_encode, TraceWriter};

/// A validated trace borrowed from the file's bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceView<'a> {
    pub version: Version,
    pub endian: Endian,
    pub rank: i32,
    /// In file order.
    pub regions: Vec<RegionView<'a>>,
}

/// Parses and validates a whole trace file: [`index`] over the bytes, then views that
/// borrow each record's strings and timestamp arrays from them. It accepts and rejects
/// exactly what [`index`] does (see there for the order of the checks).
pub fn parse(bytes: &[u8]) -> Result<TraceView<'_>, TraceError> {
    let index = index(bytes).map_err(|e| match e {
        IndexError::Trace(e) => e,
        // Every read of the indexer is checked against the length first, so reading
        // memory does not fail; were it to, the bytes ended early.
        IndexError::Io(_) => TraceError::new(
            TraceErrorKind::TooShort {
                len: bytes.len() as u64,
            },
            None,
        ),
    })?;
    let regions = index
        .regions
        .iter()
        .map(|r| r.view(bytes, index.endian))
        .collect::<Result<_, _>>()?;
    Ok(TraceView {
        version: index.version,
        endian: index.endian,
        rank: index.rank,
        regions,
    })
}

impl TraceView<'_> {
    /// Total number of calls over all regions.
    pub fn total_calls(&self) -> u64 {
        self.regions.iter().map(|r| r.calls() as u64).sum()
    }
}

/// The checks beyond the reference's: a non-negative rank, no NUL byte in a name or source
/// path (HDF5 strings end at NUL), and each region name at most once (the reference silently
/// keeps only the later record).
fn check_content(rank: i32, regions: &[RegionIndex]) -> Result<(), TraceError> {
    if rank < 0 {
        return Err(TraceError::new(
            TraceErrorKind::NegativeRank(rank),
            Some(12),
        ));
    }
    let mut seen: HashMap<&str, u64> = HashMap::with_capacity(regions.len());
    for (index, region) in (0u64..).zip(regions) {
        let nul = |field: Field, text: &str, at: u64| {
            text.bytes().position(|b| b == 0).map(|p| {
                TraceError::new(
                    TraceErrorKind::NulInName {
                        field,
                        region: RegionRef {
                            index,
                            name: Some(region.name.clone()),
                        },
                    },
                    Some(at.saturating_add(p as u64)),
                )
            })
        };
        let name_offset = region.offset.saturating_add(4);
        if let Some(e) = nul(Field::Name, &region.name, name_offset) {
            return Err(e);
        }
        if let Some(source) = &region.source_file {
            let source_offset = name_offset
                .saturating_add(region.name.len() as u64)
                .saturating_add(4);
            if let Some(e) = nul(Field::SourceFile, source, source_offset) {
                return Err(e);
            }
        }
        if let Some(first_index) = seen.insert(&region.name, index) {
            return Err(TraceError::new(
                TraceErrorKind::DuplicateRegion {
                    name: region.name.clone(),
                    first_index,
                    second_index: index,
                },
                Some(region.offset),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
