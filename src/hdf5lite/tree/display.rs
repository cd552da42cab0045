//! How the listing shows the model in text, in HDF5 terms: `i64 LE`, `vlen utf-8 string`,
//! `[3, 4] of max [∞]`, `chunked(1024) shuffle+deflate(4)`.

use std::fmt::{self, Display, Formatter, Write as _};

use crate::hdf5lite::filters::{self, Filter, FilterId};
use crate::hdf5lite::model::{
    ByteOrder, CharSet, Datatype, ReferenceKind, Shape, StrPad, StringLength,
};
use crate::hdf5lite::reader::{value, Storage, Value};
use crate::text::{escape, quoted};

impl Display for Datatype {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let order = |size: u32, o: ByteOrder| match (size, o) {
            (1, _) => "",
            (_, ByteOrder::Little) => " LE",
            (_, ByteOrder::Big) => " BE",
        };
        match self {
            Datatype::Integer {
                size,
                signed,
                order: o,
            } => write!(
                f,
                "{}{}{}",
                if *signed { "i" } else { "u" },
                u64::from(*size) * 8,
                order(*size, *o)
            ),
            Datatype::NarrowInteger {
                size,
                signed,
                order: o,
                bits,
            } => write!(
                f,
                "{}{}{} ({} bits at bit {})",
                if *signed { "i" } else { "u" },
                u64::from(*size) * 8,
                order(*size, *o),
                bits.precision,
                bits.offset
            ),
            Datatype::Float { size, order: o } => {
                write!(f, "f{}{}", u64::from(*size) * 8, order(*size, *o))
            }
            Datatype::String {
                length,
                charset,
                padding,
            } => {
                let cs = match charset {
                    CharSet::Ascii => "ascii",
                    CharSet::Utf8 => "utf-8",
                };
                match length {
                    StringLength::Variable => write!(f, "vlen {cs} string"),
                    StringLength::Fixed(n) => {
                        let pad = match padding {
                            StrPad::NullTerm => "null-terminated",
                            StrPad::NullPad => "null-padded",
                            StrPad::SpacePad => "space-padded",
                        };
                        write!(f, "{cs} string[{n}] {pad}")
                    }
                }
            }
            Datatype::Compound { members, .. } => {
                f.write_str("compound{")?;
                for (i, m) in members.iter().enumerate() {
                    let sep = if i == 0 { "" } else { ", " };
                    write!(f, "{sep}{}: {}", escape(&m.name), m.datatype)?;
                }
                f.write_str("}")
            }
            Datatype::Enum { base, members } => {
                write!(f, "enum {base} {{")?;
                for (i, m) in members.iter().enumerate() {
                    let sep = if i == 0 { "" } else { ", " };
                    match enum_value(base, &m.value) {
                        Some(v) => write!(f, "{sep}{} = {v}", escape(&m.name))?,
                        None => write!(f, "{sep}{}", escape(&m.name))?,
                    }
                }
                f.write_str("}")
            }
            Datatype::Array { base, dims } => {
                let d: Vec<String> = dims.iter().map(u64::to_string).collect();
                write!(f, "array[{}] of {base}", d.join("×"))
            }
            Datatype::Bitfield {
                size,
                order: o,
                bits,
            } => {
                write!(f, "b{}{}", u64::from(*size) * 8, order(*size, *o))?;
                if u64::from(bits.precision) != 8 * u64::from(*size) {
                    write!(f, " ({} bits at bit {})", bits.precision, bits.offset)?;
                }
                Ok(())
            }
            Datatype::Opaque { size, tag } => write!(f, "opaque[{size}] {}", quoted(tag)),
            Datatype::Reference { kind, .. } => f.write_str(match kind {
                ReferenceKind::Object => "object reference",
                ReferenceKind::Region => "region reference",
            }),
            Datatype::Sequence { base } => write!(f, "vlen sequence of {base}"),
            Datatype::Time { size, order: o } => {
                write!(f, "time{}{}", u64::from(*size) * 8, order(*size, *o))
            }
            Datatype::Unsupported { size, reason, .. } => {
                write!(f, "unsupported type of {size} bytes ({reason})")
            }
        }
    }
}

/// An enum member's value in its integer base type.
pub(super) fn enum_value(base: &Datatype, bytes: &[u8]) -> Option<i128> {
    let decoded = match base {
        Datatype::Integer {
            size,
            signed,
            order,
        } => value::int(bytes, *size, *signed, *order, 0),
        Datatype::NarrowInteger {
            size,
            signed,
            order,
            bits,
        } => value::bits_of(bytes, *size, *order, *bits, *signed, 0),
        _ => return None,
    };
    decoded.ok()
}

impl Display for Shape {
    /// `scalar` or `[3, 4]`.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Shape::Scalar => f.write_str("scalar"),
            Shape::Simple(d) => f.write_str(&dims(d)),
        }
    }
}

/// A shape with its maximum sizes: `[0] of max [∞]`, `scalar`, or `null` for a null
/// dataspace.
#[derive(Debug, Clone, Copy)]
pub struct Extent<'a> {
    pub shape: Option<&'a Shape>,
    pub max: Option<&'a [u64]>,
}

impl Display for Extent<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match (self.shape, self.max) {
            (None, _) => f.write_str("null"),
            (Some(Shape::Simple(d)), Some(m)) if m != d.as_slice() => {
                write!(f, "{} of max {}", dims(d), dims(m))
            }
            (Some(s), _) => write!(f, "{s}"),
        }
    }
}

fn dims(d: &[u64]) -> String {
    let parts: Vec<String> = d
        .iter()
        .map(|&x| {
            if x == u64::MAX {
                "∞".to_string()
            } else {
                x.to_string()
            }
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

impl Display for Storage {
    /// `contiguous`, `compact`, `chunked(1024) shuffle+deflate(4)`, `external`, `virtual`.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Storage::Compact => f.write_str("compact"),
            Storage::Contiguous => f.write_str("contiguous"),
            Storage::External => f.write_str("external"),
            Storage::Virtual => f.write_str("virtual"),
            Storage::Chunked { chunk, filters, .. } => {
                let c: Vec<String> = chunk.iter().map(u64::to_string).collect();
                write!(f, "chunked({})", c.join(", "))?;
                for (i, filter) in filters.iter().enumerate() {
                    write!(f, "{}{filter}", if i == 0 { " " } else { "+" })?;
                }
                Ok(())
            }
        }
    }
}

impl Display for Filter {
    /// `deflate(4)`, `shuffle`, `fletcher32`, or the name and id of any other: `lzf(32000)`.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self.id {
            FilterId::DEFLATE => match self.client_data.first() {
                Some(level) => write!(f, "deflate({level})"),
                None => f.write_str("deflate"),
            },
            FilterId::SHUFFLE | FilterId::FLETCHER32 => f.write_str(filters::display_name(self)),
            id => write!(f, "{}({})", filters::display_name(self), id.0),
        }
    }
}

/// A value shortened for reading: at most `max_elements` items of each list (then
/// `… (n in all)`) and `max_chars` characters of each string (then `…`). With its datatype,
/// floats print in their own width (an f32 as `0.1`, not `0.10000000149011612`).
#[derive(Debug, Clone, Copy)]
pub struct ValueText<'a> {
    pub value: &'a Value,
    pub datatype: Option<&'a Datatype>,
    pub max_elements: usize,
    pub max_chars: usize,
}

impl<'a> ValueText<'a> {
    /// `value` with the listing's caps: 8 elements, 64 characters.
    pub fn new(value: &'a Value) -> Self {
        ValueText {
            value,
            datatype: None,
            max_elements: 8,
            max_chars: 64,
        }
    }

    /// `value`, of type `datatype`, with the listing's caps.
    pub fn typed(value: &'a Value, datatype: &'a Datatype) -> Self {
        ValueText {
            datatype: Some(datatype),
            ..Self::new(value)
        }
    }

    fn of(&self, value: &'a Value, datatype: Option<&'a Datatype>) -> ValueText<'a> {
        ValueText {
            value,
            datatype,
            ..*self
        }
    }

    /// The type of the items of a list value: an array's or sequence's base.
    fn items(&self) -> Option<&'a Datatype> {
        match self.datatype {
            Some(Datatype::Array { base, .. } | Datatype::Sequence { base }) => Some(base),
            other => other,
        }
    }

    /// At most `max_elements` items, then `… (n in all)`, for `total` items.
    pub fn list(
        &self,
        f: &mut Formatter<'_>,
        items: impl Iterator<Item = String>,
        total: usize,
        brackets: (&str, &str),
    ) -> fmt::Result {
        let mut parts: Vec<String> = items.take(self.max_elements).collect();
        if total > self.max_elements {
            parts.push(format!("… ({total} in all)"));
        }
        write!(f, "{}{}{}", brackets.0, parts.join(", "), brackets.1)
    }
}

impl Display for ValueText<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self.value {
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) => match self.datatype {
                Some(Datatype::Float { size, .. }) if *size <= 4 => write!(f, "{:?}", *x as f32),
                _ => write!(f, "{x:?}"),
            },
            Value::String(s) => {
                let shown: String = s.chars().take(self.max_chars).collect();
                if shown.len() < s.len() {
                    write!(f, "{}…", quoted(&shown))
                } else {
                    f.write_str(&quoted(s))
                }
            }
            Value::Bytes(b) => write!(f, "bytes {}", hex(&b[..b.len().min(self.max_chars)])),
            Value::Enum { name: Some(n), .. } => f.write_str(&escape(n)),
            Value::Enum { name: None, value } => write!(f, "{value}"),
            Value::Compound(ms) => {
                let types: Vec<&Datatype> = match self.datatype {
                    Some(Datatype::Compound { members, .. }) => {
                        members.iter().map(|m| &m.datatype).collect()
                    }
                    _ => Vec::new(),
                };
                self.list(
                    f,
                    ms.iter().enumerate().map(|(i, (n, v))| {
                        format!("{}: {}", escape(n), self.of(v, types.get(i).copied()))
                    }),
                    ms.len(),
                    ("{", "}"),
                )
            }
            Value::Array(vs) => self.list(
                f,
                vs.iter().map(|v| self.of(v, self.items()).to_string()),
                vs.len(),
                ("[", "]"),
            ),
            Value::Reference(r) => write!(f, "{r}"),
        }
    }
}

/// Lower-case hexadecimal digits of `bytes`.
pub(super) fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdf5lite::model::{BitRange, CompoundMember, EnumMember};
    use crate::hdf5lite::reader::{ChunkIndex, Reference, Selection};

    #[test]
    fn datatypes_in_hdf5_terms() {
        assert_eq!(Datatype::I64.to_string(), "i64 LE");
        let u8be = Datatype::Integer {
            size: 1,
            signed: false,
            order: ByteOrder::Big,
        };
        assert_eq!(u8be.to_string(), "u8");
        let f32be = Datatype::Float {
            size: 4,
            order: ByteOrder::Big,
        };
        assert_eq!(f32be.to_string(), "f32 BE");
        assert_eq!(Datatype::VLEN_UTF8.to_string(), "vlen utf-8 string");
        let s = Datatype::String {
            length: StringLength::Fixed(6),
            charset: CharSet::Ascii,
            padding: StrPad::SpacePad,
        };
        assert_eq!(s.to_string(), "ascii string[6] space-padded");
        let compound = Datatype::Compound {
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
        };
        assert_eq!(
            compound.to_string(),
            "compound{total: i64 LE, mean: f64 LE}"
        );
        assert_eq!(
            Datatype::bool_enum().to_string(),
            "enum i8 {FALSE = 0, TRUE = 1}"
        );
        let e = Datatype::Enum {
            base: Box::new(Datatype::Integer {
                size: 2,
                signed: true,
                order: ByteOrder::Big,
            }),
            members: vec![EnumMember {
                name: "BLUE".into(),
                value: vec![0, 42],
            }],
        };
        assert_eq!(e.to_string(), "enum i16 BE {BLUE = 42}");
        let arr = Datatype::Array {
            base: Box::new(Datatype::U32),
            dims: vec![2, 3],
        };
        assert_eq!(arr.to_string(), "array[2×3] of u32 LE");
        let bits = BitRange {
            offset: 0,
            precision: 12,
        };
        let narrow = Datatype::NarrowInteger {
            size: 4,
            signed: true,
            order: ByteOrder::Little,
            bits,
        };
        assert_eq!(narrow.to_string(), "i32 LE (12 bits at bit 0)");
        let seq = Datatype::Sequence {
            base: Box::new(Datatype::I64),
        };
        assert_eq!(seq.to_string(), "vlen sequence of i64 LE");
        let opaque = Datatype::Opaque {
            size: 4,
            tag: "raw".into(),
        };
        assert_eq!(opaque.to_string(), "opaque[4] \"raw\"");
        let refr = Datatype::Reference {
            kind: ReferenceKind::Region,
            size: 12,
        };
        assert_eq!(refr.to_string(), "region reference");
    }

    #[test]
    fn extents_and_storage() {
        let ext = |s: &Option<Shape>, m: Option<&[u64]>| {
            Extent {
                shape: s.as_ref(),
                max: m,
            }
            .to_string()
        };
        assert_eq!(ext(&None, None), "null");
        assert_eq!(ext(&Some(Shape::Scalar), None), "scalar");
        assert_eq!(
            ext(&Some(Shape::Simple(vec![3, 4])), Some(&[3, 4])),
            "[3, 4]"
        );
        assert_eq!(
            ext(&Some(Shape::vector(0)), Some(&[u64::MAX])),
            "[0] of max [∞]"
        );
        let filter = |id, name: Option<&str>, client_data: Vec<u32>| Filter {
            id,
            name: name.map(String::from),
            flags: 0,
            client_data,
        };
        let storage = Storage::Chunked {
            chunk: vec![1024],
            index: ChunkIndex::BTreeV1,
            filters: vec![
                filter(FilterId::SHUFFLE, None, vec![8]),
                filter(FilterId::DEFLATE, None, vec![4]),
                filter(FilterId::LZF, Some("lzf"), vec![]),
            ],
        };
        assert_eq!(
            storage.to_string(),
            "chunked(1024) shuffle+deflate(4)+lzf(32000)"
        );
        assert_eq!(Storage::Contiguous.to_string(), "contiguous");
    }

    #[test]
    fn values_in_text_are_shortened() {
        let text = |v: &Value| ValueText::new(v).to_string();
        let long = Value::Array((0..20).map(Value::Int).collect());
        assert_eq!(text(&long), "[0, 1, 2, 3, 4, 5, 6, 7, … (20 in all)]");
        assert_eq!(text(&Value::Float(0.1)), "0.1");
        let f32s = Datatype::Array {
            base: Box::new(Datatype::Float {
                size: 4,
                order: ByteOrder::Little,
            }),
            dims: vec![2],
        };
        let pair = Value::Array(vec![Value::Float(f64::from(0.1f32)), Value::Float(-2.5)]);
        assert_eq!(ValueText::typed(&pair, &f32s).to_string(), "[0.1, -2.5]");
        assert_eq!(text(&pair), "[0.10000000149011612, -2.5]");
        assert_eq!(text(&Value::Float(f64::NAN)), "NaN");
        assert_eq!(text(&Value::String("a\"b".into())), "\"a\\\"b\"");
        // Controls in the style of every terminal text (crate::text): OSC 0 … BEL.
        let osc = Value::String("t\x1b]0;x\x07\u{9b}".into());
        assert_eq!(text(&osc), r#""t\x1b]0;x\a\x9b""#);
        let s = "x".repeat(100);
        assert_eq!(text(&Value::String(s)), format!("\"{}\"…", "x".repeat(64)));
        let compound = Value::Compound(vec![
            ("a".into(), Value::Int(1)),
            (
                "b".into(),
                Value::Enum {
                    name: None,
                    value: 7,
                },
            ),
        ]);
        assert_eq!(text(&compound), "{a: 1, b: 7}");
        assert_eq!(text(&Value::Bytes(vec![0xff, 0xfe])), "bytes fffe");
        let region = Value::Reference(Reference::Region {
            address: 800,
            path: Some("/data".into()),
            selection: Selection::Blocks(vec![(vec![1, 2], vec![2, 3])]),
        });
        assert_eq!(text(&region), "/data {(1,2)-(2,3)}");
        let orphan = Value::Reference(Reference::Object {
            address: 96,
            path: None,
        });
        assert_eq!(text(&orphan), "<object at 96>");
    }
}
