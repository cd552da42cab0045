//! The Datatype Message (0x0003), mapped to and from [`model::Datatype`].
//!
//! Parses versions 1–3 of the classes the model covers (fixed-point, float, fixed and
//! variable-length strings, compound, enum, array); other classes are `Unsupported`, naming
//! the class. Encodes version 1 (version 3 for types containing an array, which version 1
//! cannot express), as libhdf5 does with its default settings.

use crate::hdf5lite::error::{Error, Result};
use crate::hdf5lite::model::{
    ByteOrder, CharSet, CompoundMember, Datatype, EnumMember, StrPad, StringLength,
    VLEN_DESCRIPTOR_SIZE,
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

/// Parses a datatype message body (or an embedded datatype).
pub fn parse(c: &mut Cursor<'_>) -> Result<Datatype> {
    parse_nested(c, 0)
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
            let bit_offset = c.u16()?;
            let precision = c.u16()?;
            if !matches!(size, 1 | 2 | 4 | 8) || bit_offset != 0 || u32::from(precision) != 8 * size
            {
                return Err(Error::unsupported(format!(
                    "integer of {size} bytes with precision {precision} at bit offset {bit_offset}"
                ))
                .at(at));
            }
            Ok(Datatype::Integer {
                size,
                signed: bits & 0x08 != 0,
                order,
            })
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
                4 => sign == 31 && norm == 2 && fields == (0, 32, 23, 8, 0, 23, 127),
                8 => sign == 63 && norm == 2 && fields == (0, 64, 52, 11, 0, 52, 1023),
                _ => false,
            };
            if bits & 0x40 != 0 || !ieee {
                return Err(Error::unsupported(format!(
                    "floating-point type of {size} bytes that is not IEEE 754 little/big-endian"
                ))
                .at(at));
            }
            Ok(Datatype::Float { size, order })
        }
        DatatypeClass::STRING => Ok(Datatype::String {
            length: StringLength::Fixed(size),
            charset: charset((bits >> 4) & 0x0f, at)?,
            padding: padding(bits & 0x0f, at)?,
        }),
        DatatypeClass::COMPOUND => parse_compound(c, version, bits, size, depth),
        DatatypeClass::ENUM => {
            let count = bits & 0xffff;
            let base = parse_nested(c, depth + 1)?;
            let width = base
                .element_size()
                .and_then(|s| usize::try_from(s).ok())
                .ok_or_else(|| c.error("enum base type too large"))?;
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
            parse_nested(c, depth + 1)?; // base type (1-byte characters for strings)
            match kind {
                1 => Ok(Datatype::String {
                    length: StringLength::Variable,
                    charset: charset(cset, at)?,
                    padding: padding(pad, at)?,
                }),
                0 => Err(Error::unsupported("variable-length sequence datatype").at(at)),
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
mod tests {
    use super::*;
    use crate::hdf5lite::raw::cursor::Widths;
    use crate::hdf5lite::ErrorKind;

    fn parse_bytes(bytes: &[u8]) -> Result<Datatype> {
        let mut c = Cursor::new(bytes, 0, Widths::STANDARD);
        let dt = parse(&mut c)?;
        assert_eq!(c.remaining(), 0, "trailing bytes");
        Ok(dt)
    }

    fn enc(dt: &Datatype) -> Vec<u8> {
        let mut e = Encoder::new(Widths::STANDARD);
        encode(dt, &mut e).unwrap();
        e.into_bytes()
    }

    const I64: [u8; 12] = [
        0x10, // version 1, class fixed-point
        0x08, 0, 0, // little-endian, signed
        8, 0, 0, 0, // size 8
        0, 0, // bit offset
        64, 0, // precision
    ];

    const F64: [u8; 20] = [
        0x11, // version 1, class floating-point
        0x20, 63, 0, // LE, implied normalization; sign bit 63
        8, 0, 0, 0, // size
        0, 0, 64, 0, // bit offset 0, precision 64
        52, 11, 0, 52, // exponent at 52 (11 bits), mantissa at 0 (52 bits)
        0xff, 0x03, 0, 0, // bias 1023
    ];

    const VLEN_UTF8: [u8; 20] = [
        0x19, // version 1, class variable-length
        0x01, 0x01, 0, // kind string, padding null-terminate; UTF-8
        16, 0, 0, 0, // descriptor size
        0x10, 0x00, 0, 0, 1, 0, 0, 0, 0, 0, 8, 0, // base: u8
    ];

    #[test]
    fn integer_float_vlen_bytes() {
        assert_eq!(enc(&Datatype::I64), I64);
        assert_eq!(parse_bytes(&I64).unwrap(), Datatype::I64);
        assert_eq!(enc(&Datatype::F64), F64);
        assert_eq!(parse_bytes(&F64).unwrap(), Datatype::F64);
        assert_eq!(enc(&Datatype::VLEN_UTF8), VLEN_UTF8);
        assert_eq!(parse_bytes(&VLEN_UTF8).unwrap(), Datatype::VLEN_UTF8);
        let u32be = [0x10, 0x01, 0, 0, 4, 0, 0, 0, 0, 0, 32, 0];
        assert_eq!(
            parse_bytes(&u32be).unwrap(),
            Datatype::Integer {
                size: 4,
                signed: false,
                order: ByteOrder::Big
            }
        );
    }

    #[test]
    fn fixed_string_nullpad_utf8() {
        let bytes = [
            0x13, // version 1, class string
            0x11, 0, 0, // null-pad, UTF-8
            7, 0, 0, 0, // size 7
        ];
        let dt = Datatype::String {
            length: StringLength::Fixed(7),
            charset: CharSet::Utf8,
            padding: StrPad::NullPad,
        };
        assert_eq!(parse_bytes(&bytes).unwrap(), dt);
        assert_eq!(enc(&dt), bytes);
    }

    #[test]
    fn bool_enum_v1() {
        let mut bytes = vec![
            0x18, // version 1, class enum
            2, 0, 0, // 2 members
            1, 0, 0, 0, // size 1
            0x10, 0x08, 0, 0, 1, 0, 0, 0, 0, 0, 8, 0, // base i8
        ];
        bytes.extend_from_slice(b"FALSE\0\0\0TRUE\0\0\0\0"); // names padded to 8
        bytes.extend_from_slice(&[0, 1]); // values
        assert_eq!(enc(&Datatype::bool_enum()), bytes);
        assert_eq!(parse_bytes(&bytes).unwrap(), Datatype::bool_enum());
    }

    fn two_member_compound() -> Datatype {
        Datatype::Compound {
            size: 16,
            members: vec![
                CompoundMember {
                    name: "total".into(),
                    offset: 0,
                    datatype: Datatype::I64,
                },
                CompoundMember {
                    name: "mean".into(),
                    offset: 8,
                    datatype: Datatype::F64,
                },
            ],
        }
    }

    #[test]
    fn compound_v1() {
        let mut bytes = vec![
            0x16, // version 1, class compound
            2, 0, 0, // 2 members
            16, 0, 0, 0, // size
        ];
        bytes.extend_from_slice(b"total\0\0\0");
        bytes.extend_from_slice(&[0, 0, 0, 0]); // offset 0
        bytes.extend_from_slice(&[0; 28]); // rank 0, reserved, permutation, reserved, 4 dims
        bytes.extend_from_slice(&I64);
        bytes.extend_from_slice(b"mean\0\0\0\0");
        bytes.extend_from_slice(&[8, 0, 0, 0]);
        bytes.extend_from_slice(&[0; 28]);
        bytes.extend_from_slice(&F64);
        let dt = two_member_compound();
        assert_eq!(enc(&dt), bytes);
        assert_eq!(parse_bytes(&bytes).unwrap(), dt);
    }

    #[test]
    fn compound_v1_member_dims_become_arrays() {
        let mut bytes = vec![0x16, 1, 0, 0, 24, 0, 0, 0];
        bytes.extend_from_slice(b"xyz\0\0\0\0\0");
        bytes.extend_from_slice(&[0, 0, 0, 0]); // offset
        bytes.extend_from_slice(&[1, 0, 0, 0]); // rank 1 + reserved
        bytes.extend_from_slice(&[0; 8]); // permutation, reserved
        bytes.extend_from_slice(&[3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]); // dims
        bytes.extend_from_slice(&I64);
        assert_eq!(
            parse_bytes(&bytes).unwrap(),
            Datatype::Compound {
                size: 24,
                members: vec![CompoundMember {
                    name: "xyz".into(),
                    offset: 0,
                    datatype: Datatype::Array {
                        base: Box::new(Datatype::I64),
                        dims: vec![3]
                    }
                }]
            }
        );
    }

    #[test]
    fn compound_v3_nested_with_array() {
        let mut bytes = vec![0x36, 2, 0, 0, 40, 0, 0, 0];
        bytes.extend_from_slice(b"a\0"); // unpadded name
        bytes.push(0); // 1-byte offset (size < 256)
        bytes.extend_from_slice(&[0x36, 1, 0, 0, 16, 0, 0, 0]); // nested compound v3
        bytes.extend_from_slice(b"v\0");
        bytes.push(0);
        bytes.extend_from_slice(&[0x3a, 0, 0, 0, 16, 0, 0, 0]); // array v3, size 16
        bytes.extend_from_slice(&[1, 2, 0, 0, 0]); // rank 1, dim 2
        bytes.extend_from_slice(&I64);
        bytes.extend_from_slice(b"b\0");
        bytes.push(16);
        bytes.extend_from_slice(&VLEN_UTF8);
        let dt = Datatype::Compound {
            size: 40,
            members: vec![
                CompoundMember {
                    name: "a".into(),
                    offset: 0,
                    datatype: Datatype::Compound {
                        size: 16,
                        members: vec![CompoundMember {
                            name: "v".into(),
                            offset: 0,
                            datatype: Datatype::Array {
                                base: Box::new(Datatype::I64),
                                dims: vec![2],
                            },
                        }],
                    },
                },
                CompoundMember {
                    name: "b".into(),
                    offset: 16,
                    datatype: Datatype::VLEN_UTF8,
                },
            ],
        };
        assert_eq!(parse_bytes(&bytes).unwrap(), dt);
        assert_eq!(enc(&dt), bytes);
    }

    #[test]
    fn array_v2_with_permutation() {
        let mut bytes = vec![0x2a, 0, 0, 0, 24, 0, 0, 0];
        bytes.extend_from_slice(&[1, 0, 0, 0]); // rank 1, reserved
        bytes.extend_from_slice(&[3, 0, 0, 0]); // dim 3
        bytes.extend_from_slice(&[0, 0, 0, 0]); // permutation
        bytes.extend_from_slice(&I64);
        assert_eq!(
            parse_bytes(&bytes).unwrap(),
            Datatype::Array {
                base: Box::new(Datatype::I64),
                dims: vec![3]
            }
        );
    }

    #[test]
    fn unsupported_classes_are_named() {
        let opaque = [0x15, 0, 0, 0, 4, 0, 0, 0];
        let err = parse_bytes(&opaque).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Unsupported);
        assert_eq!(err.message(), "datatype class opaque (5)");
        let seq = [
            0x19, 0, 0, 0, 16, 0, 0, 0, 0x10, 0x08, 0, 0, 4, 0, 0, 0, 0, 0, 32, 0,
        ];
        let err = parse_bytes(&seq).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Unsupported);
        assert_eq!(err.message(), "variable-length sequence datatype");
        let f16 = [
            0x11, 0x20, 15, 0, 2, 0, 0, 0, 0, 0, 16, 0, 10, 5, 0, 10, 15, 0, 0, 0,
        ];
        assert_eq!(
            parse_bytes(&f16).unwrap_err().kind(),
            ErrorKind::Unsupported
        );
    }

    #[test]
    fn deep_nesting_is_limited() {
        // 40 nested single-member arrays of rank 0 (v3): each level is 9 bytes.
        let mut bytes = Vec::new();
        for _ in 0..40 {
            bytes.extend_from_slice(&[0x3a, 0, 0, 0, 8, 0, 0, 0, 0]);
        }
        bytes.extend_from_slice(&I64);
        let err = parse_bytes(&bytes).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::LimitsExceeded);
    }

    #[test]
    fn truncated_is_format_error() {
        let err = parse_bytes(&I64[..10]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Format);
        assert_eq!(err.offset(), Some(10));
    }
}
