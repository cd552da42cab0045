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
    let mut out = Vec::new();
    shuffle_into(data, element_size, &mut out);
    out
}

/// How a writer deflates its shuffled chunks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deflate {
    /// zlib's run-length strategy: matches of distance one only. On shuffled timestamps and
    /// durations it is smaller than the default strategy at any level and about twice as
    /// fast as level 4 (`bench/README.md`), since their byte planes are runs (the high bytes)
    /// or noise (the low ones) that longer matches do not shorten.
    Runs,
    /// zlib's default strategy at a level, 0 (stored) to 9; larger values are taken as 9.
    Level(u8),
}

impl std::str::FromStr for Deflate {
    type Err = String;

    /// `runs` or a level, 0–9 (`sp convert --compress=…`, the page's merge).
    fn from_str(value: &str) -> Result<Self, String> {
        match value {
            "runs" => Ok(Deflate::Runs),
            _ => value
                .parse()
                .ok()
                .and_then(Deflate::level)
                .ok_or_else(|| format!("{value:?} is not a level from 0 to 9 (or `runs`)")),
        }
    }
}

impl Deflate {
    /// zlib's default strategy at `level`; `None` past 9.
    pub fn level(level: u64) -> Option<Self> {
        u8::try_from(level)
            .ok()
            .filter(|&l| l <= 9)
            .map(Deflate::Level)
    }

    /// The level the deflate filter records. Readers ignore it; a later writer of the
    /// dataset (h5py extending it) compresses its chunks at it, so [`Deflate::Runs`]
    /// records 4, the reference's own level.
    pub fn recorded_level(self) -> u8 {
        match self {
            Deflate::Runs => 4,
            Deflate::Level(level) => level.min(9),
        }
    }

    fn config(self) -> zlib_rs::DeflateConfig {
        let (level, strategy) = match self {
            Deflate::Runs => (4, zlib_rs::Strategy::Rle),
            Deflate::Level(level) => (i32::from(level.min(9)), zlib_rs::Strategy::Default),
        };
        zlib_rs::DeflateConfig {
            level,
            strategy,
            ..zlib_rs::DeflateConfig::default()
        }
    }
}

/// The writer side of a shuffle + gzip pipeline: shuffles a chunk's bytes and deflates them
/// as a zlib stream. Holds the compressor and its buffers, reused from chunk to chunk.
pub struct ShuffleDeflate {
    z: zlib_rs::Deflate,
    shuffled: Vec<u8>,
    /// Room for the largest stream a chunk can give ([`zlib_rs::compress_bound`]).
    deflated: Vec<u8>,
}

impl ShuffleDeflate {
    /// A compressor that deflates as `how` says.
    pub fn new(how: Deflate) -> Self {
        ShuffleDeflate {
            z: zlib_rs::Deflate::new_with_config(how.config()),
            shuffled: Vec::new(),
            deflated: Vec::new(),
        }
    }

    /// Replaces `out` with the filtered bytes of one chunk `raw` of `element_size`-byte
    /// elements.
    pub fn chunk(&mut self, raw: &[u8], element_size: usize, out: &mut Vec<u8>) -> Result<()> {
        shuffle_into(raw, element_size, &mut self.shuffled);
        let bound = zlib_rs::compress_bound(raw.len());
        if self.deflated.len() < bound {
            self.deflated.resize(bound, 0);
        }
        self.z.reset();
        // With room for the bound, one call finishes the stream.
        let status = self
            .z
            .compress(
                &self.shuffled,
                &mut self.deflated,
                zlib_rs::DeflateFlush::Finish,
            )
            .map_err(|e| Error::usage(format!("deflate failed: {}", e.as_str())))?;
        if status != zlib_rs::Status::StreamEnd {
            return Err(Error::usage(
                "deflate did not finish a chunk within its bound",
            ));
        }
        let n = usize::try_from(self.z.total_out()).unwrap_or(usize::MAX);
        out.clear();
        out.extend_from_slice(self.deflated.get(..n).unwrap_or(&[]));
        Ok(())
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
        shuffle8(&raw[..done], &mut out[..done]);
    } else {
        for (i, elem) in raw[..done].chunks_exact(element_size).enumerate() {
            for (j, &b) in elem.iter().enumerate() {
                out[j * n + i] = b;
            }
        }
    }
    out[done..].copy_from_slice(&raw[done..]);
}

/// The shuffle of whole 8-byte elements: eight elements at a time as an 8×8 byte matrix,
/// transposed in three rounds of masked swaps on `u64`s, so each round trip through memory
/// moves eight bytes instead of one.
fn shuffle8(raw: &[u8], out: &mut [u8]) {
    let n = raw.len() / 8;
    let blocks = n / 8;
    for b in 0..blocks {
        let mut m = [0u64; 8];
        for (r, word) in m.iter_mut().enumerate() {
            let at = (b * 8 + r) * 8;
            *word = u64::from_le_bytes(raw[at..at + 8].try_into().unwrap_or([0; 8]));
        }
        transpose8(&mut m);
        for (plane, word) in m.iter().enumerate() {
            let at = plane * n + b * 8;
            out[at..at + 8].copy_from_slice(&word.to_le_bytes());
        }
    }
    for i in blocks * 8..n {
        for j in 0..8 {
            out[j * n + i] = raw[i * 8 + j];
        }
    }
}

/// Transposes the 8×8 byte matrix whose row `r` is `m[r]` (byte `c` of a row is its
/// column `c`, little-endian), so that afterwards `m[c]` holds column `c`: the 4×4 blocks
/// across the diagonal trade places, then the 2×2 blocks inside them, then single bytes.
fn transpose8(m: &mut [u64; 8]) {
    let [r0, r1, r2, r3, r4, r5, r6, r7] = m;
    for (a, b) in [(&mut *r0, &mut *r4), (r1, r5), (r2, r6), (r3, r7)] {
        trade(a, b, 32, 0x0000_0000_ffff_ffff);
    }
    let [r0, r1, r2, r3, r4, r5, r6, r7] = m;
    for (a, b) in [(r0, r2), (r1, r3), (r4, r6), (r5, r7)] {
        trade(a, b, 16, 0x0000_ffff_0000_ffff);
    }
    let [r0, r1, r2, r3, r4, r5, r6, r7] = m;
    for (a, b) in [(r0, r1), (r2, r3), (r4, r5), (r6, r7)] {
        trade(a, b, 8, 0x00ff_00ff_00ff_00ff);
    }
}

/// The columns of row `a` that `mask` clears trade places with the columns of row `b`
/// that it keeps, `shift` bits apart.
#[inline(always)]
fn trade(a: &mut u64, b: &mut u64, shift: u32, mask: u64) {
    let (x, y) = (*a, *b);
    *a = (x & mask) | ((y & mask) << shift);
    *b = ((x >> shift) & mask) | (y & !mask);
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

    /// HDF5's shuffle one byte at a time: byte `j` of element `i` goes to `j * n + i`.
    fn plain_shuffle(data: &[u8], element_size: usize) -> Vec<u8> {
        let n = data.len() / element_size;
        let mut out = data.to_vec();
        for (i, elem) in data.chunks_exact(element_size).enumerate() {
            for (j, &b) in elem.iter().enumerate() {
                out[j * n + i] = b;
            }
        }
        out
    }

    #[test]
    fn the_fast_shuffle_is_the_plain_one() {
        // Lengths around whole 8×8 blocks, with partial elements at the end.
        for len in [0usize, 7, 8, 63, 64, 65, 8 * 65 + 3, 8 * 8192] {
            let raw: Vec<u8> = (0..len).map(|i| (i * 131 % 251) as u8).collect();
            for element_size in [8usize, 4, 2] {
                let mut out = Vec::new();
                shuffle_into(&raw, element_size, &mut out);
                assert_eq!(
                    out,
                    plain_shuffle(&raw, element_size),
                    "{len} {element_size}"
                );
            }
        }
    }

    #[test]
    fn run_length_deflate_round_trips_and_records_level_4() {
        // Timestamps: high bytes constant, low bytes varied, as the event columns hold.
        let raw: Vec<u8> = (0..8192u64)
            .flat_map(|i| (4_412_742_838_873 + i * 1_000_003 + (i * i) % 977).to_le_bytes())
            .collect();
        let mut packed = Vec::new();
        let mut sizes = Vec::new();
        for how in [Deflate::Runs, Deflate::Level(4), Deflate::Level(0)] {
            ShuffleDeflate::new(how)
                .chunk(&raw, 8, &mut packed)
                .unwrap();
            assert_eq!(inflate(&packed, raw.len(), 0).unwrap(), shuffle(&raw, 8));
            sizes.push(packed.len());
        }
        assert!(sizes[0] < raw.len() / 2, "{sizes:?}");
        assert!(sizes[2] > raw.len(), "level 0 stores: {sizes:?}");
        assert_eq!(Deflate::Runs.recorded_level(), 4);
        assert_eq!(Deflate::Level(12).recorded_level(), 9);
    }

    #[test]
    fn shuffle_deflate_round_trips_through_the_reader_side() {
        let raw: Vec<u8> = (0..8 * 1000 + 5).map(|i| (i * 7 % 251) as u8).collect();
        let mut z = ShuffleDeflate::new(Deflate::Level(4));
        let mut packed = Vec::new();
        for element_size in [8usize, 4, 1] {
            z.chunk(&raw, element_size, &mut packed).unwrap();
            assert_eq!(&packed[..1], &[0x78]); // a zlib header
            let shuffled = inflate(&packed, raw.len(), 0).unwrap();
            assert_eq!(shuffled, shuffle(&raw, element_size));
            assert_eq!(unshuffle(&shuffled, element_size), raw);
        }
    }

    #[test]
    fn deflate_parses_runs_and_levels_only() {
        assert_eq!("runs".parse::<Deflate>(), Ok(Deflate::Runs));
        assert_eq!("0".parse::<Deflate>(), Ok(Deflate::Level(0)));
        assert_eq!("9".parse::<Deflate>(), Ok(Deflate::Level(9)));
        for bad in ["10", "-1", "fast", ""] {
            let err = bad.parse::<Deflate>().unwrap_err();
            assert!(err.contains("not a level from 0 to 9"), "{bad}: {err}");
        }
    }
}
