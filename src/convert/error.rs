//! Why a conversion failed: which input (by the name the caller gave it) or the output, and
//! the error of the layer underneath as [`source`](std::error::Error::source).

use std::fmt;
use std::io;

use crate::hdf5lite;
use crate::schema;
use crate::trace::TraceError;

/// An error of the conversion pipeline.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// An input could not be read.
    Read { input: String, source: io::Error },
    /// An input `.h5` could not be opened.
    Open { input: String, source: io::Error },
    /// An input trace is malformed.
    Trace { input: String, source: TraceError },
    /// An input `.h5` could not be opened as HDF5.
    Hdf5 {
        input: String,
        source: hdf5lite::Error,
    },
    /// An input `.h5` is not a profile sp can read, or is damaged.
    Profile {
        input: String,
        source: schema::Error,
    },
    /// The inputs break the merge rules: a rank claimed twice, a region name on both sides
    /// of a merge.
    Merge(schema::Error),
    /// The profile cannot be laid out as a file (more events than a file can index, say).
    Layout(schema::Error),
    /// Writing the output failed.
    Write(io::Error),
    /// Writing the file's HDF5 structure (or compressing and indexing the event chunks)
    /// failed.
    Encode(hdf5lite::Error),
    /// A broken invariant of the pipeline (a bug, not a property of the inputs).
    Internal(&'static str),
}

impl Error {
    /// The input the error concerns, by the name the caller gave it.
    pub fn input(&self) -> Option<&str> {
        match self {
            Error::Read { input, .. }
            | Error::Open { input, .. }
            | Error::Trace { input, .. }
            | Error::Hdf5 { input, .. }
            | Error::Profile { input, .. } => Some(input),
            _ => None,
        }
    }

    /// Whether the error is the output's (then the caller names the output file).
    pub fn is_output(&self) -> bool {
        matches!(
            self,
            Error::Layout(_) | Error::Write(_) | Error::Encode(_) | Error::Internal(_)
        )
    }

    pub(crate) fn read(input: &str, source: io::Error) -> Self {
        Error::Read {
            input: input.to_owned(),
            source,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Read { input, source } => write!(f, "{input}: cannot read: {source}"),
            Error::Open { input, source } => write!(f, "{input}: cannot open: {source}"),
            Error::Trace { input, source } => write!(f, "{input}: {source}"),
            Error::Hdf5 { input, source } => {
                write!(f, "{input}: not a readable HDF5 file: {source}")
            }
            Error::Profile { input, source } => write!(f, "{input}: {source}"),
            Error::Merge(e) | Error::Layout(e) => e.fmt(f),
            Error::Write(e) => write!(f, "cannot write: {e}"),
            Error::Encode(e) => write!(f, "cannot write: {e}"),
            Error::Internal(what) => write!(f, "{what} (internal error)"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Read { source, .. } | Error::Open { source, .. } => Some(source),
            Error::Trace { source, .. } => Some(source),
            Error::Hdf5 { source, .. } => Some(source),
            Error::Profile { source, .. } => Some(source),
            Error::Merge(e) | Error::Layout(e) => Some(e),
            Error::Write(e) => Some(e),
            Error::Encode(e) => Some(e),
            Error::Internal(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn messages_name_the_input_and_keep_the_cause() {
        let e = Error::read("a/r_rank00001.spt", io::Error::other("disk on fire"));
        assert_eq!(
            e.to_string(),
            "a/r_rank00001.spt: cannot read: disk on fire"
        );
        assert_eq!(e.input(), Some("a/r_rank00001.spt"));
        assert!(!e.is_output());
        assert_eq!(e.source().unwrap().to_string(), "disk on fire");

        let e = Error::Write(io::Error::other("no space"));
        assert_eq!(e.to_string(), "cannot write: no space");
        assert!(e.is_output() && e.input().is_none());

        let e = Error::Merge(schema::Error::RegionClash("x".into()));
        assert!(e
            .to_string()
            .starts_with("region \"x\" appears in more than one result set"));
        assert!(!e.is_output());
    }
}
