//! Compressed event columns: each pass-2 unit's bytes are cut into the columns' chunks and
//! shuffled and deflated by the job that made them ([`Packer::pack`], any thread); a
//! [`ChunkAppender`] then appends the packed units to the end of the output in unit order,
//! so the same inputs give the same bytes. Chunks that straddle two units are kept as
//! fragments, assembled and appended at the end; last come the chunk indexes and the final
//! end of file. Memory: one packed unit per job in flight, plus the straddling fragments
//! (under one chunk per unit).

use crate::hdf5lite::filters::{Deflate, ShuffleDeflate};
use crate::hdf5lite::writer::{ChunkPlan, Placement, StoredChunk};
use crate::hdf5lite::ObjectId;
use crate::io::WriteAt;
use crate::sort::SortSlice;

use super::error::Error;

/// Reusable buffers of one packing thread.
#[derive(Default)]
pub(crate) struct PackScratch {
    /// The compressor, made at the first chunk with the packer's level.
    z: Option<ShuffleDeflate>,
    padded: Vec<u8>,
    packed: Vec<u8>,
}

/// Part of a chunk made by one unit.
#[derive(Debug, Clone)]
struct Fragment {
    column: usize,
    chunk: u64,
    /// Byte offset inside the chunk.
    offset: usize,
    bytes: Vec<u8>,
}

/// The compressed chunks of one unit (back to back, with their column, chunk number and
/// size), and the pieces of chunks it shares with its neighbours.
#[derive(Debug, Clone)]
pub struct PackedUnit {
    unit: usize,
    bytes: Vec<u8>,
    chunks: Vec<(usize, u64, u32)>,
    fragments: Vec<Fragment>,
}

impl PackedUnit {
    /// The unit's number.
    pub fn unit(&self) -> usize {
        self.unit
    }
}

/// Cuts and compresses the two event columns (start deltas, durations) of one output.
#[derive(Debug)]
pub(crate) struct Packer {
    plans: [ChunkPlan; 2],
    ids: [ObjectId; 2],
    deflate: Deflate,
}

impl Packer {
    /// A packer for the chunked datasets `ids` planned in `placement`.
    pub fn new(placement: &Placement, ids: [ObjectId; 2], deflate: Deflate) -> Result<Self, Error> {
        let plan = |id| {
            placement
                .chunked(id)
                .cloned()
                .ok_or(Error::Internal("an event column is not chunked"))
        };
        Ok(Packer {
            plans: [plan(ids[0])?, plan(ids[1])?],
            ids,
            deflate,
        })
    }

    /// Packs unit number `unit`: events from `first_event` on, as the raw little-endian
    /// bytes of both columns.
    pub fn pack(
        &self,
        unit: usize,
        first_event: u64,
        columns: [&[u8]; 2],
        s: &mut PackScratch,
    ) -> Result<PackedUnit, Error> {
        let mut packed = PackedUnit {
            unit,
            bytes: Vec::new(),
            chunks: Vec::new(),
            fragments: Vec::new(),
        };
        for (column, raw) in columns.iter().enumerate() {
            let plan = &self.plans[column];
            let per = plan.chunk_elements;
            let width = plan.element_size;
            let n = raw.len() as u64 / width;
            if n == 0 {
                continue;
            }
            let (g0, g1) = (first_event, first_event + n);
            for c in g0 / per..=(g1 - 1) / per {
                let chunk_lo = c * per;
                let chunk_hi = ((c + 1) * per).min(plan.len);
                let lo = g0.max(chunk_lo);
                let hi = g1.min(chunk_hi);
                let bytes = &raw[((lo - g0) * width) as usize..((hi - g0) * width) as usize];
                if lo == chunk_lo && hi == chunk_hi {
                    self.compress(plan, bytes, s)?;
                    packed.bytes.extend_from_slice(&s.packed);
                    packed.chunks.push((column, c, s.packed.len() as u32));
                } else {
                    packed.fragments.push(Fragment {
                        column,
                        chunk: c,
                        offset: ((lo - chunk_lo) * width) as usize,
                        bytes: bytes.to_vec(),
                    });
                }
            }
        }
        Ok(packed)
    }

    /// Shuffles and deflates one chunk's raw bytes (padded to a full chunk) into `s.packed`.
    fn compress(&self, plan: &ChunkPlan, raw: &[u8], s: &mut PackScratch) -> Result<(), Error> {
        let full = plan.chunk_bytes() as usize;
        let input = if raw.len() == full {
            raw
        } else {
            s.padded.clear();
            s.padded.extend_from_slice(raw);
            s.padded.resize(full, 0);
            &s.padded
        };
        s.z.get_or_insert_with(|| ShuffleDeflate::new(self.deflate))
            .chunk(input, plan.element_size as usize, &mut s.packed)
            .map_err(Error::Encode)
    }
}

/// Appends packed units to the end of the output, strictly in unit order, and records
/// where each chunk went.
#[derive(Debug)]
pub struct ChunkAppender {
    next_unit: usize,
    append_at: u64,
    chunks: [Vec<Option<StoredChunk>>; 2],
    fragments: Vec<Fragment>,
}

impl ChunkAppender {
    pub(crate) fn new(packer: &Packer, placement: &Placement) -> Self {
        let chunks = |p: &ChunkPlan| vec![None; p.chunks() as usize];
        ChunkAppender {
            next_unit: 0,
            append_at: placement.eof,
            chunks: [chunks(&packer.plans[0]), chunks(&packer.plans[1])],
            fragments: Vec::new(),
        }
    }

    /// The number of the unit [`append`](Self::append) takes next.
    pub fn next_unit(&self) -> usize {
        self.next_unit
    }

    /// Writes the packed unit numbered [`next_unit`](Self::next_unit) at the end of `out`.
    pub fn append<W: WriteAt + ?Sized>(
        &mut self,
        packed: PackedUnit,
        out: &mut W,
    ) -> Result<(), Error> {
        if packed.unit != self.next_unit {
            return Err(Error::Internal("a packed unit was appended out of order"));
        }
        self.write(&packed.bytes, &packed.chunks, out)?;
        self.fragments.extend(packed.fragments);
        self.next_unit += 1;
        Ok(())
    }

    fn write<W: WriteAt + ?Sized>(
        &mut self,
        bytes: &[u8],
        chunks: &[(usize, u64, u32)],
        out: &mut W,
    ) -> Result<(), Error> {
        let mut at = self.append_at;
        for &(column, chunk, size) in chunks {
            if let Some(slot) = self.chunks[column].get_mut(chunk as usize) {
                *slot = Some(StoredChunk { address: at, size });
            }
            at += u64::from(size);
        }
        out.write_all_at(self.append_at, bytes)
            .map_err(Error::Write)?;
        self.append_at = at;
        Ok(())
    }

    /// Packs the chunks made of fragments, then writes both chunk indexes and the end of
    /// file.
    pub(crate) fn finish<W: WriteAt + ?Sized>(
        mut self,
        packer: &Packer,
        placement: &Placement,
        out: &mut W,
    ) -> Result<(), Error> {
        let mut fragments = std::mem::take(&mut self.fragments);
        fragments.sort_stable_by_key(|f| (f.column, f.chunk, f.offset));
        let mut s = PackScratch::default();
        let mut i = 0;
        while i < fragments.len() {
            let (column, chunk) = (fragments[i].column, fragments[i].chunk);
            let plan = &packer.plans[column];
            let mut raw = vec![0u8; plan.chunk_bytes() as usize];
            while let Some(f) = fragments
                .get(i)
                .filter(|f| (f.column, f.chunk) == (column, chunk))
            {
                if let Some(dst) = raw.get_mut(f.offset..f.offset + f.bytes.len()) {
                    dst.copy_from_slice(&f.bytes);
                }
                i += 1;
            }
            packer.compress(plan, &raw, &mut s)?;
            let size = s.packed.len() as u32;
            let packed = std::mem::take(&mut s.packed);
            self.write(&packed, &[(column, chunk, size)], out)?;
            s.packed = packed;
        }
        for (column, id) in packer.ids.iter().enumerate() {
            let stored: Option<Vec<StoredChunk>> = self.chunks[column].iter().copied().collect();
            let stored = stored.ok_or(Error::Internal("a chunk was not written"))?;
            placement
                .write_chunk_index(out, *id, &stored)
                .map_err(Error::Encode)?;
        }
        placement
            .write_eof(out, self.append_at)
            .map_err(Error::Encode)
    }
}
