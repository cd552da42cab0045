//! Compressed event columns: chunks cut from the pass-2 units, shuffled and deflated on the
//! thread that made them, and appended to the output in unit order (so the same inputs give
//! the same bytes). Chunks that straddle two units are assembled from their fragments and
//! appended at the end; then the chunk indexes and the final end of file are written.

use std::fs::File;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};

use sp::hdf5lite::filters::ShuffleDeflate;
use sp::hdf5lite::writer::{ChunkPlan, Placement, StoredChunk};
use sp::hdf5lite::ObjectId;

use crate::cli::local_file::write_at;

/// Units a thread may pack ahead of the oldest unwritten one before it waits.
const MAX_AHEAD: usize = 16;

/// Reusable buffers of one packing thread.
#[derive(Default)]
pub struct PackScratch {
    /// The compressor, made at the first chunk with the packer's level.
    z: Option<ShuffleDeflate>,
    padded: Vec<u8>,
    packed: Vec<u8>,
    out: Vec<u8>,
    sizes: Vec<(usize, u64, u32)>,
}

/// Part of a chunk made by one unit.
struct Fragment {
    column: usize,
    chunk: u64,
    /// Byte offset inside the chunk.
    offset: usize,
    bytes: Vec<u8>,
}

/// The packed chunks of one unit: their bytes back to back, and (column, chunk, size).
type PackedUnit = (Vec<u8>, Vec<(usize, u64, u32)>);

struct State {
    next_unit: usize,
    append_at: u64,
    chunks: [Vec<Option<StoredChunk>>; 2],
    /// Units packed ahead of their turn.
    ready: std::collections::BTreeMap<usize, PackedUnit>,
}

/// Packs the two event columns (start deltas, durations) of one output file.
pub struct Packer<'a> {
    file: &'a File,
    plans: [ChunkPlan; 2],
    ids: [ObjectId; 2],
    level: u8,
    state: Mutex<State>,
    turn: Condvar,
    fragments: Mutex<Vec<Fragment>>,
    aborted: AtomicBool,
}

impl<'a> Packer<'a> {
    /// A packer for the chunked datasets `ids` planned in `placement`.
    pub fn new(
        file: &'a File,
        placement: &Placement,
        ids: [ObjectId; 2],
        level: u8,
    ) -> Result<Self, String> {
        let plan = |id| {
            placement
                .chunked(id)
                .cloned()
                .ok_or_else(|| "event column is not chunked (internal error)".to_owned())
        };
        let plans = [plan(ids[0])?, plan(ids[1])?];
        let chunks = |p: &ChunkPlan| vec![None; p.chunks() as usize];
        Ok(Packer {
            file,
            state: Mutex::new(State {
                next_unit: 0,
                append_at: placement.eof,
                chunks: [chunks(&plans[0]), chunks(&plans[1])],
                ready: std::collections::BTreeMap::new(),
            }),
            plans,
            ids,
            level,
            turn: Condvar::new(),
            fragments: Mutex::new(Vec::new()),
            aborted: AtomicBool::new(false),
        })
    }

    /// Stops the packing: threads waiting for their turn give up.
    pub fn abort(&self) {
        self.aborted.store(true, Ordering::Relaxed);
        self.turn.notify_all();
    }

    /// Packs unit number `unit` (units are numbered from 0 in event order, each put once):
    /// events from `first_event` on, as raw little-endian bytes of both columns.
    pub fn put_unit(
        &self,
        unit: usize,
        first_event: u64,
        columns: [&[u8]; 2],
        s: &mut PackScratch,
    ) -> Result<(), String> {
        s.out.clear();
        s.sizes.clear();
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
                    self.pack(plan, bytes, s)?;
                    s.out.extend_from_slice(&s.packed);
                    s.sizes.push((column, c, s.packed.len() as u32));
                } else if let Ok(mut f) = self.fragments.lock() {
                    f.push(Fragment {
                        column,
                        chunk: c,
                        offset: ((lo - chunk_lo) * width) as usize,
                        bytes: bytes.to_vec(),
                    });
                }
            }
        }
        // Append this unit and any packed ahead of it once their turn has come; a unit
        // too far ahead waits, so the backlog stays small.
        let poisoned = |_| "packer poisoned (internal error)".to_owned();
        let mut state = self.state.lock().map_err(poisoned)?;
        while unit > state.next_unit + MAX_AHEAD {
            if self.aborted.load(Ordering::Relaxed) {
                return Err("stopped".into());
            }
            state = self.turn.wait(state).map_err(poisoned)?;
        }
        let packed = (std::mem::take(&mut s.out), std::mem::take(&mut s.sizes));
        state.ready.insert(unit, packed);
        let mut result = Ok(());
        let mut advanced = false;
        loop {
            let next = state.next_unit;
            let Some(packed) = state.ready.remove(&next) else {
                break;
            };
            if result.is_ok() {
                result = self.append(&mut state, &packed.0, &packed.1);
            }
            state.next_unit += 1;
            advanced = true;
        }
        drop(state);
        if advanced {
            self.turn.notify_all();
        }
        result
    }

    /// Shuffles and deflates one chunk's raw bytes (padded to a full chunk) into `s.packed`.
    fn pack(&self, plan: &ChunkPlan, raw: &[u8], s: &mut PackScratch) -> Result<(), String> {
        let full = plan.chunk_bytes() as usize;
        let input = if raw.len() == full {
            raw
        } else {
            s.padded.clear();
            s.padded.extend_from_slice(raw);
            s.padded.resize(full, 0);
            &s.padded
        };
        s.z.get_or_insert_with(|| ShuffleDeflate::new(self.level))
            .chunk(input, plan.element_size as usize, &mut s.packed)
            .map_err(|e| e.to_string())
    }

    /// Writes packed chunks at the end of the file and records them.
    fn append(
        &self,
        state: &mut State,
        out: &[u8],
        sizes: &[(usize, u64, u32)],
    ) -> Result<(), String> {
        let mut at = state.append_at;
        for &(column, chunk, size) in sizes {
            if let Some(slot) = state.chunks[column].get_mut(chunk as usize) {
                *slot = Some(StoredChunk { address: at, size });
            }
            at += u64::from(size);
        }
        write_at(self.file, state.append_at, out).map_err(|e| format!("cannot write: {e}"))?;
        state.append_at = at;
        Ok(())
    }

    /// Packs the chunks made of fragments, writes both chunk indexes and the end of file.
    pub fn finish(&self, placement: &Placement) -> Result<(), String> {
        let poisoned = |_| "packer poisoned (internal error)".to_owned();
        let mut state = self.state.lock().map_err(poisoned)?;
        let mut fragments = std::mem::take(
            &mut *self
                .fragments
                .lock()
                .map_err(|_| "packer poisoned (internal error)".to_owned())?,
        );
        fragments.sort_by_key(|f| (f.column, f.chunk, f.offset));
        let mut s = PackScratch::default();
        let mut i = 0;
        while i < fragments.len() {
            let (column, chunk) = (fragments[i].column, fragments[i].chunk);
            let plan = &self.plans[column];
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
            self.pack(plan, &raw, &mut s)?;
            let size = s.packed.len() as u32;
            self.append(&mut state, &s.packed, &[(column, chunk, size)])?;
        }
        let mut sink = crate::cli::local_file::FileSink(self.file);
        for (column, id) in self.ids.iter().enumerate() {
            let stored: Option<Vec<StoredChunk>> = state.chunks[column].iter().copied().collect();
            let stored =
                stored.ok_or_else(|| "a chunk was not written (internal error)".to_owned())?;
            placement
                .write_chunk_index(&mut sink, *id, &stored)
                .map_err(|e| format!("cannot write: {e}"))?;
        }
        placement
            .write_eof(&mut sink, state.append_at)
            .map_err(|e| format!("cannot write: {e}"))
    }
}
