//! One array of i64 nanosecond timestamps (a region's starts or its ends), borrowed from the
//! file and decoded on access, so parsing a trace never copies its bulk data.

use std::iter::FusedIterator;
use std::slice::ChunksExact;

use super::header::Endian;

/// A borrowed array of i64 timestamps in the file's byte order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timestamps<'a> {
    bytes: &'a [u8],
    endian: Endian,
}

impl<'a> Timestamps<'a> {
    /// Views `bytes` as timestamps; `None` unless its length is a multiple of 8.
    pub fn new(bytes: &'a [u8], endian: Endian) -> Option<Self> {
        (bytes.len() % 8 == 0).then_some(Timestamps { bytes, endian })
    }

    /// Number of timestamps.
    pub fn len(&self) -> usize {
        self.bytes.len() / 8
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The `i`-th timestamp.
    pub fn get(&self, i: usize) -> Option<i64> {
        let start = i.checked_mul(8)?;
        let raw: [u8; 8] = self
            .bytes
            .get(start..start.checked_add(8)?)?
            .try_into()
            .ok()?;
        Some(decode(raw, self.endian))
    }

    /// The first timestamp.
    pub fn first(&self) -> Option<i64> {
        self.get(0)
    }

    /// The last timestamp.
    pub fn last(&self) -> Option<i64> {
        self.len().checked_sub(1).and_then(|i| self.get(i))
    }

    /// Decodes the timestamps in order.
    pub fn iter(&self) -> TimestampIter<'a> {
        TimestampIter {
            chunks: self.bytes.chunks_exact(8),
            endian: self.endian,
        }
    }

    /// Decodes all timestamps into a new vector.
    pub fn to_vec(&self) -> Vec<i64> {
        let mut out = vec![0; self.len()];
        self.decode_into(&mut out);
        out
    }

    /// Appends the decoded timestamps to `out`.
    pub fn extend_into(&self, out: &mut Vec<i64>) {
        let old = out.len();
        out.resize(old.saturating_add(self.len()), 0);
        if let Some(tail) = out.get_mut(old..) {
            self.decode_into(tail);
        }
    }

    /// Decodes the first `min(self.len(), out.len())` timestamps into `out`, returning that
    /// number. The tightest loop on offer: one byte-order decision, then a straight copy.
    pub fn decode_into(&self, out: &mut [i64]) -> usize {
        let pairs = out.iter_mut().zip(self.bytes.chunks_exact(8));
        let n = pairs.len();
        match self.endian {
            Endian::Little => pairs.for_each(|(o, c)| *o = i64::from_le_bytes(chunk(c))),
            Endian::Big => pairs.for_each(|(o, c)| *o = i64::from_be_bytes(chunk(c))),
        }
        n
    }

    /// The raw bytes, `8 × len()` of them, in [`endian`](Self::endian) order.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Byte order of the raw bytes.
    pub fn endian(&self) -> Endian {
        self.endian
    }
}

impl<'a> IntoIterator for Timestamps<'a> {
    type Item = i64;
    type IntoIter = TimestampIter<'a>;

    fn into_iter(self) -> TimestampIter<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &Timestamps<'a> {
    type Item = i64;
    type IntoIter = TimestampIter<'a>;

    fn into_iter(self) -> TimestampIter<'a> {
        self.iter()
    }
}

/// Iterator over decoded timestamps; see [`Timestamps::iter`].
#[derive(Debug, Clone)]
pub struct TimestampIter<'a> {
    chunks: ChunksExact<'a, u8>,
    endian: Endian,
}

/// An 8-byte chunk as an array; `chunks_exact(8)` guarantees the length, so the fallback
/// is never taken and the compiler removes it.
#[inline(always)]
fn chunk(c: &[u8]) -> [u8; 8] {
    c.try_into().unwrap_or([0; 8])
}

#[inline(always)]
fn decode(raw: [u8; 8], endian: Endian) -> i64 {
    match endian {
        Endian::Little => i64::from_le_bytes(raw),
        Endian::Big => i64::from_be_bytes(raw),
    }
}

impl Iterator for TimestampIter<'_> {
    type Item = i64;

    #[inline]
    fn next(&mut self) -> Option<i64> {
        self.chunks.next().map(|c| decode(chunk(c), self.endian))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.chunks.size_hint()
    }

    #[inline]
    fn nth(&mut self, n: usize) -> Option<i64> {
        self.chunks.nth(n).map(|c| decode(chunk(c), self.endian))
    }

    #[inline]
    fn count(self) -> usize {
        self.chunks.len()
    }

    #[inline]
    fn last(mut self) -> Option<i64> {
        self.next_back()
    }

    /// Decides the byte order once rather than per element, for `sum`, `for_each`, `extend`.
    #[inline]
    fn fold<B, F: FnMut(B, i64) -> B>(self, init: B, mut f: F) -> B {
        match self.endian {
            Endian::Little => self
                .chunks
                .fold(init, |acc, c| f(acc, i64::from_le_bytes(chunk(c)))),
            Endian::Big => self
                .chunks
                .fold(init, |acc, c| f(acc, i64::from_be_bytes(chunk(c)))),
        }
    }
}

impl DoubleEndedIterator for TimestampIter<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<i64> {
        self.chunks
            .next_back()
            .map(|c| decode(chunk(c), self.endian))
    }
}

impl ExactSizeIterator for TimestampIter<'_> {}

impl FusedIterator for TimestampIter<'_> {}

/// Appends `values` as i64 in `endian` order.
pub(crate) fn encode_timestamps(out: &mut Vec<u8>, values: &[i64], endian: Endian) {
    out.reserve(values.len().saturating_mul(8));
    match endian {
        Endian::Little => values
            .iter()
            .for_each(|v| out.extend_from_slice(&v.to_le_bytes())),
        Endian::Big => values
            .iter()
            .for_each(|v| out.extend_from_slice(&v.to_be_bytes())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LE: [u8; 24] = [
        0x0a, 0, 0, 0, 0, 0, 0, 0, // 10
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // -1
        0x00, 0x01, 0, 0, 0, 0, 0, 0x80, // i64::MIN + 256
    ];

    const BE: [u8; 24] = [
        0, 0, 0, 0, 0, 0, 0, 0x0a, // 10
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // -1
        0x80, 0, 0, 0, 0, 0, 0x01, 0x00, // i64::MIN + 256
    ];

    const VALUES: [i64; 3] = [10, -1, i64::MIN + 256];

    #[test]
    fn decodes_both_byte_orders() {
        for (bytes, endian) in [(&LE, Endian::Little), (&BE, Endian::Big)] {
            let ts = Timestamps::new(bytes, endian).unwrap();
            assert_eq!(ts.len(), 3);
            assert!(!ts.is_empty());
            assert_eq!(ts.to_vec(), VALUES);
            assert_eq!(ts.iter().collect::<Vec<_>>(), VALUES);
            assert_eq!(
                ts.iter().rev().collect::<Vec<_>>(),
                [VALUES[2], VALUES[1], VALUES[0]]
            );
            assert_eq!(ts.iter().len(), 3);
            assert_eq!(ts.iter().nth(1), Some(-1));
            assert_eq!(ts.iter().count(), 3);
            assert_eq!(ts.iter().last(), Some(VALUES[2]));
            assert_eq!(
                ts.iter().fold(0i128, |a, v| a + i128::from(v)),
                9 + i128::from(i64::MIN) + 256
            );
            assert_eq!(ts.get(0), Some(10));
            assert_eq!(ts.get(2), Some(VALUES[2]));
            assert_eq!(ts.get(3), None);
            assert_eq!(ts.get(usize::MAX), None);
            assert_eq!(ts.first(), Some(10));
            assert_eq!(ts.last(), Some(VALUES[2]));
            assert_eq!(ts.as_bytes(), bytes);
            assert_eq!(ts.endian(), endian);

            let mut out = vec![7];
            ts.extend_into(&mut out);
            assert_eq!(out, [7, VALUES[0], VALUES[1], VALUES[2]]);
            let mut short = [0; 2];
            assert_eq!(ts.decode_into(&mut short), 2);
            assert_eq!(short, [VALUES[0], VALUES[1]]);
            let mut long = [0; 4];
            assert_eq!(ts.decode_into(&mut long), 3);
            assert_eq!(long, [VALUES[0], VALUES[1], VALUES[2], 0]);

            let mut out = Vec::new();
            encode_timestamps(&mut out, &VALUES, endian);
            assert_eq!(out, bytes);
        }
    }

    #[test]
    fn empty_and_misaligned() {
        let ts = Timestamps::new(&[], Endian::Big).unwrap();
        assert!(ts.is_empty());
        assert_eq!(ts.first(), None);
        assert_eq!(ts.last(), None);
        assert_eq!(ts.iter().next(), None);
        assert_eq!(Timestamps::new(&LE[..7], Endian::Little), None);
    }
}
