//! The Attribute Message (0x000C): a name, a datatype, a dataspace and the raw value.
//! Parses versions 1 (fields padded to 8), 2 and 3 (with a name character set); encodes
//! version 3.

use crate::hdf5lite::error::{Error, Result};
use crate::hdf5lite::model::{CharSet, Datatype};
use crate::hdf5lite::raw::cursor::{Cursor, Encoder};

use super::{dataspace::Dataspace, datatype, pad8};

/// An attribute as stored. Variable-length values in `data` are heap descriptors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attribute {
    pub name: String,
    pub charset: CharSet,
    pub datatype: Datatype,
    pub dataspace: Dataspace,
    pub data: Vec<u8>,
}

/// The fields before an attribute's name, datatype and dataspace.
struct Head {
    version: u8,
    flags: u8,
    name_size: usize,
    datatype_size: usize,
    dataspace_size: usize,
    charset: CharSet,
}

impl Head {
    fn parse(c: &mut Cursor<'_>) -> Result<Head> {
        let at = c.offset();
        let version = c.u8()?;
        let flags = c.u8()?;
        if !(1..=3).contains(&version) {
            return Err(Error::unsupported(format!("attribute message version {version}")).at(at));
        }
        let name_size = usize::from(c.u16()?);
        let datatype_size = usize::from(c.u16()?);
        let dataspace_size = usize::from(c.u16()?);
        let charset = if version == 3 {
            match c.u8()? {
                0 => CharSet::Ascii,
                1 => CharSet::Utf8,
                n => return Err(c.error(format!("attribute name character set {n}"))),
            }
        } else {
            CharSet::Ascii
        };
        Ok(Head {
            version,
            flags,
            name_size,
            datatype_size,
            dataspace_size,
            charset,
        })
    }

    /// A field's stored size: version 1 pads each to a multiple of 8.
    fn padded(&self, n: usize) -> usize {
        if self.version == 1 {
            n + pad8(n)
        } else {
            n
        }
    }

    fn name(&self, c: &mut Cursor<'_>) -> Result<String> {
        let at = c.offset();
        let mut name_c = c.sub(self.padded(self.name_size))?;
        let raw = name_c.bytes(self.name_size)?;
        let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
        String::from_utf8(raw[..end].to_vec())
            .map_err(|_| Error::format("attribute name is not valid UTF-8").at(at))
    }
}

impl Attribute {
    /// Parses a version 1, 2 or 3 message body whose datatype is stored in place.
    pub fn parse(c: &mut Cursor<'_>) -> Result<Attribute> {
        Self::parse_with(c, &mut |_| {
            Err(Error::unsupported("an attribute of a committed datatype"))
        })
    }

    /// Parses a message body; `committed` reads the datatype committed at an address, for
    /// an attribute whose datatype is shared.
    pub fn parse_with(
        c: &mut Cursor<'_>,
        committed: &mut dyn FnMut(u64) -> Result<Datatype>,
    ) -> Result<Attribute> {
        let at = c.offset();
        let head = Head::parse(c)?;
        if head.version >= 2 && head.flags & 0x02 != 0 {
            return Err(Error::unsupported("attribute with a shared dataspace").at(at));
        }
        let name = head.name(c)?;
        let mut dt_c = c.sub(head.padded(head.datatype_size))?;
        let datatype = if head.version >= 2 && head.flags & 0x01 != 0 {
            match super::SharedMessage::parse(&mut dt_c)? {
                super::SharedMessage::Committed(addr) => committed(addr)?,
                super::SharedMessage::InHeap => super::SharedMessage::unsupported_datatype(),
            }
        } else {
            datatype::parse(&mut dt_c)?
        };
        let mut ds_c = c.sub(head.padded(head.dataspace_size))?;
        let dataspace = Dataspace::parse(&mut ds_c)?;
        let count = match &dataspace {
            Dataspace::Null => Some(0),
            other => other.shape().and_then(|s| s.element_count()),
        };
        let size = count
            .zip(datatype.element_size())
            .and_then(|(n, s)| n.checked_mul(s))
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| Error::format("attribute value size overflows").at(at))?;
        if size > c.remaining() {
            return Err(c.error(format!(
                "attribute value of {size} bytes passes the end of its message ({} bytes left)",
                c.remaining()
            )));
        }
        let data = c.bytes(size)?.to_vec();
        Ok(Attribute {
            name,
            charset: head.charset,
            datatype,
            dataspace,
            data,
        })
    }

    /// The name alone, read without decoding the datatype, dataspace or value: lookup by
    /// name compares names first.
    pub fn parse_name(c: &mut Cursor<'_>) -> Result<String> {
        let head = Head::parse(c)?;
        head.name(c)
    }

    /// Encodes a version 3 message body.
    pub fn encode(&self, e: &mut Encoder) -> Result<()> {
        let widths = crate::hdf5lite::raw::cursor::Widths::STANDARD;
        let mut dt = Encoder::new(widths);
        datatype::encode(&self.datatype, &mut dt)?;
        let mut ds = Encoder::new(widths);
        self.dataspace.encode(&mut ds);
        let too_big = |what: &str| Error::usage(format!("attribute {what} over 64 KiB"));
        e.u8(3);
        e.u8(0);
        e.u16(u16::try_from(self.name.len() + 1).map_err(|_| too_big("name"))?);
        e.u16(u16::try_from(dt.len()).map_err(|_| too_big("datatype"))?);
        e.u16(u16::try_from(ds.len()).map_err(|_| too_big("dataspace"))?);
        e.u8(match self.charset {
            CharSet::Ascii => 0,
            CharSet::Utf8 => 1,
        });
        e.bytes(self.name.as_bytes());
        e.u8(0);
        e.bytes(dt.as_bytes());
        e.bytes(ds.as_bytes());
        e.bytes(&self.data);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdf5lite::raw::cursor::Widths;
    use crate::hdf5lite::ErrorKind;

    fn parse(bytes: &[u8]) -> Result<Attribute> {
        let mut c = Cursor::new(bytes, 0, Widths::STANDARD);
        let a = Attribute::parse(&mut c)?;
        assert_eq!(c.remaining(), 0);
        Ok(a)
    }

    const I64: [u8; 12] = [0x10, 0x08, 0, 0, 8, 0, 0, 0, 0, 0, 64, 0];

    #[test]
    fn v1_scalar_i64() {
        let mut bytes = vec![
            1, 0, // version 1, reserved
            22, 0, // name size incl. NUL
            12, 0, // datatype size
            8, 0, // dataspace size
        ];
        bytes.extend_from_slice(b"scope_profiler_schema\0\0\0"); // 22 padded to 24
        bytes.extend_from_slice(&I64);
        bytes.extend_from_slice(&[0, 0, 0, 0]); // datatype padded to 16
        bytes.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0]); // scalar dataspace v1
        bytes.extend_from_slice(&3i64.to_le_bytes());
        assert_eq!(
            parse(&bytes).unwrap(),
            Attribute {
                name: "scope_profiler_schema".into(),
                charset: CharSet::Ascii,
                datatype: Datatype::I64,
                dataspace: Dataspace::Scalar,
                data: 3i64.to_le_bytes().to_vec(),
            }
        );
    }

    #[test]
    fn v3_bytes_and_round_trip() {
        let a = Attribute {
            name: "n".into(),
            charset: CharSet::Utf8,
            datatype: Datatype::I64,
            dataspace: Dataspace::Scalar,
            data: 7i64.to_le_bytes().to_vec(),
        };
        let mut e = Encoder::new(Widths::STANDARD);
        a.encode(&mut e).unwrap();
        let bytes = e.into_bytes();
        let mut expected = vec![
            3, 0, // version 3, flags
            2, 0, 12, 0, 4, 0, // name, datatype, dataspace sizes
            1, // UTF-8 name
            b'n', 0,
        ];
        expected.extend_from_slice(&I64);
        expected.extend_from_slice(&[2, 0, 0, 0]); // scalar dataspace v2
        expected.extend_from_slice(&[7, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(bytes, expected);
        assert_eq!(parse(&bytes).unwrap(), a);
    }

    #[test]
    fn errors() {
        // A committed datatype needs a resolver; `parse` has none.
        let shared = [
            3, 1, // version 3, datatype shared
            2, 0, 10, 0, 4, 0, // name, datatype and dataspace sizes
            0, b'n', 0, // ASCII name "n"
            3, 2, 0x40, 0, 0, 0, 0, 0, 0, 0, // shared message v3: committed at 0x40
            2, 0, 0, 0, // scalar dataspace
        ];
        assert_eq!(parse(&shared).unwrap_err().kind(), ErrorKind::Unsupported);
        let mut resolve = |addr: u64| {
            assert_eq!(addr, 0x40);
            Ok(Datatype::I8)
        };
        let mut bytes = shared.to_vec();
        bytes.push(0xfe);
        let mut c = Cursor::new(&bytes, 0, Widths::STANDARD);
        let a = Attribute::parse_with(&mut c, &mut resolve).unwrap();
        assert_eq!((a.datatype, a.data), (Datatype::I8, vec![0xfe]));
        assert_eq!(
            Attribute::parse_name(&mut Cursor::new(&shared, 0, Widths::STANDARD)).unwrap(),
            "n"
        );
        // Value truncated: scalar i64 with only 3 data bytes.
        let mut bytes = vec![3, 0, 2, 0, 12, 0, 4, 0, 0, b'n', 0];
        bytes.extend_from_slice(&I64);
        bytes.extend_from_slice(&[2, 0, 0, 0, 1, 2, 3]);
        assert_eq!(parse(&bytes).unwrap_err().kind(), ErrorKind::Format);
    }
}
