//! Undoing the filter pipeline on one chunk, in reverse order, skipping each filter whose
//! bit is set in the chunk's filter mask: deflate (zlib), shuffle and Fletcher-32, n-bit and
//! scale-offset (libhdf5's own), lzf (h5py's) and zstd (hdf5plugin's), all in pure Rust.
//! Every decompressor writes into a buffer of the size the chunk must have, so a stream
//! that would produce more is malformed, never a larger allocation. Other filters are
//! reported as [`Unsupported`](super::ErrorKind::Unsupported) by id and name; the
//! dataset's description stays readable.
//!
//! The writer's side is [`ShuffleDeflate`].

mod bits;
pub mod lzf;
pub mod nbit;
pub mod scaleoffset;
pub mod zstd;

use flate2::{Decompress, FlushDecompress, Status};

use super::error::{Error, Result};

pub use super::raw::messages::filter_pipeline::{Filter, FilterId};

/// The customary name of a filter, for messages.
pub fn known_name(id: FilterId) -> Option<&'static str> {
    Some(match id.0 {
        1 => "deflate",
        2 => "shuffle",
        3 => "fletcher32",
        4 => "szip",
        5 => "nbit",
        6 => "scaleoffset",
        307 => "bzip2",
        32000 => "lzf",
        32001 => "blosc",
        32004 => "lz4",
        32015 => "zstd",
        _ => return None,
    })
}

/// Whether this crate can undo the filter.
pub fn is_supported(id: FilterId) -> bool {
    matches!(
        id,
        FilterId::DEFLATE
            | FilterId::SHUFFLE
            | FilterId::FLETCHER32
            | FilterId::NBIT
            | FilterId::SCALE_OFFSET
            | FilterId::LZF
            | FilterId::ZSTD
    )
}

/// A name for messages: the customary one, else the stored one, else "unknown" (stored
/// names are often long descriptions: "HDF5 zstd filter; see https://…").
pub fn display_name(f: &Filter) -> &str {
    known_name(f.id)
        .or(f.name.as_deref().filter(|n| !n.is_empty()))
        .unwrap_or("unknown")
}

/// Fails with `Unsupported` if any filter of the pipeline cannot be undone.
pub fn check_supported(filters: &[Filter]) -> Result<()> {
    match filters.iter().find(|f| !is_supported(f.id)) {
        Some(f) => Err(Error::unsupported(format!(
            "filter {} ({}) is not supported",
            f.id.0,
            display_name(f)
        ))),
        None => Ok(()),
    }
}

/// Undoes `filters` on one stored chunk. `mask` bit *i* set means filter *i* was not
/// applied. `chunk_len` is the exact unfiltered size; `element_size` is used by shuffle when
/// the pipeline stores no element size. `at` is the chunk's file offset, for errors.
pub fn decode_chunk(
    filters: &[Filter],
    mask: u32,
    stored: &[u8],
    chunk_len: usize,
    element_size: usize,
    at: u64,
) -> Result<Vec<u8>> {
    check_supported(filters)?;
    // Fletcher-32 adds 4 bytes; a zlib stream may decompress to at most the chunk plus the
    // checksums still to be removed after it.
    let mut data = stored.to_vec();
    for (i, f) in filters.iter().enumerate().rev() {
        if i < 32 && mask & (1 << i) != 0 {
            continue;
        }
        let later_checksums = filters[..i]
            .iter()
            .enumerate()
            .filter(|(j, g)| g.id == FilterId::FLETCHER32 && !(*j < 32 && mask & (1 << j) != 0))
            .count();
        let bound = chunk_len.saturating_add(4 * later_checksums);
        data = match f.id {
            FilterId::DEFLATE => inflate(&data, bound, at)?,
            FilterId::LZF => lzf::decode(&data, bound, at)?,
            FilterId::ZSTD => zstd::decode(&data, bound, at)?,
            FilterId::NBIT => nbit::decode(&data, &f.client_data, chunk_len, at)?,
            FilterId::SCALE_OFFSET => scaleoffset::decode(&data, &f.client_data, chunk_len, at)?,
            FilterId::SHUFFLE => {
                let es = match f.client_data.first() {
                    Some(&n) => usize::try_from(n).unwrap_or(usize::MAX),
                    None => element_size,
                };
                unshuffle(&data, es)
            }
            FilterId::FLETCHER32 => verify_fletcher32(data, at)?,
            other => {
                return Err(Error::unsupported(format!(
                    "filter {} is not supported",
                    other.0
                )))
            }
        };
    }
    if data.len() != chunk_len {
        return Err(Error::format(format!(
            "chunk decodes to {} bytes, expected {chunk_len}",
            data.len()
        ))
        .at(at));
    }
    Ok(data)
}

/// Inflates a zlib stream into at most `max_len` bytes; more is malformed. The caller checks
/// `max_len` against its limits: this allocates it.
pub fn inflate(input: &[u8], max_len: usize, at: u64) -> Result<Vec<u8>> {
    // One spare byte tells "exactly full" from "would overflow".
    let mut out = vec![0u8; max_len + 1];
    let mut z = Decompress::new(true);
    loop {
        let in_pos = z.total_in() as usize;
        let out_pos = z.total_out() as usize;
        let status = z
            .decompress(
                input.get(in_pos..).unwrap_or(&[]),
                out.get_mut(out_pos..).unwrap_or(&mut []),
                FlushDecompress::Finish,
            )
            .map_err(|e| Error::format(format!("deflate stream is corrupt: {e}")).at(at))?;
        let produced = z.total_out() as usize;
        if produced > max_len {
            return Err(Error::format(format!(
                "deflate stream decompresses to more than the {max_len} bytes expected"
            ))
            .at(at));
        }
        match status {
            Status::StreamEnd => {
                out.truncate(produced);
                return Ok(out);
            }
            Status::Ok | Status::BufError => {
                if z.total_in() as usize == in_pos && produced == out_pos {
                    return Err(Error::format("deflate stream is truncated").at(at));
                }
            }
        }
    }
}

/// Reverses the byte shuffle for elements of `element_size` bytes; trailing bytes that do
/// not fill an element were left in place.
pub fn unshuffle(data: &[u8], element_size: usize) -> Vec<u8> {
    if element_size <= 1 || data.len() < element_size {
        return data.to_vec();
    }
    let n = data.len() / element_size;
    let mut out = vec![0u8; data.len()];
    for (j, plane) in data.chunks_exact(n).take(element_size).enumerate() {
        for (i, &b) in plane.iter().enumerate() {
            out[i * element_size + j] = b;
        }
    }
    let done = n * element_size;
    out[done..].copy_from_slice(&data[done..]);
    out
}

/// The byte shuffle itself (for tests and writers).
pub fn shuffle(data: &[u8], element_size: usize) -> Vec<u8> {
    if element_size <= 1 || data.len() < element_size {
        return data.to_vec();
    }
    let n = data.len() / element_size;
    let mut out = vec![0u8; data.len()];
    for (i, elem) in data.chunks_exact(element_size).enumerate() {
        for (j, &b) in elem.iter().enumerate() {
            out[j * n + i] = b;
        }
    }
    let done = n * element_size;
    out[done..].copy_from_slice(&data[done..]);
    out
}

/// The writer side of a shuffle + gzip pipeline: shuffles a chunk's bytes and deflates them
/// as a zlib stream. Holds the compressor and a buffer, reused from chunk to chunk.
pub struct ShuffleDeflate {
    z: flate2::Compress,
    shuffled: Vec<u8>,
}

impl ShuffleDeflate {
    /// A compressor at zlib `level` (0–9; higher values are taken as 9).
    pub fn new(level: u8) -> Self {
        ShuffleDeflate {
            z: flate2::Compress::new(flate2::Compression::new(u32::from(level.min(9))), true),
            shuffled: Vec::new(),
        }
    }

    /// Replaces `out` with the filtered bytes of one chunk `raw` of `element_size`-byte
    /// elements.
    pub fn chunk(&mut self, raw: &[u8], element_size: usize, out: &mut Vec<u8>) -> Result<()> {
        shuffle_into(raw, element_size, &mut self.shuffled);
        out.clear();
        out.reserve(raw.len() / 2 + 64);
        self.z.reset();
        loop {
            let consumed = usize::try_from(self.z.total_in()).unwrap_or(usize::MAX);
            let rest = self.shuffled.get(consumed..).unwrap_or(&[]);
            let status = self
                .z
                .compress_vec(rest, out, flate2::FlushCompress::Finish)
                .map_err(|e| Error::usage(format!("deflate failed: {e}")))?;
            if status == Status::StreamEnd {
                return Ok(());
            }
            out.reserve(out.capacity().max(4096));
        }
    }
}

/// [`shuffle`] into a reused buffer, with a fast path for 8-byte elements.
fn shuffle_into(raw: &[u8], element_size: usize, out: &mut Vec<u8>) {
    out.resize(raw.len(), 0);
    if element_size <= 1 || raw.len() < element_size {
        out.copy_from_slice(raw);
        return;
    }
    let n = raw.len() / element_size;
    let done = n * element_size;
    if element_size == 8 {
        let (planes, tail) = out.split_at_mut(done);
        let mut p: Vec<&mut [u8]> = planes.chunks_exact_mut(n).collect();
        if let [p0, p1, p2, p3, p4, p5, p6, p7] = p.as_mut_slice() {
            for (i, elem) in raw[..done].chunks_exact(8).enumerate() {
                let e: [u8; 8] = elem.try_into().unwrap_or([0; 8]);
                p0[i] = e[0];
                p1[i] = e[1];
                p2[i] = e[2];
                p3[i] = e[3];
                p4[i] = e[4];
                p5[i] = e[5];
                p6[i] = e[6];
                p7[i] = e[7];
            }
        }
        tail.copy_from_slice(&raw[done..]);
        return;
    }
    for (i, elem) in raw.chunks_exact(element_size).enumerate() {
        for (j, &b) in elem.iter().enumerate() {
            out[j * n + i] = b;
        }
    }
    out[done..].copy_from_slice(&raw[done..]);
}

/// HDF5's Fletcher-32 over big-endian 16-bit words (an odd last byte is the high byte).
pub fn fletcher32(data: &[u8]) -> u32 {
    let mut sum1: u64 = 0;
    let mut sum2: u64 = 0;
    let mut words = data.chunks(2).peekable();
    while words.peek().is_some() {
        // At most 360 words between reductions keeps the sums from overflowing.
        for w in words.by_ref().take(360) {
            let v = (u64::from(w[0]) << 8) | u64::from(w.get(1).copied().unwrap_or(0));
            sum1 += v;
            sum2 += sum1;
        }
        sum1 = (sum1 & 0xffff) + (sum1 >> 16);
        sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    }
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    ((sum2 << 16) | sum1) as u32
}

/// Checks and strips the trailing Fletcher-32 checksum of a chunk.
fn verify_fletcher32(mut data: Vec<u8>, at: u64) -> Result<Vec<u8>> {
    let Some(split) = data.len().checked_sub(4) else {
        return Err(Error::format("chunk is too short for its Fletcher-32 checksum").at(at));
    };
    let stored = u32::from_le_bytes([
        data[split],
        data[split + 1],
        data[split + 2],
        data[split + 3],
    ]);
    data.truncate(split);
    let computed = fletcher32(&data);
    if stored != computed {
        return Err(Error::new(
            super::ErrorKind::Checksum,
            format!("Fletcher-32 mismatch: stored {stored:#010x}, computed {computed:#010x}"),
        )
        .at(at));
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdf5lite::ErrorKind;
    use flate2::{write::ZlibEncoder, Compression};
    use std::io::Write;

    fn zlib(data: &[u8]) -> Vec<u8> {
        let mut e = ZlibEncoder::new(Vec::new(), Compression::new(4));
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn filter(id: FilterId, client_data: &[u32]) -> Filter {
        Filter {
            id,
            name: None,
            flags: 1,
            client_data: client_data.to_vec(),
        }
    }

    #[test]
    fn shuffle_round_trips_with_a_ragged_tail() {
        let data: Vec<u8> = (0..19).collect();
        let s = shuffle(&data, 4);
        assert_eq!(&s[..8], &[0, 4, 8, 12, 1, 5, 9, 13]);
        assert_eq!(&s[16..], &[16, 17, 18]);
        assert_eq!(unshuffle(&s, 4), data);
    }

    #[test]
    fn shuffle_then_deflate_is_undone() {
        let data: Vec<u8> = (0..64u64).flat_map(|v| v.to_le_bytes()).collect();
        let stored = zlib(&shuffle(&data, 8));
        let pipeline = [
            filter(FilterId::SHUFFLE, &[8]),
            filter(FilterId::DEFLATE, &[4]),
        ];
        assert_eq!(
            decode_chunk(&pipeline, 0, &stored, 512, 8, 0).unwrap(),
            data
        );
    }

    #[test]
    fn mask_skips_shuffle() {
        let data = b"variable length descriptors.....".to_vec();
        let stored = zlib(&data);
        let pipeline = [
            filter(FilterId::SHUFFLE, &[]),
            filter(FilterId::DEFLATE, &[4]),
        ];
        assert_eq!(
            decode_chunk(&pipeline, 1, &stored, data.len(), 16, 0).unwrap(),
            data
        );
    }

    #[test]
    fn oversized_stream_is_malformed() {
        let stored = zlib(&[7u8; 100]);
        let err =
            decode_chunk(&[filter(FilterId::DEFLATE, &[])], 0, &stored, 50, 1, 64).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Format);
        assert_eq!(err.offset(), Some(64));
    }

    #[test]
    fn truncated_stream_is_malformed() {
        let mut stored = zlib(&(0..200u8).collect::<Vec<_>>());
        stored.truncate(stored.len() / 2);
        let err = inflate(&stored, 200, 0).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Format);
    }

    #[test]
    fn fletcher32_known_values() {
        // Big-endian words 0x0102, 0x0300: sum1 = 0x0402, sum2 = 0x0102 + 0x0402 = 0x0504.
        assert_eq!(fletcher32(&[1, 2, 3]), 0x0504_0402);
        let mut chunk = vec![1u8, 2, 3, 4];
        chunk.extend_from_slice(&fletcher32(&[1, 2, 3, 4]).to_le_bytes());
        let pipeline = [filter(FilterId::FLETCHER32, &[])];
        assert_eq!(
            decode_chunk(&pipeline, 0, &chunk, 4, 1, 0).unwrap(),
            vec![1, 2, 3, 4]
        );
        chunk[0] ^= 1;
        assert_eq!(
            decode_chunk(&pipeline, 0, &chunk, 4, 1, 0)
                .unwrap_err()
                .kind(),
            ErrorKind::Checksum
        );
    }

    #[test]
    fn unknown_filter_is_named() {
        let f = [filter(FilterId::SZIP, &[])];
        let err = decode_chunk(&f, 0, &[], 0, 1, 0).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Unsupported);
        assert_eq!(err.message(), "filter 4 (szip) is not supported");
    }

    #[test]
    fn lzf_under_shuffle() {
        // Shuffled bytes of two u16 values 0x0101, 0x0101: "\x01\x01\x01\x01", as LZF:
        // a literal of one byte and a back reference of 3 at distance 1.
        let stored = [0x00, 0x01, 0x20, 0x00];
        let pipeline = [filter(FilterId::SHUFFLE, &[2]), filter(FilterId::LZF, &[])];
        assert_eq!(
            decode_chunk(&pipeline, 0, &stored, 4, 2, 0).unwrap(),
            [1, 1, 1, 1]
        );
        // A stream that would pass the chunk's size is malformed.
        let err = decode_chunk(&pipeline, 0, &stored, 3, 2, 0).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Format);
    }

    #[test]
    fn shuffle_deflate_round_trips_through_the_reader_side() {
        let raw: Vec<u8> = (0..8 * 1000 + 5).map(|i| (i * 7 % 251) as u8).collect();
        let mut z = ShuffleDeflate::new(4);
        let mut packed = Vec::new();
        for element_size in [8usize, 4, 1] {
            z.chunk(&raw, element_size, &mut packed).unwrap();
            assert_eq!(&packed[..1], &[0x78]); // a zlib header
            let shuffled = inflate(&packed, raw.len(), 0).unwrap();
            assert_eq!(shuffled, shuffle(&raw, element_size));
            assert_eq!(unshuffle(&shuffled, element_size), raw);
        }
    }
}
