//! Version 1 B-trees (`TREE`): the index of old-style groups (node type 0, leaves point at
//! `SNOD`s) and of chunked datasets with layout v1–v3 (node type 1, leaves point at chunks).
//! Walks are guarded against cycles (every node visited once, levels strictly decrease) and
//! depth.

use std::collections::HashSet;

use super::chunk_index::ChunkRecord;
use super::cursor::{Cursor, Encoder};
use super::source::Source;
use crate::hdf5lite::error::{Error, Result};

/// Node type of a v1 B-tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeType(pub u8);

impl NodeType {
    /// Group nodes: keys are local-heap name offsets, leaf children are `SNOD`s.
    pub const GROUP: NodeType = NodeType(0);
    /// Raw-data chunk nodes: keys are chunk size, filter mask and chunk offsets.
    pub const CHUNK: NodeType = NodeType(1);
}

/// The fixed part of a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeHeader {
    pub node_type: NodeType,
    pub level: u8,
    pub entries: u16,
}

impl NodeHeader {
    /// Bytes before the first key: signature, type, level, entries, two sibling addresses.
    pub fn encoded_len(offset_width: u8) -> u64 {
        8 + 2 * u64::from(offset_width)
    }

    /// Parses a node header.
    pub fn parse(c: &mut Cursor<'_>) -> Result<Self> {
        c.expect(b"TREE", "v1 B-tree node")?;
        let node_type = NodeType(c.u8()?);
        let level = c.u8()?;
        let entries = c.u16()?;
        c.address()?; // left sibling
        c.address()?; // right sibling
        Ok(NodeHeader {
            node_type,
            level,
            entries,
        })
    }
}

/// A chunk key: stored size, filter mask and the chunk's offset in elements (the extra
/// trailing element-size dimension is dropped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkKey {
    pub size: u32,
    pub filter_mask: u32,
    pub offset: Vec<u64>,
}

impl ChunkKey {
    /// Parses a key of a chunk tree with layout dimensionality `ndims` (rank + 1).
    pub fn parse(c: &mut Cursor<'_>, ndims: usize) -> Result<Self> {
        let size = c.u32()?;
        let filter_mask = c.u32()?;
        let mut offset = (0..ndims).map(|_| c.u64()).collect::<Result<Vec<_>>>()?;
        offset.pop();
        Ok(ChunkKey {
            size,
            filter_mask,
            offset,
        })
    }
}

impl ChunkKey {
    /// Encodes the key; `trailing` is the extra last offset (0, or the element size in the
    /// final key of a tree, as libhdf5 writes it).
    pub fn encode(&self, e: &mut Encoder, trailing: u64) {
        e.u32(self.size);
        e.u32(self.filter_mask);
        for &o in &self.offset {
            e.u64(o);
        }
        e.u64(trailing);
    }
}

/// Children per node of a chunk tree: 2K with libhdf5's default K of 32, for leaves and
/// internal nodes alike (a superblock v2 file without a K-values message uses the default).
pub const CHUNK_NODE_CHILDREN: usize = 64;

/// Bytes of one chunk-tree node of a 1-D dataset (rank 1, keys of 24 bytes) with
/// [`CHUNK_NODE_CHILDREN`] slots, as libhdf5 sizes every node whatever its use.
pub fn chunk_node_size(rank: usize, offset_width: u8) -> u64 {
    let key = 8 + 8 * (rank as u64 + 1);
    NodeHeader::encoded_len(offset_width)
        + (CHUNK_NODE_CHILDREN as u64 + 1) * key
        + CHUNK_NODE_CHILDREN as u64 * u64::from(offset_width)
}

/// One node of a chunk tree: keys and children interleaved, the final key after the last
/// child (`(key, trailing)` pairs), padded with zeros to `node_size`.
pub struct ChunkNode<'a> {
    pub level: u8,
    pub left: Option<u64>,
    pub right: Option<u64>,
    pub children: &'a [(ChunkKey, u64)],
    pub final_key: (&'a ChunkKey, u64),
}

impl ChunkNode<'_> {
    /// Encodes the node.
    pub fn encode(&self, e: &mut Encoder, node_size: u64) -> Result<()> {
        let start = e.len();
        e.bytes(b"TREE");
        e.u8(NodeType::CHUNK.0);
        e.u8(self.level);
        e.u16(
            u16::try_from(self.children.len())
                .ok()
                .filter(|&n| usize::from(n) <= CHUNK_NODE_CHILDREN)
                .ok_or_else(|| Error::usage("too many children in a v1 B-tree node"))?,
        );
        e.address(self.left);
        e.address(self.right);
        for (key, child) in self.children {
            key.encode(e, 0);
            e.address(Some(*child));
        }
        self.final_key.0.encode(e, self.final_key.1);
        let used = (e.len() - start) as u64;
        let pad = node_size
            .checked_sub(used)
            .ok_or_else(|| Error::usage("v1 B-tree node larger than its size"))?;
        e.zeros(pad as usize);
        Ok(())
    }
}

/// Addresses of the `SNOD`s of the group tree at `root`, left to right.
pub fn group_leaves(src: &Source<'_>, root: u64) -> Result<Vec<u64>> {
    let key_len = u64::from(src.widths().length);
    let mut out = Vec::new();
    walk(src, root, NodeType::GROUP, key_len, &mut |_, child| {
        out.push(child);
        Ok(())
    })?;
    Ok(out)
}

/// Every chunk of the chunk tree at `root`, for a layout of dimensionality `ndims`
/// (dataset rank + 1).
pub fn chunks(src: &Source<'_>, root: u64, ndims: usize) -> Result<Vec<ChunkRecord>> {
    if ndims < 2 {
        return Err(Error::format(format!(
            "chunk layout dimensionality {ndims} < 2"
        )));
    }
    let key_len = 8 + 8 * ndims as u64;
    let mut out = Vec::new();
    walk(src, root, NodeType::CHUNK, key_len, &mut |key, child| {
        let k = ChunkKey::parse(key, ndims)?;
        out.push(ChunkRecord {
            offset: k.offset,
            address: child,
            stored_size: u64::from(k.size),
            filter_mask: k.filter_mask,
        });
        Ok(())
    })?;
    Ok(out)
}

type LeafFn<'f> = dyn FnMut(&mut Cursor<'_>, u64) -> Result<()> + 'f;

fn walk(
    src: &Source<'_>,
    root: u64,
    node_type: NodeType,
    key_len: u64,
    leaf: &mut LeafFn<'_>,
) -> Result<()> {
    let mut seen = HashSet::new();
    walk_node(src, root, node_type, key_len, None, &mut seen, leaf)
}

fn walk_node(
    src: &Source<'_>,
    addr: u64,
    node_type: NodeType,
    key_len: u64,
    expected_level: Option<u8>,
    seen: &mut HashSet<u64>,
    leaf: &mut LeafFn<'_>,
) -> Result<()> {
    let at = src.absolute(addr)?;
    if !seen.insert(addr) {
        return Err(Error::format("v1 B-tree node is reached twice (cycle)").at(at));
    }
    let w = src.widths();
    let head_len = NodeHeader::encoded_len(w.offset);
    // One read for the header and the entries of a node of up to 64 children.
    let window = src.window(addr, head_len + 65 * (key_len + u64::from(w.offset)));
    let src = &src.through(&window);
    let (head, _) = src.cursor_buf(addr, head_len, "v1 B-tree node")?;
    let h = NodeHeader::parse(&mut src.cursor(&head, at))?;
    if h.node_type != node_type {
        return Err(Error::format(format!(
            "v1 B-tree node type {} where {} was expected",
            h.node_type.0, node_type.0
        ))
        .at(at));
    }
    match expected_level {
        Some(l) if l != h.level => {
            return Err(Error::format(format!(
                "v1 B-tree node at level {} under a node at level {}",
                h.level,
                u16::from(l) + 1
            ))
            .at(at))
        }
        None if u32::from(h.level) > src.limits().max_depth => {
            return Err(Error::limits(format!(
                "v1 B-tree of depth {} exceeds the limit of {}",
                h.level,
                src.limits().max_depth
            ))
            .at(at))
        }
        _ => {}
    }
    let n = u64::from(h.entries);
    let body_len = n * (key_len + u64::from(w.offset)) + key_len;
    let body_addr = addr
        .checked_add(head_len)
        .ok_or_else(|| Error::format("v1 B-tree node address overflows").at(at))?;
    let (body, body_at) = src.cursor_buf(body_addr, body_len, "v1 B-tree entries")?;
    let mut c = src.cursor(&body, body_at);
    for _ in 0..n {
        let mut key = c.sub(key_len as usize)?;
        let cat = c.offset();
        let child = c
            .address()?
            .ok_or_else(|| Error::format("v1 B-tree child address is undefined").at(cat))?;
        if h.level == 0 {
            leaf(&mut key, child)?;
        } else {
            walk_node(
                src,
                child,
                node_type,
                key_len,
                Some(h.level - 1),
                seen,
                leaf,
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdf5lite::raw::cursor::Widths;
    use crate::hdf5lite::{ErrorKind, Limits};

    fn node(level: u8, keys_children: &[(u64, u64)], last_key: u64) -> Vec<u8> {
        let mut n = b"TREE".to_vec();
        n.push(0); // node type 0 (group)
        n.push(level);
        n.extend_from_slice(&(keys_children.len() as u16).to_le_bytes());
        n.extend_from_slice(&[0xff; 16]); // no siblings
        for &(k, c) in keys_children {
            n.extend_from_slice(&k.to_le_bytes()); // key: heap offset
            n.extend_from_slice(&c.to_le_bytes()); // child address
        }
        n.extend_from_slice(&last_key.to_le_bytes());
        n
    }

    #[test]
    fn two_level_group_tree_lists_leaves_in_order() {
        // Root (level 1) at 0 with children at 100 and 200, each a leaf node pointing at SNODs.
        let mut file = node(1, &[(0, 100), (8, 200)], 16);
        file.resize(100, 0);
        file.extend(node(0, &[(0, 1000), (4, 1100)], 8));
        file.resize(200, 0);
        file.extend(node(0, &[(8, 1200)], 16));
        let src = Source::new(&file, Widths::STANDARD, 0, Limits::default());
        assert_eq!(group_leaves(&src, 0).unwrap(), vec![1000, 1100, 1200]);
    }

    #[test]
    fn empty_node_has_no_leaves() {
        let file = node(0, &[], 0);
        let src = Source::new(&file, Widths::STANDARD, 0, Limits::default());
        assert_eq!(group_leaves(&src, 0).unwrap(), Vec::<u64>::new());
    }

    #[test]
    fn self_reference_is_a_cycle_error() {
        let file = node(1, &[(0, 0)], 8);
        let src = Source::new(&file, Widths::STANDARD, 0, Limits::default());
        let err = group_leaves(&src, 0).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Format);
        assert!(err.message().contains("cycle"), "{}", err.message());
    }

    #[test]
    fn chunk_keys_drop_the_element_dimension() {
        let mut file = b"TREE".to_vec();
        file.extend_from_slice(&[1, 0, 1, 0]); // chunk tree, level 0, 1 entry
        file.extend_from_slice(&[0xff; 16]); // no siblings
        file.extend_from_slice(&[0x20, 0, 0, 0]); // stored size 32
        file.extend_from_slice(&[1, 0, 0, 0]); // filter mask 1
        file.extend_from_slice(&1024u64.to_le_bytes()); // offset in dim 0
        file.extend_from_slice(&0u64.to_le_bytes()); // element-size dimension
        file.extend_from_slice(&0x800u64.to_le_bytes()); // chunk address
        file.extend_from_slice(&[0; 24]); // final key
        let src = Source::new(&file, Widths::STANDARD, 0, Limits::default());
        let c = chunks(&src, 0, 2).unwrap();
        assert_eq!(
            c,
            vec![ChunkRecord {
                offset: vec![1024],
                address: 0x800,
                stored_size: 32,
                filter_mask: 1
            }]
        );
    }

    /// A leaf of a 1-D chunk tree with one chunk, as libhdf5 lays it out: header, key 0,
    /// child 0, the final key (offset past the end, element size trailing), zero padding.
    #[test]
    fn chunk_leaf_encodes_field_by_field() {
        let key = ChunkKey {
            size: 35,
            filter_mask: 0,
            offset: vec![0],
        };
        let end = ChunkKey {
            size: 0,
            filter_mask: 0,
            offset: vec![1024],
        };
        let node = ChunkNode {
            level: 0,
            left: None,
            right: Some(0x1000),
            children: &[(key.clone(), 0x2000)],
            final_key: (&end, 8),
        };
        let size = chunk_node_size(1, 8);
        assert_eq!(size, 2096);
        let mut e = Encoder::new(Widths::STANDARD);
        node.encode(&mut e, size).unwrap();
        let bytes = e.into_bytes();
        assert_eq!(bytes.len(), 2096);
        #[rustfmt::skip]
        let want: &[u8] = &[
            b'T', b'R', b'E', b'E', // signature
            1,    // node type: raw data chunks
            0,    // level: leaf
            1, 0, // entries used
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // left sibling: undefined
            0x00, 0x10, 0, 0, 0, 0, 0, 0, // right sibling 0x1000
            35, 0, 0, 0, // key 0: stored chunk size
            0, 0, 0, 0,  // key 0: filter mask
            0, 0, 0, 0, 0, 0, 0, 0, // key 0: offset 0
            0, 0, 0, 0, 0, 0, 0, 0, // key 0: trailing (element) dimension 0
            0x00, 0x20, 0, 0, 0, 0, 0, 0, // child 0 at 0x2000
            0, 0, 0, 0, // final key: size 0
            0, 0, 0, 0, // final key: filter mask
            0x00, 0x04, 0, 0, 0, 0, 0, 0, // final key: offset 1024, past the last chunk
            8, 0, 0, 0, 0, 0, 0, 0, // final key: element size trailing
        ];
        assert_eq!(&bytes[..want.len()], want);
        assert!(bytes[want.len()..].iter().all(|&b| b == 0));

        // The parser's view of the key.
        let mut c = Cursor::new(&bytes[24..48], 24, Widths::STANDARD);
        assert_eq!(ChunkKey::parse(&mut c, 2).unwrap(), key);

        let too_many = vec![(key, 0u64); CHUNK_NODE_CHILDREN + 1];
        let node = ChunkNode {
            children: &too_many,
            ..node
        };
        let mut e = Encoder::new(Widths::STANDARD);
        assert_eq!(
            node.encode(&mut e, size).unwrap_err().kind(),
            ErrorKind::Usage
        );
    }
}
