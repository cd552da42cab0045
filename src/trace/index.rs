//! Indexing a trace through positional reads: the header and every region record (names,
//! source location, call count and where its two timestamp arrays lie), without reading the
//! arrays. A gigabyte trace is indexed in a few small reads; the timestamps are then read in
//! blocks with [`read_timestamps`], so memory stays bounded by the caller's block size.
//!
//! [`index`] accepts and rejects exactly what [`parse`](super::parse) does, with the same
//! errors and offsets (a test checks this on mutated traces).

use std::io;

use super::error::{Field, RegionRef, TraceError, TraceErrorKind};
use super::header::{parse_header, Endian, Version, HEADER_LEN};
use super::timestamps::Timestamps;
use crate::io::ReadAt;

/// Where one region record's data lies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionIndex {
    pub name: String,
    /// Version 2 with a non-zero source-file length.
    pub source_file: Option<String>,
    /// Version 2 with a line `>= 0`.
    pub source_line: Option<i32>,
    pub calls: u64,
    /// Absolute offset of the first start timestamp.
    pub starts_at: u64,
    /// Absolute offset of the first end timestamp.
    pub ends_at: u64,
    /// Absolute offset of the record.
    pub offset: u64,
}

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

impl std::error::Error for IndexError {}

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
    let mut cur = PosCursor {
        src,
        pos: HEADER_LEN as u64,
        size,
        endian: header.endian,
    };
    for index in 0..count {
        regions.push(index_region(&mut cur, header.version, index)?);
    }
    if cur.remaining() > 0 {
        return Err(TraceError::new(
            TraceErrorKind::TrailingBytes(cur.remaining()),
            Some(cur.pos),
        )
        .into());
    }
    let index = TraceIndex {
        version: header.version,
        endian: header.endian,
        rank: header.rank,
        regions,
    };
    super::check_content(
        index.rank,
        index.regions.iter().map(|r| super::RecordNames {
            name: &r.name,
            source_file: r.source_file.as_deref(),
            offset: r.offset,
        }),
    )?;
    Ok(index)
}

/// A read position in a [`ReadAt`].
struct PosCursor<'s, R: ?Sized> {
    src: &'s R,
    pos: u64,
    size: u64,
    endian: Endian,
}

impl<R: ReadAt + ?Sized> PosCursor<'_, R> {
    fn remaining(&self) -> u64 {
        self.size.saturating_sub(self.pos)
    }

    /// The next `N` bytes, or `None` (no movement) if fewer remain.
    fn array<const N: usize>(&mut self) -> io::Result<Option<[u8; N]>> {
        if self.remaining() < N as u64 {
            return Ok(None);
        }
        let mut buf = [0u8; N];
        self.src.read_exact_at(self.pos, &mut buf)?;
        self.pos += N as u64;
        Ok(Some(buf))
    }

    fn i32(&mut self) -> io::Result<Option<i32>> {
        Ok(self.array::<4>()?.map(|raw| match self.endian {
            Endian::Little => i32::from_le_bytes(raw),
            Endian::Big => i32::from_be_bytes(raw),
        }))
    }

    fn i64(&mut self) -> io::Result<Option<i64>> {
        Ok(self.array::<8>()?.map(|raw| match self.endian {
            Endian::Little => i64::from_le_bytes(raw),
            Endian::Big => i64::from_be_bytes(raw),
        }))
    }
}

/// Error context inside one record.
struct Record {
    index: u64,
    name: Option<String>,
}

impl Record {
    fn region(&self) -> RegionRef {
        RegionRef {
            index: self.index,
            name: self.name.clone(),
        }
    }

    fn truncated<R: ReadAt + ?Sized>(
        &self,
        field: Field,
        needed: u128,
        cur: &PosCursor<'_, R>,
    ) -> TraceError {
        TraceError::new(
            TraceErrorKind::Truncated {
                field,
                region: self.region(),
                needed,
                available: cur.remaining(),
            },
            Some(cur.pos),
        )
    }

    /// A length-prefixed UTF-8 string whose length `len` was read at `len_at`.
    fn string<R: ReadAt + ?Sized>(
        &self,
        cur: &mut PosCursor<'_, R>,
        field: Field,
        len: i32,
        len_at: u64,
    ) -> Result<String, IndexError> {
        let Ok(n) = usize::try_from(len) else {
            return Err(TraceError::negative_length(field, self.region(), len, len_at).into());
        };
        if n as u64 > cur.remaining() {
            return Err(self.truncated(field, n as u128, cur).into());
        }
        let at = cur.pos;
        // `n` is at most the bytes left in the source.
        let mut bytes = vec![0u8; n];
        cur.src.read_exact_at(at, &mut bytes)?;
        cur.pos += n as u64;
        String::from_utf8(bytes).map_err(|e| {
            TraceError::invalid_utf8(field, self.region(), e.as_bytes(), e.utf8_error(), at).into()
        })
    }
}

/// Indexes the record at the cursor, the `index`-th of the file (mirrors `parse_region`).
fn index_region<R: ReadAt + ?Sized>(
    cur: &mut PosCursor<'_, R>,
    version: Version,
    index: u64,
) -> Result<RegionIndex, IndexError> {
    let offset = cur.pos;
    let mut rec = Record { index, name: None };

    let name_len = cur
        .i32()?
        .ok_or_else(|| rec.truncated(Field::NameLength, 4, cur))?;
    let name = rec.string(cur, Field::Name, name_len, offset)?;
    rec.name = Some(name.clone());

    let (mut source_file, mut source_line) = (None, None);
    if version.has_source() {
        let len_at = cur.pos;
        let source_len = cur
            .i32()?
            .ok_or_else(|| rec.truncated(Field::SourceLength, 4, cur))?;
        let source = rec.string(cur, Field::SourceFile, source_len, len_at)?;
        source_file = (!source.is_empty()).then_some(source);
        let line = cur
            .i32()?
            .ok_or_else(|| rec.truncated(Field::SourceLine, 4, cur))?;
        source_line = (line >= 0).then_some(line);
    }

    let count_at = cur.pos;
    let count = cur
        .i64()?
        .ok_or_else(|| rec.truncated(Field::CallCount, 8, cur))?;
    let Ok(calls) = u64::try_from(count) else {
        return Err(TraceError::new(
            TraceErrorKind::NegativeCount {
                region: rec.region(),
                value: count,
            },
            Some(count_at),
        )
        .into());
    };
    let needed = u128::from(calls) * 16;
    if needed > u128::from(cur.remaining()) {
        return Err(rec.truncated(Field::Timestamps, needed, cur).into());
    }
    // `calls * 16` fits in the remaining bytes, hence in u64.
    let starts_at = cur.pos;
    let ends_at = starts_at + calls * 8;
    cur.pos = ends_at + calls * 8;
    Ok(RegionIndex {
        name,
        source_file,
        source_line,
        calls,
        starts_at,
        ends_at,
        offset,
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
