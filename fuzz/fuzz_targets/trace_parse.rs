//! Any bytes through the `.spt` parser and the positional indexer: no panic, and both agree.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let parsed = sp::trace::parse(data);
    let indexed = sp::trace::index(data);
    assert_eq!(parsed.is_ok(), indexed.is_ok());
    if let Ok(view) = parsed {
        for region in &view.regions {
            let _ = region.starts.iter().zip(region.ends.iter()).count();
        }
    }
});
