//! The single-chunk index (layout v4, type 1): the dataset is one chunk at the layout's
//! address, with its stored size and filter mask in the layout message when filtered.

use super::{ChunkGrid, ChunkRecord};
use crate::hdf5lite::error::Result;

/// The one chunk, if allocated.
pub fn records(
    address: Option<u64>,
    filtered: Option<(u64, u32)>,
    grid: &ChunkGrid,
) -> Result<Vec<ChunkRecord>> {
    let Some(address) = address else {
        return Ok(Vec::new());
    };
    let (stored_size, filter_mask) = match filtered {
        Some(f) => f,
        None => (grid.chunk_bytes()?, 0),
    };
    Ok(vec![ChunkRecord {
        offset: vec![0; grid.dims.len()],
        address,
        stored_size,
        filter_mask,
    }])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_record_or_none() {
        let g = ChunkGrid::new(vec![50], vec![50], vec![50], 4).unwrap();
        let r = records(Some(800), None, &g).unwrap();
        assert_eq!(r[0].stored_size, 200);
        let r = records(Some(800), Some((77, 0)), &g).unwrap();
        assert_eq!(r[0].stored_size, 77);
        assert!(records(None, None, &g).unwrap().is_empty());
    }
}
