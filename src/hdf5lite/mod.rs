//! A small, pure-Rust implementation of the parts of the HDF5 file format that
//! scope-profiler profiles use.
//!
//! This layer knows nothing of profiles. It has a writer ([`FileWriter`]) for superblock
//! v2 files with version-2 object headers, compact groups, attributes and 1-D datasets, and
//! a reader for what h5py and libhdf5 write. It does no file-system, thread or terminal I/O:
//! the writer takes any [`std::io::Write`], the reader any [`ReadAt`](crate::io::ReadAt), so it runs in
//! WebAssembly unchanged.
//!
//! Structure: one module per on-disk structure or message family, each with its parsing and
//! encoding side by side ([`superblock`], [`object_header`], [`messages`],
//! [`global_heap`]); [`model`] is the format-neutral view of datatypes and data.

pub mod checksum;
pub mod cursor;
pub mod error;
pub mod global_heap;
pub mod limits;
pub mod messages;
pub mod model;
pub mod object_header;
pub mod superblock;
pub mod writer;

pub use cursor::Widths;
pub use error::{Error, ErrorKind, Result};
pub use limits::Limits;
pub use model::{
    ByteOrder, CharSet, CompoundMember, Data, Datatype, EnumMember, Shape, StrPad, StringLength,
};
pub use writer::{
    ChunkPlan, Chunking, DataPlace, FileWriter, Layout, ObjectId, Placement, StoredChunk,
};

// Reader
pub mod btree_v1;
pub mod btree_v2;
pub mod chunk_index;
pub mod filters;
pub mod fractal_heap;
pub mod local_heap;
pub mod reader;
pub mod symbol_table_node;
