//! The Symbol Table Message (0x0011): an old-style group's B-tree and local heap.

use crate::hdf5lite::error::Result;
use crate::hdf5lite::raw::cursor::{Cursor, Encoder};

/// Addresses of an old-style group's v1 B-tree (node type 0) and its local name heap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SymbolTable {
    pub btree: u64,
    pub local_heap: u64,
}

impl SymbolTable {
    /// Parses a message body (also the layout of a symbol-table entry's scratch-pad).
    pub fn parse(c: &mut Cursor<'_>) -> Result<SymbolTable> {
        let btree = c
            .address()?
            .ok_or_else(|| c.error("symbol table without a B-tree"))?;
        let local_heap = c
            .address()?
            .ok_or_else(|| c.error("symbol table without a local heap"))?;
        Ok(SymbolTable { btree, local_heap })
    }

    /// Encodes a message body.
    pub fn encode(&self, e: &mut Encoder) {
        e.address(Some(self.btree));
        e.address(Some(self.local_heap));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdf5lite::raw::cursor::Widths;
    use crate::hdf5lite::ErrorKind;

    #[test]
    fn round_trip_and_undefined() {
        let bytes = [0x88, 0, 0, 0, 0, 0, 0, 0, 0xa8, 0x02, 0, 0, 0, 0, 0, 0];
        let st = SymbolTable::parse(&mut Cursor::new(&bytes, 0, Widths::STANDARD)).unwrap();
        assert_eq!(
            st,
            SymbolTable {
                btree: 136,
                local_heap: 680
            }
        );
        let mut e = Encoder::new(Widths::STANDARD);
        st.encode(&mut e);
        assert_eq!(e.as_bytes(), bytes);
        let undefined = [0xff; 16];
        let err = SymbolTable::parse(&mut Cursor::new(&undefined, 0, Widths::STANDARD));
        assert_eq!(err.unwrap_err().kind(), ErrorKind::Format);
    }
}
