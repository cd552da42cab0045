//! Errors of the analysis layer.

use std::fmt;

use crate::{hdf5lite, schema};

/// An error of the analysis layer.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// Reading the profile failed (not a profile, damaged, unreadable HDF5).
    Profile(schema::Error),
    /// The fast path was asked for, but the file stores no `summary_statistics`.
    NoSummary,
    /// The profile's content cannot give what was asked (calls that do not nest, …).
    Corrupt(String),
    /// Writing an output failed.
    Write(std::io::Error),
    /// The profile lacks what was asked for (a chart of calls from a profile that stores
    /// none, stacks of calls that do not nest): the sentence says what.
    Unavailable(String),
    /// The work was stopped through its [`Progress`](super::progress::Progress) before it
    /// finished: no result, and nothing wrong with the profile.
    Cancelled,
}

/// Result alias of the analysis layer.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Profile(e) => write!(f, "{e}"),
            Error::Corrupt(m) => write!(f, "damaged profile: {m}"),
            Error::NoSummary => write!(f, "the profile stores no summary_statistics"),
            Error::Write(e) => write!(f, "write failed: {e}"),
            Error::Unavailable(m) => write!(f, "{m}"),
            Error::Cancelled => write!(f, "stopped before it finished"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Profile(e) => Some(e),
            Error::Write(e) => Some(e),
            Error::NoSummary | Error::Corrupt(_) | Error::Unavailable(_) | Error::Cancelled => None,
        }
    }
}

impl From<schema::Error> for Error {
    fn from(e: schema::Error) -> Self {
        Error::Profile(e)
    }
}

impl From<hdf5lite::Error> for Error {
    fn from(e: hdf5lite::Error) -> Self {
        Error::Profile(e.into())
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Write(e)
    }
}
