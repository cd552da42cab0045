//! Floating-point reductions that give the same bits as the reference's numpy calls
//! (`np.sum`, `np.mean`, `np.std`, `np.percentile` with the default linear method), so
//! `sp inspect` prints the numbers the reference prints, not merely close ones.

/// numpy's pairwise float64 sum over a contiguous array (`np.sum`).
pub fn sum(x: &[f64]) -> f64 {
    let n = x.len();
    if n < 8 {
        let mut r = -0.0;
        for v in x {
            r += v;
        }
        return r;
    }
    if n <= 128 {
        let mut a = [0.0f64; 8];
        a.copy_from_slice(&x[..8]);
        let whole = n - n % 8;
        let mut i = 8;
        while i < whole {
            for (j, slot) in a.iter_mut().enumerate() {
                *slot += x[i + j];
            }
            i += 8;
        }
        let mut r = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
        for v in &x[whole..] {
            r += v;
        }
        return r;
    }
    let mut m = n / 2;
    m -= m % 8;
    sum(&x[..m]) + sum(&x[m..])
}

/// `np.mean` of a float64 array; `None` when empty.
pub fn mean(x: &[f64]) -> Option<f64> {
    if x.is_empty() {
        return None;
    }
    Some(sum(x) / x.len() as f64)
}

/// `np.std` (population) of a float64 array; `None` when empty.
pub fn std(x: &[f64]) -> Option<f64> {
    let m = mean(x)?;
    let squares: Vec<f64> = x.iter().map(|v| (v - m) * (v - m)).collect();
    Some((sum(&squares) / x.len() as f64).sqrt())
}

/// `np.percentile(x, q)` with the default linear method; `None` when empty.
pub fn percentile(x: &[f64], q: f64) -> Option<f64> {
    let mut sorted = x.to_vec();
    sorted.sort_by(f64::total_cmp);
    percentile_sorted(&sorted, q)
}

/// [`percentile`] over values already sorted ascending.
pub fn percentile_sorted(sorted: &[f64], q: f64) -> Option<f64> {
    let n = sorted.len();
    let last = n.checked_sub(1)?;
    let quantile = q / 100.0;
    let virtual_index = last as f64 * quantile;
    let below = virtual_index.floor();
    let gamma = virtual_index - below;
    let lo = (below.max(0.0) as usize).min(last);
    let hi = (lo + 1).min(last);
    let (a, b) = (sorted[lo], sorted[hi]);
    let diff = b - a;
    Some(if gamma >= 0.5 {
        b - diff * (1.0 - gamma)
    } else {
        a + diff * gamma
    })
}

/// Nanoseconds as the reference's seconds (`ns / 1e9` in float64).
pub fn seconds(ns: i64) -> f64 {
    ns as f64 / 1e9
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_sums_are_sequential() {
        assert_eq!(sum(&[]), -0.0);
        assert_eq!(sum(&[0.1, 0.2, 0.3]), 0.1 + 0.2 + 0.3);
    }

    #[test]
    fn unrolled_sum_pairs_eight_accumulators() {
        let x: Vec<f64> = (1..=9).map(|i| 1.0 / i as f64).collect();
        let expect = ((x[0] + x[1]) + (x[2] + x[3])) + ((x[4] + x[5]) + (x[6] + x[7])) + x[8];
        assert_eq!(sum(&x), expect);
    }

    #[test]
    fn percentile_matches_numpy_linear() {
        // np.percentile([1, 2, 3, 4], [50, 95, 99]) == [2.5, 3.85, 3.97]
        let x = [4.0, 1.0, 3.0, 2.0];
        assert_eq!(percentile(&x, 50.0), Some(2.5));
        assert_eq!(percentile(&x, 95.0), Some(3.8499999999999996));
        assert_eq!(percentile(&x, 99.0), Some(3.9699999999999998));
        assert_eq!(percentile(&[], 50.0), None);
    }

    #[test]
    fn std_is_population() {
        assert_eq!(std(&[1.0, 3.0]), Some(1.0));
        assert_eq!(mean(&[]), None);
    }
}
