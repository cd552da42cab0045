//! Chunked reads: the chunk index walked once, the chunks a range touches read with chunks
//! adjacent in the file merged into one read (a browser `Blob` read costs about a
//! millisecond, however small), each undone through the filter pipeline and copied into
//! place.

use crate::sort::SortSlice;
use std::cell::RefCell;

use super::dataset::Dataset;
use super::usize_of;
use crate::hdf5lite::error::{Error, Result};
use crate::hdf5lite::filters;
use crate::hdf5lite::raw::btree_v1;
use crate::hdf5lite::raw::chunk_index::{self, ChunkGrid, ChunkRecord};
use crate::hdf5lite::raw::messages::ChunkIndex;
use crate::hdf5lite::raw::source::Source;
use crate::io::ReadAt;

/// Most bytes one merged read of adjacent chunks fetches.
pub(super) const MAX_RUN_BYTES: u64 = 16 << 20;
/// Largest gap between two chunks that one read spans: libhdf5 puts a chunk B-tree node
/// (about 2 KiB) after every 64 chunks it writes, and reading past one costs less than a
/// second read of a slow source. Chunks of another dataset in between (a whole chunk
/// each) are not read.
pub(super) const MAX_GAP_BYTES: u64 = 4 << 10;

thread_local! {
    /// The buffer [`with_run`] reads into, kept from read to read: a fresh one for every
    /// run made the kernel map and fault in its pages each time (with musl's allocator, on
    /// every row a profile's call tree reads).
    static RUN: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// `f` of the `len` stored bytes at `addr` (at most `cap`), read into the thread's kept
/// buffer where they fit [`MAX_RUN_BYTES`], else into a fresh one.
fn with_run<T>(
    src: &Source<'_>,
    addr: u64,
    len: u64,
    cap: u64,
    f: impl FnOnce(&[u8]) -> Result<T>,
) -> Result<T> {
    if len > MAX_RUN_BYTES {
        return f(&src.raw(addr, len, cap, "chunk")?);
    }
    RUN.with(|cell| match cell.try_borrow_mut() {
        Ok(mut kept) => {
            let n = usize_of(len)?;
            if kept.len() < n {
                kept.resize(n, 0);
            }
            let bytes = &mut kept[..n];
            src.raw_into(addr, bytes, cap, "chunk")?;
            f(bytes)
        }
        Err(_) => f(&src.raw(addr, len, cap, "chunk")?),
    })
}

impl<R: ReadAt> Dataset<'_, R> {
    /// Copies elements `start .. start + count` (rank 1) or all of them (other ranks) from
    /// the chunks into `out`, which holds the fill value where no chunk is stored.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn read_chunked(
        &self,
        src: &Source<'_>,
        address: Option<u64>,
        layout_dims: &[u64],
        index: &ChunkIndex,
        start: u64,
        count: u64,
        out: &mut [u8],
    ) -> Result<()> {
        filters::check_supported(&self.filters)?;
        let es = self.element_size()?;
        let mut dims = self.dims();
        let mut max_dims = self.max_shape().unwrap_or_default();
        if dims.is_empty() {
            dims = vec![1];
            max_dims = vec![1];
        }
        let chunk = layout_dims[..layout_dims.len().saturating_sub(1)].to_vec();
        let grid = ChunkGrid::new(dims.clone(), max_dims, chunk.clone(), es)?;
        let filtered = !self.filters.is_empty();
        let records = match self.chunk_records.get() {
            Some(records) => records,
            None => {
                let mut records =
                    Self::chunk_records(src, address, layout_dims, index, &grid, filtered)?;
                if let Some(bad) = records.iter().find(|r| r.offset.len() != dims.len()) {
                    return Err(
                        Error::format("chunk key rank differs from the dataset").at(bad.address)
                    );
                }
                if dims.len() == 1 {
                    records.sort_stable_by_key(|r| r.offset[0]);
                }
                self.chunk_records.get_or_init(|| records)
            }
        };
        let chunk_bytes = grid.chunk_bytes()?;
        let cap = self.file.limits.max_chunk_bytes;
        if chunk_bytes > cap {
            return Err(Error::limits(format!(
                "chunk of {chunk_bytes} bytes exceeds the limit"
            )));
        }
        // 1-D: the records are sorted by offset, so the chunks of the range are the run from
        // the first that ends after `start` to the last that begins before its end.
        let wanted: &[ChunkRecord] = if dims.len() == 1 {
            let end = start + count;
            let first = records.partition_point(|r| r.offset[0].saturating_add(chunk[0]) <= start);
            let last = records.partition_point(|r| r.offset[0] < end);
            &records[first..last.max(first)]
        } else {
            records
        };
        let chunk_len = usize_of(chunk_bytes)?;
        let es_usize = usize_of(es)?;
        if self.filters.is_empty() && dims.len() == 1 {
            let cap = cap.max(MAX_RUN_BYTES);
            return read_in_place(
                src,
                wanted,
                chunk_bytes,
                chunk[0],
                dims[0],
                es,
                start,
                cap,
                out,
            );
        }
        read_runs(src, wanted, cap, |r, stored| {
            let at = src.absolute(r.address)?;
            if self.filters.is_empty() {
                if stored.len() != chunk_len {
                    return Err(Error::format(
                        "unfiltered chunk size differs from the chunk shape",
                    )
                    .at(at));
                }
                copy_chunk(stored, &r.offset, &chunk, &dims, es, start, count, out);
            } else {
                let data = filters::decode_chunk(
                    &self.filters,
                    r.filter_mask,
                    stored,
                    chunk_len,
                    es_usize,
                    at,
                )?;
                copy_chunk(&data, &r.offset, &chunk, &dims, es, start, count, out);
            }
            Ok(())
        })
    }

    /// Walks the chunk index: one record per stored chunk.
    fn chunk_records(
        src: &Source<'_>,
        address: Option<u64>,
        layout_dims: &[u64],
        index: &ChunkIndex,
        grid: &ChunkGrid,
        filtered: bool,
    ) -> Result<Vec<ChunkRecord>> {
        Ok(match (index, address) {
            (_, None) => Vec::new(),
            (ChunkIndex::BTreeV1, Some(a)) => btree_v1::chunks(src, a, layout_dims.len())?,
            (ChunkIndex::SingleChunk { filtered: f }, a) => {
                chunk_index::single_chunk::records(a, *f, grid)?
            }
            (ChunkIndex::Implicit, a) => chunk_index::implicit::records(a, grid, src.file_len())?,
            (ChunkIndex::FixedArray { .. }, Some(a)) => {
                chunk_index::fixed_array::records(src, a, grid, filtered)?
            }
            (ChunkIndex::ExtensibleArray { .. }, Some(a)) => {
                chunk_index::extensible_array::records(src, a, grid, filtered)?
            }
            (ChunkIndex::BTreeV2 { .. }, Some(a)) => {
                chunk_index::btree_v2::records(src, a, grid, filtered)?
            }
        })
    }
}

/// Reads the stored bytes of `records`, merging chunks that are adjacent in the file (or
/// at most [`MAX_GAP_BYTES`] apart) into one read of at most [`MAX_RUN_BYTES`], and hands
/// each chunk's bytes to `each`. A single chunk larger than `cap` is a limits error.
pub(super) fn read_runs(
    src: &Source<'_>,
    records: &[ChunkRecord],
    cap: u64,
    mut each: impl FnMut(&ChunkRecord, &[u8]) -> Result<()>,
) -> Result<()> {
    let mut order: Vec<&ChunkRecord> = records.iter().collect();
    order.sort_stable_by_key(|r| r.address);
    if let Some(big) = order.iter().find(|r| r.stored_size > cap) {
        return Err(Error::limits(format!(
            "chunk of {} bytes exceeds the limit of {cap} bytes",
            big.stored_size
        ))
        .at(big.address));
    }
    let mut i = 0;
    while i < order.len() {
        let start = order[i].address;
        let mut end = start
            .checked_add(order[i].stored_size)
            .ok_or_else(|| Error::format("chunk address overflows").at(start))?;
        let mut j = i + 1;
        while let Some(next) = order.get(j) {
            let near = next.address >= end && next.address - end <= MAX_GAP_BYTES;
            match next.address.checked_add(next.stored_size) {
                Some(next_end) if near && next_end - start <= MAX_RUN_BYTES => {
                    end = next_end;
                    j += 1;
                }
                _ => break,
            }
        }
        with_run(src, start, end - start, cap.max(MAX_RUN_BYTES), |bytes| {
            for r in &order[i..j] {
                let from = usize_of(r.address - start)?;
                let piece = bytes
                    .get(from..from + usize_of(r.stored_size)?)
                    .ok_or_else(|| Error::format("chunk outside its run").at(r.address))?;
                each(r, piece)?;
            }
            Ok(())
        })?;
        i = j;
    }
    Ok(())
}

/// The range `start ..` (`out.len()` bytes) of a one-dimensional dataset of `len` elements
/// stored in unfiltered chunks of `chunk` elements (`chunk_bytes` bytes): the chunks of
/// `records` (sorted by offset) are read in the runs [`read_runs`] would make (as many
/// reads), a run of chunks adjacent in the file straight into `out`, another through a
/// buffer (up to `cap` bytes).
#[allow(clippy::too_many_arguments)]
fn read_in_place(
    src: &Source<'_>,
    records: &[ChunkRecord],
    chunk_bytes: u64,
    chunk: u64,
    len: u64,
    es: u64,
    start: u64,
    cap: u64,
    out: &mut [u8],
) -> Result<()> {
    let end = start.saturating_add(out.len() as u64 / es.max(1));
    // Each record's part of the range: file address, and bytes of `out`.
    let mut parts = Vec::with_capacity(records.len());
    for r in records {
        if r.stored_size != chunk_bytes {
            return Err(
                Error::format("unfiltered chunk size differs from the chunk shape")
                    .at(src.absolute(r.address)?),
            );
        }
        let offset = r.offset[0];
        let lo = offset.max(start);
        let hi = offset.saturating_add(chunk).min(end).min(len);
        if lo < hi {
            let addr = r
                .address
                .checked_add((lo - offset) * es)
                .ok_or_else(|| Error::format("chunk address overflows").at(r.address))?;
            let bytes = usize_of((lo - start) * es)?..usize_of((hi - start) * es)?;
            parts.push((r, addr, bytes));
        }
    }
    let mut i = 0;
    while i < parts.len() {
        let first = parts[i].0;
        let run_start = first.address;
        let mut run_end = run_start
            .checked_add(first.stored_size)
            .ok_or_else(|| Error::format("chunk address overflows").at(run_start))?;
        let mut adjacent = true;
        let mut j = i + 1;
        while let Some((next, _, bytes)) = parts.get(j) {
            let near = next.address >= run_end && next.address - run_end <= MAX_GAP_BYTES;
            match next.address.checked_add(next.stored_size) {
                Some(next_end) if near && next_end - run_start <= MAX_RUN_BYTES => {
                    adjacent &= next.address == run_end && parts[j - 1].2.end == bytes.start;
                    run_end = next_end;
                    j += 1;
                }
                _ => break,
            }
        }
        let run = &parts[i..j];
        let (Some(head), Some(tail)) = (run.first(), run.last()) else {
            break;
        };
        if adjacent {
            let bytes = head.2.start..tail.2.end;
            src.raw_into(head.1, &mut out[bytes], cap, "chunk")?;
        } else {
            with_run(src, run_start, run_end - run_start, cap, |stored| {
                for (_, addr, bytes) in run {
                    let from = usize_of(addr - run_start)?;
                    let piece = stored
                        .get(from..from + bytes.len())
                        .ok_or_else(|| Error::format("chunk outside its run").at(*addr))?;
                    out[bytes.clone()].copy_from_slice(piece);
                }
                Ok(())
            })?;
        }
        i = j;
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
/// Copies the part of a decoded chunk that lies in the extent into `out`. For rank 1,
/// `out` holds elements `start .. start + count`; otherwise the whole dataset.
fn copy_chunk(
    data: &[u8],
    offset: &[u64],
    chunk: &[u64],
    dims: &[u64],
    es: u64,
    start: u64,
    count: u64,
    out: &mut [u8],
) {
    let rank = dims.len();
    if rank == 1 {
        let lo = offset[0].max(start);
        let hi = offset[0]
            .saturating_add(chunk[0])
            .min(start + count)
            .min(dims[0]);
        if lo >= hi {
            return;
        }
        let src = ((lo - offset[0]) * es) as usize..((hi - offset[0]) * es) as usize;
        let dst = ((lo - start) * es) as usize..((hi - start) * es) as usize;
        out[dst].copy_from_slice(&data[src]);
        return;
    }
    // Rows along the last dimension, walked with an odometer over the others.
    let last = rank - 1;
    let run = chunk[last].min(dims[last].saturating_sub(offset[last]));
    if run == 0 {
        return;
    }
    let extent: Vec<u64> = (0..last)
        .map(|d| chunk[d].min(dims[d].saturating_sub(offset[d])))
        .collect();
    if extent.contains(&0) {
        return;
    }
    let mut idx = vec![0u64; last];
    loop {
        let mut src_el = 0u64;
        let mut dst_el = 0u64;
        for d in 0..rank {
            let i = if d < last { idx[d] } else { 0 };
            src_el = src_el * chunk[d] + i;
            dst_el = dst_el * dims[d] + offset[d] + i;
        }
        let s = (src_el * es) as usize;
        let t = (dst_el * es) as usize;
        let n = (run * es) as usize;
        out[t..t + n].copy_from_slice(&data[s..s + n]);
        let mut d = last;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < extent[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}
