//! Errors of the HDF5 layer: one matchable kind, the byte offset where the problem was
//! found, and the object path it concerns. The CLI is the only place that turns them into
//! prose for a user.

use std::fmt;

/// What went wrong, by what a user can do about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The bytes do not follow the HDF5 format (or are truncated).
    Format,
    /// Valid HDF5 that uses a feature this crate does not implement.
    Unsupported,
    /// The file asks for more memory, depth or decompression than [`Limits`](super::Limits) allow.
    LimitsExceeded,
    /// A metadata checksum does not match.
    Checksum,
    /// The underlying reader or writer failed.
    Io,
    /// The caller asked for something impossible (wrong type, missing object, bad name).
    Usage,
}

/// An error of the HDF5 layer.
#[derive(Debug)]
pub struct Error {
    inner: Box<Inner>,
}

#[derive(Debug)]
struct Inner {
    kind: ErrorKind,
    message: String,
    offset: Option<u64>,
    path: Option<String>,
    source: Option<std::io::Error>,
}

/// Result alias of the HDF5 layer.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error of `kind` with a message saying what is wrong.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            inner: Box::new(Inner {
                kind,
                message: message.into(),
                offset: None,
                path: None,
                source: None,
            }),
        }
    }

    /// Malformed file content.
    pub fn format(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Format, message)
    }

    /// A valid but unimplemented feature.
    pub fn unsupported(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Unsupported, message)
    }

    /// A limit of [`Limits`](super::Limits) was hit.
    pub fn limits(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::LimitsExceeded, message)
    }

    /// A caller error.
    pub fn usage(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Usage, message)
    }

    /// Records the absolute byte offset, unless a more precise one is already set.
    pub fn at(mut self, offset: u64) -> Self {
        if self.inner.offset.is_none() {
            self.inner.offset = Some(offset);
        }
        self
    }

    /// Records the object path, unless a deeper one is already set.
    pub fn in_object(mut self, path: impl Into<String>) -> Self {
        if self.inner.path.is_none() {
            self.inner.path = Some(path.into());
        }
        self
    }

    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        self.inner.kind
    }

    /// The message without offset or path.
    pub fn message(&self) -> &str {
        &self.inner.message
    }

    /// The absolute byte offset where the problem was found, if known.
    pub fn offset(&self) -> Option<u64> {
        self.inner.offset
    }

    /// The object path the problem concerns, if known.
    pub fn path(&self) -> Option<&str> {
        self.inner.path.as_deref()
    }
}

impl From<std::io::Error> for Error {
    /// A read past the end of the source is a truncated (malformed) file; any other I/O
    /// failure is [`ErrorKind::Io`].
    fn from(err: std::io::Error) -> Self {
        let kind = match err.kind() {
            std::io::ErrorKind::UnexpectedEof => ErrorKind::Format,
            _ => ErrorKind::Io,
        };
        let mut e = Error::new(kind, err.to_string());
        e.inner.source = Some(err);
        e
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(path) = &self.inner.path {
            write!(f, "{path}: ")?;
        }
        f.write_str(&self.inner.message)?;
        if let Some(offset) = self.inner.offset {
            write!(f, " (at byte {offset})")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.inner
            .source
            .as_ref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_path_message_and_offset() {
        let e = Error::format("bad signature")
            .at(96)
            .in_object("/events/durations");
        assert_eq!(e.kind(), ErrorKind::Format);
        assert_eq!(
            e.to_string(),
            "/events/durations: bad signature (at byte 96)"
        );
    }

    #[test]
    fn innermost_offset_and_path_win() {
        let e = Error::format("x")
            .at(10)
            .at(20)
            .in_object("/a/b")
            .in_object("/a");
        assert_eq!(e.offset(), Some(10));
        assert_eq!(e.path(), Some("/a/b"));
    }
}
