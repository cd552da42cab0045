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

    /// This source seen through `window`: reads inside the window cost no read of the
    /// underlying reader. For a structure read in several small pieces (a header, then
    /// its entries), read once at its start.
    pub fn through<'b>(&self, window: &'b Window<'b, dyn ReadAt + 'a>) -> Source<'b>
    where
        'a: 'b,
    {
        Source {
            reader: window,
            widths: self.widths,
            base: self.base,
            limits: self.limits,
        }
    }

    /// A window of `len` bytes at file address `addr` (see [`through`](Self::through)).
    pub fn window(&self, addr: u64, len: u64) -> Window<'a, dyn ReadAt + 'a> {
        let at = self.base.saturating_add(addr);
        Window::new(self.reader, at, len)
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

    /// [`raw`](Self::raw) into `out` (all of it, `out.len()` bytes), so a caller reading
    /// many blocks reuses one buffer.
    pub fn raw_into(&self, addr: u64, out: &mut [u8], cap: u64, what: &str) -> Result<()> {
        let at = self.checked(addr, out.len() as u64, cap, what)?;
        self.reader.read_exact_at(at, out)?;
        Ok(())
    }

    /// [`raw`](Self::raw) appended to `out`, which the reader may fill with no zeroing
    /// first ([`ReadAt::read_append`]).
    pub fn raw_append(
        &self,
        addr: u64,
        len: u64,
        out: &mut Vec<u8>,
        cap: u64,
        what: &str,
    ) -> Result<()> {
        let at = self.checked(addr, len, cap, what)?;
        let n = usize::try_from(len)
            .map_err(|_| Error::limits(format!("{what} of {len} bytes does not fit in memory")))?;
        self.reader.read_append(at, n, out)?;
        Ok(())
    }

    fn read_capped(&self, addr: u64, len: u64, cap: u64, what: &str) -> Result<Vec<u8>> {
        let at = self.checked(addr, len, cap, what)?;
        let n = usize::try_from(len)
            .map_err(|_| Error::limits(format!("{what} of {len} bytes does not fit in memory")))?;
        let mut buf = vec![0u8; n];
        self.reader.read_exact_at(at, &mut buf)?;
        Ok(buf)
    }

    /// The absolute offset of `len` bytes (`what`) at `addr`, checked against `cap` and the
    /// file length.
    fn checked(&self, addr: u64, len: u64, cap: u64, what: &str) -> Result<u64> {
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
        Ok(at)
    }
}

/// A [`ReadAt`] that serves reads inside one window from a single read of its source, and
/// passes others through: an object header's prefix, first chunk and messages cost one
/// read of a slow source.
pub struct Window<'a, R: ReadAt + ?Sized> {
    inner: &'a R,
    start: u64,
    bytes: Option<Vec<u8>>,
}

impl<'a, R: ReadAt + ?Sized> Window<'a, R> {
    /// Reads `len` bytes at `start` (fewer at the end of the file; none if that fails).
    pub fn new(inner: &'a R, start: u64, len: u64) -> Self {
        let end = start.saturating_add(len).min(inner.len());
        let bytes = (end > start).then(|| vec![0u8; (end - start) as usize]);
        let bytes = bytes.and_then(|mut b| inner.read_exact_at(start, &mut b).ok().map(|()| b));
        Window {
            inner,
            start,
            bytes,
        }
    }
}

impl<R: ReadAt + ?Sized> ReadAt for Window<'_, R> {
    fn len(&self) -> u64 {
        self.inner.len()
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        let inside = self.bytes.as_ref().and_then(|b| {
            let from = usize::try_from(offset.checked_sub(self.start)?).ok()?;
            b.get(from..from.checked_add(buf.len())?)
        });
        match inside {
            Some(piece) => {
                buf.copy_from_slice(piece);
                Ok(())
            }
            None => self.inner.read_exact_at(offset, buf),
        }
    }

    fn read_append(&self, offset: u64, len: usize, out: &mut Vec<u8>) -> std::io::Result<()> {
        let inside = self.bytes.as_ref().and_then(|b| {
            let from = usize::try_from(offset.checked_sub(self.start)?).ok()?;
            b.get(from..from.checked_add(len)?)
        });
        match inside {
            Some(piece) => {
                out.extend_from_slice(piece);
                Ok(())
            }
            None => self.inner.read_append(offset, len, out),
        }
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
    fn a_window_serves_reads_inside_it_from_one_read() {
        use std::cell::Cell;
        struct Counting<'a>(&'a [u8], Cell<u32>);
        impl ReadAt for Counting<'_> {
            fn len(&self) -> u64 {
                self.0.len() as u64
            }
            fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
                self.1.set(self.1.get() + 1);
                self.0.read_exact_at(offset, buf)
            }
        }
        let data: Vec<u8> = (0..100).collect();
        let src = Counting(&data, Cell::new(0));
        let w = Window::new(&src, 10, 20);
        let mut buf = [0u8; 5];
        w.read_exact_at(12, &mut buf).unwrap();
        w.read_exact_at(25, &mut buf).unwrap();
        assert_eq!(buf, [25, 26, 27, 28, 29]);
        assert_eq!(src.1.get(), 1);
        w.read_exact_at(28, &mut buf).unwrap(); // past the window: read through
        assert_eq!(buf, [28, 29, 30, 31, 32]);
        assert_eq!(src.1.get(), 2);
        // A window at the end of the file is clipped to it.
        let end = Window::new(&src, 90, 20);
        end.read_exact_at(95, &mut buf).unwrap();
        assert_eq!(buf, [95, 96, 97, 98, 99]);
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
