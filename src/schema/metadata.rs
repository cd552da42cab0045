//! Run metadata: the attributes of `/metadata` (SCHEMA.md §2.3), with the type mapping the
//! reference's writer applies to each kind of value, and how a stored attribute reads back.

use std::collections::BTreeMap;

use crate::hdf5lite::model::{ReferenceKind, StringLength};
use crate::hdf5lite::reader::{value, File, Group, Value};
use crate::hdf5lite::{ByteOrder, Data, Datatype, Shape};
use crate::io::ReadAt;

use super::error::Error;

/// One metadata value, by the HDF5 type the reference stores it as.
#[derive(Debug, Clone, PartialEq)]
pub enum MetaValue {
    /// Variable-length UTF-8 string scalar.
    Str(String),
    /// `i64` scalar.
    Int(i64),
    /// `f64` scalar.
    Float(f64),
    /// h5py's bool enum scalar.
    Bool(bool),
    /// 1-D variable-length string array (also when empty).
    StrList(Vec<String>),
    /// Any other numeric value carried over from an input file with its own type
    /// (little-endian element bytes).
    Typed(Datatype, Shape, Data),
    /// A value another tool stored, of a type the reference's writer never uses (a
    /// compound, a non-bool enum, a fixed-length string array, a string array of more
    /// dimensions, …): carried over with its own datatype, shape and element bytes; `value`
    /// is what it decodes to, for display.
    Foreign {
        datatype: Datatype,
        shape: Shape,
        data: Data,
        value: Value,
    },
    /// A value read from a file that sp can show but not store again (an object or region
    /// reference, which cannot point into a new file; a type the writer has no encoding
    /// for): its datatype and decoded value. An import leaves it out ([`left_out`]).
    Unsupported(Datatype, Value),
}

impl MetaValue {
    /// The datatype, shape and data of the attribute that stores this value; `None` for an
    /// [`Unsupported`](MetaValue::Unsupported) one.
    pub fn to_attribute(&self) -> Option<(Datatype, Shape, Data)> {
        Some(match self {
            MetaValue::Str(s) => (Datatype::VLEN_UTF8, Shape::Scalar, Data::strings(&[s])),
            MetaValue::Int(v) => (Datatype::I64, Shape::Scalar, Data::i64s(&[*v])),
            MetaValue::Float(v) => (Datatype::F64, Shape::Scalar, Data::f64s(&[*v])),
            MetaValue::Bool(v) => (
                Datatype::bool_enum(),
                Shape::Scalar,
                Data::Fixed(vec![u8::from(*v)]),
            ),
            MetaValue::StrList(items) => (
                Datatype::VLEN_UTF8,
                Shape::vector(items.len() as u64),
                Data::strings(items),
            ),
            MetaValue::Typed(datatype, shape, data)
            | MetaValue::Foreign {
                datatype,
                shape,
                data,
                ..
            } => (datatype.clone(), shape.clone(), data.clone()),
            MetaValue::Unsupported(..) => return None,
        })
    }
}

impl MetaValue {
    /// The elements of a [`Typed`](MetaValue::Typed) value, decoded as integers or floats in
    /// row-major order; `None` for other values.
    pub fn typed_elements(&self) -> Option<Vec<Value>> {
        let MetaValue::Typed(datatype, _, Data::Fixed(bytes)) = self else {
            return None;
        };
        match *datatype {
            Datatype::Integer {
                size,
                signed,
                order,
            } if size > 0 => bytes
                .chunks_exact(size as usize)
                .map(|b| value::int(b, size, signed, order, 0).ok().map(Value::Int))
                .collect(),
            Datatype::Float { size: 4, order } => Some(
                bytes
                    .chunks_exact(4)
                    .map(|b| {
                        let word = [b[0], b[1], b[2], b[3]];
                        Value::Float(f64::from(match order {
                            ByteOrder::Little => f32::from_le_bytes(word),
                            ByteOrder::Big => f32::from_be_bytes(word),
                        }))
                    })
                    .collect(),
            ),
            Datatype::Float { size: 8, order } => Some(
                bytes
                    .chunks_exact(8)
                    .map(|b| {
                        let mut word = [0u8; 8];
                        word.copy_from_slice(b);
                        Value::Float(match order {
                            ByteOrder::Little => f64::from_le_bytes(word),
                            ByteOrder::Big => f64::from_be_bytes(word),
                        })
                    })
                    .collect(),
            ),
            _ => None,
        }
    }
}

/// Metadata keyed by attribute name; iteration is in name order, as the reference stores it.
pub type Metadata = BTreeMap<String, MetaValue>;

/// The error an import gives for a value it cannot store again.
pub fn cannot_carry_over(name: &str, datatype: &Datatype) -> Error {
    Error::Unsupported(format!(
        "/metadata attribute {name:?} has a type sp cannot carry over ({})",
        describe(datatype)
    ))
}

/// Fails on the first (in name order) value an import cannot store again. Since foreign
/// values are carried or left out ([`left_out`]), none fails: kept for callers that want
/// every value stored.
pub fn check_carry_over(metadata: &Metadata) -> Result<(), Error> {
    match metadata.iter().find_map(|(name, value)| match value {
        MetaValue::Unsupported(datatype, _) => Some((name, datatype)),
        _ => None,
    }) {
        Some((name, datatype)) => Err(cannot_carry_over(name, datatype)),
        None => Ok(()),
    }
}

/// An attribute of `/metadata` an import leaves out, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftOut {
    pub name: String,
    pub reason: String,
}

impl std::fmt::Display for LeftOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "/metadata attribute {:?} is left out: {}",
            self.name, self.reason
        )
    }
}

/// The values of `metadata` an import cannot store again, in name order, with the reason:
/// the new file holds every other attribute and leaves these out.
pub fn left_out(metadata: &Metadata) -> Vec<LeftOut> {
    metadata
        .iter()
        .filter_map(|(name, value)| match value {
            MetaValue::Unsupported(datatype, _) => Some(LeftOut {
                name: name.clone(),
                reason: if contains_reference(datatype) {
                    format!(
                        "it holds {}, an address in the file it came from that cannot point \
                         into the new one",
                        describe(datatype)
                    )
                } else {
                    format!("sp cannot write its type ({})", describe(datatype))
                },
            }),
            _ => None,
        })
        .collect()
}

/// Whether values of `datatype` hold object or region references.
fn contains_reference(datatype: &Datatype) -> bool {
    match datatype {
        Datatype::Reference { .. } => true,
        Datatype::Compound { members, .. } => {
            members.iter().any(|m| contains_reference(&m.datatype))
        }
        Datatype::Array { base, .. }
        | Datatype::Sequence { base }
        | Datatype::Enum { base, .. } => contains_reference(base),
        _ => false,
    }
}

/// Whether the writer stores `datatype` as fixed-size element bytes copied as they are: no
/// variable-length part, no reference, and a class it encodes.
fn carried_as_bytes(datatype: &Datatype) -> bool {
    match datatype {
        Datatype::Integer { .. } => true,
        Datatype::Float { size, .. } => *size == 4 || *size == 8,
        Datatype::String { length, .. } => matches!(length, StringLength::Fixed(_)),
        Datatype::Compound { members, .. } => members.iter().all(|m| carried_as_bytes(&m.datatype)),
        Datatype::Enum { base, .. } | Datatype::Array { base, .. } => carried_as_bytes(base),
        _ => false,
    }
}

/// A value none of the reference's types holds, carried with its own type when the writer
/// can store it: fixed-size elements as the attribute's bytes, variable-length strings of
/// any shape as strings.
fn foreign(datatype: &Datatype, shape: &Shape, raw: &[u8], value: &Value) -> Option<MetaValue> {
    let data = if carried_as_bytes(datatype) {
        let n = shape.element_count()?;
        let size = datatype.element_size()?;
        let len = usize::try_from(n.checked_mul(size)?).ok()?;
        Data::Fixed(raw.get(..len)?.to_vec())
    } else if matches!(
        datatype,
        Datatype::String {
            length: StringLength::Variable,
            ..
        }
    ) {
        let strings = flatten(value.clone())
            .into_iter()
            .map(|v| match v {
                Value::String(s) => Some(s),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        Data::strings(&strings)
    } else {
        return None;
    };
    Some(MetaValue::Foreign {
        datatype: datatype.clone(),
        shape: shape.clone(),
        data,
        value: value.clone(),
    })
}

/// A datatype class in a few words, for errors.
pub fn describe(datatype: &Datatype) -> &'static str {
    match datatype {
        Datatype::Integer { .. } => "an integer array",
        Datatype::Float { .. } => "a float",
        Datatype::String { .. } => "a string",
        Datatype::Enum { .. } => "an enum (bool)",
        Datatype::Compound { .. } => "a compound",
        Datatype::Array { .. } => "an array",
        Datatype::Reference {
            kind: ReferenceKind::Object,
            ..
        } => "an object reference",
        Datatype::Reference { .. } => "a region reference",
        Datatype::Opaque { .. } => "an opaque type",
        Datatype::Bitfield { .. } => "a bit field",
        Datatype::Sequence { .. } => "a variable-length sequence",
        Datatype::Time { .. } => "a time",
        _ => "another type",
    }
}

/// The attributes of `group` (`/metadata`) as the reference decodes them and the writer
/// would store them again.
pub fn read<R: ReadAt>(file: &File<R>, group: &Group<'_, R>) -> Result<Metadata, Error> {
    let mut metadata = Metadata::new();
    for attr in group.attributes()? {
        let value = attr.value(file)?;
        let shape = attr.shape().unwrap_or(Shape::Scalar);
        let datatype = attr.datatype();
        let converted = meta_value(datatype, &shape, value.clone())
            .or_else(|| foreign(datatype, &shape, attr.raw(), &value))
            .unwrap_or_else(|| MetaValue::Unsupported(datatype.clone(), value));
        metadata.insert(attr.name().to_owned(), converted);
    }
    Ok(metadata)
}

fn meta_value(datatype: &Datatype, shape: &Shape, value: Value) -> Option<MetaValue> {
    let text = |v: Value| match v {
        Value::String(s) => Some(s),
        Value::Bytes(b) => Some(String::from_utf8_lossy(&b).into_owned()),
        _ => None,
    };
    match (shape, datatype) {
        (Shape::Scalar, Datatype::String { .. }) => text(value).map(MetaValue::Str),
        (
            Shape::Scalar,
            Datatype::Integer {
                size: 8,
                signed: true,
                ..
            },
        ) => match value {
            Value::Int(v) => i64::try_from(v).ok().map(MetaValue::Int),
            _ => None,
        },
        (Shape::Scalar, Datatype::Float { size: 8, .. }) => match value {
            Value::Float(v) => Some(MetaValue::Float(v)),
            _ => None,
        },
        (Shape::Scalar, Datatype::Enum { .. }) if *datatype == Datatype::bool_enum() => match value
        {
            Value::Enum { value, .. } => Some(MetaValue::Bool(value != 0)),
            _ => None,
        },
        (Shape::Simple(dims), Datatype::String { .. }) if dims.len() == 1 => match value {
            Value::Array(items) => items
                .into_iter()
                .map(text)
                .collect::<Option<Vec<_>>>()
                .map(MetaValue::StrList),
            _ => None,
        },
        // Other numbers keep their class, size and sign, in native (little-endian) order,
        // as a numpy scalar read by h5py and stored again does.
        (_, Datatype::Integer { size, signed, .. }) => {
            let items = flatten(value);
            let mut bytes = Vec::new();
            for item in items {
                let Value::Int(v) = item else { return None };
                bytes.extend_from_slice(v.to_le_bytes().get(..*size as usize)?);
            }
            Some(MetaValue::Typed(
                Datatype::Integer {
                    size: *size,
                    signed: *signed,
                    order: ByteOrder::Little,
                },
                shape.clone(),
                Data::Fixed(bytes),
            ))
        }
        (_, Datatype::Float { size, .. }) if *size == 4 || *size == 8 => {
            let mut bytes = Vec::new();
            for item in flatten(value) {
                let Value::Float(v) = item else { return None };
                if *size == 4 {
                    bytes.extend_from_slice(&(v as f32).to_le_bytes());
                } else {
                    bytes.extend_from_slice(&v.to_le_bytes());
                }
            }
            Some(MetaValue::Typed(
                Datatype::Float {
                    size: *size,
                    order: ByteOrder::Little,
                },
                shape.clone(),
                Data::Fixed(bytes),
            ))
        }
        _ => None,
    }
}

fn flatten(value: Value) -> Vec<Value> {
    match value {
        Value::Array(items) => items.into_iter().flat_map(flatten).collect(),
        other => vec![other],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_mapping_follows_the_reference() {
        let (t, s, d) = MetaValue::Int(2).to_attribute().unwrap();
        assert_eq!((t, s), (Datatype::I64, Shape::Scalar));
        assert_eq!(d, Data::Fixed(2i64.to_le_bytes().to_vec()));

        let (t, s, _) = MetaValue::StrList(vec![]).to_attribute().unwrap();
        assert_eq!((t, s), (Datatype::VLEN_UTF8, Shape::vector(0)));

        let (t, _, d) = MetaValue::Bool(true).to_attribute().unwrap();
        assert_eq!(t, Datatype::bool_enum());
        assert_eq!(d, Data::Fixed(vec![1]));
    }

    #[test]
    fn typed_values_decode_to_their_elements() {
        let ints = MetaValue::Typed(
            Datatype::Integer {
                size: 4,
                signed: true,
                order: ByteOrder::Little,
            },
            Shape::vector(2),
            Data::Fixed([(-3i32).to_le_bytes(), 7i32.to_le_bytes()].concat()),
        );
        assert_eq!(
            ints.typed_elements(),
            Some(vec![Value::Int(-3), Value::Int(7)])
        );
        let float = MetaValue::Typed(
            Datatype::Float {
                size: 4,
                order: ByteOrder::Little,
            },
            Shape::Scalar,
            Data::Fixed(1.5f32.to_le_bytes().to_vec()),
        );
        assert_eq!(float.typed_elements(), Some(vec![Value::Float(1.5)]));
        assert_eq!(MetaValue::Int(1).typed_elements(), None);
    }

    #[test]
    fn unsupported_values_are_read_but_not_carried_over() {
        let compound = Datatype::Compound {
            size: 8,
            members: vec![],
        };
        let value = MetaValue::Unsupported(compound.clone(), Value::Compound(vec![]));
        assert_eq!(value.to_attribute(), None);
        let metadata: Metadata = [
            ("a".to_string(), MetaValue::Int(1)),
            ("odd".to_string(), value),
        ]
        .into();
        let err = check_carry_over(&metadata).unwrap_err();
        assert_eq!(
            err.to_string(),
            "/metadata attribute \"odd\" has a type sp cannot carry over (a compound)"
        );
        assert!(check_carry_over(&Metadata::new()).is_ok());
    }

    #[test]
    fn references_are_left_out_with_the_reason() {
        let reference = Datatype::Reference {
            kind: ReferenceKind::Object,
            size: 8,
        };
        let value = Value::Reference(crate::hdf5lite::reader::Reference::Object {
            address: 96,
            path: None,
        });
        let metadata: Metadata = [
            ("a".to_string(), MetaValue::Int(1)),
            ("ref".to_string(), MetaValue::Unsupported(reference, value)),
        ]
        .into();
        assert_eq!(
            left_out(&metadata)
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>(),
            [
                "/metadata attribute \"ref\" is left out: it holds an object reference, an \
              address in the file it came from that cannot point into the new one"
            ]
        );
        // A compound of an i32 and an f64 is carried as its 12 element bytes.
        let pair = Datatype::Compound {
            size: 12,
            members: vec![],
        };
        assert!(carried_as_bytes(&pair));
        let raw = [7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 64];
        let carried = foreign(&pair, &Shape::Scalar, &raw, &Value::Compound(vec![]));
        assert!(
            matches!(carried, Some(MetaValue::Foreign { data: Data::Fixed(ref d), .. }) if d == &raw)
        );
    }
}
