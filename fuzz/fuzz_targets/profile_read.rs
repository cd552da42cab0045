//! Any bytes as a stored profile, through the import reader (`schema::read_profile`).
#![no_main]

#[path = "shared/tight_limits.rs"]
mod tight_limits;

use libfuzzer_sys::fuzz_target;
use sp::hdf5lite::reader::File;

fuzz_target!(|data: &[u8]| {
    if let Ok(file) = File::open_with_limits(data, tight_limits::TIGHT) {
        let _ = sp::schema::read_profile(&file);
    }
});
