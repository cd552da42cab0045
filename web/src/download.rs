//! Files the page saves (the exports for trace viewers): the library writes them through
//! [`Parts`], which hands each full part to the page as it is produced, so the worker
//! builds a `Blob` from parts and never holds the whole output as one string or one
//! buffer in the module's memory.

use std::io::{self, Write};

/// Bytes per part handed to the page.
pub const PART: usize = 1 << 20;

/// A writer that hands every `PART` bytes to `emit`, and the rest on [`Parts::finish`].
pub struct Parts<'a> {
    buf: Vec<u8>,
    emit: &'a mut dyn FnMut(&[u8]),
    written: u64,
}

impl<'a> Parts<'a> {
    pub fn new(emit: &'a mut dyn FnMut(&[u8])) -> Parts<'a> {
        Parts {
            buf: Vec::new(),
            emit,
            written: 0,
        }
    }

    /// Hands over what is left; returns the bytes written in all.
    pub fn finish(mut self) -> u64 {
        self.hand_over();
        self.written
    }

    fn hand_over(&mut self) {
        if !self.buf.is_empty() {
            (self.emit)(&self.buf);
            self.buf.clear();
        }
    }
}

impl Write for Parts<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(bytes);
        self.written += bytes.len() as u64;
        if self.buf.len() >= PART {
            self.hand_over();
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_handed_over_as_they_fill() {
        let mut sizes = Vec::new();
        let mut all = Vec::new();
        let mut emit = |p: &[u8]| {
            sizes.push(p.len());
            all.extend_from_slice(p);
        };
        let mut parts = Parts::new(&mut emit);
        let chunk = vec![7u8; PART / 2 + 1];
        for _ in 0..3 {
            parts.write_all(&chunk).unwrap();
        }
        assert_eq!(parts.finish(), 3 * chunk.len() as u64);
        assert_eq!(sizes, [2 * chunk.len(), chunk.len()]);
        assert_eq!(all, vec![7u8; 3 * chunk.len()]);
    }
}
