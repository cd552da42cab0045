//! One rank's call paths reduced to a few numbers and their durations ([`RankPath`]),
//! the result of a [`TreeJobs`](super::TreeJobs) job ([`RankTree`]), and the own-time
//! vectors recycled between ranks ([`Spare`]).

use std::sync::Mutex;

use super::path_stats::{Bounds, Coverage, Durations, Extremes};
use crate::analysis::numeric::seconds;

/// One rank's call paths, reduced: the result of a [`TreeJobs`] job.
#[derive(Debug, Default)]
pub struct RankTree {
    /// The calls do not nest: the table is flat.
    pub(super) nesting: bool,
    /// Paths in first-seen order.
    pub(super) paths: Vec<RankPath>,
    /// (selected region, row, first start in seconds) of every row read.
    pub(super) first_starts: Vec<(u32, usize, f64)>,
    /// How the rank's calls were nested.
    pub(super) walk: WalkKind,
}

/// Which way a rank's calls were nested.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) enum WalkKind {
    /// Proved row against row ([`by_parent_rows`](super::parent_rows::by_parent_rows)).
    ParentRows,
    /// Walked by rows ([`by_rows`](super::tree_walk::by_rows)).
    Rows,
    /// Walked call by call ([`by_calls`](super::tree_walk::by_calls)), or not at all (the calls do not
    /// nest).
    #[default]
    Calls,
}

/// One call path on one rank.
#[derive(Debug, Default)]
pub(super) struct RankPath {
    pub(super) parent: Option<u32>,
    pub(super) region: u32,
    pub(super) durations: Durations,
    /// The smallest and largest of `durations`.
    pub(super) extremes: Extremes,
    /// Own time of every call, ns, in order (folded across ranks in rank order).
    pub(super) exclusive: Durations,
    /// GPU time of every call of a row with GPU timing, ns, in order.
    pub(super) gpu: Vec<i64>,
    pub(super) coverage: Coverage,
    /// Sum of the durations of calls not nested in their own region (`py_sum`, which
    /// starts at 0: durations are never negative here, so `0.0 +` changes no bits).
    pub(super) total: f64,
    pub(super) bounds: Bounds,
    /// Calls [`extend`](RankPath::extend) counted without keeping their durations (the
    /// rows leave out the distribution, [`RowOptions::distribution`](super::RowOptions)).
    pub(super) counted: usize,
    pub(super) keeps_durations: bool,
}

impl RankPath {
    /// A path with room for `calls` calls, which keeps their durations where `keep`.
    pub(super) fn new(
        parent: Option<u32>,
        region: u32,
        calls: usize,
        keep: bool,
        spare: &Spare,
    ) -> Self {
        RankPath {
            parent,
            region,
            durations: Durations::with_capacity(if keep { calls } else { 0 }),
            exclusive: spare.take(calls),
            keeps_durations: keep,
            ..RankPath::default()
        }
    }

    /// Number of calls.
    pub(super) fn calls(&self) -> usize {
        self.durations.len() + self.counted
    }

    /// Adds a call (in start order); returns the slot of its own time, known when it ends.
    #[inline]
    pub(super) fn push(
        &mut self,
        origin: f64,
        start: i64,
        end: i64,
        nested: bool,
        gpu: Option<i64>,
    ) -> usize {
        let duration_ns = end.wrapping_sub(start);
        let duration = seconds(duration_ns);
        let start = seconds(start) - origin;
        let end = seconds(end) - origin;
        self.durations.push(duration_ns);
        self.extremes.add(duration_ns);
        self.exclusive.push(0);
        if let Some(g) = gpu {
            self.gpu.push(g);
        }
        self.coverage.add(start, end);
        if !nested {
            self.total += duration;
        }
        self.bounds.add(start, end, duration, nested);
        self.exclusive.len() - 1
    }

    /// Records the own time (ns) of the call in `slot`.
    #[inline]
    pub(super) fn close_call(&mut self, slot: usize, exclusive: i64) {
        self.exclusive.set(slot, exclusive);
    }

    /// Adds calls none of which nests in its own region, in start order, with their own
    /// times and the GPU times of those that have one: [`push`](RankPath::push) and
    /// [`close_call`](RankPath::close_call) of each, column by column.
    pub(super) fn extend(
        &mut self,
        origin: f64,
        starts: &[i64],
        ends: &[i64],
        own: &[i64],
        gpu: &[i64],
    ) {
        self.gpu.extend_from_slice(gpu);
        let (mut total, mut coverage, mut bounds) = (self.total, self.coverage, self.bounds);
        let mut add = |s: [f64; BLOCK], e: [f64; BLOCK], d: [f64; BLOCK], n: usize| {
            for j in 0..n {
                let (start, end) = (s[j] - origin, e[j] - origin);
                coverage.add(start, end);
                total += d[j];
                bounds.add(start, end, d[j], false);
            }
        };
        // A piece of the calls at a time, which stays in cache for each pass over it: the
        // durations (on the stack), the own times, the seconds.
        const PIECE: usize = BLOCK * 64;
        let mut scratch = [0i64; PIECE];
        let mut own_pieces = own.chunks(PIECE);
        for (starts, ends) in starts.chunks(PIECE).zip(ends.chunks(PIECE)) {
            if self.keeps_durations {
                let room = &mut scratch[..starts.len()];
                for ((d, &s), &e) in room.iter_mut().zip(starts).zip(ends) {
                    *d = e.wrapping_sub(s);
                }
                self.durations.extend(room);
                self.extremes.add_all(room);
            } else {
                self.counted += starts.len();
            }
            self.exclusive.extend(own_pieces.next().unwrap_or_default());
            let (starts_8, ends_8) = (starts.chunks_exact(BLOCK), ends.chunks_exact(BLOCK));
            let (start_rest, end_rest) = (starts_8.remainder(), ends_8.remainder());
            for (s, e) in starts_8.zip(ends_8) {
                let (s, e) = (block_of(s), block_of(e));
                let d = std::array::from_fn(|j| e[j].wrapping_sub(s[j]));
                add(seconds_of(s), seconds_of(e), seconds_of(d), BLOCK);
            }
            let (s, e) = (block_of(start_rest), block_of(end_rest));
            let d = std::array::from_fn(|j| e[j].wrapping_sub(s[j]));
            add(
                seconds_of(s),
                seconds_of(e),
                seconds_of(d),
                start_rest.len(),
            );
        }
        // Own times past the calls (none where the caller pairs them up).
        for rest in own_pieces {
            self.exclusive.extend(rest);
        }
        (self.total, self.coverage, self.bounds) = (total, coverage, bounds);
    }
}

/// Calls converted to seconds at a time in [`RankPath::extend`]: eight divisions in a row
/// run as four two-wide ones.
const BLOCK: usize = 8;

/// Up to [`BLOCK`] values (zeros past them).
#[inline(always)]
fn block_of(values: &[i64]) -> [i64; BLOCK] {
    std::array::from_fn(|j| values.get(j).copied().unwrap_or(0))
}

/// [`seconds`] of each value.
#[inline(always)]
fn seconds_of(ns: [i64; BLOCK]) -> [f64; BLOCK] {
    let as_f64: [f64; BLOCK] = std::array::from_fn(|j| ns[j] as f64);
    std::array::from_fn(|j| as_f64[j] / 1e9)
}

/// Own-time vectors [`TreeRows`](super::TreeRows) gives back once it folded them, for
/// later ranks' paths: every rank's own times in fresh vectors made the kernel fault in a
/// quarter of a gigabyte of pages on a 64 M-call profile.
#[derive(Default)]
pub(super) struct Spare(Mutex<Vec<Vec<u32>>>);

impl Spare {
    /// Vectors kept at most.
    const LIMIT: usize = 1 << 12;

    /// Room for `calls` own times.
    pub(super) fn take(&self, calls: usize) -> Durations {
        let kept = self.0.lock().ok().and_then(|mut spare| spare.pop());
        match kept {
            Some(mut room) => {
                room.reserve(calls);
                Durations::Narrow(room)
            }
            None => Durations::with_capacity(calls),
        }
    }

    pub(super) fn give(&self, own: Durations) {
        if let (Some(room), Ok(mut spare)) = (own.into_room(), self.0.lock()) {
            if spare.len() < Self::LIMIT {
                spare.push(room);
            }
        }
    }
}
