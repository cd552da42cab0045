//! The caps every HDF5 fuzz target of this file set reads under: far below the defaults, so
//! a damaged size field hits them instead of the machine (libFuzzer's `-malloc_limit_mb`
//! then flags any allocation that escaped them).

use sp::hdf5lite::Limits;

pub const TIGHT: Limits = Limits {
    max_metadata_bytes: 1 << 20,
    max_chunk_bytes: 1 << 20,
    max_read_bytes: 4 << 20,
    max_depth: 16,
    max_header_chunks: 64,
    max_object_entries: 4096,
};
