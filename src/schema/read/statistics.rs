//! The stored statistics alone: what a runs table needs of a profile (its metadata, rank
//! count, and each (rank, region) row's `summary_statistics` record), read from
//! `region_ids`, `ranks`, `event_counts`, `exclusive_totals` and `summary_statistics`.
//! The index read ([`Depth::Index`]) also reads every row's source file, line and text and
//! its span, which no run needs: on 100 profiles of 2,048 ranks those strings and spans
//! were most of a series' open in the page (issue 37).

use crate::hdf5lite::reader::File;
use crate::io::ReadAt;
use crate::schema::error::Error;
use crate::schema::names::{self, index};
use crate::schema::profile::{Depth, Profile, ProfileLayout, RankCalls};

use super::summaries::Summaries;
use super::{check_length, has_link, rank_of, region_index, Assembly};

/// The profile in `file` with each row's rank and stored statistics only (no source, no
/// span): for a columnar profile that stores `summary_statistics`, else `None` (the
/// caller reads such files another way). Its rows are those [`Depth::Index`] gives, in
/// the same order, with the same [`RowStatistics`](crate::schema::RowStatistics).
pub fn read_statistics<R: ReadAt>(file: &File<R>) -> Result<Option<Profile>, Error> {
    let mut profile = super::read(file, Depth::Metadata)?;
    if profile.layout != ProfileLayout::Columnar || !profile.summary_statistics {
        return Ok(None);
    }
    let names = file.dataset(names::REGION_NAMES.path)?.read_strings()?;
    let region_ids = file.dataset(index::REGION_IDS.path)?;
    let ranks = file.dataset(index::RANKS.path)?;
    let counts = file.dataset(index::EVENT_COUNTS.path)?;
    let exclusive = if has_link(file, index::EXCLUSIVE_TOTALS)? {
        Some(file.dataset(index::EXCLUSIVE_TOTALS.path)?)
    } else {
        None
    };
    let statistics = file.dataset(index::SUMMARY_STATISTICS.path)?;
    // The writers put the index's columns side by side: a browser fetches them in one read
    // instead of one or more each (issue 37: most of a series' open was its reads).
    let mut reading = vec![&region_ids, &ranks, &counts, &statistics];
    reading.extend(exclusive.as_ref());
    file.will_read(&reading);
    let region_ids = region_ids.read_i64s()?;
    let ranks = ranks.read_i64s()?;
    let counts = counts.read_i64s()?;
    let exclusive = exclusive.map(|d| d.read_i64s()).transpose()?;
    let mut summaries = Summaries::open(statistics)?;
    let rows = region_ids.len();
    check_length(index::RANKS, ranks.len(), rows)?;
    check_length(index::EVENT_COUNTS, counts.len(), rows)?;
    if let Some(e) = &exclusive {
        check_length(index::EXCLUSIVE_TOTALS, e.len(), rows)?;
    }
    // Counted, not allocated: the column's length decides nothing here.
    check_length(
        index::SUMMARY_STATISTICS,
        usize::try_from(summaries.len()).unwrap_or(usize::MAX),
        rows,
    )?;
    let mut out = Assembly::new(&names, &region_ids);
    for i in 0..rows {
        let id = region_index(i, region_ids[i], names.len())?;
        let count = u64::try_from(counts[i]).map_err(|_| {
            Error::Corrupt(format!(
                "negative event count {} in the event index",
                counts[i]
            ))
        })?;
        let stored = exclusive.as_ref().map(|e| e[i]).filter(|&e| e >= 0);
        out.push(
            id,
            RankCalls {
                rank: rank_of(ranks[i])?,
                exclusive_total: stored,
                statistics: Some(summaries.statistics(i as u64, count, stored)?),
                ..RankCalls::default()
            },
        );
    }
    profile.regions = out.finish();
    profile.region_names = names;
    profile.depth = Depth::Index;
    Ok(Some(profile))
}
