//! The Object Header Continuation Message (0x0010): where the next chunk of an object
//! header lives.

use crate::hdf5lite::error::Result;
use crate::hdf5lite::raw::cursor::{Cursor, Encoder};

/// Address and length of a further object-header chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Continuation {
    pub address: u64,
    pub length: u64,
}

impl Continuation {
    /// Parses a message body.
    pub fn parse(c: &mut Cursor<'_>) -> Result<Continuation> {
        let address = c
            .address()?
            .ok_or_else(|| c.error("continuation to the undefined address"))?;
        Ok(Continuation {
            address,
            length: c.length()?,
        })
    }

    /// Encodes a message body.
    pub fn encode(&self, e: &mut Encoder) {
        e.address(Some(self.address));
        e.length(self.length);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdf5lite::raw::cursor::Widths;

    #[test]
    fn round_trip() {
        let bytes = [0x00, 0x10, 0, 0, 0, 0, 0, 0, 0x90, 0, 0, 0, 0, 0, 0, 0];
        let k = Continuation::parse(&mut Cursor::new(&bytes, 0, Widths::STANDARD)).unwrap();
        assert_eq!(
            k,
            Continuation {
                address: 4096,
                length: 144
            }
        );
        let mut e = Encoder::new(Widths::STANDARD);
        k.encode(&mut e);
        assert_eq!(e.as_bytes(), bytes);
    }
}
