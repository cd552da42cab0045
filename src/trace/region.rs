//! One region record: name, (version 2) source file and line, call count, then all starts
//! and all ends (SCHEMA.md §1.1). [`decode_record`] is the one decoder of a record: it reads
//! the fields through a positional cursor and leaves the timestamp arrays where they lie, as a
//! [`RegionIndex`]; [`RegionIndex::view`] borrows the strings and arrays from a file held in
//! memory.

use super::bytes::{put_i32, put_i64, Cursor};
use super::error::{Field, RegionRef, TraceError, TraceErrorKind};
use super::header::{Endian, Version};
use super::index::IndexError;
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

/// A region record borrowed from the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionView<'a> {
    pub name: &'a str,
    /// Version 2 with a non-zero source-file length.
    pub source_file: Option<&'a str>,
    /// Version 2 with a line `>= 0`, whether or not a file is present (the profile keeps
    /// it only with a file; that rule belongs to the schema layer).
    pub source_line: Option<i32>,
    pub starts: Timestamps<'a>,
    pub ends: Timestamps<'a>,
    /// Absolute offset of the record in the file.
    pub offset: u64,
}

impl RegionView<'_> {
    /// Number of calls (`starts.len() == ends.len()`).
    pub fn calls(&self) -> usize {
        self.starts.len()
    }

    /// Absolute offset of the name bytes.
    pub fn name_offset(&self) -> u64 {
        self.offset.saturating_add(4)
    }

    /// Absolute offset of the source-file bytes (meaningful for version 2 only).
    pub fn source_offset(&self) -> u64 {
        self.name_offset()
            .saturating_add(self.name.len() as u64)
            .saturating_add(4)
    }
}

impl RegionIndex {
    /// Absolute offset of the name bytes.
    fn name_offset(&self) -> u64 {
        self.offset.saturating_add(4)
    }

    /// Absolute offset of the source-file bytes (version 2).
    fn source_offset(&self) -> u64 {
        self.name_offset()
            .saturating_add(self.name.len() as u64)
            .saturating_add(4)
    }

    /// The record borrowed from `bytes`, which must be the whole file this index was made
    /// of (then every field lies where the index says, and its strings are valid UTF-8).
    pub(crate) fn view<'a>(
        &self,
        bytes: &'a [u8],
        endian: Endian,
    ) -> Result<RegionView<'a>, TraceError> {
        let text = |field: Field, at: u64, len: usize| {
            slice(bytes, at, len as u64)
                .and_then(|raw| std::str::from_utf8(raw).ok())
                .ok_or_else(|| self.not_in(bytes, field))
        };
        let name = text(Field::Name, self.name_offset(), self.name.len())?;
        let source_file = match &self.source_file {
            Some(s) => Some(text(Field::SourceFile, self.source_offset(), s.len())?),
            None => None,
        };
        let half = self.calls.saturating_mul(8);
        let timestamps = |at: u64| {
            slice(bytes, at, half)
                .and_then(|b| Timestamps::new(b, endian))
                .ok_or_else(|| self.not_in(bytes, Field::Timestamps))
        };
        Ok(RegionView {
            name,
            source_file,
            source_line: self.source_line,
            starts: timestamps(self.starts_at)?,
            ends: timestamps(self.ends_at)?,
            offset: self.offset,
        })
    }

    /// The error of a [`view`](Self::view) into bytes this index was not made of.
    fn not_in(&self, bytes: &[u8], field: Field) -> TraceError {
        TraceError::new(
            TraceErrorKind::Truncated {
                field,
                region: RegionRef {
                    index: 0,
                    name: Some(self.name.clone()),
                },
                needed: u128::from(self.calls) * 16,
                available: (bytes.len() as u64).saturating_sub(self.offset),
            },
            Some(self.offset),
        )
    }
}

/// `len` bytes at `at`, if they lie within `bytes`.
fn slice(bytes: &[u8], at: u64, len: u64) -> Option<&[u8]> {
    let start = usize::try_from(at).ok()?;
    let end = start.checked_add(usize::try_from(len).ok()?)?;
    bytes.get(start..end)
}

/// Context for errors inside one record.
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
        cur: &Cursor<'_, R>,
    ) -> TraceError {
        TraceError::new(
            TraceErrorKind::Truncated {
                field,
                region: self.region(),
                needed,
                available: cur.remaining(),
            },
            Some(cur.offset()),
        )
    }

    /// A length-prefixed UTF-8 string; the length field has already been read at `len_at`.
    fn string<R: ReadAt + ?Sized>(
        &self,
        cur: &mut Cursor<'_, R>,
        field: Field,
        len: i32,
        len_at: u64,
    ) -> Result<String, IndexError> {
        let Ok(n) = u64::try_from(len) else {
            return Err(TraceError::negative_length(field, self.region(), len, len_at).into());
        };
        let at = cur.offset();
        let bytes = cur
            .bytes(n)?
            .ok_or_else(|| self.truncated(field, u128::from(n), cur))?;
        String::from_utf8(bytes).map_err(|e| {
            TraceError::invalid_utf8(field, self.region(), e.as_bytes(), e.utf8_error(), at).into()
        })
    }
}

/// Decodes the record at the cursor, the `index`-th of the file, leaving the cursor after
/// its timestamps (which are located, not read).
pub(crate) fn decode_record<R: ReadAt + ?Sized>(
    cur: &mut Cursor<'_, R>,
    version: Version,
    index: u64,
) -> Result<RegionIndex, IndexError> {
    let offset = cur.offset();
    let mut rec = Record { index, name: None };

    let name_len = cur
        .i32()?
        .ok_or_else(|| rec.truncated(Field::NameLength, 4, cur))?;
    let name = rec.string(cur, Field::Name, name_len, offset)?;
    rec.name = Some(name.clone());

    let (mut source_file, mut source_line) = (None, None);
    if version.has_source() {
        let len_at = cur.offset();
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

    let count_at = cur.offset();
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
    // Both arrays at once, checked before anything is sized by the count.
    let needed = u128::from(calls) * 16;
    if needed > u128::from(cur.remaining()) {
        return Err(rec.truncated(Field::Timestamps, needed, cur).into());
    }
    // `calls * 16` fits in the remaining bytes, hence in u64.
    let starts_at = cur.offset();
    let ends_at = starts_at + calls * 8;
    if !cur.skip(calls * 16) {
        return Err(rec.truncated(Field::Timestamps, needed, cur).into());
    }
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

/// Why a record cannot be encoded.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EncodeError {
    /// A name or source path longer than `i32::MAX` bytes.
    StringTooLong { field: Field, len: usize },
    /// A call count above `i64::MAX`.
    TooManyCalls(u64),
    /// Starts and ends of one region differ in length.
    CallCountMismatch { starts: usize, ends: usize },
    /// More regions than `i64::MAX`.
    TooManyRegions(u64),
    /// The streaming writer was used out of order (e.g. ends before all starts).
    Sequence(&'static str),
}

impl std::fmt::Display for EncodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EncodeError::StringTooLong { field, len } => {
                write!(f, "{field} of {len} bytes is longer than a trace can store")
            }
            EncodeError::TooManyCalls(n) => write!(f, "{n} calls are more than a trace can store"),
            EncodeError::CallCountMismatch { starts, ends } => {
                write!(f, "{starts} starts but {ends} ends")
            }
            EncodeError::TooManyRegions(n) => {
                write!(f, "{n} regions are more than a trace can store")
            }
            EncodeError::Sequence(what) => f.write_str(what),
        }
    }
}

impl std::error::Error for EncodeError {}

fn string_len(s: &str, field: Field) -> Result<i32, EncodeError> {
    i32::try_from(s.len()).map_err(|_| EncodeError::StringTooLong {
        field,
        len: s.len(),
    })
}

/// Appends a record's fields up to and including the call count. A version-1 record drops
/// the source location; `Some("")` and a negative line are stored as "unknown".
pub(crate) fn encode_region_head(
    out: &mut Vec<u8>,
    version: Version,
    endian: Endian,
    name: &str,
    source_file: Option<&str>,
    source_line: Option<i32>,
    calls: u64,
) -> Result<(), EncodeError> {
    let name_len = string_len(name, Field::Name)?;
    let source = source_file.unwrap_or("");
    let source_len = string_len(source, Field::SourceFile)?;
    let calls = i64::try_from(calls).map_err(|_| EncodeError::TooManyCalls(calls))?;
    put_i32(out, name_len, endian);
    out.extend_from_slice(name.as_bytes());
    if version.has_source() {
        put_i32(out, source_len, endian);
        out.extend_from_slice(source.as_bytes());
        put_i32(out, source_line.filter(|l| *l >= 0).unwrap_or(-1), endian);
    }
    put_i64(out, calls, endian);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The §1.1 fixture's record (v2, little-endian): `solve`, `solver.c:7`, 3 calls.
    const V2_LE: &[u8] = &[
        0x05, 0, 0, 0, // name length 5
        b's', b'o', b'l', b'v', b'e', // "solve"
        0x08, 0, 0, 0, // source length 8
        b's', b'o', b'l', b'v', b'e', b'r', b'.', b'c', // "solver.c"
        0x07, 0, 0, 0, // line 7
        0x03, 0, 0, 0, 0, 0, 0, 0, // 3 calls
        0x0a, 0, 0, 0, 0, 0, 0, 0, // start 10
        0x14, 0, 0, 0, 0, 0, 0, 0, // start 20
        0x28, 0, 0, 0, 0, 0, 0, 0, // start 40
        0x0f, 0, 0, 0, 0, 0, 0, 0, // end 15
        0x21, 0, 0, 0, 0, 0, 0, 0, // end 33
        0x37, 0, 0, 0, 0, 0, 0, 0, // end 55
    ];

    /// A big-endian v1 record: `io`, 1 call (150, 400).
    const V1_BE: &[u8] = &[
        0, 0, 0, 0x02, // name length 2
        b'i', b'o', // "io"
        0, 0, 0, 0, 0, 0, 0, 0x01, // 1 call
        0, 0, 0, 0, 0, 0, 0, 0x96, // start 150
        0, 0, 0, 0, 0, 0, 0x01, 0x90, // end 400
    ];

    /// A v2 big-endian record with no source file but a line, and zero calls; empty name.
    const V2_BE_EMPTY: &[u8] = &[
        0, 0, 0, 0, // name length 0
        0, 0, 0, 0, // source length 0
        0, 0, 0, 0x09, // line 9 (kept raw although no file)
        0, 0, 0, 0, 0, 0, 0, 0, // 0 calls
    ];

    /// Decodes a record that fills `bytes`, then views it.
    fn parse(bytes: &[u8], version: Version, endian: Endian) -> Result<RegionView<'_>, TraceError> {
        let mut cur = Cursor::new(bytes, 0, endian);
        let r = match decode_record(&mut cur, version, 0) {
            Ok(r) => r,
            Err(IndexError::Trace(e)) => return Err(e),
            Err(IndexError::Io(e)) => panic!("reading memory failed: {e}"),
        };
        assert_eq!(cur.remaining(), 0);
        r.view(bytes, endian)
    }

    fn encode(r: &RegionView<'_>, version: Version, endian: Endian) -> Vec<u8> {
        let mut out = Vec::new();
        encode_region_head(
            &mut out,
            version,
            endian,
            r.name,
            r.source_file,
            r.source_line,
            r.calls() as u64,
        )
        .unwrap();
        super::super::timestamps::encode_timestamps(&mut out, &r.starts.to_vec(), endian);
        super::super::timestamps::encode_timestamps(&mut out, &r.ends.to_vec(), endian);
        out
    }

    #[test]
    fn v2_little_endian_fixture_record() {
        let r = parse(V2_LE, Version::V2, Endian::Little).unwrap();
        assert_eq!(r.name, "solve");
        assert_eq!(r.source_file, Some("solver.c"));
        assert_eq!(r.source_line, Some(7));
        assert_eq!(r.starts.to_vec(), [10, 20, 40]);
        assert_eq!(r.ends.to_vec(), [15, 33, 55]);
        assert_eq!(r.offset, 0);
        assert_eq!(r.name_offset(), 4);
        assert_eq!(r.source_offset(), 13);
        assert_eq!(encode(&r, Version::V2, Endian::Little), V2_LE);
    }

    #[test]
    fn v1_big_endian_record() {
        let r = parse(V1_BE, Version::V1, Endian::Big).unwrap();
        assert_eq!(r.name, "io");
        assert_eq!(r.source_file, None);
        assert_eq!(r.source_line, None);
        assert_eq!(r.starts.to_vec(), [150]);
        assert_eq!(r.ends.to_vec(), [400]);
        assert_eq!(encode(&r, Version::V1, Endian::Big), V1_BE);
    }

    #[test]
    fn empty_name_no_file_raw_line_zero_calls() {
        let r = parse(V2_BE_EMPTY, Version::V2, Endian::Big).unwrap();
        assert_eq!(r.name, "");
        assert_eq!(r.source_file, None);
        assert_eq!(r.source_line, Some(9));
        assert!(r.starts.is_empty() && r.ends.is_empty());
        assert_eq!(encode(&r, Version::V2, Endian::Big), V2_BE_EMPTY);
    }

    #[test]
    fn v1_encoding_drops_the_source_and_unknowns_are_normalised() {
        let mut out = Vec::new();
        encode_region_head(
            &mut out,
            Version::V1,
            Endian::Little,
            "a",
            Some("x.c"),
            Some(3),
            0,
        )
        .unwrap();
        assert_eq!(out, [1, 0, 0, 0, b'a', 0, 0, 0, 0, 0, 0, 0, 0]);
        out.clear();
        encode_region_head(
            &mut out,
            Version::V2,
            Endian::Little,
            "",
            Some(""),
            Some(-7),
            0,
        )
        .unwrap();
        assert_eq!(
            out,
            [
                0, 0, 0, 0, // name length 0
                0, 0, 0, 0, // source length 0
                0xff, 0xff, 0xff, 0xff, // line -1
                0, 0, 0, 0, 0, 0, 0, 0, // 0 calls
            ]
        );
        assert_eq!(
            encode_region_head(&mut out, Version::V2, Endian::Big, "", None, None, u64::MAX),
            Err(EncodeError::TooManyCalls(u64::MAX))
        );
    }

    fn err(bytes: &[u8], version: Version, endian: Endian) -> TraceError {
        parse(bytes, version, endian).unwrap_err()
    }

    fn region(name: Option<&str>) -> RegionRef {
        RegionRef {
            index: 0,
            name: name.map(str::to_owned),
        }
    }

    /// (cut, field, needed, available, offset, name known)
    type Cut = (usize, Field, u128, u64, u64, Option<&'static str>);

    #[test]
    fn truncated_at_every_field() {
        let cases: &[Cut] = &[
            (3, Field::NameLength, 4, 3, 0, None),
            (6, Field::Name, 5, 2, 4, None),
            (11, Field::SourceLength, 4, 2, 9, Some("solve")),
            (20, Field::SourceFile, 8, 7, 13, Some("solve")),
            (22, Field::SourceLine, 4, 1, 21, Some("solve")),
            (32, Field::CallCount, 8, 7, 25, Some("solve")),
            (33 + 47, Field::Timestamps, 48, 47, 33, Some("solve")),
        ];
        for &(cut, field, needed, available, offset, name) in cases {
            let e = err(&V2_LE[..cut], Version::V2, Endian::Little);
            assert_eq!(
                e.kind(),
                &TraceErrorKind::Truncated {
                    field,
                    region: region(name),
                    needed,
                    available
                },
                "cut at {cut}"
            );
            assert_eq!(e.offset(), Some(offset), "cut at {cut}");
        }
        let e = err(&V2_LE[..33 + 47], Version::V2, Endian::Little);
        assert_eq!(
            e.to_string(),
            "truncated trace: region \"solve\" (#0) needs 48 bytes of timestamps at offset 33, \
             only 47 remain"
        );
    }

    #[test]
    fn huge_call_count_is_rejected_before_allocation() {
        let bytes = [
            0, 0, 0, 0, // empty name
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, // i64::MAX calls
            1, 2, 3, // 3 bytes left
        ];
        let e = err(&bytes, Version::V1, Endian::Little);
        assert_eq!(
            e.kind(),
            &TraceErrorKind::Truncated {
                field: Field::Timestamps,
                region: region(Some("")),
                needed: u128::from(i64::MAX as u64) * 16,
                available: 3,
            }
        );
        assert_eq!(
            e.to_string(),
            "truncated trace: region \"\" (#0) needs 147573952589676412912 bytes of timestamps \
             at offset 12, only 3 remain"
        );
    }

    #[test]
    fn negative_lengths_and_counts() {
        let bytes = [0xff, 0xff, 0xff, 0xfb]; // name length -5 (BE)
        let e = err(&bytes, Version::V1, Endian::Big);
        assert_eq!(
            e.kind(),
            &TraceErrorKind::NegativeLength {
                field: Field::NameLength,
                region: region(None),
                value: -5
            }
        );
        assert_eq!(e.offset(), Some(0));
        assert_eq!(
            e.to_string(),
            "invalid trace: region #0 has a negative name length (-5) at offset 0"
        );

        let bytes = [
            0x01, 0, 0, 0, b'x', // name "x"
            0xff, 0xff, 0xff, 0xff, // source length -1
        ];
        let e = err(&bytes, Version::V2, Endian::Little);
        assert_eq!(
            e.kind(),
            &TraceErrorKind::NegativeLength {
                field: Field::SourceLength,
                region: region(Some("x")),
                value: -1
            }
        );
        assert_eq!(e.offset(), Some(5));
        assert_eq!(
            e.to_string(),
            "invalid trace: region \"x\" (#0) has a negative source-file length (-1) at offset 5"
        );

        let bytes = [
            0x01, 0, 0, 0, b'x', // name "x"
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // -1 calls
        ];
        let e = err(&bytes, Version::V1, Endian::Little);
        assert_eq!(
            e.kind(),
            &TraceErrorKind::NegativeCount {
                region: region(Some("x")),
                value: -1
            }
        );
        assert_eq!(e.offset(), Some(5));
        assert_eq!(
            e.to_string(),
            "invalid trace: region \"x\" (#0) has a negative call count (-1) at offset 5"
        );
    }

    #[test]
    fn invalid_utf8() {
        let bytes = [
            0x03, 0, 0, 0, // name length 3
            b'a', 0xff, b'b', // invalid byte at offset 5
        ];
        let e = err(&bytes, Version::V1, Endian::Little);
        assert_eq!(
            e.kind(),
            &TraceErrorKind::InvalidUtf8 {
                field: Field::Name,
                region: region(None),
                byte: Some(0xff)
            }
        );
        assert_eq!(e.offset(), Some(5));
        assert_eq!(
            e.to_string(),
            "invalid trace: the name of region #0 is not valid UTF-8 (byte 0xff at offset 5)"
        );

        let bytes = [
            0x01, 0, 0, 0, b'f', // name "f"
            0x02, 0, 0, 0, // source length 2
            b'x', 0xc3, // ends inside a 2-byte sequence, at offset 10
        ];
        let e = err(&bytes, Version::V2, Endian::Little);
        assert_eq!(
            e.kind(),
            &TraceErrorKind::InvalidUtf8 {
                field: Field::SourceFile,
                region: region(Some("f")),
                byte: None
            }
        );
        assert_eq!(e.offset(), Some(10));
        assert_eq!(
            e.to_string(),
            "invalid trace: the source file of region \"f\" (#0) is not valid UTF-8 \
             (incomplete sequence at offset 10)"
        );
    }
}
