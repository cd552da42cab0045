//! Any bytes as a profile, through every read `sp inspect` makes (full, summary-only,
//! metadata-only) and the statistics rows in both percentage modes.
#![no_main]

#[path = "shared/tight_limits.rs"]
mod tight_limits;

use libfuzzer_sys::fuzz_target;
use sp::analysis::{region_rows, PercentageMode, Profile, Selection, SortKey};
use sp::hdf5lite::reader::File;

fuzz_target!(|data: &[u8]| {
    let Ok(file) = File::open_with_limits(data, tight_limits::TIGHT) else {
        return;
    };
    let _ = Profile::read_metadata(&file);
    if let Ok(summary) = Profile::read_summary(&file) {
        let _ = region_rows(
            &summary,
            &Selection::all(),
            SortKey::Start,
            PercentageMode::Coverage,
        );
    }
    let Ok(profile) = Profile::read(&file) else {
        return;
    };
    // One sort per mode: sorting is not where files differ, and each pass costs time.
    let _ = region_rows(
        &profile,
        &Selection::all(),
        SortKey::Total,
        PercentageMode::Coverage,
    );
    let _ = region_rows(
        &profile,
        &Selection::all(),
        SortKey::Calls,
        PercentageMode::Exclusive,
    );
    for region in &profile.regions {
        let _ = region.first_start_s();
        let _ = region.last_end_s();
    }
});
