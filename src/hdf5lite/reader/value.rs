//! Decoding element bytes into [`Value`]s, and the numeric and string conversions of the
//! typed read methods.

use std::collections::HashMap;

use crate::hdf5lite::error::{Error, Result};
use crate::hdf5lite::model::{BitRange, ByteOrder, Datatype, ReferenceKind, StrPad, StringLength};
use crate::hdf5lite::raw::cursor::Cursor;
use crate::hdf5lite::raw::global_heap::GlobalHeapCollection;
use crate::hdf5lite::raw::source::Source;

use super::selection::{self, Reference};

/// One decoded element of a dataset or attribute.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Any fixed-point integer, signed or not; also bit fields and times.
    Int(i128),
    /// IEEE float (binary16 and binary32 widened exactly).
    Float(f64),
    /// A string after its padding is removed.
    String(String),
    /// A string that is not valid UTF-8, or an opaque element.
    Bytes(Vec<u8>),
    /// An enum value and its member name, if it has one.
    Enum { name: Option<String>, value: i128 },
    /// Members of a compound, in stored order.
    Compound(Vec<(String, Value)>),
    /// Elements of an array type in row-major order, or of a variable-length sequence.
    Array(Vec<Value>),
    /// An object or region reference, with the path of what it points at.
    Reference(Reference),
}

/// Finds the path of the object whose header is at an address, for references.
pub(crate) type PathOf<'p> = &'p dyn Fn(u64) -> Result<Option<String>>;

/// The bytes of a global heap collection read before the rest is needed (the attributes'
/// strings lie at its start).
const HEAP_PREFIX: u64 = 4096;

/// Decodes elements, resolving variable-length data through the global heap (with a
/// per-read cache of collections) and references through `path_of`.
pub(crate) struct Decoder<'s, 'a> {
    src: &'s Source<'a>,
    path_of: PathOf<'s>,
    heaps: HashMap<u64, GlobalHeapCollection>,
    /// The collection of the last object asked for, out of `heaps`: consecutive elements
    /// lie in one collection, and a hash lookup per element took a tenth of reading a
    /// 100,000-rank index's strings.
    current: Option<(u64, GlobalHeapCollection)>,
}

impl<'s, 'a> Decoder<'s, 'a> {
    pub(crate) fn new(src: &'s Source<'a>, path_of: PathOf<'s>) -> Self {
        Decoder {
            src,
            path_of,
            heaps: HashMap::new(),
            current: None,
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
            Datatype::NarrowInteger {
                size,
                signed,
                order,
                bits,
            } => Value::Int(bits_of(bytes, *size, *order, *bits, *signed, at)?),
            Datatype::Bitfield { size, order, bits } => {
                Value::Int(bits_of(bytes, *size, *order, *bits, false, at)?)
            }
            Datatype::Time { size, order } => Value::Int(int(bytes, *size, true, *order, at)?),
            Datatype::Float { size, order } => Value::Float(float(bytes, *size, *order, at)?),
            Datatype::String {
                length, padding, ..
            } => {
                let raw = match length {
                    StringLength::Fixed(_) => unpad(bytes, *padding).to_vec(),
                    StringLength::Variable => self.vlen(bytes, 1, at)?,
                };
                match String::from_utf8(raw) {
                    Ok(s) => Value::String(s),
                    Err(e) => Value::Bytes(e.into_bytes()),
                }
            }
            Datatype::Opaque { .. } => Value::Bytes(bytes.to_vec()),
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
                    let piece = usize::try_from(size)
                        .ok()
                        .and_then(|size| start.checked_add(size))
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
            Datatype::Array { base, .. } => Value::Array(self.elements(base, bytes, at)?),
            Datatype::Sequence { base } => {
                let size = element_size(base, at)?;
                let raw = self.vlen(bytes, size, at)?;
                Value::Array(self.elements(base, &raw, at)?)
            }
            Datatype::Reference { kind, .. } => Value::Reference(self.reference(*kind, bytes, at)?),
            Datatype::Unsupported { reason, .. } => {
                return Err(Error::unsupported(reason.clone()).at(at))
            }
        })
    }

    /// The elements of `base` packed back to back in `bytes`.
    fn elements(&mut self, base: &Datatype, bytes: &[u8], at: u64) -> Result<Vec<Value>> {
        let size = element_size(base, at)?;
        let mut out = Vec::new();
        for (i, piece) in bytes.chunks_exact(size).enumerate() {
            out.push(self.value(base, piece, at + (i * size) as u64)?);
        }
        Ok(out)
    }

    /// The bytes of a variable-length element from its descriptor (length in units of
    /// `unit` bytes, collection address, object index).
    pub(crate) fn vlen(&mut self, bytes: &[u8], unit: usize, at: u64) -> Result<Vec<u8>> {
        self.vlen_bytes(bytes, unit, at).map(<[u8]>::to_vec)
    }

    /// [`vlen`](Self::vlen) without the copy: the bytes in their cached heap collection.
    pub(crate) fn vlen_bytes(&mut self, bytes: &[u8], unit: usize, at: u64) -> Result<&[u8]> {
        let mut c = Cursor::new(bytes, at, self.src.widths());
        let len = c.u32()? as usize;
        let addr = c.address()?;
        let index = c.u32()?;
        let addr = match addr {
            // Nothing to read: an empty string's object (one per empty string in a
            // 100,000-rank index) is not looked up.
            _ if len == 0 => return Ok(&[]),
            Some(a) if a != 0 => a,
            _ => return Err(Error::format("variable-length data with no heap address").at(at)),
        };
        let obj = self.heap_object(addr, index, at)?;
        let size = obj.len();
        len.checked_mul(unit)
            .and_then(|n| obj.get(..n))
            .ok_or_else(|| {
                Error::format(format!(
                    "{len} elements of {unit} bytes in a heap object of {size} bytes"
                ))
                .at(at)
            })
    }

    /// Object `index` of the global heap collection at `addr`.
    /// A collection is first read for its first [`HEAP_PREFIX`] bytes, and whole when an
    /// object lies past them.
    fn heap_object(&mut self, addr: u64, index: u32, at: u64) -> Result<&[u8]> {
        let abs = self.src.absolute(addr)?;
        let (w, limits) = (self.src.widths(), self.src.limits());
        if self.current.as_ref().is_none_or(|(a, _)| *a != addr) {
            let heap = match self.heaps.remove(&addr) {
                Some(heap) => heap,
                None => GlobalHeapCollection::read_prefix(
                    self.src.reader(),
                    abs,
                    w,
                    limits,
                    HEAP_PREFIX,
                )?,
            };
            if let Some((old, collection)) = self.current.replace((addr, heap)) {
                self.heaps.insert(old, collection);
            }
        }
        if (self.current.as_ref()).is_some_and(|(_, h)| h.is_prefix() && h.get(index).is_none()) {
            let heap = GlobalHeapCollection::read(self.src.reader(), abs, w, limits)?;
            self.current = Some((addr, heap));
        }
        let Some((_, heap)) = &self.current else {
            return Err(Error::format("no global heap collection").at(at));
        };
        heap.get(index)
            .ok_or_else(|| Error::format(format!("global heap object {index} is missing")).at(at))
    }

    /// An object reference (an object header address) or a region reference (a global
    /// heap object holding the address and a serialized selection).
    fn reference(&mut self, kind: ReferenceKind, bytes: &[u8], at: u64) -> Result<Reference> {
        let mut c = Cursor::new(bytes, at, self.src.widths());
        match kind {
            ReferenceKind::Object => match c.address()? {
                None | Some(0) => Ok(Reference::Null),
                Some(address) => Ok(Reference::Object {
                    address,
                    path: (self.path_of)(address)?,
                }),
            },
            ReferenceKind::Region => {
                let heap = c.address()?;
                let index = c.u32()?;
                let Some(heap) = heap.filter(|&a| a != 0) else {
                    return Ok(Reference::Null);
                };
                let widths = self.src.widths();
                let limit = self.src.limits().max_object_entries;
                let object = self.heap_object(heap, index, at)?.to_vec();
                let mut c = Cursor::new(&object, at, widths);
                let address = c
                    .address()?
                    .ok_or_else(|| Error::format("region reference to no object").at(at))?;
                let selection = selection::Selection::parse(&mut c, limit)?;
                Ok(Reference::Region {
                    address,
                    path: (self.path_of)(address)?,
                    selection,
                })
            }
        }
    }
}

fn element_size(dt: &Datatype, at: u64) -> Result<usize> {
    dt.element_size()
        .filter(|&s| s > 0)
        .and_then(|s| usize::try_from(s).ok())
        .ok_or_else(|| Error::format("element of size 0 or too large").at(at))
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

/// The bytes of an element of 1–16 bytes, least significant first, in 16 bytes (zero
/// above `size`).
fn little_endian(bytes: &[u8], size: u32, order: ByteOrder, at: u64) -> Result<[u8; 16]> {
    let n = size as usize;
    if n == 0 || n > 16 || bytes.len() != n {
        return Err(Error::unsupported(format!("integer of {size} bytes")).at(at));
    }
    let mut le = [0u8; 16];
    le[..n].copy_from_slice(bytes);
    if order == ByteOrder::Big {
        le[..n].reverse();
    }
    Ok(le)
}

/// An integer of 1–16 bytes in either byte order.
pub fn int(bytes: &[u8], size: u32, signed: bool, order: ByteOrder, at: u64) -> Result<i128> {
    let mut le = little_endian(bytes, size, order, at)?;
    let n = size as usize;
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

/// The `bits` of an element of `size` bytes as an integer, sign-extended from its top bit
/// when `signed` (what libhdf5 converts such a value to in a full-width integer).
pub fn bits_of(
    bytes: &[u8],
    size: u32,
    order: ByteOrder,
    bits: BitRange,
    signed: bool,
    at: u64,
) -> Result<i128> {
    let raw = u128::from_le_bytes(little_endian(bytes, size, order, at)?);
    let precision = u32::from(bits.precision);
    let offset = u32::from(bits.offset);
    if precision == 0 || offset + precision > 8 * size {
        return Err(
            Error::format(format!("{precision} bits at bit {offset} of {size} bytes")).at(at),
        );
    }
    let v = raw.checked_shr(offset).unwrap_or(0);
    let mask = if precision >= 128 {
        u128::MAX
    } else {
        (1u128 << precision) - 1
    };
    let v = v & mask;
    if signed && precision < 128 && v >> (precision - 1) & 1 == 1 {
        Ok((v | !mask) as i128)
    } else if !signed && precision == 128 && (v as i128) < 0 {
        Err(Error::unsupported("unsigned 128-bit integer above i128::MAX").at(at))
    } else {
        Ok(v as i128)
    }
}

/// An IEEE float of 2, 4 or 8 bytes in either byte order, as an `f64` (exactly).
pub fn float(bytes: &[u8], size: u32, order: ByteOrder, at: u64) -> Result<f64> {
    // On the stack: a copy on the heap per value took two allocations a row of a
    // 100,000-rank index's statistics.
    let mut b = [0u8; 8];
    let n = bytes.len();
    if let Some(to) = b.get_mut(..n) {
        to.copy_from_slice(bytes);
        if order == ByteOrder::Big {
            to.reverse();
        }
    }
    match (size, n) {
        (2, 2) => Ok(half(u16::from_le_bytes([b[0], b[1]]))),
        (4, 4) => Ok(f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))),
        (8, 8) => Ok(f64::from_le_bytes(b)),
        _ => Err(Error::unsupported(format!("floating-point type of {size} bytes")).at(at)),
    }
}

/// An IEEE binary16 value, exactly.
fn half(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = i32::from((h >> 10) & 0x1f);
    let mantissa = f64::from(h & 0x3ff);
    sign * match exponent {
        0 => mantissa * 2f64.powi(-24),
        31 if mantissa == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        e => (1024.0 + mantissa) * 2f64.powi(e - 25),
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
    fn binary16() {
        let le = |v: u16| float(&v.to_le_bytes(), 2, ByteOrder::Little, 0).unwrap();
        assert_eq!(le(0x3e00), 1.5); // sign 0, exponent 15, mantissa 0x200
        assert_eq!(le(0xae66), -0.0999755859375); // what numpy stores for -0.1
        assert_eq!(le(0x0001), 2f64.powi(-24)); // the smallest subnormal
        assert_eq!(le(0x7bff), 65504.0); // the largest finite
        assert_eq!(le(0xfc00), f64::NEG_INFINITY);
        assert!(le(0x7e00).is_nan());
        assert_eq!(float(&[0x3e, 0x00], 2, ByteOrder::Big, 0).unwrap(), 1.5);
    }

    #[test]
    fn narrow_integers_and_bit_fields() {
        // 12 bits at bit 4 of a little-endian u16: 0xabc0 holds 0xabc.
        let bits = BitRange {
            offset: 4,
            precision: 12,
        };
        let raw = 0xabc5u16.to_le_bytes();
        assert_eq!(
            bits_of(&raw, 2, ByteOrder::Little, bits, false, 0).unwrap(),
            0xabc
        );
        // Signed: the top of the 12 bits is set, so the value is 0xabc - 4096.
        assert_eq!(
            bits_of(&raw, 2, ByteOrder::Little, bits, true, 0).unwrap(),
            0xabc - 4096
        );
        let full = BitRange {
            offset: 0,
            precision: 32,
        };
        assert_eq!(
            bits_of(&[0xff, 0xff, 0xff, 0xfe], 4, ByteOrder::Big, full, true, 0).unwrap(),
            -2
        );
        let outside = BitRange {
            offset: 10,
            precision: 8,
        };
        assert!(bits_of(&raw, 2, ByteOrder::Little, outside, false, 0).is_err());
    }

    #[test]
    fn padding_rules() {
        assert_eq!(unpad(b"ab\0cd\0", StrPad::NullTerm), b"ab");
        assert_eq!(unpad(b"ab\0cd\0", StrPad::NullPad), b"ab\0cd");
        assert_eq!(unpad(b"ab  ", StrPad::SpacePad), b"ab");
    }
}
