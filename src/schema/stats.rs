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
const CAST_BUFFER: usize = 8192;

impl Summary {
    /// Statistics of the calls `(starts[i], ends[i])`; all zero when there are none.
    /// `starts` and `ends` must have the same length.
    pub fn of(starts: &[i64], ends: &[i64]) -> Summary {
        debug_assert_eq!(starts.len(), ends.len());
        let n = starts.len().min(ends.len());
        if n == 0 {
            return Summary::default();
        }
        let (starts, ends) = (&starts[..n], &ends[..n]);
        let durations: Vec<i64> = starts
            .iter()
            .zip(ends)
            .map(|(s, e)| e.wrapping_sub(*s))
            .collect();
        let (mean, m2) = mean_and_m2(&durations);
        Summary {
            total: durations.iter().fold(0i64, |acc, d| acc.wrapping_add(*d)),
            minimum: durations.iter().copied().min().unwrap_or(0),
            maximum: durations.iter().copied().max().unwrap_or(0),
            first: durations[0],
            last: durations[n - 1],
            start_minimum: starts.iter().copied().min().unwrap_or(0),
            end_maximum: ends.iter().copied().max().unwrap_or(0),
            gpu_count: 0,
            gpu_total: 0,
            mean,
            m2,
        }
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

/// `np.mean(d, dtype=float64)` and `np.var(d, dtype=float64) * n` for a non-empty `d`.
fn mean_and_m2(durations: &[i64]) -> (f64, f64) {
    let n = durations.len() as f64;
    let mut block = Vec::with_capacity(durations.len().min(CAST_BUFFER));
    let mut sum = 0.0;
    for chunk in durations.chunks(CAST_BUFFER) {
        block.clear();
        block.extend(chunk.iter().map(|&d| d as f64));
        sum += pairwise_sum(&block);
    }
    let mean = sum / n;
    let squares: Vec<f64> = durations
        .iter()
        .map(|&d| {
            let x = d as f64 - mean;
            x * x
        })
        .collect();
    let var = pairwise_sum(&squares) / n;
    (mean, var * n)
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
        assert_eq!(checked, 13);
    }

    #[test]
    fn negative_durations_are_kept() {
        let s = summary(&[(100, 90), (0, 5)]);
        assert_eq!((s.total, s.minimum, s.maximum), (-5, -10, 5));
    }
}
