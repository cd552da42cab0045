//! Run metadata: the attributes of `/metadata` (SCHEMA.md §2.3), with the type mapping the
//! reference's writer applies to each kind of value, and how a stored attribute reads back.

use std::collections::BTreeMap;

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
    /// A value read from a file that sp can show but not store again (a compound, a
    /// non-bool enum, a 2-D string array, …): its datatype and decoded value. An import
    /// refuses it ([`check_carry_over`]).
    Unsupported(Datatype, Value),
}

impl MetaValue {
    /// The datatype, shape and data of the attribute that stores this value; `None` for an
    /// [`Unsupported`](MetaValue::Unsupported) one.
    pub fn to_attribute(&self) -> Option<(Datatype, Shape, Data)> {
        Some(match self {
            MetaValue::Str(s) => (
                Datatype::VLEN_UTF8,
                Shape::Scalar,
                Data::VlenStrings(vec![s.clone()]),
            ),
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
                Data::VlenStrings(items.clone()),
            ),
            MetaValue::Typed(datatype, shape, data) => {
                (datatype.clone(), shape.clone(), data.clone())
            }
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

/// Fails on the first (in name order) value an import cannot store again.
pub fn check_carry_over(metadata: &Metadata) -> Result<(), Error> {
    match metadata.iter().find_map(|(name, value)| match value {
        MetaValue::Unsupported(datatype, _) => Some((name, datatype)),
        _ => None,
    }) {
        Some((name, datatype)) => Err(cannot_carry_over(name, datatype)),
        None => Ok(()),
    }
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
}
