//! Any bytes as a rank's trace, through what `sp convert` does with it: every trace the
//! parser accepts must merge, write as a profile, and read back with the same region names
//! and call counts. Differential: a panic or a mismatch is a bug in the merge or the writer.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sp::hdf5lite::reader::File;
use sp::schema::{self, Merger, RegionCalls};

fuzz_target!(|data: &[u8]| {
    let Ok(view) = sp::trace::parse(data) else {
        return;
    };
    let regions: Vec<RegionCalls> = view.regions.iter().map(RegionCalls::from).collect();
    let mut merger = Merger::new();
    if merger
        .add_rank("fuzz.spt", i64::from(view.rank), regions, None)
        .is_err()
    {
        return;
    }
    let profile = merger.finish(Some("fuzz"));
    let writer = schema::write::to_hdf5(&profile).expect("a merged trace always plans");
    let mut bytes = Vec::new();
    writer.finish(&mut bytes).expect("writing to memory");
    let file = File::open(bytes).expect("sp reads what sp writes");
    let stored = schema::read_profile(&file).expect("the importer reads what sp writes");
    let mut stored: Vec<(String, Vec<i64>, Vec<i64>)> = stored
        .into_ranks()
        .into_iter()
        .flat_map(|(_, regions)| regions)
        .map(|r| (r.name, r.starts, r.ends))
        .collect();
    // Every region with calls comes back with the same calls (empty ones may be dropped).
    let mut given: Vec<(String, Vec<i64>, Vec<i64>)> = view
        .regions
        .iter()
        .map(|r| (r.name.to_owned(), r.starts.to_vec(), r.ends.to_vec()))
        .filter(|(_, starts, _)| !starts.is_empty())
        .collect();
    stored.retain(|(_, starts, _)| !starts.is_empty());
    stored.sort();
    given.sort();
    assert_eq!(stored, given);
});
