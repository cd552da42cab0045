//! Run metadata: the attributes of `/metadata` (SCHEMA.md §2.3), with the type mapping the
//! reference's writer applies to each kind of value.

use std::collections::BTreeMap;

use crate::hdf5lite::{Data, Datatype, Shape};

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
    /// Any other numeric value carried over from an input file with its own type.
    Typed(Datatype, Shape, Data),
}

impl MetaValue {
    /// The datatype, shape and data of the attribute that stores this value.
    pub fn to_attribute(&self) -> (Datatype, Shape, Data) {
        match self {
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
        }
    }
}

/// Metadata keyed by attribute name; iteration is in name order, as the reference stores it.
pub type Metadata = BTreeMap<String, MetaValue>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_mapping_follows_the_reference() {
        let (t, s, d) = MetaValue::Int(2).to_attribute();
        assert_eq!((t, s), (Datatype::I64, Shape::Scalar));
        assert_eq!(d, Data::Fixed(2i64.to_le_bytes().to_vec()));

        let (t, s, _) = MetaValue::StrList(vec![]).to_attribute();
        assert_eq!((t, s), (Datatype::VLEN_UTF8, Shape::vector(0)));

        let (t, _, d) = MetaValue::Bool(true).to_attribute();
        assert_eq!(t, Datatype::bool_enum());
        assert_eq!(d, Data::Fixed(vec![1]));
    }
}
