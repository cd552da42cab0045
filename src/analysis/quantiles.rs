//! p50, p95 and p99 as `np.percentile` gives them (see
//! [`percentile_sorted`](super::numeric::percentile_sorted)), without sorting: the few order
//! statistics numpy's linear method reads are selected ([`by_selection`],
//! [`of_durations`]) in the values held, or, for one region's calls read from the event columns on demand
//! ([`region_percentiles`]), in bounded memory whatever the region's size: up to
//! [`IN_MEMORY_CALLS`] calls are held in memory; larger regions are read in blocks several
//! times, narrowing down the needed order statistics 16 bits at a time.

use crate::sort::SortSlice;
use std::cmp::Ordering;

use crate::io::ReadAt;

use super::error::Result;
use super::numeric::seconds;
use super::progress::{Progress, CALL_BYTES};
use super::sparkline::{Columns, Sparkline};
use crate::schema::read::events::SUMMARY_BLOCK;
use crate::schema::{EventReader, Span};
use crate::schema::{RankCalls, Region};

/// Regions with at most this many calls on the selected ranks are sorted in memory
/// (32 MiB of durations).
pub const IN_MEMORY_CALLS: u64 = 1 << 22;

/// The percentiles of the region table's columns.
pub const QUANTILES: [f64; 3] = [50.0, 95.0, 99.0];

/// p50, p95 and p99 of a region's calls, in seconds; `None` without calls.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Percentiles {
    pub p50: Option<f64>,
    pub p95: Option<f64>,
    pub p99: Option<f64>,
}

/// The rows of `region` on `ranks` (all when `None`), as the region table pools them.
pub fn selected_rows<'r>(region: &'r Region, ranks: Option<&[u32]>) -> Vec<&'r RankCalls> {
    match ranks {
        None => region.ranks.iter().collect(),
        Some(list) => list.iter().filter_map(|&r| region.rank(r)).collect(),
    }
}

/// The calls [`region_percentiles`] will read: the number of events in the selected rows.
pub fn calls_to_read(region: &Region, ranks: Option<&[u32]>) -> u64 {
    selected_rows(region, ranks)
        .iter()
        .map(|r| r.span.map_or(0, |s| s.count))
        .sum()
}

/// The percentiles of `region`'s calls on `ranks` (all when `None`). Rows read by
/// [`load::read_index`](super::load::read_index) are read through `reader` (which
/// may be `None` only when no row points at events); rows with loaded calls are used as
/// they are.
pub fn region_percentiles<R: ReadAt>(
    reader: Option<&EventReader<'_, R>>,
    region: &Region,
    ranks: Option<&[u32]>,
) -> Result<Percentiles> {
    percentiles_in(
        reader,
        region,
        ranks,
        (IN_MEMORY_CALLS, SUMMARY_BLOCK),
        None,
        None,
    )
}

/// [`region_percentiles`], counting the bytes of calls read into `progress` (all of
/// [`percentiles_to_read`] once done) and stopping with
/// [`Error::Cancelled`](super::Error::Cancelled) within a block of its cancel.
pub fn region_percentiles_with<R: ReadAt>(
    reader: Option<&EventReader<'_, R>>,
    region: &Region,
    ranks: Option<&[u32]>,
    progress: &Progress,
) -> Result<Percentiles> {
    let limits = (IN_MEMORY_CALLS, SUMMARY_BLOCK);
    percentiles_in(reader, region, ranks, limits, Some(progress), None)
}

/// The bytes of calls ([`CALL_BYTES`] a call) [`region_percentiles`] reads: each call once,
/// or four times for a region of more than [`IN_MEMORY_CALLS`] calls.
pub fn percentiles_to_read(region: &Region, ranks: Option<&[u32]>) -> u64 {
    let n: u64 = (selected_rows(region, ranks).iter())
        .map(|r| r.span.map_or(r.starts.len() as u64, |s| s.count))
        .sum();
    let passes = if n <= IN_MEMORY_CALLS { 1 } else { 4 };
    n.saturating_mul(CALL_BYTES).saturating_mul(passes)
}

/// The calls of a region's selected rows, streamed a block at a time: loaded rows as they
/// are, the others read through the event columns. Percentiles and sparklines
/// ([`super::sparkline`]) read a region through it, together in one pass when the page asks
/// for both.
pub(crate) struct CallBlocks<'a, 'f, R: ReadAt> {
    reader: Option<&'a EventReader<'f, R>>,
    rows: Vec<&'a RankCalls>,
    block: u64,
    progress: Option<&'a Progress>,
}

impl<'a, 'f, R: ReadAt> CallBlocks<'a, 'f, R> {
    /// The calls of `region` on `ranks` (all when `None`), `block` at a time, their bytes
    /// counted into `progress` and stopped within a block of its cancel.
    pub(crate) fn new(
        reader: Option<&'a EventReader<'f, R>>,
        region: &'a Region,
        ranks: Option<&[u32]>,
        block: u64,
        progress: Option<&'a Progress>,
    ) -> Self {
        CallBlocks {
            reader,
            rows: selected_rows(region, ranks),
            block: block.max(1),
            progress,
        }
    }

    fn count(&self) -> u64 {
        self.rows
            .iter()
            .map(|r| r.span.map_or(r.starts.len() as u64, |s| s.count))
            .sum()
    }

    /// Calls `f` with the starts and ends (ns) of every call, a block at a time.
    pub(crate) fn each_block(&self, mut f: impl FnMut(&[i64], &[i64])) -> Result<()> {
        let step = |n: u64| match self.progress {
            Some(p) => {
                p.advance(n.saturating_mul(CALL_BYTES));
                p.check()
            }
            None => Ok(()),
        };
        let (mut starts, mut ends) = (Vec::new(), Vec::new());
        for row in &self.rows {
            let Some(span) = row.span else {
                f(&row.starts, &row.ends);
                step(row.starts.len() as u64)?;
                continue;
            };
            let Some(reader) = self.reader else {
                if span.count == 0 {
                    continue;
                }
                return Err(super::Error::Corrupt(
                    "the index points at events but the file has no /events".into(),
                ));
            };
            // Blocks in order, each one's start deltas running on from the last start
            // before it, so that starts are absolute as well as durations right.
            let (mut done, mut base) = (0, 0);
            while done < span.count {
                let n = (span.count - done).min(self.block);
                starts.clear();
                ends.clear();
                let block = Span {
                    offset: span.offset + done,
                    count: n,
                };
                reader.append_calls_after(block, base, &mut starts, &mut ends)?;
                f(&starts, &ends);
                base = starts.last().copied().unwrap_or(base);
                done += n;
                step(n)?;
            }
        }
        Ok(())
    }

    /// Calls `f` with the durations (ns) of every call, a block at a time.
    fn each_duration_block(&self, mut f: impl FnMut(&[i64])) -> Result<()> {
        let mut d = Vec::new();
        self.each_block(|starts, ends| {
            d.clear();
            d.extend(starts.iter().zip(ends).map(|(s, e)| e.wrapping_sub(*s)));
            f(&d);
        })
    }
}

/// The percentiles of `region`'s calls on `ranks`, and, when `columns` is given, their
/// sparkline summed into it from the same read (a pass of its own only for a region of more
/// than `in_memory` calls, whose percentiles take several).
fn percentiles_in<R: ReadAt>(
    reader: Option<&EventReader<'_, R>>,
    region: &Region,
    ranks: Option<&[u32]>,
    (in_memory, block): (u64, u64),
    progress: Option<&Progress>,
    mut columns: Option<&mut Columns>,
) -> Result<Percentiles> {
    if let Some(p) = progress {
        p.check()?;
    }
    let source = CallBlocks::new(reader, region, ranks, block, progress);
    let n = source.count();
    let Some(last) = n.checked_sub(1) else {
        return Ok(Percentiles::default());
    };
    if n <= in_memory {
        let mut all: Vec<i64> = Vec::new();
        source.each_block(|starts, ends| {
            all.extend(starts.iter().zip(ends).map(|(s, e)| e.wrapping_sub(*s)));
            if let Some(c) = columns.as_deref_mut() {
                c.add(starts, ends);
            }
        })?;
        return Ok(of_durations(&all));
    }
    if let Some(c) = columns {
        source.each_block(|starts, ends| c.add(starts, ends))?;
    }
    let (positions, wanted) = order_positions(last);
    let values = select(&source, &wanted)?;
    let at = |k: u64| seconds(values[wanted.binary_search(&k).unwrap_or(0)]);
    Ok(interpolated(last, &positions, at))
}

/// [`region_percentiles`] and the region's [`Sparkline`] over `window` in `columns`
/// columns, from one read of its calls: what the page's percentile pass asks of an index
/// row.
pub fn region_percentiles_and_sparkline<R: ReadAt>(
    reader: Option<&EventReader<'_, R>>,
    region: &Region,
    ranks: Option<&[u32]>,
    window: (i64, i64),
    columns: usize,
) -> Result<(Percentiles, Sparkline)> {
    let mut line = Columns::new(window, columns);
    let limits = (IN_MEMORY_CALLS, SUMMARY_BLOCK);
    let p = percentiles_in(reader, region, ranks, limits, None, Some(&mut line))?;
    Ok((p, line.finish()))
}

/// Per quantile of [`QUANTILES`], the sorted positions numpy's linear method reads (the
/// floor of the virtual index and the next one), and every position needed, ascending.
fn order_positions(last: u64) -> (Vec<(u64, u64)>, Vec<u64>) {
    let positions: Vec<(u64, u64)> = QUANTILES
        .iter()
        .map(|q| {
            let below = (last as f64 * (q / 100.0)).floor().max(0.0) as u64;
            let lo = below.min(last);
            (lo, (lo + 1).min(last))
        })
        .collect();
    let mut wanted: Vec<u64> = positions.iter().flat_map(|&(a, b)| [a, b]).collect();
    wanted.sort_ord_unstable();
    wanted.dedup();
    (positions, wanted)
}

/// The percentiles from the order statistic at each position (`at`).
fn interpolated(last: u64, positions: &[(u64, u64)], at: impl Fn(u64) -> f64) -> Percentiles {
    let p = |i: usize| {
        let (lo, hi) = positions[i];
        Some(interpolate(QUANTILES[i], last, at(lo), at(hi)))
    };
    Percentiles {
        p50: p(0),
        p95: p(1),
        p99: p(2),
    }
}

/// p50, p95 and p99 of `values` as `np.percentile` gives them over `seconds` of each value,
/// by selection rather than sorting: each needed order statistic is placed with
/// `select_nth_unstable_by` on the part of the slice right of the previous one, so the
/// work is a few linear passes and no memory beyond the slice (which is reordered).
/// `seconds` must be non-decreasing under `cmp`, so the k-th smallest value gives the k-th
/// smallest number of seconds.
pub fn by_selection<T: Copy>(
    values: &mut [T],
    cmp: impl Fn(&T, &T) -> Ordering + Copy,
    seconds: impl Fn(T) -> f64,
) -> Percentiles {
    let Some(last) = (values.len() as u64).checked_sub(1) else {
        return Percentiles::default();
    };
    let (positions, wanted) = order_positions(last);
    let mut found: Vec<T> = Vec::with_capacity(wanted.len());
    let mut from = 0usize;
    for &k in &wanted {
        let k = k as usize;
        let rest = &mut values[from..];
        let (_, &mut v, _) = rest.select_nth_unstable_by(k - from, cmp);
        found.push(v);
        from = k + 1;
    }
    let at = |k: u64| seconds(found[wanted.binary_search(&k).unwrap_or(0)]);
    interpolated(last, &positions, at)
}

/// Buckets of the histogram [`of_durations`] counts the values in.
const HISTOGRAM_BITS: u32 = 16;

/// p50, p95 and p99 of durations in ns as `np.percentile` gives them over [`seconds`] of
/// each, without reordering or copying them: one pass finds the range, a second counts the
/// values in 65,536 equal buckets of it, which names the bucket and the rank within it of
/// every order statistic numpy's linear method reads, and a third gathers those few
/// buckets' values to select them there. Where the range is under 65,536 ns every bucket
/// holds one value and the third pass is skipped.
pub fn of_durations<T: Copy + Into<i64>>(values: &[T]) -> Percentiles {
    let (mut min, mut max) = (i64::MAX, i64::MIN);
    for &v in values {
        let v: i64 = v.into();
        min = min.min(v);
        max = max.max(v);
    }
    of_durations_within(values, min, max)
}

/// [`of_durations`] for a caller that knows the values' smallest and largest, one pass
/// fewer.
pub(crate) fn of_durations_within<T: Copy + Into<i64>>(
    values: &[T],
    min: i64,
    max: i64,
) -> Percentiles {
    let mut histogram = Histogram::new(min, max, values.len() as u64);
    histogram.count(values);
    let mut picking = histogram.pick();
    picking.gather(values);
    picking.percentiles()
}

/// The counting pass of [`of_durations`], which may take the values a piece at a time (in
/// any order, each value once), so a caller can count them alongside another pass.
pub(crate) struct Histogram {
    min: i64,
    shift: u32,
    /// Values to count in all.
    len: u64,
    /// `counts[b * LANES + lane]`: the values of bucket `b` counted in copy `lane`.
    /// Consecutive values often fall in one bucket, so each of `LANES` values in a row is
    /// counted in a copy of its own (bucket `b`'s copies share a cache line), and no
    /// increment waits for the one before. Counted in 32 bits where no count can pass them
    /// (half the memory to hit at random), else in 64.
    counts: Counts,
}

enum Counts {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
}

/// Copies of each bucket's count ([`Histogram::counts`]).
const LANES: usize = 4;

impl Histogram {
    /// Buckets over `min..=max` for `len` values.
    pub(crate) fn new(min: i64, max: i64, len: u64) -> Self {
        let range = max.abs_diff(min);
        let shift = (u64::BITS - range.leading_zeros()).saturating_sub(HISTOGRAM_BITS);
        let slots = ((range >> shift) as usize + 1) * LANES;
        let counts = match u32::try_from(len) {
            Ok(_) => Counts::Narrow(vec![0; slots]),
            Err(_) => Counts::Wide(vec![0; slots]),
        };
        Histogram {
            min,
            shift,
            len,
            counts,
        }
    }

    /// The bucket of `v`: every value is at least `min`, so the wrapped difference is the
    /// distance from it.
    #[inline(always)]
    fn bucket(&self, v: i64) -> usize {
        ((v.wrapping_sub(self.min) as u64) >> self.shift) as usize
    }

    /// Counts `values`.
    pub(crate) fn count<T: Copy + Into<i64>>(&mut self, values: &[T]) {
        fn count_in<N: Copy + std::ops::AddAssign + From<u8>, T: Copy + Into<i64>>(
            counts: &mut [N],
            values: &[T],
            bucket: impl Fn(i64) -> usize,
        ) {
            let rows = values.chunks_exact(LANES);
            let rest = rows.remainder();
            for row in rows {
                for (lane, &v) in row.iter().enumerate() {
                    if let Some(n) = counts.get_mut(bucket(v.into()) * LANES + lane) {
                        *n += N::from(1);
                    }
                }
            }
            for &v in rest {
                if let Some(n) = counts.get_mut(bucket(v.into()) * LANES) {
                    *n += N::from(1);
                }
            }
        }
        let (min, shift) = (self.min, self.shift);
        let bucket = move |v: i64| ((v.wrapping_sub(min) as u64) >> shift) as usize;
        match &mut self.counts {
            Counts::Narrow(counts) => count_in(counts, values, bucket),
            Counts::Wide(counts) => count_in(counts, values, bucket),
        }
    }

    /// Once every value was counted: where numpy's order statistics lie.
    pub(crate) fn pick(self) -> Picking {
        let counts: Vec<u64> = match &self.counts {
            Counts::Narrow(c) => c
                .chunks_exact(LANES)
                .map(|c| c.iter().map(|&n| u64::from(n)).sum())
                .collect(),
            Counts::Wide(c) => c.chunks_exact(LANES).map(|c| c.iter().sum()).collect(),
        };
        let Some(last) = self.len.checked_sub(1) else {
            return Picking {
                histogram: self,
                last: None,
                positions: Vec::new(),
                wanted: Vec::new(),
                places: Vec::new(),
                buckets: Vec::new(),
                bits: Vec::new(),
                gathered: Vec::new(),
            };
        };
        let (positions, wanted) = order_positions(last);
        // Per wanted position: its bucket and its rank among the bucket's values.
        let mut places: Vec<(usize, u64)> = Vec::with_capacity(wanted.len());
        let (mut b, mut below) = (0usize, 0u64);
        for &k in &wanted {
            while b + 1 < counts.len() && below + counts[b] <= k {
                below += counts[b];
                b += 1;
            }
            places.push((b, k.saturating_sub(below)));
        }
        let mut buckets: Vec<usize> = places.iter().map(|p| p.0).collect();
        buckets.dedup();
        // Where every bucket holds one value, the bucket is the value: nothing to gather.
        let gathering = self.shift != 0;
        let gathered = match gathering {
            true => buckets
                .iter()
                .map(|&b| Vec::with_capacity(counts.get(b).map_or(0, |&n| n as usize)))
                .collect(),
            false => Vec::new(),
        };
        // A bit per bucket, set where wanted: 8 KiB, which stays in the L1 cache.
        let mut bits = vec![
            0u64;
            if gathering {
                counts.len().div_ceil(64)
            } else {
                0
            }
        ];
        for &b in &buckets {
            if let Some(word) = bits.get_mut(b / 64) {
                *word |= 1 << (b % 64);
            }
        }
        Picking {
            histogram: self,
            last: Some(last),
            positions,
            wanted,
            places,
            buckets,
            bits,
            gathered,
        }
    }
}

/// The gathering pass of [`of_durations`]: the values of the buckets that hold an order
/// statistic, taken a piece at a time like [`Histogram::count`]'s.
pub(crate) struct Picking {
    histogram: Histogram,
    last: Option<u64>,
    positions: Vec<(u64, u64)>,
    wanted: Vec<u64>,
    /// Per wanted position: its bucket and its rank there.
    places: Vec<(usize, u64)>,
    /// The buckets of `places`, ascending, each once; `gathered` their values.
    buckets: Vec<usize>,
    bits: Vec<u64>,
    gathered: Vec<Vec<i64>>,
}

impl Picking {
    /// Gathers the values of `values` in wanted buckets (nothing where each bucket is one
    /// value).
    pub(crate) fn gather<T: Copy + Into<i64>>(&mut self, values: &[T]) {
        if self.bits.is_empty() {
            return;
        }
        for &v in values {
            let v: i64 = v.into();
            let b = self.histogram.bucket(v);
            if self
                .bits
                .get(b / 64)
                .is_some_and(|w| (w >> (b % 64)) & 1 != 0)
            {
                if let Ok(i) = self.buckets.binary_search(&b) {
                    self.gathered[i].push(v);
                }
            }
        }
    }

    /// Once every value was gathered: p50, p95 and p99.
    pub(crate) fn percentiles(mut self) -> Percentiles {
        let Some(last) = self.last else {
            return Percentiles::default();
        };
        let min = self.histogram.min;
        let found: Vec<i64> = if self.bits.is_empty() {
            self.places.iter().map(|&(b, _)| min + b as i64).collect()
        } else {
            let (buckets, gathered) = (&self.buckets, &mut self.gathered);
            self.places
                .iter()
                .map(|&(b, r)| {
                    let i = buckets.binary_search(&b).unwrap_or(0);
                    match gathered.get_mut(i) {
                        Some(g) if (r as usize) < g.len() => *g.select_nth_unstable(r as usize).1,
                        _ => min,
                    }
                })
                .collect()
        };
        let wanted = &self.wanted;
        let at = |k: u64| seconds(found[wanted.binary_search(&k).unwrap_or(0)]);
        interpolated(last, &self.positions, at)
    }
}

/// `np.percentile`'s linear interpolation between the order statistics `a` (at the floor
/// of the virtual index) and `b` (the next one): the arithmetic of
/// [`percentile_sorted`](super::numeric::percentile_sorted) step for step, for callers that hold only those two.
fn interpolate(q: f64, last: u64, a: f64, b: f64) -> f64 {
    let virtual_index = last as f64 * (q / 100.0);
    let gamma = virtual_index - virtual_index.floor();
    let diff = b - a;
    if gamma >= 0.5 {
        b - diff * (1.0 - gamma)
    } else {
        a + diff * gamma
    }
}

/// An order-preserving map of durations to unsigned keys.
fn key(d: i64) -> u64 {
    (d as u64) ^ (1 << 63)
}

/// The durations at sorted positions `wanted` (ascending, unique), by radix selection:
/// each pass reads every duration once and fixes the next 16 bits of every wanted key.
fn select<R: ReadAt>(source: &CallBlocks<'_, '_, R>, wanted: &[u64]) -> Result<Vec<i64>> {
    // Per wanted position: the key prefix fixed so far, and its rank among the keys with
    // that prefix.
    let mut prefix = vec![0u64; wanted.len()];
    let mut rank = wanted.to_vec();
    for pass in 0..4u32 {
        let shift = 48 - 16 * pass;
        let high = |k: u64| if pass == 0 { 0 } else { k >> (shift + 16) };
        // One histogram per distinct prefix.
        let mut prefixes: Vec<u64> = prefix.clone();
        prefixes.sort_ord_unstable();
        prefixes.dedup();
        let mut histograms = vec![vec![0u64; 1 << 16]; prefixes.len()];
        source.each_duration_block(|block| {
            for &d in block {
                let k = key(d);
                if let Ok(i) = prefixes.binary_search(&high(k)) {
                    histograms[i][((k >> shift) & 0xffff) as usize] += 1;
                }
            }
        })?;
        for (p, r) in prefix.iter_mut().zip(rank.iter_mut()) {
            let i = prefixes.binary_search(p).unwrap_or(0);
            let mut digit = 0usize;
            for (bucket, &count) in histograms[i].iter().enumerate() {
                if *r < count {
                    digit = bucket;
                    break;
                }
                *r -= count;
            }
            *p = (*p << 16) | digit as u64;
        }
    }
    Ok(prefix.into_iter().map(|k| (k ^ (1 << 63)) as i64).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::load;
    use crate::analysis::numeric;
    use crate::hdf5lite::reader::File;

    fn region_of(durations: &[i64]) -> Region {
        let mut start = 0;
        let (mut starts, mut ends) = (Vec::new(), Vec::new());
        for &d in durations {
            starts.push(start);
            ends.push(start + d);
            start += 1000;
        }
        Region {
            name: "r".into(),
            ranks: vec![RankCalls {
                calls: crate::schema::Calls {
                    starts,
                    ends,
                    ..Default::default()
                }
                .into(),
                rank: 0,
                ..RankCalls::default()
            }],
        }
    }

    fn numpy(durations: &[i64]) -> Percentiles {
        let s: Vec<f64> = durations.iter().map(|&d| seconds(d)).collect();
        Percentiles {
            p50: numeric::percentile(&s, 50.0),
            p95: numeric::percentile(&s, 95.0),
            p99: numeric::percentile(&s, 99.0),
        }
    }

    proptest::proptest! {
        /// Selection gives the bits sorting gives, for any floats (signed zeros, NaN,
        /// infinities, duplicates) and for durations in ns.
        #[test]
        fn selection_equals_sorting(
            values in proptest::collection::vec(proptest::num::f64::ANY, 0..300),
            durations in proptest::collection::vec(-5i64..5_000_000, 0..300),
        ) {
            let mut sorted = values.clone();
            sorted.sort_stable_by(f64::total_cmp);
            let bits = |p: Percentiles| [p.p50, p.p95, p.p99].map(|v| v.map(f64::to_bits));
            let oracle = |sorted: &[f64]| Percentiles {
                p50: numeric::percentile_sorted(sorted, 50.0),
                p95: numeric::percentile_sorted(sorted, 95.0),
                p99: numeric::percentile_sorted(sorted, 99.0),
            };
            let mut shuffled = values.clone();
            let got = by_selection(&mut shuffled, f64::total_cmp, |v| v);
            proptest::prop_assert_eq!(bits(got), bits(oracle(&sorted)));
            let mut ns = durations.clone();
            let got = by_selection(&mut ns, i64::cmp, seconds);
            let mut secs: Vec<f64> = durations.iter().map(|&d| seconds(d)).collect();
            secs.sort_stable_by(f64::total_cmp);
            proptest::prop_assert_eq!(bits(got), bits(oracle(&secs)));
        }
    }

    proptest::proptest! {
        /// The histogram's selection gives the bits numpy's sort-then-interpolate gives:
        /// ties, negatives and zeros, ranges under and over the histogram's width, one
        /// bucket crowded by an outlier, every size from 1.
        #[test]
        fn histogram_selection_equals_sorting(
            narrow in proptest::collection::vec(-3i64..40, 1..400),
            wide in proptest::collection::vec(-1_000_000i64..5_000_000_000, 1..400),
            extreme in proptest::collection::vec(proptest::num::i64::ANY, 1..50),
            outlier in 0i64..i64::MAX,
        ) {
            let mut crowded = narrow.clone();
            crowded.push(outlier);
            for durations in [narrow, wide, extreme, crowded] {
                proptest::prop_assert_eq!(of_durations(&durations), numpy(&durations));
                // Counted and gathered in pieces, as the sums visit them.
                let (min, max) = (durations.iter().min().unwrap(), durations.iter().max().unwrap());
                let mut histogram = Histogram::new(*min, *max, durations.len() as u64);
                for piece in durations.chunks(7) {
                    histogram.count(piece);
                }
                let mut picking = histogram.pick();
                for piece in durations.chunks(5) {
                    picking.gather(piece);
                }
                proptest::prop_assert_eq!(picking.percentiles(), numpy(&durations));
                let narrowed: Vec<u32> = durations.iter().map(|&d| d.unsigned_abs() as u32).collect();
                let widened: Vec<i64> = narrowed.iter().map(|&d| i64::from(d)).collect();
                proptest::prop_assert_eq!(of_durations(&narrowed), numpy(&widened));
            }
        }
    }

    #[test]
    fn histogram_selection_of_nothing_and_of_one() {
        assert_eq!(of_durations::<i64>(&[]), Percentiles::default());
        for one in [0, -7, i64::MAX, i64::MIN] {
            assert_eq!(of_durations(&[one]), numpy(&[one]));
        }
    }

    #[test]
    fn radix_selection_equals_sorting() {
        let mut x: u64 = 12345;
        let mut durations: Vec<i64> = (0..5000)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((x >> 33) % 1_000_000_000) as i64 - 1000
            })
            .collect();
        durations.extend([0, 0, 7, 7, 7, i64::MAX / 4, -5]);
        let region = region_of(&durations);
        let want = numpy(&durations);
        let none: Option<&EventReader<'_, &[u8]>> = None;
        for in_memory in [0, u64::MAX] {
            let got = percentiles_in(none, &region, None, (in_memory, 64), None, None).unwrap();
            assert_eq!(got, want, "in_memory {in_memory}");
        }
        assert_eq!(
            percentiles_in(none, &region_of(&[]), None, (0, 64), None, None).unwrap(),
            Percentiles::default()
        );
        assert_eq!(
            percentiles_in(none, &region_of(&[42]), None, (0, 64), None, None).unwrap(),
            numpy(&[42])
        );
    }

    #[test]
    fn streamed_percentiles_equal_the_whole_read() {
        // Schema 3 gzip chunks of start deltas: blocks of 1000 cross chunk boundaries.
        let bytes = include_bytes!("../../tests/corpus/golden/chunked_big.h5");
        let file = File::open(&bytes[..]).unwrap();
        let index = load::read_index(&file).unwrap();
        let whole = load::read_full(&file).unwrap();
        let reader = EventReader::open(&file).unwrap();
        for region in &index.regions {
            let loaded = whole.region(&region.name).unwrap();
            let durations: Vec<i64> = loaded.ranks.iter().flat_map(|r| r.durations_ns()).collect();
            // With its sparkline from the same read, in memory or over several passes, the
            // percentiles are the same and so is the sparkline read on its own.
            let window = crate::analysis::sparkline::window(&index, None).unwrap();
            let alone = crate::analysis::sparkline::region_sparkline::<&[u8]>(
                None, loaded, None, window, 40, None,
            )
            .unwrap();
            for in_memory in [0, u64::MAX] {
                let limits = (in_memory, 1000);
                let got = percentiles_in(reader.as_ref(), region, None, limits, None, None);
                assert_eq!(
                    got.unwrap(),
                    numpy(&durations),
                    "{} {in_memory}",
                    region.name
                );
                let mut line = Columns::new(window, 40);
                let got =
                    percentiles_in(reader.as_ref(), region, None, limits, None, Some(&mut line));
                assert_eq!(
                    got.unwrap(),
                    numpy(&durations),
                    "{} {in_memory}",
                    region.name
                );
                assert_eq!(line.finish(), alone, "{} {in_memory}", region.name);
            }
            let (p, line) =
                region_percentiles_and_sparkline(reader.as_ref(), region, None, window, 40)
                    .unwrap();
            assert_eq!((p, line), (numpy(&durations), alone));
            assert_eq!(calls_to_read(region, None), durations.len() as u64);
            let progress = Progress::default();
            let got = region_percentiles_with(reader.as_ref(), region, None, &progress);
            assert_eq!(got.unwrap(), numpy(&durations));
            assert_eq!(progress.done(), percentiles_to_read(region, None));
            progress.cancel();
            let got = region_percentiles_with(reader.as_ref(), region, None, &progress);
            assert!(matches!(got, Err(crate::analysis::Error::Cancelled)));
        }
    }
}
