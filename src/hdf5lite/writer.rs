//! Writes an HDF5 file: superblock v2, version-2 object headers, compact groups, attributes,
//! contiguous datasets and global heaps. The caller describes a tree of groups, datasets
//! and attributes; [`FileWriter::finish`] plans addresses, encodes every structure, patches
//! addresses and checksums, and writes the bytes. The same tree always gives the same bytes.
//!
//! File order: superblock, object headers (in creation order, root first), global heap
//! collections, then each dataset's raw data. Metadata comes first so raw data, the bulk of
//! a profile, is written straight from the caller's buffers at the end.
//!
//! Datasets too large to hold in memory are *deferred*: declared with datatype and shape
//! only ([`FileWriter::create_deferred_dataset`]). [`FileWriter::finish_at`] writes
//! everything else through a positional sink ([`WriteAt`](crate::io::WriteAt)) and returns each deferred
//! dataset's planned address ([`Placement`]); the caller then writes those bytes, in any
//! order and in pieces, at their addresses. The addresses are those the same tree with the
//! data given up front would get, so both routes produce the same bytes.

use std::io::Write;

use crate::io::WriteAt;

use super::error::{Error, Result};
use super::model::{CharSet, Data, Datatype, Shape, StringLength};
use super::raw::btree_v1::{chunk_node_size, ChunkKey, ChunkNode, CHUNK_NODE_CHILDREN};
use super::raw::cursor::{Encoder, Widths};
use super::raw::global_heap::{GlobalHeapCollection, HeapObject};
use super::raw::messages::{
    datatype, fill_value, Attribute, AttributeInfo, ChunkIndex, DataLayout, Dataspace, FillValue,
    Filter, FilterId, FilterPipeline, GroupInfo, Link, LinkInfo, MessageFlags, MessageType,
};
use super::raw::object_header::ObjectHeader;
use super::raw::superblock::{Superblock, V2_SIZE};

/// Handle of a group or dataset inside a [`FileWriter`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ObjectId(pub(crate) usize);

/// How a dataset's raw data is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StorageLayout {
    /// One contiguous block (or no storage when the dataset is empty).
    Contiguous,
    /// Fixed-size chunks through shuffle + deflate, indexed by a version 1 B-tree (layout
    /// message v3: readable by libhdf5 1.8 and later). Deferred datasets only: the caller
    /// compresses the chunks ([`ShuffleDeflate`](super::filters::ShuffleDeflate))
    /// and appends them after [`Placement::eof`].
    Chunked(Chunking),
}

/// Chunk size and deflate level of a [`StorageLayout::Chunked`] dataset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunking {
    /// Elements per chunk (1-D datasets), at least 1 and at most the dataset's length.
    pub elements: u64,
    /// zlib level, 0–9.
    pub deflate_level: u8,
}

/// Links or attributes above this count need stored phase-change values to stay compact.
const COMPACT_DEFAULT_MAX: usize = 8;
/// The "minimum dense" value stored with a raised "maximum compact".
const MIN_DENSE: u16 = 6;
/// Payload bytes after which a new global heap collection is started. Keeps each collection
/// a modest metadata-cache entry for readers (the reference uses 4–32 KiB collections).
const MAX_COLLECTION_PAYLOAD: u64 = 1 << 20;
/// Most objects in one collection (object indices are 16-bit and 0 means free space).
const MAX_COLLECTION_OBJECTS: usize = u16::MAX as usize;

#[derive(Debug)]
struct Value {
    datatype: Datatype,
    shape: Shape,
    data: Data,
}

#[derive(Debug)]
struct AttributeSpec {
    name: String,
    value: Value,
}

#[derive(Debug)]
enum Kind {
    Group {
        links: Vec<(String, ObjectId)>,
    },
    /// `deferred`: the data comes from the caller after [`FileWriter::finish_at`].
    Dataset {
        value: Value,
        layout: StorageLayout,
        deferred: bool,
    },
}

/// Where [`FileWriter::finish_at`] put the file's end and each deferred dataset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// Length of the whole file once the deferred contiguous data is written; chunks of
    /// chunked datasets are appended from here.
    pub eof: u64,
    deferred: Vec<(ObjectId, DataPlace)>,
    chunked: Vec<(ObjectId, ChunkPlan)>,
    root_header: u64,
}

/// The planned chunk index of one deferred chunked dataset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkPlan {
    /// Elements in the dataset and per chunk; bytes per element.
    pub len: u64,
    pub chunk_elements: u64,
    pub element_size: u64,
    /// Address of the first B-tree node (leaves first, the root last).
    btree_at: u64,
    /// Nodes per level, leaves first.
    levels: Vec<u64>,
    node_size: u64,
}

impl ChunkPlan {
    fn new(len: u64, chunk_elements: u64, element_size: u64) -> Self {
        let chunks = len.div_ceil(chunk_elements);
        let mut levels = vec![chunks.div_ceil(CHUNK_NODE_CHILDREN as u64).max(1)];
        while let Some(&n) = levels.last().filter(|&&n| n > 1) {
            levels.push(n.div_ceil(CHUNK_NODE_CHILDREN as u64));
        }
        ChunkPlan {
            len,
            chunk_elements,
            element_size,
            btree_at: 0,
            levels,
            node_size: chunk_node_size(1, Widths::STANDARD.offset),
        }
    }

    /// Number of chunks.
    pub fn chunks(&self) -> u64 {
        self.len.div_ceil(self.chunk_elements)
    }

    /// Bytes of one chunk before filtering (edge chunks are stored at full size too).
    pub fn chunk_bytes(&self) -> u64 {
        self.chunk_elements * self.element_size
    }

    fn btree_size(&self) -> u64 {
        self.levels.iter().sum::<u64>() * self.node_size
    }

    fn root(&self) -> u64 {
        self.btree_at + self.btree_size() - self.node_size
    }

    /// Encodes every node of the tree over `chunks` (address and stored size, in order).
    fn encode(&self, chunks: &[StoredChunk]) -> Result<Vec<u8>> {
        let n = self.chunks();
        if chunks.len() as u64 != n {
            return Err(Error::usage(format!(
                "{} chunks given, the dataset has {n}",
                chunks.len()
            )));
        }
        let key = |c: u64| match chunks.get(c as usize) {
            Some(chunk) => (
                ChunkKey {
                    size: chunk.size,
                    filter_mask: 0,
                    offset: vec![c * self.chunk_elements],
                },
                0,
            ),
            // The final key: just past the last chunk, with the element size trailing.
            None => (
                ChunkKey {
                    size: 0,
                    filter_mask: 0,
                    offset: vec![n * self.chunk_elements],
                },
                self.element_size,
            ),
        };
        let mut e = Encoder::new(Widths::STANDARD);
        // Chunks covered by one node at each level.
        let mut span = 1u64;
        let mut first_node = self.btree_at;
        let mut below = 0u64;
        for (level, &count) in self.levels.iter().enumerate() {
            let child_span = span;
            span *= CHUNK_NODE_CHILDREN as u64;
            for j in 0..count {
                let lo = j * span;
                let hi = ((j + 1) * span).min(n);
                let mut children = Vec::with_capacity(CHUNK_NODE_CHILDREN);
                let mut c = lo;
                let mut child = 0u64;
                while c < hi {
                    let address = if level == 0 {
                        chunks[c as usize].address
                    } else {
                        below + (j * CHUNK_NODE_CHILDREN as u64 + child) * self.node_size
                    };
                    children.push((key(c).0, address));
                    c += child_span;
                    child += 1;
                }
                let (final_key, trailing) = key(hi);
                let at = |k: u64| first_node + k * self.node_size;
                ChunkNode {
                    level: level as u8,
                    left: (j > 0).then(|| at(j - 1)),
                    right: (j + 1 < count).then(|| at(j + 1)),
                    children: &children,
                    final_key: (&final_key, trailing),
                }
                .encode(&mut e, self.node_size)?;
            }
            below = first_node;
            first_node += count * self.node_size;
        }
        Ok(e.into_bytes())
    }
}

/// Where one filtered chunk was written, and its stored size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredChunk {
    pub address: u64,
    pub size: u32,
}

/// The planned storage of one deferred dataset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataPlace {
    /// Absolute address of the first byte; `None` when the dataset stores nothing.
    pub address: Option<u64>,
    /// Bytes the caller must write there.
    pub size: u64,
}

impl Placement {
    /// The chunk plan of deferred chunked dataset `id`.
    pub fn chunked(&self, id: ObjectId) -> Option<&ChunkPlan> {
        self.chunked
            .iter()
            .find(|(d, _)| *d == id)
            .map(|(_, plan)| plan)
    }

    /// Writes the chunk index of dataset `id` once its chunks are stored (in chunk order).
    pub fn write_chunk_index<S: WriteAt + ?Sized>(
        &self,
        out: &mut S,
        id: ObjectId,
        chunks: &[StoredChunk],
    ) -> Result<()> {
        let plan = self
            .chunked(id)
            .ok_or_else(|| Error::usage("not a deferred chunked dataset"))?;
        out.write_all_at(plan.btree_at, &plan.encode(chunks)?)?;
        Ok(())
    }

    /// Rewrites the superblock with the final end of file, after chunks were appended.
    pub fn write_eof<S: WriteAt + ?Sized>(&self, out: &mut S, eof: u64) -> Result<()> {
        if eof < self.eof {
            return Err(Error::usage("end of file before the planned data"));
        }
        out.write_all_at(0, &Superblock::v2(self.root_header, eof).encode_v2())?;
        Ok(())
    }

    /// The planned storage of deferred dataset `id`.
    pub fn data(&self, id: ObjectId) -> Option<DataPlace> {
        self.deferred
            .iter()
            .find(|(d, _)| *d == id)
            .map(|(_, place)| *place)
    }
}

#[derive(Debug)]
struct Node {
    kind: Kind,
    attributes: Vec<AttributeSpec>,
}

/// Builds a file in memory and writes it with [`finish`](Self::finish).
#[derive(Debug)]
pub struct FileWriter {
    nodes: Vec<Node>,
}

impl Default for FileWriter {
    fn default() -> Self {
        Self::new()
    }
}

impl FileWriter {
    /// The root group.
    pub const ROOT: ObjectId = ObjectId(0);

    /// An empty file with just a root group.
    pub fn new() -> Self {
        FileWriter {
            nodes: vec![Node {
                kind: Kind::Group { links: Vec::new() },
                attributes: Vec::new(),
            }],
        }
    }

    /// Adds a group `name` under `parent` (a group).
    pub fn create_group(&mut self, parent: ObjectId, name: &str) -> Result<ObjectId> {
        self.add_child(
            parent,
            name,
            Node {
                kind: Kind::Group { links: Vec::new() },
                attributes: Vec::new(),
            },
        )
    }

    /// Adds a dataset `name` under `parent` (a group). `data` must hold exactly
    /// `shape.element_count()` elements of `datatype`.
    pub fn create_dataset(
        &mut self,
        parent: ObjectId,
        name: &str,
        datatype: Datatype,
        shape: Shape,
        data: Data,
        layout: StorageLayout,
    ) -> Result<ObjectId> {
        if layout != StorageLayout::Contiguous {
            return Err(
                Error::usage("only deferred datasets can be chunked").in_object(name.to_owned())
            );
        }
        let value = Value {
            datatype,
            shape,
            data,
        };
        check_value(&value).map_err(|e| e.in_object(name.to_owned()))?;
        self.add_child(
            parent,
            name,
            Node {
                kind: Kind::Dataset {
                    value,
                    layout,
                    deferred: false,
                },
                attributes: Vec::new(),
            },
        )
    }

    /// Adds a contiguous dataset `name` of fixed-size `datatype` whose data the caller
    /// writes after [`finish_at`](Self::finish_at), at the address its [`Placement`] gives.
    pub fn create_deferred_dataset(
        &mut self,
        parent: ObjectId,
        name: &str,
        datatype: Datatype,
        shape: Shape,
        layout: StorageLayout,
    ) -> Result<ObjectId> {
        if let StorageLayout::Chunked(c) = &layout {
            let len = match &shape {
                Shape::Simple(dims) if dims.len() == 1 => dims[0],
                _ => 0,
            };
            let element = datatype.element_size().unwrap_or(0);
            let fits = c
                .elements
                .checked_mul(element)
                .is_some_and(|b| b <= u64::from(u32::MAX));
            if len == 0 || c.elements == 0 || c.elements > len || !fits || c.deflate_level > 9 {
                return Err(Error::usage(
                    "chunking needs a non-empty 1-D dataset, 1 to len elements per chunk of \
                     under 4 GiB, and a deflate level of 0 to 9",
                )
                .in_object(name.to_owned()));
            }
        }
        if datatype.is_variable_length() {
            return Err(
                Error::usage("a deferred dataset needs a fixed-size datatype")
                    .in_object(name.to_owned()),
            );
        }
        let value = Value {
            datatype,
            shape,
            data: Data::Fixed(Vec::new()),
        };
        check_shape(&value).map_err(|e| e.in_object(name.to_owned()))?;
        raw_size(&value).map_err(|e| e.in_object(name.to_owned()))?;
        self.add_child(
            parent,
            name,
            Node {
                kind: Kind::Dataset {
                    value,
                    layout,
                    deferred: true,
                },
                attributes: Vec::new(),
            },
        )
    }

    /// Sets attribute `name` on a group or dataset, replacing one of the same name.
    pub fn set_attribute(
        &mut self,
        object: ObjectId,
        name: &str,
        datatype: Datatype,
        shape: Shape,
        data: Data,
    ) -> Result<()> {
        let node = self
            .nodes
            .get_mut(object.0)
            .ok_or_else(|| Error::usage(format!("no object with id {}", object.0)))?;
        if name.is_empty() {
            return Err(Error::usage("empty attribute name"));
        }
        let value = Value {
            datatype,
            shape,
            data,
        };
        check_value(&value).map_err(|e| e.in_object(name.to_owned()))?;
        // The attribute message must fit a 16-bit message size (compact storage only).
        let probe = attribute_message(name, &value, &mut |_| (0, 0))?;
        if probe.len() > usize::from(u16::MAX) {
            return Err(Error::usage(format!(
                "attribute {name} needs {} bytes; compact attributes are limited to 64 KiB",
                probe.len()
            )));
        }
        let spec = AttributeSpec {
            name: name.to_owned(),
            value,
        };
        match node.attributes.iter_mut().find(|a| a.name == name) {
            Some(existing) => *existing = spec,
            None => {
                if node.attributes.len() >= usize::from(u16::MAX) {
                    return Err(Error::usage("more than 65535 attributes on one object"));
                }
                node.attributes.push(spec);
            }
        }
        Ok(())
    }

    fn add_child(&mut self, parent: ObjectId, name: &str, node: Node) -> Result<ObjectId> {
        if name.is_empty() || name.contains('/') || name == "." {
            return Err(Error::usage(format!("invalid link name {name:?}")));
        }
        let id = ObjectId(self.nodes.len());
        let links = match self.nodes.get_mut(parent.0).map(|n| &mut n.kind) {
            Some(Kind::Group { links }) => links,
            Some(Kind::Dataset { .. }) => {
                return Err(Error::usage(format!("parent of {name:?} is a dataset")))
            }
            None => return Err(Error::usage(format!("no object with id {}", parent.0))),
        };
        if links.iter().any(|(n, _)| n == name) {
            return Err(Error::usage(format!(
                "{name:?} already exists in its group"
            )));
        }
        if links.len() >= usize::from(u16::MAX) {
            return Err(Error::usage("more than 65535 links in one group"));
        }
        links.push((name.to_owned(), id));
        self.nodes.push(node);
        Ok(id)
    }

    /// Writes the whole file to `out`; returns the number of bytes written. Fails if any
    /// dataset is deferred (use [`finish_at`](Self::finish_at)).
    pub fn finish<W: Write>(self, out: &mut W) -> Result<u64> {
        if self.has_deferred() {
            return Err(Error::usage(
                "deferred datasets need a positional sink (finish_at)",
            ));
        }
        let mut written = 0u64;
        // Writes `bytes` at `at`, zero-filling any alignment gap before it.
        let placement = self.emit(&mut |at: u64, bytes: &[u8]| -> Result<()> {
            let gap = at
                .checked_sub(written)
                .filter(|&g| g < 8)
                .ok_or_else(|| Error::usage("writer plan out of step (internal error)"))?;
            out.write_all(&[0u8; 8][..gap as usize])?;
            out.write_all(bytes)?;
            written = at + bytes.len() as u64;
            Ok(())
        })?;
        debug_assert_eq!(written, placement.eof);
        Ok(written)
    }

    /// Writes everything but the deferred datasets' data at their final offsets in `out`,
    /// and says where that data goes. Gaps are left unwritten (a new file reads them as
    /// zeros); the file is complete once the caller has written every deferred dataset.
    pub fn finish_at<S: WriteAt + ?Sized>(self, out: &mut S) -> Result<Placement> {
        self.emit(&mut |at: u64, bytes: &[u8]| -> Result<()> {
            out.write_all_at(at, bytes)?;
            Ok(())
        })
    }

    fn has_deferred(&self) -> bool {
        self.nodes
            .iter()
            .any(|n| matches!(n.kind, Kind::Dataset { deferred: true, .. }))
    }

    /// Plans every address, then hands each structure's bytes to `put` in file order.
    fn emit(&self, put: &mut dyn FnMut(u64, &[u8]) -> Result<()>) -> Result<Placement> {
        // Plan 1: global heap objects for every variable-length string, in a fixed order
        // (objects by id; attributes, then dataset data).
        let mut heap = HeapPlan::default();
        let mut attr_refs = Vec::with_capacity(self.nodes.len());
        let mut data_refs = Vec::with_capacity(self.nodes.len());
        for node in &self.nodes {
            attr_refs.push(
                node.attributes
                    .iter()
                    .map(|a| heap.add(&a.value.data))
                    .collect::<Vec<_>>(),
            );
            data_refs.push(match &node.kind {
                Kind::Dataset { value, .. } => heap.add(&value.data),
                Kind::Group { .. } => Vec::new(),
            });
        }

        // Plan 2: sizes, then addresses. Header sizes do not depend on address values, so
        // encoding once with zero addresses gives the final sizes.
        let mut addr = Addresses {
            headers: vec![0; self.nodes.len()],
            heaps: vec![0; heap.collections.len()],
            data: vec![None; self.nodes.len()],
        };
        let mut next = V2_SIZE;
        for (i, node) in self.nodes.iter().enumerate() {
            addr.headers[i] = next;
            let size = self.header(i, node, &addr, &attr_refs[i])?.len() as u64;
            next += size;
        }
        for (i, c) in heap.collections.iter().enumerate() {
            next = align8(next);
            addr.heaps[i] = next;
            next += c.encoded_size();
        }
        let mut deferred = Vec::new();
        let mut chunked = Vec::new();
        for (i, node) in self.nodes.iter().enumerate() {
            if let Kind::Dataset {
                value,
                layout: StorageLayout::Chunked(c),
                ..
            } = &node.kind
            {
                let mut plan = ChunkPlan::new(
                    value.shape.element_count().unwrap_or(0),
                    c.elements,
                    value.datatype.element_size().unwrap_or(0),
                );
                next = align8(next);
                plan.btree_at = next;
                next = next
                    .checked_add(plan.btree_size())
                    .ok_or_else(|| Error::usage("file larger than 2^64 bytes"))?;
                addr.data[i] = Some(plan.root());
                chunked.push((ObjectId(i), plan));
                continue;
            }
            if let Kind::Dataset {
                value,
                deferred: later,
                ..
            } = &node.kind
            {
                let size = raw_size(value)?;
                if size > 0 {
                    next = align8(next);
                    addr.data[i] = Some(next);
                    next = next
                        .checked_add(size)
                        .ok_or_else(|| Error::usage("file larger than 2^64 bytes"))?;
                }
                if *later {
                    let place = DataPlace {
                        address: addr.data[i],
                        size,
                    };
                    deferred.push((ObjectId(i), place));
                }
            }
        }
        let eof = next;

        // Emit, with every address known.
        put(0, &Superblock::v2(addr.headers[0], eof).encode_v2())?;
        for (i, node) in self.nodes.iter().enumerate() {
            let bytes = self.header(i, node, &addr, &attr_refs[i])?;
            put(addr.headers[i], &bytes)?;
        }
        for (c, &at) in heap.collections.iter().zip(&addr.heaps) {
            let mut e = Encoder::new(Widths::STANDARD);
            c.encode(&mut e);
            put(at, e.as_bytes())?;
        }
        for (i, node) in self.nodes.iter().enumerate() {
            if let (
                Kind::Dataset {
                    value,
                    deferred: false,
                    ..
                },
                Some(at),
            ) = (&node.kind, addr.data[i])
            {
                match &value.data {
                    Data::Fixed(bytes) => put(at, bytes)?,
                    Data::VlenStrings(strings) => {
                        let mut e = Encoder::new(Widths::STANDARD);
                        for (s, r) in strings.iter().zip(&data_refs[i]) {
                            descriptor(&mut e, s.len(), addr.heaps[r.0], r.1);
                        }
                        put(at, e.as_bytes())?;
                    }
                }
            }
        }
        Ok(Placement {
            eof,
            deferred,
            chunked,
            root_header: addr.headers[0],
        })
    }

    /// Encodes the object header of node `i`.
    fn header(
        &self,
        i: usize,
        node: &Node,
        addr: &Addresses,
        attr_refs: &[Vec<HeapRef>],
    ) -> Result<Vec<u8>> {
        let widths = Widths::STANDARD;
        let mut messages: Vec<(MessageType, u8, Vec<u8>)> = Vec::new();
        let mut msg =
            |kind: MessageType, flags: u8, f: &mut dyn FnMut(&mut Encoder) -> Result<()>| {
                let mut e = Encoder::new(widths);
                f(&mut e)?;
                messages.push((kind, flags, e.into_bytes()));
                Ok::<(), Error>(())
            };
        match &node.kind {
            Kind::Group { links } => {
                msg(MessageType::LINK_INFO, 0, &mut |e| {
                    LinkInfo::default().encode(e);
                    Ok(())
                })?;
                let info = GroupInfo {
                    phase_change: phase_change(links.len()),
                    estimates: None,
                };
                msg(MessageType::GROUP_INFO, 0, &mut |e| {
                    info.encode(e);
                    Ok(())
                })?;
                for (name, target) in links {
                    let link = Link::hard(name.clone(), addr.headers[target.0]);
                    msg(MessageType::LINK, 0, &mut |e| link.encode(e))?;
                }
            }
            Kind::Dataset { value, layout, .. } => {
                msg(MessageType::DATASPACE, 0, &mut |e| {
                    Dataspace::from_shape(&value.shape).encode(e);
                    Ok(())
                })?;
                msg(MessageType::DATATYPE, MessageFlags::CONSTANT, &mut |e| {
                    datatype::encode(&value.datatype, e)
                })?;
                let fill = if value.datatype.is_variable_length() {
                    FillValue::VLEN
                } else if let StorageLayout::Chunked(_) = layout {
                    FillValue {
                        alloc_time: fill_value::alloc_time::INCREMENTAL,
                        ..FillValue::NUMERIC
                    }
                } else {
                    FillValue::NUMERIC
                };
                msg(MessageType::FILL_VALUE, MessageFlags::CONSTANT, &mut |e| {
                    fill.encode(e);
                    Ok(())
                })?;
                let layout = match layout {
                    StorageLayout::Contiguous => DataLayout::Contiguous {
                        address: addr.data[i],
                        size: raw_size(value)?,
                    },
                    StorageLayout::Chunked(c) => {
                        let element = value.datatype.element_size().unwrap_or(0);
                        let optional = |id, client_data| Filter {
                            id,
                            name: None,
                            flags: 1,
                            client_data,
                        };
                        let pipeline = FilterPipeline {
                            filters: vec![
                                optional(FilterId::SHUFFLE, vec![element as u32]),
                                optional(FilterId::DEFLATE, vec![u32::from(c.deflate_level)]),
                            ],
                        };
                        msg(MessageType::FILTER_PIPELINE, 0, &mut |e| pipeline.encode(e))?;
                        DataLayout::Chunked {
                            address: addr.data[i],
                            dims: vec![c.elements, element],
                            index: ChunkIndex::BTreeV1,
                            flags: 0,
                        }
                    }
                };
                msg(MessageType::LAYOUT, 0, &mut |e| layout.encode(e))?;
            }
        }
        // libhdf5 counts the attributes of a version-2 header through this message
        // (without it h5py reports `len(attrs) == 0`); undefined addresses = compact.
        msg(MessageType::ATTRIBUTE_INFO, 0, &mut |e| {
            AttributeInfo::default().encode(e);
            Ok(())
        })?;
        for (a, refs) in node.attributes.iter().zip(attr_refs) {
            let mut it = refs.iter();
            let body = attribute_message(&a.name, &a.value, &mut |_| {
                it.next().map_or((0, 0), |r| (addr.heaps[r.0], r.1))
            })?;
            messages.push((MessageType::ATTRIBUTE, 0, body));
        }
        ObjectHeader::encode_v2(&messages, phase_change(node.attributes.len()))
    }
}

fn align8(n: u64) -> u64 {
    n.div_ceil(8) * 8
}

/// Stored phase-change values that keep `n` links or attributes in compact storage.
fn phase_change(n: usize) -> Option<(u16, u16)> {
    (n > COMPACT_DEFAULT_MAX).then(|| (u16::try_from(n).unwrap_or(u16::MAX), MIN_DENSE))
}

/// (collection number, object index) of one string.
type HeapRef = (usize, u16);

#[derive(Debug, Default)]
struct HeapPlan {
    collections: Vec<GlobalHeapCollection>,
    payload: u64,
}

impl HeapPlan {
    /// Places every string of `data` (none for fixed-size data).
    fn add(&mut self, data: &Data) -> Vec<HeapRef> {
        let Data::VlenStrings(strings) = data else {
            return Vec::new();
        };
        strings.iter().map(|s| self.place(s.as_bytes())).collect()
    }

    fn place(&mut self, bytes: &[u8]) -> HeapRef {
        let cost = 16 + bytes.len() as u64;
        let full = match self.collections.last() {
            None => true,
            Some(c) => {
                c.objects.len() >= MAX_COLLECTION_OBJECTS
                    || (!c.objects.is_empty() && self.payload + cost > MAX_COLLECTION_PAYLOAD)
            }
        };
        if full {
            self.collections.push(GlobalHeapCollection::default());
            self.payload = 0;
        }
        self.payload += cost;
        let n = self.collections.len() - 1;
        let c = &mut self.collections[n];
        let index = c.objects.len() as u16 + 1;
        c.objects.push(HeapObject {
            index,
            reference_count: 0,
            data: bytes.to_vec(),
        });
        (n, index)
    }
}

#[derive(Debug, Clone)]
struct Addresses {
    headers: Vec<u64>,
    heaps: Vec<u64>,
    data: Vec<Option<u64>>,
}

/// Writes a variable-length descriptor: byte length, collection address, object index.
fn descriptor(e: &mut Encoder, len: usize, collection: u64, index: u16) {
    e.u32(len as u32);
    e.address(Some(collection));
    e.u32(u32::from(index));
}

/// Encodes an attribute message; `heap` gives the (collection address, index) of each
/// string in order.
fn attribute_message(
    name: &str,
    value: &Value,
    heap: &mut dyn FnMut(usize) -> (u64, u16),
) -> Result<Vec<u8>> {
    let data = match &value.data {
        Data::Fixed(bytes) => bytes.clone(),
        Data::VlenStrings(strings) => {
            let mut e = Encoder::new(Widths::STANDARD);
            for (i, s) in strings.iter().enumerate() {
                let (collection, index) = heap(i);
                descriptor(&mut e, s.len(), collection, index);
            }
            e.into_bytes()
        }
    };
    let attribute = Attribute {
        name: name.to_owned(),
        charset: if name.is_ascii() {
            CharSet::Ascii
        } else {
            CharSet::Utf8
        },
        datatype: value.datatype.clone(),
        dataspace: Dataspace::from_shape(&value.shape),
        data,
    };
    let mut e = Encoder::new(Widths::STANDARD);
    attribute.encode(&mut e)?;
    Ok(e.into_bytes())
}

/// Bytes of raw data a dataset stores.
fn raw_size(value: &Value) -> Result<u64> {
    value
        .shape
        .element_count()
        .zip(value.datatype.element_size())
        .and_then(|(n, s)| n.checked_mul(s))
        .ok_or_else(|| Error::usage("dataset size overflows"))
}

/// Checks the shape's rank and that the datatype can be encoded.
fn check_shape(value: &Value) -> Result<()> {
    if let Shape::Simple(dims) = &value.shape {
        if dims.is_empty() || dims.len() > 32 {
            return Err(Error::usage(format!(
                "simple shape of rank {} (1 to 32)",
                dims.len()
            )));
        }
    }
    datatype::encode(&value.datatype, &mut Encoder::new(Widths::STANDARD))?;
    Ok(())
}

/// Checks that `data` matches `datatype` and `shape`, and that the datatype can be encoded.
fn check_value(value: &Value) -> Result<()> {
    check_shape(value)?;
    let count = value
        .shape
        .element_count()
        .ok_or_else(|| Error::usage("element count overflows"))?;
    match &value.data {
        Data::Fixed(bytes) => {
            if value.datatype.is_variable_length() {
                return Err(Error::usage(
                    "fixed-size data for a variable-length datatype",
                ));
            }
            let want = raw_size(value)?;
            if bytes.len() as u64 != want {
                return Err(Error::usage(format!(
                    "data has {} bytes, shape and datatype need {want}",
                    bytes.len()
                )));
            }
        }
        Data::VlenStrings(strings) => {
            if !matches!(
                value.datatype,
                Datatype::String {
                    length: StringLength::Variable,
                    ..
                }
            ) {
                return Err(Error::usage(
                    "strings given for a datatype that is not a vlen string",
                ));
            }
            if strings.len() as u64 != count {
                return Err(Error::usage(format!(
                    "{} strings given, shape needs {count}",
                    strings.len()
                )));
            }
            if strings.iter().any(|s| s.len() > u32::MAX as usize) {
                return Err(Error::usage("string longer than 4 GiB"));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A root attribute, a small dataset, then two columns; `deferred` leaves the columns'
    /// data to the caller.
    fn tree(deferred: bool, columns: &[Vec<u8>; 2]) -> (FileWriter, Vec<ObjectId>) {
        let mut w = FileWriter::new();
        w.set_attribute(
            FileWriter::ROOT,
            "version",
            Datatype::I64,
            Shape::Scalar,
            Data::i64s(&[3]),
        )
        .unwrap();
        let g = w.create_group(FileWriter::ROOT, "events").unwrap();
        w.create_dataset(
            g,
            "names",
            Datatype::VLEN_UTF8,
            Shape::vector(2),
            Data::strings(&["a", "bc"]),
            StorageLayout::Contiguous,
        )
        .unwrap();
        let mut ids = Vec::new();
        for (name, bytes) in ["deltas", "durations"].iter().zip(columns) {
            let shape = Shape::vector(bytes.len() as u64 / 8);
            ids.push(if deferred {
                w.create_deferred_dataset(g, name, Datatype::I64, shape, StorageLayout::Contiguous)
                    .unwrap()
            } else {
                w.create_dataset(
                    g,
                    name,
                    Datatype::I64,
                    shape,
                    Data::Fixed(bytes.clone()),
                    StorageLayout::Contiguous,
                )
                .unwrap()
            });
        }
        (w, ids)
    }

    fn columns() -> [Vec<u8>; 2] {
        let a: Vec<u8> = [5i64, -1, 7].iter().flat_map(|v| v.to_le_bytes()).collect();
        let b: Vec<u8> = [1i64, 2, 3].iter().flat_map(|v| v.to_le_bytes()).collect();
        [a, b]
    }

    #[test]
    fn deferred_data_written_later_gives_the_same_bytes() {
        let cols = columns();
        let mut whole = Vec::new();
        let len = tree(false, &cols).0.finish(&mut whole).unwrap();
        assert_eq!(len, whole.len() as u64);

        let (w, ids) = tree(true, &cols);
        let mut out = Vec::new();
        let placement = w.finish_at(&mut out).unwrap();
        assert_eq!(placement.eof, len);
        // The second column first, and the first in two pieces: order does not matter.
        let second = placement.data(ids[1]).unwrap();
        assert_eq!(second.size, 24);
        out.write_all_at(second.address.unwrap(), &cols[1]).unwrap();
        let first = placement.data(ids[0]).unwrap();
        let at = first.address.unwrap();
        assert_eq!(at % 8, 0);
        assert_eq!(second.address, Some(at + 24));
        out.write_all_at(at + 8, &cols[0][8..]).unwrap();
        out.write_all_at(at, &cols[0][..8]).unwrap();
        assert_eq!(out, whole);
    }

    #[test]
    fn empty_deferred_dataset_has_no_storage() {
        let (w, ids) = tree(true, &[Vec::new(), Vec::new()]);
        let mut out = Vec::new();
        let placement = w.finish_at(&mut out).unwrap();
        assert_eq!(
            placement.data(ids[0]),
            Some(DataPlace {
                address: None,
                size: 0
            })
        );
        assert_eq!(placement.eof, out.len() as u64);
        assert_eq!(placement.data(FileWriter::ROOT), None);
    }

    #[test]
    fn deferred_needs_a_positional_sink_and_fixed_size_type() {
        let (w, _) = tree(true, &columns());
        let err = w.finish(&mut Vec::new()).unwrap_err();
        assert_eq!(err.kind(), super::super::ErrorKind::Usage);
        let mut w = FileWriter::new();
        let err = w
            .create_deferred_dataset(
                FileWriter::ROOT,
                "s",
                Datatype::VLEN_UTF8,
                Shape::vector(1),
                StorageLayout::Contiguous,
            )
            .unwrap_err();
        assert_eq!(err.kind(), super::super::ErrorKind::Usage);
    }

    /// A chunked dataset over three B-tree levels' worth of logic (200 chunks: 4 leaves and
    /// a root), its chunks appended after the plan, read back by our reader.
    #[test]
    fn chunked_deferred_dataset_reads_back() {
        let n = 200_000u64 - 17; // the last chunk is partial, stored at full size
        let values: Vec<i64> = (0..n as i64).map(|i| i * i % 1009 - 500).collect();
        let mut w = FileWriter::new();
        let id = w
            .create_deferred_dataset(
                FileWriter::ROOT,
                "v",
                Datatype::I64,
                Shape::vector(n),
                StorageLayout::Chunked(Chunking {
                    elements: 1000,
                    deflate_level: 4,
                }),
            )
            .unwrap();
        let mut out = Vec::new();
        let placement = w.finish_at(&mut out).unwrap();
        let plan = placement.chunked(id).unwrap().clone();
        assert_eq!((plan.chunks(), plan.chunk_bytes()), (200, 8000));
        assert_eq!(plan.levels, [4, 1]);
        let mut at = placement.eof;
        let mut stored = Vec::new();
        let mut z = super::super::filters::ShuffleDeflate::new(4);
        let mut packed = Vec::new();
        for chunk in values.chunks(1000) {
            let mut raw: Vec<u8> = chunk.iter().flat_map(|v| v.to_le_bytes()).collect();
            raw.resize(8000, 0);
            z.chunk(&raw, 8, &mut packed).unwrap();
            out.write_all_at(at, &packed).unwrap();
            stored.push(StoredChunk {
                address: at,
                size: packed.len() as u32,
            });
            at += packed.len() as u64;
        }
        placement.write_chunk_index(&mut out, id, &stored).unwrap();
        placement.write_eof(&mut out, at).unwrap();
        assert_eq!(out.len() as u64, at);

        let file = super::super::reader::File::open(out.as_slice()).unwrap();
        let ds = file.dataset("/v").unwrap();
        assert_eq!(ds.read_i64s().unwrap(), values);
        // Wrong chunk count is refused.
        assert!(placement
            .write_chunk_index(&mut Vec::new(), id, &stored[1..])
            .is_err());
    }

    #[test]
    fn chunk_tree_levels() {
        let plan = |chunks: u64| ChunkPlan::new(chunks * 10, 10, 8).levels;
        assert_eq!(plan(1), [1]);
        assert_eq!(plan(64), [1]);
        assert_eq!(plan(65), [2, 1]);
        assert_eq!(plan(64 * 64), [64, 1]);
        assert_eq!(plan(64 * 64 + 1), [65, 2, 1]);
        assert_eq!(ChunkPlan::new(1, 1, 8).node_size, 2096);
    }
}
