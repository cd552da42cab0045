//! The messages of new-style groups and attribute storage: Link (0x0006), Link Info
//! (0x0002), Group Info (0x000A) and Attribute Info (0x0015). Each parses and encodes
//! version 1 (Link) or 0 (the others).

use crate::hdf5lite::error::{Error, Result};
use crate::hdf5lite::model::CharSet;
use crate::hdf5lite::raw::cursor::{Cursor, Encoder};

/// Where a link points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkTarget {
    /// An object header address in this file.
    Hard(u64),
    /// A path, resolved at access time.
    Soft(String),
    /// A link into another file (raw: flags, file name, object path).
    External(Vec<u8>),
    /// A user-defined link type (≥ 65) with its raw data.
    UserDefined { kind: u8, data: Vec<u8> },
}

/// A link of a compact group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    pub name: String,
    pub charset: CharSet,
    pub creation_order: Option<u64>,
    pub target: LinkTarget,
}

impl Link {
    /// A hard link named `name` to the object header at `address`.
    pub fn hard(name: impl Into<String>, address: u64) -> Link {
        let name = name.into();
        let charset = if name.is_ascii() {
            CharSet::Ascii
        } else {
            CharSet::Utf8
        };
        Link {
            name,
            charset,
            creation_order: None,
            target: LinkTarget::Hard(address),
        }
    }

    /// Parses a version 1 message body.
    pub fn parse(c: &mut Cursor<'_>) -> Result<Link> {
        let at = c.offset();
        let version = c.u8()?;
        if version != 1 {
            return Err(Error::unsupported(format!("link message version {version}")).at(at));
        }
        let flags = c.u8()?;
        let kind = if flags & 0x08 != 0 { c.u8()? } else { 0 };
        let creation_order = if flags & 0x04 != 0 {
            Some(c.u64()?)
        } else {
            None
        };
        let charset = if flags & 0x10 != 0 {
            match c.u8()? {
                0 => CharSet::Ascii,
                1 => CharSet::Utf8,
                n => return Err(c.error(format!("link name character set {n}"))),
            }
        } else {
            CharSet::Ascii
        };
        let len = c.uint(1 << (flags & 0x03))?;
        let len = usize::try_from(len).map_err(|_| c.error("link name too long"))?;
        let raw = c.bytes(len)?;
        let name = String::from_utf8(raw.to_vec())
            .map_err(|_| Error::format("link name is not valid UTF-8").at(at))?;
        let target = match kind {
            0 => LinkTarget::Hard(
                c.address()?
                    .ok_or_else(|| c.error("hard link to the undefined address"))?,
            ),
            1 => {
                let n = c.u16()?;
                let raw = c.bytes(usize::from(n))?;
                LinkTarget::Soft(
                    String::from_utf8(raw.to_vec())
                        .map_err(|_| c.error("soft link value is not valid UTF-8"))?,
                )
            }
            64 => {
                let n = c.u16()?;
                LinkTarget::External(c.bytes(usize::from(n))?.to_vec())
            }
            k if k >= 65 => {
                let n = c.u16()?;
                LinkTarget::UserDefined {
                    kind: k,
                    data: c.bytes(usize::from(n))?.to_vec(),
                }
            }
            k => return Err(Error::format(format!("link type {k}")).at(at)),
        };
        Ok(Link {
            name,
            charset,
            creation_order,
            target,
        })
    }

    /// Encodes a version 1 message body with the smallest name-length field; the link-type
    /// and character-set fields are present only when not hard / ASCII.
    pub fn encode(&self, e: &mut Encoder) -> Result<()> {
        let len = self.name.len() as u64;
        let width_code: u8 = match len {
            0 => return Err(Error::usage("empty link name")),
            1..=0xff => 0,
            0x100..=0xffff => 1,
            0x1_0000..=0xffff_ffff => 2,
            _ => 3,
        };
        let kind = match &self.target {
            LinkTarget::Hard(_) => 0,
            LinkTarget::Soft(_) => 1,
            LinkTarget::External(_) => 64,
            LinkTarget::UserDefined { kind, .. } => *kind,
        };
        let mut flags = width_code;
        if kind != 0 {
            flags |= 0x08;
        }
        if self.creation_order.is_some() {
            flags |= 0x04;
        }
        if self.charset == CharSet::Utf8 {
            flags |= 0x10;
        }
        e.u8(1);
        e.u8(flags);
        if kind != 0 {
            e.u8(kind);
        }
        if let Some(order) = self.creation_order {
            e.u64(order);
        }
        if self.charset == CharSet::Utf8 {
            e.u8(1);
        }
        e.uint(len, 1 << width_code);
        e.bytes(self.name.as_bytes());
        let value: &[u8] = match &self.target {
            LinkTarget::Hard(addr) => {
                e.address(Some(*addr));
                return Ok(());
            }
            LinkTarget::Soft(s) => s.as_bytes(),
            LinkTarget::External(b) | LinkTarget::UserDefined { data: b, .. } => b,
        };
        e.u16(u16::try_from(value.len()).map_err(|_| Error::usage("link value over 64 KiB"))?);
        e.bytes(value);
        Ok(())
    }
}

/// Link Info: where a new-style group keeps its links. Both addresses undefined means
/// compact storage (links are Link messages in the group's header).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LinkInfo {
    pub max_creation_index: Option<u64>,
    pub fractal_heap: Option<u64>,
    pub name_index: Option<u64>,
    pub creation_order_index: Option<u64>,
}

impl LinkInfo {
    /// Parses a version 0 message body.
    pub fn parse(c: &mut Cursor<'_>) -> Result<LinkInfo> {
        let d = DenseStorage::parse(c, "link info", 8)?;
        Ok(LinkInfo {
            max_creation_index: d.max_creation_index,
            fractal_heap: d.fractal_heap,
            name_index: d.name_index,
            creation_order_index: d.creation_order_index,
        })
    }

    /// Encodes a version 0 message body.
    pub fn encode(&self, e: &mut Encoder) {
        DenseStorage {
            max_creation_index: self.max_creation_index,
            fractal_heap: self.fractal_heap,
            name_index: self.name_index,
            creation_order_index: self.creation_order_index,
        }
        .encode(e, 8);
    }
}

/// The body Link Info and Attribute Info share: version 0, flags, an optional maximum
/// creation index (8 bytes for links, 2 for attributes), the fractal-heap and name-index
/// addresses, and an optional creation-order index address.
struct DenseStorage {
    max_creation_index: Option<u64>,
    fractal_heap: Option<u64>,
    name_index: Option<u64>,
    creation_order_index: Option<u64>,
}

impl DenseStorage {
    fn parse(c: &mut Cursor<'_>, what: &str, index_width: u8) -> Result<DenseStorage> {
        let at = c.offset();
        let version = c.u8()?;
        if version != 0 {
            return Err(Error::unsupported(format!("{what} message version {version}")).at(at));
        }
        let flags = c.u8()?;
        let max_creation_index = if flags & 0x01 != 0 {
            Some(c.uint(index_width)?)
        } else {
            None
        };
        let fractal_heap = c.address()?;
        let name_index = c.address()?;
        let creation_order_index = if flags & 0x02 != 0 {
            c.address()?
        } else {
            None
        };
        Ok(DenseStorage {
            max_creation_index,
            fractal_heap,
            name_index,
            creation_order_index,
        })
    }

    fn encode(&self, e: &mut Encoder, index_width: u8) {
        e.u8(0);
        let mut flags = 0;
        if self.max_creation_index.is_some() {
            flags |= 0x01;
        }
        if self.creation_order_index.is_some() {
            flags |= 0x02;
        }
        e.u8(flags);
        if let Some(n) = self.max_creation_index {
            e.uint(n, index_width);
        }
        e.address(self.fractal_heap);
        e.address(self.name_index);
        if self.creation_order_index.is_some() {
            e.address(self.creation_order_index);
        }
    }
}

/// Group Info: when a group switches between compact and dense link storage.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GroupInfo {
    /// (maximum compact links, minimum dense links) when not the defaults (8, 6).
    pub phase_change: Option<(u16, u16)>,
    /// (estimated number of entries, estimated name length) when not the defaults.
    pub estimates: Option<(u16, u16)>,
}

impl GroupInfo {
    /// Parses a version 0 message body.
    pub fn parse(c: &mut Cursor<'_>) -> Result<GroupInfo> {
        let at = c.offset();
        let version = c.u8()?;
        if version != 0 {
            return Err(Error::unsupported(format!("group info message version {version}")).at(at));
        }
        let flags = c.u8()?;
        let phase_change = if flags & 0x01 != 0 {
            Some((c.u16()?, c.u16()?))
        } else {
            None
        };
        let estimates = if flags & 0x02 != 0 {
            Some((c.u16()?, c.u16()?))
        } else {
            None
        };
        Ok(GroupInfo {
            phase_change,
            estimates,
        })
    }

    /// Encodes a version 0 message body.
    pub fn encode(&self, e: &mut Encoder) {
        e.u8(0);
        e.u8(u8::from(self.phase_change.is_some()) | u8::from(self.estimates.is_some()) << 1);
        for (a, b) in self.phase_change.iter().chain(self.estimates.iter()) {
            e.u16(*a);
            e.u16(*b);
        }
    }
}

/// Attribute Info: where an object keeps its attributes when they are stored densely.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AttributeInfo {
    pub max_creation_index: Option<u16>,
    pub fractal_heap: Option<u64>,
    pub name_index: Option<u64>,
    pub creation_order_index: Option<u64>,
}

impl AttributeInfo {
    /// Parses a version 0 message body.
    pub fn parse(c: &mut Cursor<'_>) -> Result<AttributeInfo> {
        let d = DenseStorage::parse(c, "attribute info", 2)?;
        Ok(AttributeInfo {
            // Read from two bytes, so it fits.
            max_creation_index: d.max_creation_index.map(|n| n as u16),
            fractal_heap: d.fractal_heap,
            name_index: d.name_index,
            creation_order_index: d.creation_order_index,
        })
    }

    /// Encodes a version 0 message body.
    pub fn encode(&self, e: &mut Encoder) {
        DenseStorage {
            max_creation_index: self.max_creation_index.map(u64::from),
            fractal_heap: self.fractal_heap,
            name_index: self.name_index,
            creation_order_index: self.creation_order_index,
        }
        .encode(e, 2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdf5lite::raw::cursor::Widths;
    use crate::hdf5lite::ErrorKind;

    fn cur(b: &[u8]) -> Cursor<'_> {
        Cursor::new(b, 0, Widths::STANDARD)
    }

    fn enc(f: impl FnOnce(&mut Encoder)) -> Vec<u8> {
        let mut e = Encoder::new(Widths::STANDARD);
        f(&mut e);
        e.into_bytes()
    }

    #[test]
    fn hard_link_bytes() {
        let link = Link::hard("events", 0x1234);
        let bytes = enc(|e| link.encode(e).unwrap());
        let mut expected = vec![
            1, // version
            0, // flags: 1-byte name length, hard, ASCII
            6, // name length
        ];
        expected.extend_from_slice(b"events");
        expected.extend_from_slice(&[0x34, 0x12, 0, 0, 0, 0, 0, 0]);
        assert_eq!(bytes, expected);
        assert_eq!(Link::parse(&mut cur(&bytes)).unwrap(), link);
    }

    #[test]
    fn utf8_soft_link_with_order_round_trips() {
        let link = Link {
            name: "é".into(),
            charset: CharSet::Utf8,
            creation_order: Some(5),
            target: LinkTarget::Soft("/a/b".into()),
        };
        let bytes = enc(|e| link.encode(e).unwrap());
        assert_eq!(&bytes[..4], &[1, 0x1c, 1, 5]); // flags: type, order, charset; type soft
        assert_eq!(Link::parse(&mut cur(&bytes)).unwrap(), link);
    }

    #[test]
    fn link_errors() {
        let undefined = [
            1, 0, 1, b'a', 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        ];
        assert_eq!(
            Link::parse(&mut cur(&undefined)).unwrap_err().kind(),
            ErrorKind::Format
        );
        let reserved_type = [1, 0x08, 7, 1, b'a'];
        assert_eq!(
            Link::parse(&mut cur(&reserved_type)).unwrap_err().kind(),
            ErrorKind::Format
        );
        assert_eq!(
            Link::parse(&mut cur(&[2])).unwrap_err().kind(),
            ErrorKind::Unsupported
        );
    }

    #[test]
    fn link_info_compact() {
        let li = LinkInfo::default();
        let bytes = enc(|e| li.encode(e));
        let mut expected = vec![0, 0]; // version 0, no creation order
        expected.extend_from_slice(&[0xff; 16]); // no fractal heap, no name index
        assert_eq!(bytes, expected);
        assert_eq!(LinkInfo::parse(&mut cur(&bytes)).unwrap(), li);
        let tracked = LinkInfo {
            max_creation_index: Some(3),
            fractal_heap: Some(100),
            name_index: Some(200),
            creation_order_index: Some(300),
        };
        let bytes = enc(|e| tracked.encode(e));
        assert_eq!(bytes.len(), 2 + 8 + 24);
        assert_eq!(LinkInfo::parse(&mut cur(&bytes)).unwrap(), tracked);
    }

    #[test]
    fn group_info_phase_change() {
        assert_eq!(enc(|e| GroupInfo::default().encode(e)), [0, 0]);
        let gi = GroupInfo {
            phase_change: Some((12, 6)),
            estimates: None,
        };
        let bytes = enc(|e| gi.encode(e));
        assert_eq!(bytes, [0, 1, 12, 0, 6, 0]);
        assert_eq!(GroupInfo::parse(&mut cur(&bytes)).unwrap(), gi);
        let both = GroupInfo {
            phase_change: Some((100, 6)),
            estimates: Some((4, 8)),
        };
        assert_eq!(
            GroupInfo::parse(&mut cur(&enc(|e| both.encode(e)))).unwrap(),
            both
        );
    }

    #[test]
    fn attribute_info() {
        let mut bytes = vec![0, 1, 9, 0]; // version 0, order tracked, max index 9
        bytes.extend_from_slice(&[0xff; 16]);
        let ai = AttributeInfo::parse(&mut cur(&bytes)).unwrap();
        assert_eq!(
            ai,
            AttributeInfo {
                max_creation_index: Some(9),
                ..AttributeInfo::default()
            }
        );
        assert_eq!(enc(|e| ai.encode(e)), bytes);
    }
}
