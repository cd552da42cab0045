//! [`Files`] on a native host: profiles read in place ([`LocalFile`]), charts written
//! atomically ([`AtomicOutput`]) into the given directory or a new one under the system's
//! temporary directory.

use std::io;
use std::path::{Path, PathBuf};

use super::Files;
use crate::io::atomic::AtomicOutput;
use crate::io::file::LocalFile;

/// The local file system.
#[derive(Debug, Clone, Copy, Default)]
pub struct LocalFiles;

impl Files for LocalFiles {
    type Source = LocalFile;

    fn open(&self, path: &str) -> io::Result<LocalFile> {
        LocalFile::open(Path::new(path))
    }

    fn write(&self, dir: Option<&str>, name: &str, bytes: &[u8]) -> io::Result<String> {
        let dir = match dir {
            Some(dir) => {
                std::fs::create_dir_all(dir)?;
                PathBuf::from(dir)
            }
            None => temporary_dir()?,
        };
        let path = dir.join(name);
        let output = AtomicOutput::with_bytes(&path, bytes).map_err(io::Error::other)?;
        output.commit().map_err(io::Error::other)?;
        Ok(path.to_string_lossy().into_owned())
    }
}

/// A new directory `sp-mcp-plot-<pid>-<n>` under the temporary directory (as the
/// reference's `tempfile.mkdtemp(prefix="scope-profiler-mcp-plot-")`).
fn temporary_dir() -> io::Result<PathBuf> {
    let base = std::env::temp_dir();
    let pid = std::process::id();
    for n in 0..10_000u32 {
        let dir = base.join(format!("sp-mcp-plot-{pid}-{n}"));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "no free temporary directory name",
    ))
}
