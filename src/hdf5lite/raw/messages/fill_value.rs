//! The fill-value messages: the old one (0x0004, just the value) and the new one (0x0005,
//! versions 1–3, with allocation and write times). Encodes version 3.

use crate::hdf5lite::error::{Error, Result};
use crate::hdf5lite::raw::cursor::{Cursor, Encoder};

/// When storage is allocated (`H5D_ALLOC_TIME_*`).
pub mod alloc_time {
    pub const EARLY: u8 = 1;
    pub const LATE: u8 = 2;
    pub const INCREMENTAL: u8 = 3;
}

/// When the fill value is written (`H5D_FILL_TIME_*`).
pub mod fill_time {
    pub const ON_ALLOCATION: u8 = 0;
    pub const NEVER: u8 = 1;
    pub const IF_SET: u8 = 2;
}

/// Whether and how a fill value is defined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FillValueState {
    /// The library default (zero bytes).
    Default,
    /// Explicitly undefined.
    Undefined,
    /// A user value, encoded in the dataset's datatype.
    User(Vec<u8>),
}

/// A fill-value message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FillValue {
    pub alloc_time: u8,
    pub fill_time: u8,
    pub value: FillValueState,
}

impl FillValue {
    /// What h5py writes for a contiguous numeric or compound dataset: late allocation,
    /// write the fill value if one was set, default value.
    pub const NUMERIC: FillValue = FillValue {
        alloc_time: alloc_time::LATE,
        fill_time: fill_time::IF_SET,
        value: FillValueState::Default,
    };

    /// What h5py writes for a variable-length string dataset: as [`Self::NUMERIC`] but the
    /// (default) fill value is written on allocation.
    pub const VLEN: FillValue = FillValue {
        alloc_time: alloc_time::LATE,
        fill_time: fill_time::ON_ALLOCATION,
        value: FillValueState::Default,
    };

    /// Parses the old fill-value message (0x0004): a size and the value.
    pub fn parse_old(c: &mut Cursor<'_>) -> Result<FillValue> {
        let size = c.u32()?;
        let value = c.bytes(size as usize)?;
        Ok(FillValue {
            alloc_time: alloc_time::LATE,
            fill_time: fill_time::IF_SET,
            value: if value.is_empty() {
                FillValueState::Default
            } else {
                FillValueState::User(value.to_vec())
            },
        })
    }

    /// Parses a new fill-value message (0x0005), versions 1–3.
    pub fn parse(c: &mut Cursor<'_>) -> Result<FillValue> {
        let at = c.offset();
        let version = c.u8()?;
        match version {
            1 | 2 => {
                let alloc_time = c.u8()?;
                let fill_time = c.u8()?;
                let defined = c.u8()?;
                let value = if version == 1 || defined != 0 {
                    let size = c.u32()?;
                    let bytes = c.bytes(size as usize)?;
                    if defined == 0 {
                        FillValueState::Undefined
                    } else if bytes.is_empty() {
                        FillValueState::Default
                    } else {
                        FillValueState::User(bytes.to_vec())
                    }
                } else {
                    FillValueState::Undefined
                };
                Ok(FillValue {
                    alloc_time,
                    fill_time,
                    value,
                })
            }
            3 => {
                let flags = c.u8()?;
                let value = if flags & 0x20 != 0 {
                    let size = c.u32()?;
                    FillValueState::User(c.bytes(size as usize)?.to_vec())
                } else if flags & 0x10 != 0 {
                    FillValueState::Undefined
                } else {
                    FillValueState::Default
                };
                Ok(FillValue {
                    alloc_time: flags & 0x03,
                    fill_time: (flags >> 2) & 0x03,
                    value,
                })
            }
            v => Err(Error::unsupported(format!("fill value message version {v}")).at(at)),
        }
    }

    /// Encodes a version 3 message body.
    pub fn encode(&self, e: &mut Encoder) {
        e.u8(3);
        let times = (self.alloc_time & 0x03) | (self.fill_time & 0x03) << 2;
        match &self.value {
            FillValueState::Default => e.u8(times),
            FillValueState::Undefined => e.u8(times | 0x10),
            FillValueState::User(v) => {
                e.u8(times | 0x20);
                e.u32(v.len() as u32);
                e.bytes(v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdf5lite::raw::cursor::Widths;
    use crate::hdf5lite::ErrorKind;

    fn parse(bytes: &[u8]) -> Result<FillValue> {
        FillValue::parse(&mut Cursor::new(bytes, 0, Widths::STANDARD))
    }

    fn enc(f: &FillValue) -> Vec<u8> {
        let mut e = Encoder::new(Widths::STANDARD);
        f.encode(&mut e);
        e.into_bytes()
    }

    #[test]
    fn v2_as_h5py_writes_it() {
        let numeric = [
            2, // version
            2, // late allocation
            2, // fill if set
            1, // defined
            0, 0, 0, 0, // size 0: library default
        ];
        assert_eq!(parse(&numeric).unwrap(), FillValue::NUMERIC);
        let vlen = [2, 2, 0, 1, 0, 0, 0, 0];
        assert_eq!(parse(&vlen).unwrap(), FillValue::VLEN);
        assert_eq!(
            parse(&[2, 3, 2, 0]).unwrap().value,
            FillValueState::Undefined
        );
    }

    #[test]
    fn v1_always_has_size() {
        let bytes = [1, 1, 0, 1, 2, 0, 0, 0, 0xab, 0xcd];
        assert_eq!(
            parse(&bytes).unwrap(),
            FillValue {
                alloc_time: alloc_time::EARLY,
                fill_time: fill_time::ON_ALLOCATION,
                value: FillValueState::User(vec![0xab, 0xcd])
            }
        );
    }

    #[test]
    fn v3_encodings() {
        assert_eq!(enc(&FillValue::NUMERIC), [3, 0x0a]); // late | if-set << 2
        assert_eq!(enc(&FillValue::VLEN), [3, 0x02]);
        let user = FillValue {
            alloc_time: alloc_time::INCREMENTAL,
            fill_time: fill_time::NEVER,
            value: FillValueState::User(vec![7, 0, 0, 0]),
        };
        assert_eq!(enc(&user), [3, 0x27, 4, 0, 0, 0, 7, 0, 0, 0]);
        let undefined = FillValue {
            value: FillValueState::Undefined,
            ..FillValue::NUMERIC
        };
        for f in [FillValue::NUMERIC, FillValue::VLEN, user, undefined] {
            assert_eq!(parse(&enc(&f)).unwrap(), f);
        }
    }

    #[test]
    fn old_message_and_errors() {
        let old = [4, 0, 0, 0, 1, 2, 3, 4];
        let f = FillValue::parse_old(&mut Cursor::new(&old, 0, Widths::STANDARD)).unwrap();
        assert_eq!(f.value, FillValueState::User(vec![1, 2, 3, 4]));
        assert_eq!(parse(&[4, 0]).unwrap_err().kind(), ErrorKind::Unsupported);
        // Claims a 1 GiB value in a 9-byte message.
        assert_eq!(
            parse(&[3, 0x20, 0, 0, 0, 0x40, 1]).unwrap_err().kind(),
            ErrorKind::Format
        );
    }
}
