//! Reading a packed bit stream most significant bit first, as the n-bit and scale-offset
//! filters write one.

use crate::hdf5lite::error::{Error, Result};

/// A cursor over the bits of a byte string, each byte from its high bit down.
pub(super) struct BitReader<'a> {
    bytes: &'a [u8],
    /// Bits consumed so far.
    pos: usize,
    /// File offset of the stream, for errors.
    at: u64,
}

impl<'a> BitReader<'a> {
    pub(super) fn new(bytes: &'a [u8], at: u64) -> Self {
        BitReader { bytes, pos: 0, at }
    }

    /// The next `n` bits (at most 128) as an unsigned number, the first bit the highest.
    pub(super) fn bits(&mut self, n: u32) -> Result<u128> {
        let n = n as usize;
        if n > 128 || self.pos + n > self.bytes.len() * 8 {
            return Err(Error::format(format!(
                "packed data ends after {} bits, {} more needed",
                self.pos, n
            ))
            .at(self.at));
        }
        let mut v: u128 = 0;
        let mut left = n;
        while left > 0 {
            let byte = self.bytes[self.pos / 8];
            let used = self.pos % 8;
            let take = (8 - used).min(left);
            let chunk = (byte >> (8 - used - take)) & ((1u16 << take) - 1) as u8;
            v = (v << take) | u128::from(chunk);
            self.pos += take;
            left -= take;
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_across_byte_boundaries_high_bit_first() {
        // 0b00000_000 11_00110_0 ...: 5-bit fields 0, 3, 6 (from the scale-offset chunk
        // libhdf5 wrote for 0, 3, 6, … above a minimum).
        let mut r = BitReader::new(&[0x00, 0xcc, 0x96], 0);
        assert_eq!(r.bits(5).unwrap(), 0);
        assert_eq!(r.bits(5).unwrap(), 3);
        assert_eq!(r.bits(5).unwrap(), 6);
        assert_eq!(r.bits(9).unwrap(), 0b0_1001_0110);
        assert!(r.bits(1).is_err());
    }
}
