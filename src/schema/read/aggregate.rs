//! Schema 2/3 aggregate-only profiles (`storage_layout = "aggregate"`, SCHEMA.md §2.12.4,
//! §4 step 9): per (rank, region) row a count, total, minimum, maximum and exclusive total,
//! and no events.

use crate::hdf5lite::reader::File;
use crate::io::ReadAt;
use crate::schema::error::Error;
use crate::schema::names::index;
use crate::schema::profile::{RankCalls, Region, RowStatistics};

use super::{check_length, int_column, rank_of, region_index, Assembly};

/// The regions, each row with its aggregate statistics.
pub(super) fn read<R: ReadAt>(
    file: &File<R>,
    names: &[String],
    ranks: Vec<i64>,
) -> Result<Vec<Region>, Error> {
    let region_ids = int_column(file, index::REGION_IDS)?;
    let counts = file.dataset(index::AGGREGATE_COUNTS.path)?.read_u64s()?;
    let totals = int_column(file, index::AGGREGATE_TOTALS)?;
    let minimums = int_column(file, index::AGGREGATE_MINIMUMS)?;
    let maximums = int_column(file, index::AGGREGATE_MAXIMUMS)?;
    let exclusives = int_column(file, index::AGGREGATE_EXCLUSIVES)?;
    let rows = region_ids.len();
    for (column, len) in [
        (index::RANKS, ranks.len()),
        (index::AGGREGATE_COUNTS, counts.len()),
        (index::AGGREGATE_TOTALS, totals.len()),
        (index::AGGREGATE_MINIMUMS, minimums.len()),
        (index::AGGREGATE_MAXIMUMS, maximums.len()),
        (index::AGGREGATE_EXCLUSIVES, exclusives.len()),
    ] {
        check_length(column, len, rows)?;
    }
    let mut out = Assembly::new(names, &region_ids[..rows]);
    for i in 0..rows {
        let id = region_index(i, region_ids[i], names.len())?;
        let statistics = RowStatistics {
            count: counts[i],
            total: totals[i],
            minimum: minimums[i],
            maximum: maximums[i],
            exclusive: exclusives[i],
            ..RowStatistics::default()
        };
        out.push(
            id,
            RankCalls {
                rank: rank_of(ranks[i])?,
                statistics: Some(statistics),
                ..RankCalls::default()
            },
        );
    }
    Ok(out.finish())
}
