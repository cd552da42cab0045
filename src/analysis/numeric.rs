//! Floating-point reductions that give the same bits as the reference's numpy calls
//! (`np.sum`, `np.mean`, `np.std`, `np.percentile` with the default linear method), so
//! `sp inspect` prints the numbers the reference prints, not merely close ones.

use crate::schema::stats::pairwise_sum;
use crate::sort::SortSlice;

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
    Some(std_of(x, m, |v| v))
}

/// [`sum`] of `f` of every value of `x`, each converted as the pairwise sum reaches it:
/// the bits [`sum`] gives over the converted array, without making it.
pub fn sum_of<T: Copy + Default>(x: &[T], f: impl Fn(T) -> f64 + Copy) -> f64 {
    sum_visiting(x, f, &mut |_| {})
}

/// [`sum_of`], handing each piece of at most 128 values to `visit` once summed (pieces in
/// order, every value in one): another pass over the values rides along while each piece
/// is in cache.
pub fn sum_visiting<T: Copy + Default>(
    x: &[T],
    f: impl Fn(T) -> f64 + Copy,
    visit: &mut impl FnMut(&[T]),
) -> f64 {
    sum_visiting_parts(&[x], f, visit)
}

/// [`sum_visiting`] over the values of `parts` laid end to end, without joining them: the
/// bits of the sum over the joined values, the same pieces visited.
pub fn sum_visiting_parts<T: Copy + Default>(
    parts: &[&[T]],
    f: impl Fn(T) -> f64 + Copy,
    visit: &mut impl FnMut(&[T]),
) -> f64 {
    let n = parts.iter().map(|p| p.len()).sum();
    0.0 + pairwise_sum_of(&mut Leaves::new(parts), 0, n, f, visit)
}

/// [`std()`] of `f` of every value of `x`, given their [`mean`] `m` (`np.std`: the square root
/// of the mean of the squared deviations), without an array of converted values or of
/// squared deviations.
pub fn std_of<T: Copy + Default>(x: &[T], m: f64, f: impl Fn(T) -> f64 + Copy) -> f64 {
    std_visiting_parts(&[x], m, f, &mut |_| {})
}

/// [`std_of`] over the values of `parts` laid end to end, visiting them as
/// [`sum_visiting_parts`] does.
pub fn std_visiting_parts<T: Copy + Default>(
    parts: &[&[T]],
    m: f64,
    f: impl Fn(T) -> f64 + Copy,
    visit: &mut impl FnMut(&[T]),
) -> f64 {
    let squared = |v: T| {
        let d = f(v) - m;
        d * d
    };
    let n: usize = parts.iter().map(|p| p.len()).sum();
    (sum_visiting_parts(parts, squared, visit) / n as f64).sqrt()
}

/// The leaves of a pairwise sum over values laid end to end in several slices, asked for
/// in order: a leaf inside one slice is that slice's piece; one across slices is copied
/// into a room of [`LEAF`] values.
struct Leaves<'a, T> {
    parts: &'a [&'a [T]],
    /// The slice the last leaf started in, and the position of its first value.
    part: usize,
    part_start: usize,
    room: [T; LEAF],
}

/// The most values a leaf of numpy's pairwise sum holds.
const LEAF: usize = 128;

impl<'a, T: Copy + Default> Leaves<'a, T> {
    fn new(parts: &'a [&'a [T]]) -> Self {
        Leaves {
            parts,
            part: 0,
            part_start: 0,
            room: [T::default(); LEAF],
        }
    }

    /// The `n` values (at most [`LEAF`]) from position `at`, which is past the last leaf's.
    fn leaf(&mut self, at: usize, n: usize) -> &[T] {
        while let Some(part) = self.parts.get(self.part) {
            if at < self.part_start + part.len() {
                break;
            }
            self.part_start += part.len();
            self.part += 1;
        }
        let Some(part) = self.parts.get(self.part) else {
            return &[];
        };
        let offset = at - self.part_start;
        if let Some(inside) = part.get(offset..offset + n) {
            return inside;
        }
        let (mut filled, mut offset) = (0, offset);
        for part in &self.parts[self.part..] {
            if filled == n.min(LEAF) {
                break;
            }
            let rest = part.get(offset..).unwrap_or_default();
            let take = rest.len().min(n.min(LEAF) - filled);
            self.room[filled..filled + take].copy_from_slice(&rest[..take]);
            filled += take;
            offset = 0;
        }
        &self.room[..filled]
    }
}

/// numpy's sum of a leaf (at most [`LEAF`] values): in order below eight values, else in
/// eight accumulators paired at the end.
fn leaf_sum<T: Copy>(x: &[T], f: impl Fn(T) -> f64 + Copy) -> f64 {
    let n = x.len();
    if n < 8 {
        return x.iter().fold(0.0, |acc, &v| acc + f(v));
    }
    // Eight values converted at a time, so the compiler pairs their divisions.
    let eight = |block: &[T]| -> [f64; 8] { std::array::from_fn(|j| f(block[j])) };
    let mut r = eight(&x[..8]);
    let whole = n - n % 8;
    for block in x[8..whole].chunks_exact(8) {
        let values = eight(block);
        for (acc, v) in r.iter_mut().zip(values) {
            *acc += v;
        }
    }
    let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for &v in &x[whole..] {
        res += f(v);
    }
    res
}

/// [`pairwise_sum`] over `f` of the `n` values from position `at`: the same recursion,
/// blocks and eight accumulators, so the same additions in the same order; each leaf goes
/// to `visit`.
fn pairwise_sum_of<T: Copy + Default>(
    leaves: &mut Leaves<'_, T>,
    at: usize,
    n: usize,
    f: impl Fn(T) -> f64 + Copy,
    visit: &mut impl FnMut(&[T]),
) -> f64 {
    if n <= LEAF {
        let x = leaves.leaf(at, n);
        let sum = leaf_sum(x, f);
        visit(x);
        sum
    } else {
        let mut half = n / 2;
        half -= half % 8;
        let left = pairwise_sum_of(leaves, at, half, f, visit);
        left + pairwise_sum_of(leaves, at + half, n - half, f, visit)
    }
}

/// `np.percentile(x, q)` with the default linear method; `None` when empty.
pub fn percentile(x: &[f64], q: f64) -> Option<f64> {
    let mut sorted = x.to_vec();
    sorted.sort_stable_by(f64::total_cmp);
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

    proptest::proptest! {
        /// Converting as the sum goes gives the bits of summing the converted array, at
        /// every length around the block sizes, for durations and for floats (finite, so
        /// that no NaN's payload, which the compiler may pick either way, is compared).
        #[test]
        fn sums_of_converted_values_equal_sums_of_the_conversion(
            durations in proptest::collection::vec(proptest::num::i64::ANY, 0..700),
            floats in proptest::collection::vec(-1e300f64..1e300, 0..300),
            mean in -1e300f64..1e300,
        ) {
            // numpy's steps: the array, its squared deviations, their mean's square root.
            let std_about = |x: &[f64], m: f64| {
                let squares: Vec<f64> = x.iter().map(|v| (v - m) * (v - m)).collect();
                (sum(&squares) / x.len() as f64).sqrt()
            };
            let bits = f64::to_bits;
            let s: Vec<f64> = durations.iter().map(|&d| seconds(d)).collect();
            proptest::prop_assert_eq!(bits(sum_of(&durations, seconds)), bits(sum(&s)));
            proptest::prop_assert_eq!(
                bits(std_of(&durations, mean, seconds)),
                bits(std_about(&s, mean))
            );
            // The visits see every value once, in order, in pieces of at most 128.
            let mut seen = Vec::new();
            let visited = sum_visiting(&durations, seconds, &mut |piece: &[i64]| {
                assert!(piece.len() <= 128);
                seen.extend_from_slice(piece);
            });
            proptest::prop_assert_eq!(bits(visited), bits(sum(&s)));
            proptest::prop_assert_eq!(&seen, &durations);
            let same = |v: f64| v;
            proptest::prop_assert_eq!(bits(sum_of(&floats, same)), bits(sum(&floats)));
            proptest::prop_assert_eq!(
                bits(std_of(&floats, mean, same)),
                bits(std_about(&floats, mean))
            );
        }

        /// The values cut into parts (empty ones too, and leaves across several parts)
        /// sum, deviate and visit as the joined values do.
        #[test]
        fn parts_sum_as_their_joined_values(
            durations in proptest::collection::vec(0u32..1 << 30, 0..900),
            mut cuts in proptest::collection::vec(0usize..900, 0..12),
            mean in 0.0f64..2.0,
        ) {
            cuts.push(durations.len());
            cuts.iter_mut().for_each(|c| *c = (*c).min(durations.len()));
            cuts.sort_ord_unstable();
            let mut parts: Vec<&[u32]> = Vec::new();
            let mut from = 0;
            for &cut in &cuts {
                parts.push(&durations[from..cut]);
                from = cut;
            }
            let to_seconds = |d: u32| seconds(i64::from(d));
            let bits = f64::to_bits;
            let (mut whole_pieces, mut part_pieces) = (Vec::new(), Vec::new());
            let whole = sum_visiting(&durations, to_seconds, &mut |p: &[u32]| {
                whole_pieces.push(p.to_vec());
            });
            let cut = sum_visiting_parts(&parts, to_seconds, &mut |p: &[u32]| {
                part_pieces.push(p.to_vec());
            });
            proptest::prop_assert_eq!(bits(cut), bits(whole));
            proptest::prop_assert_eq!(&part_pieces, &whole_pieces);
            proptest::prop_assert_eq!(
                bits(std_visiting_parts(&parts, mean, to_seconds, &mut |_| {})),
                bits(std_of(&durations, mean, to_seconds))
            );
        }
    }

    #[test]
    fn std_is_population() {
        assert_eq!(std(&[1.0, 3.0]), Some(1.0));
        assert_eq!(mean(&[]), None);
    }
}
