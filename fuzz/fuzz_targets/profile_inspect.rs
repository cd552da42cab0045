//! Any bytes as a profile, through every read `sp inspect` makes (full, summary-only,
//! metadata-only) and the statistics rows in both percentage modes.
#![no_main]

#[path = "shared/tight_limits.rs"]
mod tight_limits;

use libfuzzer_sys::fuzz_target;
use sp::analysis::{load, region_rows, PercentageMode, RowOptions, Selection, SortKey};
use sp::hdf5lite::reader::File;

fn rows(sort: SortKey, mode: PercentageMode) -> RowOptions {
    RowOptions {
        sort,
        mode,
        flat: false,
        distribution: true,
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(file) = File::open_with_limits(data, tight_limits::TIGHT) else {
        return;
    };
    let _ = load::read_metadata(&file);
    if let Ok(summary) = load::read_summary(&file) {
        let _ = region_rows(
            &summary,
            &Selection::all(),
            rows(SortKey::Start, PercentageMode::Coverage),
        );
    }
    let Ok(profile) = load::read_full(&file) else {
        return;
    };
    // One sort per mode: sorting is not where files differ, and each pass costs time.
    let _ = region_rows(
        &profile,
        &Selection::all(),
        rows(SortKey::Total, PercentageMode::Coverage),
    );
    let _ = region_rows(
        &profile,
        &Selection::all(),
        rows(SortKey::Calls, PercentageMode::Exclusive),
    );
    for region in &profile.regions {
        let _ = region.first_start_s();
        let _ = region.last_end_s();
    }
});
