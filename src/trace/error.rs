//! Errors of the trace reader: a matchable kind, the byte offset where the problem was found,
//! and a message that says what was being read, for which region, and how far the file falls
//! short. The `sp: <path>: ` prefix is added by the CLI.

use std::fmt;

/// A field of a region record, named in error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    /// The i32 length of the region name.
    NameLength,
    /// The region name.
    Name,
    /// The i32 length of the source-file path (version 2).
    SourceLength,
    /// The source-file path (version 2).
    SourceFile,
    /// The i32 source line (version 2).
    SourceLine,
    /// The i64 call count.
    CallCount,
    /// The start and end arrays together (`16 × calls` bytes).
    Timestamps,
}

impl Field {
    /// The field's name as it appears in messages.
    pub fn describe(self) -> &'static str {
        match self {
            Field::NameLength => "name length",
            Field::Name => "name",
            Field::SourceLength => "source-file length",
            Field::SourceFile => "source file",
            Field::SourceLine => "source line",
            Field::CallCount => "call count",
            Field::Timestamps => "timestamps",
        }
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

/// Which region record an error concerns: its 0-based index in the file, and its name once
/// that has been read.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RegionRef {
    pub index: u64,
    pub name: Option<String>,
}

impl fmt::Display for RegionRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.name {
            Some(name) => write!(f, "region {name:?} (#{})", self.index),
            None => write!(f, "region #{}", self.index),
        }
    }
}

/// What is wrong with a trace.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TraceErrorKind {
    /// Fewer than the 24 bytes of the header.
    TooShort { len: u64 },
    /// The first 8 bytes are not `SCOPEPRF`.
    BadMagic { found: [u8; 8] },
    /// The version field is neither 1 nor 2 in either byte order; holds the little-endian
    /// reading, as the reference quotes it.
    UnsupportedVersion(i32),
    /// The header's region count is negative.
    NegativeRegionCount(i64),
    /// The header claims more regions than the rest of the file could hold even if every
    /// record were as small as possible.
    TooManyRegions {
        count: u64,
        min_bytes: u128,
        available: u64,
    },
    /// A field runs past the end of the file.
    Truncated {
        field: Field,
        region: RegionRef,
        needed: u128,
        available: u64,
    },
    /// A name or source path is not UTF-8; `byte` is the offending byte (`None` when the
    /// string ends inside a multi-byte sequence).
    InvalidUtf8 {
        field: Field,
        region: RegionRef,
        byte: Option<u8>,
    },
    /// Bytes follow the last region record.
    TrailingBytes(u64),
    /// A name or source-file length is negative.
    NegativeLength {
        field: Field,
        region: RegionRef,
        value: i32,
    },
    /// A region's call count is negative.
    NegativeCount { region: RegionRef, value: i64 },
    /// Two records carry the same region name (the reference would silently keep only the
    /// later one).
    DuplicateRegion {
        name: String,
        first_index: u64,
        second_index: u64,
    },
    /// A name or source path contains a NUL byte, which HDF5 strings cannot hold.
    NulInName { field: Field, region: RegionRef },
    /// The rank is negative (profiles store it as an unsigned 32-bit number).
    NegativeRank(i32),
}

/// An error of the trace reader. Boxed so that `Result<_, TraceError>` stays small.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceError {
    inner: Box<Inner>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Inner {
    kind: TraceErrorKind,
    offset: Option<u64>,
}

impl TraceError {
    /// An error of `kind` found at byte `offset` of the file (if it has one).
    pub fn new(kind: TraceErrorKind, offset: Option<u64>) -> Self {
        TraceError {
            inner: Box::new(Inner { kind, offset }),
        }
    }

    /// A negative length `value`, read at `len_at`, for the string `field` of `region`.
    pub(crate) fn negative_length(
        field: Field,
        region: RegionRef,
        value: i32,
        len_at: u64,
    ) -> Self {
        let field = match field {
            Field::SourceFile => Field::SourceLength,
            _ => Field::NameLength,
        };
        TraceError::new(
            TraceErrorKind::NegativeLength {
                field,
                region,
                value,
            },
            Some(len_at),
        )
    }

    /// The string `field` of `region`, stored at `at`, is not UTF-8 (`error` from decoding
    /// `bytes`).
    pub(crate) fn invalid_utf8(
        field: Field,
        region: RegionRef,
        bytes: &[u8],
        error: std::str::Utf8Error,
        at: u64,
    ) -> Self {
        let byte = error
            .error_len()
            .and_then(|_| bytes.get(error.valid_up_to()).copied());
        TraceError::new(
            TraceErrorKind::InvalidUtf8 {
                field,
                region,
                byte,
            },
            Some(at.saturating_add(error.valid_up_to() as u64)),
        )
    }

    /// What is wrong.
    pub fn kind(&self) -> &TraceErrorKind {
        &self.inner.kind
    }

    /// The byte offset in the file where the problem was found.
    pub fn offset(&self) -> Option<u64> {
        self.inner.offset
    }

    /// Whether the file is well formed but uses a format version this crate does not read.
    pub fn is_unsupported(&self) -> bool {
        matches!(self.inner.kind, TraceErrorKind::UnsupportedVersion(_))
    }
}

/// `n thing` or `n things`.
fn plural(n: impl Into<u128>, one: &str, many: &str) -> String {
    let n = n.into();
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

fn remain(available: u64) -> &'static str {
    if available == 1 {
        "remains"
    } else {
        "remain"
    }
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = self.inner.offset.unwrap_or(0);
        match &self.inner.kind {
            TraceErrorKind::TooShort { .. } => f.write_str("too short to be a trace file"),
            TraceErrorKind::BadMagic { found } => write!(
                f,
                "not a scope-profiler Fortran trace (expected b'SCOPEPRF', found {})",
                python_bytes_repr(found)
            ),
            TraceErrorKind::UnsupportedVersion(v) => write!(
                f,
                "unsupported trace format version {v} (this scope-profiler reads versions (1, 2))"
            ),
            TraceErrorKind::NegativeRegionCount(v) => write!(
                f,
                "invalid trace: the header has a negative region count ({v}) at offset {at}"
            ),
            TraceErrorKind::TooManyRegions {
                count,
                min_bytes,
                available,
            } => write!(
                f,
                "truncated trace: the header claims {} needing at least {} at offset {at}, only \
                 {available} {}",
                plural(*count, "region", "regions"),
                plural(*min_bytes, "byte", "bytes"),
                remain(*available)
            ),
            TraceErrorKind::Truncated {
                field,
                region,
                needed,
                available,
            } => write!(
                f,
                "truncated trace: {region} needs {} of {field} at offset {at}, only {available} {}",
                plural(*needed, "byte", "bytes"),
                remain(*available)
            ),
            TraceErrorKind::InvalidUtf8 {
                field,
                region,
                byte,
            } => {
                write!(
                    f,
                    "invalid trace: the {field} of {region} is not valid UTF-8 ("
                )?;
                match byte {
                    Some(b) => write!(f, "byte 0x{b:02x} at offset {at})"),
                    None => write!(f, "incomplete sequence at offset {at})"),
                }
            }
            TraceErrorKind::TrailingBytes(k) => {
                write!(f, "{k} trailing byte(s) after the last region")
            }
            TraceErrorKind::NegativeLength {
                field,
                region,
                value,
            } => write!(
                f,
                "invalid trace: {region} has a negative {field} ({value}) at offset {at}"
            ),
            TraceErrorKind::NegativeCount { region, value } => write!(
                f,
                "invalid trace: {region} has a negative call count ({value}) at offset {at}"
            ),
            TraceErrorKind::DuplicateRegion {
                name,
                first_index,
                second_index,
            } => write!(
                f,
                "invalid trace: region {name:?} appears twice (#{first_index} and \
                 #{second_index}, the second at offset {at})"
            ),
            TraceErrorKind::NulInName { field, region } => write!(
                f,
                "invalid trace: the {field} of {region} contains a NUL byte at offset {at}"
            ),
            TraceErrorKind::NegativeRank(rank) => write!(
                f,
                "invalid trace: negative rank {rank} at offset {at} (profiles store ranks as \
                 unsigned 32-bit numbers)"
            ),
        }
    }
}

impl std::error::Error for TraceError {}

/// Python's `repr()` of a `bytes` object, as the reference prints the magic it found.
pub(crate) fn python_bytes_repr(bytes: &[u8]) -> String {
    let quote = if bytes.contains(&b'\'') && !bytes.contains(&b'"') {
        b'"'
    } else {
        b'\''
    };
    let mut out = String::with_capacity(3 + 4 * bytes.len());
    out.push('b');
    out.push(char::from(quote));
    for &b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            _ if b == quote => {
                out.push('\\');
                out.push(char::from(b));
            }
            0x20..=0x7e => out.push(char::from(b)),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push(char::from(quote));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(index: u64, name: Option<&str>) -> RegionRef {
        RegionRef {
            index,
            name: name.map(str::to_owned),
        }
    }

    #[test]
    fn python_repr_matches_the_reference() {
        // Outputs checked against CPython 3.11 `repr(bytes)`.
        assert_eq!(python_bytes_repr(b"SCOPEPRF"), "b'SCOPEPRF'");
        assert_eq!(
            python_bytes_repr(b"\x00\x01\x7f\x80\xff"),
            r"b'\x00\x01\x7f\x80\xff'"
        );
        assert_eq!(python_bytes_repr(b"\t\n\r\\"), r"b'\t\n\r\\'");
        assert_eq!(python_bytes_repr(b"it's"), "b\"it's\"");
        assert_eq!(python_bytes_repr(b"'\""), r#"b'\'"'"#);
        assert_eq!(
            python_bytes_repr(b"\x89HDF\r\n\x1a\n"),
            r"b'\x89HDF\r\n\x1a\n'"
        );
    }

    #[test]
    fn reference_worded_messages() {
        let e = TraceError::new(TraceErrorKind::TooShort { len: 5 }, None);
        assert_eq!(e.to_string(), "too short to be a trace file");
        let e = TraceError::new(
            TraceErrorKind::BadMagic {
                found: *b"\x89HDF\r\n\x1a\n",
            },
            Some(0),
        );
        assert_eq!(
            e.to_string(),
            r"not a scope-profiler Fortran trace (expected b'SCOPEPRF', found b'\x89HDF\r\n\x1a\n')"
        );
        let e = TraceError::new(TraceErrorKind::UnsupportedVersion(3), Some(8));
        assert_eq!(
            e.to_string(),
            "unsupported trace format version 3 (this scope-profiler reads versions (1, 2))"
        );
        assert!(e.is_unsupported());
        let e = TraceError::new(TraceErrorKind::TrailingBytes(1), Some(89));
        assert_eq!(e.to_string(), "1 trailing byte(s) after the last region");
    }

    #[test]
    fn truncation_messages_say_what_where_and_how_much() {
        let e = TraceError::new(
            TraceErrorKind::Truncated {
                field: Field::Timestamps,
                region: region(7, Some("solve")),
                needed: 800_000,
                available: 96,
            },
            Some(4120),
        );
        assert_eq!(
            e.to_string(),
            "truncated trace: region \"solve\" (#7) needs 800000 bytes of timestamps at offset \
             4120, only 96 remain"
        );
        let e = TraceError::new(
            TraceErrorKind::Truncated {
                field: Field::Name,
                region: region(0, None),
                needed: 1,
                available: 1,
            },
            Some(28),
        );
        assert_eq!(
            e.to_string(),
            "truncated trace: region #0 needs 1 byte of name at offset 28, only 1 remains"
        );
        let e = TraceError::new(
            TraceErrorKind::TooManyRegions {
                count: 1,
                min_bytes: 12,
                available: 0,
            },
            Some(24),
        );
        assert_eq!(
            e.to_string(),
            "truncated trace: the header claims 1 region needing at least 12 bytes at offset \
             24, only 0 remain"
        );
    }

    #[test]
    fn names_are_quoted_and_escaped() {
        let r = region(2, Some("a\"b\n"));
        assert_eq!(r.to_string(), r#"region "a\"b\n" (#2)"#);
    }

    #[test]
    fn error_is_one_pointer_wide() {
        assert_eq!(
            std::mem::size_of::<TraceError>(),
            std::mem::size_of::<usize>()
        );
    }
}
