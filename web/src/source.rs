//! Where an opened file's bytes come from: a browser `File` read synchronously in the worker,
//! or bytes in memory (native tests), behind one shared [`BlockCache`] whose counters the
//! page shows ("read 65 KiB in 12 reads").
//!
//! A `File` read costs the browser 1.5–3 ms however small, so a view that reads long runs
//! of calls (the timeline's first pass over a rank) reads them in [`BULK`] blocks instead
//! ([`Source::bulk`]): a block cache of those over the small one, whose reads larger than a
//! block go straight through.
//!
//! In front of the cache, [`Source`] keeps the last few reads too large for a block. The
//! HDF5 reader reads a global heap collection whole for every variable-length string column
//! it decodes; a profile's index has five such columns sharing one collection (150 KiB for
//! 1,600 rows), which would otherwise be fetched from the `File` five times. While a file
//! opens ([`Source::opening`]) reads up to [`OPEN_RECENT_BYTES`] are kept: W3's index
//! (40,960 rows) has a 1.2 MiB collection, which its open read twelve times: 14 of the
//! 19.5 MiB it fetched.

use std::cell::{Cell, RefCell};
use std::io;
use std::rc::Rc;

use sp::io::{check_range, spans, zeroed_append, BlockCache, ReadAt};

/// Bytes per cached block. Small enough that opening a profile reads well under 1 MiB (its
/// superblock, headers and index lie in a few blocks at the head and the tail of the file),
/// large enough that a row's run of 8 KiB event chunks costs one read per eight chunks.
pub const BLOCK: u64 = 64 * 1024;

/// Blocks kept (128 MiB): a timeline window reads a block near its start in each row and
/// column of every rank in view (1,300 on W2), and a window zoomed into it reads them
/// again.
pub const BLOCKS: usize = 2048;

/// Bytes per block of bulk reads: one read of 4 MiB costs as much as about six of 64 KiB.
pub const BULK: u64 = 4 << 20;

/// Reads of at least this many bytes go through the bulk blocks in bulk mode: the
/// timeline's first pass reads 32 KiB of a column at a time, a window's reads start at
/// 1 KiB (a few calls of each row, which small blocks hold with less garbage).
const BULK_READ: usize = 16 << 10;

/// Bulk blocks kept (64 MiB: a rank's two event columns of W2, 16 MB each, read at once).
pub const BULK_BLOCKS: usize = 16;

/// Large reads kept, and the largest kept.
const RECENT: usize = 4;
const RECENT_BYTES: usize = 1 << 20;

/// The largest read kept while a file opens; what was kept is let go when it has opened.
pub const OPEN_RECENT_BYTES: usize = 64 << 20;

/// Ranges a reader announces ([`ReadAt::will_read`]) less than this far apart are fetched
/// in one read: the bytes between cost less than a read's own time (about 0.7 MiB's worth).
pub const WILL_READ_GAP: u64 = 512 << 10;

/// The bytes of one opened file.
pub enum Bytes {
    /// A `File` the page registered under this handle, `len` bytes long.
    #[cfg(target_arch = "wasm32")]
    Blob { handle: u32, len: u64 },
    /// Bytes in memory.
    Memory(Vec<u8>),
}

impl ReadAt for Bytes {
    fn len(&self) -> u64 {
        match self {
            #[cfg(target_arch = "wasm32")]
            Bytes::Blob { len, .. } => *len,
            Bytes::Memory(v) => ReadAt::len(v),
        }
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        match self {
            #[cfg(target_arch = "wasm32")]
            Bytes::Blob { handle, len } => {
                check_range(offset, buf.len(), *len)?;
                crate::ffi::read_blob(*handle, offset, buf)
            }
            Bytes::Memory(v) => {
                check_range(offset, buf.len(), ReadAt::len(v))?;
                v.read_exact_at(offset, buf)
            }
        }
    }
}

/// A file's bytes behind the block cache, shared by the HDF5 reader and the counters.
#[derive(Clone)]
pub struct Source(Rc<Shared>);

struct Shared {
    /// Bulk blocks over the small ones.
    cache: BlockCache<BlockCache<Bytes>>,
    /// Reads go through the bulk blocks.
    bulk: Cell<bool>,
    /// Recent reads larger than a block: (offset, bytes), most recent last.
    recent: RefCell<Vec<(u64, Vec<u8>)>>,
    /// The largest read kept in `recent`.
    recent_bytes: Cell<usize>,
}

impl Source {
    /// `bytes` behind a fresh cache.
    pub fn new(bytes: Bytes) -> Source {
        Source(Rc::new(Shared {
            cache: BlockCache::new(BlockCache::new(bytes, BLOCK, BLOCKS), BULK, BULK_BLOCKS),
            bulk: Cell::new(false),
            recent: RefCell::new(Vec::new()),
            recent_bytes: Cell::new(RECENT_BYTES),
        }))
    }

    /// While `on`, the file is opening: reads up to [`OPEN_RECENT_BYTES`] are kept, so the
    /// index's string columns fetch their shared heap once. Off, the reads kept are let go.
    pub fn opening(&self, on: bool) {
        self.0
            .recent_bytes
            .set(if on { OPEN_RECENT_BYTES } else { RECENT_BYTES });
        if !on {
            self.0.recent.borrow_mut().clear();
        }
    }

    /// Reads of the file so far, and the bytes they fetched.
    pub fn stats(&self) -> (u64, u64) {
        self.0.cache.inner().stats()
    }

    /// Reads of [`BULK_READ`] bytes or more in [`BULK`] blocks while `on` (a view reading
    /// runs of calls), else in [`BLOCK`] ones.
    pub fn bulk(&self, on: bool) {
        self.0.bulk.set(on);
    }
}

impl ReadAt for Source {
    fn len(&self) -> u64 {
        self.0.cache.len()
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        if self.0.bulk.get() && buf.len() >= BULK_READ {
            return self.0.cache.read_exact_at(offset, buf);
        }
        if self.recent_hit(offset, buf.len(), |bytes| buf.copy_from_slice(bytes)) {
            return Ok(());
        }
        self.0.cache.inner().read_exact_at(offset, buf)?;
        if buf.len() as u64 > BLOCK && buf.len() <= self.0.recent_bytes.get() {
            self.keep(offset, buf.to_vec());
        }
        Ok(())
    }

    /// Bytes a recent read holds are copied in with no zeroing first: a series' open
    /// reads its five columns from the one read [`will_read`](Self::will_read) fetched.
    fn read_append(&self, offset: u64, len: usize, out: &mut Vec<u8>) -> io::Result<()> {
        if !(self.0.bulk.get() && len >= BULK_READ)
            && self.recent_hit(offset, len, |bytes| out.extend_from_slice(bytes))
        {
            return Ok(());
        }
        zeroed_append(self, offset, len, out)
    }

    /// Fetches the announced ranges that no recent read holds, those less than
    /// [`WILL_READ_GAP`] apart in one read each, and keeps them as recent reads (up to
    /// [`RECENT`] of them, each no larger than the largest kept): a series' open reads an
    /// index's five columns in one read instead of nine.
    fn will_read(&self, ranges: &[(u64, u64)]) {
        let spans = spans(ranges, WILL_READ_GAP, self.len());
        for (at, end) in spans.into_iter().take(RECENT) {
            let len = (end - at) as usize;
            if len > self.0.recent_bytes.get() || self.holds(at, end) {
                continue;
            }
            let mut bytes = vec![0; len];
            // A failed fetch is left to the read that needs the bytes, which reports it.
            if self.0.cache.inner().read_exact_at(at, &mut bytes).is_ok() {
                self.keep(at, bytes);
            }
        }
    }
}

impl Source {
    /// Whether a recent read holds all of `at..end`.
    fn holds(&self, at: u64, end: u64) -> bool {
        let recent = self.0.recent.borrow();
        recent
            .iter()
            .any(|(from, bytes)| at >= *from && end <= from + bytes.len() as u64)
    }

    /// Hands `take` the `len` bytes at `offset` from a recent read that holds all of them,
    /// if one does.
    fn recent_hit(&self, offset: u64, len: usize, take: impl FnOnce(&[u8])) -> bool {
        let mut recent = self.0.recent.borrow_mut();
        let hit = recent.iter().position(|(at, bytes)| {
            offset >= *at && offset + len as u64 <= at + bytes.len() as u64
        });
        let Some(i) = hit else { return false };
        let entry = recent.remove(i);
        let from = (offset - entry.0) as usize;
        take(&entry.1[from..from + len]);
        recent.push(entry);
        true
    }

    /// Keeps `bytes`, read at `offset`, as the most recent read.
    fn keep(&self, offset: u64, bytes: Vec<u8>) {
        let mut recent = self.0.recent.borrow_mut();
        if recent.len() >= RECENT {
            recent.remove(0);
        }
        recent.push((offset, bytes));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_reads_are_fetched_once_small_ones_by_block() {
        let data: Vec<u8> = (0..(4 * BLOCK)).map(|i| (i % 251) as u8).collect();
        let source = Source::new(Bytes::Memory(data.clone()));
        let mut big = vec![0; BLOCK as usize + 10];
        for _ in 0..3 {
            source.read_exact_at(5, &mut big).unwrap();
        }
        assert_eq!(big, data[5..5 + big.len()]);
        assert_eq!(source.stats(), (1, BLOCK + 10));
        let mut inside = vec![0; BLOCK as usize + 1];
        source.read_exact_at(7, &mut inside).unwrap();
        assert_eq!(source.stats(), (1, BLOCK + 10), "inside a recent read");
        let mut small = [0u8; 8];
        source.read_exact_at(3 * BLOCK + 1, &mut small).unwrap();
        source.read_exact_at(3 * BLOCK + 100, &mut small).unwrap();
        assert_eq!(source.stats(), (2, 2 * BLOCK + 10), "one block for both");
        assert!(source.read_exact_at(4 * BLOCK - 4, &mut small).is_err());
    }

    #[test]
    fn appended_reads_come_from_a_recent_read_or_the_file() {
        let data: Vec<u8> = (0..(4 * BLOCK)).map(|i| (i % 251) as u8).collect();
        let source = Source::new(Bytes::Memory(data.clone()));
        source.opening(true);
        source.will_read(&[(10, 2 * BLOCK)]);
        let fetched = source.stats();
        let mut out = vec![7];
        source.read_append(20, BLOCK as usize, &mut out).unwrap();
        assert_eq!(source.stats(), fetched, "from the announced read");
        assert_eq!(out[0], 7);
        assert_eq!(out[1..], data[20..20 + BLOCK as usize]);
        let mut out = Vec::new();
        source.read_append(3 * BLOCK, 100, &mut out).unwrap();
        assert_eq!(out, data[3 * BLOCK as usize..3 * BLOCK as usize + 100]);
        assert!(source.read_append(4 * BLOCK - 4, 8, &mut out).is_err());
        assert_eq!(out.len(), 100, "unchanged by a failed read");
    }

    #[test]
    fn announced_ranges_near_each_other_are_fetched_in_one_read() {
        let data: Vec<u8> = (0..(8 << 20)).map(|i| (i % 251) as u8).collect();
        let source = Source::new(Bytes::Memory(data.clone()));
        source.opening(true);
        let gap = WILL_READ_GAP;
        // Two columns a gap apart, a third far away, and one empty range.
        let ranges = [
            (1 << 20, 200_000),
            (1 << 20, 0),
            (1_700_000, 300_000),
            (7 << 20, 100),
        ];
        source.will_read(&ranges);
        assert!((1 << 20) + 200_000 + gap > 1_700_000, "within the gap");
        assert_eq!(
            source.stats(),
            (2, (2_000_000 - (1 << 20)) + BLOCK),
            "one read for the two near columns, one (a small block) for the far one"
        );
        for (at, len) in [
            (1 << 20, 200_000),
            (1_700_000, 300_000),
            ((1 << 20) + 5, 10),
        ] {
            let mut buf = vec![0; len];
            source.read_exact_at(at, &mut buf).unwrap();
            assert_eq!(buf, data[at as usize..at as usize + len]);
        }
        assert_eq!(
            source.stats().0,
            2,
            "every read came from the fetched spans"
        );
        source.will_read(&[(1_700_000, 1000)]);
        assert_eq!(
            source.stats().0,
            2,
            "a range already held is not fetched again"
        );
        source.will_read(&[(8 << 20, 10), ((8 << 20) - 4, 100)]);
        let mut tail = [0u8; 4];
        source.read_exact_at((8 << 20) - 4, &mut tail).unwrap();
        assert_eq!(
            tail,
            data[(8 << 20) - 4..],
            "a range past the end is cut to the file"
        );
        source.opening(false);
        source.will_read(&[(0, 2 << 20)]);
        assert_eq!(
            source.stats().0,
            3,
            "after the open, a span over a MiB is not fetched"
        );
    }

    #[test]
    fn reads_past_a_mib_are_kept_while_opening_only() {
        let data: Vec<u8> = (0..(4 << 20)).map(|i| (i % 251) as u8).collect();
        let source = Source::new(Bytes::Memory(data.clone()));
        let mut heap = vec![0; (1 << 20) + 4096];
        source.opening(true);
        for _ in 0..3 {
            source.read_exact_at(100, &mut heap).unwrap();
        }
        assert_eq!(heap, data[100..100 + heap.len()]);
        assert_eq!(
            source.stats(),
            (1, heap.len() as u64),
            "fetched once while opening"
        );
        source.opening(false);
        source.read_exact_at(100, &mut heap).unwrap();
        source.read_exact_at(100, &mut heap).unwrap();
        assert_eq!(
            source.stats(),
            (3, 3 * heap.len() as u64),
            "let go once open"
        );
    }

    #[test]
    fn long_bulk_reads_fetch_a_bulk_block_once() {
        let data: Vec<u8> = (0..(BULK + 2 * BLOCK)).map(|i| (i % 251) as u8).collect();
        let source = Source::new(Bytes::Memory(data.clone()));
        source.bulk(true);
        let mut run = vec![0u8; BULK_READ];
        for at in [5, BLOCK * 3, BULK - 4] {
            source.read_exact_at(at, &mut run).unwrap();
            assert_eq!(run, data[at as usize..at as usize + run.len()]);
        }
        assert_eq!(
            source.stats(),
            (2, BULK + 2 * BLOCK),
            "the block and the tail"
        );
        let mut small = [0u8; 8];
        source.read_exact_at(BULK + 10, &mut small).unwrap();
        assert_eq!(source.stats(), (3, BULK + 3 * BLOCK), "a small block again");
    }
}
