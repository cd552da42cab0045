//! Any bytes as a profile, through `sp export`: the index, the row-by-row event reader, the
//! thread and task lanes, and the chrome-trace, speedscope and JSON writers.
#![no_main]

#[path = "shared/tight_limits.rs"]
mod tight_limits;

use libfuzzer_sys::fuzz_target;
use sp::analysis::{export, EventReader, Lanes, Loaded, Profile, RowSource, Selection};
use sp::hdf5lite::reader::File;

fuzz_target!(|data: &[u8]| {
    let Ok(file) = File::open_with_limits(data, tight_limits::TIGHT) else {
        return;
    };
    let Ok(profile) = Profile::read_index(&file) else {
        return;
    };
    let Ok(reader) = EventReader::open(&file) else {
        return;
    };
    let source: &dyn RowSource = match &reader {
        Some(r) => r,
        None => &Loaded,
    };
    let Ok(lanes) = Lanes::read(&file) else {
        return;
    };
    let sel = Selection::all();
    let _ = export::chrome_trace(&profile, source, &lanes, &sel, "fuzz", &mut std::io::sink());
    let _ = export::speedscope(&profile, source, &lanes, &sel, "fuzz", &mut std::io::sink());
    let _ = export::json(&profile, source, &lanes, &sel, &mut std::io::sink());
});
