//! Attributes: compact attribute messages and dense storage (fractal heap and v2 B-tree
//! name index), each decoded on its own when asked for, so one attribute this crate
//! cannot read fails only itself.

use std::iter::FusedIterator;

use super::group::sort_by_name;
use super::value::{Decoder, Value};
use super::{check_count, decode, first, usize_of, File};
use crate::hdf5lite::error::{Error, Result};
use crate::hdf5lite::model::{Datatype, Shape};
use crate::hdf5lite::raw::btree_v2::{self, RecordType};
use crate::hdf5lite::raw::cursor::Cursor;
use crate::hdf5lite::raw::fractal_heap::FractalHeap;
use crate::hdf5lite::raw::messages::{self, AttributeInfo, Dataspace, MessageFlags, MessageType};
use crate::hdf5lite::raw::object_header::ObjectHeader;
use crate::io::ReadAt;

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

    /// The element type ([`Datatype::Unsupported`] for one this crate cannot decode).
    pub fn datatype(&self) -> &Datatype {
        &self.datatype
    }

    /// The stored value bytes, element after element in the datatype's own layout and byte
    /// order (for variable-length elements: their heap references).
    pub fn raw(&self) -> &[u8] {
        &self.data
    }

    /// The shape; `None` for a null dataspace (no elements, not even a scalar).
    pub fn shape(&self) -> Option<Shape> {
        self.dataspace.shape()
    }

    /// The value: one [`Value`] for a scalar, a [`Value::Array`] of the elements otherwise
    /// (empty for a null dataspace).
    pub fn value<R: ReadAt>(&self, file: &File<R>) -> Result<Value> {
        let ctx = |e: Error| e.in_object(format!("{}@{}", self.path, self.name));
        if let Some(reason) = self.datatype.unsupported() {
            return Err(ctx(Error::unsupported(reason)));
        }
        let src = file.src();
        let path_of = |addr: u64| Ok(file.path_of(addr).map(str::to_owned));
        let mut dec = Decoder::new(&src, &path_of);
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

/// One attribute as stored, its name already read.
#[derive(Debug)]
struct Stored {
    name: String,
    body: Vec<u8>,
    /// File offset of the body, for errors.
    at: u64,
}

/// The attributes of one object, sorted by name, each decoded when the iterator reaches it:
/// an attribute that cannot be read is an `Err` (after the readable ones) and the others
/// are unaffected. Created by `iter_attributes` on a group, dataset or committed datatype.
#[derive(Debug)]
pub struct Attributes<'f, R: ReadAt> {
    file: &'f File<R>,
    path: String,
    items: std::vec::IntoIter<Result<Stored>>,
}

impl<'f, R: ReadAt> Attributes<'f, R> {
    /// Reads the attribute storage of an object header: compact messages and dense storage.
    /// Fails as a whole only when the storage itself (heap, index) cannot be read.
    pub(super) fn read(file: &'f File<R>, h: &ObjectHeader, path: &str) -> Result<Self> {
        let items = Self::stored(file, h, path).map_err(|e| e.in_object(path.to_string()))?;
        Ok(Attributes {
            file,
            path: path.to_string(),
            items: items.into_iter(),
        })
    }

    fn stored(file: &File<R>, h: &ObjectHeader, path: &str) -> Result<Vec<Result<Stored>>> {
        let src = file.src();
        let widths = src.widths();
        let named = |body: Vec<u8>, at: u64| {
            let name = messages::Attribute::parse_name(&mut Cursor::new(&body, at, widths))?;
            Ok(Stored { name, body, at })
        };
        let mut out: Vec<Result<Stored>> = Vec::new();
        for m in h.messages_of(MessageType::ATTRIBUTE) {
            out.push(if m.flags.contains(MessageFlags::SHARED) {
                Err(Error::unsupported("a shared attribute message").at(m.offset))
            } else {
                named(m.body.clone(), m.offset)
            });
        }
        if let Some(m) = first(h, MessageType::ATTRIBUTE_INFO) {
            let info = decode(m, &src, AttributeInfo::parse)?;
            if let (Some(heap), Some(index)) = (info.fractal_heap, info.name_index) {
                let heap = FractalHeap::read(&src, heap)?;
                let (_, records) = btree_v2::records(&src, index, RecordType::ATTRIBUTE_NAME)?;
                check_count(records.len(), file.limits, path)?;
                let heap_at = src.absolute(heap.address)?;
                for r in records {
                    out.push(
                        r.get(..8)
                            .ok_or_else(|| Error::format("short attribute record").at(heap_at))
                            .and_then(|id| heap.object(&src, id))
                            .and_then(|body| named(body, heap_at)),
                    );
                }
            }
        }
        check_count(out.len(), file.limits, path)?;
        sort_by_name(&mut out, |s| &s.name);
        Ok(out)
    }

    /// The attribute `name`, decoding no other.
    pub(super) fn find_name(mut self, name: &str) -> Result<Option<Attribute>> {
        let found = self.items.by_ref().flatten().find(|s| s.name == name);
        found.map(|s| self.decode(s)).transpose()
    }

    fn decode(&self, s: Stored) -> Result<Attribute> {
        let widths = self.file.src().widths();
        let mut c = Cursor::new(&s.body, s.at, widths);
        let mut committed = |addr| self.file.committed_datatype(addr, 0);
        let a = messages::Attribute::parse_with(&mut c, &mut committed)
            .map_err(|e| e.in_object(format!("{}@{}", self.path, s.name)))?;
        Ok(Attribute {
            name: a.name,
            datatype: a.datatype,
            dataspace: a.dataspace,
            data: a.data,
            path: self.path.clone(),
        })
    }
}

impl<R: ReadAt> Iterator for Attributes<'_, R> {
    type Item = Result<Attribute>;

    fn next(&mut self) -> Option<Result<Attribute>> {
        let item = self.items.next()?;
        Some(match item {
            Ok(s) => self.decode(s),
            Err(e) => Err(e.in_object(self.path.clone())),
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.items.size_hint()
    }
}

impl<R: ReadAt> FusedIterator for Attributes<'_, R> {}
