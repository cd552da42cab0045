//! Positional reads: the one abstraction the reader reads through. A byte slice implements
//! it here; the CLI implements it for files, and a browser can for a `Blob`, so nothing
//! needs the whole file in memory.

use super::error::{Error, Result};

/// A source of bytes addressable by absolute offset.
pub trait ReadAt {
    /// Total length in bytes.
    fn len(&self) -> u64;

    /// Whether the source holds no bytes.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Fills `buf` from `offset`; fails with a `Format` error if the range passes the end.
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()>;
}

impl ReadAt for [u8] {
    fn len(&self) -> u64 {
        <[u8]>::len(self) as u64
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let range = usize::try_from(offset)
            .ok()
            .and_then(|start| Some(start..start.checked_add(buf.len())?))
            .filter(|r| r.end <= <[u8]>::len(self));
        match range {
            Some(r) => {
                buf.copy_from_slice(&self[r]);
                Ok(())
            }
            None => Err(past_end(offset, buf.len(), ReadAt::len(self))),
        }
    }
}

impl ReadAt for Vec<u8> {
    fn len(&self) -> u64 {
        self.as_slice().len() as u64
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        self.as_slice().read_exact_at(offset, buf)
    }
}

impl<T: ReadAt + ?Sized> ReadAt for &T {
    fn len(&self) -> u64 {
        (**self).len()
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        (**self).read_exact_at(offset, buf)
    }
}

/// The error for a read of `want` bytes at `offset` in a source of `len` bytes.
pub fn past_end(offset: u64, want: usize, len: u64) -> Error {
    Error::format(format!(
        "read of {want} bytes at offset {offset} passes the end of the file ({len} bytes)"
    ))
    .at(offset)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdf5lite::ErrorKind;

    #[test]
    fn slice_reads_in_range_and_rejects_past_end() {
        let data: &[u8] = &[1, 2, 3, 4];
        let mut buf = [0u8; 2];
        data.read_exact_at(2, &mut buf).unwrap();
        assert_eq!(buf, [3, 4]);
        let err = data.read_exact_at(3, &mut buf).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Format);
        assert_eq!(err.offset(), Some(3));
        assert!(data.read_exact_at(u64::MAX, &mut buf).is_err());
    }
}
