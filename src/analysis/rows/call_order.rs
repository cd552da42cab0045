//! The order the reference nests one rank's calls in: start ascending, end descending, ties
//! kept in the order given (region order, then position in the row) — the stable sort of
//! the calls listed row after row — handed to a visitor call by call ([`each`]).
//!
//! Rows in start order (as writers store them) are cut into time windows of a few thousand
//! calls; each window's calls are copied into small arrays, keyed by their start above
//! their index in the window, sorted by one counting pass into buckets and an insertion
//! pass, runs of equal starts put in end-descending order, and visited before the next
//! window is taken: the work stays in cache and nothing the size of the rank is built.
//! Other rows fall back to ids packing row and position, ordered by a least-significant-
//! digit radix sort of `(start − min)` above the id (or a comparison sort where that does
//! not fit a `u64`).

use std::ops::ControlFlow;

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

/// Calls `visit(row, position, start, end)` for each call of rows `starts[r]` / `ends[r]`
/// (each pair of equal length) in the reference's order: start ascending, end descending,
/// then row, then position. Stops at the first `Break`, which it returns. Nothing the size
/// of the rank is allocated where the rows are in start order (see [`by_windows`]).
pub(super) fn each<B>(
    starts: &[&[i64]],
    ends: &[&[i64]],
    mut visit: impl FnMut(usize, usize, i64, i64) -> ControlFlow<B>,
) -> ControlFlow<B> {
    if let Some(flow) = by_windows(starts, ends, &mut visit) {
        return flow;
    }
    let (ids, order) = sort_ids(starts, ends);
    for id in order {
        let (r, i) = (ids.row(id), ids.pos(id));
        visit(r, i, starts[r][i], ends[r][i])?;
    }
    ControlFlow::Continue(())
}

/// Calls per window of [`by_windows`], on average: their keys stay in the L1 and L2
/// caches while they are sorted.
const WINDOW: usize = 4096;

/// One window's calls, in the order they were taken (row by row, each row's in order):
/// a call is named by its index here while the window is sorted, so the sort and the
/// visit read only these arrays, which stay in cache, not the rank's rows.
#[derive(Default)]
struct Window {
    /// Start after the window's own start (the start is `min + from + rel`).
    rel: Vec<u64>,
    end: Vec<i64>,
    row: Vec<usize>,
    pos: Vec<usize>,
}

impl Window {
    fn clear(&mut self) {
        self.rel.clear();
        self.end.clear();
        self.row.clear();
        self.pos.clear();
    }

    fn len(&self) -> usize {
        self.rel.len()
    }
}

/// [`each`] where every row is in start order (as the writer stores them): the time range
/// is cut into windows of about [`WINDOW`] calls, each window's calls are taken from the
/// front of every row, sorted on their own and visited, and the windows follow one
/// another; `None` (before any visit) for rows out of start order.
fn by_windows<B>(
    starts: &[&[i64]],
    ends: &[&[i64]],
    visit: &mut impl FnMut(usize, usize, i64, i64) -> ControlFlow<B>,
) -> Option<ControlFlow<B>> {
    if !starts.iter().all(|s| s.is_sorted()) {
        return None;
    }
    let n: usize = starts.iter().map(|s| s.len()).sum();
    let (Some(min), Some(max)) = (
        starts.iter().filter_map(|s| s.first()).min().copied(),
        starts.iter().filter_map(|s| s.last()).max().copied(),
    ) else {
        return Some(ControlFlow::Continue(()));
    };
    let range = max.abs_diff(min);
    let windows = (n / WINDOW).max(1) as u64;
    let width = (range / windows).saturating_add(1);
    let width_bits = 64 - (width - 1).leading_zeros();
    let mut next = vec![0usize; starts.len()];
    let mut window = Window::default();
    let mut keys: Vec<u64> = Vec::with_capacity(2 * WINDOW);
    let mut scratch: Vec<u64> = Vec::new();
    let mut counts: Vec<u32> = Vec::new();
    let mut from = 0u64;
    loop {
        // The window's starts: `from .. from + width` after `min`.
        let to = from.saturating_add(width);
        window.clear();
        for (r, (row, row_ends)) in starts.iter().zip(ends).enumerate() {
            let first = next[r];
            // A linear scan: a window takes a few calls from the front of each row, and a
            // binary search over the rest of the row would miss the cache at every probe.
            let taken = row[first..]
                .iter()
                .position(|s| s.abs_diff(min) >= to)
                .unwrap_or(row.len() - first);
            let last = first + taken;
            window
                .rel
                .extend(row[first..last].iter().map(|s| s.abs_diff(min) - from));
            window.end.extend_from_slice(&row_ends[first..last]);
            window.row.extend(std::iter::repeat_n(r, taken));
            window.pos.extend(first..last);
            next[r] = last;
        }
        // Keys: the start above the call's index in the window (so equal starts keep the
        // order they were taken in), where both fit a `u64`.
        let index_bits = usize::BITS - window.len().leading_zeros();
        keys.clear();
        // The mask that takes a call's index out of its key.
        let low = if width_bits + index_bits <= 64 {
            keys.extend(
                window
                    .rel
                    .iter()
                    .enumerate()
                    .map(|(i, &rel)| (rel << index_bits) | i as u64),
            );
            bucket_sort(&mut keys, &mut scratch, &mut counts, index_bits, width_bits);
            let low = (1u64 << index_bits) - 1;
            order_equal_starts(
                &mut keys,
                |a, b| a >> index_bits == b >> index_bits,
                |k| window.end[(k & low) as usize],
            );
            low
        } else {
            keys.extend(0..window.len() as u64);
            keys.sort_by_key(|&i| window.rel[i as usize]);
            order_equal_starts(
                &mut keys,
                |a, b| window.rel[a as usize] == window.rel[b as usize],
                |i| window.end[i as usize],
            );
            u64::MAX
        };
        for &k in &keys {
            let i = (k & low) as usize;
            let (r, p) = (window.row[i], window.pos[i]);
            let start = min.wrapping_add((from + window.rel[i]) as i64);
            if let ControlFlow::Break(b) = visit(r, p, start, window.end[i]) {
                return Some(ControlFlow::Break(b));
            }
        }
        // Every start is at most `range` after `min`, so the window holding it is reached
        // before `to` saturates.
        if to > range || to == u64::MAX {
            return Some(ControlFlow::Continue(()));
        }
        from = to;
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
        order_equal_starts(&mut keys, same_start, |k| end(k & low));
        for k in &mut keys {
            *k &= low;
        }
    } else {
        for (r, row) in starts.iter().enumerate() {
            keys.extend((0..row.len()).map(|i| ids.id(r, i)));
        }
        keys.sort_unstable_by(|&a, &b| start(a).cmp(&start(b)).then(a.cmp(&b)));
        order_equal_starts(&mut keys, |a, b| start(a) == start(b), end);
    }
    (ids, keys)
}

/// Puts each run of `sorted` with the same start (by `same_start`) in end-descending
/// order, keeping the order of equal ends.
fn order_equal_starts(
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
            run.sort_by_key(|&k| std::cmp::Reverse(end(k)));
        }
        i = j;
    }
}

/// A window's starts fall into at most this many buckets (4,096: the counts stay in L1).
const BUCKET_BITS: u32 = 12;

/// Sorts `keys` (distinct) ascending where their bits from `from` up hold a value of at
/// most `bits` bits: one counting pass puts them into buckets by the top [`BUCKET_BITS`]
/// of that value, then each bucket is sorted on its own — by insertion while it is short
/// (a window's calls spread over about as many buckets as there are calls), by a
/// comparison sort otherwise, so crowded starts cost `n log n`, not `n²`. One pass over
/// the keys instead of a radix sort's two or three; `scratch` and `counts` are room the
/// caller keeps between windows.
fn bucket_sort(
    keys: &mut Vec<u64>,
    scratch: &mut Vec<u64>,
    counts: &mut Vec<u32>,
    from: u32,
    bits: u32,
) {
    if keys.len() < 2 {
        return;
    }
    if u32::try_from(keys.len()).is_err() {
        // Past what the counts hold: one window with billions of calls.
        keys.sort_unstable();
        return;
    }
    let shift = from + bits.saturating_sub(BUCKET_BITS);
    let buckets = 1usize << bits.min(BUCKET_BITS);
    counts.clear();
    counts.resize(buckets + 1, 0);
    for &k in keys.iter() {
        counts[(k >> shift) as usize + 1] += 1;
    }
    let mut largest = 0;
    for b in 1..=buckets {
        largest = largest.max(counts[b]);
        counts[b] += counts[b - 1];
    }
    // Only room past what earlier windows left is zeroed.
    let n = keys.len();
    if scratch.len() < n {
        scratch.resize(n, 0);
    }
    for &k in keys.iter() {
        let at = &mut counts[(k >> shift) as usize];
        scratch[*at as usize] = k;
        *at += 1;
    }
    let sorted = &mut scratch[..n];
    if largest as usize <= INSERTION {
        // Every key is at most a short bucket away from its place: one insertion pass
        // over the whole window, not a loop over its thousands of (mostly empty) buckets.
        insertion_sort(sorted);
    } else {
        // `counts[b]` is now the end of bucket `b` (and the start of `b + 1`).
        let mut begin = 0;
        for &end in &counts[..buckets] {
            let bucket = &mut sorted[begin..end as usize];
            if bucket.len() <= INSERTION {
                insertion_sort(bucket);
            } else {
                bucket.sort_unstable();
            }
            begin = end as usize;
        }
    }
    std::mem::swap(keys, scratch);
    keys.truncate(n);
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
        calls.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        calls.into_iter().map(|c| (c.2, c.3)).collect()
    }

    fn sorted(starts: &[Vec<i64>], ends: &[Vec<i64>]) -> Vec<(usize, usize)> {
        let s: Vec<&[i64]> = starts.iter().map(Vec::as_slice).collect();
        let e: Vec<&[i64]> = ends.iter().map(Vec::as_slice).collect();
        let mut order = Vec::new();
        let flow = each::<()>(&s, &e, |r, i, start, end| {
            assert_eq!((start, end), (starts[r][i], ends[r][i]));
            order.push((r, i));
            ControlFlow::Continue(())
        });
        assert_eq!(flow, ControlFlow::Continue(()));
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

    /// A `Break` stops the walk at once, in the window path and in the fallback.
    #[test]
    fn a_break_stops_the_walk() {
        for spans in [vec![(0, 5), (1, 2), (3, 4)], vec![(3, 4), (0, 5), (1, 2)]] {
            let (starts, ends) = rows(&spans, 1);
            let (s, e) = ([starts[0].as_slice()], [ends[0].as_slice()]);
            let mut seen = 0;
            let flow = each(&s, &e, |_, i, _, _| {
                seen += 1;
                if seen == 2 {
                    ControlFlow::Break(i)
                } else {
                    ControlFlow::Continue(())
                }
            });
            assert_eq!(seen, 2);
            assert_eq!(
                flow,
                ControlFlow::Break(if spans[0].0 == 0 { 1 } else { 2 })
            );
        }
    }
}
