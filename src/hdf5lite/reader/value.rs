//! Decoding element bytes into [`Value`]s, and the numeric and string conversions of the
//! typed read methods.

use std::collections::HashMap;

use crate::hdf5lite::error::{Error, Result};
use crate::hdf5lite::model::{ByteOrder, Datatype, StrPad, StringLength};
use crate::hdf5lite::raw::cursor::Cursor;
use crate::hdf5lite::raw::global_heap::GlobalHeapCollection;

use crate::hdf5lite::raw::source::Source;

/// One decoded element of a dataset or attribute.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Any fixed-point integer, signed or not.
    Int(i128),
    /// IEEE float (f32 widened exactly).
    Float(f64),
    /// A string after its padding is removed.
    String(String),
    /// A string that is not valid UTF-8.
    Bytes(Vec<u8>),
    /// An enum value and its member name, if it has one.
    Enum { name: Option<String>, value: i128 },
    /// Members of a compound, in stored order.
    Compound(Vec<(String, Value)>),
    /// Elements of an array type, in row-major order.
    Array(Vec<Value>),
}

/// Decodes elements, resolving variable-length strings through the global heap (with a
/// per-read cache of collections).
pub(crate) struct Decoder<'s, 'a> {
    src: &'s Source<'a>,
    heaps: HashMap<u64, GlobalHeapCollection>,
}

impl<'s, 'a> Decoder<'s, 'a> {
    pub(crate) fn new(src: &'s Source<'a>) -> Self {
        Decoder {
            src,
            heaps: HashMap::new(),
        }
    }

    /// Decodes one element of `dt` from `bytes` (exactly its size), at file offset `at`.
    pub(crate) fn value(&mut self, dt: &Datatype, bytes: &[u8], at: u64) -> Result<Value> {
        Ok(match dt {
            Datatype::Integer {
                size,
                signed,
                order,
            } => Value::Int(int(bytes, *size, *signed, *order, at)?),
            Datatype::Float { size, order } => Value::Float(float(bytes, *size, *order, at)?),
            Datatype::String {
                length, padding, ..
            } => {
                let raw = match length {
                    StringLength::Fixed(_) => unpad(bytes, *padding).to_vec(),
                    StringLength::Variable => self.vlen(bytes, at)?,
                };
                match String::from_utf8(raw) {
                    Ok(s) => Value::String(s),
                    Err(e) => Value::Bytes(e.into_bytes()),
                }
            }
            Datatype::Enum { base, members } => {
                let Value::Int(v) = self.value(base, bytes, at)? else {
                    return Err(Error::unsupported("enum over a non-integer base").at(at));
                };
                let name = members
                    .iter()
                    .find(|m| m.value == bytes)
                    .map(|m| m.name.clone());
                Value::Enum { name, value: v }
            }
            Datatype::Compound { members, .. } => {
                let mut out = Vec::with_capacity(members.len());
                for m in members {
                    let size = m
                        .datatype
                        .element_size()
                        .ok_or_else(|| Error::format("member size overflows").at(at))?;
                    let start = m.offset as usize;
                    let piece = start
                        .checked_add(size as usize)
                        .and_then(|end| bytes.get(start..end))
                        .ok_or_else(|| {
                            Error::format(format!(
                                "member {} passes the end of its compound",
                                m.name
                            ))
                            .at(at)
                        })?;
                    out.push((
                        m.name.clone(),
                        self.value(&m.datatype, piece, at + start as u64)?,
                    ));
                }
                Value::Compound(out)
            }
            Datatype::Array { base, .. } => {
                let size = base
                    .element_size()
                    .filter(|&s| s > 0)
                    .ok_or_else(|| Error::format("array base of size 0").at(at))?;
                let mut out = Vec::new();
                for (i, piece) in bytes.chunks_exact(size as usize).enumerate() {
                    out.push(self.value(base, piece, at + i as u64 * size)?);
                }
                Value::Array(out)
            }
        })
    }

    /// The bytes of a variable-length string from its descriptor (length, collection
    /// address, object index).
    pub(crate) fn vlen(&mut self, bytes: &[u8], at: u64) -> Result<Vec<u8>> {
        let w = self.src.widths();
        let mut c = Cursor::new(bytes, at, w);
        let len = c.u32()? as usize;
        let addr = c.address()?;
        let index = c.u32()?;
        let addr = match addr {
            Some(a) if a != 0 => a,
            _ if len == 0 => return Ok(Vec::new()),
            _ => return Err(Error::format("variable-length string with no heap address").at(at)),
        };
        if !self.heaps.contains_key(&addr) {
            let abs = self.src.absolute(addr)?;
            let heap = GlobalHeapCollection::read(self.src.reader(), abs, w, self.src.limits())?;
            self.heaps.insert(addr, heap);
        }
        let obj = self.heaps[&addr].get(index).ok_or_else(|| {
            Error::format(format!("global heap object {index} is missing")).at(at)
        })?;
        obj.get(..len).map(<[u8]>::to_vec).ok_or_else(|| {
            Error::format(format!(
                "string of {len} bytes in a heap object of {} bytes",
                obj.len()
            ))
            .at(at)
        })
    }
}

/// The string bytes of a fixed-length string after its padding.
pub fn unpad(bytes: &[u8], padding: StrPad) -> &[u8] {
    match padding {
        StrPad::NullTerm => bytes.split(|&b| b == 0).next().unwrap_or(&[]),
        StrPad::NullPad => {
            let n = bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
            &bytes[..n]
        }
        StrPad::SpacePad => {
            let n = bytes.iter().rposition(|&b| b != b' ').map_or(0, |i| i + 1);
            &bytes[..n]
        }
    }
}

/// An integer of 1–16 bytes in either byte order.
pub fn int(bytes: &[u8], size: u32, signed: bool, order: ByteOrder, at: u64) -> Result<i128> {
    let n = size as usize;
    if n == 0 || n > 16 || bytes.len() != n {
        return Err(Error::unsupported(format!("integer of {size} bytes")).at(at));
    }
    let mut le = [0u8; 16];
    le[..n].copy_from_slice(bytes);
    if order == ByteOrder::Big {
        le[..n].reverse();
    }
    let negative = signed && le[n - 1] & 0x80 != 0;
    if negative {
        le[n..].fill(0xff);
    }
    let v = i128::from_le_bytes(le);
    if !signed && n == 16 && v < 0 {
        return Err(Error::unsupported("unsigned 128-bit integer above i128::MAX").at(at));
    }
    Ok(v)
}

/// An IEEE float of 4 or 8 bytes in either byte order.
pub fn float(bytes: &[u8], size: u32, order: ByteOrder, at: u64) -> Result<f64> {
    let mut b = bytes.to_vec();
    if order == ByteOrder::Big {
        b.reverse();
    }
    match (size, b.as_slice()) {
        (4, &[a, b1, c, d]) => Ok(f64::from(f32::from_le_bytes([a, b1, c, d]))),
        (8, &[a, b1, c, d, e, f, g, h]) => Ok(f64::from_le_bytes([a, b1, c, d, e, f, g, h])),
        _ => Err(Error::unsupported(format!("floating-point type of {size} bytes")).at(at)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_of_any_width_and_order() {
        assert_eq!(int(&[0xff, 0xfe], 2, true, ByteOrder::Big, 0).unwrap(), -2);
        assert_eq!(
            int(&[0xfe, 0xff], 2, false, ByteOrder::Little, 0).unwrap(),
            65534
        );
        assert_eq!(
            int(&[0x80, 0, 0], 3, true, ByteOrder::Big, 0).unwrap(),
            -(1 << 23)
        );
        assert_eq!(
            int(&[0xff; 8], 8, false, ByteOrder::Little, 0).unwrap(),
            u64::MAX as i128
        );
    }

    #[test]
    fn floats_both_orders() {
        assert_eq!(
            float(&1.5f64.to_be_bytes(), 8, ByteOrder::Big, 0).unwrap(),
            1.5
        );
        assert_eq!(
            float(&2.5f32.to_le_bytes(), 4, ByteOrder::Little, 0).unwrap(),
            2.5
        );
    }

    #[test]
    fn padding_rules() {
        assert_eq!(unpad(b"ab\0cd\0", StrPad::NullTerm), b"ab");
        assert_eq!(unpad(b"ab\0cd\0", StrPad::NullPad), b"ab\0cd");
        assert_eq!(unpad(b"ab  ", StrPad::SpacePad), b"ab");
    }
}
