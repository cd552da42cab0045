//! Indexing a trace through positional reads: the header and every region record (names,
//! source location, call count and where its two timestamp arrays lie), without reading the
//! arrays. A gigabyte trace is indexed in a few small reads; the timestamps are then read in
//! blocks with [`read_timestamps`], so memory stays bounded by the caller's block size.
//!
//! This is the one parser of the format: [`parse`](super::parse) is [`index`] over bytes in
//! memory plus views that borrow from them, so both accept and reject exactly the same
//! files with the same errors and offsets.

use std::io;

use super::bytes::Cursor;
use super::error::{TraceError, TraceErrorKind};
use super::header::{parse_header, Endian, Version, HEADER_LEN};
use super::region::{decode_record, RegionIndex};
use super::timestamps::Timestamps;
use crate::io::ReadAt;

/// A validated trace's structure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceIndex {
    pub version: Version,
    pub endian: Endian,
    pub rank: i32,
    /// In file order.
    pub regions: Vec<RegionIndex>,
}

impl TraceIndex {
    /// Total number of calls over all regions.
    pub fn total_calls(&self) -> u64 {
        self.regions.iter().map(|r| r.calls).sum()
    }
}

/// Why a trace could not be indexed: its content, or the read itself.
#[derive(Debug)]
#[non_exhaustive]
pub enum IndexError {
    Trace(TraceError),
    Io(io::Error),
}

impl std::fmt::Display for IndexError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IndexError::Trace(e) => e.fmt(f),
            IndexError::Io(e) => write!(f, "cannot read: {e}"),
        }
    }
}

impl std::error::Error for IndexError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            IndexError::Trace(e) => Some(e),
            IndexError::Io(e) => Some(e),
        }
    }
}

impl From<TraceError> for IndexError {
    fn from(e: TraceError) -> Self {
        IndexError::Trace(e)
    }
}

impl From<io::Error> for IndexError {
    fn from(e: io::Error) -> Self {
        IndexError::Io(e)
    }
}

/// Reads `out.len()` timestamps starting at absolute offset `at`; `scratch` is reused for
/// the raw bytes.
pub fn read_timestamps<R: ReadAt + ?Sized>(
    src: &R,
    at: u64,
    endian: Endian,
    scratch: &mut Vec<u8>,
    out: &mut [i64],
) -> io::Result<()> {
    let len = out
        .len()
        .checked_mul(8)
        .ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
    scratch.resize(len, 0);
    src.read_exact_at(at, scratch)?;
    if let Some(ts) = Timestamps::new(scratch, endian) {
        ts.decode_into(out);
    }
    Ok(())
}

/// Indexes and validates the trace in `src`.
///
/// Checks follow the reference's order (length, magic, version, each record in turn,
/// trailing bytes). Negative counts and lengths, which derail the reference into a
/// truncation or trailing-bytes error, are reported where they are read. The checks the
/// reference lacks entirely (negative rank, NUL bytes in names, repeated names) come last,
/// so a file the reference rejects fails here for the reference's reason or a more precise
/// one, and a file it accepts either gives the same content or fails only those checks.
pub fn index<R: ReadAt + ?Sized>(src: &R) -> Result<TraceIndex, IndexError> {
    let size = src.len();
    let mut head = [0u8; HEADER_LEN];
    let head_len = size.min(HEADER_LEN as u64) as usize;
    src.read_exact_at(0, &mut head[..head_len])?;
    let header = parse_header(&head[..head_len])?;
    let Ok(count) = u64::try_from(header.region_count) else {
        return Err(TraceError::new(
            TraceErrorKind::NegativeRegionCount(header.region_count),
            Some(16),
        )
        .into());
    };
    let available = size.saturating_sub(HEADER_LEN as u64);
    let min_bytes = u128::from(count) * header.version.min_record_len() as u128;
    if min_bytes > u128::from(available) {
        return Err(TraceError::new(
            TraceErrorKind::TooManyRegions {
                count,
                min_bytes,
                available,
            },
            Some(HEADER_LEN as u64),
        )
        .into());
    }
    // `count` is now at most `available / 12`, bounded by the file's real size.
    let mut regions = Vec::with_capacity(usize::try_from(count.min(1 << 16)).unwrap_or(0));
    let mut cur = Cursor::new(src, HEADER_LEN as u64, header.endian);
    for index in 0..count {
        regions.push(decode_record(&mut cur, header.version, index)?);
    }
    if cur.remaining() > 0 {
        return Err(TraceError::new(
            TraceErrorKind::TrailingBytes(cur.remaining()),
            Some(cur.offset()),
        )
        .into());
    }
    super::check_content(header.rank, &regions)?;
    Ok(TraceIndex {
        version: header.version,
        endian: header.endian,
        rank: header.rank,
        regions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{encode, parse, Region, Trace};

    fn sample(version: Version, endian: Endian) -> Vec<u8> {
        let trace = Trace {
            rank: 3,
            regions: vec![
                Region {
                    name: "solve".into(),
                    source_file: Some("solver.c".into()),
                    source_line: Some(7),
                    starts: vec![10, 20, 40],
                    ends: vec![15, 33, 55],
                },
                Region {
                    name: "io".into(),
                    source_file: None,
                    source_line: None,
                    starts: vec![],
                    ends: vec![],
                },
                Region {
                    name: "émit".into(),
                    source_file: Some("x.f90".into()),
                    source_line: None,
                    starts: vec![-5],
                    ends: vec![i64::MAX],
                },
            ],
        };
        encode(&trace, version, endian)
    }

    /// The index of a valid trace names the same records and arrays as `parse`'s view.
    fn assert_same_as_parse(bytes: &[u8]) {
        let view = parse(bytes).unwrap();
        let idx = index(bytes).unwrap();
        assert_eq!(
            (idx.version, idx.endian, idx.rank),
            (view.version, view.endian, view.rank)
        );
        assert_eq!(idx.regions.len(), view.regions.len());
        let mut scratch = Vec::new();
        for (r, v) in idx.regions.iter().zip(&view.regions) {
            assert_eq!(r.name, v.name);
            assert_eq!(r.source_file.as_deref(), v.source_file);
            assert_eq!(r.source_line, v.source_line);
            assert_eq!(r.offset, v.offset);
            let mut starts = vec![0; r.calls as usize];
            let mut ends = vec![0; r.calls as usize];
            read_timestamps(bytes, r.starts_at, idx.endian, &mut scratch, &mut starts).unwrap();
            read_timestamps(bytes, r.ends_at, idx.endian, &mut scratch, &mut ends).unwrap();
            assert_eq!(starts, v.starts.to_vec());
            assert_eq!(ends, v.ends.to_vec());
        }
        assert_eq!(idx.total_calls(), view.total_calls());
    }

    #[test]
    fn valid_traces_index_like_parse() {
        for version in [Version::V1, Version::V2] {
            for endian in [Endian::Little, Endian::Big] {
                assert_same_as_parse(&sample(version, endian));
            }
        }
        let fixture = include_bytes!("testdata/fortran_rank00000.spt");
        assert_same_as_parse(fixture);
    }

    #[test]
    fn record_offsets_of_a_v2_trace() {
        let bytes = sample(Version::V2, Endian::Little);
        let idx = index(bytes.as_slice()).unwrap();
        // Header 24; record: name len 4 + "solve" 5 + source len 4 + "solver.c" 8 + line 4
        // + count 8 = 33 bytes before the starts.
        assert_eq!(idx.regions[0].offset, 24);
        assert_eq!(idx.regions[0].starts_at, 24 + 33);
        assert_eq!(idx.regions[0].ends_at, 24 + 33 + 24);
        assert_eq!(idx.regions[1].offset, 24 + 33 + 48);
    }

    /// Every truncation and every single-byte change gives `parse`'s outcome exactly.
    #[test]
    fn mutated_traces_fail_like_parse() {
        let mut checked = 0;
        for version in [Version::V1, Version::V2] {
            for endian in [Endian::Little, Endian::Big] {
                let bytes = sample(version, endian);
                for cut in 0..bytes.len() {
                    compare(&bytes[..cut]);
                    checked += 1;
                }
                for at in 0..bytes.len() {
                    for value in [0x00, 0x01, 0x7f, 0x80, 0xc3, 0xff] {
                        let mut m = bytes.clone();
                        m[at] = value;
                        compare(&m);
                        checked += 1;
                    }
                }
                let mut longer = bytes.clone();
                longer.push(0);
                compare(&longer);
            }
        }
        assert!(checked > 1000);
    }

    fn compare(bytes: &[u8]) {
        match (parse(bytes), index(bytes)) {
            (Ok(_), Ok(_)) => assert_same_as_parse(bytes),
            (Err(want), Err(IndexError::Trace(got))) => assert_eq!(got, want),
            (want, got) => panic!("parse gave {want:?}, index gave {got:?}"),
        }
    }

    #[test]
    fn short_read_is_an_io_error() {
        struct Failing;
        impl ReadAt for Failing {
            fn len(&self) -> u64 {
                100
            }
            fn read_exact_at(&self, _: u64, _: &mut [u8]) -> io::Result<()> {
                Err(io::Error::from(io::ErrorKind::UnexpectedEof))
            }
        }
        assert!(matches!(index(&Failing), Err(IndexError::Io(_))));
        let mut out = [0i64; 2];
        let err = read_timestamps(&[1u8; 8][..], 0, Endian::Little, &mut Vec::new(), &mut out);
        assert_eq!(err.unwrap_err().kind(), io::ErrorKind::UnexpectedEof);
    }
}
