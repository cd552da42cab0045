//! The 24-byte trace header: magic, version (which also decides the byte order), rank and
//! region count (SCHEMA.md §1.1–§1.3, rules 1–3).

use super::bytes::{put_i32, put_i64};
use super::error::{TraceError, TraceErrorKind};

/// The 8 bytes every trace starts with, in both byte orders.
pub const MAGIC: [u8; 8] = *b"SCOPEPRF";

/// Size of the header in bytes; also the smallest valid trace (zero regions).
pub const HEADER_LEN: usize = 24;

/// Byte order of every integer in one trace (the writing machine's native order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Endian {
    Little,
    Big,
}

/// Trace format version. Version 2 adds a source location to each region record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Version {
    V1,
    V2,
}

impl Version {
    /// The number stored in the file (1 or 2).
    pub const fn number(self) -> i32 {
        match self {
            Version::V1 => 1,
            Version::V2 => 2,
        }
    }

    /// The version with stored number `n`, if this crate reads it.
    pub const fn from_number(n: i32) -> Option<Version> {
        match n {
            1 => Some(Version::V1),
            2 => Some(Version::V2),
            _ => None,
        }
    }

    /// Whether region records carry a source file and line.
    pub const fn has_source(self) -> bool {
        matches!(self, Version::V2)
    }

    /// The smallest possible region record: empty name (and source), zero calls.
    pub const fn min_record_len(self) -> usize {
        match self {
            Version::V1 => 4 + 8,
            Version::V2 => 4 + 4 + 4 + 8,
        }
    }
}

/// The decoded header, fields as stored (the region count is not yet checked).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub version: Version,
    pub endian: Endian,
    pub rank: i32,
    pub region_count: i64,
}

/// Reads the header at the start of `bytes`, checking length, magic and version in the
/// reference's order. Enough to learn a file's rank without parsing its regions.
pub fn parse_header(bytes: &[u8]) -> Result<Header, TraceError> {
    let Some(head) = bytes.get(..HEADER_LEN) else {
        return Err(TraceError::new(
            TraceErrorKind::TooShort {
                len: bytes.len() as u64,
            },
            None,
        ));
    };
    let mut magic = [0u8; 8];
    magic.copy_from_slice(&head[..8]);
    if magic != MAGIC {
        return Err(TraceError::new(
            TraceErrorKind::BadMagic { found: magic },
            Some(0),
        ));
    }
    let mut raw_version = [0u8; 4];
    raw_version.copy_from_slice(&head[8..12]);
    let little = i32::from_le_bytes(raw_version);
    let big = i32::from_be_bytes(raw_version);
    let (version, endian) = if let Some(v) = Version::from_number(little) {
        (v, Endian::Little)
    } else if let Some(v) = Version::from_number(big) {
        (v, Endian::Big)
    } else {
        return Err(TraceError::new(
            TraceErrorKind::UnsupportedVersion(little),
            Some(8),
        ));
    };
    let mut raw_rank = [0u8; 4];
    raw_rank.copy_from_slice(&head[12..16]);
    let mut raw_count = [0u8; 8];
    raw_count.copy_from_slice(&head[16..24]);
    let (rank, region_count) = match endian {
        Endian::Little => (i32::from_le_bytes(raw_rank), i64::from_le_bytes(raw_count)),
        Endian::Big => (i32::from_be_bytes(raw_rank), i64::from_be_bytes(raw_count)),
    };
    Ok(Header {
        version,
        endian,
        rank,
        region_count,
    })
}

/// Appends the 24-byte header.
pub(crate) fn encode_header(out: &mut Vec<u8>, header: &Header) {
    out.extend_from_slice(&MAGIC);
    put_i32(out, header.version.number(), header.endian);
    put_i32(out, header.rank, header.endian);
    put_i64(out, header.region_count, header.endian);
}

#[cfg(test)]
mod tests {
    use super::*;

    const LE_V1: [u8; 24] = [
        b'S', b'C', b'O', b'P', b'E', b'P', b'R', b'F', // magic
        0x01, 0x00, 0x00, 0x00, // version 1 (LE)
        0xfd, 0xff, 0xff, 0xff, // rank -3
        0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // 2 regions
    ];

    const BE_V2: [u8; 24] = [
        b'S', b'C', b'O', b'P', b'E', b'P', b'R', b'F', // magic
        0x00, 0x00, 0x00, 0x02, // version 2 (BE)
        0x00, 0x00, 0x01, 0x00, // rank 256
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, // 5 regions
    ];

    #[test]
    fn little_endian_v1() {
        let h = parse_header(&LE_V1).unwrap();
        assert_eq!(
            h,
            Header {
                version: Version::V1,
                endian: Endian::Little,
                rank: -3,
                region_count: 2,
            }
        );
        let mut out = Vec::new();
        encode_header(&mut out, &h);
        assert_eq!(out, LE_V1);
    }

    #[test]
    fn big_endian_v2() {
        let h = parse_header(&BE_V2).unwrap();
        assert_eq!(
            h,
            Header {
                version: Version::V2,
                endian: Endian::Big,
                rank: 256,
                region_count: 5,
            }
        );
        let mut out = Vec::new();
        encode_header(&mut out, &h);
        assert_eq!(out, BE_V2);
    }

    #[test]
    fn shorter_than_24_bytes() {
        let e = parse_header(&LE_V1[..23]).unwrap_err();
        assert_eq!(e.kind(), &TraceErrorKind::TooShort { len: 23 });
        assert_eq!(e.offset(), None);
        assert_eq!(e.to_string(), "too short to be a trace file");
        // Length is checked before the magic, as in the reference.
        let e = parse_header(b"garbage").unwrap_err();
        assert_eq!(e.kind(), &TraceErrorKind::TooShort { len: 7 });
    }

    #[test]
    fn wrong_magic() {
        let mut bytes = LE_V1;
        bytes[..8].copy_from_slice(b"\x89HDF\r\n\x1a\n");
        let e = parse_header(&bytes).unwrap_err();
        assert_eq!(
            e.kind(),
            &TraceErrorKind::BadMagic {
                found: *b"\x89HDF\r\n\x1a\n"
            }
        );
        assert_eq!(e.offset(), Some(0));
        assert_eq!(
            e.to_string(),
            r"not a scope-profiler Fortran trace (expected b'SCOPEPRF', found b'\x89HDF\r\n\x1a\n')"
        );
    }

    #[test]
    fn unknown_version_quotes_the_little_endian_reading() {
        let mut bytes = LE_V1;
        bytes[8..12].copy_from_slice(&[0x00, 0x00, 0x00, 0x03]); // 3 in BE, 50331648 in LE
        let e = parse_header(&bytes).unwrap_err();
        assert_eq!(e.kind(), &TraceErrorKind::UnsupportedVersion(50_331_648));
        assert_eq!(e.offset(), Some(8));
        assert_eq!(
            e.to_string(),
            "unsupported trace format version 50331648 (this scope-profiler reads versions (1, 2))"
        );
        bytes[8..12].copy_from_slice(&[0x00, 0x00, 0x00, 0x00]);
        let e = parse_header(&bytes).unwrap_err();
        assert_eq!(e.kind(), &TraceErrorKind::UnsupportedVersion(0));
    }

    #[test]
    fn version_numbers() {
        assert_eq!(Version::V1.number(), 1);
        assert_eq!(Version::V2.number(), 2);
        assert_eq!(Version::from_number(2), Some(Version::V2));
        assert_eq!(Version::from_number(3), None);
        assert_eq!(Version::V1.min_record_len(), 12);
        assert_eq!(Version::V2.min_record_len(), 20);
    }
}
