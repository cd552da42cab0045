//! The LZF filter (32000), as h5py registers it: a chunk is one raw LZF stream (no header).
//! Decoded by the `lzf-rust` crate into a buffer of exactly the expected size, so a stream
//! that claims more is malformed, never a larger allocation.

use crate::hdf5lite::error::{Error, Result};

/// Decompresses `input` into at most `max_len` bytes.
pub fn decode(input: &[u8], max_len: usize, at: u64) -> Result<Vec<u8>> {
    let mut out = vec![0u8; max_len];
    match lzf_rust::decompress(input, &mut out) {
        Ok(n) => {
            out.truncate(n);
            Ok(out)
        }
        Err(lzf_rust::Error::OutputTooSmall) => Err(Error::format(format!(
            "lzf stream decompresses to more than the {max_len} bytes expected"
        ))
        .at(at)),
        Err(e) => Err(Error::format(format!("lzf stream is corrupt: {e}")).at(at)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdf5lite::ErrorKind;

    /// A literal run of 3 bytes, then a back reference of length 7 at distance 3:
    /// "abc" + "abcabca".
    const STREAM: [u8; 6] = [
        0x02, b'a', b'b', b'c', // literal run: control 0..31 = length - 1
        0xa0, 0x02, // back reference: length 5 + 2 = 7 (top 3 bits 5), distance 2 + 1
    ];

    #[test]
    fn literal_runs_and_back_references() {
        assert_eq!(decode(&STREAM, 10, 0).unwrap(), b"abcabcabca");
    }

    #[test]
    fn a_stream_past_its_size_is_malformed_not_allocated() {
        let err = decode(&STREAM, 6, 40).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Format);
        assert_eq!(err.offset(), Some(40));
        assert!(
            decode(&[0x1f, 1], 100, 0).is_err(),
            "literal run past the input"
        );
        assert!(
            decode(&[0xe0, 0xff, 0xff], 100, 0).is_err(),
            "reference before the start"
        );
    }
}
