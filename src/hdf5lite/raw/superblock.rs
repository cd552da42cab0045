//! The format signature and superblock: parses versions 0–3, encodes version 2.
//!
//! Versions 0 and 1 end with the root group's symbol-table entry (whose scratch-pad may cache
//! the root's B-tree and heap addresses); versions 2 and 3 point straight at the root object
//! header and carry a checksum, which is verified.

use super::checksum::metadata_checksum;
use super::cursor::{Cursor, Encoder, Widths};
use super::messages::SymbolTable;
use crate::hdf5lite::error::{Error, Result};
use crate::io::ReadAt;

/// The 8-byte HDF5 format signature.
pub const SIGNATURE: [u8; 8] = [0x89, b'H', b'D', b'F', b'\r', b'\n', 0x1a, b'\n'];

/// Size of an encoded version 2 superblock with 8-byte offsets.
pub const V2_SIZE: u64 = 48;

/// The superblock: file-wide field widths and where the root group is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Superblock {
    pub version: u8,
    pub widths: Widths,
    /// Where the signature was found (0, or after a user block at 512, 1024, …).
    pub signature_offset: u64,
    /// Absolute address every other address in the file is relative to.
    pub base_address: u64,
    /// Superblock extension (versions 2–3), `None` when undefined.
    pub extension_address: Option<u64>,
    /// End-of-file address the writer recorded.
    pub eof_address: u64,
    /// Address of the root group's object header.
    pub root_object_header: u64,
    /// Versions 0–1: the root entry's cached B-tree and heap addresses, if cached.
    pub root_symbol_table: Option<SymbolTable>,
    /// Versions 0–1: group B-tree leaf and internal node K; chunk B-tree K.
    pub group_leaf_k: u16,
    pub group_internal_k: u16,
    pub chunk_k: u16,
    pub consistency_flags: u32,
}

impl Superblock {
    /// Finds the signature (at 0 or a power of two ≥ 512) and parses the superblock.
    pub fn parse<R: ReadAt + ?Sized>(src: &R) -> Result<Superblock> {
        let len = src.len();
        let mut at = 0u64;
        loop {
            if at.checked_add(9).is_none_or(|end| end > len) {
                return Err(Error::format("no HDF5 signature found").at(0));
            }
            let mut sig = [0u8; 8];
            src.read_exact_at(at, &mut sig)?;
            if sig == SIGNATURE {
                break;
            }
            at = match at {
                0 => 512,
                n => n
                    .checked_mul(2)
                    .ok_or_else(|| Error::format("no HDF5 signature found").at(0))?,
            };
        }
        let n = (len - at).min(256) as usize;
        let mut buf = vec![0u8; n];
        src.read_exact_at(at, &mut buf)?;
        Self::parse_block(&buf, at)
    }

    fn parse_block(buf: &[u8], at: u64) -> Result<Superblock> {
        let mut c = Cursor::new(buf, at, Widths::STANDARD);
        c.expect(&SIGNATURE, "HDF5 format")?;
        let version = c.u8()?;
        match version {
            0 | 1 => {
                c.skip(4)?; // free-space, root-group, reserved, shared-header versions
                let (o, l) = (c.u8()?, c.u8()?);
                let widths = widths(&c, o, l)?;
                c.skip(1)?;
                let group_leaf_k = c.u16()?;
                let group_internal_k = c.u16()?;
                let consistency_flags = c.u32()?;
                let chunk_k = if version == 1 {
                    let k = c.u16()?;
                    c.skip(2)?;
                    k
                } else {
                    32
                };
                let mut c = Cursor::new(c.block(), at, widths);
                c.skip(if version == 1 { 28 } else { 24 })?;
                let base_address = c.address()?.unwrap_or(0);
                c.address()?; // free-space info (unused)
                let eof_address = c
                    .address()?
                    .ok_or_else(|| c.error("undefined end-of-file address"))?;
                c.address()?; // driver info block
                              // Root group symbol-table entry.
                c.length()?; // link name offset
                let root_object_header = c
                    .address()?
                    .ok_or_else(|| c.error("undefined root object header address"))?;
                let cache_type = c.u32()?;
                c.skip(4)?;
                let mut scratch = c.sub(16)?;
                let root_symbol_table = if cache_type == 1 {
                    SymbolTable::parse(&mut scratch).ok()
                } else {
                    None
                };
                Ok(Superblock {
                    version,
                    widths,
                    signature_offset: at,
                    base_address,
                    extension_address: None,
                    eof_address,
                    root_object_header,
                    root_symbol_table,
                    group_leaf_k,
                    group_internal_k,
                    chunk_k,
                    consistency_flags,
                })
            }
            2 | 3 => {
                let (o, l) = (c.u8()?, c.u8()?);
                let widths = widths(&c, o, l)?;
                let consistency_flags = u32::from(c.u8()?);
                let mut c = Cursor::new(c.block(), at, widths);
                c.skip(12)?;
                let base_address = c.address()?.unwrap_or(0);
                let extension_address = c.address()?;
                let eof_address = c
                    .address()?
                    .ok_or_else(|| c.error("undefined end-of-file address"))?;
                let root_object_header = c
                    .address()?
                    .ok_or_else(|| c.error("undefined root object header address"))?;
                let end = c.position();
                let stored = c.u32()?;
                let computed = metadata_checksum(&c.block()[..end]);
                if stored != computed {
                    return Err(Error::new(
                        crate::hdf5lite::ErrorKind::Checksum,
                        format!("superblock checksum {stored:#010x}, computed {computed:#010x}"),
                    )
                    .at(at));
                }
                Ok(Superblock {
                    version,
                    widths,
                    signature_offset: at,
                    base_address,
                    extension_address,
                    eof_address,
                    root_object_header,
                    root_symbol_table: None,
                    group_leaf_k: 4,
                    group_internal_k: 16,
                    chunk_k: 32,
                    consistency_flags,
                })
            }
            v => Err(Error::unsupported(format!("superblock version {v}")).at(at + 8)),
        }
    }

    /// A version 2 superblock with 8-byte widths, base 0 and no extension.
    pub fn v2(root_object_header: u64, eof_address: u64) -> Superblock {
        Superblock {
            version: 2,
            widths: Widths::STANDARD,
            signature_offset: 0,
            base_address: 0,
            extension_address: None,
            eof_address,
            root_object_header,
            root_symbol_table: None,
            group_leaf_k: 4,
            group_internal_k: 16,
            chunk_k: 32,
            consistency_flags: 0,
        }
    }

    /// Encodes as a version 2 superblock (whatever `version` says), checksum included.
    pub fn encode_v2(&self) -> Vec<u8> {
        let mut e = Encoder::new(self.widths);
        e.bytes(&SIGNATURE);
        e.u8(2);
        e.u8(self.widths.offset);
        e.u8(self.widths.length);
        e.u8(self.consistency_flags as u8);
        e.address(Some(self.base_address));
        e.address(self.extension_address);
        e.address(Some(self.eof_address));
        e.address(Some(self.root_object_header));
        let sum = metadata_checksum(e.as_bytes());
        e.u32(sum);
        e.into_bytes()
    }
}

fn widths(c: &Cursor<'_>, offset: u8, length: u8) -> Result<Widths> {
    for w in [offset, length] {
        if !matches!(w, 2 | 4 | 8) {
            return Err(Error::unsupported(format!("field width of {w} bytes")).at(c.offset()));
        }
    }
    Ok(Widths { offset, length })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdf5lite::ErrorKind;

    fn v0_bytes() -> Vec<u8> {
        let mut b = SIGNATURE.to_vec();
        b.extend_from_slice(&[
            0, 0, 0, 0, 0, // superblock, free-space, root group versions, reserved, SOHM
            8, 8, 0, // size of offsets, lengths, reserved
            4, 0, 16, 0, // group leaf K 4, internal K 16
            0, 0, 0, 0, // consistency flags
        ]);
        b.extend_from_slice(&0u64.to_le_bytes()); // base address
        b.extend_from_slice(&[0xff; 8]); // free-space info: undefined
        b.extend_from_slice(&4096u64.to_le_bytes()); // end of file
        b.extend_from_slice(&[0xff; 8]); // driver info: undefined
        b.extend_from_slice(&0u64.to_le_bytes()); // root entry: link name offset
        b.extend_from_slice(&96u64.to_le_bytes()); // root object header
        b.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0]); // cache type 1, reserved
        b.extend_from_slice(&136u64.to_le_bytes()); // scratch: B-tree
        b.extend_from_slice(&680u64.to_le_bytes()); // scratch: local heap
        b
    }

    #[test]
    fn v0_with_scratch_pad() {
        let sb = Superblock::parse(v0_bytes().as_slice()).unwrap();
        assert_eq!(sb.version, 0);
        assert_eq!(sb.widths, Widths::STANDARD);
        assert_eq!(sb.eof_address, 4096);
        assert_eq!(sb.root_object_header, 96);
        assert_eq!(
            sb.root_symbol_table,
            Some(SymbolTable {
                btree: 136,
                local_heap: 680
            })
        );
        assert_eq!(
            (sb.group_leaf_k, sb.group_internal_k, sb.chunk_k),
            (4, 16, 32)
        );
    }

    #[test]
    fn v1_has_chunk_k_and_user_block() {
        let v0 = v0_bytes();
        let mut v1 = v0[..24].to_vec();
        v1[8] = 1;
        v1.extend_from_slice(&[64, 0, 0, 0]); // chunk K 64, reserved
        v1.extend_from_slice(&v0[24..]);
        let mut file = vec![0u8; 512]; // user block
        file.extend_from_slice(&v1);
        let sb = Superblock::parse(file.as_slice()).unwrap();
        assert_eq!(sb.version, 1);
        assert_eq!(sb.signature_offset, 512);
        assert_eq!(sb.chunk_k, 64);
        assert_eq!(sb.root_object_header, 96);
    }

    #[test]
    fn v2_bytes_and_round_trip() {
        let bytes = Superblock::v2(48, 1000).encode_v2();
        assert_eq!(bytes.len() as u64, V2_SIZE);
        assert_eq!(
            &bytes[..12],
            &[0x89, b'H', b'D', b'F', 13, 10, 0x1a, 10, 2, 8, 8, 0]
        );
        assert_eq!(&bytes[12..20], &[0; 8]); // base address
        assert_eq!(&bytes[20..28], &[0xff; 8]); // no extension
        assert_eq!(&bytes[28..36], &1000u64.to_le_bytes());
        assert_eq!(&bytes[36..44], &48u64.to_le_bytes());
        assert_eq!(&bytes[44..], &metadata_checksum(&bytes[..44]).to_le_bytes());
        let sb = Superblock::parse(bytes.as_slice()).unwrap();
        assert_eq!(sb, Superblock::v2(48, 1000));
        let mut v3 = bytes.clone();
        v3[8] = 3;
        let sum = metadata_checksum(&v3[..44]);
        v3[44..].copy_from_slice(&sum.to_le_bytes());
        assert_eq!(Superblock::parse(v3.as_slice()).unwrap().version, 3);
    }

    #[test]
    fn errors() {
        let mut bad = Superblock::v2(48, 1000).encode_v2();
        bad[30] ^= 1;
        let err = Superblock::parse(bad.as_slice()).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Checksum);
        let err = Superblock::parse(&b"not an hdf5 file at all"[..]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Format);
        let mut v4 = SIGNATURE.to_vec();
        v4.extend_from_slice(&[4; 40]);
        let err = Superblock::parse(v4.as_slice()).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Unsupported);
        let truncated = &v0_bytes()[..60];
        let err = Superblock::parse(truncated).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Format);
    }
}
