//! Strong and weak scaling over many runs, with the reference's numbers
//! (`plotting_scripts.scaling`: `plot_speedup`, `plot_scaling_efficiency`,
//! `plot_weak_scaling`, `plot_weak_scaling_efficiency`, whose `export plot-data` this
//! reproduces): per region common to every run, its mean call duration at each point of
//! the axis ([`axes`]), pooled over the runs at that point, against the baseline (the
//! smallest point): speedup, parallel efficiency (speedup over the ideal), normalized
//! runtime and weak-scaling efficiency. [`model`] fits each region's growth.
//!
//! Computed from [`Run`]s (each profile's index only), so the page runs it too.

pub mod axes;
pub mod model;
mod output;

use crate::sort::SortSlice;
use std::collections::HashMap;
use std::fmt;

use crate::analysis::runs::stats::mean;
use crate::analysis::runs::Run;

pub use axes::{metadata_axes, Axis, AxisError, XValue};
pub use output::write_scaling;

/// The four scaling charts (`sp plot KIND`, `export plot-data --plots KIND`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Speedup,
    ScalingEfficiency,
    WeakScaling,
    WeakScalingEfficiency,
}

impl Kind {
    pub const ALL: [Kind; 4] = [
        Kind::Speedup,
        Kind::ScalingEfficiency,
        Kind::WeakScaling,
        Kind::WeakScalingEfficiency,
    ];

    /// The reference's plot name.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Speedup => "speedup",
            Kind::ScalingEfficiency => "scaling_efficiency",
            Kind::WeakScaling => "weak_scaling",
            Kind::WeakScalingEfficiency => "weak_scaling_efficiency",
        }
    }

    /// The kind named `name`.
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The value's column in the reference's plot data.
    pub fn y_key(self) -> &'static str {
        match self {
            Kind::Speedup => "speedup",
            Kind::ScalingEfficiency | Kind::WeakScalingEfficiency => "efficiency",
            Kind::WeakScaling => "normalized_runtime",
        }
    }

    /// The y-axis title.
    pub fn y_label(self) -> &'static str {
        match self {
            Kind::Speedup => "Speedup",
            Kind::ScalingEfficiency => "Scaling efficiency",
            Kind::WeakScaling => "Normalized runtime",
            Kind::WeakScalingEfficiency => "Weak-scaling efficiency",
        }
    }

    /// The chart's title, before its baseline.
    pub fn title(self) -> &'static str {
        match self {
            Kind::Speedup => "Region speedup scaling",
            Kind::ScalingEfficiency => "Scaling efficiency",
            Kind::WeakScaling => "Weak scaling",
            Kind::WeakScalingEfficiency => "Weak-scaling efficiency",
        }
    }

    /// The ideal line's legend entry.
    pub fn ideal_label(self) -> &'static str {
        match self {
            Kind::Speedup => "Ideal scaling",
            Kind::ScalingEfficiency | Kind::WeakScalingEfficiency => "Ideal efficiency",
            Kind::WeakScaling => "Ideal weak scaling",
        }
    }
}

/// Which study `sp scaling` reports (`--mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    Strong,
    Weak,
    #[default]
    Both,
}

impl Mode {
    /// Every mode with its name (`--mode`).
    pub const ALL: [(Mode, &'static str); 3] = [
        (Mode::Strong, "strong"),
        (Mode::Weak, "weak"),
        (Mode::Both, "both"),
    ];

    /// The kinds of the mode.
    pub fn kinds(self) -> &'static [Kind] {
        match self {
            Mode::Strong => &[Kind::Speedup, Kind::ScalingEfficiency],
            Mode::Weak => &[Kind::WeakScaling, Kind::WeakScalingEfficiency],
            Mode::Both => &Kind::ALL,
        }
    }
}

/// One region at one point of the axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub x: XValue,
    /// Mean call duration, seconds, over the runs at this point.
    pub time: f64,
    /// Mean over the runs of the region's total per rank, seconds (what models fit).
    pub per_rank: f64,
    pub speedup: f64,
    /// Speedup over the ideal (`None` on a metadata axis).
    pub efficiency: Option<f64>,
    pub normalized_runtime: f64,
    pub weak_efficiency: f64,
}

impl Point {
    /// The value of `kind` at this point.
    pub fn value(&self, kind: Kind) -> Option<f64> {
        match kind {
            Kind::Speedup => Some(self.speedup),
            Kind::ScalingEfficiency => self.efficiency,
            Kind::WeakScaling => Some(self.normalized_runtime),
            Kind::WeakScalingEfficiency => Some(self.weak_efficiency),
        }
    }
}

/// One region's curve.
#[derive(Debug, Clone, PartialEq)]
pub struct RegionCurve {
    pub name: String,
    /// The region's index among the common regions (its colour).
    pub index: usize,
    pub points: Vec<Point>,
}

/// The scaling table: every common region's points.
#[derive(Debug, Clone, PartialEq)]
pub struct ScalingTable {
    pub axis: Axis,
    /// The points of the axis: ascending on a scaling axis, else in order of appearance.
    pub keys: Vec<XValue>,
    pub baseline: XValue,
    pub regions: Vec<RegionCurve>,
}

/// Why runs cannot make a scaling table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScalingError {
    /// Fewer than two runs.
    TooFew(usize),
    Axis(AxisError),
    /// No region is in every run (the first run that lacks all of the first's is named).
    NoCommonRegion(String),
    /// A scaling axis with a value of 0 or less.
    NotPositive(String),
}

impl fmt::Display for ScalingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScalingError::TooFew(n) => write!(
                f,
                "a scaling study needs at least two profiles, and {n} could be read"
            ),
            ScalingError::Axis(e) => write!(f, "{e}"),
            ScalingError::NoCommonRegion(run) => write!(
                f,
                "{run}: no region of the selection is in this run and every other one"
            ),
            ScalingError::NotPositive(run) => {
                write!(f, "{run}: its value on the scaling axis is not positive")
            }
        }
    }
}

impl ScalingTable {
    /// The table of `runs` over `axis`.
    pub fn new(runs: &[Run], axis: &Axis) -> Result<ScalingTable, ScalingError> {
        if runs.len() < 2 {
            return Err(ScalingError::TooFew(runs.len()));
        }
        let axis = axis.resolve(runs).map_err(ScalingError::Axis)?;
        let xs: Vec<XValue> = runs.iter().filter_map(|r| axis.value(r)).collect();
        let mut keys: Vec<XValue> = Vec::new();
        for x in &xs {
            if !keys.contains(x) {
                keys.push(x.clone());
            }
        }
        if axis.is_scaling() {
            keys.sort_ord();
            if let Some(i) = xs.iter().position(|x| x.number().is_none_or(|v| v <= 0.0)) {
                return Err(ScalingError::NotPositive(runs[i].file.clone()));
            }
        }
        let baseline = keys[0].clone();
        let base_x = baseline.number().unwrap_or(1.0);
        // Regions of the first run that every run has, in the first run's order.
        let names: Vec<&str> = runs[0]
            .rows
            .iter()
            .map(|r| r.name.as_str())
            .filter(|n| runs[1..].iter().all(|run| run.row(n).is_some()))
            .collect();
        if names.is_empty() {
            let lacking = runs[1..]
                .iter()
                .find(|run| runs[0].rows.iter().all(|r| run.row(&r.name).is_none()))
                .unwrap_or(&runs[1]);
            return Err(ScalingError::NoCommonRegion(lacking.file.clone()));
        }
        let mut regions = Vec::new();
        for (index, name) in names.iter().enumerate() {
            let mut samples: HashMap<&XValue, (Vec<f64>, Vec<f64>)> = HashMap::new();
            for (run, x) in runs.iter().zip(&xs) {
                let Some(row) = run.row(name) else { continue };
                let Some(d) = row.avg.filter(|d| d.is_finite() && *d > 0.0) else {
                    continue;
                };
                let entry = samples.entry(x).or_default();
                entry.0.push(d);
                let ranks = row.num_ranks.max(1) as f64;
                entry.1.push(row.total.unwrap_or(0.0) / ranks);
            }
            let Some(base) = samples.get(&baseline).map(|s| mean(&s.0)) else {
                continue;
            };
            let points: Vec<Point> = keys
                .iter()
                .filter_map(|key| {
                    let (durations, per_rank) = samples.get(key)?;
                    let time = mean(durations);
                    let speedup = base / time;
                    Some(Point {
                        x: key.clone(),
                        time,
                        per_rank: mean(per_rank),
                        speedup,
                        efficiency: axis
                            .is_scaling()
                            .then(|| speedup / (key.number().unwrap_or(1.0) / base_x)),
                        normalized_runtime: time / base,
                        weak_efficiency: base / time,
                    })
                })
                .collect();
            regions.push(RegionCurve {
                name: name.to_string(),
                index,
                points,
            });
        }
        Ok(ScalingTable {
            axis,
            keys,
            baseline,
            regions,
        })
    }

    /// The title of the chart of `kind` (`… (baseline: MPI ranks = 1)`).
    pub fn title(&self, kind: Kind) -> String {
        format!(
            "{} (baseline: {} = {})",
            kind.title(),
            self.axis.label(),
            self.baseline
        )
    }
}

impl From<AxisError> for ScalingError {
    fn from(e: AxisError) -> Self {
        ScalingError::Axis(e)
    }
}

/// A region's fitted model ([`model::fit_model`] over its points' time per rank).
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    pub region: String,
    /// `None` below [`model::MIN_POINTS`] points or on an axis that is not numeric.
    pub model: Option<model::Model>,
}

/// Each region's share of the time at a scale no run reached.
#[derive(Debug, Clone, PartialEq)]
pub struct Prediction {
    pub x: f64,
    /// (region, predicted time per rank, its share of the regions' sum, its share at the
    /// largest measured point), largest predicted share first.
    pub regions: Vec<(String, f64, f64, f64)>,
    /// The region whose share grows the most from the largest measured point to `x`:
    /// the one that stops scaling first.
    pub first_to_stop: Option<String>,
}

impl ScalingTable {
    /// Every region's model.
    pub fn models(&self) -> Vec<Fitted> {
        self.regions
            .iter()
            .map(|r| {
                let x: Option<Vec<f64>> = r.points.iter().map(|p| p.x.number()).collect();
                let y: Vec<f64> = r.points.iter().map(|p| p.per_rank).collect();
                Fitted {
                    region: r.name.clone(),
                    model: x.and_then(|x| model::fit_model(&x, &y)),
                }
            })
            .collect()
    }

    /// The regions' shares at `x` by their models (regions without one left out).
    pub fn predict(&self, models: &[Fitted], x: f64) -> Prediction {
        let last = self.keys.last();
        let mut regions: Vec<(String, f64, f64)> = Vec::new();
        for (curve, fitted) in self.regions.iter().zip(models) {
            let Some(m) = &fitted.model else { continue };
            let measured = curve
                .points
                .iter()
                .find(|p| Some(&p.x) == last)
                .map_or(0.0, |p| p.per_rank);
            regions.push((curve.name.clone(), m.at(x).max(0.0), measured));
        }
        let total: f64 = regions.iter().map(|r| r.1).sum();
        let measured_total: f64 = regions.iter().map(|r| r.2).sum();
        let share = |v: f64, t: f64| if t > 0.0 { v / t } else { 0.0 };
        let mut rows: Vec<(String, f64, f64, f64)> = regions
            .into_iter()
            .map(|(n, v, m)| (n, v, share(v, total), share(m, measured_total)))
            .collect();
        rows.sort_stable_by(|a, b| b.2.total_cmp(&a.2));
        let first_to_stop = rows
            .iter()
            .filter(|r| r.2 > r.3)
            .max_by(|a, b| (a.2 - a.3).total_cmp(&(b.2 - b.3)))
            .map(|r| r.0.clone());
        Prediction {
            x,
            regions: rows,
            first_to_stop,
        }
    }
}
