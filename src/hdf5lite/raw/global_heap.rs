//! Global heap collections (`GCOL`, version 1): where variable-length data lives. A vlen
//! element stores (byte length, collection address, object index); the collection maps the
//! index to the bytes. Parse and encode side by side.

use super::cursor::{Cursor, Encoder, Widths};
use super::messages::pad8;
use crate::hdf5lite::error::{Error, Result};
use crate::hdf5lite::limits::Limits;
use crate::io::ReadAt;

const GCOL: &[u8; 4] = b"GCOL";

/// Smallest collection size libhdf5 accepts.
pub const MIN_COLLECTION_SIZE: u64 = 4096;

/// Size of the collection header and of each object header (with 8-byte lengths).
pub const HEADER_SIZE: u64 = 16;

/// One object of a collection, owned: what a writer or a test builds a collection from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeapObject {
    /// Index ≥ 1 (0 is the free-space object and never listed).
    pub index: u16,
    pub reference_count: u16,
    pub data: Vec<u8>,
}

/// One object of a collection, borrowed from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeapObjectRef<'a> {
    pub index: u16,
    pub reference_count: u16,
    pub data: &'a [u8],
}

/// Where an object's bytes lie in its collection's buffer.
#[derive(Debug, Clone, Copy)]
struct Slot {
    index: u16,
    reference_count: u16,
    start: usize,
    len: usize,
}

/// A global heap collection: one buffer and where each object lies in it. A 100,000-rank
/// index holds a million strings in its collections, and an allocation per object was
/// most of reading them.
#[derive(Debug, Clone, Default)]
pub struct GlobalHeapCollection {
    /// The collection as read (or the objects' bytes back to back, when built).
    bytes: Vec<u8>,
    /// The objects in stored order.
    slots: Vec<Slot>,
    /// Only the objects of the collection's first bytes were read ([`Self::read_prefix`]).
    prefix: bool,
}

/// Two collections are equal when they hold the same objects, however they are laid out.
impl PartialEq for GlobalHeapCollection {
    fn eq(&self, other: &Self) -> bool {
        self.objects().eq(other.objects())
    }
}

impl Eq for GlobalHeapCollection {}

impl GlobalHeapCollection {
    /// A collection of `objects`, in their order.
    pub fn from_objects(objects: &[HeapObject]) -> GlobalHeapCollection {
        let mut g = GlobalHeapCollection::default();
        for o in objects {
            g.slots.push(Slot {
                index: o.index,
                reference_count: o.reference_count,
                start: g.bytes.len(),
                len: o.data.len(),
            });
            g.bytes.extend_from_slice(&o.data);
        }
        g
    }

    /// The objects in stored order.
    pub fn objects(&self) -> impl Iterator<Item = HeapObjectRef<'_>> {
        self.slots.iter().map(|s| HeapObjectRef {
            index: s.index,
            reference_count: s.reference_count,
            data: self.data(s),
        })
    }

    /// How many objects the collection holds.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether the collection holds no object.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    fn data(&self, s: &Slot) -> &[u8] {
        // Slots are checked against the buffer when made.
        self.bytes.get(s.start..s.start + s.len).unwrap_or_default()
    }

    /// Reads the collection at `address`.
    pub fn read<R: ReadAt + ?Sized>(
        src: &R,
        address: u64,
        widths: Widths,
        limits: &Limits,
    ) -> Result<GlobalHeapCollection> {
        let size = Self::size_at(src, address, widths, limits)?;
        let mut buf = vec![0u8; size as usize];
        src.read_exact_at(address, &mut buf)?;
        Self::parse(buf, address, widths)
    }

    /// The objects within the first `prefix` bytes of the collection at `address` (all of
    /// it when it is no larger; [`is_prefix`](Self::is_prefix) says which). A scalar
    /// attribute's string is then found without reading and parsing a collection that
    /// also holds every row's strings: a writer stores the attributes' first, and W3's
    /// first collection is 1.2 MiB of 43,502 objects, read four times to open it for a run.
    pub fn read_prefix<R: ReadAt + ?Sized>(
        src: &R,
        address: u64,
        widths: Widths,
        limits: &Limits,
        prefix: u64,
    ) -> Result<GlobalHeapCollection> {
        let size = Self::size_at(src, address, widths, limits)?;
        let mut buf = vec![0u8; size.min(prefix) as usize];
        src.read_exact_at(address, &mut buf)?;
        Self::parse_part(buf, address, widths, size > prefix)
    }

    /// Whether only the collection's first objects were read.
    pub fn is_prefix(&self) -> bool {
        self.prefix
    }

    /// The size of the collection at `address`, checked against the file and `limits`.
    fn size_at<R: ReadAt + ?Sized>(
        src: &R,
        address: u64,
        widths: Widths,
        limits: &Limits,
    ) -> Result<u64> {
        let head_len = 8 + usize::from(widths.length);
        let mut head = vec![0u8; head_len];
        src.read_exact_at(address, &mut head)?;
        let mut c = Cursor::new(&head, address, widths);
        c.expect(GCOL, "global heap collection")?;
        let version = c.u8()?;
        if version != 1 {
            return Err(
                Error::unsupported(format!("global heap version {version}")).at(address + 4)
            );
        }
        c.skip(3)?;
        let size = c.length()?;
        if size < head_len as u64 {
            return Err(
                Error::format(format!("global heap collection of {size} bytes")).at(address),
            );
        }
        if size > limits.max_metadata_bytes {
            return Err(Error::limits(format!(
                "global heap collection of {size} bytes exceeds the metadata limit"
            ))
            .at(address));
        }
        if address.checked_add(size).is_none_or(|end| end > src.len()) {
            return Err(Error::format(format!(
                "global heap collection of {size} bytes passes the end of the file"
            ))
            .at(address));
        }
        Ok(size)
    }

    /// Parses a whole collection block (signature through the last byte) at `address`,
    /// keeping the block as the objects' buffer.
    pub fn parse(block: Vec<u8>, address: u64, widths: Widths) -> Result<GlobalHeapCollection> {
        Self::parse_part(block, address, widths, false)
    }

    /// [`parse`](Self::parse) of a whole block, or with `prefix` of its first bytes: the
    /// objects that lie wholly in them.
    fn parse_part(
        block: Vec<u8>,
        address: u64,
        widths: Widths,
        prefix: bool,
    ) -> Result<GlobalHeapCollection> {
        let mut c = Cursor::new(&block, address, widths);
        c.expect(GCOL, "global heap collection")?;
        let at = c.offset();
        if c.u8()? != 1 {
            return Err(Error::unsupported("global heap version").at(at));
        }
        c.skip(3)?;
        c.length()?; // the caller sized the block
        let object_header = 8 + usize::from(c.widths().length);
        let mut slots = Vec::new();
        while c.remaining() >= object_header {
            let at = c.offset();
            let index = c.u16()?;
            let reference_count = c.u16()?;
            c.skip(4)?;
            let size = c.length()?;
            if index == 0 {
                break; // free space: the rest of the collection
            }
            if prefix && usize::try_from(size).is_ok_and(|n| n > c.remaining()) {
                break; // past the bytes read
            }
            let len = usize::try_from(size)
                .ok()
                .filter(|&n| n <= c.remaining())
                .ok_or_else(|| {
                    Error::format(format!(
                        "global heap object {index} of {size} bytes overruns its collection"
                    ))
                    .at(at)
                })?;
            let start = c.position();
            c.skip(len)?;
            c.skip(pad8(len).min(c.remaining()))?;
            slots.push(Slot {
                index,
                reference_count,
                start,
                len,
            });
        }
        Ok(GlobalHeapCollection {
            bytes: block,
            slots,
            prefix,
        })
    }

    /// The bytes of object `index`.
    pub fn get(&self, index: u32) -> Option<&[u8]> {
        // Objects are normally stored in index order from 1, object `index` in place
        // `index - 1`; else a binary search, else a scan.
        let at = (index as usize).wrapping_sub(1);
        let found = match self.slots.get(at) {
            Some(o) if u32::from(o.index) == index => Some(o),
            _ => match self
                .slots
                .binary_search_by_key(&index, |o| u32::from(o.index))
            {
                Ok(i) => self.slots.get(i),
                Err(_) => self.slots.iter().find(|o| u32::from(o.index) == index),
            },
        };
        found.map(|o| self.data(o))
    }

    /// Bytes the encoded collection takes (8-byte lengths): header, objects, and a
    /// free-space object, at least [`MIN_COLLECTION_SIZE`].
    pub fn encoded_size(&self) -> u64 {
        Self::size_for(self.slots.iter().map(|o| o.len as u64))
    }

    /// [`encoded_size`](Self::encoded_size) for objects of these byte lengths.
    pub fn size_for(lengths: impl Iterator<Item = u64>) -> u64 {
        let used = lengths.fold(HEADER_SIZE, |acc, n| {
            acc + HEADER_SIZE + n + pad8((n % 8) as usize) as u64
        });
        (used + HEADER_SIZE).max(MIN_COLLECTION_SIZE)
    }

    /// Encodes with 8-byte lengths: objects in order, then one free-space object (index 0)
    /// covering the rest of the collection.
    pub fn encode(&self, e: &mut Encoder) {
        let size = self.encoded_size();
        let start = e.len();
        encode_head(e, size);
        for o in self.objects() {
            encode_object(e, o.index, o.reference_count, o.data);
        }
        encode_free_space(e, size, (e.len() - start) as u64);
    }
}

/// A collection encoded as its objects are added (indices from 1, reference count 0), for
/// a writer of many small objects: a million strings cost their encoded bytes rather than
/// a [`HeapObject`] and an allocation each. Encodes as [`GlobalHeapCollection`] does.
#[derive(Debug, Clone, Default)]
pub struct CollectionBuilder {
    /// The objects' encoded bytes, back to back.
    objects: Encoder,
    count: u16,
}

impl CollectionBuilder {
    /// Objects added.
    pub fn len(&self) -> usize {
        usize::from(self.count)
    }

    /// Whether no object was added.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Adds an object holding `data`; its index, or `None` when the collection has
    /// `u16::MAX` objects.
    pub fn push(&mut self, data: &[u8]) -> Option<u16> {
        let index = self.count.checked_add(1)?;
        self.count = index;
        encode_object(&mut self.objects, index, 0, data);
        Some(index)
    }

    /// Bytes the encoded collection takes, as [`GlobalHeapCollection::encoded_size`].
    pub fn encoded_size(&self) -> u64 {
        (HEADER_SIZE + self.objects.len() as u64 + HEADER_SIZE).max(MIN_COLLECTION_SIZE)
    }

    /// Encodes as [`GlobalHeapCollection::encode`].
    pub fn encode(&self, e: &mut Encoder) {
        let size = self.encoded_size();
        let start = e.len();
        encode_head(e, size);
        e.bytes(self.objects.as_bytes());
        encode_free_space(e, size, (e.len() - start) as u64);
    }
}

/// The collection header: signature, version, collection size.
fn encode_head(e: &mut Encoder, size: u64) {
    e.bytes(GCOL);
    e.bytes(&[1, 0, 0, 0]);
    e.length(size);
}

/// One object: index, reference count, reserved, length, data padded to 8 bytes.
fn encode_object(e: &mut Encoder, index: u16, reference_count: u16, data: &[u8]) {
    e.u16(index);
    e.u16(reference_count);
    e.u32(0);
    e.length(data.len() as u64);
    e.bytes(data);
    e.zeros(pad8(data.len()));
}

/// The free-space object (index 0) covering what `used` bytes leave of `size`.
fn encode_free_space(e: &mut Encoder, size: u64, used: u64) {
    let free = size - used;
    e.u16(0);
    e.u16(0);
    e.u32(0);
    e.length(free);
    e.zeros((free - HEADER_SIZE) as usize);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdf5lite::ErrorKind;

    fn obj(index: u16, data: &[u8]) -> HeapObject {
        HeapObject {
            index,
            reference_count: 0,
            data: data.to_vec(),
        }
    }

    fn enc(g: &GlobalHeapCollection) -> Vec<u8> {
        let mut e = Encoder::new(Widths::STANDARD);
        g.encode(&mut e);
        e.into_bytes()
    }

    #[test]
    fn encode_bytes() {
        let g = GlobalHeapCollection::from_objects(&[
            obj(1, b"columnar"),
            obj(2, b""),
            obj(3, "é".as_bytes()),
        ]);
        let bytes = enc(&g);
        assert_eq!(bytes.len(), 4096);
        let expected = [
            b'G', b'C', b'O', b'L', 1, 0, 0, 0, // signature, version, reserved
            0, 0x10, 0, 0, 0, 0, 0, 0, // collection size 4096
            1, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, // object 1: 8 bytes
            b'c', b'o', b'l', b'u', b'm', b'n', b'a', b'r', 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0, // object 2: empty
            3, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, // object 3: 2 bytes
            0xc3, 0xa9, 0, 0, 0, 0, 0, 0, // padded to 8
            0, 0, 0, 0, 0, 0, 0, 0, 0xb0, 0x0f, 0, 0, 0, 0, 0, 0, // free space: 4096 - 80
        ];
        assert_eq!(&bytes[..expected.len()], &expected);
        assert!(bytes[expected.len()..].iter().all(|&b| b == 0));
        let back =
            GlobalHeapCollection::read(bytes.as_slice(), 0, Widths::STANDARD, &Limits::default())
                .unwrap();
        assert_eq!(back, g);
        assert_eq!(back.get(3), Some("é".as_bytes()));
        assert_eq!(back.get(2), Some(&b""[..]));
        assert_eq!(back.get(4), None);
    }

    /// A prefix holds the objects wholly inside it, says it is one, and is the whole
    /// collection when the collection is no larger.
    #[test]
    fn a_prefix_holds_the_first_objects() {
        let objects: Vec<HeapObject> = (1..=600).map(|i| obj(i, &[i as u8; 20])).collect();
        let bytes = enc(&GlobalHeapCollection::from_objects(&objects));
        let read = |prefix| {
            let (w, limits) = (Widths::STANDARD, &Limits::default());
            GlobalHeapCollection::read_prefix(bytes.as_slice(), 0, w, limits, prefix).unwrap()
        };
        let head = read(4096);
        assert!(head.is_prefix() && head.len() == (4096 - 16) / 40); // 102 objects of 40 bytes
        assert_eq!(head.get(1), Some(&[1u8; 20][..]));
        assert_eq!(
            (head.get(102), head.get(103)),
            (Some(&[102u8; 20][..]), None)
        );
        let whole = read(1 << 20);
        assert!(!whole.is_prefix());
        assert_eq!(whole, GlobalHeapCollection::from_objects(&objects));
    }

    #[test]
    fn objects_are_read_in_place_in_stored_order() {
        let g = GlobalHeapCollection::from_objects(&[
            HeapObject {
                index: 2,
                reference_count: 3,
                data: b"second".to_vec(),
            },
            obj(1, b"first"),
        ]);
        let bytes = enc(&g);
        let back =
            GlobalHeapCollection::read(bytes.as_slice(), 0, Widths::STANDARD, &Limits::default())
                .unwrap();
        let listed: Vec<_> = back
            .objects()
            .map(|o| (o.index, o.reference_count, o.data))
            .collect();
        assert_eq!(
            listed,
            [(2, 3, &b"second"[..]), (1, 0, &b"first"[..])].to_vec()
        );
        assert_eq!(back.len(), 2);
        // Out of index order: found by a scan.
        assert_eq!(back.get(1), Some(&b"first"[..]));
        assert_eq!(back.get(2), Some(&b"second"[..]));
        assert_eq!(back.get(0), None);
    }

    #[test]
    fn the_builder_encodes_as_the_collection() {
        let big = vec![b'x'; 5000];
        for datas in [
            &[&b"columnar"[..], b"", "é".as_bytes()][..],
            &[&big[..]],
            &[],
        ] {
            let mut builder = CollectionBuilder::default();
            let indices: Vec<_> = datas.iter().map(|d| builder.push(d)).collect();
            let objects: Vec<_> = (1..).zip(datas.iter()).map(|(i, d)| obj(i, d)).collect();
            assert_eq!(
                indices,
                objects.iter().map(|o| Some(o.index)).collect::<Vec<_>>()
            );
            assert_eq!(builder.len(), datas.len());
            let g = GlobalHeapCollection::from_objects(&objects);
            assert_eq!(builder.encoded_size(), g.encoded_size());
            let mut e = Encoder::new(Widths::STANDARD);
            builder.encode(&mut e);
            assert_eq!(e.into_bytes(), enc(&g));
        }
    }

    #[test]
    fn a_builder_holds_at_most_u16_max_objects() {
        let mut builder = CollectionBuilder::default();
        for _ in 0..u16::MAX {
            assert!(builder.push(b"").is_some());
        }
        assert_eq!(builder.push(b""), None);
        assert_eq!(builder.len(), usize::from(u16::MAX));
    }

    #[test]
    fn large_collection_grows_past_minimum() {
        let big = vec![b'x'; 5000];
        let g = GlobalHeapCollection::from_objects(&[obj(1, &big)]);
        // header 16 + object 16 + 5000 + free-space header 16
        assert_eq!(g.encoded_size(), 5048);
        let bytes = enc(&g);
        assert_eq!(bytes.len(), 5048);
        let back =
            GlobalHeapCollection::read(bytes.as_slice(), 0, Widths::STANDARD, &Limits::default())
                .unwrap();
        assert_eq!(back, g);
    }

    #[test]
    fn errors() {
        let g = GlobalHeapCollection::from_objects(&[obj(1, b"abc")]);
        let mut bytes = enc(&g);
        bytes[24] = 0xff; // object 1 claims 255 bytes... still fits; make it overrun
        bytes[25] = 0xff;
        let err =
            GlobalHeapCollection::read(bytes.as_slice(), 0, Widths::STANDARD, &Limits::default())
                .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Format);
        assert_eq!(err.offset(), Some(16));
        let truncated = &enc(&g)[..100];
        let err = GlobalHeapCollection::read(truncated, 0, Widths::STANDARD, &Limits::default())
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Format);
        let limits = Limits {
            max_metadata_bytes: 1000,
            ..Limits::default()
        };
        let err = GlobalHeapCollection::read(enc(&g).as_slice(), 0, Widths::STANDARD, &limits)
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::LimitsExceeded);
    }
}
