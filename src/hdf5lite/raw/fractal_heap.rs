//! Fractal heaps (`FRHP`, `FHIB`, `FHDB`): where dense groups keep their link messages and
//! dense attribute storage its attribute messages, addressed by heap IDs from a v2 B-tree.
//! Managed and tiny objects are read; huge objects and filtered heaps are `Unsupported`.

use super::checksum::metadata_checksum;
use super::cursor::Cursor;
use super::source::{bytes_needed, Source};
use crate::hdf5lite::error::{Error, ErrorKind, Result};

/// The header of a fractal heap: what is needed to find an object by heap ID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FractalHeap {
    /// Address of the header.
    pub address: u64,
    pub heap_id_len: u16,
    pub filtered: bool,
    pub checksum_direct_blocks: bool,
    pub max_managed_object_size: u32,
    pub table_width: u16,
    pub starting_block_size: u64,
    pub max_direct_block_size: u64,
    /// Maximum heap size, in bits of heap offset.
    pub max_heap_size_bits: u16,
    pub root_address: Option<u64>,
    /// Rows in the root indirect block; 0 when the root is a direct block.
    pub root_rows: u16,
}

impl FractalHeap {
    /// Reads and checks the header at `addr`.
    pub fn read(src: &Source<'_>, addr: u64) -> Result<Self> {
        let w = src.widths();
        let (l, o) = (u64::from(w.length), u64::from(w.offset));
        let fixed_len = 22 + 12 * l + 3 * o;
        let (buf, at) = src.cursor_buf(addr, fixed_len + 4, "fractal heap header")?;
        let mut c = src.cursor(&buf, at);
        c.expect(b"FRHP", "fractal heap header")?;
        let version = c.u8()?;
        if version != 0 {
            return Err(Error::unsupported(format!("fractal heap version {version}")).at(at));
        }
        let heap_id_len = c.u16()?;
        let filter_len = c.u16()?;
        let flags = c.u8()?;
        let max_managed_object_size = c.u32()?;
        c.length()?; // next huge object id
        c.address()?; // huge-object v2 B-tree
        c.length()?; // free space
        c.address()?; // free-space manager
        for _ in 0..8 {
            c.length()?; // managed/allocated space, iterator, object counts and sizes
        }
        let table_width = c.u16()?;
        let starting_block_size = c.length()?;
        let max_direct_block_size = c.length()?;
        let max_heap_size_bits = c.u16()?;
        c.u16()?; // starting rows of the root indirect block
        let root_address = c.address()?;
        let root_rows = c.u16()?;
        if filter_len != 0 {
            return Err(Error::unsupported("fractal heap with I/O filters").at(at));
        }
        check_trailing_checksum(&buf, at, "fractal heap header")?;
        let heap = FractalHeap {
            address: addr,
            heap_id_len,
            filtered: filter_len != 0,
            checksum_direct_blocks: flags & 0x02 != 0,
            max_managed_object_size,
            table_width,
            starting_block_size,
            max_direct_block_size,
            max_heap_size_bits,
            root_address,
            root_rows,
        };
        heap.validate(at)?;
        Ok(heap)
    }

    fn validate(&self, at: u64) -> Result<()> {
        let pow2 = |v: u64| v != 0 && v.is_power_of_two();
        if self.table_width == 0
            || !pow2(self.starting_block_size)
            || !pow2(self.max_direct_block_size)
            || self.max_direct_block_size < self.starting_block_size
            || self.max_heap_size_bits == 0
            || self.max_heap_size_bits > 64
        {
            return Err(Error::format("fractal heap geometry is inconsistent").at(at));
        }
        Ok(())
    }

    /// Bytes of a heap offset in IDs and block headers.
    fn offset_size(&self) -> usize {
        usize::from(self.max_heap_size_bits).div_ceil(8)
    }

    /// Bytes of a managed object's length in a heap ID.
    fn length_size(&self) -> usize {
        let max = self
            .max_direct_block_size
            .min(u64::from(self.max_managed_object_size));
        usize::from(bytes_needed(max))
    }

    /// Rows of the root indirect block that hold direct blocks.
    fn max_direct_rows(&self) -> u32 {
        self.max_direct_block_size.trailing_zeros() - self.starting_block_size.trailing_zeros() + 2
    }

    /// Heap space covered by each block of row `row`.
    fn row_block_size(&self, row: u32) -> Option<u64> {
        if row == 0 {
            Some(self.starting_block_size)
        } else {
            self.starting_block_size.checked_shl(row - 1)
        }
    }

    /// The bytes of the object with heap ID `id`.
    pub fn object(&self, src: &Source<'_>, id: &[u8]) -> Result<Vec<u8>> {
        let at = src.absolute(self.address)?;
        let mut c = Cursor::new(id, at, src.widths());
        let first = c.u8()?;
        if first >> 6 != 0 {
            return Err(Error::format(format!("heap ID version {}", first >> 6)).at(at));
        }
        match (first >> 4) & 0x03 {
            0 => {
                let offset = uint(&mut c, self.offset_size())?;
                let length = uint(&mut c, self.length_size())?;
                self.managed(src, offset, length)
            }
            1 => Err(Error::unsupported("huge fractal-heap objects").at(at)),
            2 => {
                let len = usize::from(first & 0x0f) + 1;
                Ok(c.bytes(len)?.to_vec())
            }
            t => Err(Error::format(format!("heap ID type {t}")).at(at)),
        }
    }

    fn managed(&self, src: &Source<'_>, offset: u64, length: u64) -> Result<Vec<u8>> {
        let at = src.absolute(self.address)?;
        let root = self
            .root_address
            .ok_or_else(|| Error::format("object in an empty fractal heap").at(at))?;
        let (block, block_offset, block_size) = if self.root_rows == 0 {
            (root, 0, self.starting_block_size)
        } else {
            self.find_direct(src, root, 0, u32::from(self.root_rows), offset, 0)?
        };
        let rel = offset - block_offset;
        let end = rel.checked_add(length).filter(|&e| e <= block_size);
        if end.is_none() {
            return Err(Error::format(format!(
                "heap object at offset {offset} of {length} bytes passes its block"
            ))
            .at(src.absolute(block)?));
        }
        let buf = src.metadata(block, block_size, "fractal heap direct block")?;
        let bat = src.absolute(block)?;
        let mut c = src.cursor(&buf, bat);
        c.expect(b"FHDB", "fractal heap direct block")?;
        let version = c.u8()?;
        if version != 0 {
            return Err(Error::unsupported(format!("direct block version {version}")).at(bat));
        }
        c.address()?;
        let stored_offset = uint(&mut c, self.offset_size())?;
        if stored_offset != block_offset {
            return Err(Error::format(format!(
                "direct block says heap offset {stored_offset}, expected {block_offset}"
            ))
            .at(bat));
        }
        let header_len = c.position();
        if self.checksum_direct_blocks {
            let stored = c.u32()?;
            let mut copy = buf.clone();
            copy[header_len..header_len + 4].fill(0);
            let computed = metadata_checksum(&copy);
            if stored != computed {
                return Err(checksum_error(
                    "fractal heap direct block",
                    stored,
                    computed,
                    bat,
                ));
            }
        }
        let (rel, length) = (rel as usize, length as usize);
        if rel < c.position() {
            return Err(Error::format("heap object overlaps its block header").at(bat));
        }
        Ok(buf[rel..rel + length].to_vec())
    }

    /// Finds the direct block holding heap `offset` under the indirect block at `addr`
    /// (covering heap space from `base`, with `rows` rows); returns its address, heap offset
    /// and size.
    fn find_direct(
        &self,
        src: &Source<'_>,
        addr: u64,
        base: u64,
        rows: u32,
        offset: u64,
        depth: u32,
    ) -> Result<(u64, u64, u64)> {
        let at = src.absolute(addr)?;
        if depth > src.limits().max_depth || rows > 64 {
            return Err(Error::limits("fractal heap indirection is too deep").at(at));
        }
        let w = src.widths();
        let width = u64::from(self.table_width);
        let direct_rows = rows.min(self.max_direct_rows());
        let indirect_rows = rows - direct_rows;
        let entries = u64::from(direct_rows) * width + u64::from(indirect_rows) * width;
        let len =
            5 + u64::from(w.offset) + self.offset_size() as u64 + entries * u64::from(w.offset) + 4;
        let buf = src.metadata(addr, len, "fractal heap indirect block")?;
        check_trailing_checksum(&buf, at, "fractal heap indirect block")?;
        let mut c = src.cursor(&buf, at);
        c.expect(b"FHIB", "fractal heap indirect block")?;
        c.u8()?;
        c.address()?;
        let stored_offset = uint(&mut c, self.offset_size())?;
        if stored_offset != base {
            return Err(Error::format(format!(
                "indirect block says heap offset {stored_offset}, expected {base}"
            ))
            .at(at));
        }
        let mut start = base;
        for row in 0..rows {
            let size = self
                .row_block_size(row)
                .ok_or_else(|| Error::format("fractal heap row size overflows").at(at))?;
            for _ in 0..width {
                let child = c.address()?;
                let end = start
                    .checked_add(size)
                    .ok_or_else(|| Error::format("fractal heap offset overflows").at(at))?;
                if (start..end).contains(&offset) {
                    let child = child.ok_or_else(|| {
                        Error::format(format!("heap offset {offset} is in an unallocated block"))
                            .at(at)
                    })?;
                    if row < direct_rows {
                        return Ok((child, start, size));
                    }
                    // An indirect child covering `size` bytes has log2(size / (start ×
                    // width)) + 1 rows.
                    let unit = self.starting_block_size.checked_mul(width);
                    let child_rows = match unit.filter(|&u| size % u == 0).map(|u| size / u) {
                        Some(ratio) if ratio.is_power_of_two() => ratio.trailing_zeros() + 1,
                        _ => {
                            return Err(
                                Error::format("fractal heap geometry is inconsistent").at(at)
                            )
                        }
                    };
                    return self.find_direct(src, child, start, child_rows, offset, depth + 1);
                }
                start = end;
            }
        }
        Err(Error::format(format!("heap offset {offset} is outside the heap")).at(at))
    }
}

fn uint(c: &mut Cursor<'_>, n: usize) -> Result<u64> {
    if n == 0 || n > 8 {
        return Err(c.error(format!("field of {n} bytes")));
    }
    c.uint(n as u8)
}

fn checksum_error(what: &str, stored: u32, computed: u32, at: u64) -> Error {
    Error::new(
        ErrorKind::Checksum,
        format!("{what} checksum mismatch: stored {stored:#010x}, computed {computed:#010x}"),
    )
    .at(at)
}

/// Verifies a structure whose last 4 bytes are the lookup3 checksum of the rest.
pub(crate) fn check_trailing_checksum(buf: &[u8], at: u64, what: &str) -> Result<()> {
    let Some(split) = buf.len().checked_sub(4) else {
        return Err(Error::format(format!("{what} is too short")).at(at));
    };
    let stored = u32::from_le_bytes([buf[split], buf[split + 1], buf[split + 2], buf[split + 3]]);
    let computed = metadata_checksum(&buf[..split]);
    if stored != computed {
        return Err(checksum_error(what, stored, computed, at));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdf5lite::raw::cursor::Widths;
    use crate::hdf5lite::Limits;

    fn header(root: u64, root_rows: u16) -> Vec<u8> {
        let mut h = b"FRHP".to_vec();
        h.push(0); // version
        h.extend_from_slice(&7u16.to_le_bytes()); // heap ID length
        h.extend_from_slice(&0u16.to_le_bytes()); // no I/O filters
        h.push(0x02); // flags: direct blocks checksummed
        h.extend_from_slice(&4096u32.to_le_bytes()); // max managed object size
        h.extend_from_slice(&0u64.to_le_bytes()); // next huge id
        h.extend_from_slice(&[0xff; 8]); // huge B-tree: none
        h.extend_from_slice(&0u64.to_le_bytes()); // free space
        h.extend_from_slice(&[0xff; 8]); // free-space manager: none
        h.extend_from_slice(&[0; 64]); // space, iterator and object statistics
        h.extend_from_slice(&4u16.to_le_bytes()); // table width
        h.extend_from_slice(&512u64.to_le_bytes()); // starting block size
        h.extend_from_slice(&65536u64.to_le_bytes()); // max direct block size
        h.extend_from_slice(&32u16.to_le_bytes()); // max heap size: 32 bits
        h.extend_from_slice(&0u16.to_le_bytes()); // starting rows
        h.extend_from_slice(&root.to_le_bytes()); // root block
        h.extend_from_slice(&root_rows.to_le_bytes()); // current rows
        let sum = metadata_checksum(&h);
        h.extend_from_slice(&sum.to_le_bytes());
        h
    }

    fn direct_block(at_heap_offset: u32, payload: &[(usize, &[u8])]) -> Vec<u8> {
        let mut b = b"FHDB".to_vec();
        b.push(0); // version
        b.extend_from_slice(&0u64.to_le_bytes()); // heap header address
        b.extend_from_slice(&at_heap_offset.to_le_bytes()); // block offset (4 bytes: 32 bits)
        b.extend_from_slice(&[0; 4]); // checksum, patched below
        b.resize(512, 0);
        for (off, bytes) in payload {
            b[*off..off + bytes.len()].copy_from_slice(bytes);
        }
        let sum = metadata_checksum(&b);
        b[17..21].copy_from_slice(&sum.to_le_bytes());
        b
    }

    #[test]
    fn managed_object_in_a_root_direct_block() {
        let mut file = header(1024, 0);
        file.resize(1024, 0);
        file.extend(direct_block(0, &[(24, b"hello")]));
        let src = Source::new(&file, Widths::STANDARD, 0, Limits::default());
        let heap = FractalHeap::read(&src, 0).unwrap();
        // Managed ID: type 0; offset 24 (4 bytes); length 5 (2 bytes: max 4096 → 2 bytes).
        let id = [0x00, 24, 0, 0, 0, 5, 0];
        assert_eq!(heap.object(&src, &id).unwrap(), b"hello");
        // Tiny ID: type 2, length 3.
        assert_eq!(
            heap.object(&src, &[0x22, b'a', b'b', b'c']).unwrap(),
            b"abc"
        );
        // A corrupted block fails its checksum.
        file[1024 + 30] ^= 1;
        let src = Source::new(&file, Widths::STANDARD, 0, Limits::default());
        assert_eq!(
            heap.object(&src, &id).unwrap_err().kind(),
            ErrorKind::Checksum
        );
    }

    #[test]
    fn managed_object_through_a_root_indirect_block() {
        let mut file = header(256, 1);
        file.resize(256, 0);
        let mut ib = b"FHIB".to_vec();
        ib.push(0); // version
        ib.extend_from_slice(&0u64.to_le_bytes()); // heap header address
        ib.extend_from_slice(&0u32.to_le_bytes()); // block offset 0
        ib.extend_from_slice(&1024u64.to_le_bytes()); // row 0, column 0
        ib.extend_from_slice(&2048u64.to_le_bytes()); // row 0, column 1
        ib.extend_from_slice(&[0xff; 16]); // columns 2 and 3 unallocated
        let sum = metadata_checksum(&ib);
        ib.extend_from_slice(&sum.to_le_bytes());
        file.extend(ib);
        file.resize(2048, 0);
        file.extend(direct_block(512, &[(24, b"xy")]));
        let src = Source::new(&file, Widths::STANDARD, 0, Limits::default());
        let heap = FractalHeap::read(&src, 0).unwrap();
        let id = [0x00, 0x18, 0x02, 0, 0, 2, 0]; // offset 512 + 24, length 2
        assert_eq!(heap.object(&src, &id).unwrap(), b"xy");
        let unallocated = [0x00, 0x00, 0x06, 0, 0, 2, 0]; // offset 1536: column 3
        assert_eq!(
            heap.object(&src, &unallocated).unwrap_err().kind(),
            ErrorKind::Format
        );
    }
}
