//! Version 2 B-trees (`BTHD`, `BTIN`, `BTLF`): the name indexes of dense groups (record
//! type 5) and dense attribute storage (type 8), and the layout-v4 chunk index for datasets
//! with several unlimited dimensions (types 10 and 11). This reader returns every record in
//! key order; checksums are verified and walks are guarded against cycles and depth.

use std::collections::HashSet;

use super::fractal_heap::check_trailing_checksum;
use super::source::{bytes_needed, Source};
use crate::hdf5lite::error::{Error, Result};

/// Record type of a v2 B-tree. Open: unknown types are representable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordType(pub u8);

impl RecordType {
    /// Link name index of a dense group (hash, heap ID).
    pub const LINK_NAME: RecordType = RecordType(5);
    /// Link creation-order index of a dense group.
    pub const LINK_CREATION_ORDER: RecordType = RecordType(6);
    /// Attribute name index of dense attribute storage.
    pub const ATTRIBUTE_NAME: RecordType = RecordType(8);
    /// Attribute creation-order index.
    pub const ATTRIBUTE_CREATION_ORDER: RecordType = RecordType(9);
    /// Chunks of a dataset without filters.
    pub const CHUNK: RecordType = RecordType(10);
    /// Chunks of a filtered dataset.
    pub const FILTERED_CHUNK: RecordType = RecordType(11);
}

/// The header of a v2 B-tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub record_type: RecordType,
    pub node_size: u32,
    pub record_size: u16,
    pub depth: u16,
    pub root: Option<u64>,
    pub root_records: u16,
    pub total_records: u64,
}

impl Header {
    /// Reads and checks the header at `addr`.
    pub fn read(src: &Source<'_>, addr: u64) -> Result<Self> {
        let w = src.widths();
        let len = 4 + 1 + 1 + 4 + 2 + 2 + 1 + 1 + u64::from(w.offset) + 2 + u64::from(w.length) + 4;
        let (buf, at) = src.cursor_buf(addr, len, "v2 B-tree header")?;
        check_trailing_checksum(&buf, at, "v2 B-tree header")?;
        let mut c = src.cursor(&buf, at);
        c.expect(b"BTHD", "v2 B-tree header")?;
        let version = c.u8()?;
        if version != 0 {
            return Err(Error::unsupported(format!("v2 B-tree version {version}")).at(at));
        }
        let record_type = RecordType(c.u8()?);
        let node_size = c.u32()?;
        let record_size = c.u16()?;
        let depth = c.u16()?;
        c.u8()?; // split percent
        c.u8()?; // merge percent
        let root = c.address()?;
        let root_records = c.u16()?;
        let total_records = c.length()?;
        if record_size == 0 || u64::from(node_size) <= 10 + u64::from(record_size) {
            return Err(Error::format(format!(
                "v2 B-tree node size {node_size} cannot hold a record of {record_size} bytes"
            ))
            .at(at));
        }
        Ok(Header {
            record_type,
            node_size,
            record_size,
            depth,
            root,
            root_records,
            total_records,
        })
    }
}

/// Per-depth node geometry: the most records a node holds and the widths of its child
/// pointers' count fields.
#[derive(Debug, Clone, Copy)]
struct Level {
    max_records: u64,
    /// Most records in the whole subtree of a node at this depth.
    max_subtree: u64,
}

fn levels(h: &Header, offset_width: u8) -> Result<Vec<Level>> {
    let node = u64::from(h.node_size);
    let rec = u64::from(h.record_size);
    let leaf_max = (node - 10) / rec;
    let mut out = vec![Level {
        max_records: leaf_max,
        max_subtree: leaf_max,
    }];
    for d in 1..=usize::from(h.depth) {
        let child = out[d - 1];
        let ptr = pointer_len(offset_width, child, d);
        let max = node.saturating_sub(10 + ptr) / (rec + ptr);
        if max == 0 {
            return Err(Error::format(format!(
                "v2 B-tree nodes of {node} bytes cannot hold depth {d}"
            )));
        }
        let subtree = max.saturating_add((max + 1).saturating_mul(child.max_subtree));
        out.push(Level {
            max_records: max,
            max_subtree: subtree,
        });
    }
    Ok(out)
}

/// Size of one child pointer in a node at depth `d` whose children have geometry `child`.
fn pointer_len(offset_width: u8, child: Level, d: usize) -> u64 {
    let mut len = u64::from(offset_width) + u64::from(bytes_needed(child.max_records));
    if d > 1 {
        len += u64::from(bytes_needed(child.max_subtree));
    }
    len
}

/// Every record of the tree at `addr`, in key order, after checking its record type.
pub fn records(
    src: &Source<'_>,
    addr: u64,
    expected: RecordType,
) -> Result<(Header, Vec<Vec<u8>>)> {
    let h = Header::read(src, addr)?;
    let at = src.absolute(addr)?;
    if h.record_type != expected {
        return Err(Error::format(format!(
            "v2 B-tree of record type {} where {} was expected",
            h.record_type.0, expected.0
        ))
        .at(at));
    }
    if u32::from(h.depth) > src.limits().max_depth {
        return Err(Error::limits(format!("v2 B-tree depth {} exceeds the limit", h.depth)).at(at));
    }
    let mut out = Vec::new();
    let Some(root) = h.root else {
        return Ok((h, out));
    };
    if h.root_records == 0 && h.depth == 0 {
        return Ok((h, out));
    }
    let geometry = levels(&h, src.widths().offset)?;
    let mut seen = HashSet::new();
    walk(
        src,
        &h,
        &geometry,
        root,
        usize::from(h.depth),
        u64::from(h.root_records),
        &mut seen,
        &mut out,
    )?;
    Ok((h, out))
}

#[allow(clippy::too_many_arguments)]
fn walk(
    src: &Source<'_>,
    h: &Header,
    geometry: &[Level],
    addr: u64,
    depth: usize,
    nrecords: u64,
    seen: &mut HashSet<u64>,
    out: &mut Vec<Vec<u8>>,
) -> Result<()> {
    let at = src.absolute(addr)?;
    if !seen.insert(addr) {
        return Err(Error::format("v2 B-tree node is reached twice (cycle)").at(at));
    }
    let level = geometry[depth];
    if nrecords > level.max_records {
        return Err(Error::format(format!(
            "v2 B-tree node claims {nrecords} records, at most {} fit",
            level.max_records
        ))
        .at(at));
    }
    let rec = u64::from(h.record_size);
    let w = src.widths();
    let (sig, ptr) = if depth == 0 {
        (b"BTLF", 0)
    } else {
        (b"BTIN", pointer_len(w.offset, geometry[depth - 1], depth))
    };
    let children = if depth == 0 { 0 } else { nrecords + 1 };
    let len = 6 + nrecords * rec + children * ptr + 4;
    let buf = src.metadata(addr, len, "v2 B-tree node")?;
    check_trailing_checksum(&buf, at, "v2 B-tree node")?;
    let mut c = src.cursor(&buf, at);
    c.expect(sig, "v2 B-tree node")?;
    let version = c.u8()?;
    let node_type = c.u8()?;
    if version != 0 || node_type != h.record_type.0 {
        return Err(Error::format("v2 B-tree node does not match its header").at(at));
    }
    let records: Vec<&[u8]> = (0..nrecords)
        .map(|_| c.bytes(rec as usize))
        .collect::<Result<_>>()?;
    if depth == 0 {
        out.extend(records.into_iter().map(<[u8]>::to_vec));
        return Ok(());
    }
    let child_level = geometry[depth - 1];
    let mut pointers = Vec::new();
    for _ in 0..children {
        let pat = c.offset();
        let child = c
            .address()?
            .ok_or_else(|| Error::format("v2 B-tree child address is undefined").at(pat))?;
        let n = c.uint(bytes_needed(child_level.max_records))?;
        if depth > 1 {
            c.uint(bytes_needed(child_level.max_subtree))?;
        }
        pointers.push((child, n));
    }
    for (i, (child, n)) in pointers.into_iter().enumerate() {
        walk(src, h, geometry, child, depth - 1, n, seen, out)?;
        if let Some(r) = records.get(i) {
            out.push(r.to_vec());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdf5lite::raw::checksum::metadata_checksum;
    use crate::hdf5lite::raw::cursor::Widths;
    use crate::hdf5lite::{ErrorKind, Limits};

    fn with_checksum(mut b: Vec<u8>) -> Vec<u8> {
        let sum = metadata_checksum(&b);
        b.extend_from_slice(&sum.to_le_bytes());
        b
    }

    fn header(depth: u16, root: u64, root_records: u16, total: u64) -> Vec<u8> {
        let mut h = b"BTHD".to_vec();
        h.push(0); // version
        h.push(5); // record type: link names
        h.extend_from_slice(&64u32.to_le_bytes()); // node size 64
        h.extend_from_slice(&11u16.to_le_bytes()); // record size: hash 4 + heap ID 7
        h.extend_from_slice(&depth.to_le_bytes());
        h.extend_from_slice(&[100, 40]); // split, merge percent
        h.extend_from_slice(&root.to_le_bytes());
        h.extend_from_slice(&root_records.to_le_bytes());
        h.extend_from_slice(&total.to_le_bytes());
        with_checksum(h)
    }

    fn leaf(records: &[u8]) -> Vec<u8> {
        let mut n = b"BTLF".to_vec();
        n.extend_from_slice(&[0, 5]); // version, record type
        for &r in records {
            n.extend_from_slice(&[r; 11]);
        }
        with_checksum(n)
    }

    #[test]
    fn depth_one_tree_in_key_order() {
        // Leaves of 64 bytes hold (64 - 10) / 11 = 4 records → 1-byte counts. Root internal
        // node: pointer = 8 + 1 bytes.
        let mut file = header(1, 100, 1, 3);
        file.resize(100, 0);
        let mut root = b"BTIN".to_vec();
        root.extend_from_slice(&[0, 5]);
        root.extend_from_slice(&[2; 11]); // the separating record
        root.extend_from_slice(&200u64.to_le_bytes());
        root.push(1); // left child holds 1 record
        root.extend_from_slice(&300u64.to_le_bytes());
        root.push(1); // right child holds 1 record
        file.extend(with_checksum(root));
        file.resize(200, 0);
        file.extend(leaf(&[1]));
        file.resize(300, 0);
        file.extend(leaf(&[3]));
        let src = Source::new(&file, Widths::STANDARD, 0, Limits::default());
        let (h, recs) = records(&src, 0, RecordType::LINK_NAME).unwrap();
        assert_eq!(h.total_records, 3);
        let firsts: Vec<u8> = recs.iter().map(|r| r[0]).collect();
        assert_eq!(firsts, vec![1, 2, 3]);
    }

    #[test]
    fn too_many_records_in_a_leaf_is_malformed() {
        let mut file = header(0, 100, 5, 5);
        file.resize(100, 0);
        file.extend(leaf(&[1, 2, 3, 4, 5]));
        let src = Source::new(&file, Widths::STANDARD, 0, Limits::default());
        let err = records(&src, 0, RecordType::LINK_NAME).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Format);
        assert_eq!(err.offset(), Some(100));
    }

    #[test]
    fn wrong_record_type_and_bad_checksum() {
        let mut file = header(0, 100, 1, 1);
        file.resize(100, 0);
        file.extend(leaf(&[1]));
        let src = Source::new(&file, Widths::STANDARD, 0, Limits::default());
        assert_eq!(
            records(&src, 0, RecordType::ATTRIBUTE_NAME)
                .unwrap_err()
                .kind(),
            ErrorKind::Format
        );
        file[110] ^= 0xff;
        let src = Source::new(&file, Widths::STANDARD, 0, Limits::default());
        assert_eq!(
            records(&src, 0, RecordType::LINK_NAME).unwrap_err().kind(),
            ErrorKind::Checksum
        );
    }
}
