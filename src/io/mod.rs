//! Positional I/O: the one pair of traits every reader and writer in the crate goes through.
//!
//! [`ReadAt`] is "read N bytes at offset X". It is implemented here for byte slices and
//! vectors, in [`file`] for files (`pread`, on native hosts), and by the browser page for a
//! `Blob` read in a worker. The trace indexer and the HDF5 reader take any `ReadAt`, so nothing
//! forces a whole file into memory. [`WriteAt`] is its counterpart for the writer's
//! planned, positional output. [`BlockCache`] puts aligned, cached blocks in front of a
//! slow source, for sources where every call is expensive. [`atomic`] publishes an output
//! file whole or not at all.

use std::cell::RefCell;
use std::io;

#[cfg(any(unix, windows))]
pub mod atomic;
#[cfg(any(unix, windows))]
pub mod file;
#[cfg(any(unix, windows))]
pub mod inputs;

/// A source of bytes addressable by absolute offset.
pub trait ReadAt {
    /// Total length in bytes.
    fn len(&self) -> u64;

    /// Whether the source holds no bytes.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Fills `buf` from `offset`. A range past the end fails with
    /// [`io::ErrorKind::UnexpectedEof`] (see [`past_end`]).
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()>;

    /// A hint that the byte ranges `(offset, len)` are about to be read: a source that pays
    /// much for each read (a browser `File`) may fetch them together. Nothing by default.
    fn will_read(&self, _ranges: &[(u64, u64)]) {}

    /// Appends the `len` bytes at `offset` to `out` (which keeps its length on an error).
    /// A source that holds them already copies them in, without zeroing `out` first: the
    /// zeroing was a tenth of a series' open in the page (issue 37).
    fn read_append(&self, offset: u64, len: usize, out: &mut Vec<u8>) -> io::Result<()> {
        zeroed_append(self, offset, len, out)
    }
}

/// [`ReadAt::read_append`] for a source that holds nothing in memory: `out` grows by `len`
/// zeroed bytes that [`ReadAt::read_exact_at`] then fills (cut back on an error). The
/// default, and the fallback of a source for bytes it does not hold.
pub fn zeroed_append<R: ReadAt + ?Sized>(
    source: &R,
    offset: u64,
    len: usize,
    out: &mut Vec<u8>,
) -> io::Result<()> {
    let at = out.len();
    let end = at
        .checked_add(len)
        .ok_or_else(|| io::Error::from(io::ErrorKind::OutOfMemory))?;
    out.resize(end, 0);
    let read = source.read_exact_at(offset, &mut out[at..]);
    if read.is_err() {
        out.truncate(at);
    }
    read
}

/// `ranges` of `(offset, len)` as the fewest spans `(start, end)` to read, in order: those
/// less than `gap` bytes apart joined, each cut to a source of `len` bytes, empty ones
/// dropped. What a source that pays much per read ([`ReadAt::will_read`]) fetches.
pub fn spans(ranges: &[(u64, u64)], gap: u64, len: u64) -> Vec<(u64, u64)> {
    let mut ranges: Vec<(u64, u64)> = ranges
        .iter()
        .map(|&(at, n)| (at, at.saturating_add(n).min(len)))
        .filter(|&(at, end)| at < end)
        .collect();
    ranges.sort_unstable();
    let mut spans: Vec<(u64, u64)> = Vec::new();
    for (at, end) in ranges {
        match spans.last_mut() {
            Some(last) if at <= last.1.saturating_add(gap) => last.1 = last.1.max(end),
            _ => spans.push((at, end)),
        }
    }
    spans
}

/// A sink of bytes addressable by absolute offset.
pub trait WriteAt {
    /// Writes all of `bytes` at absolute `offset`.
    fn write_all_at(&mut self, offset: u64, bytes: &[u8]) -> io::Result<()>;
}

impl ReadAt for [u8] {
    fn len(&self) -> u64 {
        <[u8]>::len(self) as u64
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let bytes = usize::try_from(offset)
            .ok()
            .and_then(|start| self.get(start..start.checked_add(buf.len())?));
        match bytes {
            Some(bytes) => {
                buf.copy_from_slice(bytes);
                Ok(())
            }
            None => Err(past_end(offset, buf.len(), ReadAt::len(self))),
        }
    }

    fn read_append(&self, offset: u64, len: usize, out: &mut Vec<u8>) -> io::Result<()> {
        let bytes = usize::try_from(offset)
            .ok()
            .and_then(|start| self.get(start..start.checked_add(len)?));
        match bytes {
            Some(bytes) => {
                out.extend_from_slice(bytes);
                Ok(())
            }
            None => Err(past_end(offset, len, ReadAt::len(self))),
        }
    }
}

impl ReadAt for Vec<u8> {
    fn len(&self) -> u64 {
        self.as_slice().len() as u64
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        self.as_slice().read_exact_at(offset, buf)
    }

    fn read_append(&self, offset: u64, len: usize, out: &mut Vec<u8>) -> io::Result<()> {
        self.as_slice().read_append(offset, len, out)
    }
}

impl<T: ReadAt + ?Sized> ReadAt for &T {
    fn len(&self) -> u64 {
        (**self).len()
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        (**self).read_exact_at(offset, buf)
    }

    fn will_read(&self, ranges: &[(u64, u64)]) {
        (**self).will_read(ranges)
    }

    fn read_append(&self, offset: u64, len: usize, out: &mut Vec<u8>) -> io::Result<()> {
        (**self).read_append(offset, len, out)
    }
}

impl WriteAt for Vec<u8> {
    fn write_all_at(&mut self, offset: u64, bytes: &[u8]) -> io::Result<()> {
        let too_big = || io::Error::from(io::ErrorKind::OutOfMemory);
        let start = usize::try_from(offset).map_err(|_| too_big())?;
        let end = start.checked_add(bytes.len()).ok_or_else(too_big)?;
        if self.len() < end {
            self.resize(end, 0);
        }
        self[start..end].copy_from_slice(bytes);
        Ok(())
    }
}

/// The error for a read of `want` bytes at `offset` in a source of `len` bytes.
pub fn past_end(offset: u64, want: usize, len: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        format!("read of {want} bytes at offset {offset} passes the end of the file ({len} bytes)"),
    )
}

/// Checks that `want` bytes at `offset` lie within a source of `len` bytes.
pub fn check_range(offset: u64, want: usize, len: u64) -> io::Result<()> {
    match offset.checked_add(want as u64) {
        Some(end) if end <= len => Ok(()),
        _ => Err(past_end(offset, want, len)),
    }
}

/// A [`ReadAt`] that reads its inner source in aligned blocks and keeps the most recently
/// used ones, so many small reads near each other (an HDF5 reader walking object headers,
/// heaps and B-trees) cost one read of the slow source each. Reads larger than a block go
/// straight through, so bulk data does not evict the metadata around it.
pub struct BlockCache<R> {
    inner: R,
    block: u64,
    capacity: usize,
    state: RefCell<CacheState>,
}

#[derive(Default)]
struct CacheState {
    /// (block number, bytes), most recently used last.
    blocks: Vec<(u64, Vec<u8>)>,
    /// Reads of the inner source so far, and the bytes they asked for.
    reads: u64,
    bytes: u64,
}

impl<R: ReadAt> BlockCache<R> {
    /// Caches up to `capacity` blocks of `block` bytes (both at least 1).
    pub fn new(inner: R, block: u64, capacity: usize) -> Self {
        BlockCache {
            inner,
            block: block.max(1),
            capacity: capacity.max(1),
            state: RefCell::new(CacheState::default()),
        }
    }

    /// The source behind the cache.
    pub fn inner(&self) -> &R {
        &self.inner
    }

    /// Reads of the inner source so far, and the bytes they fetched.
    pub fn stats(&self) -> (u64, u64) {
        let s = self.state.borrow();
        (s.reads, s.bytes)
    }

    fn fetch(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let mut s = self.state.borrow_mut();
        s.reads += 1;
        s.bytes += buf.len() as u64;
        drop(s);
        self.inner.read_exact_at(offset, buf)
    }

    /// Copies the part of block `n` that overlaps `[offset, offset + buf.len())` into `buf`.
    fn copy_from_block(&self, n: u64, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let start = n * self.block;
        let hit = {
            let mut s = self.state.borrow_mut();
            match s.blocks.iter().position(|(b, _)| *b == n) {
                Some(i) => {
                    let entry = s.blocks.remove(i);
                    s.blocks.push(entry);
                    true
                }
                None => false,
            }
        };
        if !hit {
            let end = start.saturating_add(self.block).min(self.inner.len());
            let mut bytes = vec![0; usize::try_from(end - start).unwrap_or(0)];
            self.fetch(start, &mut bytes)?;
            let mut s = self.state.borrow_mut();
            if s.blocks.len() >= self.capacity {
                s.blocks.remove(0);
            }
            s.blocks.push((n, bytes));
        }
        let s = self.state.borrow();
        let bytes = &s.blocks.last().expect("the block was just used").1;
        let from = offset.max(start);
        let to = (offset + buf.len() as u64).min(start + bytes.len() as u64);
        let src = &bytes[(from - start) as usize..(to - start) as usize];
        buf[(from - offset) as usize..(to - offset) as usize].copy_from_slice(src);
        Ok(())
    }
}

impl<R: ReadAt> ReadAt for BlockCache<R> {
    fn len(&self) -> u64 {
        self.inner.len()
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        check_range(offset, buf.len(), self.len())?;
        if buf.is_empty() {
            return Ok(());
        }
        if buf.len() as u64 > self.block {
            return self.fetch(offset, buf);
        }
        let first = offset / self.block;
        let last = (offset + buf.len() as u64 - 1) / self.block;
        for n in first..=last {
            self.copy_from_block(n, offset, buf)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appended_reads_extend_and_keep_the_length_on_an_error() {
        let data: &[u8] = &[1, 2, 3, 4];
        let mut out = vec![9];
        data.read_append(1, 2, &mut out).unwrap();
        assert_eq!(out, [9, 2, 3]);
        assert!(data.read_append(3, 2, &mut out).is_err());
        assert!(data.read_append(u64::MAX, 1, &mut out).is_err());
        assert_eq!(out, [9, 2, 3]);
        // The default, through a cache: the same bytes, the same errors.
        let cache = BlockCache::new(data, 2, 2);
        cache.read_append(0, 3, &mut out).unwrap();
        assert_eq!(out, [9, 2, 3, 1, 2, 3]);
        assert!(cache.read_append(2, 3, &mut out).is_err());
        assert_eq!(out.len(), 6);
    }

    #[test]
    fn slice_reads_in_range_and_rejects_past_end() {
        let data: &[u8] = &[1, 2, 3, 4];
        let mut buf = [0u8; 2];
        data.read_exact_at(2, &mut buf).unwrap();
        assert_eq!(buf, [3, 4]);
        let err = data.read_exact_at(3, &mut buf).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
        assert!(err.to_string().contains("offset 3"), "{err}");
        assert!(data.read_exact_at(u64::MAX, &mut buf).is_err());
    }

    #[test]
    fn vec_sink_grows_and_overwrites() {
        let mut out = Vec::new();
        out.write_all_at(2, b"cd").unwrap();
        out.write_all_at(0, b"ab").unwrap();
        assert_eq!(out, b"abcd");
        assert!(out.write_all_at(u64::MAX, b"x").is_err());
    }

    #[test]
    fn spans_join_near_ranges_and_cut_to_the_source() {
        let ranges = [
            (100, 50),
            (0, 10),
            (160, 40),
            (500, 0),
            (90, 20),
            (990, 100),
        ];
        assert_eq!(
            spans(&ranges, 10, 1000),
            vec![(0, 10), (90, 200), (990, 1000)],
            "150..160 is within the gap; 500 is empty; 990 is cut at the end"
        );
        assert_eq!(
            spans(&ranges, 0, 1000)[1],
            (90, 150),
            "no gap: only overlaps join"
        );
        assert!(spans(&[(2000, 5), (u64::MAX, 5)], 10, 1000).is_empty());
    }

    #[test]
    fn block_cache_reads_like_its_source_and_reuses_blocks() {
        let data: Vec<u8> = (0..=255).cycle().take(1000).map(|b: i32| b as u8).collect();
        let cache = BlockCache::new(data.as_slice(), 64, 4);
        for (offset, len) in [(0, 10), (5, 100), (60, 8), (990, 10), (0, 1000), (999, 1)] {
            let mut got = vec![0; len];
            cache.read_exact_at(offset, &mut got).unwrap();
            assert_eq!(got, data[offset as usize..offset as usize + len]);
        }
        let before = cache.stats();
        let mut small = [0u8; 4];
        cache.read_exact_at(992, &mut small).unwrap();
        assert_eq!(cache.stats(), before, "a cached block is not read again");
        let err = cache.read_exact_at(998, &mut small).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
    }
}
