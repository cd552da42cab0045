//! Publishing an output file atomically: the bytes go to a temporary file beside the
//! destination, which is renamed into place only when complete. A failure leaves no
//! partial output, no temporary file, and any existing file at the destination untouched.
//!
//! Every temporary file lives in a registry from its creation to its rename or removal, so
//! a host that catches SIGINT, SIGTERM or SIGHUP can remove whatever is unfinished with
//! [`abandon_all`] before it exits.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// Why an output could not be created or published: `destination: what`.
#[derive(Debug)]
pub struct OutputError {
    /// The output file.
    pub destination: PathBuf,
    /// What went wrong, already phrased (`cannot create output: …`).
    pub what: String,
}

impl OutputError {
    fn new(destination: &Path, what: impl Into<String>) -> Self {
        OutputError {
            destination: destination.to_path_buf(),
            what: what.into(),
        }
    }
}

impl std::fmt::Display for OutputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.destination.display(), self.what)
    }
}

impl std::error::Error for OutputError {}

/// Checks, before any work, that `destination` can be written: it is not a directory, and
/// its directory exists and takes new files.
pub fn check_destination(destination: &Path) -> Result<(), OutputError> {
    let fail =
        |what: String| OutputError::new(destination, format!("cannot create output: {what}"));
    match fs::metadata(destination) {
        Ok(m) if m.is_dir() => return Err(fail("is a directory".into())),
        Ok(_) => {}
        // A missing or non-directory parent is named by the checks below.
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) => {}
        Err(e) => return Err(fail(e.to_string())),
    }
    let (dir, name) = split(destination)?;
    match fs::metadata(&dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(fail(format!("{} is not a directory", dir.display()))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(fail(format!("directory {} does not exist", dir.display())))
        }
        Err(e) => return Err(fail(format!("cannot use directory {}: {e}", dir.display()))),
    }
    if !is_special(destination) {
        // Creating a file is the one test of writability that every file system answers
        // truthfully (permissions, read-only mounts, ACLs, a full inode table).
        let (probe, _) = create_beside(&dir, &name, "probe")
            .map_err(|e| fail(format!("cannot create files in {}: {e}", dir.display())))?;
        let _ = fs::remove_file(probe);
    }
    Ok(())
}

/// A temporary file that becomes `destination` on [`commit`](Self::commit) and disappears if
/// dropped uncommitted. A destination that exists and is not a regular file (`/dev/null`, a
/// pipe) is written directly: there is no file to replace atomically.
pub struct AtomicOutput {
    destination: PathBuf,
    /// `None` when writing directly to a special file.
    temporary: Option<PathBuf>,
    file: BufWriter<File>,
    committed: bool,
}

impl AtomicOutput {
    /// Creates the temporary sibling of `destination`.
    pub fn create(destination: &Path) -> Result<Self, OutputError> {
        let fail =
            |e: io::Error| OutputError::new(destination, format!("cannot create output: {e}"));
        let (file, temporary) = if is_special(destination) {
            let file = OpenOptions::new()
                .write(true)
                .open(destination)
                .map_err(fail)?;
            (file, None)
        } else {
            let (dir, name) = split(destination)?;
            // Created and registered under one lock, so a signal cannot fall between.
            let mut live = registry();
            let (temporary, file) = create_beside(&dir, &name, "tmp").map_err(fail)?;
            live.push(temporary.clone());
            (file, Some(temporary))
        };
        Ok(AtomicOutput {
            destination: destination.to_path_buf(),
            temporary,
            file: BufWriter::with_capacity(1 << 20, file),
            committed: false,
        })
    }

    /// The writer for the file's bytes.
    pub fn writer(&mut self) -> &mut BufWriter<File> {
        &mut self.file
    }

    /// The file itself, for positional writes (`pwrite`) from several threads. Do not mix
    /// with writes through [`writer`](Self::writer).
    pub fn file(&self) -> &File {
        self.file.get_ref()
    }

    /// `bytes` written to a temporary file beside `destination` (not yet renamed).
    pub fn with_bytes(destination: &Path, bytes: &[u8]) -> Result<Self, OutputError> {
        let mut out = AtomicOutput::create(destination)?;
        out.writer()
            .write_all(bytes)
            .map_err(|e| OutputError::new(destination, format!("cannot write: {e}")))?;
        Ok(out)
    }

    /// Flushes, syncs and renames the temporary file over the destination. On failure the
    /// temporary file is removed (when `self` drops) and the destination is untouched.
    pub fn commit(mut self) -> Result<(), OutputError> {
        let destination = self.destination.clone();
        let fail =
            |e: io::Error| OutputError::new(&destination, format!("cannot write output: {e}"));
        self.file.flush().map_err(fail)?;
        let Some(temporary) = self.temporary.clone() else {
            self.committed = true;
            return Ok(());
        };
        self.file.get_ref().sync_all().map_err(fail)?;
        // Renamed and deregistered under one lock: a signal sees the file either as a
        // temporary to remove or as the published output, never as both or neither.
        let mut live = registry();
        fs::rename(&temporary, &self.destination).map_err(fail)?;
        live.retain(|t| *t != temporary);
        self.committed = true;
        Ok(())
    }
}

impl Drop for AtomicOutput {
    fn drop(&mut self) {
        if self.committed {
            return;
        }
        if let Some(temporary) = &self.temporary {
            let mut live = registry();
            let _ = fs::remove_file(temporary);
            live.retain(|t| t != temporary);
        }
    }
}

/// The temporary files alive in this process, for the signal watcher to remove.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The registry, whatever a panicking holder left it as: it is only a list of paths.
fn registry() -> MutexGuard<'static, Vec<PathBuf>> {
    LIVE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The destination's directory (`.` for a bare name) and file name.
fn split(destination: &Path) -> Result<(PathBuf, String), OutputError> {
    let dir = match destination.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = destination
        .file_name()
        .ok_or_else(|| OutputError::new(destination, "not a file name"))?
        .to_string_lossy()
        .into_owned();
    Ok((dir, name))
}

/// Whether `destination` exists as something other than a regular file or directory.
fn is_special(destination: &Path) -> bool {
    fs::metadata(destination).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// Creates a new hidden file `.<name>.<pid>.<n>.<suffix>` in `dir`.
fn create_beside(dir: &Path, name: &str, suffix: &str) -> io::Result<(PathBuf, File)> {
    let pid = std::process::id();
    for attempt in 0u32..100 {
        let path = dir.join(format!(".{name}.{pid}.{attempt}.{suffix}"));
        match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(file) => return Ok((path, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "no free temporary file name beside the output",
    ))
}

/// Removes every temporary file still registered and keeps the registry locked while
/// `then` runs, so nothing is created or published meanwhile: for a host that exits on a
/// signal (`then` prints its line and exits).
pub fn abandon_all<T>(then: impl FnOnce() -> T) -> T {
    let mut live = registry();
    for temporary in live.drain(..) {
        let _ = fs::remove_file(temporary);
    }
    let result = then();
    drop(live);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("sp-output-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn entries(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn commit_replaces_destination() {
        let dir = scratch("commit");
        let dest = dir.join("out.h5");
        fs::write(&dest, b"old").unwrap();
        let mut out = AtomicOutput::create(&dest).unwrap();
        out.writer().write_all(b"new").unwrap();
        out.commit().unwrap();
        assert_eq!(fs::read(&dest).unwrap(), b"new");
        assert_eq!(entries(&dir), ["out.h5"]);
        assert!(!registry().iter().any(|t| t.starts_with(&dir)));
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn failure_keeps_existing_file_and_leaves_no_temporary() {
        let dir = scratch("fail");
        let dest = dir.join("out.h5");
        fs::write(&dest, b"old").unwrap();
        let mut out = AtomicOutput::create(&dest).unwrap();
        out.writer().write_all(b"partial").unwrap();
        drop(out);
        assert_eq!(fs::read(&dest).unwrap(), b"old");
        assert_eq!(entries(&dir), ["out.h5"]);
        fs::remove_dir_all(dir).unwrap();
    }

    /// The rename fails when a directory appeared at the destination meanwhile: the error
    /// names the destination and the temporary file is gone.
    #[test]
    fn failed_rename_removes_the_temporary() {
        let dir = scratch("rename");
        let dest = dir.join("out.h5");
        let mut out = AtomicOutput::create(&dest).unwrap();
        out.writer().write_all(b"complete").unwrap();
        fs::create_dir(&dest).unwrap();
        fs::write(dest.join("inside"), b"keep").unwrap();
        let err = out.commit().unwrap_err().to_string();
        assert!(err.starts_with(&format!("{}: cannot write output: ", dest.display())));
        assert_eq!(entries(&dir), ["out.h5"]);
        assert_eq!(entries(&dest), ["inside"]);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn missing_directory_is_a_clear_error() {
        let dir = scratch("missing");
        let dest = dir.join("nope/out.h5");
        let err = AtomicOutput::create(&dest).err().unwrap();
        assert!(
            err.to_string()
                .contains("nope/out.h5: cannot create output"),
            "{err}"
        );
        let err = check_destination(&dest).unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "{}: cannot create output: directory {} does not exist",
                dest.display(),
                dir.join("nope").display()
            )
        );
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn prepare_rejects_a_directory_and_a_file_as_directory() {
        let dir = scratch("prepare");
        let err = check_destination(&dir).unwrap_err().to_string();
        assert_eq!(
            err,
            format!("{}: cannot create output: is a directory", dir.display())
        );
        let file = dir.join("plain");
        fs::write(&file, b"x").unwrap();
        let dest = file.join("out.h5");
        let err = check_destination(&dest).unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "{}: cannot create output: {} is not a directory",
                dest.display(),
                file.display()
            )
        );
        // A writable directory passes and keeps no probe file.
        check_destination(&dir.join("out.h5")).unwrap();
        assert_eq!(entries(&dir), ["plain"]);
        fs::remove_dir_all(dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn special_files_are_written_directly() {
        use std::os::unix::fs::FileTypeExt;
        let dest = Path::new("/dev/null");
        check_destination(dest).unwrap();
        let mut out = AtomicOutput::create(dest).unwrap();
        out.writer().write_all(b"discarded").unwrap();
        out.commit().unwrap();
        assert!(fs::metadata(dest).unwrap().file_type().is_char_device());
    }
}
