//! The on-disk structures of HDF5, one module per structure or message family, each with
//! its parsing (and, where the writer needs it, encoding) side by side.
//!
//! Reading and writing files needs none of this: use [`reader`](super::reader) and
//! [`FileWriter`](super::FileWriter). It is public for tests, fuzzing and tools that look at
//! a file byte by byte, and may change between versions of this crate.

pub mod btree_v1;
pub mod btree_v2;
pub mod checksum;
pub mod chunk_index;
pub mod cursor;
pub mod fractal_heap;
pub mod global_heap;
pub mod local_heap;
pub mod messages;
pub mod object_header;
pub mod source;
pub mod superblock;
pub mod symbol_table_node;
