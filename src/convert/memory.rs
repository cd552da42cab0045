//! Writing a profile held in memory with compressed event columns, through the same packer
//! and appender as pass 2: units of one [`BLOCK`] of events, packed and appended in order.
//! (`.h5` inputs and `--merge` are still converted in memory.)

use crate::io::WriteAt;
use crate::schema::write::{encode_events, to_hdf5_deferred, RowHead};
use crate::schema::{likwid, MergedProfile, Summary};

use super::error::Error;
use super::pack::{ChunkAppender, PackScratch, Packer};
use super::pass2::write_place;
use super::BLOCK;

/// Writes `profile` to `out` with its event columns chunked and deflated at `level`.
pub fn write_compressed<W: WriteAt + ?Sized>(
    profile: &MergedProfile,
    level: u8,
    out: &mut W,
) -> Result<(), Error> {
    let heads: Vec<RowHead<'_>> = profile.rows.iter().map(RowHead::from).collect();
    let (mut writer, deferred) = to_hdf5_deferred(
        &profile.metadata,
        &profile.region_names,
        &heads,
        Some(level),
    )
    .map_err(Error::Layout)?;
    likwid::write(&mut writer, &profile.likwid).map_err(Error::Layout)?;
    let placement = writer.finish_at(out).map_err(Error::Encode)?;
    let summaries: Vec<u8> = profile
        .rows
        .iter()
        .flat_map(|r| Summary::of(&r.starts, &r.ends).encode())
        .collect();
    let summaries_at = placement
        .data(deferred.summary_statistics)
        .ok_or(Error::Internal("no planned storage"))?;
    write_place(out, summaries_at, 0, &summaries)?;
    if placement.chunked(deferred.start_deltas).is_none() {
        // No events: the columns are empty and contiguous.
        return Ok(());
    }
    let packer = Packer::new(
        &placement,
        [deferred.start_deltas, deferred.durations],
        level,
    )?;
    let mut appender = ChunkAppender::new(&packer, &placement);
    let (mut deltas, mut durations) = (Vec::new(), Vec::new());
    let mut scratch = PackScratch::default();
    let mut first_event = 0u64;
    let mut flush = |deltas: &mut Vec<u8>, durations: &mut Vec<u8>, out: &mut W| {
        let unit = appender.next_unit();
        let packed = packer.pack(unit, first_event, [deltas, durations], &mut scratch)?;
        appender.append(packed, out)?;
        first_event += deltas.len() as u64 / 8;
        deltas.clear();
        durations.clear();
        Ok::<_, Error>(())
    };
    for row in &profile.rows {
        // Units of exactly one block of events, cut inside rows where they fall.
        let n = row.starts.len().min(row.ends.len());
        let (mut starts, mut ends) = (&row.starts[..n], &row.ends[..n]);
        let mut previous = 0i64;
        while !starts.is_empty() {
            let room = (BLOCK as usize).saturating_sub(deltas.len() / 8).max(1);
            let take = room.min(starts.len());
            encode_events(
                previous,
                &starts[..take],
                &ends[..take],
                &mut deltas,
                &mut durations,
            );
            previous = starts[take - 1];
            (starts, ends) = (&starts[take..], &ends[take..]);
            if deltas.len() as u64 >= BLOCK * 8 {
                flush(&mut deltas, &mut durations, out)?;
            }
        }
    }
    flush(&mut deltas, &mut durations, out)?;
    appender.finish(&packer, &placement, out)
}
