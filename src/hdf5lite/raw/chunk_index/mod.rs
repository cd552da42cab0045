//! Chunk indexes: where each chunk of a chunked dataset is stored. Layout v1–v3 files use a
//! v1 B-tree ([`btree_v1::chunks`](super::btree_v1::chunks)); layout v4 adds the index types
//! in this module. Every index yields the same [`ChunkRecord`]s, for the chunks that lie
//! inside the dataset's current extent and are allocated.

pub mod btree_v2;
pub mod extensible_array;
pub mod fixed_array;
pub mod implicit;
pub mod single_chunk;

use crate::hdf5lite::error::{Error, Result};

/// One stored chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkRecord {
    /// Coordinates of the chunk's first element, one per dataset dimension.
    pub offset: Vec<u64>,
    /// File address of the stored (filtered) bytes.
    pub address: u64,
    /// Number of stored bytes.
    pub stored_size: u64,
    /// Bit *i* set: filter *i* of the pipeline was not applied to this chunk.
    pub filter_mask: u32,
}

/// The chunking of a dataset: its extent, maximum extent and chunk shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkGrid {
    /// Current dimension sizes.
    pub dims: Vec<u64>,
    /// Maximum dimension sizes (`u64::MAX` = unlimited).
    pub max_dims: Vec<u64>,
    /// Chunk size in elements per dimension (all non-zero).
    pub chunk: Vec<u64>,
    /// Bytes per element.
    pub element_size: u64,
}

impl ChunkGrid {
    /// Checks the shapes agree and no chunk dimension is zero.
    pub fn new(
        dims: Vec<u64>,
        max_dims: Vec<u64>,
        chunk: Vec<u64>,
        element_size: u64,
    ) -> Result<Self> {
        if dims.len() != chunk.len() || max_dims.len() != dims.len() || chunk.contains(&0) {
            return Err(Error::format(format!(
                "chunk shape {chunk:?} does not fit a dataset of shape {dims:?}"
            )));
        }
        let grid = ChunkGrid {
            dims,
            max_dims,
            chunk,
            element_size,
        };
        grid.chunk_bytes()?;
        Ok(grid)
    }

    /// Bytes of one unfiltered chunk.
    pub fn chunk_bytes(&self) -> Result<u64> {
        self.chunk
            .iter()
            .try_fold(self.element_size, |acc, &d| acc.checked_mul(d))
            .ok_or_else(|| Error::format("chunk size overflows"))
    }

    /// Chunks per dimension covering `extent`.
    fn counts(&self, extent: &[u64]) -> Vec<u64> {
        extent
            .iter()
            .zip(&self.chunk)
            .map(|(&d, &c)| {
                if d == u64::MAX {
                    u64::MAX
                } else {
                    d.div_ceil(c)
                }
            })
            .collect()
    }

    /// Chunks per dimension over the current extent.
    pub fn current_counts(&self) -> Vec<u64> {
        self.counts(&self.dims)
    }

    /// Chunks per dimension over the maximum extent.
    pub fn max_counts(&self) -> Vec<u64> {
        self.counts(&self.max_dims)
    }

    /// Whether the chunk with scaled coordinates `scaled` starts inside the current extent.
    pub fn in_extent(&self, scaled: &[u64]) -> bool {
        scaled
            .iter()
            .zip(self.chunk.iter().zip(&self.dims))
            .all(|(&s, (&c, &d))| s.checked_mul(c).is_some_and(|o| o < d))
    }

    /// Element offset of the chunk with scaled coordinates `scaled`, if that chunk starts
    /// inside the current extent. Checked: an index entry whose offset would overflow is
    /// outside every extent, never a wrapped or saturated offset.
    pub fn offset_in_extent(&self, scaled: &[u64]) -> Option<Vec<u64>> {
        if scaled.len() != self.dims.len() {
            return None;
        }
        scaled
            .iter()
            .zip(self.chunk.iter().zip(&self.dims))
            .map(|(&s, (&c, &d))| s.checked_mul(c).filter(|&o| o < d))
            .collect()
    }
}

/// Scaled coordinates of linear index `i` in row-major order over `counts`.
pub(crate) fn unravel(mut i: u64, counts: &[u64]) -> Vec<u64> {
    let mut out = vec![0; counts.len()];
    for (k, &n) in counts.iter().enumerate().rev() {
        if k == 0 || n == 0 {
            out[k] = i;
            break;
        }
        out[k] = i % n;
        i /= n;
    }
    out
}

/// Decodes one array element of a chunk index (fixed and extensible arrays): an address,
/// and for filtered chunks the stored size and filter mask.
pub(crate) fn decode_element(
    c: &mut super::cursor::Cursor<'_>,
    filtered: bool,
    element_size: usize,
    chunk_bytes: u64,
) -> Result<Option<(u64, u64, u32)>> {
    let w = c.widths();
    let addr = c.address()?;
    if !filtered {
        return Ok(addr.map(|a| (a, chunk_bytes, 0)));
    }
    let size_len = element_size
        .checked_sub(usize::from(w.offset) + 4)
        .filter(|&n| (1..=8).contains(&n))
        .ok_or_else(|| c.error(format!("filtered chunk entry of {element_size} bytes")))?;
    let size = c.uint(size_len as u8)?;
    let mask = c.u32()?;
    Ok(addr.map(|a| (a, size, mask)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unravel_row_major() {
        assert_eq!(unravel(7, &[3, 4]), vec![1, 3]);
        assert_eq!(unravel(0, &[3, 4]), vec![0, 0]);
        assert_eq!(unravel(13, &[u64::MAX, 4]), vec![3, 1]);
    }

    #[test]
    fn grid_counts_and_extent() {
        let g = ChunkGrid::new(vec![5, 6], vec![8, u64::MAX], vec![2, 2], 4).unwrap();
        assert_eq!(g.current_counts(), vec![3, 3]);
        assert_eq!(g.max_counts(), vec![4, u64::MAX]);
        assert!(g.in_extent(&[2, 2]));
        assert!(!g.in_extent(&[3, 0]));
        assert_eq!(g.offset_in_extent(&[2, 1]), Some(vec![4, 2]));
        assert_eq!(g.offset_in_extent(&[3, 0]), None);
        assert_eq!(g.offset_in_extent(&[0, u64::MAX]), None);
        assert_eq!(g.offset_in_extent(&[0]), None);
        assert_eq!(g.chunk_bytes().unwrap(), 16);
        assert!(ChunkGrid::new(vec![5], vec![5], vec![0], 4).is_err());
    }
}
