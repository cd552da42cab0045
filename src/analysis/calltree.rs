//! Nesting recovered from timestamps, as the reference's `call_stack.build_call_arrays`
//! does it: one rank's calls sorted by (start, −end); depth = sorted position minus the
//! calls already closed; parent = nearest earlier call one level up; calls on different
//! lanes (threads, tasks) nest separately. Improper nesting is [`Nesting`], not a panic.

use crate::schema::Region;
use crate::sort::SortSlice;

/// The calls of one rank cannot form a call tree (a call ends before it starts, or starts
/// inside another and ends after it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nesting;

/// One call of a reconstructed rank, in start order.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// Index into the region slice the tree was built from.
    pub region: usize,
    /// Position of the call within its region's row.
    pub call_index: usize,
    pub start_ns: i64,
    pub end_ns: i64,
    pub depth: usize,
    /// Index of the enclosing call in the same tree.
    pub parent: Option<usize>,
    /// Duration minus the durations of direct children, ns.
    pub exclusive_ns: i64,
    pub lane: i64,
}

/// Reconstructs the nesting of `rank`'s calls over `regions` (in the order given, which
/// breaks ties between identical intervals).
pub fn build(regions: &[&Region], rank: u32) -> Result<Vec<Call>, Nesting> {
    let any_lane = regions
        .iter()
        .filter_map(|r| r.rank(rank))
        .any(|row| row.lanes.is_some());
    let mut calls = unnested(regions, rank);
    if calls.iter().any(|c| c.end_ns < c.start_ns) {
        return Err(Nesting);
    }
    calls.sort_stable_by(|a, b| {
        a.start_ns
            .cmp(&b.start_ns)
            .then_with(|| b.end_ns.cmp(&a.end_ns))
    });
    if any_lane {
        let mut lanes: Vec<i64> = calls.iter().map(|c| c.lane).collect();
        lanes.sort_ord_unstable();
        lanes.dedup();
        for lane in lanes {
            let positions: Vec<usize> = (0..calls.len())
                .filter(|&i| calls[i].lane == lane)
                .collect();
            nest(&mut calls, &positions)?;
        }
    } else {
        let all: Vec<usize> = (0..calls.len()).collect();
        nest(&mut calls, &all)?;
    }
    for i in 0..calls.len() {
        if let Some(p) = calls[i].parent {
            if calls[p].end_ns < calls[i].end_ns {
                return Err(Nesting);
            }
        }
    }
    let mut covered = vec![0i64; calls.len()];
    for c in &calls {
        if let Some(p) = c.parent {
            covered[p] = covered[p].wrapping_add(c.end_ns.wrapping_sub(c.start_ns));
        }
    }
    for (c, cov) in calls.iter_mut().zip(covered) {
        c.exclusive_ns = c.end_ns.wrapping_sub(c.start_ns).wrapping_sub(cov);
    }
    Ok(calls)
}

/// `rank`'s calls over `regions`, in region order and then call order, each at depth 0
/// with no parent: the calls before nesting, for a caller that must lay them out even when
/// they do not nest.
pub fn unnested(regions: &[&Region], rank: u32) -> Vec<Call> {
    let mut calls = Vec::new();
    for (ri, region) in regions.iter().enumerate() {
        let Some(row) = region.rank(rank) else {
            continue;
        };
        for (ci, (&s, &e)) in row.starts.iter().zip(&row.ends).enumerate() {
            let lane = row
                .lanes
                .as_ref()
                .and_then(|l| l.get(ci).copied())
                .unwrap_or(-1);
            calls.push(Call {
                region: ri,
                call_index: ci,
                start_ns: s,
                end_ns: e,
                depth: 0,
                parent: None,
                exclusive_ns: 0,
                lane,
            });
        }
    }
    calls
}

/// Depth and parent of the calls at `positions` (already in global sorted order).
fn nest(calls: &mut [Call], positions: &[usize]) -> Result<(), Nesting> {
    let scaled_start: Vec<i64> = positions
        .iter()
        .map(|&p| calls[p].start_ns.wrapping_mul(2))
        .collect();
    let mut ends: Vec<i64> = positions
        .iter()
        .zip(&scaled_start)
        .map(|(&p, &s)| {
            let e = calls[p].end_ns.wrapping_mul(2);
            if e == s {
                e.wrapping_add(1)
            } else {
                e
            }
        })
        .collect();
    ends.sort_ord_unstable();
    let mut last_at_depth: Vec<Option<usize>> = Vec::new();
    for (k, &p) in positions.iter().enumerate() {
        let closed = ends.partition_point(|&e| e <= scaled_start[k]);
        let depth = k.checked_sub(closed).ok_or(Nesting)?;
        let parent = match depth.checked_sub(1) {
            None => None,
            Some(up) => last_at_depth.get(up).copied().flatten(),
        };
        if last_at_depth.len() <= depth {
            last_at_depth.resize(depth + 1, None);
        }
        last_at_depth[depth] = Some(p);
        calls[p].depth = depth;
        calls[p].parent = parent;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::RankCalls;

    fn region(name: &str, spans: &[(i64, i64)]) -> Region {
        Region {
            name: name.into(),
            ranks: vec![RankCalls {
                calls: crate::schema::Calls {
                    starts: spans.iter().map(|s| s.0).collect(),
                    ends: spans.iter().map(|s| s.1).collect(),
                    ..Default::default()
                }
                .into(),
                rank: 0,
                ..RankCalls::default()
            }],
        }
    }

    #[test]
    fn nested_calls_get_parents_and_exclusive_time() {
        let outer = region("outer", &[(0, 100)]);
        let inner = region("inner", &[(10, 30), (40, 50)]);
        let calls = build(&[&outer, &inner], 0).unwrap();
        let summary: Vec<(usize, usize, Option<usize>, i64)> = calls
            .iter()
            .map(|c| (c.region, c.depth, c.parent, c.exclusive_ns))
            .collect();
        assert_eq!(
            summary,
            vec![(0, 0, None, 70), (1, 1, Some(0), 20), (1, 1, Some(0), 10)]
        );
    }

    #[test]
    fn partial_overlap_is_a_nesting_error() {
        let a = region("a", &[(0, 100)]);
        let b = region("b", &[(50, 150)]);
        assert_eq!(build(&[&a, &b], 0), Err(Nesting));
        let backwards = region("c", &[(10, 5)]);
        assert_eq!(build(&[&backwards], 0), Err(Nesting));
    }

    #[test]
    fn zero_length_call_at_a_shared_start_is_a_child() {
        let a = region("a", &[(0, 10)]);
        let b = region("b", &[(0, 0)]);
        let calls = build(&[&a, &b], 0).unwrap();
        assert_eq!(calls[1].parent, Some(0));
        assert_eq!(calls[1].depth, 1);
    }
}
