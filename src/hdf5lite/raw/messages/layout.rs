//! The Data Storage - Layout Message (0x0008). Parses versions 1–2 minimally, version 3
//! (compact, contiguous, chunked with a v1 B-tree), version 4 (every chunk-index type's
//! parameters, virtual) and version 5 (HDF5 2.0: the version 4 body; what changes is inside
//! the chunk indexes, whose stored element sizes say how wide filtered chunk sizes are);
//! encodes version 3 contiguous and chunked.

use crate::hdf5lite::error::{Error, Result};
use crate::hdf5lite::raw::cursor::{Cursor, Encoder};

const CLASS_COMPACT: u8 = 0;
const CLASS_CONTIGUOUS: u8 = 1;
const CLASS_CHUNKED: u8 = 2;
const CLASS_VIRTUAL: u8 = 3;

/// How chunk addresses are indexed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChunkIndex {
    /// Version-1 B-tree, node type 1 (layout versions 1–3).
    BTreeV1,
    /// A single chunk; `filtered` holds its stored size and filter mask when filtered.
    SingleChunk { filtered: Option<(u64, u32)> },
    /// Chunks stored back to back, no index.
    Implicit,
    /// Fixed array.
    FixedArray { page_bits: u8 },
    /// Extensible array.
    ExtensibleArray {
        max_bits: u8,
        index_elements: u8,
        min_pointers: u8,
        min_elements: u8,
        page_bits: u8,
    },
    /// Version-2 B-tree.
    BTreeV2 {
        node_size: u32,
        split_percent: u8,
        merge_percent: u8,
    },
}

/// Where and how a dataset's raw data is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DataLayout {
    /// The data itself, inside the object header.
    Compact { data: Vec<u8> },
    /// One block; `address` is `None` (undefined) while nothing is allocated, e.g. for an
    /// empty dataset. For layout versions 1–2, `size` is the product of the stored dims.
    Contiguous { address: Option<u64>, size: u64 },
    /// Fixed-size chunks. `dims` are as stored: the chunk's size in elements per dimension
    /// followed by the element size in bytes. `flags` are the version-4 layout flags.
    Chunked {
        address: Option<u64>,
        dims: Vec<u64>,
        index: ChunkIndex,
        flags: u8,
    },
    /// A virtual dataset, described in the global heap.
    Virtual {
        heap_address: Option<u64>,
        index: u32,
    },
}

impl DataLayout {
    /// Parses a message body, versions 1–5.
    pub fn parse(c: &mut Cursor<'_>) -> Result<DataLayout> {
        let at = c.offset();
        let version = c.u8()?;
        match version {
            1 | 2 => parse_v1_v2(c),
            3..=5 => {
                let class = c.u8()?;
                match class {
                    CLASS_COMPACT => {
                        let size = c.u16()?;
                        Ok(DataLayout::Compact {
                            data: c.bytes(usize::from(size))?.to_vec(),
                        })
                    }
                    CLASS_CONTIGUOUS => Ok(DataLayout::Contiguous {
                        address: c.address()?,
                        size: c.length()?,
                    }),
                    CLASS_CHUNKED if version == 3 => {
                        let rank = c.u8()?;
                        let address = c.address()?;
                        let mut dims = Vec::new();
                        for _ in 0..rank {
                            dims.push(u64::from(c.u32()?));
                        }
                        Ok(DataLayout::Chunked {
                            address,
                            dims,
                            index: ChunkIndex::BTreeV1,
                            flags: 0,
                        })
                    }
                    CLASS_CHUNKED => parse_v4_chunked(c),
                    CLASS_VIRTUAL if version >= 4 => Ok(DataLayout::Virtual {
                        heap_address: c.address()?,
                        index: c.u32()?,
                    }),
                    k => Err(Error::format(format!("layout class {k}")).at(at)),
                }
            }
            v => Err(Error::unsupported(format!("layout message version {v}")).at(at)),
        }
    }

    /// Encodes a version 3 message body (compact, contiguous or v1-B-tree chunked).
    pub fn encode(&self, e: &mut Encoder) -> Result<()> {
        e.u8(3);
        match self {
            DataLayout::Compact { data } => {
                e.u8(CLASS_COMPACT);
                e.u16(
                    u16::try_from(data.len())
                        .map_err(|_| Error::usage("compact data over 64 KiB"))?,
                );
                e.bytes(data);
            }
            DataLayout::Contiguous { address, size } => {
                e.u8(CLASS_CONTIGUOUS);
                e.address(*address);
                e.length(*size);
            }
            DataLayout::Chunked {
                address,
                dims,
                index: ChunkIndex::BTreeV1,
                ..
            } => {
                e.u8(CLASS_CHUNKED);
                e.u8(u8::try_from(dims.len()).map_err(|_| Error::usage("chunk rank"))?);
                e.address(*address);
                for &d in dims {
                    e.u32(u32::try_from(d).map_err(|_| Error::usage("chunk dimension over u32"))?);
                }
            }
            _ => return Err(Error::usage("only v1-B-tree chunking encodes as layout v3")),
        }
        Ok(())
    }
}

fn parse_v1_v2(c: &mut Cursor<'_>) -> Result<DataLayout> {
    let at = c.offset();
    let rank = c.u8()?;
    let class = c.u8()?;
    c.skip(5)?; // reserved
    let address = if class == CLASS_COMPACT {
        None
    } else {
        c.address()?
    };
    let mut dims = Vec::new();
    for _ in 0..rank {
        dims.push(u64::from(c.u32()?));
    }
    match class {
        CLASS_COMPACT => {
            let size = c.u32()?;
            Ok(DataLayout::Compact {
                data: c.bytes(size as usize)?.to_vec(),
            })
        }
        CLASS_CONTIGUOUS => {
            let size = dims
                .iter()
                .try_fold(1u64, |acc, &d| acc.checked_mul(d))
                .ok_or_else(|| Error::format("contiguous layout size overflows").at(at))?;
            Ok(DataLayout::Contiguous { address, size })
        }
        CLASS_CHUNKED => {
            dims.push(u64::from(c.u32()?)); // dataset element size
            Ok(DataLayout::Chunked {
                address,
                dims,
                index: ChunkIndex::BTreeV1,
                flags: 0,
            })
        }
        k => Err(Error::format(format!("layout class {k}")).at(at)),
    }
}

fn parse_v4_chunked(c: &mut Cursor<'_>) -> Result<DataLayout> {
    let flags = c.u8()?;
    let rank = c.u8()?;
    let width = c.u8()?;
    if !(1..=8).contains(&width) {
        return Err(c.error(format!("chunk dimension width {width}")));
    }
    let mut dims = Vec::new();
    for _ in 0..rank {
        dims.push(c.uint(width)?);
    }
    let at = c.offset();
    let index = match c.u8()? {
        1 => ChunkIndex::SingleChunk {
            filtered: if flags & 0x02 != 0 {
                Some((c.length()?, c.u32()?))
            } else {
                None
            },
        },
        2 => ChunkIndex::Implicit,
        3 => ChunkIndex::FixedArray { page_bits: c.u8()? },
        4 => ChunkIndex::ExtensibleArray {
            max_bits: c.u8()?,
            index_elements: c.u8()?,
            min_pointers: c.u8()?,
            min_elements: c.u8()?,
            page_bits: c.u8()?,
        },
        5 => ChunkIndex::BTreeV2 {
            node_size: c.u32()?,
            split_percent: c.u8()?,
            merge_percent: c.u8()?,
        },
        t => return Err(Error::format(format!("chunk index type {t}")).at(at)),
    };
    Ok(DataLayout::Chunked {
        address: c.address()?,
        dims,
        index,
        flags,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdf5lite::raw::cursor::Widths;
    use crate::hdf5lite::ErrorKind;

    fn parse(bytes: &[u8]) -> Result<DataLayout> {
        let mut c = Cursor::new(bytes, 0, Widths::STANDARD);
        let l = DataLayout::parse(&mut c)?;
        assert_eq!(c.remaining(), 0);
        Ok(l)
    }

    fn enc(l: &DataLayout) -> Vec<u8> {
        let mut e = Encoder::new(Widths::STANDARD);
        l.encode(&mut e).unwrap();
        e.into_bytes()
    }

    #[test]
    fn v3_contiguous_and_empty() {
        let bytes = [
            3, 1, // version 3, contiguous
            0x00, 0x08, 0, 0, 0, 0, 0, 0, // address 2048
            72, 0, 0, 0, 0, 0, 0, 0, // size 72
        ];
        let l = DataLayout::Contiguous {
            address: Some(2048),
            size: 72,
        };
        assert_eq!(parse(&bytes).unwrap(), l);
        assert_eq!(enc(&l), bytes);
        let empty = DataLayout::Contiguous {
            address: None,
            size: 0,
        };
        assert_eq!(
            enc(&empty),
            [3, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0]
        );
        assert_eq!(parse(&enc(&empty)).unwrap(), empty);
    }

    #[test]
    fn v3_chunked_and_compact() {
        let bytes = [
            3, 2, // version 3, chunked
            2, // rank + 1
            0x58, 0x1a, 0, 0, 0, 0, 0, 0, // B-tree address 6744
            0, 4, 0, 0, // 1024 elements
            8, 0, 0, 0, // of 8 bytes
        ];
        let l = DataLayout::Chunked {
            address: Some(6744),
            dims: vec![1024, 8],
            index: ChunkIndex::BTreeV1,
            flags: 0,
        };
        assert_eq!(parse(&bytes).unwrap(), l);
        assert_eq!(enc(&l), bytes);
        let compact = [3, 0, 2, 0, 0xaa, 0xbb];
        assert_eq!(
            parse(&compact).unwrap(),
            DataLayout::Compact {
                data: vec![0xaa, 0xbb]
            }
        );
    }

    #[test]
    fn v4_chunk_indexes() {
        let mut ea = vec![
            4, 2, // version 4, chunked
            0, 2, 2, // flags, rank + 1, 2-byte dims
            0, 4, 8, 0, // 1024, 8
            4, // extensible array
            32, 4, 4, 16, 10, // parameters
        ];
        ea.extend_from_slice(&[0x10, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(
            parse(&ea).unwrap(),
            DataLayout::Chunked {
                address: Some(16),
                dims: vec![1024, 8],
                index: ChunkIndex::ExtensibleArray {
                    max_bits: 32,
                    index_elements: 4,
                    min_pointers: 4,
                    min_elements: 16,
                    page_bits: 10
                },
                flags: 0
            }
        );
        let mut single = vec![4, 2, 0x02, 2, 1, 16, 8, 1];
        single.extend_from_slice(&[100, 0, 0, 0, 0, 0, 0, 0]); // filtered size
        single.extend_from_slice(&[1, 0, 0, 0]); // filter mask
        single.extend_from_slice(&[0x20, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(
            parse(&single).unwrap(),
            DataLayout::Chunked {
                address: Some(32),
                dims: vec![16, 8],
                index: ChunkIndex::SingleChunk {
                    filtered: Some((100, 1))
                },
                flags: 2
            }
        );
        let mut bt2 = vec![4, 2, 0, 2, 1, 16, 8, 5, 0, 2, 0, 0, 100, 40];
        bt2.extend_from_slice(&[0xff; 8]);
        assert_eq!(
            parse(&bt2).unwrap(),
            DataLayout::Chunked {
                address: None,
                dims: vec![16, 8],
                index: ChunkIndex::BTreeV2 {
                    node_size: 512,
                    split_percent: 100,
                    merge_percent: 40
                },
                flags: 0
            }
        );
        let mut fa = vec![4, 2, 0, 2, 1, 16, 8, 3, 10];
        fa.extend_from_slice(&[8, 0, 0, 0, 0, 0, 0, 0]);
        assert!(matches!(
            parse(&fa).unwrap(),
            DataLayout::Chunked {
                index: ChunkIndex::FixedArray { page_bits: 10 },
                ..
            }
        ));
        let mut imp = vec![4, 2, 0, 2, 1, 16, 8, 2];
        imp.extend_from_slice(&[8, 0, 0, 0, 0, 0, 0, 0]);
        assert!(matches!(
            parse(&imp).unwrap(),
            DataLayout::Chunked {
                index: ChunkIndex::Implicit,
                ..
            }
        ));
    }

    #[test]
    fn v5_is_the_v4_body() {
        // The layout of tests/corpus/layout_v5.h5's /gzip (h5py on HDF5 2.0, libver latest).
        let mut bytes = vec![
            5, 2, // version 5, chunked
            0, 2, 1, // flags, rank + 1, 1-byte dims
            10, 4,  // 10 elements of 4 bytes
            3,  // fixed array
            10, // page bits
        ];
        bytes.extend_from_slice(&[0xbf, 0x01, 0, 0, 0, 0, 0, 0]); // index address 447
        assert_eq!(
            parse(&bytes).unwrap(),
            DataLayout::Chunked {
                address: Some(447),
                dims: vec![10, 4],
                index: ChunkIndex::FixedArray { page_bits: 10 },
                flags: 0
            }
        );
        let contiguous = [
            5, 1, // version 5, contiguous
            0x00, 0x08, 0, 0, 0, 0, 0, 0, // address 2048
            72, 0, 0, 0, 0, 0, 0, 0, // size 72
        ];
        assert_eq!(
            parse(&contiguous).unwrap(),
            DataLayout::Contiguous {
                address: Some(2048),
                size: 72
            }
        );
    }

    #[test]
    fn v1_contiguous_minimal() {
        let bytes = [
            1, 2, 1, 0, 0, 0, 0, 0, // version 1, 2 dims, contiguous, reserved
            0x30, 0, 0, 0, 0, 0, 0, 0, // address 48
            5, 0, 0, 0, 8, 0, 0, 0, // dims 5 × 8
        ];
        assert_eq!(
            parse(&bytes).unwrap(),
            DataLayout::Contiguous {
                address: Some(48),
                size: 40
            }
        );
    }

    #[test]
    fn errors() {
        assert_eq!(parse(&[6, 1]).unwrap_err().kind(), ErrorKind::Unsupported);
        assert_eq!(parse(&[3, 7]).unwrap_err().kind(), ErrorKind::Format);
        assert_eq!(
            parse(&[3, 0, 9, 0, 1]).unwrap_err().kind(),
            ErrorKind::Format
        );
    }
}
