//! Errors of the `.sps` reader: a matchable kind, the byte offset where the problem was
//! found, and a message saying what was being read. The `sp: <path>: ` prefix is added by
//! the CLI.

use std::fmt;

/// A field of a sample file, named in error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SampleField {
    Header,
    RegionCount,
    RegionName,
    ModuleCount,
    ModulePath,
    LoadAddress,
    SampleCount,
    Samples,
}

impl SampleField {
    /// The field's name as it appears in messages.
    pub fn describe(self) -> &'static str {
        match self {
            SampleField::Header => "header",
            SampleField::RegionCount => "region count",
            SampleField::RegionName => "region name",
            SampleField::ModuleCount => "module count",
            SampleField::ModulePath => "module path",
            SampleField::LoadAddress => "module load address",
            SampleField::SampleCount => "sample count",
            SampleField::Samples => "samples",
        }
    }
}

/// What kind of problem, so a front end can say what the user can do about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SampleErrorClass {
    /// The bytes are not a valid sample file.
    Malformed,
    /// A valid file of a format version this crate does not read.
    Unsupported,
    /// Valid, but larger than the [`Limits`](super::Limits) allow.
    LimitsExceeded,
}

/// What is wrong with a sample file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SampleErrorKind {
    /// The first 8 bytes are not `SCOPESMP` (or the file is shorter than that).
    BadMagic,
    /// The version is not 1 in either byte order; holds the little-endian reading.
    UnsupportedVersion(i32),
    /// A field runs past the end of the file; `index` is the region or module being read.
    Truncated {
        field: SampleField,
        index: Option<u64>,
        needed: u64,
        available: u64,
    },
    /// A count or length is negative.
    Negative { field: SampleField, value: i64 },
    /// A count claims more entries than the rest of the file can hold.
    CountTooLarge {
        field: SampleField,
        count: u64,
        available: u64,
    },
    /// Bytes follow the last sample (the reference's "truncated or oversized").
    TrailingBytes(u64),
    /// A count or length is over the reader's [`Limits`](super::Limits).
    OverLimit {
        field: SampleField,
        value: u64,
        limit: u64,
    },
}

/// An error of [`parse`](super::parse): a kind and the byte offset of the field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SampleError {
    kind: Box<SampleErrorKind>,
    offset: u64,
}

impl SampleError {
    pub(crate) fn new(kind: SampleErrorKind, offset: u64) -> Self {
        SampleError {
            kind: Box::new(kind),
            offset,
        }
    }

    /// What is wrong.
    pub fn kind(&self) -> &SampleErrorKind {
        &self.kind
    }

    /// The absolute byte offset of the field that is wrong.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Malformed, unsupported or over the limits.
    pub fn class(&self) -> SampleErrorClass {
        match *self.kind {
            SampleErrorKind::UnsupportedVersion(_) => SampleErrorClass::Unsupported,
            SampleErrorKind::OverLimit { .. } => SampleErrorClass::LimitsExceeded,
            _ => SampleErrorClass::Malformed,
        }
    }
}

impl fmt::Display for SampleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = self.offset;
        match &*self.kind {
            SampleErrorKind::BadMagic => f.write_str("not a scope-profiler sample file"),
            SampleErrorKind::UnsupportedVersion(v) => write!(
                f,
                "unsupported sample format version {v} (sp reads version 1)"
            ),
            SampleErrorKind::Truncated {
                field,
                index,
                needed,
                available,
            } => {
                write!(f, "truncated sample file: {}", field.describe())?;
                if let Some(i) = index {
                    write!(f, " #{i}")?;
                }
                write!(f, " at byte {at} needs {needed} bytes, {available} remain")
            }
            SampleErrorKind::Negative { field, value } => {
                write!(f, "negative {} {value} at byte {at}", field.describe())
            }
            SampleErrorKind::CountTooLarge {
                field,
                count,
                available,
            } => write!(
                f,
                "{} {count} at byte {at} does not fit the {available} bytes that remain",
                field.describe()
            ),
            SampleErrorKind::TrailingBytes(n) => write!(
                f,
                "oversized sample file: {n} bytes after the last sample (byte {at})"
            ),
            SampleErrorKind::OverLimit {
                field,
                value,
                limit,
            } => write!(
                f,
                "{} {value} at byte {at} is over the limit of {limit}",
                field.describe()
            ),
        }
    }
}

impl std::error::Error for SampleError {}
