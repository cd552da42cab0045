//! Fixed-width integers in either byte order: a bounded cursor for reading and `put_*`
//! helpers for writing. The cursor only says whether enough bytes remain; callers turn a
//! shortfall into an error that names the field and region.

use super::header::Endian;

/// Reads fields from a whole trace file, tracking the absolute offset.
#[derive(Debug, Clone)]
pub(crate) struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    endian: Endian,
}

impl<'a> Cursor<'a> {
    /// A cursor at absolute offset `pos` of `bytes`.
    pub(crate) fn new(bytes: &'a [u8], pos: usize, endian: Endian) -> Self {
        Cursor { bytes, pos, endian }
    }

    /// Absolute offset of the next byte.
    pub(crate) fn offset(&self) -> u64 {
        self.pos as u64
    }

    /// Bytes left after the current position.
    pub(crate) fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }

    /// The next `n` bytes, or `None` (and no movement) if fewer remain.
    pub(crate) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let out = self.bytes.get(self.pos..end)?;
        self.pos = end;
        Some(out)
    }

    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        let end = self.pos.checked_add(N)?;
        let out: [u8; N] = self.bytes.get(self.pos..end)?.try_into().ok()?;
        self.pos = end;
        Some(out)
    }

    /// The next i32, or `None` if fewer than 4 bytes remain.
    pub(crate) fn i32(&mut self) -> Option<i32> {
        let raw = self.array::<4>()?;
        Some(match self.endian {
            Endian::Little => i32::from_le_bytes(raw),
            Endian::Big => i32::from_be_bytes(raw),
        })
    }

    /// The next i64, or `None` if fewer than 8 bytes remain.
    pub(crate) fn i64(&mut self) -> Option<i64> {
        let raw = self.array::<8>()?;
        Some(match self.endian {
            Endian::Little => i64::from_le_bytes(raw),
            Endian::Big => i64::from_be_bytes(raw),
        })
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
        let bytes = [
            0x01, 0x00, 0x00, 0x00, // i32 1 (LE) / 16777216 (BE)
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, // i64 -2 (BE)
            0xaa, // one byte left
        ];
        let mut le = Cursor::new(&bytes, 0, Endian::Little);
        assert_eq!(le.i32(), Some(1));
        let mut be = Cursor::new(&bytes, 0, Endian::Big);
        assert_eq!(be.i32(), Some(16_777_216));
        assert_eq!(be.i64(), Some(-2));
        assert_eq!(be.offset(), 12);
        assert_eq!(be.remaining(), 1);
        assert_eq!(be.i32(), None);
        assert_eq!(be.offset(), 12, "a failed read does not move");
        assert_eq!(be.take(2), None);
        assert_eq!(be.take(1), Some(&[0xaa][..]));
        assert_eq!(be.take(0), Some(&[][..]));
        assert_eq!(be.take(usize::MAX), None);
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
