//! Errors of the analysis layer.

use std::fmt;

use crate::hdf5lite;

/// An error of the analysis layer.
#[derive(Debug)]
pub enum Error {
    /// An HDF5 file that is not a scope-profiler profile.
    NotAProfile(String),
    /// A profile whose content contradicts itself.
    Corrupt(String),
    /// The fast path was asked for, but the file stores no `summary_statistics`.
    NoSummary,
    /// Reading the HDF5 file failed.
    Hdf5(hdf5lite::Error),
    /// Writing an export failed.
    Write(std::io::Error),
}

/// Result alias of the analysis layer.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NotAProfile(m) => write!(f, "not a scope-profiler profile: {m}"),
            Error::Corrupt(m) => write!(f, "damaged profile: {m}"),
            Error::NoSummary => write!(f, "the profile stores no summary_statistics"),
            Error::Hdf5(e) => write!(f, "{e}"),
            Error::Write(e) => write!(f, "write failed: {e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<hdf5lite::Error> for Error {
    fn from(e: hdf5lite::Error) -> Self {
        Error::Hdf5(e)
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Write(e)
    }
}
