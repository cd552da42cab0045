//! Writes an HDF5 file: superblock v2, version-2 object headers, compact groups, attributes,
//! contiguous 1-D datasets and global heaps. The caller describes a tree of groups, datasets
//! and attributes; [`FileWriter::finish`] plans addresses, encodes every structure, patches
//! addresses and checksums, and writes the bytes. The same tree always gives the same bytes.

use std::io::Write;

use super::error::Result;
use super::model::{Data, Datatype, Shape};

/// Handle of a group or dataset inside a [`FileWriter`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ObjectId(pub(crate) usize);

/// How a dataset's raw data is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Layout {
    /// One contiguous block (or no storage when the dataset is empty).
    Contiguous,
}

/// Builds a file in memory and writes it with [`finish`](Self::finish).
#[derive(Debug, Default)]
pub struct FileWriter {}

impl FileWriter {
    /// The root group.
    pub const ROOT: ObjectId = ObjectId(0);

    /// An empty file with just a root group.
    pub fn new() -> Self {
        unimplemented!("hdf5lite writer")
    }

    /// Adds a group `name` under `parent` (a group).
    pub fn create_group(&mut self, _parent: ObjectId, _name: &str) -> Result<ObjectId> {
        unimplemented!("hdf5lite writer")
    }

    /// Adds a dataset `name` under `parent` (a group). `data` must hold exactly
    /// `shape.element_count()` elements of `datatype`.
    pub fn create_dataset(
        &mut self,
        _parent: ObjectId,
        _name: &str,
        _datatype: Datatype,
        _shape: Shape,
        _data: Data,
        _layout: Layout,
    ) -> Result<ObjectId> {
        unimplemented!("hdf5lite writer")
    }

    /// Sets attribute `name` on a group or dataset.
    pub fn set_attribute(
        &mut self,
        _object: ObjectId,
        _name: &str,
        _datatype: Datatype,
        _shape: Shape,
        _data: Data,
    ) -> Result<()> {
        unimplemented!("hdf5lite writer")
    }

    /// Writes the whole file to `out`; returns the number of bytes written.
    pub fn finish<W: Write>(self, _out: &mut W) -> Result<u64> {
        unimplemented!("hdf5lite writer")
    }
}
