//! The v2-B-tree chunk index (layout v4, type 5): records of type 10 (address and scaled
//! chunk coordinates) or 11 (plus stored size and filter mask), for datasets with more than
//! one unlimited dimension.

use super::{ChunkGrid, ChunkRecord};
use crate::hdf5lite::error::{Error, Result};
use crate::hdf5lite::raw::btree_v2::{records as tree_records, RecordType};
use crate::hdf5lite::raw::cursor::Cursor;
use crate::hdf5lite::raw::source::Source;

/// The chunks indexed by the v2 B-tree at `addr`.
pub fn records(
    src: &Source<'_>,
    addr: u64,
    grid: &ChunkGrid,
    filtered: bool,
) -> Result<Vec<ChunkRecord>> {
    let kind = if filtered {
        RecordType::FILTERED_CHUNK
    } else {
        RecordType::CHUNK
    };
    let (h, raw) = tree_records(src, addr, kind)?;
    let at = src.absolute(addr)?;
    let w = src.widths();
    let rank = grid.dims.len();
    let fixed = usize::from(w.offset) + 8 * rank + if filtered { 4 } else { 0 };
    let size_len = usize::from(h.record_size)
        .checked_sub(fixed)
        .filter(|&n| {
            if filtered {
                (1..=8).contains(&n)
            } else {
                n == 0
            }
        })
        .ok_or_else(|| {
            Error::format(format!(
                "chunk record of {} bytes for rank {rank}",
                h.record_size
            ))
            .at(at)
        })?;
    let chunk_bytes = grid.chunk_bytes()?;
    let mut out = Vec::new();
    for r in raw {
        let mut c = Cursor::new(&r, at, w);
        let address = c.address()?;
        let (stored_size, filter_mask) = if filtered {
            (c.uint(size_len as u8)?, c.u32()?)
        } else {
            (chunk_bytes, 0)
        };
        let scaled = (0..rank).map(|_| c.u64()).collect::<Result<Vec<_>>>()?;
        if let Some(address) = address {
            if let Some(offset) = grid.offset_in_extent(&scaled) {
                out.push(ChunkRecord {
                    offset,
                    address,
                    stored_size,
                    filter_mask,
                });
            }
        }
    }
    Ok(out)
}
