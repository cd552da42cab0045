//! The Zstandard filter (32015), as hdf5plugin and the HDF Group's plugin write it: a chunk
//! is one zstd frame. Decoded by `ruzstd` as a stream into a buffer of at most the expected
//! size plus one byte, so a frame that decompresses to more (a "zstd bomb") is malformed,
//! and nothing larger than the chunk is ever allocated.

use std::cell::RefCell;
use std::io::Read;

use ruzstd::decoding::{FrameDecoder, StreamingDecoder};

use crate::hdf5lite::error::{Error, Result};

/// Decompresses the frame in `input` into at most `max_len` bytes.
pub fn decode(input: &[u8], max_len: usize, at: u64) -> Result<Vec<u8>> {
    // The decoder's tables are kept from chunk to chunk, per thread: setting them up anew
    // costs more than decoding an 8 KiB chunk.
    thread_local! {
        static FRAMES: RefCell<FrameDecoder> = RefCell::new(FrameDecoder::new());
    }
    FRAMES.with(|frames| decode_with(&mut frames.borrow_mut(), input, max_len, at))
}

fn decode_with(
    frames: &mut FrameDecoder,
    input: &[u8],
    max_len: usize,
    at: u64,
) -> Result<Vec<u8>> {
    let corrupt =
        |e: &dyn std::fmt::Display| Error::format(format!("zstd frame is corrupt: {e}")).at(at);
    let mut source = input;
    let mut decoder =
        StreamingDecoder::new_with_decoder(&mut source, frames).map_err(|e| corrupt(&e))?;
    // One spare byte tells "exactly full" from "would overflow".
    let mut out = vec![0u8; max_len + 1];
    let mut filled = 0;
    loop {
        let n = decoder.read(&mut out[filled..]).map_err(|e| corrupt(&e))?;
        if n == 0 {
            break;
        }
        filled += n;
        if filled > max_len {
            return Err(Error::format(format!(
                "zstd frame decompresses to more than the {max_len} bytes expected"
            ))
            .at(at));
        }
    }
    out.truncate(filled);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdf5lite::ErrorKind;

    /// `zstd -19` of "hello hello hello hello\n" (24 bytes), as the zstd tool 1.5 writes it.
    const FRAME: [u8; 26] = [
        0x28, 0xb5, 0x2f, 0xfd, // magic
        0x04, // frame header: content checksum, no content size
        0x68, // window descriptor
        0x6d, 0x00, 0x00, // block header: last, compressed, 13 bytes
        0x38, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x20, 0x0a, 0x01, 0x00, 0x99, 0x4b, 0x11, 0xa8, 0x7c,
        0x2e, 0xa8, // checksum
    ];

    #[test]
    fn decodes_a_frame_libzstd_wrote() {
        let got = decode(&FRAME, 24, 0).unwrap();
        assert_eq!(got, b"hello hello hello hello\n");
    }

    #[test]
    fn a_frame_past_its_size_is_malformed_not_allocated() {
        let err = decode(&FRAME, 10, 8).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Format);
        assert_eq!(err.offset(), Some(8));
        assert_eq!(
            decode(b"not zstd", 10, 0).unwrap_err().kind(),
            ErrorKind::Format
        );
        assert!(decode(&FRAME[..15], 24, 0).is_err(), "truncated frame");
    }
}
