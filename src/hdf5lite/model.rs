//! The format-neutral description of HDF5 values that the writer takes and the reader
//! returns: datatypes, dataspace shapes and element data. No byte offsets here.

/// Byte order of a numeric type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ByteOrder {
    Little,
    Big,
}

/// Character set of a string type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CharSet {
    Ascii,
    Utf8,
}

/// How a string is terminated or padded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StrPad {
    NullTerm,
    NullPad,
    SpacePad,
}

/// Fixed size in bytes, or variable length (stored in the global heap).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StringLength {
    Fixed(u32),
    Variable,
}

/// One named member of a compound type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CompoundMember {
    pub name: String,
    pub offset: u32,
    pub datatype: Datatype,
}

/// One named value of an enum type; `value` is encoded in the base type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EnumMember {
    pub name: String,
    pub value: Vec<u8>,
}

/// An HDF5 datatype, as far as profiles and the files h5py writes need.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Datatype {
    /// Two's-complement or unsigned integer filling `size` bytes (precision `8 × size`).
    Integer {
        size: u32,
        signed: bool,
        order: ByteOrder,
    },
    /// IEEE 754 binary32 (`size` 4) or binary64 (`size` 8).
    Float { size: u32, order: ByteOrder },
    /// Fixed-length or variable-length string.
    String {
        length: StringLength,
        charset: CharSet,
        padding: StrPad,
    },
    /// A record of named members at byte offsets.
    Compound {
        size: u32,
        members: Vec<CompoundMember>,
    },
    /// Named values over an integer base type.
    Enum {
        base: Box<Datatype>,
        members: Vec<EnumMember>,
    },
    /// A fixed-size array of a base type.
    Array { base: Box<Datatype>, dims: Vec<u64> },
    /// An integer whose value is `bits.precision` bits at `bits.offset` of its `size`
    /// bytes, the rest padding (what the n-bit filter packs).
    NarrowInteger {
        size: u32,
        signed: bool,
        order: ByteOrder,
        bits: BitRange,
    },
    /// A bit field: an unsigned integer of `size` bytes, meaningful in `bits`.
    Bitfield {
        size: u32,
        order: ByteOrder,
        bits: BitRange,
    },
    /// Uninterpreted bytes with a descriptive tag.
    Opaque { size: u32, tag: String },
    /// A reference to an object, or to a selection of a dataset, in the same file.
    Reference { kind: ReferenceKind, size: u32 },
    /// A variable-length sequence of a base type (its elements live in the global heap).
    Sequence { base: Box<Datatype> },
    /// A date and time: seconds since the epoch, as an integer of `size` bytes.
    Time { size: u32, order: ByteOrder },
    /// A type this crate does not decode. Objects of it are still listed with their name,
    /// shape and size; only reading their values fails, with `reason`.
    Unsupported {
        /// The datatype class code (0–10 are the specification's).
        class: u8,
        /// Bytes per element.
        size: u32,
        /// What is not supported, for messages.
        reason: String,
    },
}

/// The meaningful bits of an atomic type: `precision` bits starting at bit `offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BitRange {
    pub offset: u16,
    pub precision: u16,
}

/// What a reference points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReferenceKind {
    /// An object (group, dataset or committed datatype), by the address of its header.
    Object,
    /// A selection of a dataset's elements, stored in the global heap.
    Region,
}

/// Size in bytes of a variable-length element on disk: length, heap address, object index.
pub const VLEN_DESCRIPTOR_SIZE: u32 = 16;

impl Datatype {
    /// `H5T_STD_I8LE`.
    pub const I8: Datatype = Self::int(1, true);
    /// `H5T_STD_U32LE`.
    pub const U32: Datatype = Self::int(4, false);
    /// `H5T_STD_I64LE`.
    pub const I64: Datatype = Self::int(8, true);
    /// `H5T_STD_U64LE`.
    pub const U64: Datatype = Self::int(8, false);
    /// `H5T_IEEE_F64LE`.
    pub const F64: Datatype = Datatype::Float {
        size: 8,
        order: ByteOrder::Little,
    };
    /// Variable-length, null-terminated UTF-8 string (what h5py writes for `str`).
    pub const VLEN_UTF8: Datatype = Datatype::String {
        length: StringLength::Variable,
        charset: CharSet::Utf8,
        padding: StrPad::NullTerm,
    };

    const fn int(size: u32, signed: bool) -> Datatype {
        Datatype::Integer {
            size,
            signed,
            order: ByteOrder::Little,
        }
    }

    /// The enum h5py uses for a numpy bool: `FALSE = 0`, `TRUE = 1` over `i8`.
    pub fn bool_enum() -> Datatype {
        Datatype::Enum {
            base: Box::new(Datatype::I8),
            members: vec![
                EnumMember {
                    name: "FALSE".into(),
                    value: vec![0],
                },
                EnumMember {
                    name: "TRUE".into(),
                    value: vec![1],
                },
            ],
        }
    }

    /// Size of one element in bytes as stored in a dataset or attribute; `None` if it does
    /// not fit in `u64`.
    pub fn element_size(&self) -> Option<u64> {
        match self {
            Datatype::Integer { size, .. }
            | Datatype::Float { size, .. }
            | Datatype::Compound { size, .. }
            | Datatype::NarrowInteger { size, .. }
            | Datatype::Bitfield { size, .. }
            | Datatype::Opaque { size, .. }
            | Datatype::Reference { size, .. }
            | Datatype::Time { size, .. }
            | Datatype::Unsupported { size, .. } => Some(u64::from(*size)),
            Datatype::Sequence { .. } => Some(u64::from(VLEN_DESCRIPTOR_SIZE)),
            Datatype::String { length, .. } => Some(match length {
                StringLength::Fixed(n) => u64::from(*n),
                StringLength::Variable => u64::from(VLEN_DESCRIPTOR_SIZE),
            }),
            Datatype::Enum { base, .. } => base.element_size(),
            Datatype::Array { base, dims } => dims
                .iter()
                .try_fold(base.element_size()?, |acc, &d| acc.checked_mul(d)),
        }
    }

    /// Why values of this type cannot be decoded, if they cannot: the reason of the first
    /// unsupported type inside it.
    pub fn unsupported(&self) -> Option<&str> {
        match self {
            Datatype::Unsupported { reason, .. } => Some(reason),
            Datatype::Compound { members, .. } => {
                members.iter().find_map(|m| m.datatype.unsupported())
            }
            Datatype::Enum { base, .. }
            | Datatype::Array { base, .. }
            | Datatype::Sequence { base } => base.unsupported(),
            _ => None,
        }
    }

    /// Whether elements are variable-length (their bytes live in the global heap).
    pub fn is_variable_length(&self) -> bool {
        match self {
            Datatype::String { length, .. } => *length == StringLength::Variable,
            Datatype::Compound { members, .. } => {
                members.iter().any(|m| m.datatype.is_variable_length())
            }
            Datatype::Array { base, .. } => base.is_variable_length(),
            Datatype::Sequence { .. } => true,
            _ => false,
        }
    }
}

/// The shape of a dataset or attribute.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Shape {
    /// One element, no dimensions.
    Scalar,
    /// An array with these dimension sizes (zero sizes allowed).
    Simple(Vec<u64>),
}

impl Shape {
    /// A one-dimensional shape of `n` elements.
    pub fn vector(n: u64) -> Shape {
        Shape::Simple(vec![n])
    }

    /// Number of elements; `None` on overflow.
    pub fn element_count(&self) -> Option<u64> {
        match self {
            Shape::Scalar => Some(1),
            Shape::Simple(dims) => dims.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d)),
        }
    }
}

/// Element data handed to the writer.
#[derive(Debug, Clone, PartialEq)]
pub enum Data {
    /// Fixed-size elements, already encoded in the datatype's byte order, back to back.
    Fixed(Vec<u8>),
    /// One string per element, for a variable-length string datatype.
    VlenStrings(Strings),
}

/// Strings packed in one buffer: a column of a million short strings costs their bytes and
/// an offset each rather than a `String` (and an allocation) each.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Strings {
    text: String,
    /// Where each string ends in `text`.
    ends: Vec<usize>,
}

impl Strings {
    /// Number of strings.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are no strings.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Appends `s`.
    pub fn push(&mut self, s: &str) {
        self.text.push_str(s);
        self.ends.push(self.text.len());
    }

    /// The strings in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(&self.ends)
            .map(|(start, &end)| self.text.get(start..end).unwrap_or_default())
    }
}

impl<S: AsRef<str>> FromIterator<S> for Strings {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Self {
        let mut strings = Strings::default();
        for s in iter {
            strings.push(s.as_ref());
        }
        strings
    }
}

impl Data {
    /// Little-endian encoding of `values`, for an `I64` dataset or attribute.
    pub fn i64s(values: &[i64]) -> Data {
        Data::Fixed(values.iter().flat_map(|v| v.to_le_bytes()).collect())
    }

    /// Little-endian encoding of `values`, for a `U64` dataset or attribute.
    pub fn u64s(values: &[u64]) -> Data {
        Data::Fixed(values.iter().flat_map(|v| v.to_le_bytes()).collect())
    }

    /// Little-endian encoding of `values`, for a `U32` dataset or attribute.
    pub fn u32s(values: &[u32]) -> Data {
        Data::Fixed(values.iter().flat_map(|v| v.to_le_bytes()).collect())
    }

    /// Little-endian encoding of `values`, for an `F64` dataset or attribute.
    pub fn f64s(values: &[f64]) -> Data {
        Data::Fixed(values.iter().flat_map(|v| v.to_le_bytes()).collect())
    }

    /// The bytes of fixed-size data (empty for strings).
    pub fn into_fixed(self) -> Vec<u8> {
        match self {
            Data::Fixed(bytes) => bytes,
            Data::VlenStrings(_) => Vec::new(),
        }
    }

    /// Variable-length strings.
    pub fn strings<S: AsRef<str>>(values: &[S]) -> Data {
        Data::VlenStrings(values.iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_pack_and_come_back_in_order() {
        let strings: Strings = ["main.c", "", "[]", "é"].into_iter().collect();
        assert_eq!(strings.len(), 4);
        assert_eq!(
            strings.iter().collect::<Vec<_>>(),
            ["main.c", "", "[]", "é"]
        );
        assert!(Strings::default().is_empty());
        assert_eq!(Strings::default().iter().count(), 0);
    }

    #[test]
    fn element_sizes() {
        assert_eq!(Datatype::I64.element_size(), Some(8));
        assert_eq!(Datatype::U32.element_size(), Some(4));
        assert_eq!(Datatype::VLEN_UTF8.element_size(), Some(16));
        assert_eq!(Datatype::bool_enum().element_size(), Some(1));
        let arr = Datatype::Array {
            base: Box::new(Datatype::F64),
            dims: vec![2, 3],
        };
        assert_eq!(arr.element_size(), Some(48));
    }

    #[test]
    fn data_encodes_little_endian() {
        assert_eq!(Data::i64s(&[-1]), Data::Fixed(vec![0xff; 8]));
        assert_eq!(Data::u32s(&[1]), Data::Fixed(vec![1, 0, 0, 0]));
    }

    #[test]
    fn shape_counts() {
        assert_eq!(Shape::Scalar.element_count(), Some(1));
        assert_eq!(Shape::vector(0).element_count(), Some(0));
        assert_eq!(Shape::Simple(vec![u64::MAX, 2]).element_count(), None);
    }
}
