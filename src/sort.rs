//! Sorting that keeps the page's WebAssembly small.
//!
//! Every `sort_by` with its own closure is a copy of std's sort (driftsort and its small
//! sorts, several KB each). The page's wasm held 665 such functions: 179 KB of code, 36 KB
//! of its gzipped size, which is a budget (`scripts/build-web.sh`). On wasm32 these methods
//! sort a list of indices instead, through one copy of std's stable sort that calls the
//! comparison through a reference, and then move the elements into that order. Natively
//! they are std's own sorts, with nothing in between.
//!
//! The order is the one std's stable sort gives: the index sort makes the same comparisons
//! on the same values, and ties keep their positions. For `sort_ord_unstable` the elements
//! that compare equal are equal, so any order of them is the same slice.

use std::cmp::Ordering;

/// The library's sorts of slices (see the module's documentation).
pub trait SortSlice<T> {
    /// Stable sort by a comparison, as [`slice::sort_by`].
    fn sort_stable_by(&mut self, compare: impl FnMut(&T, &T) -> Ordering);

    /// Stable sort by a key, as [`slice::sort_by_key`].
    fn sort_stable_by_key<K: Ord>(&mut self, mut key: impl FnMut(&T) -> K) {
        self.sort_stable_by(|a, b| key(a).cmp(&key(b)));
    }

    /// Sort by `Ord`, as [`slice::sort`].
    fn sort_ord(&mut self)
    where
        T: Ord;

    /// Sort by `Ord` where equal elements are indistinguishable, as
    /// [`slice::sort_unstable`].
    fn sort_ord_unstable(&mut self)
    where
        T: Ord;
}

impl<T> SortSlice<T> for [T] {
    #[cfg(not(target_arch = "wasm32"))]
    fn sort_stable_by(&mut self, compare: impl FnMut(&T, &T) -> Ordering) {
        self.sort_by(compare);
    }

    #[cfg(target_arch = "wasm32")]
    fn sort_stable_by(&mut self, mut compare: impl FnMut(&T, &T) -> Ordering) {
        let mut order: Vec<usize> = (0..self.len()).collect();
        let slice: &[T] = self;
        sort_indices(&mut order, &mut |&a, &b| compare(&slice[a], &slice[b]));
        permute(self, order);
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn sort_ord(&mut self)
    where
        T: Ord,
    {
        self.sort();
    }

    #[cfg(target_arch = "wasm32")]
    fn sort_ord(&mut self)
    where
        T: Ord,
    {
        self.sort_stable_by(T::cmp);
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn sort_ord_unstable(&mut self)
    where
        T: Ord,
    {
        self.sort_unstable();
    }

    #[cfg(target_arch = "wasm32")]
    fn sort_ord_unstable(&mut self)
    where
        T: Ord,
    {
        self.sort_stable_by(T::cmp);
    }
}

/// The one copy of std's stable sort the wasm carries.
#[cfg(any(target_arch = "wasm32", test))]
#[inline(never)]
fn sort_indices(order: &mut [usize], compare: &mut dyn FnMut(&usize, &usize) -> Ordering) {
    order.sort_by(compare);
}

/// Moves each `v[order[i]]` to position `i`, following the permutation's cycles.
#[cfg(any(target_arch = "wasm32", test))]
fn permute<T>(v: &mut [T], mut order: Vec<usize>) {
    for start in 0..v.len() {
        let mut at = start;
        loop {
            let from = order[at];
            order[at] = at;
            if from == start {
                break;
            }
            v.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The wasm32 path, run natively: index sort, then the permutation.
    fn by_indices<T>(v: &mut [T], mut compare: impl FnMut(&T, &T) -> Ordering) {
        let mut order: Vec<usize> = (0..v.len()).collect();
        let slice: &[T] = v;
        sort_indices(&mut order, &mut |&a, &b| compare(&slice[a], &slice[b]));
        permute(v, order);
    }

    proptest! {
        #[test]
        fn index_sort_equals_std_stable_sort(pairs in proptest::collection::vec((0u8..6, any::<u32>()), 0..300)) {
            let mut expected = pairs.clone();
            expected.sort_by_key(|p| p.0);
            let mut got = pairs;
            by_indices(&mut got, |a, b| a.0.cmp(&b.0));
            prop_assert_eq!(got, expected);
        }
    }

    #[test]
    fn permute_moves_owned_elements() {
        let mut v: Vec<String> = ["c", "a", "d", "b"].map(String::from).to_vec();
        permute(&mut v, vec![1, 3, 0, 2]);
        assert_eq!(v, ["a", "b", "c", "d"]);
    }

    #[test]
    fn native_methods_are_std_sorts() {
        let mut v = vec![(2, 'x'), (1, 'y'), (2, 'a'), (0, 'z')];
        v.sort_stable_by_key(|p| p.0);
        assert_eq!(v, [(0, 'z'), (1, 'y'), (2, 'x'), (2, 'a')]);
        let mut w = vec![3, 1, 2];
        w.sort_ord_unstable();
        assert_eq!(w, [1, 2, 3]);
    }
}
