//! The modification-time messages: the current one (0x0012, version 1, seconds since the
//! epoch) and the old one (0x000E, `YYYYMMDDhhmmss` in ASCII). Readers skip them; parsed
//! for diagnostics.

use crate::hdf5lite::error::{Error, Result};
use crate::hdf5lite::raw::cursor::Cursor;

/// When an object was last modified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModificationTime {
    /// Seconds since the Unix epoch (message 0x0012).
    Seconds(u32),
    /// The old message's UTC timestamp text, `YYYYMMDDhhmmss` (message 0x000E).
    Text(String),
}

impl ModificationTime {
    /// Parses a 0x0012 message body.
    pub fn parse(c: &mut Cursor<'_>) -> Result<ModificationTime> {
        let at = c.offset();
        let version = c.u8()?;
        if version != 1 {
            return Err(
                Error::unsupported(format!("modification time message version {version}")).at(at),
            );
        }
        c.skip(3)?;
        Ok(ModificationTime::Seconds(c.u32()?))
    }

    /// Parses a 0x000E message body.
    pub fn parse_old(c: &mut Cursor<'_>) -> Result<ModificationTime> {
        let at = c.offset();
        let raw = c.bytes(14)?;
        c.skip(2)?;
        if !raw.iter().all(u8::is_ascii_digit) {
            return Err(Error::format("old modification time is not 14 digits").at(at));
        }
        Ok(ModificationTime::Text(
            raw.iter().map(|&b| char::from(b)).collect(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdf5lite::raw::cursor::Widths;
    use crate::hdf5lite::ErrorKind;

    #[test]
    fn both_forms() {
        let v1 = [1, 0, 0, 0, 0x00, 0x5e, 0xd0, 0xb2]; // version 1, reserved, 3000000000
        let t = ModificationTime::parse(&mut Cursor::new(&v1, 0, Widths::STANDARD)).unwrap();
        assert_eq!(t, ModificationTime::Seconds(3_000_000_000));
        let old = b"20240131235959\0\0";
        let t = ModificationTime::parse_old(&mut Cursor::new(old, 0, Widths::STANDARD)).unwrap();
        assert_eq!(t, ModificationTime::Text("20240131235959".into()));
        let bad = b"2024013123595x\0\0";
        let err = ModificationTime::parse_old(&mut Cursor::new(bad, 0, Widths::STANDARD));
        assert_eq!(err.unwrap_err().kind(), ErrorKind::Format);
    }
}
