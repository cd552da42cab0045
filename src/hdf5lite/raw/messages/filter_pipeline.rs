//! The Data Storage - Filter Pipeline Message (0x000B). Parses version 1 (names padded to
//! 8, odd client-data counts padded) and version 2; encodes version 2.

use crate::hdf5lite::error::{Error, Result};
use crate::hdf5lite::raw::cursor::{Cursor, Encoder};

use super::{pad8, utf8_name};

/// A filter identifier. Ids below 256 are reserved for the library's filters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FilterId(pub u16);

impl FilterId {
    pub const DEFLATE: Self = Self(1);
    pub const SHUFFLE: Self = Self(2);
    pub const FLETCHER32: Self = Self(3);
    pub const SZIP: Self = Self(4);
    pub const NBIT: Self = Self(5);
    pub const SCALE_OFFSET: Self = Self(6);
    pub const LZF: Self = Self(32000);
    pub const ZSTD: Self = Self(32015);
}

/// One filter of a pipeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter {
    pub id: FilterId,
    pub name: Option<String>,
    /// Bit 0: the filter is optional (may be skipped per chunk).
    pub flags: u16,
    pub client_data: Vec<u32>,
}

impl Filter {
    /// Whether a chunk may have skipped this filter.
    pub fn is_optional(&self) -> bool {
        self.flags & 1 != 0
    }
}

/// The filters applied to each chunk, in the order they were applied on write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterPipeline {
    pub filters: Vec<Filter>,
}

impl FilterPipeline {
    /// Parses a version 1 or 2 message body.
    pub fn parse(c: &mut Cursor<'_>) -> Result<FilterPipeline> {
        let at = c.offset();
        let version = c.u8()?;
        let count = c.u8()?;
        match version {
            1 => c.skip(6)?,
            2 => {}
            v => {
                return Err(
                    Error::unsupported(format!("filter pipeline message version {v}")).at(at),
                )
            }
        }
        if count > 32 {
            return Err(Error::format(format!("{count} filters (at most 32)")).at(at));
        }
        let mut filters = Vec::new();
        for _ in 0..count {
            let id = FilterId(c.u16()?);
            let name_len = if version == 1 || id.0 >= 256 {
                c.u16()?
            } else {
                0
            };
            let flags = c.u16()?;
            let n = c.u16()?;
            let name = if name_len > 0 {
                let raw = c.bytes(usize::from(name_len))?;
                if version == 1 {
                    c.skip(pad8(usize::from(name_len)))?;
                }
                let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
                Some(utf8_name(c, raw[..end].to_vec())?)
            } else {
                None
            };
            let mut client_data = Vec::new();
            for _ in 0..n {
                client_data.push(c.u32()?);
            }
            if version == 1 && n % 2 == 1 {
                c.skip(4)?;
            }
            filters.push(Filter {
                id,
                name,
                flags,
                client_data,
            });
        }
        Ok(FilterPipeline { filters })
    }

    /// Encodes a version 2 message body (names only for ids ≥ 256).
    pub fn encode(&self, e: &mut Encoder) -> Result<()> {
        e.u8(2);
        e.u8(u8::try_from(self.filters.len()).map_err(|_| Error::usage("too many filters"))?);
        for f in &self.filters {
            e.u16(f.id.0);
            let name = f.name.as_deref().filter(|_| f.id.0 >= 256);
            if f.id.0 >= 256 {
                let n = name.map_or(0, |s| s.len() + 1);
                e.u16(u16::try_from(n).map_err(|_| Error::usage("filter name too long"))?);
            }
            e.u16(f.flags);
            e.u16(
                u16::try_from(f.client_data.len())
                    .map_err(|_| Error::usage("too many filter parameters"))?,
            );
            if let Some(s) = name {
                e.bytes(s.as_bytes());
                e.u8(0);
            }
            for &v in &f.client_data {
                e.u32(v);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdf5lite::raw::cursor::Widths;
    use crate::hdf5lite::ErrorKind;

    fn parse(bytes: &[u8]) -> Result<FilterPipeline> {
        let mut c = Cursor::new(bytes, 0, Widths::STANDARD);
        let p = FilterPipeline::parse(&mut c)?;
        assert_eq!(c.remaining(), 0);
        Ok(p)
    }

    #[test]
    fn v1_shuffle_deflate_as_h5py_writes() {
        let mut bytes = vec![
            1, 2, 0, 0, 0, 0, 0, 0, // version 1, 2 filters, reserved
            2, 0, // shuffle
            8, 0, // name length 8
            1, 0, // optional
            1, 0, // 1 client value
        ];
        bytes.extend_from_slice(b"shuffle\0");
        bytes.extend_from_slice(&[8, 0, 0, 0, 0, 0, 0, 0]); // element size 8 + padding
        bytes.extend_from_slice(&[1, 0, 8, 0, 1, 0, 1, 0]); // deflate, name 8, optional, 1
        bytes.extend_from_slice(b"deflate\0");
        bytes.extend_from_slice(&[4, 0, 0, 0, 0, 0, 0, 0]); // level 4 + padding
        let p = parse(&bytes).unwrap();
        assert_eq!(
            p.filters,
            vec![
                Filter {
                    id: FilterId::SHUFFLE,
                    name: Some("shuffle".into()),
                    flags: 1,
                    client_data: vec![8]
                },
                Filter {
                    id: FilterId::DEFLATE,
                    name: Some("deflate".into()),
                    flags: 1,
                    client_data: vec![4]
                }
            ]
        );
        assert!(p.filters[0].is_optional());
    }

    #[test]
    fn v1_name_padding_and_no_client_data() {
        let mut bytes = vec![1, 1, 0, 0, 0, 0, 0, 0, 2, 0, 3, 0, 1, 0, 0, 0];
        bytes.extend_from_slice(b"sh\0\0\0\0\0\0"); // 3-byte name padded to 8
        let p = parse(&bytes).unwrap();
        assert_eq!(p.filters[0].name.as_deref(), Some("sh"));
        assert!(p.filters[0].client_data.is_empty());
    }

    #[test]
    fn v2_round_trip() {
        let p = FilterPipeline {
            filters: vec![
                Filter {
                    id: FilterId::SHUFFLE,
                    name: None,
                    flags: 1,
                    client_data: vec![88],
                },
                Filter {
                    id: FilterId::ZSTD,
                    name: Some("zstd".into()),
                    flags: 0,
                    client_data: vec![],
                },
            ],
        };
        let mut e = Encoder::new(Widths::STANDARD);
        p.encode(&mut e).unwrap();
        let bytes = e.into_bytes();
        let mut expected = vec![
            2, 2, // version 2, 2 filters
            2, 0, 1, 0, 1, 0, 88, 0, 0, 0, // shuffle: flags 1, 1 value: 88
            0x0f, 0x7d, 5, 0, 0, 0, 0, 0, // zstd: name length 5, flags 0, 0 values
        ];
        expected.extend_from_slice(b"zstd\0");
        assert_eq!(bytes, expected);
        assert_eq!(parse(&bytes).unwrap(), p);
    }

    #[test]
    fn errors() {
        assert_eq!(parse(&[3, 0]).unwrap_err().kind(), ErrorKind::Unsupported);
        assert_eq!(parse(&[2, 200]).unwrap_err().kind(), ErrorKind::Format);
        assert_eq!(
            parse(&[2, 1, 1, 0, 0, 0, 9, 0]).unwrap_err().kind(),
            ErrorKind::Format
        );
    }
}
