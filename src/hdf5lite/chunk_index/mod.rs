//! Chunk indexes: where each chunk of a chunked dataset is stored. Layout v1–v3 files use a
//! v1 B-tree ([`btree_v1::chunks`](super::btree_v1::chunks)); layout v4 adds the index types
//! in this module. Every index yields the same [`ChunkRecord`]s.

/// One stored chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkRecord {
    /// Coordinates of the chunk's first element, one per dataset dimension.
    pub offset: Vec<u64>,
    /// File address of the stored (filtered) bytes.
    pub address: u64,
    /// Number of stored bytes.
    pub stored_size: u64,
    /// Bit *i* set: filter *i* of the pipeline was not applied to this chunk.
    pub filter_mask: u32,
}
