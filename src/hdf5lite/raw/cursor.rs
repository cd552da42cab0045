//! A bounded little-endian cursor over one metadata block, and its encoding twin. Both know
//! the file's field widths ([`Widths`]) and the absolute offset of the block, so every parse
//! error names the byte where it happened.

use crate::hdf5lite::error::{Error, Result};

/// Per-file field widths from the superblock: "size of offsets" and "size of lengths".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Widths {
    pub offset: u8,
    pub length: u8,
}

impl Widths {
    /// 8-byte offsets and lengths, what every profile uses and our writer emits.
    pub const STANDARD: Widths = Widths {
        offset: 8,
        length: 8,
    };

    /// The all-ones "undefined address" for this offset width.
    pub fn undefined_address(self) -> u64 {
        all_ones(self.offset)
    }
}

fn all_ones(width: u8) -> u64 {
    if width >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * u32::from(width))) - 1
    }
}

/// Reads fields from a block that starts at absolute offset `base` in the file.
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
    base: u64,
    widths: Widths,
}

impl<'a> Cursor<'a> {
    /// A cursor over `buf`, which was read from absolute offset `base`.
    pub fn new(buf: &'a [u8], base: u64, widths: Widths) -> Self {
        Cursor {
            buf,
            pos: 0,
            base,
            widths,
        }
    }

    /// The file's field widths.
    pub fn widths(&self) -> Widths {
        self.widths
    }

    /// Absolute file offset of the next byte.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Position relative to the start of the block.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes left in the block.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// The whole block.
    pub fn block(&self) -> &'a [u8] {
        self.buf
    }

    /// A malformed-data error at the current position.
    pub fn error(&self, message: impl Into<String>) -> Error {
        Error::format(message).at(self.offset())
    }

    /// Takes the next `n` bytes.
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(self.error(format!(
                "structure needs {n} more bytes, only {} remain in this block",
                self.remaining()
            )));
        }
        let out = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    /// Skips `n` bytes.
    pub fn skip(&mut self, n: usize) -> Result<()> {
        self.bytes(n).map(|_| ())
    }

    /// A sub-cursor over the next `n` bytes (advancing this one past them).
    pub fn sub(&mut self, n: usize) -> Result<Cursor<'a>> {
        let base = self.offset();
        let buf = self.bytes(n)?;
        Ok(Cursor::new(buf, base, self.widths))
    }

    /// Checks that the next bytes are `expected` (a signature).
    pub fn expect(&mut self, expected: &[u8], what: &str) -> Result<()> {
        let at = self.offset();
        let found = self.bytes(expected.len())?;
        if found != expected {
            return Err(Error::format(format!(
                "bad {what} signature: expected {:?}, found {:?}",
                String::from_utf8_lossy(expected),
                String::from_utf8_lossy(found)
            ))
            .at(at));
        }
        Ok(())
    }

    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.bytes(1)?[0])
    }

    pub fn u16(&mut self) -> Result<u16> {
        Ok(self.uint(2)? as u16)
    }

    pub fn u32(&mut self) -> Result<u32> {
        Ok(self.uint(4)? as u32)
    }

    pub fn u64(&mut self) -> Result<u64> {
        self.uint(8)
    }

    /// A little-endian unsigned integer of `width` bytes (1 to 8).
    pub fn uint(&mut self, width: u8) -> Result<u64> {
        if width == 0 || width > 8 {
            return Err(self.error(format!("unsupported field width {width}")));
        }
        let bytes = self.bytes(usize::from(width))?;
        Ok(bytes
            .iter()
            .rev()
            .fold(0u64, |acc, &b| (acc << 8) | u64::from(b)))
    }

    /// A file address; `None` for the undefined address.
    pub fn address(&mut self) -> Result<Option<u64>> {
        let v = self.uint(self.widths.offset)?;
        Ok((v != self.widths.undefined_address()).then_some(v))
    }

    /// A "size of lengths" field.
    pub fn length(&mut self) -> Result<u64> {
        self.uint(self.widths.length)
    }

    /// A NUL-terminated string of at most the rest of the block; returns it without the NUL.
    pub fn c_str(&mut self) -> Result<&'a [u8]> {
        let rest = &self.buf[self.pos..];
        match rest.iter().position(|&b| b == 0) {
            Some(n) => {
                let s = &rest[..n];
                self.pos += n + 1;
                Ok(s)
            }
            None => Err(self.error("string is not NUL-terminated within its block")),
        }
    }
}

/// Writes fields in the layout the [`Cursor`] reads. Infallible; lengths are the caller's.
#[derive(Debug, Clone, Default)]
pub struct Encoder {
    buf: Vec<u8>,
    widths: Option<Widths>,
}

impl Encoder {
    /// An empty encoder for a file with `widths`.
    pub fn new(widths: Widths) -> Self {
        Encoder {
            buf: Vec::new(),
            widths: Some(widths),
        }
    }

    fn widths(&self) -> Widths {
        self.widths.unwrap_or(Widths::STANDARD)
    }

    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Whether nothing was written yet.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// The encoded bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    /// The encoded bytes so far.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf
    }

    /// Mutable access, for back-patching.
    pub fn as_mut_bytes(&mut self) -> &mut [u8] {
        &mut self.buf
    }

    pub fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    pub fn zeros(&mut self, n: usize) {
        self.buf.resize(self.buf.len() + n, 0);
    }

    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }

    pub fn u16(&mut self, v: u16) {
        self.bytes(&v.to_le_bytes());
    }

    pub fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }

    pub fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }

    /// The low `width` bytes of `v`, little-endian.
    pub fn uint(&mut self, v: u64, width: u8) {
        self.bytes(&v.to_le_bytes()[..usize::from(width.min(8))]);
    }

    /// A file address; `None` writes the undefined address.
    pub fn address(&mut self, v: Option<u64>) {
        let w = self.widths();
        self.uint(v.unwrap_or(w.undefined_address()), w.offset);
    }

    /// A "size of lengths" field.
    pub fn length(&mut self, v: u64) {
        let w = self.widths();
        self.uint(v, w.length);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdf5lite::ErrorKind;

    #[test]
    fn reads_fields_and_reports_absolute_offsets() {
        let bytes = [
            0x01, // u8
            0x34, 0x12, // u16 0x1234
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // undefined address
            b'a', b'b', 0, // "ab\0"
        ];
        let mut c = Cursor::new(&bytes, 1000, Widths::STANDARD);
        assert_eq!(c.u8().unwrap(), 1);
        assert_eq!(c.u16().unwrap(), 0x1234);
        assert_eq!(c.address().unwrap(), None);
        assert_eq!(c.c_str().unwrap(), b"ab");
        let err = c.u8().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Format);
        assert_eq!(err.offset(), Some(1014));
    }

    #[test]
    fn narrow_widths() {
        let w = Widths {
            offset: 4,
            length: 2,
        };
        let mut c = Cursor::new(&[0xff, 0xff, 0xff, 0xff, 0x05, 0x00], 0, w);
        assert_eq!(c.address().unwrap(), None);
        assert_eq!(c.length().unwrap(), 5);
    }

    #[test]
    fn encoder_round_trips_through_cursor() {
        let mut e = Encoder::new(Widths::STANDARD);
        e.u32(7);
        e.address(Some(48));
        e.address(None);
        e.length(9);
        let bytes = e.into_bytes();
        let mut c = Cursor::new(&bytes, 0, Widths::STANDARD);
        assert_eq!(c.u32().unwrap(), 7);
        assert_eq!(c.address().unwrap(), Some(48));
        assert_eq!(c.address().unwrap(), None);
        assert_eq!(c.length().unwrap(), 9);
        assert_eq!(c.remaining(), 0);
    }

    #[test]
    fn signature_mismatch_names_both() {
        let mut c = Cursor::new(b"OHDX", 40, Widths::STANDARD);
        let err = c.expect(b"OHDR", "object header").unwrap_err();
        assert_eq!(err.offset(), Some(40));
        assert!(err.message().contains("OHDR"), "{}", err.message());
    }
}
