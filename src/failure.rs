//! The error a subcommand or the terminal UI ends with. It wraps the error of the layer
//! that failed, with the file it concerns, and is the one place where errors become prose:
//! one line for stderr (`sp: <file>: <what is wrong>`), and an exit status (1 for a failure
//! of the work, 2 for a usage error). A closed stdout is not a failure at all: see [`Failure::is_closed_stdout`].

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use sp::analysis::SelectionError;
#[cfg(test)]
use sp::schema;
use sp::{analysis, convert, hdf5lite};

/// A failed command.
#[derive(Debug)]
#[non_exhaustive]
pub enum Failure {
    /// Arguments clap cannot check: a `--ranks` spec, a region pattern (exit status 2).
    Usage(SelectionError),
    /// Any other usage error clap cannot check, already phrased (exit status 2).
    UsageText(String),
    /// A file could not be opened, created, read or written.
    Io {
        path: PathBuf,
        /// What was being done: `cannot open`, `cannot create`, `cannot write`.
        action: &'static str,
        error: io::Error,
    },
    /// A file is not HDF5 the reader can open.
    Hdf5 {
        path: PathBuf,
        error: hdf5lite::Error,
    },
    /// The conversion failed; its error names the input it concerns, and `output` is named
    /// when the output is at fault.
    Convert {
        output: PathBuf,
        error: convert::Error,
    },
    /// The analysis of a profile failed.
    Analysis {
        path: PathBuf,
        error: analysis::Error,
    },
    /// Writing the report to stdout failed.
    Stdout(io::Error),
    /// A failure already phrased, with the file it concerns if any.
    Other {
        path: Option<String>,
        message: String,
    },
}

impl Failure {
    /// A failure of the work, already phrased (exit status 1).
    pub fn new(message: impl Into<String>) -> Self {
        Failure::Other {
            path: None,
            message: message.into(),
        }
    }

    /// A usage error clap cannot check, already phrased (exit status 2).
    pub fn usage(message: impl Into<String>) -> Self {
        Failure::UsageText(message.into())
    }

    /// A failure concerning one file, already phrased: `path: message`.
    pub fn in_file(path: impl fmt::Display, message: impl fmt::Display) -> Self {
        Failure::Other {
            path: Some(path.to_string()),
            message: message.to_string(),
        }
    }

    /// `action` on `path` failed.
    pub fn io(path: &Path, action: &'static str, error: io::Error) -> Self {
        Failure::Io {
            path: path.to_owned(),
            action,
            error,
        }
    }

    /// `path` did not open as HDF5.
    pub fn hdf5(path: &Path, error: hdf5lite::Error) -> Self {
        Failure::Hdf5 {
            path: path.to_owned(),
            error,
        }
    }

    /// The conversion to `output` failed.
    pub fn convert(output: &Path, error: convert::Error) -> Self {
        Failure::Convert {
            output: output.to_owned(),
            error,
        }
    }

    /// The analysis of `path` failed.
    pub fn analysis(path: &Path, error: analysis::Error) -> Self {
        Failure::Analysis {
            path: path.to_owned(),
            error,
        }
    }

    /// `path` could not be opened as a stored profile (HDF5 or the reference's JSON).
    pub fn stored(path: &Path, error: analysis::stored::OpenError) -> Self {
        match error {
            analysis::stored::OpenError::Io(e) => Failure::io(path, "cannot read", e),
            analysis::stored::OpenError::Hdf5(e) => Failure::hdf5(path, e),
            analysis::stored::OpenError::Json(e) => Failure::analysis(path, e),
        }
    }

    /// The file the failure concerns, if it concerns one.
    pub fn path(&self) -> Option<String> {
        match self {
            Failure::Io { path, .. }
            | Failure::Hdf5 { path, .. }
            | Failure::Analysis { path, .. } => Some(path.display().to_string()),
            Failure::Convert { output, error } => {
                error.is_output().then(|| output.display().to_string())
            }
            Failure::Other { path, .. } => path.clone(),
            Failure::Usage(_) | Failure::UsageText(_) | Failure::Stdout(_) => None,
        }
    }

    /// Exit status: 2 for a usage error, 1 for a failure of the work.
    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::Usage(_) | Failure::UsageText(_) => 2,
            _ => 1,
        }
    }

    /// Whether this is stdout closed by its reader (`sp inspect … | head`): not a failure,
    /// so `sp` stops quietly with status 0, as ripgrep does.
    pub fn is_closed_stdout(&self) -> bool {
        matches!(self, Failure::Stdout(e) if e.kind() == io::ErrorKind::BrokenPipe)
    }

    /// What is wrong, without the file.
    fn message(&self) -> String {
        match self {
            Failure::Usage(e) => e.to_string(),
            Failure::UsageText(m) => m.clone(),
            Failure::Io { action, error, .. } => format!("{action}: {error}"),
            Failure::Hdf5 { error, .. } => format!("not a readable HDF5 file: {error}"),
            Failure::Convert { error, .. } => error.to_string(),
            Failure::Analysis { error, .. } => error.to_string(),
            Failure::Stdout(error) => format!("cannot write output: {error}"),
            Failure::Other { message, .. } => message.clone(),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let line = match self.path() {
            Some(path) => format!("{path}: {}", self.message()),
            None => self.message(),
        };
        // One line, whatever the message holds.
        f.write_str(&line.replace('\n', " "))
    }
}

impl std::error::Error for Failure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Failure::Usage(e) => Some(e),
            Failure::Io { error, .. } | Failure::Stdout(error) => Some(error),
            Failure::Hdf5 { error, .. } => Some(error),
            Failure::Convert { error, .. } => Some(error),
            Failure::Analysis { error, .. } => Some(error),
            Failure::Other { .. } | Failure::UsageText(_) => None,
        }
    }
}

impl From<sp::io::atomic::OutputError> for Failure {
    fn from(e: sp::io::atomic::OutputError) -> Self {
        Failure::in_file(e.destination.display(), e.what)
    }
}

impl From<sp::io::inputs::InputsError> for Failure {
    fn from(e: sp::io::inputs::InputsError) -> Self {
        Failure::Other {
            path: e.path,
            message: e.message,
        }
    }
}

impl From<SelectionError> for Failure {
    fn from(e: SelectionError) -> Self {
        Failure::Usage(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_map_to_messages_and_statuses() {
        let usage = Failure::from(SelectionError::Ranks("3-1".into()));
        assert_eq!(
            usage.to_string(),
            "--ranks: \"3-1\" is not a rank or a range like 0-3"
        );
        assert_eq!(usage.exit_code(), 2);
        let missing = Failure::io(
            Path::new("x.h5"),
            "cannot open",
            io::Error::from(io::ErrorKind::NotFound),
        );
        assert!(missing.to_string().starts_with("x.h5: cannot open: "));
        assert_eq!(missing.exit_code(), 1);
        assert_eq!(missing.path().as_deref(), Some("x.h5"));
        let output = Path::new("out.h5");
        let clash = Failure::convert(
            output,
            convert::Error::Merge(schema::Error::RegionClash("solve".into())),
        );
        assert!(clash.to_string().starts_with("region \"solve\" appears"));
        let full = Failure::convert(output, convert::Error::Write(io::Error::other("full")));
        assert_eq!(full.to_string(), "out.h5: cannot write: full");
        assert!(Failure::Stdout(io::Error::from(io::ErrorKind::BrokenPipe)).is_closed_stdout());
        assert!(!Failure::new("x").is_closed_stdout());
        assert_eq!(Failure::in_file("a", "b\nc").to_string(), "a: b c");
    }
}
