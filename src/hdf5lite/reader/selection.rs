//! References and the dataspace selections of region references: what a reference value
//! points at, decoded from the serialized selection libhdf5 stores in the global heap.

use crate::hdf5lite::error::{Error, Result};
use crate::hdf5lite::raw::cursor::Cursor;

/// The value of a reference element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reference {
    /// A reference that points nowhere.
    Null,
    /// An object, by the address of its header and (when the file reaches it by some path)
    /// its first path, depth first with names in order.
    Object { address: u64, path: Option<String> },
    /// A selection of a dataset's elements.
    Region {
        address: u64,
        path: Option<String>,
        selection: Selection,
    },
}

/// Which elements of a dataset a region reference selects. Coordinates are zero-based,
/// one per dimension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    /// No element.
    None,
    /// Every element.
    All,
    /// These elements, in order.
    Points(Vec<Vec<u64>>),
    /// Rectangular blocks, each from its first to its last element (both included).
    Blocks(Vec<(Vec<u64>, Vec<u64>)>),
}

impl std::fmt::Display for Reference {
    /// As h5dump shows a reference: the target's path (with its region, for a region
    /// reference), `NULL`, or the address of an object no path reaches.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let target =
            |f: &mut std::fmt::Formatter<'_>, address: &u64, path: &Option<String>| match path {
                Some(p) => f.write_str(p),
                None => write!(f, "<object at {address}>"),
            };
        match self {
            Reference::Null => f.write_str("NULL"),
            Reference::Object { address, path } => target(f, address, path),
            Reference::Region {
                address,
                path,
                selection,
            } => {
                target(f, address, path)?;
                write!(f, " {selection}")
            }
        }
    }
}

impl std::fmt::Display for Selection {
    /// `{(1,2)-(2,3), …}` for blocks, `{(1,2), …}` for points, `{ALL}` or `{NONE}`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let coords = |c: &[u64]| {
            let parts: Vec<String> = c.iter().map(u64::to_string).collect();
            format!("({})", parts.join(","))
        };
        let items: Vec<String> = match self {
            Selection::None => return f.write_str("{NONE}"),
            Selection::All => return f.write_str("{ALL}"),
            Selection::Points(p) => p.iter().map(|p| coords(p)).collect(),
            Selection::Blocks(b) => b
                .iter()
                .map(|(lo, hi)| format!("{}-{}", coords(lo), coords(hi)))
                .collect(),
        };
        write!(f, "{{{}}}", items.join(", "))
    }
}

const NONE: u32 = 0;
const POINTS: u32 = 1;
const HYPERSLAB: u32 = 2;
const ALL: u32 = 3;
/// Most dimensions a dataspace has.
const MAX_RANK: u32 = 32;

impl Selection {
    /// Parses a serialized selection (type, version, then its version's fields), accepting
    /// at most `limit` points or blocks.
    pub fn parse(c: &mut Cursor<'_>, limit: u32) -> Result<Selection> {
        let at = c.offset();
        let kind = c.u32()?;
        let version = c.u32()?;
        match (kind, version) {
            (NONE | ALL, 1 | 2) => {
                c.skip(8)?; // reserved, length
                Ok(if kind == NONE {
                    Selection::None
                } else {
                    Selection::All
                })
            }
            (POINTS, 1) => {
                c.skip(8)?; // reserved, length
                let rank = rank(c)?;
                let n = count(c, 4, limit, at)?;
                Ok(Selection::Points(coordinates(c, n, rank, 4)?))
            }
            (POINTS, 2) => {
                let width = width(c)?;
                let rank = rank(c)?;
                let n = count(c, width, limit, at)?;
                Ok(Selection::Points(coordinates(c, n, rank, width)?))
            }
            (HYPERSLAB, 1) => {
                c.skip(8)?; // reserved, length
                let rank = rank(c)?;
                let n = count(c, 4, limit, at)?;
                Ok(Selection::Blocks(blocks(c, n, rank, 4)?))
            }
            (HYPERSLAB, 2) => {
                let flags = c.u8()?;
                c.skip(4)?; // length
                let rank = rank(c)?;
                if flags & 1 == 0 {
                    return Err(c.error("version 2 hyperslab selection that is not regular"));
                }
                regular(c, rank, 8, limit)
            }
            (HYPERSLAB, 3) => {
                let flags = c.u8()?;
                let width = width(c)?;
                let rank = rank(c)?;
                if flags & 1 != 0 {
                    regular(c, rank, width, limit)
                } else {
                    let n = count(c, width, limit, at)?;
                    Ok(Selection::Blocks(blocks(c, n, rank, width)?))
                }
            }
            (k, v) => Err(Error::unsupported(format!(
                "dataspace selection of type {k}, version {v}"
            ))
            .at(at)),
        }
    }
}

fn rank(c: &mut Cursor<'_>) -> Result<usize> {
    match c.u32()? {
        r @ 1..=MAX_RANK => Ok(r as usize),
        r => Err(c.error(format!("selection of rank {r}"))),
    }
}

fn width(c: &mut Cursor<'_>) -> Result<u8> {
    match c.u8()? {
        w @ (2 | 4 | 8) => Ok(w),
        w => Err(c.error(format!("selection encoded in {w}-byte fields"))),
    }
}

/// A point or block count, checked against `limit` and the bytes left (each takes at
/// least one field).
fn count(c: &mut Cursor<'_>, width: u8, limit: u32, at: u64) -> Result<usize> {
    let n = c.uint(width)?;
    if n > u64::from(limit) {
        return Err(Error::limits(format!("selection of {n} points or blocks")).at(at));
    }
    if n > c.remaining() as u64 {
        return Err(c.error(format!("selection of {n} points in a short heap object")));
    }
    Ok(n as usize)
}

fn coordinates(c: &mut Cursor<'_>, n: usize, rank: usize, width: u8) -> Result<Vec<Vec<u64>>> {
    let mut out = Vec::new();
    for _ in 0..n {
        out.push(point(c, rank, width)?);
    }
    Ok(out)
}

fn point(c: &mut Cursor<'_>, rank: usize, width: u8) -> Result<Vec<u64>> {
    (0..rank).map(|_| c.uint(width)).collect()
}

fn blocks(
    c: &mut Cursor<'_>,
    n: usize,
    rank: usize,
    width: u8,
) -> Result<Vec<(Vec<u64>, Vec<u64>)>> {
    let mut out = Vec::new();
    for _ in 0..n {
        out.push((point(c, rank, width)?, point(c, rank, width)?));
    }
    Ok(out)
}

/// A regular hyperslab (start, stride, count and block per dimension), listed as its
/// blocks in row-major order, as libhdf5's block list gives them.
fn regular(c: &mut Cursor<'_>, rank: usize, width: u8, limit: u32) -> Result<Selection> {
    let at = c.offset();
    let mut dims = Vec::new();
    for _ in 0..rank {
        let start = c.uint(width)?;
        let stride = c.uint(width)?;
        let count = c.uint(width)?;
        let block = c.uint(width)?;
        dims.push((start, stride, count, block));
    }
    let total = dims
        .iter()
        .try_fold(1u64, |acc, d| acc.checked_mul(d.2))
        .filter(|&n| n <= u64::from(limit))
        .ok_or_else(|| Error::limits("a regular hyperslab of too many blocks").at(at))?;
    let mut out = Vec::new();
    let mut index = vec![0u64; rank];
    for _ in 0..total {
        let mut first = Vec::with_capacity(rank);
        let mut last = Vec::with_capacity(rank);
        for (i, &(start, stride, _, block)) in dims.iter().enumerate() {
            let lo = index[i]
                .checked_mul(stride)
                .and_then(|o| o.checked_add(start))
                .ok_or_else(|| Error::format("hyperslab coordinate overflows").at(at))?;
            let hi = lo
                .checked_add(block.saturating_sub(1))
                .ok_or_else(|| Error::format("hyperslab coordinate overflows").at(at))?;
            first.push(lo);
            last.push(hi);
        }
        out.push((first, last));
        for i in (0..rank).rev() {
            index[i] += 1;
            if index[i] < dims[i].2 {
                break;
            }
            index[i] = 0;
        }
    }
    Ok(Selection::Blocks(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdf5lite::raw::cursor::Widths;
    use crate::hdf5lite::ErrorKind;

    fn parse(bytes: &[u8]) -> Result<Selection> {
        Selection::parse(&mut Cursor::new(bytes, 0, Widths::STANDARD), 100)
    }

    fn words(w: &[u32]) -> Vec<u8> {
        w.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    /// What h5py wrote for `dset.regionref[1:3, 2:4]` (after the 8-byte object address).
    #[test]
    fn hyperslab_v1_as_libhdf5_writes_it() {
        let bytes = words(&[
            2, 1, // hyperslab, version 1
            0, 24, // reserved, length
            2, 1, // rank 2, one block
            1, 2, 2, 3, // from (1, 2) to (2, 3)
        ]);
        assert_eq!(
            parse(&bytes).unwrap(),
            Selection::Blocks(vec![(vec![1, 2], vec![2, 3])])
        );
    }

    #[test]
    fn points_v1_and_v2() {
        let v1 = words(&[1, 1, 0, 20, 1, 2, 5, 7]);
        assert_eq!(
            parse(&v1).unwrap(),
            Selection::Points(vec![vec![5], vec![7]])
        );
        let mut v2 = words(&[1, 2]);
        v2.push(2); // 2-byte fields
        v2.extend_from_slice(&2u32.to_le_bytes()); // rank 2
        v2.extend_from_slice(&[1, 0, 3, 0, 4, 0]); // one point: (3, 4)
        assert_eq!(parse(&v2).unwrap(), Selection::Points(vec![vec![3, 4]]));
    }

    #[test]
    fn regular_hyperslab_v3_lists_its_blocks() {
        let mut bytes = words(&[2, 3]);
        bytes.extend_from_slice(&[1, 4]); // regular, 4-byte fields
        bytes.extend_from_slice(&1u32.to_le_bytes()); // rank 1
        bytes.extend_from_slice(&words(&[1, 5, 3, 2])); // start 1, stride 5, count 3, block 2
        assert_eq!(
            parse(&bytes).unwrap(),
            Selection::Blocks(vec![
                (vec![1], vec![2]),
                (vec![6], vec![7]),
                (vec![11], vec![12])
            ])
        );
    }

    #[test]
    fn all_none_and_hostile_counts() {
        assert_eq!(parse(&words(&[3, 1, 0, 0])).unwrap(), Selection::All);
        assert_eq!(parse(&words(&[0, 1, 0, 0])).unwrap(), Selection::None);
        let many = words(&[1, 1, 0, 0, 1, 1_000_000]);
        assert_eq!(parse(&many).unwrap_err().kind(), ErrorKind::LimitsExceeded);
        let short = words(&[1, 1, 0, 0, 1, 50]);
        assert_eq!(parse(&short).unwrap_err().kind(), ErrorKind::Format);
        assert_eq!(
            parse(&words(&[9, 1])).unwrap_err().kind(),
            ErrorKind::Unsupported
        );
    }
}
