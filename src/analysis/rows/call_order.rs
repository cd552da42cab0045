//! The order the reference nests one rank's calls in: start ascending, end descending, ties
//! kept in the order given (region order, then position in the row) — the stable sort of
//! the calls listed row after row — handed out in batches ([`CallOrder`]), so that the
//! walk over them is a plain loop.
//!
//! Rows in start order (as writers store them) are cut into time windows of a few thousand
//! calls; each window's calls are taken from the front of every row (counted into buckets
//! by start as they are taken), keyed by their start above their index in the window, put
//! into their buckets, finished by an insertion pass, runs of equal starts put in
//! end-descending order, and handed out before the next window is taken: the work stays in
//! cache and nothing the size of the rank is built. Other rows fall back to ids packing
//! row and position, ordered by a least-significant-digit radix sort of `(start − min)`
//! above the id (or a comparison sort where that does not fit a `u64`).

use crate::sort::SortSlice;

/// How a call's id packs its row (high bits) and its position in the row (low bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct CallIds {
    pos_bits: u32,
    /// The bits of an id: row and position.
    bits: u32,
}

impl CallIds {
    /// Ids for `rows` rows of at most `longest` calls each.
    fn new(rows: usize, longest: usize) -> Self {
        let width = |n: usize| usize::BITS - n.saturating_sub(1).leading_zeros();
        let pos_bits = width(longest);
        CallIds {
            pos_bits,
            bits: pos_bits + width(rows),
        }
    }

    fn id(self, row: usize, pos: usize) -> u64 {
        ((row as u64) << self.pos_bits) | pos as u64
    }

    /// The row of an id (its index in the rows sorted).
    pub(super) fn row(self, id: u64) -> usize {
        (id >> self.pos_bits) as usize
    }

    /// The position of an id's call in its row.
    pub(super) fn pos(self, id: u64) -> usize {
        (id & ((1u64 << self.pos_bits) - 1)) as usize
    }
}

/// Digits of at most this many bits per radix pass (2,048 buckets: the counts stay in L1).
const DIGIT: u32 = 11;

/// Runs of equal starts up to this long are ordered by insertion.
const INSERTION: usize = 16;

/// Calls per window (and per batch), on average: their keys stay in the L1 and L2 caches
/// while they are sorted.
const WINDOW: usize = 4096;

/// A window's starts fall into at most this many buckets (4,096: the counts stay in L1).
const BUCKET_BITS: u32 = 12;

/// One call: its start and end, its row and its position in the row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Call {
    pub start: i64,
    pub end: i64,
    pub row: usize,
    pub pos: usize,
}

/// The calls of rows `starts[r]` / `ends[r]` (each pair of equal length) in the
/// reference's order — start ascending, end descending, then row, then position — one
/// [`Batch`] at a time ([`next_batch`](CallOrder::next_batch)).
pub(super) struct CallOrder<'a> {
    starts: &'a [&'a [i64]],
    ends: &'a [&'a [i64]],
    source: Source,
    window: Window,
}

/// Where the batches come from.
enum Source {
    /// Every row in start order: time windows of `width` after `min`, the next from
    /// `from`; `next[r]` is row `r`'s first call not yet handed out.
    Windows {
        min: i64,
        range: u64,
        width: u64,
        width_bits: u32,
        from: u64,
        next: Vec<usize>,
        done: bool,
    },
    /// Every call sorted at once, handed out from `next` on.
    Sorted {
        ids: CallIds,
        order: Vec<u64>,
        next: usize,
    },
}

/// One window's calls: `calls` in the order they were taken (row by row, each row's in
/// order), each named by its index there while the window is sorted, so the sort reads
/// only these arrays, which stay in cache, not the rank's rows; `keys` their order.
#[derive(Default)]
struct Window {
    /// Each call with its start as `rel`, after the window's `base`.
    calls: Vec<Call>,
    base: i64,
    /// `counts[b + 1]`: calls in bucket `b`, then where bucket `b` ends.
    counts: Vec<u32>,
    /// The calls' order: each key's bits under `low` are an index into `calls`.
    keys: Vec<u64>,
    low: u64,
}

/// One batch of calls in order: iterate it with [`Batch::iter`].
pub(super) struct Batch<'w> {
    window: &'w Window,
}

impl Batch<'_> {
    /// The calls, in order.
    #[inline]
    pub(super) fn iter(&self) -> impl Iterator<Item = Call> + '_ {
        let Window {
            calls,
            keys,
            low,
            base,
            ..
        } = self.window;
        keys.iter().map(move |&k| {
            let call = calls.get((k & low) as usize).copied().unwrap_or_default();
            Call {
                start: base.wrapping_add(call.start),
                ..call
            }
        })
    }
}

impl<'a> CallOrder<'a> {
    /// The calls of these rows; nothing the size of the rank is allocated where every row
    /// is in start order.
    pub(super) fn new(starts: &'a [&'a [i64]], ends: &'a [&'a [i64]]) -> Self {
        let source = match windows(starts) {
            Some(windows) => windows,
            None => {
                let (ids, order) = sort_ids(starts, ends);
                Source::Sorted {
                    ids,
                    order,
                    next: 0,
                }
            }
        };
        CallOrder {
            starts,
            ends,
            source,
            window: Window::default(),
        }
    }

    /// The next calls in order (none where a time window holds none); `None` once every
    /// call was handed out.
    pub(super) fn next_batch(&mut self) -> Option<Batch<'_>> {
        let (starts, ends) = (self.starts, self.ends);
        let window = &mut self.window;
        match &mut self.source {
            Source::Sorted { ids, order, next } => {
                let taken = order.get(*next..)?.iter().take(WINDOW);
                window.calls.clear();
                window.calls.extend(taken.map(|&id| {
                    let (row, pos) = (ids.row(id), ids.pos(id));
                    Call {
                        start: starts[row][pos],
                        end: ends[row][pos],
                        row,
                        pos,
                    }
                }));
                if window.calls.is_empty() {
                    return None;
                }
                *next += window.calls.len();
                window.base = 0;
                window.keys.clear();
                window.keys.extend(0..window.calls.len() as u64);
                window.low = u64::MAX;
            }
            Source::Windows {
                min,
                range,
                width,
                width_bits,
                from,
                next,
                done,
            } => {
                if *done {
                    return None;
                }
                let to = from.saturating_add(*width);
                window.take(
                    starts,
                    ends,
                    next,
                    min.wrapping_add(*from as i64),
                    to - *from,
                    *width_bits,
                );
                window.sort(*width_bits);
                // Every start is at most `range` after `min`, so the window holding it is
                // reached before `to` saturates.
                *done = to > *range || to == u64::MAX;
                *from = to;
            }
        }
        Some(Batch { window })
    }
}

/// The windows of rows all in start order: about [`WINDOW`] calls each on average; `None`
/// for rows out of start order.
fn windows(starts: &[&[i64]]) -> Option<Source> {
    if !starts.iter().all(|s| s.is_sorted()) {
        return None;
    }
    let n: usize = starts.iter().map(|s| s.len()).sum();
    let min = starts.iter().filter_map(|s| s.first()).min().copied();
    let max = starts.iter().filter_map(|s| s.last()).max().copied();
    let (min, max, done) = match (min, max) {
        (Some(min), Some(max)) => (min, max, false),
        _ => (0, 0, true),
    };
    let range = max.abs_diff(min);
    let windows = (n / WINDOW).max(1) as u64;
    let width = (range / windows).saturating_add(1);
    Some(Source::Windows {
        min,
        range,
        width,
        width_bits: 64 - (width - 1).leading_zeros(),
        from: 0,
        next: vec![0; starts.len()],
        done,
    })
}

impl Window {
    /// Takes the calls starting within `width` after `base` off the front of every row
    /// (`next[r]` is row `r`'s first call not taken yet), counting them into buckets by
    /// start.
    fn take(
        &mut self,
        starts: &[&[i64]],
        ends: &[&[i64]],
        next: &mut [usize],
        base: i64,
        width: u64,
        width_bits: u32,
    ) {
        let shift = width_bits.saturating_sub(BUCKET_BITS);
        self.base = base;
        self.calls.clear();
        self.counts.clear();
        self.counts
            .resize((1usize << width_bits.min(BUCKET_BITS)) + 1, 0);
        for (row, ((starts, ends), first)) in starts.iter().zip(ends).zip(next).enumerate() {
            // A linear scan: a window takes a few calls from the front of each row, and a
            // binary search over the rest of the row would miss the cache at every probe.
            let mut pos = *first;
            while let (Some(&start), Some(&end)) = (starts.get(pos), ends.get(pos)) {
                // Every start not taken yet is at or after `base`: this is its distance,
                // modulo 2^64 like every start's distance from the smallest.
                let rel = start.wrapping_sub(base) as u64;
                if rel >= width {
                    break;
                }
                if let Some(c) = self.counts.get_mut((rel >> shift) as usize + 1) {
                    *c += 1;
                }
                self.calls.push(Call {
                    start: rel as i64,
                    end,
                    row,
                    pos,
                });
                pos += 1;
            }
            *first = pos;
        }
    }

    /// Orders the calls taken: `keys` hold each call's start above its index (so equal
    /// starts keep the order they were taken in) where both fit a `u64`; runs of equal
    /// starts are put in end-descending order.
    fn sort(&mut self, width_bits: u32) {
        let n = self.calls.len();
        let index_bits = usize::BITS - n.leading_zeros();
        self.keys.clear();
        if width_bits + index_bits <= 64 && u32::try_from(n).is_ok() {
            self.bucket_sort(index_bits, width_bits);
            self.low = (1u64 << index_bits) - 1;
        } else {
            // Past what a key or the counts hold: one window with billions of calls.
            self.keys.extend(0..n as u64);
            let calls = &self.calls;
            self.keys
                .sort_stable_by_key(|&i| calls[i as usize].start as u64);
            self.low = u64::MAX;
        }
        let calls = &self.calls;
        let call = |k: u64| {
            calls
                .get((k & self.low) as usize)
                .copied()
                .unwrap_or_default()
        };
        // A bucket-sorted key holds its start above `low`: compared without a lookup.
        let in_key = self.low != u64::MAX;
        let same_start = |a: u64, b: u64| match in_key {
            true => (a ^ b) & !self.low == 0,
            false => call(a).start == call(b).start,
        };
        if self.keys.windows(2).any(|w| same_start(w[0], w[1])) {
            order_equal_ids(&mut self.keys, same_start, |k| call(k).end);
        }
    }

    /// Sorts the window's keys (distinct) ascending from the counts [`take`](Window::take)
    /// made: each key put into its bucket (by the top [`BUCKET_BITS`] of its start), then
    /// each bucket sorted on its own — by one insertion pass over the window while every
    /// bucket is short (a window's calls spread over about as many buckets as there are
    /// calls), else bucket by bucket, by a comparison sort where a bucket is long, so
    /// crowded starts cost `n log n`, not `n²`.
    fn bucket_sort(&mut self, index_bits: u32, width_bits: u32) {
        let shift = width_bits.saturating_sub(BUCKET_BITS);
        let mut largest = 0;
        let mut sum = 0;
        for c in self.counts.iter_mut() {
            largest = largest.max(*c);
            sum += *c;
            *c = sum;
        }
        self.keys.resize(self.calls.len(), 0);
        for (i, call) in self.calls.iter().enumerate() {
            let rel = call.start as u64;
            let Some(at) = self.counts.get_mut((rel >> shift) as usize) else {
                continue;
            };
            if let Some(key) = self.keys.get_mut(*at as usize) {
                *key = (rel << index_bits) | i as u64;
            }
            *at += 1;
        }
        if largest as usize <= INSERTION {
            // Every key is at most a short bucket away from its place: one insertion pass
            // over the whole window, not a loop over its thousands of (mostly empty)
            // buckets.
            insertion_sort(&mut self.keys);
        } else {
            // `counts[b]` is now the end of bucket `b` (and the start of `b + 1`).
            let mut begin = 0;
            for &end in &self.counts {
                let bucket = &mut self.keys[begin..end as usize];
                if bucket.len() <= INSERTION {
                    insertion_sort(bucket);
                } else {
                    bucket.sort_ord_unstable();
                }
                begin = end as usize;
            }
        }
    }
}

fn sort_ids(starts: &[&[i64]], ends: &[&[i64]]) -> (CallIds, Vec<u64>) {
    let longest = starts.iter().map(|s| s.len()).max().unwrap_or(0);
    let ids = CallIds::new(starts.len(), longest);
    let n: usize = starts.iter().map(|s| s.len()).sum();
    let (Some(min), Some(max)) = (
        starts.iter().filter_map(|s| s.iter().min()).min().copied(),
        starts.iter().filter_map(|s| s.iter().max()).max().copied(),
    ) else {
        return (ids, Vec::new());
    };
    let start = |id: u64| starts[ids.row(id)][ids.pos(id)];
    let end = |id: u64| ends[ids.row(id)][ids.pos(id)];
    let range_bits = 64 - max.abs_diff(min).leading_zeros();
    let mut keys: Vec<u64> = Vec::with_capacity(n);
    if ids.bits < 64 && range_bits + ids.bits <= 64 {
        for (r, row) in starts.iter().enumerate() {
            let base = ids.id(r, 0);
            keys.extend(
                row.iter()
                    .enumerate()
                    .map(|(i, &s)| (s.abs_diff(min) << ids.bits) | (base + i as u64)),
            );
        }
        radix_sort(&mut keys, &mut Vec::new(), ids.bits, range_bits);
        let low = (1u64 << ids.bits) - 1;
        let same_start = |a: u64, b: u64| a >> ids.bits == b >> ids.bits;
        order_equal_ids(&mut keys, same_start, |k| end(k & low));
        for k in &mut keys {
            *k &= low;
        }
    } else {
        for (r, row) in starts.iter().enumerate() {
            keys.extend((0..row.len()).map(|i| ids.id(r, i)));
        }
        keys.sort_stable_by(|&a, &b| start(a).cmp(&start(b)).then(a.cmp(&b)));
        order_equal_ids(&mut keys, |a, b| start(a) == start(b), end);
    }
    (ids, keys)
}

/// Puts each run of ids `sorted` with the same start (by `same_start`) in end-descending
/// order, keeping the order of equal ends.
fn order_equal_ids(
    sorted: &mut [u64],
    same_start: impl Fn(u64, u64) -> bool,
    end: impl Fn(u64) -> i64,
) {
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i + 1;
        while j < sorted.len() && same_start(sorted[i], sorted[j]) {
            j += 1;
        }
        let run = &mut sorted[i..j];
        if run.len() <= INSERTION {
            for a in 1..run.len() {
                let mut b = a;
                while b > 0 && end(run[b]) > end(run[b - 1]) {
                    run.swap(b, b - 1);
                    b -= 1;
                }
            }
        } else {
            run.sort_stable_by_key(|&k| std::cmp::Reverse(end(k)));
        }
        i = j;
    }
}

/// Sorts short or nearly sorted `keys` in place.
fn insertion_sort(keys: &mut [u64]) {
    for a in 1..keys.len() {
        let key = keys[a];
        let mut b = a;
        while b > 0 && keys[b - 1] > key {
            keys[b] = keys[b - 1];
            b -= 1;
        }
        keys[b] = key;
    }
}

/// Sorts `keys` by their bits `from .. from + bits`, stably: least significant digit first,
/// every digit's counts taken in one pass, passes whose digit is the same for all keys
/// skipped; `scratch` is room the caller may keep between calls.
fn radix_sort(keys: &mut Vec<u64>, scratch: &mut Vec<u64>, from: u32, bits: u32) {
    if bits == 0 || keys.len() < 2 {
        return;
    }
    let passes = bits.div_ceil(DIGIT);
    let width = bits.div_ceil(passes);
    let mask = (1u64 << width) - 1;
    let buckets = 1usize << width;
    let mut counts = vec![0usize; buckets * passes as usize];
    for &k in keys.iter() {
        for p in 0..passes {
            let digit = ((k >> (from + p * width)) & mask) as usize;
            counts[p as usize * buckets + digit] += 1;
        }
    }
    let n = keys.len();
    scratch.clear();
    scratch.resize(n, 0);
    for p in 0..passes {
        let offsets = &mut counts[p as usize * buckets..(p as usize + 1) * buckets];
        if offsets.contains(&n) {
            continue;
        }
        let mut sum = 0;
        for c in offsets.iter_mut() {
            (*c, sum) = (sum, sum + *c);
        }
        let shift = from + p * width;
        for &k in keys.iter() {
            let digit = ((k >> shift) & mask) as usize;
            scratch[offsets[digit]] = k;
            offsets[digit] += 1;
        }
        std::mem::swap(keys, scratch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The stable comparison sort of the calls listed row after row, as (row, position).
    fn stable(starts: &[Vec<i64>], ends: &[Vec<i64>]) -> Vec<(usize, usize)> {
        let mut calls: Vec<(i64, i64, usize, usize)> = Vec::new();
        for (r, (s, e)) in starts.iter().zip(ends).enumerate() {
            for i in 0..s.len() {
                calls.push((s[i], e[i], r, i));
            }
        }
        calls.sort_stable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        calls.into_iter().map(|c| (c.2, c.3)).collect()
    }

    fn sorted(starts: &[Vec<i64>], ends: &[Vec<i64>]) -> Vec<(usize, usize)> {
        let s: Vec<&[i64]> = starts.iter().map(Vec::as_slice).collect();
        let e: Vec<&[i64]> = ends.iter().map(Vec::as_slice).collect();
        let mut order = Vec::new();
        let mut calls = CallOrder::new(&s, &e);
        while let Some(batch) = calls.next_batch() {
            for c in batch.iter() {
                assert_eq!((c.start, c.end), (starts[c.row][c.pos], ends[c.row][c.pos]));
                order.push((c.row, c.pos));
            }
        }
        assert!(calls.next_batch().is_none());
        order
    }

    fn rows(spans: &[(i64, i64)], rows: usize) -> (Vec<Vec<i64>>, Vec<Vec<i64>>) {
        let (mut starts, mut ends) = (vec![Vec::new(); rows], vec![Vec::new(); rows]);
        for (i, &(s, e)) in spans.iter().enumerate() {
            starts[i % rows].push(s);
            ends[i % rows].push(e);
        }
        (starts, ends)
    }

    proptest! {
        /// The radix order is the stable comparison sort: ties, runs of equal starts longer
        /// than the insertion limit, extremes (the comparison fallback), empty rows.
        #[test]
        fn equals_the_stable_sort(
            spans in proptest::collection::vec((0i64..2000, 0i64..50), 0..600),
            crowded in proptest::collection::vec((0i64..4, 0i64..4), 0..200),
            wide in proptest::collection::vec((any::<i64>(), any::<i64>()), 0..200),
            n_rows in 1usize..7,
        ) {
            let spans: Vec<(i64, i64)> = spans.iter().map(|&(s, d)| (s, s + d)).collect();
            for input in [spans, crowded, wide] {
                let (starts, ends) = rows(&input, n_rows);
                prop_assert_eq!(sorted(&starts, &ends), stable(&starts, &ends));
            }
        }
    }

    #[test]
    fn many_equal_starts_and_every_pass() {
        // 1,000 calls at one start; then starts over 40 bits (four radix passes).
        let (starts, ends) = rows(&(0..1000).map(|i| (5, i % 7)).collect::<Vec<_>>(), 3);
        assert_eq!(sorted(&starts, &ends), stable(&starts, &ends));
        let mut x: u64 = 7;
        let spans: Vec<(i64, i64)> = (0..5000)
            .map(|_| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                let s = (x >> 24) as i64 - (1 << 39);
                (s, s + (x & 0xff) as i64)
            })
            .collect();
        let (starts, ends) = rows(&spans, 5);
        assert_eq!(sorted(&starts, &ends), stable(&starts, &ends));
        assert_eq!(sorted(&[], &[]), Vec::<(usize, usize)>::new());
    }

    /// Many calls come in several batches, in windows and in the fallback alike.
    #[test]
    fn many_calls_come_in_batches() {
        let spans: Vec<(i64, i64)> = (0..3 * WINDOW as i64).map(|i| (i, i + 1)).collect();
        for reversed in [false, true] {
            let (mut starts, ends) = rows(&spans, 2);
            if reversed {
                starts[1].reverse();
            }
            let (s, e): (Vec<&[i64]>, Vec<&[i64]>) = (
                starts.iter().map(Vec::as_slice).collect(),
                ends.iter().map(Vec::as_slice).collect(),
            );
            let mut calls = CallOrder::new(&s, &e);
            let mut batches = 0;
            while calls.next_batch().is_some() {
                batches += 1;
            }
            assert!(batches >= 3, "{batches}");
            assert_eq!(sorted(&starts, &ends), stable(&starts, &ends));
        }
    }
}
