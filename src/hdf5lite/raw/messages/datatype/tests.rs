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
fn every_other_class_parses() {
    let opaque = [
        0x15, 4, 0, 0, // version 1, opaque; tag of 4 bytes (with its NUL padding)
        4, 0, 0, 0, // size 4
        b'r', b'a', b'w', 0, // tag "raw"
    ];
    assert_eq!(
        parse_bytes(&opaque).unwrap(),
        Datatype::Opaque {
            size: 4,
            tag: "raw".into()
        }
    );
    let bitfield = [
        0x14, 0x01, 0, 0, // version 1, bit field; big-endian
        2, 0, 0, 0, // size 2
        3, 0, 12, 0, // 12 bits at bit 3
    ];
    assert_eq!(
        parse_bytes(&bitfield).unwrap(),
        Datatype::Bitfield {
            size: 2,
            order: ByteOrder::Big,
            bits: BitRange {
                offset: 3,
                precision: 12
            }
        }
    );
    let narrow = [
        0x10, 0x08, 0, 0, // version 1, fixed-point, signed little-endian
        4, 0, 0, 0, // size 4
        0, 0, 12, 0, // 12 bits at bit 0: what an n-bit dataset declares
    ];
    assert_eq!(
        parse_bytes(&narrow).unwrap(),
        Datatype::NarrowInteger {
            size: 4,
            signed: true,
            order: ByteOrder::Little,
            bits: BitRange {
                offset: 0,
                precision: 12
            }
        }
    );
    let object_ref = [0x17, 0, 0, 0, 8, 0, 0, 0]; // reference, type 0 (object), size 8
    let region_ref = [0x17, 1, 0, 0, 12, 0, 0, 0]; // type 1 (region), size 12
    assert_eq!(
        parse_bytes(&object_ref).unwrap(),
        Datatype::Reference {
            kind: ReferenceKind::Object,
            size: 8
        }
    );
    assert_eq!(
        parse_bytes(&region_ref).unwrap(),
        Datatype::Reference {
            kind: ReferenceKind::Region,
            size: 12
        }
    );
    let sequence = [
        0x19, 0, 0, 0, 16, 0, 0, 0, // vlen, kind sequence, descriptor size 16
        0x10, 0x08, 0, 0, 4, 0, 0, 0, 0, 0, 32, 0, // base: i32 LE
    ];
    assert_eq!(
        parse_bytes(&sequence).unwrap(),
        Datatype::Sequence {
            base: Box::new(Datatype::Integer {
                size: 4,
                signed: true,
                order: ByteOrder::Little
            })
        }
    );
    let time = [0x12, 0, 0, 0, 4, 0, 0, 0, 32, 0]; // time, LE, size 4, precision 32
    assert_eq!(
        parse_bytes(&time).unwrap(),
        Datatype::Time {
            size: 4,
            order: ByteOrder::Little
        }
    );
    let f16 = [
        0x11, 0x20, 15, 0, // float, implied normalization, sign at bit 15
        2, 0, 0, 0, // size 2
        0, 0, 16, 0, // offset 0, precision 16
        10, 5, 0, 10, // exponent at 10 (5 bits), mantissa at 0 (10 bits)
        15, 0, 0, 0, // bias 15
    ];
    assert_eq!(
        parse_bytes(&f16).unwrap(),
        Datatype::Float {
            size: 2,
            order: ByteOrder::Little
        }
    );
}

#[test]
fn unsupported_types_are_values_naming_the_reason() {
    // bfloat16: 8 exponent bits, not IEEE binary16.
    let bf16 = [
        0x11, 0x20, 15, 0, 2, 0, 0, 0, 0, 0, 16, 0, 7, 8, 0, 7, 127, 0, 0, 0,
    ];
    assert_eq!(
        parse_bytes(&bf16).unwrap(),
        Datatype::Unsupported {
            class: 1,
            size: 2,
            reason: "floating-point type of 2 bytes that is not IEEE 754 binary16, 32 or 64".into()
        }
    );
    // A revised reference (datatype version 4, HDF5 1.12's H5R_OBJECT2).
    let revised = [0x47, 2, 0, 0, 64, 0, 0, 0];
    let dt = parse_bytes(&revised).unwrap();
    assert!(
        matches!(
            dt,
            Datatype::Unsupported {
                class: 7,
                size: 64,
                ..
            }
        ),
        "{dt:?}"
    );
    let unknown = [0x1b, 0, 0, 0, 4, 0, 0, 0, 1, 2];
    assert_eq!(
        parse_bytes(&unknown).unwrap(),
        Datatype::Unsupported {
            class: 11,
            size: 4,
            reason: "datatype class unknown (11)".into()
        }
    );
    // Inside a compound, an unsupported member makes the whole type unsupported.
    let mut compound = vec![0x36, 1, 0, 0, 2, 0, 0, 0, b'h', 0, 0];
    compound.extend_from_slice(&bf16);
    assert!(matches!(
        parse_bytes(&compound).unwrap(),
        Datatype::Unsupported { class: 6, .. }
    ));
    // Truncation is still malformed, not unsupported.
    assert_eq!(
        parse_bytes(&opaque_truncated()).unwrap_err().kind(),
        ErrorKind::Format
    );
}

fn opaque_truncated() -> Vec<u8> {
    vec![0x15, 8, 0, 0, 4, 0, 0, 0, b'r']
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
