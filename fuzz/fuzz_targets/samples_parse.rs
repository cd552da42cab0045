//! Any bytes through the `.sps` parser: no panic, and what parses encodes back to the same
//! bytes (the format has one encoding per byte order).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(view) = sp::samples::parse(data) {
        let owned = view.to_owned();
        let valid_utf8 = view.regions.iter().all(|r| matches!(r, std::borrow::Cow::Borrowed(_)))
            && view.modules.iter().all(|m| matches!(m.path, std::borrow::Cow::Borrowed(_)));
        if valid_utf8 {
            assert_eq!(sp::samples::encode(&owned, view.endian), data);
        }
    }
});
