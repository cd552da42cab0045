//! Publishing an output file atomically: the bytes go to a temporary file beside the
//! destination, which is renamed into place only when complete. A failure leaves no partial
//! output, no temporary file, and any existing file at the destination untouched.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

use super::Failure;

/// A temporary file that becomes `destination` on [`commit`](Self::commit) and disappears if
/// dropped uncommitted.
pub struct AtomicOutput {
    destination: PathBuf,
    temporary: PathBuf,
    file: Option<BufWriter<File>>,
}

impl AtomicOutput {
    /// Creates the temporary sibling of `destination`.
    pub fn create(destination: &Path) -> Result<Self, Failure> {
        let dir = match destination.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = destination
            .file_name()
            .ok_or_else(|| Failure::new(format!("{}: not a file name", destination.display())))?
            .to_string_lossy()
            .into_owned();
        let pid = std::process::id();
        for attempt in 0u32..100 {
            let temporary = dir.join(format!(".{name}.{pid}.{attempt}.tmp"));
            match OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&temporary)
            {
                Ok(file) => {
                    return Ok(AtomicOutput {
                        destination: destination.to_path_buf(),
                        temporary,
                        file: Some(BufWriter::with_capacity(1 << 20, file)),
                    })
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(Failure::in_file(
                        destination.display(),
                        format!("cannot create output: {e}"),
                    ))
                }
            }
        }
        Err(Failure::in_file(
            destination.display(),
            "cannot create a temporary file beside the output",
        ))
    }

    /// The writer for the file's bytes.
    pub fn writer(&mut self) -> &mut BufWriter<File> {
        self.file
            .as_mut()
            .expect("the file is present until commit consumes self")
    }

    /// The file itself, for positional writes (`pwrite`) from several threads. Do not mix
    /// with writes through [`writer`](Self::writer).
    pub fn file(&self) -> &File {
        self.file
            .as_ref()
            .map(BufWriter::get_ref)
            .expect("the file is present until commit consumes self")
    }

    /// Flushes, syncs and renames the temporary file over the destination.
    pub fn commit(mut self) -> Result<(), Failure> {
        let fail = |e: io::Error| {
            Failure::in_file(
                self.destination.display(),
                format!("cannot write output: {e}"),
            )
        };
        if let Some(writer) = self.file.take() {
            let file = writer.into_inner().map_err(|e| fail(e.into_error()))?;
            file.sync_all().map_err(fail)?;
        }
        fs::rename(&self.temporary, &self.destination).map_err(fail)?;
        Ok(())
    }
}

impl Drop for AtomicOutput {
    fn drop(&mut self) {
        // Still present means not committed: discard the partial file.
        if self.file.take().is_some() {
            let _ = fs::remove_file(&self.temporary);
        }
    }
}

/// Writes `bytes` produced by `emit` to `destination` atomically.
pub fn write_atomically(
    destination: &Path,
    emit: impl FnOnce(&mut BufWriter<File>) -> Result<(), Failure>,
) -> Result<(), Failure> {
    let mut out = AtomicOutput::create(destination)?;
    emit(out.writer())?;
    out.commit()
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
        use std::io::Write;
        let dir = scratch("commit");
        let dest = dir.join("out.h5");
        fs::write(&dest, b"old").unwrap();
        write_atomically(&dest, |w| {
            w.write_all(b"new").map_err(|e| Failure::new(e.to_string()))
        })
        .unwrap();
        assert_eq!(fs::read(&dest).unwrap(), b"new");
        assert_eq!(entries(&dir), ["out.h5"]);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn failure_keeps_existing_file_and_leaves_no_temporary() {
        use std::io::Write;
        let dir = scratch("fail");
        let dest = dir.join("out.h5");
        fs::write(&dest, b"old").unwrap();
        let err = write_atomically(&dest, |w| {
            w.write_all(b"partial").unwrap();
            Err(Failure::new("boom"))
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "boom");
        assert_eq!(fs::read(&dest).unwrap(), b"old");
        assert_eq!(entries(&dir), ["out.h5"]);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn missing_directory_is_a_clear_error() {
        let dir = scratch("missing");
        let err = AtomicOutput::create(&dir.join("nope/out.h5"))
            .err()
            .unwrap();
        assert!(
            err.to_string()
                .contains("nope/out.h5: cannot create output"),
            "{err}"
        );
        fs::remove_dir_all(dir).unwrap();
    }
}
