//! Caps on what one file may make the reader allocate, decompress or walk. Every count read
//! from a file is checked against these (and against the file's size) before it sizes
//! anything.

/// Resource caps for reading one file. The defaults suit profiles of many GiB while keeping
/// a hostile file from exhausting memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest single allocation for metadata (object-header chunks, heaps, B-tree nodes).
    pub max_metadata_bytes: u64,
    /// Largest decompressed chunk.
    pub max_chunk_bytes: u64,
    /// Largest dataset or attribute value read into memory at once.
    pub max_read_bytes: u64,
    /// Deepest B-tree or heap indirection followed.
    pub max_depth: u32,
    /// Most object-header continuation chunks followed for one object.
    pub max_header_chunks: u32,
    /// Most group links, attributes or messages accepted on one object.
    pub max_object_entries: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_metadata_bytes: 64 << 20,
            max_chunk_bytes: 256 << 20,
            max_read_bytes: 16 << 30,
            max_depth: 64,
            max_header_chunks: 4096,
            max_object_entries: 1 << 20,
        }
    }
}
