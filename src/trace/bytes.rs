//! Fixed-width integers in either byte order: a bounded cursor for reading and `put_*`
//! helpers for writing. The cursor reads through [`ReadAt`], so the same record decoder
//! serves a whole file in memory and a file read positionally; it only says whether enough
//! bytes remain, and callers turn a shortfall into an error that names the field and region.

use std::io;

use super::header::Endian;
use crate::io::ReadAt;

/// A read position in a trace, tracking the absolute offset.
pub(crate) struct Cursor<'s, R: ?Sized> {
    src: &'s R,
    pos: u64,
    size: u64,
    endian: Endian,
}

impl<'s, R: ReadAt + ?Sized> Cursor<'s, R> {
    /// A cursor at absolute offset `pos` of `src`.
    pub(crate) fn new(src: &'s R, pos: u64, endian: Endian) -> Self {
        Cursor {
            src,
            pos,
            size: src.len(),
            endian,
        }
    }

    /// Absolute offset of the next byte.
    pub(crate) fn offset(&self) -> u64 {
        self.pos
    }

    /// Bytes left after the current position.
    pub(crate) fn remaining(&self) -> u64 {
        self.size.saturating_sub(self.pos)
    }

    /// Moves `n` bytes on, or returns `false` (no movement) if fewer remain.
    pub(crate) fn skip(&mut self, n: u64) -> bool {
        if n > self.remaining() {
            return false;
        }
        self.pos += n;
        true
    }

    /// The next `n` bytes (`n` at most [`remaining`](Self::remaining), which the caller
    /// checks first so that a count from the file never sizes an allocation), or `None`.
    pub(crate) fn bytes(&mut self, n: u64) -> io::Result<Option<Vec<u8>>> {
        if n > self.remaining() {
            return Ok(None);
        }
        let mut buf = vec![0u8; n as usize];
        self.src.read_exact_at(self.pos, &mut buf)?;
        self.pos += n;
        Ok(Some(buf))
    }

    /// The next `N` bytes, or `None` (no movement) if fewer remain.
    fn array<const N: usize>(&mut self) -> io::Result<Option<[u8; N]>> {
        if self.remaining() < N as u64 {
            return Ok(None);
        }
        let mut buf = [0u8; N];
        self.src.read_exact_at(self.pos, &mut buf)?;
        self.pos += N as u64;
        Ok(Some(buf))
    }

    /// The next i32, or `None` if fewer than 4 bytes remain.
    pub(crate) fn i32(&mut self) -> io::Result<Option<i32>> {
        Ok(self.array::<4>()?.map(|raw| match self.endian {
            Endian::Little => i32::from_le_bytes(raw),
            Endian::Big => i32::from_be_bytes(raw),
        }))
    }

    /// The next i64, or `None` if fewer than 8 bytes remain.
    pub(crate) fn i64(&mut self) -> io::Result<Option<i64>> {
        Ok(self.array::<8>()?.map(|raw| match self.endian {
            Endian::Little => i64::from_le_bytes(raw),
            Endian::Big => i64::from_be_bytes(raw),
        }))
    }
}

/// Appends an i32 in `endian` order.
pub(crate) fn put_i32(out: &mut Vec<u8>, value: i32, endian: Endian) {
    out.extend_from_slice(&match endian {
        Endian::Little => value.to_le_bytes(),
        Endian::Big => value.to_be_bytes(),
    });
}

/// Appends an i64 in `endian` order.
pub(crate) fn put_i64(out: &mut Vec<u8>, value: i64, endian: Endian) {
    out.extend_from_slice(&match endian {
        Endian::Little => value.to_le_bytes(),
        Endian::Big => value.to_be_bytes(),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_byte_orders_and_stops_at_the_end() {
        let bytes: &[u8] = &[
            0x01, 0x00, 0x00, 0x00, // i32 1 (LE) / 16777216 (BE)
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, // i64 -2 (BE)
            0xaa, // one byte left
        ];
        let mut le = Cursor::new(bytes, 0, Endian::Little);
        assert_eq!(le.i32().unwrap(), Some(1));
        let mut be = Cursor::new(bytes, 0, Endian::Big);
        assert_eq!(be.i32().unwrap(), Some(16_777_216));
        assert_eq!(be.i64().unwrap(), Some(-2));
        assert_eq!(be.offset(), 12);
        assert_eq!(be.remaining(), 1);
        assert_eq!(be.i32().unwrap(), None);
        assert_eq!(be.offset(), 12, "a failed read does not move");
        assert_eq!(be.bytes(2).unwrap(), None);
        assert!(!be.skip(2));
        assert_eq!(be.bytes(1).unwrap(), Some(vec![0xaa]));
        assert_eq!(be.bytes(0).unwrap(), Some(vec![]));
        assert_eq!(be.bytes(u64::MAX).unwrap(), None);
    }

    #[test]
    fn writes_both_byte_orders() {
        let mut out = Vec::new();
        put_i32(&mut out, 2, Endian::Little);
        put_i32(&mut out, 2, Endian::Big);
        put_i64(&mut out, -1, Endian::Little);
        put_i64(&mut out, 0x0102, Endian::Big);
        assert_eq!(
            out,
            [
                0x02, 0, 0, 0, // LE 2
                0, 0, 0, 0x02, // BE 2
                0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // LE -1
                0, 0, 0, 0, 0, 0, 0x01, 0x02, // BE 0x0102
            ]
        );
    }
}
