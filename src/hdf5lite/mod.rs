//! A small, pure-Rust implementation of the HDF5 file format: a reader for what h5py,
//! netCDF-4 and libhdf5 write, and a writer for the files scope-profiler profiles need.
//!
//! This layer knows nothing of profiles. It does no file-system, thread or terminal I/O: the
//! writer takes any [`std::io::Write`] (or [`WriteAt`](crate::io::WriteAt)), the reader any
//! [`ReadAt`](crate::io::ReadAt), so it runs in WebAssembly unchanged.
//!
//! The public API:
//! - [`reader`]: [`File`](reader::File), [`Group`](reader::Group),
//!   [`Dataset`](reader::Dataset), [`Attribute`](reader::Attribute) and decoded
//!   [`Value`](reader::Value)s;
//! - [`writer`]: [`FileWriter`] and the plan it returns for data written later;
//! - [`model`]: the format-neutral datatypes, shapes and data both sides share;
//! - [`tree`]: the listing of a whole file (a walk, and its text and JSON forms);
//! - [`filters`]: the filter pipeline (deflate, shuffle, Fletcher-32, lzf, zstd, n-bit,
//!   scale-offset), and the compressor the writer's chunked datasets use;
//! - [`Error`], [`ErrorKind`] and [`Limits`], the caps every count read from a file is
//!   checked against.
//!
//! [`raw`] holds the on-disk structures themselves, for tests and byte-level tools.

pub mod copy;
pub mod error;
pub mod filters;
pub mod limits;
pub mod model;
pub mod raw;
pub mod reader;
pub mod tree;
pub mod writer;

pub use error::{Error, ErrorKind, Result};
pub use limits::Limits;
pub use model::{
    ByteOrder, CharSet, CompoundMember, Data, Datatype, EnumMember, Shape, StrPad, StringLength,
    Strings,
};
pub use writer::{
    ChunkPlan, Chunking, DataPlace, FileWriter, ObjectId, Placement, StorageLayout, StoredChunk,
};
