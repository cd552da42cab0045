//! The scale-offset filter (6), built into libhdf5: each chunk stores its minimum and every
//! element as an unsigned offset from it in the fewest bits that hold the span (floats
//! first scaled by 10^D and rounded). A header of 21 bytes leads the chunk: the bit width
//! (4 bytes, little-endian), the width of the minimum (1 byte), the minimum (8 bytes,
//! little-endian; a float's own bits for floats), padding. Client data: scale type (0
//! float with decimal scale D, 2 integer), the scale factor D, the element count, class
//! (0 integer, 1 float), element size, sign, byte order (0 little-endian), whether a fill
//! value is defined, then the fill value's bytes as 32-bit words. With a fill value, the
//! all-ones offset stands for it.

use super::bits::BitReader;
use crate::hdf5lite::error::{Error, Result};

/// Bytes before the packed offsets.
const HEADER: usize = 21;

/// Decodes a chunk of `chunk_len` bytes.
pub fn decode(input: &[u8], cd: &[u32], chunk_len: usize, at: u64) -> Result<Vec<u8>> {
    let bad = |what: String| Error::format(format!("scale-offset: {what}")).at(at);
    let [scale_type, factor, count, class, size, sign, order, fill_defined] = cd
        .get(..8)
        .and_then(|c| <[u32; 8]>::try_from(c).ok())
        .ok_or_else(|| bad("too few parameters".into()))?;
    let (count, size) = (count as usize, size as usize);
    if !matches!(size, 1 | 2 | 4 | 8) || count.checked_mul(size) != Some(chunk_len) {
        return Err(bad(format!(
            "{count} elements of {size} bytes in a chunk of {chunk_len}"
        )));
    }
    if order != 0 {
        return Err(Error::unsupported("scale-offset filter on big-endian data").at(at));
    }
    let header = input
        .get(..HEADER)
        .ok_or_else(|| bad("chunk shorter than its header".into()))?;
    let minbits = u32::from_le_bytes([header[0], header[1], header[2], header[3]]);
    let min_width = usize::from(header[4]).min(8);
    let mut min_bytes = [0u8; 8];
    min_bytes[..min_width].copy_from_slice(&header[5..5 + min_width]);
    let minval = u64::from_le_bytes(min_bytes);
    let bits_total = 8 * size as u32;
    if minbits > bits_total {
        return Err(bad(format!("{minbits} bits for {size}-byte elements")));
    }
    let body = &input[HEADER..];
    if minbits == bits_total {
        // Stored as they are.
        return body
            .get(..chunk_len)
            .map(<[u8]>::to_vec)
            .ok_or_else(|| bad("chunk shorter than its elements".into()));
    }
    let fill = (fill_defined == 1).then(|| {
        let words: Vec<u8> = cd[8..].iter().flat_map(|w| w.to_le_bytes()).collect();
        let mut b = [0u8; 8];
        let n = words.len().min(size);
        b[..n].copy_from_slice(&words[..n]);
        u64::from_le_bytes(b)
    });
    let all_ones = if minbits == 0 {
        0
    } else {
        (1u64 << minbits) - 1
    };
    let mut offsets = BitReader::new(body, at);
    let mut out = Vec::with_capacity(chunk_len);
    for _ in 0..count {
        let v = if minbits == 0 {
            0
        } else {
            offsets.bits(minbits)? as u64
        };
        let element: u64 = match (class, scale_type) {
            (0, 2) => match fill {
                Some(f) if v == all_ones => f,
                // Wrapping in the element's width, as C does in its own type.
                _ => v.wrapping_add(minval),
            },
            (1, 0) => {
                let is_fill = fill.is_some() && v == all_ones;
                match size {
                    4 => {
                        let min = f32::from_bits(minval as u32);
                        match fill {
                            Some(f) if is_fill => f,
                            _ => {
                                let x = (v as u32 as i32) as f32 / 10f32.powi(factor as i32) + min;
                                u64::from(x.to_bits())
                            }
                        }
                    }
                    8 => {
                        let min = f64::from_bits(minval);
                        match fill {
                            Some(f) if is_fill => f,
                            _ => ((v as i64) as f64 / 10f64.powi(factor as i32) + min).to_bits(),
                        }
                    }
                    _ => return Err(bad(format!("float of {size} bytes"))),
                }
            }
            (1, 1) => {
                return Err(Error::unsupported(
                    "scale-offset filter with exponent scaling (not implemented by libhdf5)",
                )
                .at(at))
            }
            (c, t) => return Err(bad(format!("class {c} with scale type {t}"))),
        };
        let _ = sign;
        out.extend_from_slice(&element.to_le_bytes()[..size]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first chunk libhdf5 2.0 wrote (through h5py) for `np.arange(100, dtype="<i4") * 3
    /// - 50` in chunks of 10 with `scaleoffset=0`.
    #[test]
    fn integers_as_libhdf5_wrote_them() {
        let cd = [2, 0, 10, 0, 4, 1, 0, 1, 0];
        let mut chunk = vec![
            5, 0, 0, 0, // 5 bits per element
            8, // an 8-byte minimum
            0xce, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // -50
            0, 0, 0, 0, 0, 0, 0, 0, // padding to 21 bytes
        ];
        chunk.extend_from_slice(&[0x00, 0xcc, 0x96, 0x3e, 0x55, 0xc6, 0xc0]);
        let out = decode(&chunk, &cd, 40, 0).unwrap();
        let got: Vec<i32> = out
            .chunks_exact(4)
            .map(|b| i32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(got, (0..10).map(|i| i * 3 - 50).collect::<Vec<_>>());
    }

    #[test]
    fn fill_values_floats_and_full_width() {
        // u8 values with fill 7 defined: offsets 0, 1 and all-ones (3 in 2 bits) above 10.
        let cd = [2, 0, 3, 0, 1, 0, 0, 1, 7];
        let mut chunk = vec![2, 0, 0, 0, 8, 10, 0, 0, 0, 0, 0, 0, 0];
        chunk.extend_from_slice(&[0; 8]);
        chunk.push(0b00_01_11_00);
        assert_eq!(decode(&chunk, &cd, 3, 0).unwrap(), [10, 11, 7]);
        // f32 with D = 1 over a minimum of -1.0: offsets 0 and 15 are -1.0 and 0.5.
        let cd = [0, 1, 2, 1, 4, 0, 0, 0];
        let mut chunk = vec![4, 0, 0, 0, 8];
        chunk.extend_from_slice(&(-1.0f32).to_bits().to_le_bytes());
        chunk.extend_from_slice(&[0; 12]);
        chunk.push(0b0000_1111);
        let out = decode(&chunk, &cd, 8, 0).unwrap();
        assert_eq!(&out[..4], (-1.0f32).to_le_bytes());
        assert_eq!(&out[4..], (15f32 / 10.0 - 1.0).to_le_bytes());
        // Full width: stored as they are.
        let cd = [2, 0, 1, 0, 2, 0, 0, 0];
        let mut chunk = vec![16, 0, 0, 0, 8];
        chunk.extend_from_slice(&[0; 16]);
        chunk.extend_from_slice(&[0x34, 0x12]);
        assert_eq!(decode(&chunk, &cd, 2, 0).unwrap(), [0x34, 0x12]);
    }

    #[test]
    fn malformed_chunks() {
        let cd = [2, 0, 10, 0, 4, 1, 0, 0];
        assert!(decode(&[5, 0, 0], &cd, 40, 0).is_err(), "short header");
        let mut chunk = vec![5, 0, 0, 0, 8];
        chunk.extend_from_slice(&[0; 16]);
        assert!(decode(&chunk, &cd, 40, 0).is_err(), "no packed offsets");
        assert!(
            decode(&chunk, &cd, 41, 0).is_err(),
            "count against the chunk"
        );
        assert_eq!(
            decode(&chunk, &[2, 0, 10, 0, 4, 1, 1, 0], 40, 0)
                .unwrap_err()
                .kind(),
            crate::hdf5lite::ErrorKind::Unsupported
        );
    }
}
