//! Where the reader gets its bytes: a [`ReadAt`] plus the file's field widths, base address
//! and [`Limits`]. Every structure parser reads through this so that sizes from the file are
//! checked against the limits and the file length before anything is allocated.

use crate::hdf5lite::error::{Error, Result};
use crate::hdf5lite::limits::Limits;
use crate::hdf5lite::raw::cursor::{Cursor, Widths};
use crate::io::{past_end, ReadAt};

/// Bounded positional reads over one open file.
#[derive(Clone, Copy)]
pub struct Source<'a> {
    reader: &'a dyn ReadAt,
    widths: Widths,
    base: u64,
    limits: Limits,
}

impl std::fmt::Debug for Source<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Source")
            .field("len", &self.reader.len())
            .field("widths", &self.widths)
            .field("base", &self.base)
            .finish()
    }
}

impl<'a> Source<'a> {
    /// Reads from `reader`, whose addresses are relative to `base` (the superblock's base
    /// address, usually 0).
    pub fn new(reader: &'a dyn ReadAt, widths: Widths, base: u64, limits: Limits) -> Self {
        Source {
            reader,
            widths,
            base,
            limits,
        }
    }

    /// The underlying reader.
    pub fn reader(&self) -> &'a dyn ReadAt {
        self.reader
    }

    /// The file's field widths.
    pub fn widths(&self) -> Widths {
        self.widths
    }

    /// The caps in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Length of the underlying file in bytes.
    pub fn file_len(&self) -> u64 {
        self.reader.len()
    }

    /// Absolute offset of a file address.
    pub fn absolute(&self, addr: u64) -> Result<u64> {
        self.base
            .checked_add(addr)
            .ok_or_else(|| Error::format(format!("address {addr} overflows")).at(addr))
    }

    /// Reads `len` bytes of metadata (`what`) at file address `addr`, checked against
    /// `max_metadata_bytes` and the file length.
    pub fn metadata(&self, addr: u64, len: u64, what: &str) -> Result<Vec<u8>> {
        self.read_capped(addr, len, self.limits.max_metadata_bytes, what)
    }

    /// Reads `len` bytes of raw data (a chunk or contiguous block), checked against `cap`.
    pub fn raw(&self, addr: u64, len: u64, cap: u64, what: &str) -> Result<Vec<u8>> {
        self.read_capped(addr, len, cap, what)
    }

    /// A cursor over `len` bytes of metadata at `addr`.
    pub fn cursor_buf(&self, addr: u64, len: u64, what: &str) -> Result<(Vec<u8>, u64)> {
        let buf = self.metadata(addr, len, what)?;
        Ok((buf, self.absolute(addr)?))
    }

    /// A cursor over a buffer read by [`cursor_buf`](Self::cursor_buf).
    pub fn cursor<'b>(&self, buf: &'b [u8], at: u64) -> Cursor<'b> {
        Cursor::new(buf, at, self.widths)
    }

    fn read_capped(&self, addr: u64, len: u64, cap: u64, what: &str) -> Result<Vec<u8>> {
        let at = self.absolute(addr)?;
        if len > cap {
            return Err(Error::limits(format!(
                "{what} of {len} bytes exceeds the limit of {cap} bytes"
            ))
            .at(at));
        }
        let end = at.checked_add(len);
        if !matches!(end, Some(e) if e <= self.reader.len()) {
            let past = past_end(
                at,
                usize::try_from(len).unwrap_or(usize::MAX),
                self.reader.len(),
            );
            return Err(Error::from(past).at(at).in_context(what));
        }
        let n = usize::try_from(len)
            .map_err(|_| Error::limits(format!("{what} of {len} bytes does not fit in memory")))?;
        let mut buf = vec![0u8; n];
        self.reader.read_exact_at(at, &mut buf)?;
        Ok(buf)
    }
}

/// Adds "what was being read" to a past-end error without losing its kind or offset.
trait InContext {
    fn in_context(self, what: &str) -> Error;
}

impl InContext for Error {
    fn in_context(self, what: &str) -> Error {
        let mut e = Error::new(self.kind(), format!("{what}: {}", self.message()));
        if let Some(o) = self.offset() {
            e = e.at(o);
        }
        e
    }
}

/// Number of bytes needed to encode `n` (at least 1), as HDF5 sizes its variable-width
/// count fields.
pub fn bytes_needed(n: u64) -> u8 {
    let bits = 64 - n.leading_zeros();
    (bits.saturating_sub(1) / 8 + 1) as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdf5lite::ErrorKind;

    #[test]
    fn reads_are_checked_against_limits_and_length() {
        let data: Vec<u8> = (0..32).collect();
        let limits = Limits {
            max_metadata_bytes: 8,
            ..Limits::default()
        };
        let src = Source::new(&data, Widths::STANDARD, 0, limits);
        assert_eq!(src.metadata(4, 3, "x").unwrap(), vec![4, 5, 6]);
        assert_eq!(
            src.metadata(0, 9, "x").unwrap_err().kind(),
            ErrorKind::LimitsExceeded
        );
        let err = src.metadata(30, 4, "heap").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Format);
        assert_eq!(err.offset(), Some(30));
        assert!(err.message().starts_with("heap: "), "{}", err.message());
        assert_eq!(
            src.metadata(u64::MAX, 1, "x").unwrap_err().kind(),
            ErrorKind::Format
        );
    }

    #[test]
    fn base_address_is_added() {
        let data: Vec<u8> = (0..16).collect();
        let src = Source::new(&data, Widths::STANDARD, 10, Limits::default());
        assert_eq!(src.metadata(2, 2, "x").unwrap(), vec![12, 13]);
    }

    #[test]
    fn bytes_needed_for_counts() {
        assert_eq!(bytes_needed(0), 1);
        assert_eq!(bytes_needed(255), 1);
        assert_eq!(bytes_needed(256), 2);
        assert_eq!(bytes_needed(65535), 2);
        assert_eq!(bytes_needed(65536), 3);
        assert_eq!(bytes_needed(u64::MAX), 8);
    }
}
