//! Object-header messages: the type code table, the per-message flags, and one module per
//! message or message family with its parser and encoder side by side.

pub mod attribute;
pub mod continuation;
pub mod dataspace;
pub mod datatype;
pub mod fill_value;
pub mod filter_pipeline;
pub mod layout;
pub mod link;
pub mod mod_time;
pub mod symbol_table;

pub use attribute::Attribute;
pub use continuation::Continuation;
pub use dataspace::Dataspace;
pub use datatype::DatatypeClass;
pub use fill_value::{FillValue, FillValueState};
pub use filter_pipeline::{Filter, FilterId, FilterPipeline};
pub use layout::{ChunkIndex, DataLayout};
pub use link::{AttributeInfo, GroupInfo, Link, LinkInfo, LinkTarget};
pub use mod_time::ModificationTime;
pub use symbol_table::SymbolTable;

/// The type code of an object-header message. Unknown codes are representable so that a
/// reader can skip them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MessageType(pub u16);

impl MessageType {
    pub const NIL: Self = Self(0x0000);
    pub const DATASPACE: Self = Self(0x0001);
    pub const LINK_INFO: Self = Self(0x0002);
    pub const DATATYPE: Self = Self(0x0003);
    pub const FILL_VALUE_OLD: Self = Self(0x0004);
    pub const FILL_VALUE: Self = Self(0x0005);
    pub const LINK: Self = Self(0x0006);
    pub const EXTERNAL_FILES: Self = Self(0x0007);
    pub const LAYOUT: Self = Self(0x0008);
    pub const BOGUS: Self = Self(0x0009);
    pub const GROUP_INFO: Self = Self(0x000A);
    pub const FILTER_PIPELINE: Self = Self(0x000B);
    pub const ATTRIBUTE: Self = Self(0x000C);
    pub const COMMENT: Self = Self(0x000D);
    pub const MODIFICATION_TIME_OLD: Self = Self(0x000E);
    pub const SHARED_MESSAGE_TABLE: Self = Self(0x000F);
    pub const CONTINUATION: Self = Self(0x0010);
    pub const SYMBOL_TABLE: Self = Self(0x0011);
    pub const MODIFICATION_TIME: Self = Self(0x0012);
    pub const BTREE_K: Self = Self(0x0013);
    pub const DRIVER_INFO: Self = Self(0x0014);
    pub const ATTRIBUTE_INFO: Self = Self(0x0015);
    pub const REFERENCE_COUNT: Self = Self(0x0016);
    pub const FILE_SPACE_INFO: Self = Self(0x0017);

    /// The specification's name of a known type, for messages and diagnostics.
    pub fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            0x00 => "NIL",
            0x01 => "dataspace",
            0x02 => "link info",
            0x03 => "datatype",
            0x04 => "fill value (old)",
            0x05 => "fill value",
            0x06 => "link",
            0x07 => "external data files",
            0x08 => "data layout",
            0x09 => "bogus",
            0x0A => "group info",
            0x0B => "filter pipeline",
            0x0C => "attribute",
            0x0D => "object comment",
            0x0E => "modification time (old)",
            0x0F => "shared message table",
            0x10 => "object header continuation",
            0x11 => "symbol table",
            0x12 => "modification time",
            0x13 => "B-tree 'K' values",
            0x14 => "driver info",
            0x15 => "attribute info",
            0x16 => "reference count",
            0x17 => "file space info",
            _ => return None,
        })
    }

    /// Whether the specification defines this type.
    pub fn is_known(self) -> bool {
        self.name().is_some()
    }
}

/// The flags byte of a message header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct MessageFlags(pub u8);

impl MessageFlags {
    /// The message never changes (set on datatype and fill-value messages).
    pub const CONSTANT: u8 = 0x01;
    /// The body is a reference to a shared message, not the message itself.
    pub const SHARED: u8 = 0x02;
    /// The message must not be shared.
    pub const NOT_SHAREABLE: u8 = 0x04;
    /// A writer that does not know the type must fail.
    pub const FAIL_IF_UNKNOWN_WRITE: u8 = 0x08;
    /// A writer that does not know the type must set bit 5 when modifying the object.
    pub const MARK_IF_UNKNOWN: u8 = 0x10;
    /// Set by a writer that modified the object without understanding this message.
    pub const MODIFIED_WHILE_UNKNOWN: u8 = 0x20;
    /// The message may be shared.
    pub const SHAREABLE: u8 = 0x40;
    /// Any reader that does not know the type must fail.
    pub const FAIL_IF_UNKNOWN_ALWAYS: u8 = 0x80;

    /// Whether every bit of `bit` is set.
    pub fn contains(self, bit: u8) -> bool {
        self.0 & bit == bit
    }
}

/// A message stored once and shared: a committed datatype's object header, or the file's
/// shared-message heap (which needs a superblock extension, so is not followed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SharedMessage {
    /// The message lives in the object header at this address (a committed datatype).
    Committed(u64),
    /// The message lives in the shared object header message heap.
    InHeap,
}

impl SharedMessage {
    /// Parses a shared message body, versions 1–3.
    pub fn parse(c: &mut super::cursor::Cursor<'_>) -> crate::hdf5lite::Result<SharedMessage> {
        let at = c.offset();
        let version = c.u8()?;
        let kind = c.u8()?;
        let address = match (version, kind) {
            (1, _) => {
                c.skip(6)?; // reserved
                c.address()?
            }
            (2, _) | (3, 2) => c.address()?,
            (3, 1) => return Ok(SharedMessage::InHeap),
            (v, k) => {
                return Err(crate::hdf5lite::Error::format(format!(
                    "shared message version {v} of type {k}"
                ))
                .at(at))
            }
        };
        address
            .map(SharedMessage::Committed)
            .ok_or_else(|| c.error("shared message with an undefined address"))
    }

    /// What a datatype shared through the heap reads as.
    pub fn unsupported_datatype() -> crate::hdf5lite::model::Datatype {
        crate::hdf5lite::model::Datatype::Unsupported {
            class: 0,
            size: 0,
            reason: "a datatype in the shared-message heap".into(),
        }
    }
}

/// The all-ones value of a `width`-byte field ("undefined" / "unlimited").
pub(crate) fn all_ones(width: u8) -> u64 {
    if width >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * u32::from(width))) - 1
    }
}

/// Number of padding bytes that bring `len` up to a multiple of 8.
pub(crate) fn pad8(len: usize) -> usize {
    (8 - len % 8) % 8
}

/// Reads a NUL-terminated name whose storage (with the NUL) is padded to a multiple of 8,
/// as in version-1 attribute, compound and enum encodings.
pub(crate) fn padded_name(c: &mut super::cursor::Cursor<'_>) -> crate::hdf5lite::Result<Vec<u8>> {
    let name = c.c_str()?;
    c.skip(pad8(name.len() + 1))?;
    Ok(name.to_vec())
}

/// Writes `name`, a NUL and zero padding up to a multiple of 8.
pub(crate) fn encode_padded_name(e: &mut super::cursor::Encoder, name: &[u8]) {
    e.bytes(name);
    e.u8(0);
    e.zeros(pad8(name.len() + 1));
}

/// Decodes a name as UTF-8, which covers ASCII.
pub(crate) fn utf8_name(
    c: &super::cursor::Cursor<'_>,
    bytes: Vec<u8>,
) -> crate::hdf5lite::Result<String> {
    String::from_utf8(bytes).map_err(|_| c.error("name is not valid UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_and_unknown_codes() {
        assert_eq!(MessageType::LAYOUT.name(), Some("data layout"));
        assert!(MessageType(0x0017).is_known());
        assert!(!MessageType(0x0018).is_known());
        assert_eq!(MessageType(0x00ff).name(), None);
    }

    #[test]
    fn flags_bits() {
        let f = MessageFlags(0x81);
        assert!(f.contains(MessageFlags::CONSTANT));
        assert!(f.contains(MessageFlags::FAIL_IF_UNKNOWN_ALWAYS));
        assert!(!f.contains(MessageFlags::SHARED));
    }

    #[test]
    fn padding() {
        assert_eq!(pad8(0), 0);
        assert_eq!(pad8(1), 7);
        assert_eq!(pad8(8), 0);
        assert_eq!(pad8(9), 7);
    }
}
