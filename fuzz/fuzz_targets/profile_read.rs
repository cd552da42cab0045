//! Any bytes as a stored profile, through the import reader (`schema::read_profile`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use sp::hdf5lite::reader::File;
use sp::hdf5lite::Limits;

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_metadata_bytes: 1 << 20,
        max_chunk_bytes: 1 << 20,
        max_read_bytes: 4 << 20,
        max_depth: 16,
        max_header_chunks: 64,
        max_object_entries: 4096,
    };
    if let Ok(file) = File::open_with_limits(data, limits) {
        let _ = sp::schema::read_profile(&file);
    }
});
