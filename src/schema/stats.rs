//! Per-row summary statistics (SCHEMA.md §2.6), computed to the bit as the reference does
//! with numpy: integer fields exactly, `mean` and `m2` through numpy's pairwise float sums,
//! including the 8192-element buffering of the int→float cast in the mean.

/// The `summary_statistics` compound of one (rank, region) row.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Summary {
    pub total: i64,
    pub minimum: i64,
    pub maximum: i64,
    pub first: i64,
    pub last: i64,
    pub start_minimum: i64,
    pub end_maximum: i64,
    pub gpu_count: u64,
    pub gpu_total: i64,
    pub mean: f64,
    pub m2: f64,
}

/// Size of one encoded [`Summary`] record.
pub const SUMMARY_SIZE: usize = 88;

/// Member names, in order, each 8 bytes wide at offsets 0, 8, …, 80.
pub const SUMMARY_MEMBERS: [&str; 11] = [
    "total",
    "minimum",
    "maximum",
    "first",
    "last",
    "start_minimum",
    "end_maximum",
    "gpu_count",
    "gpu_total",
    "mean",
    "m2",
];

/// Elements numpy converts per buffer when it casts int64 to float64 inside a reduction.
pub const CAST_BUFFER: usize = 8192;

impl Summary {
    /// Statistics of the calls `(starts[i], ends[i])`; all zero when there are none.
    /// `starts` and `ends` must have the same length.
    pub fn of(starts: &[i64], ends: &[i64]) -> Summary {
        debug_assert_eq!(starts.len(), ends.len());
        let n = starts.len().min(ends.len());
        let mut builder = SummaryBuilder::new();
        builder.push(&starts[..n], &ends[..n]);
        let durations = starts[..n]
            .iter()
            .zip(&ends[..n])
            .map(|(s, e)| e.wrapping_sub(*s));
        let m2 = squared_deviation_sum(n as u64, builder.mean(), durations);
        builder.finish(m2)
    }

    /// The 88-byte little-endian compound record.
    pub fn encode(&self) -> [u8; SUMMARY_SIZE] {
        let fields: [[u8; 8]; 11] = [
            self.total.to_le_bytes(),
            self.minimum.to_le_bytes(),
            self.maximum.to_le_bytes(),
            self.first.to_le_bytes(),
            self.last.to_le_bytes(),
            self.start_minimum.to_le_bytes(),
            self.end_maximum.to_le_bytes(),
            self.gpu_count.to_le_bytes(),
            self.gpu_total.to_le_bytes(),
            self.mean.to_le_bytes(),
            self.m2.to_le_bytes(),
        ];
        let mut out = [0u8; SUMMARY_SIZE];
        for (chunk, field) in out.chunks_exact_mut(8).zip(fields) {
            chunk.copy_from_slice(&field);
        }
        out
    }
}

/// Everything of a [`Summary`] but `m2`, accumulated from calls given in order and in
/// blocks of any size, so a region of any length is summarised in bounded memory. `m2` needs
/// the mean first: feed the durations again to [`squared_deviation_sum`].
#[derive(Debug, Clone)]
pub struct SummaryBuilder {
    count: u64,
    summary: Summary,
    /// Pairwise sum of each completed 8192-element cast buffer, in order.
    blocks: Vec<f64>,
    /// The current, incomplete cast buffer.
    pending: Vec<f64>,
}

impl Default for SummaryBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl SummaryBuilder {
    /// No calls yet.
    pub fn new() -> Self {
        SummaryBuilder {
            count: 0,
            summary: Summary::default(),
            blocks: Vec::new(),
            pending: Vec::new(),
        }
    }

    /// No calls yet, with `room` (emptied) for the cast buffer: a caller summarising many
    /// rows keeps one instead of faulting in a fresh 64 KiB per row;
    /// [`take_room`](Self::take_room) gives it back.
    pub fn with_room(mut room: Vec<f64>) -> Self {
        room.clear();
        SummaryBuilder {
            pending: room,
            ..Self::new()
        }
    }

    /// The cast buffer's room, emptied, once every call was pushed: its sum is kept as a
    /// block, so [`mean`](Self::mean) and [`finish`](Self::finish) give what they gave.
    pub fn take_room(&mut self) -> Vec<f64> {
        if !self.pending.is_empty() {
            self.blocks.push(pairwise_sum(&self.pending));
        }
        let mut room = std::mem::take(&mut self.pending);
        room.clear();
        room
    }

    /// Number of calls pushed so far.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Adds the next calls; `starts` and `ends` must have the same length.
    pub fn push(&mut self, starts: &[i64], ends: &[i64]) {
        debug_assert_eq!(starts.len(), ends.len());
        let n = starts.len().min(ends.len());
        let (starts, ends) = (&starts[..n], &ends[..n]);
        let (Some(&start0), Some(&end0)) = (starts.first(), ends.first()) else {
            return;
        };
        let s = &mut self.summary;
        if self.count == 0 {
            let d = end0.wrapping_sub(start0);
            s.first = d;
            s.minimum = d;
            s.maximum = d;
            s.start_minimum = start0;
            s.end_maximum = end0;
        }
        // The integer statistics in one pass over the calls.
        let (mut min, mut max, mut total) = (s.minimum, s.maximum, s.total);
        let (mut start_min, mut end_max) = (s.start_minimum, s.end_maximum);
        for (&start, &end) in starts.iter().zip(ends) {
            let d = end.wrapping_sub(start);
            min = min.min(d);
            max = max.max(d);
            total = total.wrapping_add(d);
            start_min = start_min.min(start);
            end_max = end_max.max(end);
        }
        s.minimum = min;
        s.maximum = max;
        s.total = total;
        s.start_minimum = start_min;
        s.end_maximum = end_max;
        s.last = ends[n - 1].wrapping_sub(starts[n - 1]);
        self.count += n as u64;

        // The float sum, in numpy's 8192-element cast buffers.
        let mut at = 0;
        while at < n {
            if self.pending.capacity() == 0 {
                self.pending.reserve_exact(CAST_BUFFER.min(n));
            }
            let take = (CAST_BUFFER - self.pending.len()).min(n - at);
            self.pending.extend(
                starts[at..at + take]
                    .iter()
                    .zip(&ends[at..at + take])
                    .map(|(s, e)| e.wrapping_sub(*s) as f64),
            );
            at += take;
            if self.pending.len() == CAST_BUFFER {
                self.blocks.push(pairwise_sum(&self.pending));
                self.pending.clear();
            }
        }
    }

    /// Appends the calls summarised by `later`, which followed this builder's calls. This
    /// builder must hold a whole number of 8192-call cast buffers (else the float sum would
    /// differ from numpy's), or `later` must be empty; returns whether it was appended.
    pub fn append(&mut self, later: SummaryBuilder) -> bool {
        if later.count == 0 {
            return true;
        }
        // Calls in a partial cast buffer (pending, or summed by `take_room`).
        if self.count % CAST_BUFFER as u64 != 0 {
            return false;
        }
        if self.count == 0 {
            *self = later;
            return true;
        }
        let (s, l) = (&mut self.summary, &later.summary);
        s.minimum = s.minimum.min(l.minimum);
        s.maximum = s.maximum.max(l.maximum);
        s.start_minimum = s.start_minimum.min(l.start_minimum);
        s.end_maximum = s.end_maximum.max(l.end_maximum);
        s.last = l.last;
        s.total = s.total.wrapping_add(l.total);
        self.count += later.count;
        self.blocks.extend_from_slice(&later.blocks);
        self.pending = later.pending;
        true
    }

    /// `np.mean(d, dtype=float64)` of the calls pushed so far (0.0 without calls).
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let mut sum = self.blocks.iter().fold(0.0, |acc, b| acc + b);
        if !self.pending.is_empty() {
            sum += pairwise_sum(&self.pending);
        }
        sum / self.count as f64
    }

    /// The summary, given `m2` = [`squared_deviation_sum`] over the same durations.
    pub fn finish(self, m2_sum: f64) -> Summary {
        if self.count == 0 {
            return Summary::default();
        }
        Summary {
            mean: self.mean(),
            m2: m2_from_sum(m2_sum, self.count),
            ..self.summary
        }
    }
}

/// The exact total duration of the calls `(starts[i], ends[i])` in ns, without the i64
/// wrapping of [`Summary::total`]: what a printed summary shows.
pub fn exact_total(starts: &[i64], ends: &[i64]) -> i128 {
    starts
        .iter()
        .zip(ends)
        .map(|(s, e)| i128::from(*e) - i128::from(*s))
        .sum()
}

/// `m2` from the pairwise sum of squared deviations over `count` calls: `np.var(d) * n`,
/// the division and multiplication kept for their rounding.
pub fn m2_from_sum(sum: f64, count: u64) -> f64 {
    let n = count as f64;
    sum / n * n
}

/// numpy's pairwise sum of `(d - mean)²` over the `n` durations `durations` yields, pulled
/// left to right in O(log n) memory; bit-identical to summing them all in memory.
pub fn squared_deviation_sum(n: u64, mean: f64, durations: impl Iterator<Item = i64>) -> f64 {
    let mut squares = durations.map(|d| {
        let x = d as f64 - mean;
        x * x
    });
    streaming_pairwise_sum(n, &mut squares)
}

/// [`pairwise_sum`] of the next `n` values of `values` (missing values count as 0.0),
/// following numpy's recursion but holding at most one 128-value leaf at a time.
pub fn streaming_pairwise_sum(n: u64, values: &mut impl Iterator<Item = f64>) -> f64 {
    if n <= LEAF as u64 {
        let mut leaf = [0.0f64; LEAF];
        let n = n as usize;
        for slot in &mut leaf[..n] {
            *slot = values.next().unwrap_or(0.0);
        }
        pairwise_sum(&leaf[..n])
    } else {
        let half = split(n);
        let left = streaming_pairwise_sum(half, values);
        left + streaming_pairwise_sum(n - half, values)
    }
}

/// Largest block numpy sums without splitting.
const LEAF: usize = 128;

/// Where numpy's pairwise recursion splits `n > 128` values: half, rounded down to a
/// multiple of 8.
fn split(n: u64) -> u64 {
    let half = n / 2;
    half - half % 8
}

/// The nodes of numpy's pairwise recursion over `n` values, cut where a node holds at most
/// `max_leaf` values: summing each node's range independently (in parallel, say) and
/// combining them with [`PairwisePlan::combine`] gives the bits of the whole sum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairwisePlan {
    /// Half-open index ranges of the cut nodes, left to right.
    pub ranges: Vec<(u64, u64)>,
    n: u64,
    max_leaf: u64,
}

impl PairwisePlan {
    /// The plan for `n` values with nodes of at most `max_leaf` (at least 128) values.
    pub fn new(n: u64, max_leaf: u64) -> Self {
        let max_leaf = max_leaf.max(LEAF as u64);
        let mut ranges = Vec::new();
        fn walk(lo: u64, n: u64, max_leaf: u64, out: &mut Vec<(u64, u64)>) {
            if n <= max_leaf {
                out.push((lo, lo + n));
            } else {
                let half = split(n);
                walk(lo, half, max_leaf, out);
                walk(lo + half, n - half, max_leaf, out);
            }
        }
        walk(0, n, max_leaf, &mut ranges);
        PairwisePlan {
            ranges,
            n,
            max_leaf,
        }
    }

    /// The whole sum from each range's pairwise sum, in the order of [`ranges`](Self::ranges).
    pub fn combine(&self, sums: &[f64]) -> f64 {
        fn walk(n: u64, max_leaf: u64, sums: &mut std::slice::Iter<'_, f64>) -> f64 {
            if n <= max_leaf {
                sums.next().copied().unwrap_or(0.0)
            } else {
                let half = split(n);
                let left = walk(half, max_leaf, sums);
                left + walk(n - half, max_leaf, sums)
            }
        }
        walk(self.n, self.max_leaf, &mut sums.iter())
    }
}

/// numpy's float64 pairwise summation (`pairwise_sum_DOUBLE`), bit for bit.
pub fn pairwise_sum(x: &[f64]) -> f64 {
    let n = x.len();
    if n < 8 {
        x.iter().fold(0.0, |acc, v| acc + v)
    } else if n <= 128 {
        let mut r = [0.0f64; 8];
        r.copy_from_slice(&x[..8]);
        let whole = n - n % 8;
        for block in x[8..whole].chunks_exact(8) {
            for (acc, v) in r.iter_mut().zip(block) {
                *acc += v;
            }
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for v in &x[whole..] {
            res += v;
        }
        res
    } else {
        let mut half = n / 2;
        half -= half % 8;
        pairwise_sum(&x[..half]) + pairwise_sum(&x[half..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(durations_from_zero: &[(i64, i64)]) -> Summary {
        let starts: Vec<i64> = durations_from_zero.iter().map(|c| c.0).collect();
        let ends: Vec<i64> = durations_from_zero.iter().map(|c| c.1).collect();
        Summary::of(&starts, &ends)
    }

    // SCHEMA.md §6.1, rows 1, 2 and 4 of the golden synthetic profile.
    #[test]
    fn golden_synthetic_rows() {
        let assemble = summary(&[(200, 900), (4100, 4900), (8200, 8800)]);
        assert_eq!(
            (assemble.total, assemble.minimum, assemble.maximum),
            (2100, 600, 800)
        );
        assert_eq!((assemble.first, assemble.last), (700, 600));
        assert_eq!((assemble.start_minimum, assemble.end_maximum), (200, 8800));
        assert_eq!(assemble.mean, 700.0);
        assert_eq!(assemble.m2, 20000.0);

        let solve = summary(&[(1000, 1800), (5000, 5900), (9000, 9950)]);
        assert_eq!(solve.mean.to_bits(), 883.3333333333334f64.to_bits());
        assert_eq!(solve.m2.to_bits(), 11666.666666666668f64.to_bits());

        let solve_r1 = summary(&[(1100, 1900), (1200, 1300)]);
        assert_eq!((solve_r1.first, solve_r1.last), (800, 100));
        assert_eq!((solve_r1.mean, solve_r1.m2), (450.0, 245000.0));
    }

    #[test]
    fn empty_row_is_all_zero() {
        assert_eq!(Summary::of(&[], &[]), Summary::default());
        assert_eq!(Summary::default().encode(), [0u8; 88]);
    }

    #[test]
    fn encode_places_members_at_their_offsets() {
        let s = Summary {
            total: 1,
            gpu_count: 2,
            m2: 1.5,
            ..Summary::default()
        };
        let bytes = s.encode();
        assert_eq!(bytes[0..8], 1i64.to_le_bytes());
        assert_eq!(bytes[56..64], 2u64.to_le_bytes());
        assert_eq!(bytes[80..88], 1.5f64.to_le_bytes());
    }

    #[test]
    fn pairwise_differs_from_sequential_as_numpy_does() {
        // 0.1 added 200 times: numpy 2.4's np.sum(np.full(200, 0.1)) gives 20.0, a plain
        // loop 20.000000000000014.
        let x = vec![0.1f64; 200];
        assert_eq!(pairwise_sum(&x), 20.0);
        assert_eq!(x.iter().fold(0.0, |a, b| a + b), 20.000000000000014);
    }

    /// The durations of `testdata/make_stats_cases.py`, regenerated with the same LCG.
    fn lcg_durations(seed: u64, n: usize, spread: u64) -> Vec<i64> {
        let mut state = seed;
        (0..n)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let bits = state >> 11;
                let magnitude = (bits % spread) as i64;
                if (bits >> 40) % 16 != 0 {
                    magnitude
                } else {
                    -(magnitude / 7)
                }
            })
            .collect()
    }

    /// Bit-exact agreement with the reference's `_timing_summary` on lengths around every
    /// boundary of numpy's algorithm (8, 128, the 8192-element cast buffer).
    #[test]
    fn mean_and_m2_match_numpy_bits() {
        let cases = include_str!("testdata/stats_cases.txt");
        let mut checked = 0;
        for line in cases.lines().filter(|l| !l.starts_with('#')) {
            let f: Vec<&str> = line.split_whitespace().collect();
            let (seed, n, spread) = (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
            );
            let ends = lcg_durations(seed, n, spread);
            let s = Summary::of(&vec![0; n], &ends);
            let mean = u64::from_str_radix(f[3], 16).unwrap();
            let m2 = u64::from_str_radix(f[4], 16).unwrap();
            assert_eq!(s.mean.to_bits(), mean, "mean, case {line}");
            assert_eq!(s.m2.to_bits(), m2, "m2, case {line}");
            checked += 1;
        }
        assert_eq!(checked, 15);
    }

    #[test]
    fn exact_total_does_not_wrap() {
        assert_eq!(exact_total(&[0, 10], &[5, 8]), 3);
        assert_eq!(
            exact_total(&[i64::MIN, i64::MIN], &[i64::MAX, i64::MAX]),
            2 * (i128::from(i64::MAX) - i128::from(i64::MIN))
        );
    }

    #[test]
    fn negative_durations_are_kept() {
        let s = summary(&[(100, 90), (0, 5)]);
        assert_eq!((s.total, s.minimum, s.maximum), (-5, -10, 5));
    }

    /// The streamed pieces against the in-memory sums: every length around numpy's
    /// boundaries (7/8, 128/129, 8192) and well past them.
    #[test]
    fn streaming_pairwise_equals_in_memory() {
        for n in [
            0usize, 1, 7, 8, 9, 127, 128, 129, 135, 136, 255, 256, 1000, 8191, 8192, 8193, 20_000,
            70_001,
        ] {
            let x: Vec<f64> = lcg_durations(n as u64 + 3, n, 1 << 40)
                .into_iter()
                .map(|d| d as f64 / 3.0)
                .collect();
            let want = pairwise_sum(&x);
            let got = streaming_pairwise_sum(n as u64, &mut x.iter().copied());
            assert_eq!(got.to_bits(), want.to_bits(), "n = {n}");
            for max_leaf in [0u64, 128, 129, 1000, 4096, 1 << 20] {
                let plan = PairwisePlan::new(n as u64, max_leaf);
                let sums: Vec<f64> = plan
                    .ranges
                    .iter()
                    .map(|&(lo, hi)| pairwise_sum(&x[lo as usize..hi as usize]))
                    .collect();
                assert_eq!(
                    plan.combine(&sums).to_bits(),
                    want.to_bits(),
                    "n = {n}, leaf {max_leaf}"
                );
                assert_eq!(plan.ranges.first().map(|r| r.0), Some(0));
                assert_eq!(plan.ranges.last().map(|r| r.1), Some(n as u64));
            }
        }
    }

    #[test]
    fn plan_cuts_at_numpy_split_points() {
        // 300 values: numpy splits at 144 (150 rounded down to a multiple of 8).
        assert_eq!(PairwisePlan::new(300, 200).ranges, [(0, 144), (144, 300)]);
        assert_eq!(PairwisePlan::new(100, 10).ranges, [(0, 100)]);
    }

    /// Builders fed in blocks and appended at 8192-call boundaries give `Summary::of`.
    #[test]
    fn builder_blocks_and_appends_match_whole() {
        let n = 3 * CAST_BUFFER + 77;
        let ends = lcg_durations(99, n, 1 << 30);
        let starts: Vec<i64> = (0..n as i64).map(|i| i * 3 - 500).collect();
        let ends: Vec<i64> = starts.iter().zip(&ends).map(|(s, d)| s + d).collect();
        let whole = Summary::of(&starts, &ends);

        let mut first = SummaryBuilder::new();
        for (s, e) in starts[..CAST_BUFFER]
            .chunks(1000)
            .zip(ends[..CAST_BUFFER].chunks(1000))
        {
            first.push(s, e);
        }
        let mut second = SummaryBuilder::new();
        second.push(&starts[CAST_BUFFER..], &ends[CAST_BUFFER..]);
        assert!(first.append(second));
        assert_eq!(first.count(), n as u64);
        let durations = starts.iter().zip(&ends).map(|(s, e)| e - s);
        let m2 = squared_deviation_sum(n as u64, first.mean(), durations);
        assert_eq!(first.finish(m2), whole);

        // Not at a cast-buffer boundary: refused, nothing changed.
        let mut odd = SummaryBuilder::new();
        odd.push(&starts[..5], &ends[..5]);
        let mut rest = SummaryBuilder::new();
        rest.push(&starts[5..], &ends[5..]);
        assert!(!odd.append(rest));
        assert_eq!(odd.count(), 5);
        assert!(odd.append(SummaryBuilder::new()));
    }

    /// A builder on kept room gives `Summary::of` after its room is taken back (a partial
    /// cast buffer's sum kept), and still refuses an append off a cast-buffer boundary.
    #[test]
    fn builder_on_kept_room_matches_whole() {
        let mut room = vec![1.5; 3];
        for n in [0, 5, CAST_BUFFER, 2 * CAST_BUFFER + 7] {
            let ends = lcg_durations(7 + n as u64, n, 1 << 40);
            let starts: Vec<i64> = (0..n as i64).map(|i| i * 11).collect();
            let ends: Vec<i64> = starts.iter().zip(&ends).map(|(s, d)| s + d).collect();
            let mut builder = SummaryBuilder::with_room(std::mem::take(&mut room));
            builder.push(&starts, &ends);
            room = builder.take_room();
            assert!(room.is_empty());
            let durations = starts.iter().zip(&ends).map(|(s, e)| e - s);
            let m2 = squared_deviation_sum(n as u64, builder.mean(), durations);
            if n % CAST_BUFFER != 0 {
                let mut later = SummaryBuilder::new();
                later.push(&starts[..1], &ends[..1]);
                assert!(!builder.clone().append(later));
            }
            assert_eq!(builder.finish(m2), Summary::of(&starts, &ends), "{n}");
        }
        assert!(room.capacity() >= CAST_BUFFER);
    }

    proptest::proptest! {
        #[test]
        fn streaming_sum_is_bit_identical(values in proptest::collection::vec(-1e12f64..1e12, 0..20_000)) {
            let want = pairwise_sum(&values);
            let got = streaming_pairwise_sum(values.len() as u64, &mut values.iter().copied());
            proptest::prop_assert_eq!(got.to_bits(), want.to_bits());
        }
    }
}
