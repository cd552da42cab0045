//! The n-bit filter (5), built into libhdf5: each element's significant bits, packed back to
//! back. Its client data describes the datatype: the number of values, a "nothing packed"
//! flag, the element count, then the type, recursively (atomic: size, byte order,
//! precision, bit offset; array: size and base; compound: size, member count and, per
//! member, its offset and type; anything else: its size, packed as whole bytes).

use super::bits::BitReader;
use crate::hdf5lite::error::{Error, Result};

const ATOMIC: u32 = 1;
const ARRAY: u32 = 2;
const COMPOUND: u32 = 3;
const NO_OP: u32 = 4;
/// Deepest nesting of array and compound parameters followed.
const MAX_NESTING: u32 = 32;

/// Unpacks a chunk of `chunk_len` bytes.
pub fn decode(input: &[u8], client_data: &[u32], chunk_len: usize, at: u64) -> Result<Vec<u8>> {
    let bad = |what: &str| Error::format(format!("n-bit parameters: {what}")).at(at);
    let cd = |i: usize| client_data.get(i).copied().ok_or_else(|| bad("too few"));
    if cd(1)? != 0 {
        // Nothing was packed (a type with no padding bits).
        return Ok(input.to_vec());
    }
    let count = cd(2)? as usize;
    let mut out = vec![0u8; chunk_len];
    let mut bits = BitReader::new(input, at);
    let types = &client_data[3..];
    let mut elements = Unpack {
        out: &mut out,
        bits: &mut bits,
        cd: types,
        at,
        steps_left: chunk_len.saturating_mul(4).saturating_add(1024),
    };
    let size = elements.size_of(0)?;
    if count.checked_mul(size) != Some(chunk_len) {
        return Err(bad(&format!(
            "{count} elements of {size} bytes in a chunk of {chunk_len}"
        )));
    }
    for i in 0..count {
        elements.one(0, i * size, (i + 1) * size, 0)?;
    }
    Ok(out)
}

struct Unpack<'a, 'b> {
    out: &'a mut [u8],
    bits: &'a mut BitReader<'b>,
    cd: &'a [u32],
    at: u64,
    /// Types left to visit: a well-formed description visits at most a few per byte, while
    /// damaged parameters (members as large as their parent, nested) would visit
    /// exponentially many.
    steps_left: usize,
}

impl Unpack<'_, '_> {
    fn get(&self, i: usize) -> Result<u32> {
        self.cd
            .get(i)
            .copied()
            .ok_or_else(|| Error::format("n-bit parameters: too few").at(self.at))
    }

    /// The size of the type described at parameter `i`.
    fn size_of(&self, i: usize) -> Result<usize> {
        Ok(self.get(i + 1)? as usize)
    }

    /// Unpacks one element of the type described at parameter `i` into `out[offset..]`,
    /// within its parent's bytes (which end at `bound`); returns the index of the parameter
    /// after the type.
    fn one(&mut self, i: usize, offset: usize, bound: usize, depth: u32) -> Result<usize> {
        if depth > MAX_NESTING {
            return Err(Error::limits("n-bit parameters nest too deeply").at(self.at));
        }
        self.steps_left = self.steps_left.checked_sub(1).ok_or_else(|| {
            Error::format("n-bit parameters describe more members than the chunk holds").at(self.at)
        })?;
        let size = self.size_of(i)?;
        let end = offset
            .checked_add(size)
            .filter(|&e| e <= bound && e <= self.out.len())
            .ok_or_else(|| Error::format("n-bit type passes its element").at(self.at))?;
        match self.get(i)? {
            ATOMIC => {
                let order_be = self.get(i + 2)? == 1;
                let precision = self.get(i + 3)?;
                let bit_offset = self.get(i + 4)?;
                if size > 16 || precision == 0 || bit_offset + precision > 8 * size as u32 {
                    return Err(Error::format(format!(
                        "n-bit type of {size} bytes with {precision} bits at bit {bit_offset}"
                    ))
                    .at(self.at));
                }
                let v = self.bits.bits(precision)? << bit_offset;
                let le = v.to_le_bytes();
                let dst = &mut self.out[offset..end];
                for (k, byte) in dst.iter_mut().enumerate() {
                    *byte = if order_be { le[size - 1 - k] } else { le[k] };
                }
                Ok(i + 5)
            }
            ARRAY => {
                let base = i + 2;
                let base_size = self.size_of(base)?;
                if base_size == 0 || size % base_size != 0 {
                    return Err(Error::format("n-bit array of a mismatched base").at(self.at));
                }
                let mut next = base;
                for k in 0..size / base_size {
                    next = self.one(base, offset + k * base_size, end, depth + 1)?;
                }
                if size == 0 {
                    next = self.skip(base, depth + 1)?;
                }
                Ok(next)
            }
            COMPOUND => {
                let members = self.get(i + 2)? as usize;
                let mut next = i + 3;
                for _ in 0..members {
                    let member_offset = self.get(next)? as usize;
                    let at = offset
                        .checked_add(member_offset)
                        .ok_or_else(|| Error::format("n-bit member offset").at(self.at))?;
                    next = self.one(next + 1, at, end, depth + 1)?;
                }
                Ok(next)
            }
            NO_OP => {
                for byte in offset..end {
                    self.out[byte] = self.bits.bits(8)? as u8;
                }
                Ok(i + 2)
            }
            c => Err(Error::format(format!("n-bit type class {c}")).at(self.at)),
        }
    }

    /// The index after the type described at `i`, without unpacking (for empty arrays).
    fn skip(&self, i: usize, depth: u32) -> Result<usize> {
        if depth > MAX_NESTING {
            return Err(Error::limits("n-bit parameters nest too deeply").at(self.at));
        }
        match self.get(i)? {
            ATOMIC => Ok(i + 5),
            ARRAY => self.skip(i + 2, depth + 1),
            COMPOUND => {
                let mut next = i + 3;
                for _ in 0..self.get(i + 2)? {
                    next = self.skip(next + 1, depth + 1)?;
                }
                Ok(next)
            }
            NO_OP => Ok(i + 2),
            c => Err(Error::format(format!("n-bit type class {c}")).at(self.at)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_values_are_unpacked_to_their_bit_offset() {
        // Three little-endian u16 elements holding 4 bits at bit 2: 0xa, 0x3, 0xf.
        let cd = [
            8, // parameters
            0, // packed
            3, // elements
            ATOMIC, 2, 0, 4, 2, // size 2, little-endian, 4 bits at bit 2
        ];
        let packed = [0b1010_0011, 0b1111_0000];
        let out = decode(&packed, &cd, 6, 0).unwrap();
        assert_eq!(out, [0xa << 2, 0, 0x3 << 2, 0, 0xf << 2, 0]);
        // Big-endian: the same values, high byte first.
        let be = [8, 0, 3, ATOMIC, 2, 1, 4, 2];
        assert_eq!(
            decode(&packed, &be, 6, 0).unwrap(),
            [0, 0xa << 2, 0, 0x3 << 2, 0, 0xf << 2]
        );
    }

    #[test]
    fn compounds_arrays_and_no_op_members() {
        // One element: {a: array of 2 × (3 bits of u8), b: 1 opaque byte at offset 2}.
        let cd = [
            0, 0, 1, // count of parameters (unused here), packed, one element
            COMPOUND, 3, 2, // size 3, two members
            0, ARRAY, 2, ATOMIC, 1, 0, 3, 0, // a at 0: 2 bytes of u8 with 3 bits
            2, NO_OP, 1, // b at 2: one byte as is
        ];
        // Bits: 101 011 10101010 (then padding).
        let packed = [0b1010_1110, 0b1010_1000];
        assert_eq!(decode(&packed, &cd, 3, 0).unwrap(), [5, 3, 0xaa]);
    }

    #[test]
    fn unpacked_and_malformed_chunks() {
        assert_eq!(decode(&[1, 2, 3], &[8, 1], 3, 0).unwrap(), [1, 2, 3]);
        let cd = [8, 0, 4, ATOMIC, 2, 0, 4, 2];
        assert!(decode(&[0xff], &cd, 8, 0).is_err(), "too few packed bits");
        assert!(
            decode(&[0xff; 4], &cd, 6, 0).is_err(),
            "count against the chunk"
        );
        assert!(decode(&[0xff; 4], &[8, 0, 1, ATOMIC, 2, 0, 17, 0], 2, 0).is_err());
    }

    /// Found by the hdf5_filters fuzzer: compound members as large as the whole chunk inside
    /// one-byte compounds, nested, made the unpacking visit exponentially many members
    /// (a timeout). A member must fit in its parent.
    #[test]
    fn members_larger_than_their_parent_are_malformed() {
        let cd = [
            0, 0, 1, // one element
            COMPOUND, 1, 1, // size 1, one member
            0, ARRAY, 64, COMPOUND, 1, 0, // at 0: an array of 64 bytes
        ];
        let err = decode(&[0; 8], &cd, 1, 0).unwrap_err();
        assert!(err.to_string().contains("passes its element"), "{err}");
    }

    /// The hdf5_filters fuzzer's timeout: 520 M elements of a zero-byte type in an empty
    /// chunk passed the size check (0 × 520 M = 0) and were unpacked one by one.
    #[test]
    fn zero_byte_elements_cannot_loop_for_ever() {
        let cd = [0x2004_00ff, 0, 0x1f00_0000, NO_OP, 0, 0xe8bf];
        let err = decode(&[], &cd, 0, 0).unwrap_err();
        assert!(
            err.to_string()
                .contains("more members than the chunk holds"),
            "{err}"
        );
    }
}
