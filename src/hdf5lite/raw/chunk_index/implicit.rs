//! The implicit index (layout v4, type 2): every chunk of the maximum chunk grid is
//! allocated back to back from the layout's address, in row-major order. Never filtered.

use super::{unravel, ChunkGrid, ChunkRecord};
use crate::hdf5lite::error::{Error, Result};

/// The chunks inside the current extent.
pub fn records(address: Option<u64>, grid: &ChunkGrid, file_len: u64) -> Result<Vec<ChunkRecord>> {
    let Some(address) = address else {
        return Ok(Vec::new());
    };
    let counts = grid.max_counts();
    let total = counts
        .iter()
        .try_fold(1u64, |acc, &n| acc.checked_mul(n))
        .ok_or_else(|| {
            Error::format("implicit chunk index over an unlimited extent").at(address)
        })?;
    let chunk_bytes = grid.chunk_bytes()?;
    // Every chunk is stored: the grid must fit in the file before anything is listed.
    let end = total
        .checked_mul(chunk_bytes)
        .and_then(|n| n.checked_add(address));
    if !matches!(end, Some(e) if e <= file_len) {
        return Err(Error::format(format!(
            "implicit chunk index of {total} chunks of {chunk_bytes} bytes passes the end of the file"
        ))
        .at(address));
    }
    let mut out = Vec::new();
    for i in 0..total {
        let scaled = unravel(i, &counts);
        if let Some(offset) = grid.offset_in_extent(&scaled) {
            out.push(ChunkRecord {
                offset,
                address: address + i * chunk_bytes,
                stored_size: chunk_bytes,
                filter_mask: 0,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_follow_the_maximum_grid() {
        // 3 × 3 chunks now, 4 × 5 at most: chunk (1, 0) is the 6th of the maximum grid.
        let g = ChunkGrid::new(vec![5, 6], vec![8, 9], vec![2, 2], 4).unwrap();
        let r = records(Some(1000), &g, 1000 + 20 * 16).unwrap();
        assert_eq!(r.len(), 9);
        assert_eq!(r[3].offset, vec![2, 0]);
        assert_eq!(r[3].address, 1000 + 5 * 16);
    }

    #[test]
    fn grid_past_the_file_is_rejected() {
        let g = ChunkGrid::new(vec![1 << 40], vec![1 << 40], vec![1], 8).unwrap();
        assert!(records(Some(0), &g, 4096).is_err());
    }
}
