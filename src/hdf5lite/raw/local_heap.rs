//! Local heaps (`HEAP`): the block of NUL-terminated link names that a symbol-table group's
//! B-tree keys and `SNOD` entries point into by offset.

use super::cursor::{Cursor, Widths};
use super::source::Source;
use crate::hdf5lite::error::{Error, Result};

/// The fixed part of a local heap: where its data segment lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalHeapHeader {
    /// Size of the data segment in bytes.
    pub data_size: u64,
    /// Offset of the first free block in the data segment, if any.
    pub free_list: Option<u64>,
    /// Address of the data segment.
    pub data_address: u64,
}

impl LocalHeapHeader {
    /// Size of the header for the cursor's widths.
    pub fn encoded_len(c: &Cursor<'_>) -> u64 {
        let w = c.widths();
        8 + 2 * u64::from(w.length) + u64::from(w.offset)
    }

    /// Parses a local heap header.
    pub fn parse(c: &mut Cursor<'_>) -> Result<Self> {
        c.expect(b"HEAP", "local heap")?;
        let at = c.offset();
        let version = c.u8()?;
        if version != 0 {
            return Err(Error::unsupported(format!("local heap version {version}")).at(at));
        }
        c.skip(3)?;
        let data_size = c.length()?;
        let free = c.length()?;
        // The free-list offset uses "undefined" (all ones of the length width) for none.
        let undefined = Widths {
            offset: c.widths().length,
            length: c.widths().length,
        }
        .undefined_address();
        let at = c.offset();
        let data_address = c
            .address()?
            .ok_or_else(|| Error::format("local heap has no data segment").at(at))?;
        Ok(LocalHeapHeader {
            data_size,
            free_list: (free != undefined).then_some(free),
            data_address,
        })
    }
}

/// A loaded local heap data segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalHeap {
    data: Vec<u8>,
    data_at: u64,
}

impl LocalHeap {
    /// Reads the heap whose header is at `addr`.
    pub fn read(src: &Source<'_>, addr: u64) -> Result<Self> {
        let w = src.widths();
        let len = 8 + 2 * u64::from(w.length) + u64::from(w.offset);
        // libhdf5 puts the data segment right after the header: one read for both, mostly.
        let window = src.window(addr, 512);
        let src = &src.through(&window);
        let (buf, at) = src.cursor_buf(addr, len, "local heap header")?;
        let header = LocalHeapHeader::parse(&mut src.cursor(&buf, at))?;
        let data = src.metadata(header.data_address, header.data_size, "local heap data")?;
        Ok(LocalHeap {
            data,
            data_at: src.absolute(header.data_address)?,
        })
    }

    /// A heap over an already loaded data segment that starts at absolute offset `data_at`.
    pub fn from_data(data: Vec<u8>, data_at: u64) -> Self {
        LocalHeap { data, data_at }
    }

    /// The NUL-terminated string at `offset` in the data segment (without the NUL).
    pub fn string_at(&self, offset: u64) -> Result<&[u8]> {
        let at = self.data_at.saturating_add(offset);
        let start = usize::try_from(offset)
            .ok()
            .filter(|&o| o < self.data.len())
            .ok_or_else(|| {
                Error::format(format!(
                    "name offset {offset} is outside the local heap of {} bytes",
                    self.data.len()
                ))
                .at(at)
            })?;
        let rest = &self.data[start..];
        let n = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| Error::format("local heap name is not NUL-terminated").at(at))?;
        Ok(&rest[..n])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdf5lite::Limits;

    #[test]
    fn parses_header_and_names() {
        let mut file = vec![0u8; 8];
        file.extend_from_slice(&[
            b'H', b'E', b'A', b'P', // signature
            0, 0, 0, 0, // version 0, reserved
            16, 0, 0, 0, 0, 0, 0, 0, // data segment size 16
            8, 0, 0, 0, 0, 0, 0, 0, // free list at offset 8
            40, 0, 0, 0, 0, 0, 0, 0, // data segment at 40
        ]);
        file.extend_from_slice(b"\0\0\0\0\0\0\0\0ab\0\0\0\0\0\0");
        let src = Source::new(&file, Widths::STANDARD, 0, Limits::default());
        let heap = LocalHeap::read(&src, 8).unwrap();
        assert_eq!(heap.string_at(8).unwrap(), b"ab");
        assert_eq!(heap.string_at(0).unwrap(), b"");
        let err = heap.string_at(16).unwrap_err();
        assert_eq!(err.kind(), crate::hdf5lite::ErrorKind::Format);
        assert_eq!(err.offset(), Some(56));
    }

    #[test]
    fn unterminated_name_is_an_error() {
        let heap = LocalHeap::from_data(b"abc".to_vec(), 100);
        assert_eq!(heap.string_at(1).unwrap_err().offset(), Some(101));
    }
}
