//! What a call path keeps of its calls while the call tree streams: the durations and own
//! times (as 32-bit integers while they fit), the wall-clock coverage of one rank's calls merged as
//! they come in start order, and the first and last calls.

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

use crate::schema::read::events::{release_over, KEPT_BUFFER_BYTES};

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

    /// `f` of the values of `parts` one after another: the one part itself, or the parts
    /// joined in a buffer the thread keeps (narrow where every part is).
    pub(super) fn joined<T>(parts: &[Durations], f: impl FnOnce(&Durations) -> T) -> T {
        if let [one] = parts {
            return f(one);
        }
        JOINED.with(|cell| {
            let Ok(mut joined) = cell.try_borrow_mut() else {
                return f(&Durations::join(parts, Durations::default()));
            };
            let buffer = std::mem::take(&mut *joined);
            let all = Durations::join(parts, buffer);
            let out = f(&all);
            *joined = all;
            joined.release_over(KEPT_BUFFER_BYTES);
            out
        })
    }

    /// `parts` one after another, in `buffer`'s room.
    fn join(parts: &[Durations], buffer: Durations) -> Durations {
        let narrow = parts.iter().all(|p| matches!(p, Durations::Narrow(_)));
        let n = parts.iter().map(Durations::len).sum();
        let (mut narrow_room, mut wide_room) = match buffer {
            Durations::Narrow(v) => (v, Vec::new()),
            Durations::Wide(v) => (Vec::new(), v),
        };
        if narrow {
            narrow_room.clear();
            narrow_room.reserve(n);
            for part in parts {
                if let Durations::Narrow(v) = part {
                    narrow_room.extend_from_slice(v);
                }
            }
            return Durations::Narrow(narrow_room);
        }
        wide_room.clear();
        wide_room.reserve(n);
        for part in parts {
            match part {
                Durations::Narrow(v) => wide_room.extend(v.iter().map(|&x| i64::from(x))),
                Durations::Wide(v) => wide_room.extend_from_slice(v),
            }
        }
        Durations::Wide(wide_room)
    }

    /// Frees the room of values holding more than `bytes`.
    fn release_over(&mut self, bytes: usize) {
        match self {
            Durations::Narrow(v) => release_over(v, bytes),
            Durations::Wide(v) => release_over(v, bytes),
        }
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

thread_local! {
    /// The room [`Durations::joined`] joins parts in.
    static JOINED: std::cell::RefCell<Durations> = std::cell::RefCell::default();
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
