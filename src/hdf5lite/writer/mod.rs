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
//! everything else through a positional sink ([`WriteAt`]) and returns each deferred
//! dataset's planned address ([`Placement`]); the caller then writes those bytes, in any
//! order and in pieces, at their addresses. The addresses are those the same tree with the
//! data given up front would get, so both routes produce the same bytes.

use std::io::Write;

use crate::io::WriteAt;

use super::error::{Error, Result};
use super::model::{CharSet, Data, Datatype, Shape, StringLength};
use super::raw::btree_v1::{chunk_node_size, ChunkKey, ChunkNode, CHUNK_NODE_CHILDREN};
use super::raw::cursor::{Encoder, Widths};
use super::raw::global_heap::CollectionBuilder;
use super::raw::messages::{
    datatype, fill_value, Attribute, AttributeInfo, ChunkIndex, DataLayout, Dataspace, FillValue,
    Filter, FilterId, FilterPipeline, GroupInfo, Link, LinkInfo, MessageFlags, MessageType,
};
use super::raw::object_header::ObjectHeader;
use super::raw::superblock::{Superblock, V2_SIZE};

mod placement;
pub use placement::{ChunkPlan, DataPlace, Placement, StoredChunk};

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
                Kind::Group { .. } => HeapRefs::default(),
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
                        for (s, r) in strings.iter().zip(data_refs[i].iter()) {
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
        attr_refs: &[HeapRefs],
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

/// Where the strings of one value went, in order: runs of consecutive objects of one
/// collection (collection, first index, objects), so a million strings take a few runs.
#[derive(Debug, Default)]
struct HeapRefs(Vec<(usize, u16, u16)>);

impl HeapRefs {
    fn push(&mut self, (collection, index): HeapRef) {
        match self.0.last_mut() {
            Some((c, first, n)) if *c == collection && first.checked_add(*n) == Some(index) => {
                *n += 1;
            }
            _ => self.0.push((collection, index, 1)),
        }
    }

    /// Each string's place, in order.
    fn iter(&self) -> impl Iterator<Item = HeapRef> + '_ {
        self.0
            .iter()
            .flat_map(|&(c, first, n)| (0..n).map(move |k| (c, first + k)))
    }
}

#[derive(Debug, Default)]
struct HeapPlan {
    collections: Vec<CollectionBuilder>,
    payload: u64,
}

impl HeapPlan {
    /// Places every string of `data` (none for fixed-size data).
    fn add(&mut self, data: &Data) -> HeapRefs {
        let mut refs = HeapRefs::default();
        if let Data::VlenStrings(strings) = data {
            for s in strings.iter() {
                refs.push(self.place(s.as_bytes()));
            }
        }
        refs
    }

    fn place(&mut self, bytes: &[u8]) -> HeapRef {
        let cost = 16 + bytes.len() as u64;
        let full = match self.collections.last() {
            None => true,
            Some(c) => {
                c.len() >= MAX_COLLECTION_OBJECTS
                    || (!c.is_empty() && self.payload + cost > MAX_COLLECTION_PAYLOAD)
            }
        };
        if full {
            self.collections.push(CollectionBuilder::default());
            self.payload = 0;
        }
        self.payload += cost;
        let n = self.collections.len() - 1;
        // Below MAX_COLLECTION_OBJECTS objects, so there is an index left.
        let index = self.collections[n].push(bytes).unwrap_or(0);
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
mod tests;
