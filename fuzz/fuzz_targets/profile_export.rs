//! Any bytes as a profile, through `sp export`: the index, the row-by-row event reader, the
//! thread and task lanes, and the chrome-trace, speedscope and JSON writers.
#![no_main]

#[path = "shared/tight_limits.rs"]
mod tight_limits;

use libfuzzer_sys::fuzz_target;
use sp::analysis::export::{Exporter, Format};
use sp::analysis::Selection;
use sp::hdf5lite::reader::File;

fuzz_target!(|data: &[u8]| {
    let Ok(file) = File::open_with_limits(data, tight_limits::TIGHT) else {
        return;
    };
    let Ok(exporter) = Exporter::open(&file, "fuzz") else {
        return;
    };
    for format in [Format::ChromeTrace, Format::Speedscope, Format::Json] {
        let _ = exporter.write(format, &Selection::all(), &mut std::io::sink());
    }
});
