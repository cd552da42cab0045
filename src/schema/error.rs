//! Errors of the profile layer: violations of the import rules, and failures of the HDF5
//! layer underneath.

use std::fmt;

use crate::hdf5lite;

/// An error of the profile layer.
#[derive(Debug)]
pub enum Error {
    /// Two inputs hold the same rank (`later` is the input that claimed it second).
    DuplicateRank {
        rank: u32,
        earlier: String,
        later: String,
    },
    /// A rank outside what the `ranks` column (u32) can hold.
    RankOutOfRange { rank: i64, origin: String },
    /// A region holds different numbers of start and end times.
    MismatchedCalls {
        region: String,
        starts: usize,
        ends: usize,
    },
    /// Writing or reading the HDF5 file failed.
    Hdf5(hdf5lite::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::DuplicateRank {
                rank,
                earlier,
                later,
            } => write!(
                f,
                "{later} and {earlier} both claim rank {rank}; pass the MPI rank to \
                 sp_init() so each rank writes its own"
            ),
            Error::RankOutOfRange { rank, origin } => {
                write!(f, "{origin}: rank {rank} is outside 0..=4294967295")
            }
            Error::MismatchedCalls {
                region,
                starts,
                ends,
            } => write!(
                f,
                "region {region:?} has {starts} start times but {ends} end times"
            ),
            Error::Hdf5(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Hdf5(e) => Some(e),
            _ => None,
        }
    }
}

impl From<hdf5lite::Error> for Error {
    fn from(e: hdf5lite::Error) -> Self {
        Error::Hdf5(e)
    }
}
