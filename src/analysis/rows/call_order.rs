//! The order the reference nests one rank's calls in: start ascending, end descending, ties
//! kept in the order given (region order, then position in the row) — a stable sort, done
//! as one counting pass into start buckets and a small stable sort per bucket, which is
//! several times faster than a comparison sort of millions of calls.

/// One call of a rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Call {
    pub start: i64,
    pub end: i64,
    /// The row (in the job's row order) and the call's position in it.
    pub row: u32,
    pub index: u32,
}

/// Buckets hold about this many calls on average.
const PER_BUCKET: usize = 8;

/// Buckets up to this size are sorted by insertion.
const INSERTION: usize = 24;

fn before(a: &Call, b: &Call) -> bool {
    a.start < b.start || (a.start == b.start && a.end > b.end)
}

/// `calls` in the reference's order (the stable sort by start ascending, end descending).
pub(super) fn sort(calls: Vec<Call>) -> Vec<Call> {
    let n = calls.len();
    let (Some(min), Some(max)) = (
        calls.iter().map(|c| c.start).min(),
        calls.iter().map(|c| c.start).max(),
    ) else {
        return calls;
    };
    let range = max.abs_diff(min);
    let buckets = (n / PER_BUCKET).max(1).next_power_of_two();
    // The shift that maps the range of starts onto the buckets.
    let bits = 64 - range.leading_zeros();
    let shift = bits.saturating_sub(buckets.trailing_zeros());
    if n <= INSERTION * 4 || buckets == 1 {
        let mut calls = calls;
        calls.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
        return calls;
    }
    let bucket = |c: &Call| (c.start.abs_diff(min) >> shift) as usize;
    let mut offsets = vec![0usize; buckets + 1];
    for c in &calls {
        offsets[bucket(c) + 1] += 1;
    }
    for i in 0..buckets {
        offsets[i + 1] += offsets[i];
    }
    let mut sorted = vec![Call::default(); n];
    let mut next = offsets.clone();
    for c in &calls {
        let b = bucket(c);
        sorted[next[b]] = *c;
        next[b] += 1;
    }
    drop(calls);
    for w in offsets.windows(2) {
        let part = &mut sorted[w[0]..w[1]];
        if part.len() <= INSERTION {
            for i in 1..part.len() {
                let mut j = i;
                while j > 0 && before(&part[j], &part[j - 1]) {
                    part.swap(j, j - 1);
                    j -= 1;
                }
            }
        } else {
            part.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
        }
    }
    sorted
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn stable(mut calls: Vec<Call>) -> Vec<Call> {
        calls.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
        calls
    }

    proptest! {
        /// The bucketed sort is the stable comparison sort, ties and extremes included.
        #[test]
        fn equals_the_stable_sort(
            spans in proptest::collection::vec((0i64..2000, 0i64..50), 0..600),
            wide in proptest::collection::vec((any::<i64>(), any::<i64>()), 0..200),
        ) {
            for input in [
                spans.iter().map(|&(s, d)| (s, s + d)).collect::<Vec<_>>(),
                wide.clone(),
            ] {
                let calls: Vec<Call> = input
                    .iter()
                    .enumerate()
                    .map(|(i, &(start, end))| Call { start, end, row: (i % 3) as u32, index: i as u32 })
                    .collect();
                prop_assert_eq!(sort(calls.clone()), stable(calls));
            }
        }
    }

    #[test]
    fn many_equal_starts_fall_back_to_the_comparison_sort() {
        let calls: Vec<Call> = (0..1000)
            .map(|i| Call {
                start: 5,
                end: i % 7,
                row: 0,
                index: i as u32,
            })
            .collect();
        assert_eq!(sort(calls.clone()), stable(calls));
    }
}
