//! The Dataspace Message (0x0001): rank, dimension sizes and optional maximum sizes.
//! Parses versions 1 and 2; encodes version 2.

use crate::hdf5lite::error::{Error, Result};
use crate::hdf5lite::model::Shape;
use crate::hdf5lite::raw::cursor::{Cursor, Encoder};

/// Maximum size of an extendible dimension (`H5S_UNLIMITED`).
pub const UNLIMITED: u64 = u64::MAX;

/// Most dimensions the format allows.
pub const MAX_RANK: u8 = 32;

const FLAG_MAX_DIMS: u8 = 0x01;
const FLAG_PERMUTATION: u8 = 0x02;

/// The shape of a dataset or attribute as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dataspace {
    /// One element.
    Scalar,
    /// No elements at all (not even a shape).
    Null,
    /// An array; `max_dims` uses [`UNLIMITED`] for extendible dimensions.
    Simple {
        dims: Vec<u64>,
        max_dims: Option<Vec<u64>>,
    },
}

impl Dataspace {
    /// The dataspace for a model shape, with maximum sizes equal to the sizes (as h5py
    /// stores them for contiguous datasets).
    pub fn from_shape(shape: &Shape) -> Dataspace {
        match shape {
            Shape::Scalar => Dataspace::Scalar,
            Shape::Simple(dims) => Dataspace::Simple {
                dims: dims.clone(),
                max_dims: Some(dims.clone()),
            },
        }
    }

    /// The model shape; `None` for a null dataspace.
    pub fn shape(&self) -> Option<Shape> {
        match self {
            Dataspace::Scalar => Some(Shape::Scalar),
            Dataspace::Null => None,
            Dataspace::Simple { dims, .. } => Some(Shape::Simple(dims.clone())),
        }
    }

    /// Parses a version 1 or 2 message body.
    pub fn parse(c: &mut Cursor<'_>) -> Result<Dataspace> {
        let at = c.offset();
        let version = c.u8()?;
        let rank = c.u8()?;
        let flags = c.u8()?;
        if rank > MAX_RANK {
            return Err(Error::format(format!("dataspace rank {rank} exceeds 32")).at(at));
        }
        let kind = match version {
            1 => {
                c.skip(5)?; // reserved
                if rank == 0 {
                    0
                } else {
                    1
                }
            }
            2 => c.u8()?,
            v => return Err(Error::unsupported(format!("dataspace message version {v}")).at(at)),
        };
        let unlimited = super::all_ones(c.widths().length);
        let mut dims = Vec::new();
        for _ in 0..rank {
            dims.push(c.length()?);
        }
        let max_dims = if flags & FLAG_MAX_DIMS != 0 {
            let mut m = Vec::new();
            for _ in 0..rank {
                let v = c.length()?;
                m.push(if v == unlimited { UNLIMITED } else { v });
            }
            Some(m)
        } else {
            None
        };
        if version == 1 && flags & FLAG_PERMUTATION != 0 {
            for _ in 0..rank {
                c.length()?;
            }
        }
        if let Some(max) = &max_dims {
            if let Some(i) = (0..dims.len()).find(|&i| dims[i] > max[i]) {
                return Err(Error::format(format!(
                    "dataspace dimension {i} of {} passes its maximum of {}",
                    dims[i], max[i]
                ))
                .at(at));
            }
        }
        match kind {
            0 if rank == 0 => Ok(Dataspace::Scalar),
            1 if rank > 0 => Ok(Dataspace::Simple { dims, max_dims }),
            2 if rank == 0 => Ok(Dataspace::Null),
            k => Err(Error::format(format!(
                "dataspace type {k} with rank {rank} is not scalar, simple or null"
            ))
            .at(at)),
        }
    }

    /// Encodes a version 2 message body.
    pub fn encode(&self, e: &mut Encoder) {
        e.u8(2);
        match self {
            Dataspace::Scalar => e.bytes(&[0, 0, 0]),
            Dataspace::Null => e.bytes(&[0, 0, 2]),
            Dataspace::Simple { dims, max_dims } => {
                // Rank is bounded by the model (Shape) and checked by the writer.
                e.u8(dims.len() as u8);
                e.u8(if max_dims.is_some() { FLAG_MAX_DIMS } else { 0 });
                e.u8(1);
                for &d in dims {
                    e.length(d);
                }
                for &m in max_dims.iter().flatten() {
                    e.length(m);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdf5lite::raw::cursor::Widths;
    use crate::hdf5lite::ErrorKind;

    fn parse(bytes: &[u8]) -> Result<Dataspace> {
        Dataspace::parse(&mut Cursor::new(bytes, 0, Widths::STANDARD))
    }

    fn encode(d: &Dataspace) -> Vec<u8> {
        let mut e = Encoder::new(Widths::STANDARD);
        d.encode(&mut e);
        e.into_bytes()
    }

    #[test]
    fn v1_scalar() {
        let bytes = [
            1, // version
            0, // rank
            0, // flags
            0, 0, 0, 0, 0, // reserved
        ];
        assert_eq!(parse(&bytes).unwrap(), Dataspace::Scalar);
    }

    #[test]
    fn v1_simple_unlimited() {
        let bytes = [
            1, 1, 1, // version 1, rank 1, flags: max dims present
            0, 0, 0, 0, 0, // reserved
            0x37, 0x21, 0, 0, 0, 0, 0, 0, // dim 8503
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // max: unlimited
        ];
        assert_eq!(
            parse(&bytes).unwrap(),
            Dataspace::Simple {
                dims: vec![8503],
                max_dims: Some(vec![UNLIMITED])
            }
        );
    }

    #[test]
    fn v2_encodings() {
        assert_eq!(encode(&Dataspace::Scalar), [2, 0, 0, 0]);
        assert_eq!(encode(&Dataspace::Null), [2, 0, 0, 2]);
        let d = Dataspace::from_shape(&Shape::vector(9));
        assert_eq!(
            encode(&d),
            [
                2, 1, 1, 1, // version 2, rank 1, max dims present, simple
                9, 0, 0, 0, 0, 0, 0, 0, // dim
                9, 0, 0, 0, 0, 0, 0, 0, // max dim
            ]
        );
        for d in [
            Dataspace::Scalar,
            Dataspace::Null,
            d,
            Dataspace::Simple {
                dims: vec![0, 3],
                max_dims: None,
            },
        ] {
            assert_eq!(parse(&encode(&d)).unwrap(), d);
        }
    }

    #[test]
    fn rejects_bad_rank_type_and_truncation() {
        assert_eq!(parse(&[2, 33, 0, 1]).unwrap_err().kind(), ErrorKind::Format);
        assert_eq!(parse(&[2, 0, 0, 1]).unwrap_err().kind(), ErrorKind::Format);
        assert_eq!(
            parse(&[3, 0, 0, 0]).unwrap_err().kind(),
            ErrorKind::Unsupported
        );
        let err = parse(&[2, 1, 0, 1, 5, 0]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Format);
        assert_eq!(err.offset(), Some(4));
    }

    #[test]
    fn a_size_past_its_maximum_is_malformed() {
        let bytes = [
            1, 1, 1, // version 1, rank 1, max dims present
            0, 0, 0, 0, 0, // reserved
            0x20, 0x00, 0x00, 0x52, 0, 0, 0, 0, // dim 1,375,731,744: 32 with a damaged byte
            32, 0, 0, 0, 0, 0, 0, 0, // max 32
        ];
        let err = parse(&bytes).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Format);
        assert_eq!(
            err.message(),
            "dataspace dimension 0 of 1375731744 passes its maximum of 32"
        );
    }
}
