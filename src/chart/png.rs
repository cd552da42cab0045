//! A PNG encoder for opaque 8-bit RGB images, over the deflate sp already links (flate2):
//! each row takes the filter (none, sub, up, average or Paeth) whose bytes sum smallest,
//! the usual heuristic. The same pixels give the same bytes; no time or text chunks.

use std::io::Write as _;

use flate2::write::ZlibEncoder;
use flate2::{Compression, Crc};

/// `rgb` (`width × height × 3` bytes, rows top down) as a PNG file. `None` when the sizes
/// disagree or are zero.
pub fn encode_rgb(width: u32, height: u32, rgb: &[u8]) -> Option<Vec<u8>> {
    let row = (width as usize).checked_mul(3)?;
    if width == 0 || height == 0 || row.checked_mul(height as usize)? != rgb.len() {
        return None;
    }
    let mut filtered = Vec::with_capacity(rgb.len() + height as usize);
    let zero = vec![0u8; row];
    let mut candidate = vec![0u8; row];
    let mut best = vec![0u8; row];
    for y in 0..height as usize {
        let line = &rgb[y * row..(y + 1) * row];
        let prev = if y == 0 {
            &zero[..]
        } else {
            &rgb[(y - 1) * row..y * row]
        };
        let mut best_kind = 0u8;
        let mut best_cost = u64::MAX;
        for kind in 0..5u8 {
            for i in 0..row {
                let a = if i >= 3 { line[i - 3] } else { 0 };
                let b = prev[i];
                let c = if i >= 3 { prev[i - 3] } else { 0 };
                let predictor = match kind {
                    0 => 0,
                    1 => a,
                    2 => b,
                    3 => ((u16::from(a) + u16::from(b)) / 2) as u8,
                    _ => paeth(a, b, c),
                };
                candidate[i] = line[i].wrapping_sub(predictor);
            }
            let cost: u64 = candidate
                .iter()
                .map(|&v| u64::from((v as i8).unsigned_abs()))
                .sum();
            if cost < best_cost {
                best_cost = cost;
                best_kind = kind;
                best.copy_from_slice(&candidate);
            }
        }
        filtered.push(best_kind);
        filtered.extend_from_slice(&best);
    }
    let mut z = ZlibEncoder::new(Vec::new(), Compression::new(6));
    z.write_all(&filtered).ok()?;
    let idat = z.finish().ok()?;

    let mut out = Vec::with_capacity(idat.len() + 64);
    out.extend_from_slice(b"\x89PNG\r\n\x1a\n");
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    // 8 bits per channel, colour type 2 (RGB), deflate, adaptive filters, no interlace.
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(&mut out, b"IDAT", &idat);
    chunk(&mut out, b"IEND", &[]);
    Some(out)
}

fn paeth(a: u8, b: u8, c: u8) -> u8 {
    let p = i16::from(a) + i16::from(b) - i16::from(c);
    let (pa, pb, pc) = (
        (p - i16::from(a)).abs(),
        (p - i16::from(b)).abs(),
        (p - i16::from(c)).abs(),
    );
    if pa <= pb && pa <= pc {
        a
    } else if pb <= pc {
        b
    } else {
        c
    }
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let mut crc = Crc::new();
    crc.update(kind);
    crc.update(data);
    out.extend_from_slice(&crc.sum().to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decoder_reads_back_the_pixels() {
        let (w, h) = (37u32, 11u32);
        let rgb: Vec<u8> = (0..w * h * 3).map(|i| (i * 7 % 251) as u8).collect();
        let png = encode_rgb(w, h, &rgb).unwrap();
        let decoder = png::Decoder::new(std::io::Cursor::new(&png));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (w, h));
        assert_eq!(info.color_type, png::ColorType::Rgb);
        assert_eq!(&buf[..info.buffer_size()], &rgb[..]);
        assert_eq!(png, encode_rgb(w, h, &rgb).unwrap());
        assert_eq!(encode_rgb(2, 2, &[0; 11]), None);
        assert_eq!(encode_rgb(0, 2, &[]), None);
    }
}
