//! Files as positional sources and sinks ([`ReadAt`], [`WriteAt`]) for native hosts (the
//! CLI and the terminal UI): only the bytes a reader asks for are read, so opening a large
//! profile or trace reads just what it needs, and several threads can write one output at
//! planned offsets.

use std::fs::File;
use std::io;
use std::path::Path;

use super::{check_range, ReadAt, WriteAt};

/// A file opened for positional reads.
pub struct LocalFile {
    file: File,
    len: u64,
}

impl LocalFile {
    /// Opens `path` for positional reads.
    pub fn open(path: &Path) -> io::Result<Self> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        Ok(LocalFile { file, len })
    }
}

impl ReadAt for LocalFile {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        check_range(offset, buf.len(), self.len)?;
        read_at(&self.file, offset, buf)
    }
}

/// An output file as a positional sink (shared by the threads that fill it).
pub struct FileSink<'f>(pub &'f File);

impl WriteAt for FileSink<'_> {
    fn write_all_at(&mut self, offset: u64, bytes: &[u8]) -> io::Result<()> {
        write_at(self.0, offset, bytes)
    }
}

#[cfg(unix)]
fn read_at(file: &File, offset: u64, buf: &mut [u8]) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

/// Writes all of `bytes` at `offset` of `file`, without moving its cursor.
#[cfg(unix)]
pub fn write_at(file: &File, offset: u64, bytes: &[u8]) -> io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, bytes, offset)
}

#[cfg(windows)]
fn read_at(file: &File, mut offset: u64, mut buf: &mut [u8]) -> io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, offset)? {
            0 => return Err(io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
}

/// Writes all of `bytes` at `offset` of `file`.
#[cfg(windows)]
pub fn write_at(file: &File, mut offset: u64, mut bytes: &[u8]) -> io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !bytes.is_empty() {
        match file.seek_write(bytes, offset)? {
            0 => return Err(io::ErrorKind::WriteZero.into()),
            n => {
                bytes = &bytes[n..];
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
    fn reads_ranges_writes_in_place_and_rejects_past_end() {
        let path = std::env::temp_dir().join(format!("sp-local-file-{}", std::process::id()));
        std::fs::write(&path, b"0123456789").unwrap();
        let f = LocalFile::open(&path).unwrap();
        let mut buf = [0u8; 3];
        f.read_exact_at(4, &mut buf).unwrap();
        assert_eq!(&buf, b"456");
        let err = f.read_exact_at(8, &mut buf).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
        let out = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        FileSink(&out).write_all_at(2, b"ab").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"01ab456789");
        std::fs::remove_file(path).unwrap();
    }
}
