//! Files as positional-read sources for the HDF5 reader: only the bytes the reader asks for
//! are read, so opening a large profile reads just its metadata.

use std::fs::File;
use std::path::Path;

use sp::hdf5lite::{self, ReadAt};

/// A file opened for positional reads.
pub struct LocalFile {
    file: File,
    len: u64,
}

impl LocalFile {
    pub fn open(path: &Path) -> std::io::Result<Self> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        Ok(LocalFile { file, len })
    }
}

impl ReadAt for LocalFile {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> hdf5lite::Result<()> {
        let end = offset.checked_add(buf.len() as u64);
        if end.is_none_or(|e| e > self.len) {
            return Err(hdf5lite::io::past_end(offset, buf.len(), self.len));
        }
        read_at(&self.file, offset, buf).map_err(hdf5lite::Error::from)
    }
}

#[cfg(unix)]
fn read_at(file: &File, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(windows)]
fn read_at(file: &File, mut offset: u64, mut buf: &mut [u8]) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, offset)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_ranges_and_rejects_past_end() {
        let path = std::env::temp_dir().join(format!("sp-local-file-{}", std::process::id()));
        std::fs::write(&path, b"0123456789").unwrap();
        let f = LocalFile::open(&path).unwrap();
        let mut buf = [0u8; 3];
        f.read_exact_at(4, &mut buf).unwrap();
        assert_eq!(&buf, b"456");
        let err = f.read_exact_at(8, &mut buf).unwrap_err();
        assert_eq!(err.kind(), hdf5lite::ErrorKind::Format);
        std::fs::remove_file(path).unwrap();
    }
}
