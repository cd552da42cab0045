//! The Datatype Message (0x0003), mapped to and from the model's [`Datatype`].
//!
//! Parses versions 1–4 of every class of the specification; a type the model cannot
//! decode values of (a non-IEEE float, a revised reference) is
//! [`Datatype::Unsupported`], naming what is not supported. Encodes version 1 (version 3 for
//! types containing an array, which version 1 cannot express), as libhdf5 does with its
//! default settings, for the classes the writer needs.

use crate::hdf5lite::error::ErrorKind;
use crate::hdf5lite::error::{Error, Result};
use crate::hdf5lite::model::{
    BitRange, ByteOrder, CharSet, CompoundMember, Datatype, EnumMember, ReferenceKind, StrPad,
    StringLength, VLEN_DESCRIPTOR_SIZE,
};
use crate::hdf5lite::raw::cursor::{Cursor, Encoder};

use super::{encode_padded_name, padded_name, utf8_name};

/// Deepest nesting of compound/enum/array/vlen types accepted, so a hostile message cannot
/// exhaust the stack.
pub const MAX_NESTING: u32 = 32;

/// The class code of a datatype (low 4 bits of its first byte).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DatatypeClass(pub u8);

impl DatatypeClass {
    pub const FIXED_POINT: Self = Self(0);
    pub const FLOATING_POINT: Self = Self(1);
    pub const TIME: Self = Self(2);
    pub const STRING: Self = Self(3);
    pub const BITFIELD: Self = Self(4);
    pub const OPAQUE: Self = Self(5);
    pub const COMPOUND: Self = Self(6);
    pub const REFERENCE: Self = Self(7);
    pub const ENUM: Self = Self(8);
    pub const VARIABLE_LENGTH: Self = Self(9);
    pub const ARRAY: Self = Self(10);

    /// The specification's name of the class.
    pub fn name(self) -> &'static str {
        match self.0 {
            0 => "fixed-point",
            1 => "floating-point",
            2 => "time",
            3 => "string",
            4 => "bitfield",
            5 => "opaque",
            6 => "compound",
            7 => "reference",
            8 => "enumerated",
            9 => "variable-length",
            10 => "array",
            _ => "unknown",
        }
    }
}

/// Parses a datatype message body (or an embedded datatype). A valid type this crate does
/// not decode (a non-IEEE float, a revised reference, an unknown class) is
/// [`Datatype::Unsupported`], not an error, so the object it describes stays readable.
pub fn parse(c: &mut Cursor<'_>) -> Result<Datatype> {
    let at = c.offset();
    let head = c
        .block()
        .get(c.position()..c.position() + 8)
        .map(|h| (h[0] & 0x0f, u32::from_le_bytes([h[4], h[5], h[6], h[7]])));
    match parse_nested(c, 0) {
        Err(e) if e.kind() == ErrorKind::Unsupported => {
            let (class, size) = head.unwrap_or((0, 0));
            c.skip(c.remaining()).map_err(|e| e.at(at))?;
            Ok(Datatype::Unsupported {
                class,
                size,
                reason: e.message().to_string(),
            })
        }
        other => other,
    }
}

fn parse_nested(c: &mut Cursor<'_>, depth: u32) -> Result<Datatype> {
    let at = c.offset();
    if depth > MAX_NESTING {
        return Err(Error::limits(format!(
            "datatype nested more than {MAX_NESTING} levels deep"
        ))
        .at(at));
    }
    let first = c.u8()?;
    let class = DatatypeClass(first & 0x0f);
    let version = first >> 4;
    if !(1..=5).contains(&version) {
        return Err(Error::format(format!("datatype version {version}")).at(at));
    }
    let b = c.bytes(3)?;
    let bits = u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16;
    let size = c.u32()?;
    let order = if bits & 1 == 0 {
        ByteOrder::Little
    } else {
        ByteOrder::Big
    };
    match class {
        DatatypeClass::FIXED_POINT => {
            let range = bit_range(c, size, at)?;
            let signed = bits & 0x08 != 0;
            if range.offset == 0 && u64::from(range.precision) == 8 * u64::from(size) && size <= 16
            {
                Ok(Datatype::Integer {
                    size,
                    signed,
                    order,
                })
            } else if size <= 16 {
                Ok(Datatype::NarrowInteger {
                    size,
                    signed,
                    order,
                    bits: range,
                })
            } else {
                Err(Error::unsupported(format!("integer of {size} bytes")).at(at))
            }
        }
        DatatypeClass::FLOATING_POINT => {
            let sign = (bits >> 8) & 0xff;
            let norm = (bits >> 4) & 0x03;
            let fields = (
                c.u16()?,
                c.u16()?,
                c.u8()?,
                c.u8()?,
                c.u8()?,
                c.u8()?,
                c.u32()?,
            );
            let ieee = match size {
                2 => sign == 15 && norm == 2 && fields == (0, 16, 10, 5, 0, 10, 15),
                4 => sign == 31 && norm == 2 && fields == (0, 32, 23, 8, 0, 23, 127),
                8 => sign == 63 && norm == 2 && fields == (0, 64, 52, 11, 0, 52, 1023),
                _ => false,
            };
            if bits & 0x40 != 0 || !ieee {
                return Err(Error::unsupported(format!(
                    "floating-point type of {size} bytes that is not IEEE 754 binary16, 32 or 64"
                ))
                .at(at));
            }
            Ok(Datatype::Float { size, order })
        }
        DatatypeClass::TIME => {
            let precision = c.u16()?;
            if !matches!(size, 1..=16) || u64::from(precision) != 8 * u64::from(size) {
                return Err(Error::unsupported(format!(
                    "time type of {size} bytes with precision {precision}"
                ))
                .at(at));
            }
            Ok(Datatype::Time { size, order })
        }
        DatatypeClass::STRING => Ok(Datatype::String {
            length: StringLength::Fixed(size),
            charset: charset((bits >> 4) & 0x0f, at)?,
            padding: padding(bits & 0x0f, at)?,
        }),
        DatatypeClass::BITFIELD => {
            let range = bit_range(c, size, at)?;
            if size > 16 {
                return Err(Error::unsupported(format!("bit field of {size} bytes")).at(at));
            }
            Ok(Datatype::Bitfield {
                size,
                order,
                bits: range,
            })
        }
        DatatypeClass::OPAQUE => {
            let tag_len = (bits & 0xff) as usize;
            let raw = c.bytes(tag_len)?;
            let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
            let tag = String::from_utf8_lossy(&raw[..end]).into_owned();
            Ok(Datatype::Opaque { size, tag })
        }
        DatatypeClass::COMPOUND => parse_compound(c, version, bits, size, depth),
        DatatypeClass::REFERENCE => {
            let kind = match (version, bits & 0x0f) {
                (1..=3, 0) => ReferenceKind::Object,
                (1..=3, 1) => ReferenceKind::Region,
                (v, k) => {
                    return Err(Error::unsupported(format!(
                        "reference of type {k} (datatype version {v}: the references of \
                         HDF5 1.12 and later)"
                    ))
                    .at(at))
                }
            };
            Ok(Datatype::Reference { kind, size })
        }
        DatatypeClass::ENUM => {
            let count = bits & 0xffff;
            let base = parse_nested(c, depth + 1)?;
            if !matches!(
                base,
                Datatype::Integer { .. } | Datatype::NarrowInteger { .. }
            ) {
                return Err(Error::unsupported("enum over a non-integer base type").at(at));
            }
            let width = base
                .element_size()
                .and_then(|s| usize::try_from(s).ok())
                .ok_or_else(|| c.error("enum base type too large"))?;
            // Each member takes at least one byte of name and `width` of value.
            if count as usize > c.remaining() {
                return Err(c.error(format!("enum of {count} members in a short message")));
            }
            let mut names = Vec::new();
            for _ in 0..count {
                let raw = if version >= 3 {
                    c.c_str()?.to_vec()
                } else {
                    padded_name(c)?
                };
                names.push(utf8_name(c, raw)?);
            }
            let mut members = Vec::new();
            for name in names {
                members.push(EnumMember {
                    name,
                    value: c.bytes(width)?.to_vec(),
                });
            }
            Ok(Datatype::Enum {
                base: Box::new(base),
                members,
            })
        }
        DatatypeClass::VARIABLE_LENGTH => {
            let kind = bits & 0x0f;
            let pad = (bits >> 4) & 0x0f;
            let cset = (bits >> 8) & 0x0f;
            let base = parse_nested(c, depth + 1)?;
            match kind {
                1 => Ok(Datatype::String {
                    length: StringLength::Variable,
                    charset: charset(cset, at)?,
                    padding: padding(pad, at)?,
                }),
                0 => Ok(Datatype::Sequence {
                    base: Box::new(base),
                }),
                k => Err(Error::format(format!("variable-length type kind {k}")).at(at)),
            }
        }
        DatatypeClass::ARRAY => {
            let rank = c.u8()?;
            if version < 3 {
                c.skip(3)?;
            }
            let mut dims = Vec::new();
            for _ in 0..rank {
                dims.push(u64::from(c.u32()?));
            }
            if version < 3 {
                c.skip(4 * usize::from(rank))?; // permutation indices
            }
            let base = parse_nested(c, depth + 1)?;
            Ok(Datatype::Array {
                base: Box::new(base),
                dims,
            })
        }
        other => {
            Err(Error::unsupported(format!("datatype class {} ({})", other.name(), other.0)).at(at))
        }
    }
}

/// The bit offset and precision of a fixed-point or bit-field type, which must lie in its
/// `size` bytes.
fn bit_range(c: &mut Cursor<'_>, size: u32, at: u64) -> Result<BitRange> {
    let offset = c.u16()?;
    let precision = c.u16()?;
    if precision == 0 || u64::from(offset) + u64::from(precision) > 8 * u64::from(size) {
        return Err(Error::format(format!(
            "{precision} bits at bit {offset} do not fit in {size} bytes"
        ))
        .at(at));
    }
    Ok(BitRange { offset, precision })
}

fn parse_compound(
    c: &mut Cursor<'_>,
    version: u8,
    bits: u32,
    size: u32,
    depth: u32,
) -> Result<Datatype> {
    let count = bits & 0xffff;
    let mut members = Vec::new();
    for _ in 0..count {
        let raw = if version >= 3 {
            c.c_str()?.to_vec()
        } else {
            padded_name(c)?
        };
        let name = utf8_name(c, raw)?;
        let offset = if version >= 3 {
            c.uint(offset_width(size))? as u32
        } else {
            c.u32()?
        };
        let mut dims = Vec::new();
        if version == 1 {
            let rank = c.u8()?;
            c.skip(3 + 4 + 4)?; // reserved, permutation, reserved
            for i in 0..4 {
                let d = c.u32()?;
                if i < rank {
                    dims.push(u64::from(d));
                }
            }
            if rank > 4 {
                return Err(c.error(format!("compound member of rank {rank} (at most 4)")));
            }
        }
        let member = parse_nested(c, depth + 1)?;
        let datatype = if dims.is_empty() {
            member
        } else {
            Datatype::Array {
                base: Box::new(member),
                dims,
            }
        };
        members.push(CompoundMember {
            name,
            offset,
            datatype,
        });
    }
    Ok(Datatype::Compound { size, members })
}

/// Bytes of a member offset in a version-3 compound of `size` bytes.
fn offset_width(size: u32) -> u8 {
    match size {
        0..=0xff => 1,
        0x100..=0xffff => 2,
        0x1_0000..=0xff_ffff => 3,
        _ => 4,
    }
}

fn charset(code: u32, at: u64) -> Result<CharSet> {
    match code {
        0 => Ok(CharSet::Ascii),
        1 => Ok(CharSet::Utf8),
        n => Err(Error::unsupported(format!("string character set {n}")).at(at)),
    }
}

fn padding(code: u32, at: u64) -> Result<StrPad> {
    match code {
        0 => Ok(StrPad::NullTerm),
        1 => Ok(StrPad::NullPad),
        2 => Ok(StrPad::SpacePad),
        n => Err(Error::unsupported(format!("string padding type {n}")).at(at)),
    }
}

fn contains_array(dt: &Datatype) -> bool {
    match dt {
        Datatype::Array { .. } => true,
        Datatype::Compound { members, .. } => members.iter().any(|m| contains_array(&m.datatype)),
        Datatype::Enum { base, .. } => contains_array(base),
        _ => false,
    }
}

/// Encodes `dt` as a datatype message body. Fails with `Usage` for values the format cannot
/// hold (more than 65535 members, array dimensions over `u32`, enum values of the wrong size).
pub fn encode(dt: &Datatype, e: &mut Encoder) -> Result<()> {
    let version: u8 = if contains_array(dt) { 3 } else { 1 };
    let order_bit = |o: &ByteOrder| u8::from(*o == ByteOrder::Big);
    match dt {
        Datatype::Integer {
            size,
            signed,
            order,
        } => {
            head(
                e,
                1,
                DatatypeClass::FIXED_POINT,
                [order_bit(order) | if *signed { 0x08 } else { 0 }, 0, 0],
                *size,
            );
            e.u16(0);
            e.u16(u16::try_from(8 * u64::from(*size)).map_err(|_| usage("integer too wide"))?);
        }
        Datatype::Float { size, order } => {
            let (sign, fields): (u8, (u16, u8, u8, u8, u8, u32)) = match size {
                4 => (31, (32, 23, 8, 0, 23, 127)),
                8 => (63, (64, 52, 11, 0, 52, 1023)),
                _ => return Err(usage("only 4- and 8-byte floats can be encoded")),
            };
            head(
                e,
                1,
                DatatypeClass::FLOATING_POINT,
                [
                    order_bit(order) | 0x20, // mantissa normalization: implied
                    sign,
                    0,
                ],
                *size,
            );
            e.u16(0);
            e.u16(fields.0);
            e.bytes(&[fields.1, fields.2, fields.3, fields.4]);
            e.u32(fields.5);
        }
        Datatype::String {
            length,
            charset,
            padding,
        } => {
            let pad = match padding {
                StrPad::NullTerm => 0,
                StrPad::NullPad => 1,
                StrPad::SpacePad => 2,
            };
            let cset = match charset {
                CharSet::Ascii => 0,
                CharSet::Utf8 => 1,
            };
            match length {
                StringLength::Fixed(n) => {
                    head(e, 1, DatatypeClass::STRING, [pad | cset << 4, 0, 0], *n)
                }
                StringLength::Variable => {
                    head(
                        e,
                        1,
                        DatatypeClass::VARIABLE_LENGTH,
                        [
                            1 | pad << 4, // kind: string
                            cset,
                            0,
                        ],
                        VLEN_DESCRIPTOR_SIZE,
                    );
                    encode(
                        &Datatype::Integer {
                            size: 1,
                            signed: false,
                            order: ByteOrder::Little,
                        },
                        e,
                    )?;
                }
            }
        }
        Datatype::Compound { size, members } => {
            let n = u16::try_from(members.len())
                .map_err(|_| usage("more than 65535 compound members"))?;
            let [lo, hi] = n.to_le_bytes();
            head(e, version, DatatypeClass::COMPOUND, [lo, hi, 0], *size);
            for m in members {
                if version >= 3 {
                    e.bytes(m.name.as_bytes());
                    e.u8(0);
                    e.uint(u64::from(m.offset), offset_width(*size));
                } else {
                    encode_padded_name(e, m.name.as_bytes());
                    e.u32(m.offset);
                    e.zeros(1 + 3 + 4 + 4 + 16); // rank 0, reserved, permutation, reserved, dims
                }
                encode(&m.datatype, e)?;
            }
        }
        Datatype::Enum { base, members } => {
            let n =
                u16::try_from(members.len()).map_err(|_| usage("more than 65535 enum members"))?;
            let [lo, hi] = n.to_le_bytes();
            let width = base
                .element_size()
                .ok_or_else(|| usage("enum base too large"))?;
            head(e, version, DatatypeClass::ENUM, [lo, hi, 0], width as u32);
            encode(base, e)?;
            for m in members {
                if version >= 3 {
                    e.bytes(m.name.as_bytes());
                    e.u8(0);
                } else {
                    encode_padded_name(e, m.name.as_bytes());
                }
            }
            for m in members {
                if m.value.len() as u64 != width {
                    return Err(usage(format!(
                        "enum value of {} has {} bytes, base type has {width}",
                        m.name,
                        m.value.len()
                    )));
                }
                e.bytes(&m.value);
            }
        }
        Datatype::NarrowInteger { .. }
        | Datatype::Bitfield { .. }
        | Datatype::Opaque { .. }
        | Datatype::Reference { .. }
        | Datatype::Sequence { .. }
        | Datatype::Time { .. }
        | Datatype::Unsupported { .. } => {
            return Err(usage("the writer does not encode this datatype class"))
        }
        Datatype::Array { base, dims } => {
            let size = dt
                .element_size()
                .and_then(|s| u32::try_from(s).ok())
                .ok_or_else(|| usage("array type larger than 4 GiB"))?;
            let rank = u8::try_from(dims.len()).map_err(|_| usage("array rank over 255"))?;
            head(e, 3, DatatypeClass::ARRAY, [0, 0, 0], size);
            e.u8(rank);
            for &d in dims {
                e.u32(u32::try_from(d).map_err(|_| usage("array dimension over u32"))?);
            }
            encode(base, e)?;
        }
    }
    Ok(())
}

fn head(e: &mut Encoder, version: u8, class: DatatypeClass, bits: [u8; 3], size: u32) {
    e.u8(version << 4 | class.0);
    e.bytes(&bits);
    e.u32(size);
}

fn usage(msg: impl Into<String>) -> Error {
    Error::usage(msg)
}

#[cfg(test)]
mod tests;
