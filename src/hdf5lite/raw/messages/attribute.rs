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

impl Attribute {
    /// Parses a version 1, 2 or 3 message body.
    pub fn parse(c: &mut Cursor<'_>) -> Result<Attribute> {
        let at = c.offset();
        let version = c.u8()?;
        let flags = c.u8()?;
        if !(1..=3).contains(&version) {
            return Err(Error::unsupported(format!("attribute message version {version}")).at(at));
        }
        if version >= 2 && flags & 0x03 != 0 {
            return Err(Error::unsupported(
                "attribute with a shared (committed) datatype or dataspace",
            )
            .at(at));
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
        let padded = |n: usize| if version == 1 { n + pad8(n) } else { n };
        let mut name_c = c.sub(padded(name_size))?;
        let raw = name_c.bytes(name_size)?;
        let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
        let name = String::from_utf8(raw[..end].to_vec())
            .map_err(|_| Error::format("attribute name is not valid UTF-8").at(at))?;
        let mut dt_c = c.sub(padded(datatype_size))?;
        let datatype = datatype::parse(&mut dt_c)?;
        let mut ds_c = c.sub(padded(dataspace_size))?;
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
        let data = c.bytes(size)?.to_vec();
        Ok(Attribute {
            name,
            charset,
            datatype,
            dataspace,
            data,
        })
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
        let shared = [3, 1, 2, 0, 0, 0, 0, 0, 0, b'n', 0];
        assert_eq!(parse(&shared).unwrap_err().kind(), ErrorKind::Unsupported);
        // Value truncated: scalar i64 with only 3 data bytes.
        let mut bytes = vec![3, 0, 2, 0, 12, 0, 4, 0, 0, b'n', 0];
        bytes.extend_from_slice(&I64);
        bytes.extend_from_slice(&[2, 0, 0, 0, 1, 2, 3]);
        assert_eq!(parse(&bytes).unwrap_err().kind(), ErrorKind::Format);
    }
}
