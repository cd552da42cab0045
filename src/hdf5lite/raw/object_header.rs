//! Object headers: parses version 1 (8-byte-aligned messages, raw continuation chunks) and
//! version 2 (`OHDR`/`OCHK` chunks with checksums); encodes version 2 in a single chunk.
//!
//! Parsing follows continuation messages and returns the remaining messages as raw bodies
//! (NIL padding and continuation messages are consumed here); the typed parsers in
//! [`messages`](super::messages) decode them.

use std::collections::HashSet;

use super::checksum::metadata_checksum;
use super::cursor::{Cursor, Encoder, Widths};
use super::messages::{Continuation, MessageFlags, MessageType};
use crate::hdf5lite::error::{Error, ErrorKind, Result};
use crate::hdf5lite::limits::Limits;
use crate::io::ReadAt;

const OHDR: &[u8; 4] = b"OHDR";
const OCHK: &[u8; 4] = b"OCHK";

/// Version 2 header flag bits.
pub mod flags {
    /// Bits 0–1: width of the chunk-0 size field (1, 2, 4 or 8 bytes).
    pub const CHUNK0_SIZE_MASK: u8 = 0x03;
    /// Attribute creation order is tracked (messages carry a 2-byte creation order).
    pub const ATTR_ORDER_TRACKED: u8 = 0x04;
    /// Attribute creation order is indexed.
    pub const ATTR_ORDER_INDEXED: u8 = 0x08;
    /// Non-default attribute phase-change values are stored.
    pub const ATTR_PHASE_CHANGE: u8 = 0x10;
    /// Access/modification/change/birth times are stored.
    pub const TIMES: u8 = 0x20;
}

/// One message of an object header, body undecoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawMessage {
    pub kind: MessageType,
    pub flags: MessageFlags,
    /// Version 2 headers that track attribute creation order store it per message.
    pub creation_order: Option<u16>,
    /// Absolute file offset of the body.
    pub offset: u64,
    pub body: Vec<u8>,
}

impl RawMessage {
    /// A cursor over the body that reports absolute offsets.
    pub fn cursor(&self, widths: Widths) -> Cursor<'_> {
        Cursor::new(&self.body, self.offset, widths)
    }
}

/// A parsed object header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectHeader {
    pub version: u8,
    pub address: u64,
    /// Version 2 flags (0 for version 1).
    pub flags: u8,
    /// Version 1 reference count (1 for version 2).
    pub reference_count: u32,
    /// Version 2: access, modification, change and birth times, when stored.
    pub times: Option<[u32; 4]>,
    /// Version 2: (maximum compact, minimum dense) attribute counts, when stored.
    pub attribute_phase_change: Option<(u16, u16)>,
    messages: Vec<RawMessage>,
}

impl ObjectHeader {
    /// Reads the object header at `address`, following continuation chunks.
    pub fn read<R: ReadAt + ?Sized>(
        src: &R,
        address: u64,
        widths: Widths,
        limits: &Limits,
    ) -> Result<ObjectHeader> {
        let mut first = [0u8; 4];
        src.read_exact_at(address, &mut first)?;
        let mut reader = ChunkReader {
            src,
            widths,
            limits,
            visited: HashSet::new(),
            total: 0,
            messages: Vec::new(),
            pending: Vec::new(),
        };
        let mut header = if &first == OHDR {
            reader.read_v2_prefix(address)?
        } else if first[0] == 1 {
            reader.read_v1_prefix(address)?
        } else {
            return Err(Error::format(format!(
                "object header: neither version 1 nor an OHDR signature (first byte {:#04x})",
                first[0]
            ))
            .at(address));
        };
        while let Some(k) = reader.pending.pop() {
            if header.version == 1 {
                reader.read_v1_chunk(k.address, k.length)?;
            } else {
                reader.read_ochk(k.address, k.length, header.flags)?;
            }
        }
        header.messages = reader.messages;
        Ok(header)
    }

    /// The messages, in storage order.
    pub fn messages(&self) -> &[RawMessage] {
        &self.messages
    }

    /// The messages of one type, in storage order.
    pub fn messages_of(&self, kind: MessageType) -> impl Iterator<Item = &RawMessage> {
        self.messages.iter().filter(move |m| m.kind == kind)
    }

    /// Encodes a version 2 header holding `messages` in one chunk, with no NIL padding;
    /// `attribute_phase_change` sets flag bit 4. Fails with `Usage` for a body over 64 KiB.
    pub fn encode_v2(
        messages: &[(MessageType, u8, Vec<u8>)],
        attribute_phase_change: Option<(u16, u16)>,
    ) -> Result<Vec<u8>> {
        let mut chunk = Encoder::new(Widths::STANDARD);
        for (kind, msg_flags, body) in messages {
            let kind8 = u8::try_from(kind.0)
                .map_err(|_| Error::usage("message type over 255 in a version 2 header"))?;
            let size = u16::try_from(body.len()).map_err(|_| {
                Error::usage(format!(
                    "{} message of {} bytes exceeds 64 KiB",
                    kind.name().unwrap_or("unknown"),
                    body.len()
                ))
            })?;
            chunk.u8(kind8);
            chunk.u16(size);
            chunk.u8(*msg_flags);
            chunk.bytes(body);
        }
        let size = chunk.len() as u64;
        let code: u8 = match size {
            0..=0xff => 0,
            0x100..=0xffff => 1,
            0x1_0000..=0xffff_ffff => 2,
            _ => 3,
        };
        let mut e = Encoder::new(Widths::STANDARD);
        e.bytes(OHDR);
        e.u8(2);
        let mut hflags = code;
        if attribute_phase_change.is_some() {
            hflags |= flags::ATTR_PHASE_CHANGE;
        }
        e.u8(hflags);
        if let Some((max_compact, min_dense)) = attribute_phase_change {
            e.u16(max_compact);
            e.u16(min_dense);
        }
        e.uint(size, 1 << code);
        e.bytes(chunk.as_bytes());
        let sum = metadata_checksum(e.as_bytes());
        e.u32(sum);
        Ok(e.into_bytes())
    }
}

struct ChunkReader<'a, R: ReadAt + ?Sized> {
    src: &'a R,
    widths: Widths,
    limits: &'a Limits,
    visited: HashSet<u64>,
    total: u64,
    messages: Vec<RawMessage>,
    pending: Vec<Continuation>,
}

impl<R: ReadAt + ?Sized> ChunkReader<'_, R> {
    /// Reads `len` bytes of a chunk at `address`, enforcing chunk-count, size and cycle limits.
    fn load(&mut self, address: u64, len: u64) -> Result<Vec<u8>> {
        if !self.visited.insert(address) {
            return Err(Error::format("object header continuation cycle").at(address));
        }
        if self.visited.len() as u64 > u64::from(self.limits.max_header_chunks) {
            return Err(Error::limits(format!(
                "object header has more than {} chunks",
                self.limits.max_header_chunks
            ))
            .at(address));
        }
        self.total = self.total.saturating_add(len);
        if self.total > self.limits.max_metadata_bytes {
            return Err(Error::limits(format!(
                "object header larger than {} bytes",
                self.limits.max_metadata_bytes
            ))
            .at(address));
        }
        let end = address.checked_add(len);
        if end.is_none_or(|e| e > self.src.len()) {
            return Err(Error::format(format!(
                "object header chunk of {len} bytes passes the end of the file"
            ))
            .at(address));
        }
        let mut buf = vec![0u8; len as usize];
        self.src.read_exact_at(address, &mut buf)?;
        Ok(buf)
    }

    fn push(
        &mut self,
        kind: MessageType,
        msg_flags: u8,
        order: Option<u16>,
        body: Cursor<'_>,
    ) -> Result<()> {
        if self.messages.len() as u64 >= u64::from(self.limits.max_object_entries) {
            return Err(Error::limits("too many object header messages").at(body.offset()));
        }
        let mflags = MessageFlags(msg_flags);
        if kind == MessageType::NIL {
            return Ok(());
        }
        if kind == MessageType::CONTINUATION {
            let mut c = body;
            self.pending.insert(0, Continuation::parse(&mut c)?);
            return Ok(());
        }
        if !kind.is_known() && mflags.contains(MessageFlags::FAIL_IF_UNKNOWN_ALWAYS) {
            return Err(Error::unsupported(format!(
                "unknown object header message type {:#06x} marked fail-if-unknown",
                kind.0
            ))
            .at(body.offset()));
        }
        self.messages.push(RawMessage {
            kind,
            flags: mflags,
            creation_order: order,
            offset: body.offset(),
            body: body.block().to_vec(),
        });
        Ok(())
    }

    fn read_v1_prefix(&mut self, address: u64) -> Result<ObjectHeader> {
        let mut prefix = [0u8; 16];
        self.src.read_exact_at(address, &mut prefix)?;
        let mut c = Cursor::new(&prefix, address, self.widths);
        c.skip(4)?; // version, reserved, message count (recomputed)
        let reference_count = c.u32()?;
        let size = c.u32()?;
        let start = address
            .checked_add(16)
            .ok_or_else(|| Error::format("object header address overflows").at(address))?;
        self.read_v1_chunk(start, u64::from(size))?;
        Ok(ObjectHeader {
            version: 1,
            address,
            flags: 0,
            reference_count,
            times: None,
            attribute_phase_change: None,
            messages: Vec::new(),
        })
    }

    fn read_v1_chunk(&mut self, address: u64, len: u64) -> Result<()> {
        let buf = self.load(address, len)?;
        let mut c = Cursor::new(&buf, address, self.widths);
        while c.remaining() >= 8 {
            let kind = MessageType(c.u16()?);
            let size = usize::from(c.u16()?);
            let msg_flags = c.u8()?;
            c.skip(3)?;
            let body = c.sub(size)?;
            self.push(kind, msg_flags, None, body)?;
        }
        Ok(())
    }

    fn read_v2_prefix(&mut self, address: u64) -> Result<ObjectHeader> {
        let mut head = [0u8; 6];
        self.src.read_exact_at(address, &mut head)?;
        let version = head[4];
        if version != 2 {
            return Err(
                Error::unsupported(format!("object header version {version}")).at(address + 4),
            );
        }
        let hflags = head[5];
        let prefix_len = 6
            + if hflags & flags::TIMES != 0 { 16 } else { 0 }
            + if hflags & flags::ATTR_PHASE_CHANGE != 0 {
                4
            } else {
                0
            }
            + (1usize << (hflags & flags::CHUNK0_SIZE_MASK));
        let mut prefix = vec![0u8; prefix_len];
        self.src.read_exact_at(address, &mut prefix)?;
        let mut c = Cursor::new(&prefix, address, self.widths);
        c.skip(6)?;
        let times = if hflags & flags::TIMES != 0 {
            Some([c.u32()?, c.u32()?, c.u32()?, c.u32()?])
        } else {
            None
        };
        let attribute_phase_change = if hflags & flags::ATTR_PHASE_CHANGE != 0 {
            Some((c.u16()?, c.u16()?))
        } else {
            None
        };
        let size = c.uint(1 << (hflags & flags::CHUNK0_SIZE_MASK))?;
        let total = size
            .checked_add(prefix_len as u64 + 4)
            .ok_or_else(|| Error::format("object header size overflows").at(address))?;
        let buf = self.load(address, total)?;
        verify(&buf, address, "object header")?;
        let mut c = Cursor::new(&buf[..buf.len() - 4], address, self.widths);
        c.skip(prefix_len)?;
        self.v2_messages(&mut c, hflags)?;
        Ok(ObjectHeader {
            version: 2,
            address,
            flags: hflags,
            reference_count: 1,
            times,
            attribute_phase_change,
            messages: Vec::new(),
        })
    }

    fn read_ochk(&mut self, address: u64, len: u64, hflags: u8) -> Result<()> {
        if len < 8 {
            return Err(
                Error::format("OCHK chunk shorter than its signature and checksum").at(address),
            );
        }
        let buf = self.load(address, len)?;
        verify(&buf, address, "OCHK chunk")?;
        let mut c = Cursor::new(&buf[..buf.len() - 4], address, self.widths);
        c.expect(OCHK, "object header continuation")?;
        self.v2_messages(&mut c, hflags)
    }

    fn v2_messages(&mut self, c: &mut Cursor<'_>, hflags: u8) -> Result<()> {
        let tracked = hflags & flags::ATTR_ORDER_TRACKED != 0;
        let header_len = if tracked { 6 } else { 4 };
        while c.remaining() >= header_len {
            let kind = MessageType(u16::from(c.u8()?));
            let size = usize::from(c.u16()?);
            let msg_flags = c.u8()?;
            let order = if tracked { Some(c.u16()?) } else { None };
            let body = c.sub(size)?;
            self.push(kind, msg_flags, order, body)?;
        }
        Ok(())
    }
}

/// Checks the trailing lookup3 checksum of a version-2 metadata block.
fn verify(buf: &[u8], address: u64, what: &str) -> Result<()> {
    let (data, tail) = buf.split_at(buf.len().saturating_sub(4));
    let stored = u32::from_le_bytes(
        tail.try_into()
            .map_err(|_| Error::format(format!("{what} too short")).at(address))?,
    );
    let computed = metadata_checksum(data);
    if stored != computed {
        return Err(Error::new(
            ErrorKind::Checksum,
            format!("{what} checksum {stored:#010x}, computed {computed:#010x}"),
        )
        .at(address));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(file: &[u8], at: u64) -> Result<ObjectHeader> {
        ObjectHeader::read(file, at, Widths::STANDARD, &Limits::default())
    }

    fn with_checksum(mut b: Vec<u8>) -> Vec<u8> {
        let sum = metadata_checksum(&b);
        b.extend_from_slice(&sum.to_le_bytes());
        b
    }

    /// A version 1 header at 0 whose first chunk continues at 64.
    fn v1_file() -> Vec<u8> {
        let mut f = vec![
            1, 0, // version 1, reserved
            3, 0, // 3 messages
            1, 0, 0, 0, // reference count
            48, 0, 0, 0, // chunk size
            0, 0, 0, 0, // alignment padding
            // message: dataspace, 8 bytes, flags 0
            1, 0, 8, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,
            // message: continuation to 64, length 24
            0x10, 0, 16, 0, 0, 0, 0, 0,
        ];
        f.extend_from_slice(&64u64.to_le_bytes());
        f.extend_from_slice(&24u64.to_le_bytes());
        f.resize(64, 0);
        // Continuation chunk: NIL of 0 bytes, then an unknown message 0x00ff (skipped).
        f.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0]);
        f.extend_from_slice(&[0xff, 0, 8, 0, 0, 0, 0, 0, 9, 9, 9, 9, 9, 9, 9, 9]);
        f
    }

    #[test]
    fn v1_with_continuation_and_nil() {
        let f = v1_file();
        let oh = read(&f, 0).unwrap();
        assert_eq!(oh.version, 1);
        assert_eq!(oh.reference_count, 1);
        let kinds: Vec<_> = oh.messages().iter().map(|m| m.kind).collect();
        assert_eq!(kinds, vec![MessageType::DATASPACE, MessageType(0xff)]);
        assert_eq!(oh.messages()[0].offset, 24);
        assert_eq!(oh.messages()[0].body, vec![1, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(oh.messages()[1].offset, 80);
        assert_eq!(oh.messages_of(MessageType::DATASPACE).count(), 1);
    }

    #[test]
    fn v1_fail_if_unknown_and_cycle() {
        let mut f = v1_file();
        f[76] = 0x80; // unknown message 0xff now says "fail if unknown"
        let err = read(&f, 0).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Unsupported);
        assert_eq!(err.offset(), Some(80));
        let mut f = v1_file();
        f[40] = 16; // continuation points back at the first chunk (address 16)
        let err = read(&f, 0).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Format);
        assert_eq!(err.message(), "object header continuation cycle");
    }

    #[test]
    fn v1_chunk_limit_and_size_past_end() {
        let f = v1_file();
        let limits = Limits {
            max_header_chunks: 1,
            ..Limits::default()
        };
        let err = ObjectHeader::read(f.as_slice(), 0, Widths::STANDARD, &limits).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::LimitsExceeded);
        let mut f = v1_file();
        f[8..12].copy_from_slice(&1000u32.to_le_bytes()); // chunk passes the end
        assert_eq!(read(&f, 0).unwrap_err().kind(), ErrorKind::Format);
    }

    #[test]
    fn v2_encode_bytes_and_parse() {
        let msgs = vec![
            (MessageType::DATASPACE, 0, vec![2, 0, 0, 0]),
            (
                MessageType::DATATYPE,
                MessageFlags::CONSTANT,
                vec![0x10, 8, 0, 0],
            ),
        ];
        let bytes = ObjectHeader::encode_v2(&msgs, Some((11, 6))).unwrap();
        let expected_head = [
            b'O', b'H', b'D', b'R', 2,    // signature, version
            0x10, // phase change stored, 1-byte chunk size
            11, 0, 6, 0,  // max compact 11, min dense 6
            16, // chunk 0 size
            1, 4, 0, 0, 2, 0, 0, 0, // dataspace: type, size 4, flags 0, body
            3, 4, 0, 1, 0x10, 8, 0, 0, // datatype: flags constant
        ];
        assert_eq!(&bytes[..bytes.len() - 4], &expected_head);
        assert_eq!(
            &bytes[bytes.len() - 4..],
            &metadata_checksum(&expected_head).to_le_bytes()
        );
        let mut file = vec![0u8; 100];
        file.extend_from_slice(&bytes);
        let oh = read(&file, 100).unwrap();
        assert_eq!(oh.version, 2);
        assert_eq!(oh.attribute_phase_change, Some((11, 6)));
        assert_eq!(oh.messages().len(), 2);
        assert_eq!(oh.messages()[0].offset, 115);
        assert_eq!(oh.messages()[1].flags, MessageFlags(1));
        assert_eq!(oh.messages()[1].body, vec![0x10, 8, 0, 0]);
    }

    #[test]
    fn v2_times_order_gap_and_ochk() {
        // OCHK at 200 holding one attribute-info-like message (type 0x15) with order 7.
        let ochk = with_checksum([b"OCHK".as_slice(), &[0x15, 2, 0, 0, 7, 0, 0xaa, 0xbb]].concat());
        let mut chunk0 = vec![0x10, 16, 0, 0, 0, 0]; // continuation, 16 bytes, order 0
        chunk0.extend_from_slice(&200u64.to_le_bytes());
        chunk0.extend_from_slice(&(ochk.len() as u64).to_le_bytes());
        chunk0.extend_from_slice(&[0, 0, 0]); // gap smaller than a message header
        let mut head = b"OHDR".to_vec();
        head.push(2);
        head.push(0x25); // times, order tracked, 2-byte chunk size
        head.extend_from_slice(&[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0]);
        head.extend_from_slice(&(chunk0.len() as u16).to_le_bytes());
        head.extend_from_slice(&chunk0);
        let oh_bytes = with_checksum(head);
        let mut file = oh_bytes.clone();
        file.resize(200, 0);
        file.extend_from_slice(&ochk);
        let oh = read(&file, 0).unwrap();
        assert_eq!(oh.times, Some([1, 2, 3, 4]));
        assert_eq!(oh.messages().len(), 1);
        let m = &oh.messages()[0];
        assert_eq!(m.kind, MessageType::ATTRIBUTE_INFO);
        assert_eq!(m.creation_order, Some(7));
        assert_eq!(m.body, vec![0xaa, 0xbb]);
        assert_eq!(m.offset, 210);
        // Corrupt the OCHK payload: checksum error naming the chunk address.
        let mut bad = file.clone();
        bad[209] ^= 0xff;
        let err = read(&bad, 0).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Checksum);
        assert_eq!(err.offset(), Some(200));
    }

    #[test]
    fn v2_checksum_and_truncated_message() {
        let mut bytes =
            ObjectHeader::encode_v2(&[(MessageType::DATASPACE, 0, vec![2, 0, 0, 0])], None)
                .unwrap();
        bytes[9] ^= 1;
        assert_eq!(read(&bytes, 0).unwrap_err().kind(), ErrorKind::Checksum);
        // A message claiming 200 bytes inside a 4-byte chunk.
        let head = with_checksum(vec![b'O', b'H', b'D', b'R', 2, 0, 4, 1, 200, 0, 0]);
        assert_eq!(read(&head, 0).unwrap_err().kind(), ErrorKind::Format);
    }

    #[test]
    fn v2_rejects_oversize_message() {
        let err = ObjectHeader::encode_v2(&[(MessageType::ATTRIBUTE, 0, vec![0; 70_000])], None)
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Usage);
    }
}
