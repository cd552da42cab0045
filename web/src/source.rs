//! Where an opened file's bytes come from: a browser `File` read synchronously in the worker,
//! or bytes in memory (native tests), behind one shared [`BlockCache`] whose counters the
//! page shows ("read 65 KiB in 12 reads").

use std::io;
use std::rc::Rc;

use sp::io::{check_range, BlockCache, ReadAt};

/// Bytes per cached block. Small enough that opening a profile reads well under 1 MiB (its
/// superblock, headers and index lie in a few blocks at the head and the tail of the file),
/// large enough that a row's run of 8 KiB event chunks costs one read per eight chunks.
pub const BLOCK: u64 = 64 * 1024;

/// Blocks kept (16 MiB).
pub const BLOCKS: usize = 256;

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
pub struct Source(Rc<BlockCache<Bytes>>);

impl Source {
    /// `bytes` behind a fresh cache.
    pub fn new(bytes: Bytes) -> Source {
        Source(Rc::new(BlockCache::new(bytes, BLOCK, BLOCKS)))
    }

    /// Reads of the file so far, and the bytes they fetched.
    pub fn stats(&self) -> (u64, u64) {
        self.0.stats()
    }
}

impl ReadAt for Source {
    fn len(&self) -> u64 {
        self.0.len()
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        self.0.read_exact_at(offset, buf)
    }
}
