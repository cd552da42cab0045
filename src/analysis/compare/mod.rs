//! Comparing two profiles region by region, as the reference's `scope-profiler diff` and
//! `scope-profiler check` do (`scope_profiler.diff`): one metric of each region's flat row
//! (`summary.region_row`) in profile `a` (the baseline) and `b` (the candidate), their
//! delta and percent change, the regions only one side has, and — for a check — the
//! regions that break a regression budget. The values are computed by the same operations
//! as the reference's, so they print to the same digits.
//!
//! A front end reads both profiles as [`Metric::reading`] says (only the percentiles need
//! every call), calls [`diff`] or [`check`], and writes the result with [`write_diff`] or
//! [`write_check`] in a [`Format`]. One that holds only a profile's index (the browser
//! page) takes its [`FlatRows`], fills in the percentiles a region at a time from its
//! events ([`FlatRows::with_percentiles`]), and compares them with [`diff_flat`] and
//! [`check_flat`]: the same rows a full read gives, without holding every call.
//!
//! ```
//! use sp::analysis::compare::{diff, DiffOptions, Metric};
//! use sp::analysis::Selection;
//! use sp::hdf5lite::reader::File;
//! # fn demo(before: &[u8], after: &[u8]) -> Result<(), sp::analysis::Error> {
//! let options = DiffOptions { metric: Metric::P95, ..DiffOptions::default() };
//! let a = options.metric.reading().read(&File::open(before)?)?;
//! let b = options.metric.reading().read(&File::open(after)?)?;
//! let comparison = diff(&a, &b, &Selection::all(), &options);
//! for row in &comparison.rows {
//!     println!("{}: {:?} -> {:?} ({:?} %)", row.name, row.a, row.b, row.pct);
//! }
//! # Ok(()) }
//! ```

pub mod noise;
pub mod nway;
mod output;

use crate::sort::SortSlice;
use std::collections::BTreeMap;
use std::fmt;

use super::quantiles::Percentiles;
use super::report::format::python_g;
use super::report::{gpu_timing_warning, Reading};
use super::rows::{region_rows, PercentageMode, RegionRow, RowOptions, SortKey};
use super::selection::Selection;
use crate::schema::Profile;

pub use super::report::Format;
pub use output::{write_check, write_check_shown, write_diff, write_diff_shown, Side};

/// The statistic of a region that is compared (`--metric`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Metric {
    GpuTotal,
    GpuAvg,
    /// Summed duration of the calls (the default).
    #[default]
    Total,
    Avg,
    Min,
    Max,
    P50,
    P95,
    P99,
    /// Slowest rank's total over the mean rank total, minus one, in percent.
    Imbalance,
    /// Number of calls.
    Calls,
}

impl Metric {
    /// Every metric with its command-line name, in the reference's order.
    pub const ALL: [(Metric, &'static str); 11] = [
        (Metric::GpuTotal, "gpu_total"),
        (Metric::GpuAvg, "gpu_avg"),
        (Metric::Total, "total"),
        (Metric::Avg, "avg"),
        (Metric::Min, "min"),
        (Metric::Max, "max"),
        (Metric::P50, "p50"),
        (Metric::P95, "p95"),
        (Metric::P99, "p99"),
        (Metric::Imbalance, "imbalance"),
        (Metric::Calls, "calls"),
    ];

    /// The metric named `name` on the command line.
    pub fn from_name(name: &str) -> Option<Metric> {
        Self::ALL.iter().find(|m| m.1 == name).map(|m| m.0)
    }

    /// The command-line name.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|m| m.0 == self)
            .map_or("total", |m| m.1)
    }

    /// The column label, with its unit (`total [s]`, `imbalance [%]`, `calls`).
    pub fn label(self) -> &'static str {
        match self {
            Metric::GpuTotal => "gpu total [s]",
            Metric::GpuAvg => "gpu avg [s]",
            Metric::Total => "total [s]",
            Metric::Avg => "avg [s]",
            Metric::Min => "min [s]",
            Metric::Max => "max [s]",
            Metric::P50 => "p50 [s]",
            Metric::P95 => "p95 [s]",
            Metric::P99 => "p99 [s]",
            Metric::Imbalance => "imbalance [%]",
            Metric::Calls => "calls",
        }
    }

    /// Whether values are counts (printed as integers).
    pub fn is_count(self) -> bool {
        self == Metric::Calls
    }

    /// What to read of each profile: the index's stored statistics, except for the
    /// percentiles, which need every call (the reference's `read_profile_summary` /
    /// `read_profile`).
    pub fn reading(self) -> Reading {
        match self {
            Metric::P50 | Metric::P95 | Metric::P99 => Reading::Full,
            _ => Reading::Summary,
        }
    }

    /// The metric's value in `row`; `None` where the reference has `None`.
    pub fn of(self, row: &RegionRow) -> Option<f64> {
        match self {
            Metric::GpuTotal => row.gpu_total,
            Metric::GpuAvg => row.gpu_avg,
            Metric::Total => row.total,
            Metric::Avg => row.avg,
            Metric::Min => row.min,
            Metric::Max => row.max,
            Metric::P50 => row.p50,
            Metric::P95 => row.p95,
            Metric::P99 => row.p99,
            Metric::Imbalance => row.imbalance,
            Metric::Calls => Some(row.calls as f64),
        }
    }
}

/// Row order of a comparison (`--sort`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DiffOrder {
    /// Descending |delta| (the default).
    #[default]
    Delta,
    /// Descending |delta %|; rows without a percentage last.
    Pct,
    /// By name.
    Name,
}

impl DiffOrder {
    /// Every order with its command-line name.
    pub const ALL: [(DiffOrder, &'static str); 3] = [
        (DiffOrder::Delta, "delta"),
        (DiffOrder::Pct, "pct"),
        (DiffOrder::Name, "name"),
    ];

    /// The order named `name` on the command line.
    pub fn from_name(name: &str) -> Option<DiffOrder> {
        Self::ALL.iter().find(|o| o.1 == name).map(|o| o.0)
    }

    /// The command-line name.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|o| o.0 == self)
            .map_or("delta", |o| o.1)
    }
}

/// What [`diff`] compares and how it orders and filters the rows.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DiffOptions {
    pub metric: Metric,
    pub order: DiffOrder,
    /// Drop rows whose |delta %| is below this many percent (rows without a percentage
    /// always stay: there is no baseline to measure them against).
    pub threshold: Option<f64>,
}

/// One region of a comparison (`diff_rows`).
#[derive(Debug, Clone, PartialEq)]
pub struct DiffRow {
    pub name: String,
    /// The metric in `a`: `None` when `a` lacks the region or the region has no value
    /// there (no calls on the selected ranks, no GPU timing, no percentiles).
    pub a: Option<f64>,
    /// The metric in `b`, likewise.
    pub b: Option<f64>,
    /// `b - a`, a missing side counting as 0.
    pub delta: f64,
    /// `100 · delta / a`; `None` when `a` is missing or 0.
    pub pct: Option<f64>,
}

/// The rows of a comparison, with the options that made them.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub options: DiffOptions,
    pub rows: Vec<DiffRow>,
    /// The reference's notes on each side's rows (GPU time far above CPU time), each
    /// prefixed `a: ` or `b: `.
    pub warnings: Vec<String>,
}

impl Comparison {
    /// Regions with a value in `a` only, in row order (the reference's "Only in a").
    pub fn only_in_a(&self) -> impl Iterator<Item = &str> {
        self.rows
            .iter()
            .filter(|r| r.b.is_none())
            .map(|r| r.name.as_str())
    }

    /// Regions with a value in `b` only, in row order (the reference's "Only in b").
    pub fn only_in_b(&self) -> impl Iterator<Item = &str> {
        self.rows
            .iter()
            .filter(|r| r.a.is_none())
            .map(|r| r.name.as_str())
    }
}

/// Compares `a` (before) with `b` (after) region by region: `diff_rows` and the GPU
/// warnings `scope-profiler diff` prints. Each profile should be read as
/// [`Metric::reading`] says; a metric the data cannot give is `None`.
pub fn diff(a: &Profile, b: &Profile, sel: &Selection, options: &DiffOptions) -> Comparison {
    let flat = [FlatRows::of(a, sel), FlatRows::of(b, sel)];
    let mut comparison = diff_flat(&flat[0], &flat[1], options);
    comparison.warnings = side_warnings([(a, Some(&flat[0])), (b, Some(&flat[1]))], sel);
    comparison
}

/// The reference's GPU timing notes on each side's rows, each prefixed `a: ` or `b: `.
pub fn gpu_warnings(a: &Profile, b: &Profile, sel: &Selection) -> Vec<String> {
    side_warnings([(a, None), (b, None)], sel)
}

/// [`gpu_warnings`], from each side's flat rows when they are made already and the
/// profile has no calls (then they are its rows): computing them again doubled a
/// 100,000-rank diff.
fn side_warnings(sides: [(&Profile, Option<&FlatRows>); 2], sel: &Selection) -> Vec<String> {
    ["a", "b"]
        .into_iter()
        .zip(sides)
        .filter_map(|(side, (profile, flat))| {
            let warning = match flat {
                Some(flat) if !profile.has_events() => gpu_timing_warning(flat.0.values()),
                _ => gpu_timing_warning(&region_rows(profile, sel, RowOptions::default())),
            };
            warning.map(|w| format!("{side}: {w}"))
        })
        .collect()
}

/// Each selected region's flat row (`summary.region_row`), by name: what a comparison
/// reads of one profile.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FlatRows(BTreeMap<String, RegionRow>);

impl FlatRows {
    /// The flat rows of the regions `sel` selects.
    pub fn of(profile: &Profile, sel: &Selection) -> FlatRows {
        let options = RowOptions {
            sort: SortKey::Name,
            mode: PercentageMode::Coverage,
            flat: true,
            distribution: true,
        };
        FlatRows(
            region_rows(profile, sel, options)
                .into_iter()
                .map(|row| (row.name.clone(), row))
                .collect(),
        )
    }

    /// The rows with p50, p95 and p99 set to what `percentiles` gives for each region
    /// name: rows of a profile read to its index have none, and a front end reads them
    /// from the region's calls ([`region_percentiles`](super::quantiles::region_percentiles)
    /// over the same ranks), which gives the values of a full read.
    pub fn with_percentiles<E>(
        mut self,
        mut percentiles: impl FnMut(&str) -> Result<Percentiles, E>,
    ) -> Result<FlatRows, E> {
        for (name, row) in &mut self.0 {
            let p = percentiles(name)?;
            row.p50 = p.p50;
            row.p95 = p.p95;
            row.p99 = p.p99;
        }
        Ok(self)
    }
}

/// [`diff`] of rows already made (no GPU warnings: see [`gpu_warnings`]).
pub fn diff_flat(a: &FlatRows, b: &FlatRows, options: &DiffOptions) -> Comparison {
    Comparison {
        options: *options,
        rows: diff_rows(a, b, options),
        warnings: Vec::new(),
    }
}

/// `diff.diff_rows`: one row per region either side has a value for, filtered by the
/// threshold and ordered as `options.order` says (ties by name).
fn diff_rows(rows_a: &FlatRows, rows_b: &FlatRows, options: &DiffOptions) -> Vec<DiffRow> {
    let metric = options.metric;
    let (rows_a, rows_b) = (&rows_a.0, &rows_b.0);
    let mut names: Vec<&String> = rows_a.keys().chain(rows_b.keys()).collect();
    // By code point, as Python sorts strings (and as `BTreeMap` keys come).
    names.sort_ord_unstable();
    names.dedup();
    let mut rows: Vec<DiffRow> = names
        .into_iter()
        .filter_map(|name| {
            let a = rows_a.get(name).and_then(|r| metric.of(r));
            let b = rows_b.get(name).and_then(|r| metric.of(r));
            if a.is_none() && b.is_none() {
                return None;
            }
            let delta = b.unwrap_or(0.0) - a.unwrap_or(0.0);
            // Python's `if a`: NaN is true, 0 is false.
            let pct = a.filter(|&a| a != 0.0).map(|a| delta / a * 100.0);
            if let (Some(threshold), Some(pct)) = (options.threshold, pct) {
                if pct.abs() < threshold {
                    return None;
                }
            }
            Some(DiffRow {
                name: name.clone(),
                a,
                b,
                delta,
                pct,
            })
        })
        .collect();
    // Descending magnitude, a missing percentage as -1; the stable sort keeps name order
    // among ties, as Python's `sort(reverse=True)` does.
    let key = |row: &DiffRow| match options.order {
        DiffOrder::Delta => row.delta.abs(),
        DiffOrder::Pct => row.pct.map_or(-1.0, f64::abs),
        DiffOrder::Name => 0.0,
    };
    if options.order != DiffOrder::Name {
        rows.sort_stable_by(|x, y| key(y).total_cmp(&key(x)));
    }
    rows
}

/// A regression budget (`scope-profiler check`'s options).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    max_regression: f64,
    fail_on_new: bool,
}

/// A budget that cannot be applied: a negative maximum regression (the reference's
/// `check_rows` refuses it with "max_regression must be non-negative"; NaN, which no
/// percentage exceeds, it takes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BudgetError(pub f64);

impl fmt::Display for BudgetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the maximum regression must be non-negative, not {}%",
            python_g(self.0, 6)
        )
    }
}

impl std::error::Error for BudgetError {}

impl Budget {
    /// At most `max_regression` percent more than the baseline per region; with
    /// `fail_on_new`, a region the baseline lacks fails too.
    pub fn new(max_regression: f64, fail_on_new: bool) -> Result<Budget, BudgetError> {
        // `max_regression < 0` as the reference tests it: NaN and -0 are taken.
        if max_regression < 0.0 {
            Err(BudgetError(max_regression))
        } else {
            Ok(Budget {
                max_regression,
                fail_on_new,
            })
        }
    }

    /// The largest allowed increase, in percent.
    pub fn max_regression(&self) -> f64 {
        self.max_regression
    }

    /// Whether regions absent from the baseline fail.
    pub fn fail_on_new(&self) -> bool {
        self.fail_on_new
    }

    /// Whether `row` breaks the budget (`check_rows`).
    pub fn violated_by(&self, row: &DiffRow) -> bool {
        match row.pct {
            Some(pct) => pct > self.max_regression,
            None => row.a.is_none() && self.fail_on_new,
        }
    }
}

/// The outcome of [`check`]: every region (ordered by |delta %|) and the budget's verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckOutcome {
    pub comparison: Comparison,
    pub budget: Budget,
}

impl CheckOutcome {
    /// The rows that break the budget, in row order.
    pub fn violations(&self) -> impl Iterator<Item = &DiffRow> {
        self.comparison
            .rows
            .iter()
            .filter(|r| self.budget.violated_by(r))
    }

    /// Whether no region breaks the budget.
    pub fn passed(&self) -> bool {
        self.violations().next().is_none()
    }
}

/// `scope-profiler check`: compares `candidate` with `baseline` in `metric` and applies
/// `budget`. Each profile should be read as [`Metric::reading`] says.
pub fn check(
    baseline: &Profile,
    candidate: &Profile,
    sel: &Selection,
    metric: Metric,
    budget: Budget,
) -> CheckOutcome {
    check_flat(
        &FlatRows::of(baseline, sel),
        &FlatRows::of(candidate, sel),
        metric,
        budget,
    )
}

/// [`check`] of rows already made.
pub fn check_flat(
    baseline: &FlatRows,
    candidate: &FlatRows,
    metric: Metric,
    budget: Budget,
) -> CheckOutcome {
    let options = DiffOptions {
        metric,
        order: DiffOrder::Pct,
        threshold: None,
    };
    CheckOutcome {
        comparison: diff_flat(baseline, candidate, &options),
        budget,
    }
}

#[cfg(test)]
mod tests;
