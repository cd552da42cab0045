//! Any bytes as an HDF5 file, listed the way `sp ls --json --data` lists it: the tree walk
//! (every link and attribute one at a time, every datatype, reference and filter decoder on
//! every dataset) and both printers, under tight limits. Errors are fine; panics, hangs and
//! huge allocations are not.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sp::hdf5lite::reader::File;
use sp::hdf5lite::tree::{self, Options, Walk};
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
    let Ok(file) = File::open_with_limits(data, limits) else {
        return;
    };
    let options = Options {
        values: true,
        max_elements: Some(4096),
    };
    if let Ok(walk) = Walk::new(&file, "/", options) {
        let _ = tree::write_json(&mut std::io::sink(), walk.take(256));
    }
    if let Ok(walk) = Walk::new(&file, "/", Options::default()) {
        let _ = tree::write_text(&mut std::io::sink(), walk.take(256));
    }
});
