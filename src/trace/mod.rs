//! The `.spt` binary trace format written by scope-profiler's C and Fortran APIs
//! (SCHEMA.md §1): one rank's regions and their calls, versions 1 and 2, either byte order.
//!
//! [`parse`] validates a whole file held in memory (or memory-mapped) and returns a
//! [`TraceView`] that borrows names and timestamp arrays from it, so even gigabyte traces
//! are parsed without copying. It rejects everything the reference rejects, with the
//! reference's wording where it has one, and also negative lengths and counts, call counts
//! the file cannot hold, repeated region names, names with NUL bytes and negative ranks.
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
pub use index::{index, read_timestamps, IndexError, RegionIndex, TraceIndex};
pub use model::{Region, Trace};
pub use region::{EncodeError, RegionView};
pub use timestamps::{TimestampIter, Timestamps};
pub use writer::{encode, try_encode, TraceWriter};

use bytes::Cursor;
use region::parse_region;

/// A validated trace borrowed from the file's bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceView<'a> {
    pub version: Version,
    pub endian: Endian,
    pub rank: i32,
    /// In file order.
    pub regions: Vec<RegionView<'a>>,
}

/// Parses and validates a whole trace file.
///
/// Checks follow the reference's order (length, magic, version, each record in turn,
/// trailing bytes). Negative counts and lengths, which derail the reference into a
/// truncation or trailing-bytes error, are reported where they are read. The checks the
/// reference lacks entirely (negative rank, NUL bytes in names, repeated names) come last,
/// so a file the reference rejects fails here for the reference's reason or a more precise
/// one, and a file it accepts either parses to the same content or fails only those checks.
pub fn parse(bytes: &[u8]) -> Result<TraceView<'_>, TraceError> {
    let view = parse_structure(bytes)?;
    view.check_content()?;
    Ok(view)
}

/// The byte-level parse: everything but the content checks of [`TraceView::check_content`].
fn parse_structure(bytes: &[u8]) -> Result<TraceView<'_>, TraceError> {
    let header = parse_header(bytes)?;
    let Ok(count) = u64::try_from(header.region_count) else {
        return Err(TraceError::new(
            TraceErrorKind::NegativeRegionCount(header.region_count),
            Some(16),
        ));
    };
    let available = bytes.len().saturating_sub(HEADER_LEN);
    let min_bytes = u128::from(count) * header.version.min_record_len() as u128;
    if min_bytes > available as u128 {
        return Err(TraceError::new(
            TraceErrorKind::TooManyRegions {
                count,
                min_bytes,
                available: available as u64,
            },
            Some(HEADER_LEN as u64),
        ));
    }
    // `count` is now at most `available / 12`, so sizing by it is safe.
    let mut regions = Vec::with_capacity(usize::try_from(count).unwrap_or(0));
    let mut cur = Cursor::new(bytes, HEADER_LEN, header.endian);
    for index in 0..count {
        regions.push(parse_region(
            &mut cur,
            header.version,
            header.endian,
            index,
        )?);
    }
    if cur.remaining() > 0 {
        return Err(TraceError::new(
            TraceErrorKind::TrailingBytes(cur.remaining() as u64),
            Some(cur.offset()),
        ));
    }
    Ok(TraceView {
        version: header.version,
        endian: header.endian,
        rank: header.rank,
        regions,
    })
}

impl TraceView<'_> {
    /// The checks beyond the reference's; see [`check_content`].
    fn check_content(&self) -> Result<(), TraceError> {
        check_content(
            self.rank,
            self.regions.iter().map(|r| RecordNames {
                name: r.name,
                source_file: r.source_file,
                offset: r.offset,
            }),
        )
    }

    /// Total number of calls over all regions.
    pub fn total_calls(&self) -> u64 {
        self.regions.iter().map(|r| r.calls() as u64).sum()
    }
}

/// The strings of one record and where it starts.
pub(crate) struct RecordNames<'a> {
    name: &'a str,
    source_file: Option<&'a str>,
    offset: u64,
}

/// The checks beyond the reference's: a non-negative rank, no NUL byte in a name or source
/// path (HDF5 strings end at NUL), and each region name at most once (the reference silently
/// keeps only the later record).
pub(crate) fn check_content<'a>(
    rank: i32,
    regions: impl ExactSizeIterator<Item = RecordNames<'a>>,
) -> Result<(), TraceError> {
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
                            name: Some(region.name.to_owned()),
                        },
                    },
                    Some(at.saturating_add(p as u64)),
                )
            })
        };
        let name_offset = region.offset.saturating_add(4);
        if let Some(e) = nul(Field::Name, region.name, name_offset) {
            return Err(e);
        }
        if let Some(source) = region.source_file {
            let source_offset = name_offset
                .saturating_add(region.name.len() as u64)
                .saturating_add(4);
            if let Some(e) = nul(Field::SourceFile, source, source_offset) {
                return Err(e);
            }
        }
        if let Some(first_index) = seen.insert(region.name, index) {
            return Err(TraceError::new(
                TraceErrorKind::DuplicateRegion {
                    name: region.name.to_owned(),
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
