//! Floating-point reductions that give the same bits as the reference's numpy calls
//! (`np.sum`, `np.mean`, `np.std`, `np.percentile` with the default linear method), so
//! `sp inspect` prints the numbers the reference prints, not merely close ones.

use crate::schema::stats::pairwise_sum;

/// `np.sum` of a float64 array: numpy's pairwise sum ([`pairwise_sum`], the one
/// implementation the writer's statistics use too) added to the reduction's identity `0.0`,
/// as numpy's reduce does, so an empty array or one of negative zeros sums to `+0.0`.
pub fn sum(x: &[f64]) -> f64 {
    0.0 + pairwise_sum(x)
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
    Some(std_about(&mut x.to_vec(), m))
}

/// [`std`] of `x` given its [`mean`] `m`, the squared deviations computed in `x` itself
/// (which is overwritten): no second copy of a large array.
pub fn std_about(x: &mut [f64], m: f64) -> f64 {
    for v in x.iter_mut() {
        *v = (*v - m) * (*v - m);
    }
    (sum(x) / x.len() as f64).sqrt()
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
        assert_eq!(sum(&[0.1, 0.2, 0.3]), 0.1 + 0.2 + 0.3);
    }

    #[test]
    fn unrolled_sum_pairs_eight_accumulators() {
        let x: Vec<f64> = (1..=9).map(|i| 1.0 / i as f64).collect();
        let expect = ((x[0] + x[1]) + (x[2] + x[3])) + ((x[4] + x[5]) + (x[6] + x[7])) + x[8];
        assert_eq!(sum(&x), expect);
    }

    /// numpy 2.4: `np.sum(np.array([]))`, `np.sum(np.full(n, -0.0))` for n = 1, 2, 9, 200
    /// are all `0.0`, not `-0.0`: the reduction starts from the identity `+0.0`.
    #[test]
    fn sums_of_nothing_and_of_negative_zeros_are_positive_zero() {
        for n in [0usize, 1, 2, 9, 200] {
            let s = sum(&vec![-0.0; n]);
            assert_eq!(s.to_bits(), 0.0f64.to_bits(), "n = {n}");
        }
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
