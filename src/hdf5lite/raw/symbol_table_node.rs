//! Group symbol-table nodes (`SNOD`): the leaves of an old-style group's v1 B-tree, each
//! holding up to 2K symbol-table entries (link name offset + object header address).

use super::cursor::Cursor;
use super::source::Source;
use crate::hdf5lite::error::{Error, Result};

/// One symbol-table entry. The scratch-pad is skipped: the object header is authoritative.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SymbolTableEntry {
    /// Offset of the link name in the group's local heap.
    pub name_offset: u64,
    /// Address of the object header.
    pub object_address: u64,
    /// Cache type (0 none, 1 group B-tree/heap, 2 symbolic link).
    pub cache_type: u32,
}

impl SymbolTableEntry {
    /// Encoded size for the cursor's widths.
    pub fn encoded_len(c: &Cursor<'_>) -> u64 {
        let w = c.widths();
        u64::from(w.length) + u64::from(w.offset) + 24
    }

    /// Parses one entry.
    pub fn parse(c: &mut Cursor<'_>) -> Result<Self> {
        let name_offset = c.length()?;
        let at = c.offset();
        let object_address = c
            .address()?
            .ok_or_else(|| Error::format("symbol-table entry has no object address").at(at))?;
        let cache_type = c.u32()?;
        c.skip(4 + 16)?;
        Ok(SymbolTableEntry {
            name_offset,
            object_address,
            cache_type,
        })
    }
}

/// Reads the entries of the `SNOD` at `addr`.
pub fn read_node(src: &Source<'_>, addr: u64) -> Result<Vec<SymbolTableEntry>> {
    // One read for the header and up to 2 × 8 entries (the default leaf K is 4).
    let window = src.window(addr, 8 + 16 * 40);
    let src = &src.through(&window);
    let (head, at) = src.cursor_buf(addr, 8, "symbol-table node")?;
    let mut c = src.cursor(&head, at);
    c.expect(b"SNOD", "symbol-table node")?;
    let vat = c.offset();
    let version = c.u8()?;
    if version != 1 {
        return Err(Error::unsupported(format!("symbol-table node version {version}")).at(vat));
    }
    c.skip(1)?;
    let count = u64::from(c.u16()?);
    let w = src.widths();
    let entry_len = u64::from(w.length) + u64::from(w.offset) + 24;
    let body_addr = addr
        .checked_add(8)
        .ok_or_else(|| Error::format("symbol-table node address overflows").at(at))?;
    let (body, body_at) = src.cursor_buf(body_addr, count * entry_len, "symbol-table entries")?;
    let mut c = src.cursor(&body, body_at);
    (0..count)
        .map(|_| SymbolTableEntry::parse(&mut c))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdf5lite::raw::cursor::Widths;
    use crate::hdf5lite::{ErrorKind, Limits};

    fn entry(name: u8, addr: u8) -> Vec<u8> {
        let mut e = vec![name, 0, 0, 0, 0, 0, 0, 0]; // name offset in the local heap
        e.extend_from_slice(&[addr, 0, 0, 0, 0, 0, 0, 0]); // object header address
        e.extend_from_slice(&[0, 0, 0, 0]); // cache type 0
        e.extend_from_slice(&[0; 4]); // reserved
        e.extend_from_slice(&[0; 16]); // scratch-pad
        e
    }

    #[test]
    fn reads_used_entries_only() {
        let mut file = b"SNOD".to_vec();
        file.extend_from_slice(&[1, 0, 2, 0]); // version 1, reserved, 2 symbols
        file.extend(entry(8, 0x60));
        file.extend(entry(16, 0x90));
        let src = Source::new(&file, Widths::STANDARD, 0, Limits::default());
        let entries = read_node(&src, 0).unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[1].name_offset, 16);
        assert_eq!(entries[1].object_address, 0x90);
    }

    #[test]
    fn count_past_the_end_is_rejected_before_allocating() {
        let mut file = b"SNOD".to_vec();
        file.extend_from_slice(&[1, 0, 0xff, 0xff]); // 65535 symbols claimed
        file.extend(entry(8, 0x60));
        let src = Source::new(&file, Widths::STANDARD, 0, Limits::default());
        assert_eq!(read_node(&src, 0).unwrap_err().kind(), ErrorKind::Format);
    }
}
