//! What a call path keeps of its calls while the call tree streams: the durations and own
//! times (as 32-bit integers while they fit) and the durations' extremes, the wall-clock
//! coverage of one rank's calls merged as they come in start order, and the first and last
//! calls; and how the durations are read back, rank by rank, and the own times summed.

/// The call that starts first and the one that ends last (their (time, duration), the
/// first of equals kept), the earliest start, and whether any call nests in its own region.
#[derive(Debug, Clone, Copy)]
pub(super) struct Bounds {
    pub first: Option<(f64, f64)>,
    pub last: Option<(f64, f64)>,
    pub start: f64,
    pub recursive: bool,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            first: None,
            last: None,
            start: f64::INFINITY,
            recursive: false,
        }
    }
}

impl Bounds {
    /// Takes in the bounds of calls that come after these.
    pub(super) fn merge(&mut self, later: &Bounds) {
        if let Some((s, d)) = later.first {
            if self.first.is_none_or(|(f, _)| s < f) {
                self.first = Some((s, d));
            }
        }
        if let Some((e, d)) = later.last {
            if self.last.is_none_or(|(l, _)| e > l) {
                self.last = Some((e, d));
            }
        }
        self.start = self.start.min(later.start);
        self.recursive |= later.recursive;
    }

    /// Takes in one call (start, end and duration in seconds) that starts no earlier than
    /// the calls before it: the [`merge`](Bounds::merge) of its bounds, where only the
    /// first call can be the first or the earliest.
    #[inline]
    pub(super) fn add(&mut self, start: f64, end: f64, duration: f64, recursive: bool) {
        if self.first.is_none() {
            self.first = Some((start, duration));
            self.start = start;
        }
        if self.last.is_none_or(|(l, _)| end > l) {
            self.last = Some((end, duration));
        }
        self.recursive |= recursive;
    }
}

/// The smallest and largest of some durations (ns), found as they are kept, so the
/// statistics need no pass of their own for them.
#[derive(Debug, Clone, Copy)]
pub(super) struct Extremes {
    least: i64,
    most: i64,
}

impl Default for Extremes {
    fn default() -> Self {
        Extremes {
            least: i64::MAX,
            most: i64::MIN,
        }
    }
}

impl Extremes {
    #[inline]
    pub(super) fn add(&mut self, d: i64) {
        self.least = self.least.min(d);
        self.most = self.most.max(d);
    }

    /// Takes in every value of `values`.
    pub(super) fn add_all(&mut self, values: &[i64]) {
        let (least, most) = values
            .iter()
            .fold((self.least, self.most), |(l, m), &d| (l.min(d), m.max(d)));
        (self.least, self.most) = (least, most);
    }

    pub(super) fn merge(&mut self, other: &Extremes) {
        self.least = self.least.min(other.least);
        self.most = self.most.max(other.most);
    }

    /// (smallest, largest); `None` where nothing was added.
    pub(super) fn get(&self) -> Option<(i64, i64)> {
        (self.least <= self.most).then_some((self.least, self.most))
    }
}

/// Durations in ns, as `u32` while every one fits.
#[derive(Debug)]
pub(super) enum Durations {
    Narrow(Vec<u32>),
    Wide(Vec<i64>),
}

impl Default for Durations {
    fn default() -> Self {
        Durations::Narrow(Vec::new())
    }
}

impl Durations {
    pub(super) fn with_capacity(n: usize) -> Self {
        Durations::Narrow(Vec::with_capacity(n))
    }

    /// Gives back the room of a vector less than half full.
    pub(super) fn shrink(&mut self) {
        match self {
            Durations::Narrow(v) if v.capacity() / 2 > v.len() => v.shrink_to_fit(),
            Durations::Wide(v) if v.capacity() / 2 > v.len() => v.shrink_to_fit(),
            _ => {}
        }
    }

    pub(super) fn len(&self) -> usize {
        match self {
            Durations::Narrow(v) => v.len(),
            Durations::Wide(v) => v.len(),
        }
    }

    #[inline]
    pub(super) fn push(&mut self, d: i64) {
        match self {
            Durations::Narrow(v) => match u32::try_from(d) {
                Ok(d) => v.push(d),
                Err(_) => {
                    let mut wide: Vec<i64> = v.iter().map(|&x| i64::from(x)).collect();
                    wide.push(d);
                    *self = Durations::Wide(wide);
                }
            },
            Durations::Wide(v) => v.push(d),
        }
    }

    /// [`push`](Durations::push) of every value, in order: converted and checked in one
    /// pass without branches while all of them fit a `u32`, which the compiler vectorises.
    pub(super) fn extend(&mut self, values: &[i64]) {
        if let Durations::Narrow(v) = self {
            let at = v.len();
            let mut high = 0u64;
            v.extend(values.iter().map(|&d| {
                high |= d as u64 >> 32;
                d as u32
            }));
            if high == 0 {
                return;
            }
            v.truncate(at);
            let mut wide: Vec<i64> = Vec::with_capacity(v.len() + values.len());
            wide.extend(v.iter().map(|&x| i64::from(x)));
            wide.extend_from_slice(values);
            *self = Durations::Wide(wide);
            return;
        }
        if let Durations::Wide(v) = self {
            v.extend_from_slice(values);
        }
    }

    /// Replaces the value at `i` (if there is one) by `d`.
    #[inline]
    pub(super) fn set(&mut self, i: usize, d: i64) {
        if let Durations::Narrow(v) = self {
            match (u32::try_from(d), v.get_mut(i)) {
                (Ok(d), Some(x)) => {
                    *x = d;
                    return;
                }
                (Ok(_), None) => return,
                (Err(_), _) => *self = Durations::Wide(v.iter().map(|&x| i64::from(x)).collect()),
            }
        }
        if let Durations::Wide(v) = self {
            if let Some(x) = v.get_mut(i) {
                *x = d;
            }
        }
    }

    /// Python's `sum` of [`seconds`](crate::analysis::numeric::seconds) of each value,
    /// left to right, continuing `sum` (`None`: nothing summed yet, so the first value is
    /// the sum).
    pub(super) fn sum_seconds_after(&self, sum: Option<f64>) -> Option<f64> {
        use crate::analysis::numeric::seconds;
        fn fold(sum: Option<f64>, mut values: impl Iterator<Item = f64>) -> Option<f64> {
            let first = match sum {
                Some(sum) => sum,
                None => values.next()?,
            };
            Some(values.fold(first, |sum, x| sum + x))
        }
        match self {
            Durations::Narrow(v) => fold(sum, v.iter().map(|&d| seconds(i64::from(d)))),
            Durations::Wide(v) => fold(sum, v.iter().map(|&d| seconds(d))),
        }
    }

    /// [`sum_seconds_after`](Durations::sum_seconds_after) of each of `values`, continuing
    /// `sums[i]` for `values[i]`. Each sum is one chain of additions, which waits on the
    /// one before; four narrow ones are run side by side so their additions overlap.
    pub(super) fn sum_seconds_after_each(values: &[&Durations], sums: &mut [Option<f64>]) {
        use crate::analysis::numeric::seconds;
        for (values, sums) in values
            .chunks(SIDE_BY_SIDE)
            .zip(sums.chunks_mut(SIDE_BY_SIDE))
        {
            let narrow: Vec<&[u32]> = values
                .iter()
                .filter_map(|v| match v {
                    Durations::Narrow(v) => Some(v.as_slice()),
                    Durations::Wide(_) => None,
                })
                .collect();
            if narrow.len() < SIDE_BY_SIDE || sums.len() < SIDE_BY_SIDE {
                for (v, sum) in values.iter().zip(sums.iter_mut()) {
                    *sum = v.sum_seconds_after(*sum);
                }
                continue;
            }
            // Each sum's first value starts it where nothing was summed yet.
            let mut acc = [0.0; SIDE_BY_SIDE];
            let mut rest: [&[u32]; SIDE_BY_SIDE] = [&[]; SIDE_BY_SIDE];
            for k in 0..SIDE_BY_SIDE {
                (acc[k], rest[k]) = match (sums[k], narrow[k].split_first()) {
                    (Some(sum), _) => (sum, narrow[k]),
                    (None, Some((&first, more))) => (seconds(i64::from(first)), more),
                    (None, None) => (0.0, &narrow[k][..0]),
                };
            }
            let common = rest.iter().map(|r| r.len()).min().unwrap_or(0);
            let [a, b, c, d] = rest.map(|r| &r[..common]);
            for (((&a, &b), &c), &d) in a.iter().zip(b).zip(c).zip(d) {
                let values = [a, b, c, d].map(|v| seconds(i64::from(v)));
                for (sum, v) in acc.iter_mut().zip(values) {
                    *sum += v;
                }
            }
            for k in 0..SIDE_BY_SIDE {
                if sums[k].is_none() && narrow[k].is_empty() {
                    continue;
                }
                let tail = rest[k][common..].iter();
                sums[k] = Some(tail.fold(acc[k], |sum, &d| sum + seconds(i64::from(d))));
            }
        }
    }

    /// The values of `parts` laid end to end: the parts themselves where every one is
    /// narrow, else joined into one wide vector.
    pub(super) fn parts(parts: &[Durations]) -> Parts<'_> {
        let narrow: Option<Vec<&[u32]>> = parts
            .iter()
            .map(|p| match p {
                Durations::Narrow(v) => Some(v.as_slice()),
                Durations::Wide(_) => None,
            })
            .collect();
        if let Some(narrow) = narrow {
            return Parts::Narrow(narrow);
        }
        let mut wide = Vec::with_capacity(parts.iter().map(Durations::len).sum());
        for part in parts {
            match part {
                Durations::Narrow(v) => wide.extend(v.iter().map(|&x| i64::from(x))),
                Durations::Wide(v) => wide.extend_from_slice(v),
            }
        }
        Parts::Wide(wide)
    }

    /// The values emptied, for another path's calls: a narrow vector's room.
    pub(super) fn into_room(self) -> Option<Vec<u32>> {
        match self {
            Durations::Narrow(mut v) => {
                v.clear();
                Some(v)
            }
            Durations::Wide(_) => None,
        }
    }
}

/// Sums [`Durations::sum_seconds_after_each`] runs side by side.
const SIDE_BY_SIDE: usize = 4;

/// [`Durations::parts`]: narrow slices, or every value widened.
pub(super) enum Parts<'a> {
    Narrow(Vec<&'a [u32]>),
    Wide(Vec<i64>),
}

/// Wall-clock time covered by a rank's calls of one path, intervals merged as they come in
/// start order (`merged_length`'s sweep: its result does not depend on the order of
/// intervals with equal starts).
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Coverage {
    open: Option<(f64, f64)>,
    total: f64,
    /// The merged length, once closed.
    pub length: f64,
}

impl Coverage {
    #[inline]
    pub(super) fn add(&mut self, start: f64, end: f64) {
        match &mut self.open {
            Some((_, e)) if start <= *e => *e = e.max(end),
            Some((s, e)) => {
                self.total += *e - *s;
                (*s, *e) = (start, end);
            }
            None => self.open = Some((start, end)),
        }
    }

    pub(super) fn close(&mut self) {
        self.length = match self.open {
            Some((s, e)) => self.total + (e - s),
            None => 0.0,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::Durations;

    proptest::proptest! {
        /// Sums side by side give the bits of each sum on its own: any number of vectors,
        /// of any lengths (empty ones too), narrow or wide, each continuing a sum or not.
        #[test]
        fn side_by_side_sums_equal_each_sum(
            vectors in proptest::collection::vec(
                (
                    proptest::collection::vec(0i64..1 << 40, 0..300),
                    proptest::option::of(0.0f64..1e3),
                    proptest::bool::ANY,
                ),
                0..10,
            ),
        ) {
            let durations: Vec<Durations> = vectors
                .iter()
                .map(|(values, _, wide)| {
                    let mut d = Durations::default();
                    for &v in values {
                        // Narrow ones keep to `u32`.
                        d.push(if *wide { v } else { v & 0xffff_ffff });
                    }
                    d
                })
                .collect();
            let mut sums: Vec<Option<f64>> = vectors.iter().map(|v| v.1).collect();
            let expected: Vec<Option<u64>> = durations
                .iter()
                .zip(&sums)
                .map(|(d, &sum)| d.sum_seconds_after(sum).map(f64::to_bits))
                .collect();
            let all: Vec<&Durations> = durations.iter().collect();
            Durations::sum_seconds_after_each(&all, &mut sums);
            let got: Vec<Option<u64>> = sums.iter().map(|s| s.map(f64::to_bits)).collect();
            proptest::prop_assert_eq!(got, expected);
        }
    }
}
