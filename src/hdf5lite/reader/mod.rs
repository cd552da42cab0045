//! The reading API: [`File`], [`Group`], [`Dataset`] and [`Attribute`] over any
//! [`ReadAt`]. Opening reads only the superblock; objects are read when asked for, and a
//! dataset read touches only its own metadata and chunks.
//!
//! Faults stay where they are: links and attributes are read one at a time, each a
//! `Result` ([`Group::iter_links`], [`Group::iter_attributes`]); lookup by name compares
//! names before decoding anything else; a datatype or filter this crate cannot decode is a
//! value of the model ([`Datatype::Unsupported`],
//! [`Storage`]), so the object is still listed and only reading its values fails.
//!
//! ```
//! use sp::hdf5lite::reader::File;
//! # fn demo(bytes: &[u8]) -> sp::hdf5lite::Result<()> {
//! let file = File::open(bytes)?;
//! for link in file.root()?.iter_links()? {
//!     match link {
//!         Ok(link) => println!("{}", link.name),
//!         Err(e) => println!("unreadable link: {e}"),
//!     }
//! }
//! # Ok(()) }
//! ```

mod attribute;
mod chunks;
mod dataset;
mod group;
mod selection;
pub mod value;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

use crate::hdf5lite::error::{Error, Result};
use crate::hdf5lite::limits::Limits;
use crate::hdf5lite::model::Datatype;
use crate::hdf5lite::raw::messages::{self, MessageFlags, MessageType, SharedMessage};
use crate::hdf5lite::raw::object_header::{ObjectHeader, RawMessage};
use crate::hdf5lite::raw::source::{Source, Window};
use crate::hdf5lite::raw::superblock::Superblock;
use crate::io::ReadAt;

pub use crate::hdf5lite::raw::messages::ChunkIndex;
pub use attribute::{Attribute, Attributes};
pub use dataset::{Dataset, Storage};
pub use group::{Group, Links};
pub use selection::{Reference, Selection};
pub use value::Value;

/// Bytes read at once where an object header starts: most headers fit, so one read gets
/// the prefix, the first chunk and often every message.
const HEADER_WINDOW: u64 = 512;
/// Object headers kept after reading, so walking paths again does not read them again.
const HEADER_CACHE: usize = 4096;

/// An open HDF5 file.
#[derive(Debug)]
pub struct File<R: ReadAt> {
    reader: R,
    superblock: Superblock,
    limits: Limits,
    /// Object headers already read, by address.
    headers: Mutex<HashMap<u64, Arc<ObjectHeader>>>,
    /// Groups' links already read (only lists read without a fault), by header address.
    links: Mutex<HashMap<u64, Arc<Vec<LinkEntry>>>>,
    /// The first path of every object, built when a reference is first decoded.
    paths: OnceLock<HashMap<u64, String>>,
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

/// A group, a dataset or a committed datatype.
#[derive(Debug)]
pub enum Object<'f, R: ReadAt> {
    Group(Group<'f, R>),
    Dataset(Box<Dataset<'f, R>>),
    Datatype(CommittedDatatype<'f, R>),
}

/// A committed (named) datatype: a datatype stored as an object of its own, which
/// attributes and datasets may share.
#[derive(Debug)]
pub struct CommittedDatatype<'f, R: ReadAt> {
    file: &'f File<R>,
    path: String,
    header: Arc<ObjectHeader>,
    datatype: Datatype,
}

impl<'f, R: ReadAt> CommittedDatatype<'f, R> {
    /// The absolute path.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The datatype itself.
    pub fn datatype(&self) -> &Datatype {
        &self.datatype
    }

    /// The attributes, one at a time (see [`Group::iter_attributes`]).
    pub fn iter_attributes(&self) -> Result<Attributes<'f, R>> {
        Attributes::read(self.file, &self.header, &self.path)
    }
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
            headers: Mutex::new(HashMap::new()),
            links: Mutex::new(HashMap::new()),
            paths: OnceLock::new(),
        })
    }

    /// The superblock.
    pub fn superblock(&self) -> &Superblock {
        &self.superblock
    }

    /// The caps in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The bytes the file is read from.
    pub fn reader(&self) -> &R {
        &self.reader
    }

    /// Tells the reader that `datasets` are read next ([`ReadAt::will_read`]): the
    /// extents of the contiguous ones, so a source that pays much per read may fetch them
    /// in one.
    pub fn will_read(&self, datasets: &[&Dataset<'_, R>]) {
        let ranges: Vec<(u64, u64)> = datasets.iter().filter_map(|d| d.extent()).collect();
        if !ranges.is_empty() {
            self.reader.will_read(&ranges);
        }
    }

    fn src(&self) -> Source<'_> {
        Source::new(
            &self.reader,
            self.superblock.widths,
            self.superblock.base_address,
            self.limits,
        )
    }

    /// The object header at file address `addr` (known by `path` in errors), read once.
    fn header(&self, addr: u64, path: &str) -> Result<Arc<ObjectHeader>> {
        if let Some(h) = lock(&self.headers).get(&addr) {
            return Ok(h.clone());
        }
        let abs = self.src().absolute(addr).map_err(|e| e.in_object(path))?;
        let window = Window::new(&self.reader, abs, HEADER_WINDOW);
        let header = ObjectHeader::read(&window, abs, self.superblock.widths, &self.limits)
            .map_err(|e| e.in_object(path))?;
        let header = Arc::new(header);
        let mut cache = lock(&self.headers);
        if cache.len() >= HEADER_CACHE {
            cache.clear();
        }
        cache.insert(addr, header.clone());
        Ok(header)
    }

    /// The root group.
    pub fn root(&self) -> Result<Group<'_, R>> {
        let header = self.header(self.superblock.root_object_header, "/")?;
        Ok(Group::new(self, "/".into(), header))
    }

    /// The object at an absolute `path` ("/a/b"). Each step looks its name up without
    /// decoding the group's other links.
    pub fn object(&self, path: &str) -> Result<Object<'_, R>> {
        self.object_from(path, 0)
    }

    fn object_from(&self, path: &str, depth: u32) -> Result<Object<'_, R>> {
        let mut current = self.root()?;
        let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
        for (i, part) in parts.iter().enumerate() {
            let link = current.link(part)?.ok_or_else(|| {
                Error::usage(format!("no object named {part:?}")).in_object(current.path())
            })?;
            let child_path = join(current.path(), part);
            let addr = match link.kind {
                LinkKind::Hard(a) => a,
                LinkKind::Soft(target) => {
                    if depth >= self.limits.max_depth {
                        return Err(
                            Error::limits("soft links nest too deeply").in_object(child_path)
                        );
                    }
                    let rest = parts[i + 1..].join("/");
                    let target = if target.starts_with('/') {
                        target
                    } else {
                        join(current.path(), &target)
                    };
                    return self.object_from(&format!("{target}/{rest}"), depth + 1);
                }
                LinkKind::External { .. } | LinkKind::Other => {
                    return Err(
                        Error::unsupported("external or user-defined link").in_object(child_path)
                    )
                }
            };
            let last = i + 1 == parts.len();
            match self.object_at(addr, &child_path)? {
                Object::Group(g) => current = g,
                other if last => return Ok(other),
                _ => return Err(Error::usage("not a group").in_object(child_path)),
            }
        }
        Ok(Object::Group(current))
    }

    /// The group at `path`.
    pub fn group(&self, path: &str) -> Result<Group<'_, R>> {
        match self.object(path)? {
            Object::Group(g) => Ok(g),
            Object::Dataset(d) => Err(Error::usage("not a group").in_object(d.path())),
            Object::Datatype(t) => Err(Error::usage("not a group").in_object(t.path)),
        }
    }

    /// The dataset at `path`.
    pub fn dataset(&self, path: &str) -> Result<Dataset<'_, R>> {
        match self.object(path)? {
            Object::Dataset(d) => Ok(*d),
            Object::Group(g) => Err(Error::usage("not a dataset").in_object(g.path())),
            Object::Datatype(t) => Err(Error::usage("not a dataset").in_object(t.path)),
        }
    }

    /// The kind of object a hard link points at, without decoding it further.
    pub fn kind_at(&self, addr: u64, path: &str) -> Result<ObjectKind> {
        Ok(kind_of(self.header(addr, path)?.as_ref()))
    }

    /// The object whose header is at `addr` (a hard link's target), known by `path` in
    /// errors and in what it returns. Walking a tree this way reads each object header
    /// once, where [`object`](Self::object) walks from the root.
    pub fn object_at(&self, addr: u64, path: &str) -> Result<Object<'_, R>> {
        let header = self.header(addr, path)?;
        match kind_of(&header) {
            ObjectKind::Group => Ok(Object::Group(Group::new(self, path.to_string(), header))),
            ObjectKind::Dataset => {
                Dataset::new(self, path.to_string(), header).map(|d| Object::Dataset(Box::new(d)))
            }
            ObjectKind::Datatype => {
                let datatype = first(&header, MessageType::DATATYPE)
                    .ok_or_else(|| Error::format("committed datatype without a datatype"))
                    .and_then(|m| self.datatype_message(m, 0))
                    .map_err(|e| e.in_object(path))?;
                Ok(Object::Datatype(CommittedDatatype {
                    file: self,
                    path: path.to_string(),
                    header,
                    datatype,
                }))
            }
        }
    }

    /// The datatype a datatype message holds, in place or committed elsewhere.
    fn datatype_message(&self, m: &RawMessage, depth: u32) -> Result<Datatype> {
        let widths = self.superblock.widths;
        if !m.flags.contains(MessageFlags::SHARED) {
            return messages::datatype::parse(&mut m.cursor(widths));
        }
        match SharedMessage::parse(&mut m.cursor(widths))? {
            SharedMessage::Committed(addr) => self.committed_datatype(addr, depth + 1),
            SharedMessage::InHeap => Ok(SharedMessage::unsupported_datatype()),
        }
    }

    /// The datatype committed in the object header at `addr`.
    fn committed_datatype(&self, addr: u64, depth: u32) -> Result<Datatype> {
        if depth > self.limits.max_depth {
            return Err(Error::limits(
                "committed datatypes refer to each other too deeply",
            ));
        }
        let header = self.header(addr, "committed datatype")?;
        let m = first(&header, MessageType::DATATYPE)
            .ok_or_else(|| Error::format("a shared datatype points at no datatype").at(addr))?;
        self.datatype_message(m, depth)
    }

    /// The first path of the object whose header is at `addr` (depth first, names in
    /// order, as h5dump and h5py name the target of a reference); `None` when no path
    /// reaches it. The first call walks the whole file once.
    pub fn path_of(&self, addr: u64) -> Option<&str> {
        self.paths
            .get_or_init(|| self.index_paths())
            .get(&addr)
            .map(String::as_str)
    }

    /// Every object reachable by hard links, with its first path in a depth-first walk
    /// (each group's links in name order, a group entered once). Unreadable parts of the
    /// tree are skipped; the walk stops after `max_object_entries` objects.
    fn index_paths(&self) -> HashMap<u64, String> {
        let root = self.superblock.root_object_header;
        let mut paths = HashMap::from([(root, "/".to_string())]);
        let mut visited = HashSet::from([root]);
        let links_of = |addr: u64, path: &str| -> Vec<LinkEntry> {
            let Ok(header) = self.header(addr, path) else {
                return Vec::new();
            };
            let group = Group::new(self, path.to_string(), header);
            match group.iter_links() {
                Ok(links) => links.flatten().collect(),
                Err(_) => Vec::new(),
            }
        };
        let mut stack = vec![("/".to_string(), links_of(root, "/").into_iter())];
        let cap = self.limits.max_object_entries as usize;
        while let Some((parent, links)) = stack.last_mut() {
            let Some(link) = links.next() else {
                stack.pop();
                continue;
            };
            let LinkKind::Hard(child) = link.kind else {
                continue;
            };
            let path = join(parent, &link.name);
            paths.entry(child).or_insert_with(|| path.clone());
            if paths.len() >= cap {
                break;
            }
            if visited.insert(child) && self.kind_at(child, &path).ok() == Some(ObjectKind::Group) {
                let links = links_of(child, &path);
                stack.push((path, links.into_iter()));
            }
        }
        paths
    }
}

/// Locks a cache, recovering it if a panic elsewhere poisoned it (a cache is never left
/// half-updated).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
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
            "shared {what} message (in the shared-message heap)"
        ))
        .at(m.offset));
    }
    parse(&mut m.cursor(src.widths()))
}

fn first(h: &ObjectHeader, t: MessageType) -> Option<&RawMessage> {
    h.messages_of(t).next()
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
