//! The reading API: [`File`], [`Group`], [`Dataset`] and [`Attribute`] over any
//! [`ReadAt`]. Opening reads only the superblock; objects are read when asked for, and a
//! dataset read touches only its own metadata and chunks.
//!
//! ```
//! use sp::hdf5lite::reader::File;
//! # fn demo(bytes: &[u8]) -> sp::hdf5lite::Result<()> {
//! let file = File::open(bytes)?;
//! for link in file.root()?.links()? {
//!     println!("{}", link.name);
//! }
//! # Ok(()) }
//! ```

pub mod value;

use crate::hdf5lite::error::{Error, ErrorKind, Result};
use crate::hdf5lite::filters::{self, Filter};
use crate::hdf5lite::limits::Limits;
use crate::hdf5lite::model::{Datatype, Shape, StringLength};
use crate::hdf5lite::raw::btree_v1;
use crate::hdf5lite::raw::btree_v2::{self, RecordType};
use crate::hdf5lite::raw::chunk_index::{self, ChunkGrid, ChunkRecord};
use crate::hdf5lite::raw::fractal_heap::FractalHeap;
use crate::hdf5lite::raw::local_heap::LocalHeap;
use crate::hdf5lite::raw::messages::{
    self, AttributeInfo, DataLayout, Dataspace, FillValue, FillValueState, FilterPipeline,
    LinkInfo, LinkTarget, MessageFlags, MessageType, SymbolTable,
};
use crate::hdf5lite::raw::object_header::{ObjectHeader, RawMessage};
use crate::hdf5lite::raw::superblock::Superblock;
use crate::hdf5lite::raw::symbol_table_node;
use crate::io::ReadAt;

pub use crate::hdf5lite::raw::messages::ChunkIndex;
use crate::hdf5lite::raw::source::Source;
use value::Decoder;
pub use value::Value;

/// An open HDF5 file.
#[derive(Debug)]
pub struct File<R: ReadAt> {
    reader: R,
    superblock: Superblock,
    limits: Limits,
}

/// What a link points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkKind {
    /// An object header in this file.
    Hard(u64),
    /// A path in this file.
    Soft(String),
    /// An object path in another file, not followed.
    External { file: String, path: String },
    /// A user-defined link (or a malformed external one), not followed.
    Other,
}

/// One link of a group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkEntry {
    pub name: String,
    pub kind: LinkKind,
}

/// What kind of object an object header describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectKind {
    Group,
    Dataset,
    /// A committed (named) datatype.
    Datatype,
}

/// A group or a dataset.
#[derive(Debug)]
pub enum Object<'f, R: ReadAt> {
    Group(Group<'f, R>),
    Dataset(Box<Dataset<'f, R>>),
}

impl<R: ReadAt> File<R> {
    /// Opens a file with default [`Limits`].
    pub fn open(reader: R) -> Result<Self> {
        Self::open_with_limits(reader, Limits::default())
    }

    /// Opens a file; reads only the superblock.
    pub fn open_with_limits(reader: R, limits: Limits) -> Result<Self> {
        let superblock = Superblock::parse(&reader)?;
        if superblock.extension_address.is_some() {
            return Err(Error::unsupported("superblock extension").at(superblock.signature_offset));
        }
        Ok(File {
            reader,
            superblock,
            limits,
        })
    }

    /// The superblock.
    pub fn superblock(&self) -> &Superblock {
        &self.superblock
    }

    fn src(&self) -> Source<'_> {
        Source::new(
            &self.reader,
            self.superblock.widths,
            self.superblock.base_address,
            self.limits,
        )
    }

    fn header(&self, addr: u64, path: &str) -> Result<ObjectHeader> {
        let abs = self.src().absolute(addr)?;
        ObjectHeader::read(&self.reader, abs, self.superblock.widths, &self.limits)
            .map_err(|e| e.in_object(path))
    }

    /// The root group.
    pub fn root(&self) -> Result<Group<'_, R>> {
        let header = self.header(self.superblock.root_object_header, "/")?;
        Ok(Group {
            file: self,
            path: "/".into(),
            header,
        })
    }

    /// The object at an absolute `path` ("/a/b").
    pub fn object(&self, path: &str) -> Result<Object<'_, R>> {
        let mut current = self.root()?;
        let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
        let mut depth = 0u32;
        for (i, part) in parts.iter().enumerate() {
            let link = current
                .links()?
                .into_iter()
                .find(|l| l.name == *part)
                .ok_or_else(|| {
                    Error::usage(format!("no object named {part:?}"))
                        .in_object(current.path.clone())
                })?;
            let child_path = join(&current.path, part);
            let addr = match link.kind {
                LinkKind::Hard(a) => a,
                LinkKind::Soft(target) => {
                    depth += 1;
                    if depth > self.limits.max_depth {
                        return Err(
                            Error::limits("soft links nest too deeply").in_object(child_path)
                        );
                    }
                    let rest = parts[i + 1..].join("/");
                    let target = if target.starts_with('/') {
                        target
                    } else {
                        join(&current.path, &target)
                    };
                    return self.object(&format!("{target}/{rest}"));
                }
                LinkKind::External { .. } | LinkKind::Other => {
                    return Err(
                        Error::unsupported("external or user-defined link").in_object(child_path)
                    )
                }
            };
            let header = self.header(addr, &child_path)?;
            let last = i + 1 == parts.len();
            match kind_of(&header) {
                ObjectKind::Group => {
                    current = Group {
                        file: self,
                        path: child_path,
                        header,
                    }
                }
                ObjectKind::Dataset if last => {
                    return Dataset::new(self, child_path, header)
                        .map(|d| Object::Dataset(Box::new(d)))
                }
                ObjectKind::Dataset => {
                    return Err(Error::usage("a dataset has no members").in_object(child_path))
                }
                ObjectKind::Datatype => {
                    return Err(Error::unsupported("committed datatype").in_object(child_path))
                }
            }
        }
        Ok(Object::Group(current))
    }

    /// The group at `path`.
    pub fn group(&self, path: &str) -> Result<Group<'_, R>> {
        match self.object(path)? {
            Object::Group(g) => Ok(g),
            Object::Dataset(d) => Err(Error::usage("not a group").in_object(d.path)),
        }
    }

    /// The dataset at `path`.
    pub fn dataset(&self, path: &str) -> Result<Dataset<'_, R>> {
        match self.object(path)? {
            Object::Dataset(d) => Ok(*d),
            Object::Group(g) => Err(Error::usage("not a dataset").in_object(g.path)),
        }
    }

    /// The kind of object a hard link points at, without decoding it further.
    pub fn kind_at(&self, addr: u64, path: &str) -> Result<ObjectKind> {
        Ok(kind_of(&self.header(addr, path)?))
    }

    /// The group or dataset whose object header is at `addr` (a hard link's target),
    /// known by `path` in errors and in what it returns. Walking a tree this way reads
    /// each object header once, where [`object`](Self::object) walks from the root.
    pub fn object_at(&self, addr: u64, path: &str) -> Result<Object<'_, R>> {
        let header = self.header(addr, path)?;
        match kind_of(&header) {
            ObjectKind::Group => Ok(Object::Group(Group {
                file: self,
                path: path.to_string(),
                header,
            })),
            ObjectKind::Dataset => {
                Dataset::new(self, path.to_string(), header).map(|d| Object::Dataset(Box::new(d)))
            }
            ObjectKind::Datatype => {
                Err(Error::unsupported("committed datatype").in_object(path.to_string()))
            }
        }
    }
}

fn join(parent: &str, name: &str) -> String {
    if parent.ends_with('/') {
        format!("{parent}{name}")
    } else {
        format!("{parent}/{name}")
    }
}

fn kind_of(h: &ObjectHeader) -> ObjectKind {
    let has = |t| h.messages_of(t).next().is_some();
    if has(MessageType::LAYOUT) || (has(MessageType::DATASPACE) && has(MessageType::DATATYPE)) {
        ObjectKind::Dataset
    } else if has(MessageType::DATATYPE) {
        ObjectKind::Datatype
    } else {
        ObjectKind::Group
    }
}

/// Decodes one message body with `parse`, refusing shared messages.
fn decode<T>(
    m: &RawMessage,
    src: &Source<'_>,
    parse: impl FnOnce(&mut crate::hdf5lite::raw::cursor::Cursor<'_>) -> Result<T>,
) -> Result<T> {
    if m.flags.contains(MessageFlags::SHARED) {
        let what = m.kind.name().unwrap_or("message");
        return Err(Error::unsupported(format!(
            "shared {what} message (committed datatype or SOHM)"
        ))
        .at(m.offset));
    }
    parse(&mut m.cursor(src.widths()))
}

fn first(h: &ObjectHeader, t: MessageType) -> Option<&RawMessage> {
    h.messages_of(t).next()
}

/// Reads every attribute of an object header: compact messages and dense storage.
fn read_attributes<R: ReadAt>(
    file: &File<R>,
    h: &ObjectHeader,
    path: &str,
) -> Result<Vec<Attribute>> {
    let src = file.src();
    let ctx = |e: Error| e.in_object(path.to_string());
    let mut raw = Vec::new();
    for m in h.messages_of(MessageType::ATTRIBUTE) {
        raw.push(decode(m, &src, messages::Attribute::parse).map_err(ctx)?);
    }
    if let Some(m) = first(h, MessageType::ATTRIBUTE_INFO) {
        let info = decode(m, &src, AttributeInfo::parse).map_err(ctx)?;
        if let (Some(heap), Some(index)) = (info.fractal_heap, info.name_index) {
            let heap = FractalHeap::read(&src, heap).map_err(ctx)?;
            let (_, records) =
                btree_v2::records(&src, index, RecordType::ATTRIBUTE_NAME).map_err(ctx)?;
            check_count(records.len(), file.limits, path)?;
            for r in records {
                let id = r
                    .get(..8)
                    .ok_or_else(|| ctx(Error::format("short attribute record")))?;
                let bytes = heap.object(&src, id).map_err(ctx)?;
                let mut c = crate::hdf5lite::raw::cursor::Cursor::new(
                    &bytes,
                    src.absolute(heap.address)?,
                    src.widths(),
                );
                raw.push(messages::Attribute::parse(&mut c).map_err(ctx)?);
            }
        }
    }
    check_count(raw.len(), file.limits, path)?;
    let mut out: Vec<Attribute> = raw
        .into_iter()
        .map(|a| Attribute {
            name: a.name,
            datatype: a.datatype,
            dataspace: a.dataspace,
            data: a.data,
            path: path.to_string(),
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// A size from the file as a `usize`: on 32-bit targets (WebAssembly) a size past 4 GiB is
/// a limit, never a silently truncated length.
fn usize_of(n: u64) -> Result<usize> {
    usize::try_from(n).map_err(|_| Error::limits(format!("{n} bytes do not fit in memory here")))
}

fn check_count(n: usize, limits: Limits, path: &str) -> Result<()> {
    if n as u64 > u64::from(limits.max_object_entries) {
        return Err(Error::limits(format!("{n} entries on one object")).in_object(path.to_string()));
    }
    Ok(())
}

/// A group.
#[derive(Debug)]
pub struct Group<'f, R: ReadAt> {
    file: &'f File<R>,
    path: String,
    header: ObjectHeader,
}

impl<'f, R: ReadAt> Group<'f, R> {
    /// The absolute path.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The address hard links to this group hold (its object header's, relative to the
    /// superblock's base address): the group's identity, whatever path reached it.
    pub fn address(&self) -> u64 {
        self.header
            .address
            .saturating_sub(self.file.superblock.base_address)
    }

    /// The links, sorted by name, whatever the storage (symbol table, compact or dense).
    pub fn links(&self) -> Result<Vec<LinkEntry>> {
        self.read_links()
            .map_err(|e| e.in_object(self.path.clone()))
    }

    fn read_links(&self) -> Result<Vec<LinkEntry>> {
        let src = self.file.src();
        let h = &self.header;
        let mut out = Vec::new();
        if let Some(m) = first(h, MessageType::SYMBOL_TABLE) {
            let st = decode(m, &src, SymbolTable::parse)?;
            let heap = LocalHeap::read(&src, st.local_heap)?;
            for leaf in btree_v1::group_leaves(&src, st.btree)? {
                for e in symbol_table_node::read_node(&src, leaf)? {
                    let name = heap.string_at(e.name_offset)?;
                    let name = String::from_utf8(name.to_vec())
                        .map_err(|_| Error::format("link name is not UTF-8"))?;
                    out.push(LinkEntry {
                        name,
                        kind: LinkKind::Hard(e.object_address),
                    });
                    check_count(out.len(), self.file.limits, &self.path)?;
                }
            }
        }
        for m in h.messages_of(MessageType::LINK) {
            out.push(entry(decode(m, &src, messages::Link::parse)?));
        }
        if let Some(m) = first(h, MessageType::LINK_INFO) {
            let info = decode(m, &src, LinkInfo::parse)?;
            if let (Some(heap), Some(index)) = (info.fractal_heap, info.name_index) {
                let heap = FractalHeap::read(&src, heap)?;
                let (_, records) = btree_v2::records(&src, index, RecordType::LINK_NAME)?;
                check_count(records.len(), self.file.limits, &self.path)?;
                for r in records {
                    let id = r
                        .get(4..)
                        .ok_or_else(|| Error::format("short link record"))?;
                    let bytes = heap.object(&src, id)?;
                    let mut c = crate::hdf5lite::raw::cursor::Cursor::new(
                        &bytes,
                        src.absolute(heap.address)?,
                        src.widths(),
                    );
                    out.push(entry(messages::Link::parse(&mut c)?));
                }
            }
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// The attributes, sorted by name.
    pub fn attributes(&self) -> Result<Vec<Attribute>> {
        read_attributes(self.file, &self.header, &self.path)
    }

    /// The attribute `name`, if present.
    pub fn attribute(&self, name: &str) -> Result<Option<Attribute>> {
        Ok(self.attributes()?.into_iter().find(|a| a.name == name))
    }
}

fn entry(l: messages::Link) -> LinkEntry {
    LinkEntry {
        name: l.name,
        kind: match l.target {
            LinkTarget::Hard(a) => LinkKind::Hard(a),
            LinkTarget::Soft(p) => LinkKind::Soft(p),
            LinkTarget::External(raw) => external(&raw).unwrap_or(LinkKind::Other),
            LinkTarget::UserDefined { .. } => LinkKind::Other,
        },
    }
}

/// An external link's value: a version-and-flags byte (0), then the file name and the
/// object path, each null-terminated.
fn external(raw: &[u8]) -> Option<LinkKind> {
    let (&0, rest) = raw.split_first()? else {
        return None;
    };
    let mut parts = rest.split(|&b| b == 0);
    let file = String::from_utf8(parts.next()?.to_vec()).ok()?;
    let path = String::from_utf8(parts.next()?.to_vec()).ok()?;
    Some(LinkKind::External { file, path })
}

/// An attribute, with its raw value bytes (decoded by [`Attribute::value`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Attribute {
    name: String,
    datatype: Datatype,
    dataspace: Dataspace,
    data: Vec<u8>,
    path: String,
}

impl Attribute {
    /// The attribute's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The element type.
    pub fn datatype(&self) -> &Datatype {
        &self.datatype
    }

    /// The shape; `None` for a null dataspace.
    pub fn shape(&self) -> Option<Shape> {
        self.dataspace.shape()
    }

    /// The value: one [`Value`] for a scalar, a [`Value::Array`] of the elements otherwise.
    pub fn value<R: ReadAt>(&self, file: &File<R>) -> Result<Value> {
        let ctx = |e: Error| e.in_object(format!("{}@{}", self.path, self.name));
        let src = file.src();
        let mut dec = Decoder::new(&src);
        let size = self
            .datatype
            .element_size()
            .filter(|&s| s > 0)
            .ok_or_else(|| ctx(Error::format("element size 0")))?;
        let n = match self.shape() {
            None => return Ok(Value::Array(Vec::new())),
            Some(s) => s
                .element_count()
                .ok_or_else(|| ctx(Error::format("element count overflows")))?,
        };
        let need = n
            .checked_mul(size)
            .filter(|&b| b <= self.data.len() as u64)
            .ok_or_else(|| {
                ctx(Error::format(format!(
                    "attribute holds {} bytes, {n} elements need more",
                    self.data.len()
                )))
            })?;
        let values = self.data[..usize_of(need).map_err(ctx)?]
            .chunks_exact(usize_of(size).map_err(ctx)?)
            .map(|b| dec.value(&self.datatype, b, 0))
            .collect::<Result<Vec<_>>>()
            .map_err(ctx)?;
        Ok(match self.shape() {
            Some(Shape::Scalar) => values
                .into_iter()
                .next()
                .unwrap_or(Value::Array(Vec::new())),
            _ => Value::Array(values),
        })
    }
}

/// How a dataset's data is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Storage {
    Compact,
    Contiguous,
    Chunked {
        /// Chunk shape in elements.
        chunk: Vec<u64>,
        index: ChunkIndex,
        filters: Vec<Filter>,
    },
}

/// A dataset.
#[derive(Debug)]
pub struct Dataset<'f, R: ReadAt> {
    file: &'f File<R>,
    path: String,
    header: ObjectHeader,
    datatype: Datatype,
    dataspace: Dataspace,
    layout: DataLayout,
    filters: Vec<Filter>,
    fill: Option<Vec<u8>>,
    /// The chunk index, walked once on first use (sorted by offset for 1-D datasets), so
    /// reading a dataset range by range does not walk it again for every range.
    chunk_records: std::sync::OnceLock<Vec<ChunkRecord>>,
}

impl<'f, R: ReadAt> Dataset<'f, R> {
    fn new(file: &'f File<R>, path: String, header: ObjectHeader) -> Result<Self> {
        Self::parse(file, &path, header).map_err(|e| e.in_object(path))
    }

    fn parse(file: &'f File<R>, path: &str, header: ObjectHeader) -> Result<Self> {
        let src = file.src();
        let need = |t: MessageType| {
            first(&header, t).ok_or_else(|| {
                Error::format(format!(
                    "dataset has no {} message",
                    t.name().unwrap_or("?")
                ))
            })
        };
        if let Some(m) = first(&header, MessageType::EXTERNAL_FILES) {
            return Err(Error::unsupported("external data files").at(m.offset));
        }
        let datatype = decode(
            need(MessageType::DATATYPE)?,
            &src,
            messages::datatype::parse,
        )?;
        let dataspace = decode(need(MessageType::DATASPACE)?, &src, Dataspace::parse)?;
        let layout = decode(need(MessageType::LAYOUT)?, &src, DataLayout::parse)?;
        if let DataLayout::Virtual { .. } = layout {
            return Err(Error::unsupported("virtual dataset layout"));
        }
        let filters = match first(&header, MessageType::FILTER_PIPELINE) {
            Some(m) => decode(m, &src, FilterPipeline::parse)?.filters,
            None => Vec::new(),
        };
        let fill = match first(&header, MessageType::FILL_VALUE) {
            Some(m) => Some(decode(m, &src, FillValue::parse)?),
            None => match first(&header, MessageType::FILL_VALUE_OLD) {
                Some(m) => Some(decode(m, &src, FillValue::parse_old)?),
                None => None,
            },
        };
        let fill = match fill.map(|f| f.value) {
            Some(FillValueState::User(v)) if !v.is_empty() => Some(v),
            _ => None,
        };
        Ok(Dataset {
            file,
            path: path.to_string(),
            header,
            datatype,
            dataspace,
            layout,
            filters,
            fill,
            chunk_records: std::sync::OnceLock::new(),
        })
    }

    /// The absolute path.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The element type.
    pub fn datatype(&self) -> &Datatype {
        &self.datatype
    }

    /// The shape; `None` for a null dataspace.
    pub fn shape(&self) -> Option<Shape> {
        self.dataspace.shape()
    }

    /// The address hard links to this dataset hold (see [`Group::address`]).
    pub fn address(&self) -> u64 {
        self.header
            .address
            .saturating_sub(self.file.superblock.base_address)
    }

    /// Maximum dimension sizes (`u64::MAX` = unlimited); `None` when not simple.
    pub fn max_shape(&self) -> Option<Vec<u64>> {
        match &self.dataspace {
            Dataspace::Simple { dims, max_dims } => {
                Some(max_dims.clone().unwrap_or_else(|| dims.clone()))
            }
            _ => None,
        }
    }

    /// How the data is stored.
    pub fn storage(&self) -> Storage {
        match &self.layout {
            DataLayout::Compact { .. } => Storage::Compact,
            DataLayout::Chunked { dims, index, .. } => Storage::Chunked {
                chunk: dims[..dims.len().saturating_sub(1)].to_vec(),
                index: index.clone(),
                filters: self.filters.clone(),
            },
            _ => Storage::Contiguous,
        }
    }

    /// The attributes, sorted by name.
    pub fn attributes(&self) -> Result<Vec<Attribute>> {
        read_attributes(self.file, &self.header, &self.path)
    }

    /// The attribute `name`, if present.
    pub fn attribute(&self, name: &str) -> Result<Option<Attribute>> {
        Ok(self.attributes()?.into_iter().find(|a| a.name == name))
    }

    fn dims(&self) -> Vec<u64> {
        match &self.dataspace {
            Dataspace::Simple { dims, .. } => dims.clone(),
            _ => Vec::new(),
        }
    }

    fn element_size(&self) -> Result<u64> {
        self.datatype
            .element_size()
            .filter(|&s| s > 0)
            .ok_or_else(|| Error::format("element size is 0 or overflows"))
    }

    /// Number of elements.
    pub fn len(&self) -> Result<u64> {
        match self.shape() {
            None => Ok(0),
            Some(s) => s
                .element_count()
                .ok_or_else(|| Error::format("element count overflows")),
        }
    }

    /// Whether the dataset holds no elements.
    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }

    /// All elements, in file byte order, row-major.
    pub fn read_raw(&self) -> Result<Vec<u8>> {
        let n = self.len().map_err(|e| e.in_object(self.path.clone()))?;
        self.read_elements(0, n)
            .map_err(|e| e.in_object(self.path.clone()))
    }

    /// Elements `start .. start + count` of a one-dimensional (or scalar) dataset, reading
    /// only the chunks they touch.
    pub fn read_raw_range(&self, start: u64, count: u64) -> Result<Vec<u8>> {
        let ctx = |e: Error| e.in_object(self.path.clone());
        if self.dims().len() > 1 {
            return Err(ctx(Error::usage("ranges are for one-dimensional datasets")));
        }
        let n = self.len().map_err(ctx)?;
        if !matches!(start.checked_add(count), Some(end) if end <= n) {
            return Err(ctx(Error::usage(format!(
                "range {start}+{count} passes the {n} elements"
            ))));
        }
        self.read_elements(start, count).map_err(ctx)
    }

    fn fill_buffer(&self, n: u64, es: u64) -> Result<Vec<u8>> {
        let bytes = n
            .checked_mul(es)
            .ok_or_else(|| Error::format("dataset size overflows"))?;
        let limit = self.file.limits.max_read_bytes;
        if bytes > limit {
            return Err(Error::limits(format!(
                "reading {bytes} bytes exceeds the limit of {limit}"
            )));
        }
        let mut out = vec![0u8; usize_of(bytes)?];
        if let Some(fill) = &self.fill {
            if fill.len() as u64 == es {
                for piece in out.chunks_exact_mut(es as usize) {
                    piece.copy_from_slice(fill);
                }
            }
        }
        Ok(out)
    }

    /// Fails when compact or contiguous storage cannot hold the dataspace, or lies past
    /// the end of the file: checked before anything is sized by the dataspace.
    fn check_storage(&self, src: &Source<'_>, es: u64) -> Result<()> {
        let need = self
            .len()?
            .checked_mul(es)
            .ok_or_else(|| Error::format("dataset size overflows"))?;
        let (what, held) = match &self.layout {
            DataLayout::Compact { data } => ("compact", data.len() as u64),
            DataLayout::Contiguous {
                address: Some(addr),
                size,
            } => {
                let end = src.absolute(*addr)?.checked_add(*size);
                if !matches!(end, Some(e) if e <= src.file_len()) {
                    return Err(Error::format(format!(
                        "contiguous storage of {size} bytes at address {addr} passes the end \
                         of the file ({} bytes)",
                        src.file_len()
                    )));
                }
                ("contiguous", *size)
            }
            _ => return Ok(()),
        };
        if held < need {
            return Err(Error::format(format!(
                "{what} storage of {held} bytes is shorter than the {need} bytes the dataspace \
                 needs"
            )));
        }
        Ok(())
    }

    /// Elements `start .. start + count` in row-major order (all of them for rank ≠ 1).
    fn read_elements(&self, start: u64, count: u64) -> Result<Vec<u8>> {
        let src = self.file.src();
        let es = self.element_size()?;
        self.check_storage(&src, es)?;
        let mut out = self.fill_buffer(count, es)?;
        if count == 0 {
            return Ok(out);
        }
        let (lo, hi) = match start.checked_add(count).and_then(|end| end.checked_mul(es)) {
            Some(hi) => (start * es, hi),
            None => return Err(Error::format("dataset size overflows")),
        };
        match &self.layout {
            DataLayout::Compact { data } => {
                let piece = data
                    .get(usize_of(lo)?..usize_of(hi)?)
                    .ok_or_else(|| Error::format("compact data is shorter than the dataset"))?;
                out.copy_from_slice(piece);
            }
            DataLayout::Contiguous { address, size } => {
                if let Some(addr) = address {
                    if hi > *size {
                        return Err(Error::format(format!(
                            "contiguous storage of {size} bytes is shorter than the dataset"
                        )));
                    }
                    let data = src.raw(
                        addr.checked_add(lo)
                            .ok_or_else(|| Error::format("contiguous data address overflows"))?,
                        hi - lo,
                        self.file.limits.max_read_bytes,
                        "contiguous data",
                    )?;
                    out.copy_from_slice(&data);
                }
            }
            DataLayout::Chunked {
                address,
                dims,
                index,
                flags,
            } => {
                self.read_chunked(&src, *address, dims, index, *flags, start, count, &mut out)?;
            }
            DataLayout::Virtual { .. } => return Err(Error::unsupported("virtual dataset layout")),
        }
        Ok(out)
    }

    #[allow(clippy::too_many_arguments)]
    fn read_chunked(
        &self,
        src: &Source<'_>,
        address: Option<u64>,
        layout_dims: &[u64],
        index: &ChunkIndex,
        _flags: u8,
        start: u64,
        count: u64,
        out: &mut [u8],
    ) -> Result<()> {
        filters::check_supported(&self.filters)?;
        let es = self.element_size()?;
        let mut dims = self.dims();
        let mut max_dims = self.max_shape().unwrap_or_default();
        if dims.is_empty() {
            dims = vec![1];
            max_dims = vec![1];
        }
        let chunk = layout_dims[..layout_dims.len().saturating_sub(1)].to_vec();
        let grid = ChunkGrid::new(dims.clone(), max_dims, chunk.clone(), es)?;
        let filtered = !self.filters.is_empty();
        let records = match self.chunk_records.get() {
            Some(records) => records,
            None => {
                let mut records =
                    Self::chunk_records(src, address, layout_dims, index, &grid, filtered)?;
                if let Some(bad) = records.iter().find(|r| r.offset.len() != dims.len()) {
                    return Err(
                        Error::format("chunk key rank differs from the dataset").at(bad.address)
                    );
                }
                if dims.len() == 1 {
                    records.sort_by_key(|r| r.offset[0]);
                }
                self.chunk_records.get_or_init(|| records)
            }
        };
        let chunk_bytes = grid.chunk_bytes()?;
        if chunk_bytes > self.file.limits.max_chunk_bytes {
            return Err(Error::limits(format!(
                "chunk of {chunk_bytes} bytes exceeds the limit"
            )));
        }
        // 1-D: the records are sorted by offset, so skip to the first chunk that ends after
        // `start` and stop at the first that begins at or after the end of the range.
        let first = if dims.len() == 1 {
            records.partition_point(|r| r.offset[0].saturating_add(chunk[0]) <= start)
        } else {
            0
        };
        for r in &records[first..] {
            if dims.len() == 1 && r.offset[0] >= start + count {
                break;
            }
            let at = src.absolute(r.address)?;
            let cap = self.file.limits.max_chunk_bytes;
            let stored = src.raw(r.address, r.stored_size, cap, "chunk")?;
            let data = if self.filters.is_empty() {
                if stored.len() as u64 != chunk_bytes {
                    return Err(Error::format(
                        "unfiltered chunk size differs from the chunk shape",
                    )
                    .at(at));
                }
                stored
            } else {
                filters::decode_chunk(
                    &self.filters,
                    r.filter_mask,
                    stored,
                    usize_of(chunk_bytes)?,
                    usize_of(es)?,
                    at,
                )?
            };
            copy_chunk(&data, &r.offset, &chunk, &dims, es, start, count, out);
        }
        Ok(())
    }

    /// Walks the chunk index: one record per stored chunk.
    fn chunk_records(
        src: &Source<'_>,
        address: Option<u64>,
        layout_dims: &[u64],
        index: &ChunkIndex,
        grid: &ChunkGrid,
        filtered: bool,
    ) -> Result<Vec<ChunkRecord>> {
        Ok(match (index, address) {
            (_, None) => Vec::new(),
            (ChunkIndex::BTreeV1, Some(a)) => btree_v1::chunks(src, a, layout_dims.len())?,
            (ChunkIndex::SingleChunk { filtered: f }, a) => {
                chunk_index::single_chunk::records(a, *f, grid)?
            }
            (ChunkIndex::Implicit, a) => chunk_index::implicit::records(a, grid, src.file_len())?,
            (ChunkIndex::FixedArray { .. }, Some(a)) => {
                chunk_index::fixed_array::records(src, a, grid, filtered)?
            }
            (ChunkIndex::ExtensibleArray { .. }, Some(a)) => {
                chunk_index::extensible_array::records(src, a, grid, filtered)?
            }
            (ChunkIndex::BTreeV2 { .. }, Some(a)) => {
                chunk_index::btree_v2::records(src, a, grid, filtered)?
            }
        })
    }

    /// Every element decoded, row-major.
    pub fn read_values(&self) -> Result<Vec<Value>> {
        let raw = self.read_raw()?;
        let src = self.file.src();
        let mut dec = Decoder::new(&src);
        let es = self
            .element_size()
            .map_err(|e| e.in_object(self.path.clone()))?;
        let es = usize_of(es).map_err(|e| e.in_object(self.path.clone()))?;
        raw.chunks_exact(es)
            .map(|b| dec.value(&self.datatype, b, 0))
            .collect::<Result<Vec<_>>>()
            .map_err(|e| e.in_object(self.path.clone()))
    }

    /// Integer elements as `i64` (any width, sign or byte order; overflow is an error).
    pub fn read_i64s(&self) -> Result<Vec<i64>> {
        self.read_ints(|v| i64::try_from(v).ok())
    }

    /// Integer elements as `u64` (negative values are an error).
    pub fn read_u64s(&self) -> Result<Vec<u64>> {
        self.read_ints(|v| u64::try_from(v).ok())
    }

    fn read_ints<T>(&self, conv: impl Fn(i128) -> Option<T>) -> Result<Vec<T>> {
        let ctx = |e: Error| e.in_object(self.path.clone());
        let Datatype::Integer {
            size,
            signed,
            order,
        } = self.datatype
        else {
            return Err(ctx(Error::usage("not an integer dataset")));
        };
        let raw = self.read_raw()?;
        raw.chunks_exact(usize_of(u64::from(size)).map_err(ctx)?)
            .map(|b| {
                let v = value::int(b, size, signed, order, 0)?;
                conv(v)
                    .ok_or_else(|| Error::new(ErrorKind::Format, format!("value {v} does not fit")))
            })
            .collect::<Result<Vec<_>>>()
            .map_err(ctx)
    }

    /// Float elements as `f64`.
    pub fn read_f64s(&self) -> Result<Vec<f64>> {
        let ctx = |e: Error| e.in_object(self.path.clone());
        let Datatype::Float { size, order } = self.datatype else {
            return Err(ctx(Error::usage("not a floating-point dataset")));
        };
        let raw = self.read_raw()?;
        raw.chunks_exact(usize_of(u64::from(size)).map_err(ctx)?)
            .map(|b| value::float(b, size, order, 0))
            .collect::<Result<Vec<_>>>()
            .map_err(ctx)
    }

    /// String elements (fixed or variable length), padding removed; must be UTF-8.
    pub fn read_strings(&self) -> Result<Vec<String>> {
        let ctx = |e: Error| e.in_object(self.path.clone());
        if !matches!(self.datatype, Datatype::String { .. }) {
            return Err(ctx(Error::usage("not a string dataset")));
        }
        self.read_values()?
            .into_iter()
            .map(|v| match v {
                Value::String(s) => Ok(s),
                _ => Err(ctx(Error::format("string is not valid UTF-8"))),
            })
            .collect()
    }

    /// Whether elements are variable-length strings.
    pub fn is_vlen_string(&self) -> bool {
        matches!(
            self.datatype,
            Datatype::String {
                length: StringLength::Variable,
                ..
            }
        )
    }
}

/// Copies the part of a decoded chunk that lies in the extent into `out`. For rank 1,
/// `out` holds elements `start .. start + count`; otherwise the whole dataset.
#[allow(clippy::too_many_arguments)]
fn copy_chunk(
    data: &[u8],
    offset: &[u64],
    chunk: &[u64],
    dims: &[u64],
    es: u64,
    start: u64,
    count: u64,
    out: &mut [u8],
) {
    let rank = dims.len();
    if rank == 1 {
        let lo = offset[0].max(start);
        let hi = offset[0]
            .saturating_add(chunk[0])
            .min(start + count)
            .min(dims[0]);
        if lo >= hi {
            return;
        }
        let src = ((lo - offset[0]) * es) as usize..((hi - offset[0]) * es) as usize;
        let dst = ((lo - start) * es) as usize..((hi - start) * es) as usize;
        out[dst].copy_from_slice(&data[src]);
        return;
    }
    // Rows along the last dimension, walked with an odometer over the others.
    let last = rank - 1;
    let run = chunk[last].min(dims[last].saturating_sub(offset[last]));
    if run == 0 {
        return;
    }
    let extent: Vec<u64> = (0..last)
        .map(|d| chunk[d].min(dims[d].saturating_sub(offset[d])))
        .collect();
    if extent.contains(&0) {
        return;
    }
    let mut idx = vec![0u64; last];
    loop {
        let mut src_el = 0u64;
        let mut dst_el = 0u64;
        for d in 0..rank {
            let i = if d < last { idx[d] } else { 0 };
            src_el = src_el * chunk[d] + i;
            dst_el = dst_el * dims[d] + offset[d] + i;
        }
        let s = (src_el * es) as usize;
        let t = (dst_el * es) as usize;
        let n = (run * es) as usize;
        out[t..t + n].copy_from_slice(&data[s..s + n]);
        let mut d = last;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < extent[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn external_link_values() {
        assert_eq!(
            external(b"\0other.h5\0/x/y\0"),
            Some(LinkKind::External {
                file: "other.h5".into(),
                path: "/x/y".into()
            })
        );
        // Version 1 is unknown; a missing path or bad UTF-8 is malformed.
        assert_eq!(external(b"\x01a.h5\0/x\0"), None);
        assert_eq!(external(b"\0a.h5"), None);
        assert_eq!(external(b"\0\xff\0/x\0"), None);
        assert_eq!(external(b""), None);
    }
}
