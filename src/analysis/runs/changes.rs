//! "What changed", as the reference's multi-run report lists it (`report_data.
//! _change_items`, `report_model.wall_model`): for each run against the baseline, its
//! wall-time change ("1.97× faster") and the regions whose own time (exclusive of nested
//! regions, else the total) moved most, faster and slower. A change counts when it is at
//! least 2 % of the region's own baseline time and at least 0.5 % of the baseline's time
//! in regions; runs of different rank counts compare time per rank.

use super::Run;
use crate::sort::SortSlice;

/// The reference's thresholds: a change under this percent of the region is noise …
const SAME_PCT: f64 = 2.0;
/// … and one under this percent of the baseline's time in regions is too small to list.
const FLOOR_PCT: f64 = 0.5;

/// One region's own-time change, seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub name: String,
    pub base: f64,
    pub value: f64,
    pub delta: f64,
}

impl Change {
    /// The change in percent of the baseline (`None` for a region new in the run).
    pub fn pct(&self) -> Option<f64> {
        (self.base != 0.0).then(|| 100.0 * self.delta / self.base)
    }
}

/// What changed in one run against the baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct RunChanges {
    /// The run's index.
    pub run: usize,
    /// Wall time, seconds: the baseline's and the run's.
    pub wall: (f64, f64),
    /// Own time down, largest first, at most the limit asked for.
    pub improvements: Vec<Change>,
    /// Own time up, largest first.
    pub regressions: Vec<Change>,
}

impl RunChanges {
    /// The wall-time change in percent (`None` without timing on either side).
    pub fn wall_pct(&self) -> Option<f64> {
        let (before, after) = self.wall;
        (before > 0.0 && after > 0.0).then(|| 100.0 * (after - before) / before)
    }

    /// `1.97× faster` or `1.02× slower` (`None` without timing).
    pub fn speed(&self) -> Option<String> {
        let (before, after) = self.wall;
        self.wall_pct()?;
        Some(if after < before {
            format!("{:.2}× faster", before / after)
        } else {
            format!("{:.2}× slower", after / before)
        })
    }
}

/// Each run but the baseline against it: at most `limit` improvements and regressions.
pub fn changes(runs: &[Run], baseline: usize, limit: usize) -> Vec<RunChanges> {
    let Some(base) = runs.get(baseline) else {
        return Vec::new();
    };
    let per_rank = runs.iter().any(|r| r.ranks != base.ranks);
    let own = |run: &Run, name: &str| -> f64 {
        let Some(row) = run.row(name).filter(|r| r.total.is_some()) else {
            return 0.0;
        };
        let v = row.exclusive.or(row.total).unwrap_or(0.0);
        if per_rank {
            v / row.num_ranks.max(1) as f64
        } else {
            v
        }
    };
    (runs.iter().enumerate())
        .filter(|(i, _)| *i != baseline)
        .map(|(i, run)| {
            // Regions in the baseline's order, then those only the run has.
            let mut names: Vec<&str> = base.rows.iter().map(|r| r.name.as_str()).collect();
            for r in &run.rows {
                if base.row(&r.name).is_none() {
                    names.push(&r.name);
                }
            }
            let owns: Vec<(&str, f64, f64)> = names
                .iter()
                .map(|n| (*n, own(base, n), own(run, n)))
                .collect();
            let floor = FLOOR_PCT / 100.0 * owns.iter().map(|o| o.1).sum::<f64>();
            let pick = |direction: f64| {
                let mut list: Vec<Change> = (owns.iter())
                    .filter(|(_, b, v)| {
                        let d = v - b;
                        d * direction > 0.0
                            && d.abs() >= floor
                            && (*b == 0.0 || 100.0 * d.abs() / b >= SAME_PCT)
                    })
                    .map(|&(n, b, v)| Change {
                        name: n.to_string(),
                        base: b,
                        value: v,
                        delta: v - b,
                    })
                    .collect();
                list.sort_stable_by(|x, y| y.delta.abs().total_cmp(&x.delta.abs()));
                list.truncate(limit);
                list
            };
            RunChanges {
                run: i,
                wall: (base.wall, run.wall),
                improvements: pick(-1.0),
                regressions: pick(1.0),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::rows::RegionRow;

    fn run(wall: f64, ranks: u64, own: &[(&str, f64)]) -> Run {
        Run {
            file: "f".into(),
            label: "f".into(),
            host: None,
            start: None,
            ranks,
            nodes: None,
            threads: None,
            cores: None,
            wall,
            metadata: Vec::new(),
            rows: own
                .iter()
                .map(|&(name, t)| RegionRow {
                    name: name.into(),
                    total: Some(t * 2.0),
                    exclusive: Some(t),
                    num_ranks: ranks as usize,
                    ..RegionRow::default()
                })
                .collect(),
        }
    }

    #[test]
    fn largest_own_time_changes_both_ways() {
        let runs = [
            run(
                2.0,
                1,
                &[("solve", 1.0), ("io", 0.5), ("tiny", 0.001), ("flat", 0.3)],
            ),
            run(
                1.0,
                1,
                &[
                    ("solve", 0.4),
                    ("io", 0.6),
                    ("tiny", 0.004),
                    ("flat", 0.301),
                    ("new", 0.2),
                ],
            ),
        ];
        let c = &changes(&runs, 0, 5)[0];
        assert_eq!(c.speed().as_deref(), Some("2.00× faster"));
        assert_eq!(c.wall_pct(), Some(-50.0));
        let names = |v: &[Change]| v.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&c.improvements), ["solve"]);
        // tiny quadrupled but is below 0.5 % of the baseline; flat moved 0.3 %.
        assert_eq!(names(&c.regressions), ["new", "io"]);
        assert_eq!(c.regressions[0].pct(), None);
        assert!((c.improvements[0].delta + 0.6).abs() < 1e-12);
        assert_eq!(changes(&runs, 0, 1)[0].regressions.len(), 1);
        // Different rank counts: per rank.
        let runs = [
            run(2.0, 1, &[("solve", 1.0)]),
            run(1.0, 4, &[("solve", 2.0)]),
        ];
        let c = &changes(&runs, 0, 5)[0];
        assert!((c.improvements[0].value - 0.5).abs() < 1e-12);
    }
}
