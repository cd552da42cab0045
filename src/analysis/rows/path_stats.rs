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

    /// [`push`](Durations::push) of every value, in order.
    pub(super) fn extend(&mut self, values: impl Iterator<Item = i64>) {
        let mut values = values.peekable();
        if let Durations::Narrow(v) = self {
            while let Some(&d) = values.peek() {
                match u32::try_from(d) {
                    Ok(d) => v.push(d),
                    Err(_) => break,
                }
                values.next();
            }
            if values.peek().is_none() {
                return;
            }
            *self = Durations::Wide(v.iter().map(|&x| i64::from(x)).collect());
        }
        if let Durations::Wide(v) = self {
            v.extend(values);
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

    /// Calls `f` with [`seconds`](crate::analysis::numeric::seconds) of each value, in
    /// order.
    pub(super) fn each_seconds(&self, mut f: impl FnMut(f64)) {
        use crate::analysis::numeric::seconds;
        match self {
            Durations::Narrow(v) => v.iter().for_each(|&d| f(seconds(i64::from(d)))),
            Durations::Wide(v) => v.iter().for_each(|&d| f(seconds(d))),
        }
    }

    /// Adds `other`'s durations after these (widening both where either is wide).
    pub(super) fn append(&mut self, other: Durations) {
        match (&mut *self, other) {
            (Durations::Narrow(a), Durations::Narrow(b)) => a.extend_from_slice(&b),
            (Durations::Wide(a), Durations::Wide(b)) => a.extend_from_slice(&b),
            (Durations::Wide(a), Durations::Narrow(b)) => a.extend(b.iter().map(|&x| i64::from(x))),
            (Durations::Narrow(a), Durations::Wide(b)) => {
                let mut wide: Vec<i64> = a.iter().map(|&x| i64::from(x)).collect();
                wide.extend_from_slice(&b);
                *self = Durations::Wide(wide);
            }
        }
    }
}

/// Wall-clock time covered by a rank's calls of one path, intervals merged as they come in
/// start order (`merged_length`'s sweep: its result does not depend on the order of
/// intervals with equal starts).
#[derive(Debug, Default)]
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
