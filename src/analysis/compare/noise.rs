//! The noise-aware regression gate (`sp check --baseline A… --candidate B…`): repeated
//! runs on each side, and per region Welch's unequal-variance t-test over the runs'
//! values of the metric (one value per run: the region's total, by default). A region
//! fails only when the candidate's mean is more than the budget above the baseline's
//! **and** the one-sided test says the candidate is slower at the confidence asked for,
//! so run-to-run noise alone does not fail a build and a real slowdown is still caught.
//!
//! The t distribution is computed here ([`crate::analysis::runs::stats`]: the regularized
//! incomplete beta function), so the page runs the same test. Each region is tested on
//! its own, with no correction for testing many regions: the budget, which noise must
//! also exceed, keeps false failures rare (docs/runs.md measures the rates).

use crate::sort::SortSlice;
use std::collections::BTreeMap;
use std::fmt;
use std::io::{self, Write};

use serde_json::{json, Map, Value as Json};

use super::Metric;
use crate::analysis::report::format::python_g;
use crate::analysis::report::Format;
use crate::analysis::runs::records::{num, opt, opt_str, write_records, Record};
use crate::analysis::runs::stats::{mean, welch_greater, Welch};
use crate::analysis::runs::Run;
use crate::analysis::units::signed_pct;
use crate::text::Show;

/// What the gate tests.
#[derive(Debug, Clone, PartialEq)]
pub struct NoiseOptions {
    pub metric: Metric,
    /// The largest allowed slowdown of a region's mean, percent.
    pub max_regression: f64,
    /// The confidence that a flagged slowdown is not noise, in (0, 1).
    pub confidence: f64,
    /// Test the runs of each value of this metadata key apart (baseline and candidate runs
    /// of the same value against each other).
    pub group_by: Option<String>,
}

impl Default for NoiseOptions {
    fn default() -> NoiseOptions {
        NoiseOptions {
            metric: Metric::Total,
            max_regression: 0.0,
            confidence: 0.95,
            group_by: None,
        }
    }
}

/// One region (of one group) tested.
#[derive(Debug, Clone, PartialEq)]
pub struct RegionTest {
    /// The group's value of the `group_by` key (`None`: not grouped, or not recorded).
    pub group: Option<String>,
    pub name: String,
    /// The runs on each side that have a value of the metric for the region.
    pub baseline_runs: usize,
    pub candidate_runs: usize,
    /// The mean over those runs (`None` without any).
    pub baseline_mean: Option<f64>,
    pub candidate_mean: Option<f64>,
    /// `100 · (candidate − baseline) / baseline` of the means.
    pub pct: Option<f64>,
    /// The test (`None` below two runs on a side: the region is not tested).
    pub welch: Option<Welch>,
    pub flagged: bool,
}

/// The gate's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct NoiseOutcome {
    pub options: NoiseOptions,
    pub baseline: Vec<String>,
    pub candidate: Vec<String>,
    /// Largest slowdown first; untested regions last, by name.
    pub rows: Vec<RegionTest>,
}

impl NoiseOutcome {
    /// The flagged regions, in row order.
    pub fn flagged(&self) -> impl Iterator<Item = &RegionTest> {
        self.rows.iter().filter(|r| r.flagged)
    }

    /// Whether no region is flagged.
    pub fn passed(&self) -> bool {
        self.flagged().next().is_none()
    }
}

/// Why the gate cannot run.
#[derive(Debug, Clone, PartialEq)]
pub enum NoiseError {
    /// A side with fewer than two runs (`baseline` or `candidate`, the count).
    TooFewRuns(&'static str, usize),
    /// A confidence outside (0, 1).
    Confidence(f64),
    /// A negative budget.
    Budget(f64),
    /// No group value is on both sides (the key).
    NoCommonGroup(String),
    /// No region is on both sides.
    NoCommonRegion,
}

impl fmt::Display for NoiseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NoiseError::TooFewRuns(side, n) => write!(
                f,
                "--{side}: Welch's test needs at least two runs a side, and was given {n}"
            ),
            NoiseError::Confidence(c) => write!(
                f,
                "--confidence must be between 0 and 1 (0.95 for 95 %), not {}",
                python_g(*c, 6)
            ),
            NoiseError::Budget(b) => write!(
                f,
                "--max-regression: the maximum regression must be non-negative, not {}%",
                python_g(*b, 6)
            ),
            NoiseError::NoCommonGroup(key) => write!(
                f,
                "--group-by {key}: no value of {key} is in both the baseline and the candidate runs"
            ),
            NoiseError::NoCommonRegion => {
                write!(
                    f,
                    "no region is in both the baseline and the candidate runs"
                )
            }
        }
    }
}

impl std::error::Error for NoiseError {}

/// One region's verdict from its per-run values `a` (baseline) and `b` (candidate): the
/// change of the means in percent, Welch's one-sided test that `b` is slower, and whether
/// both the budget and the confidence are exceeded.
pub fn test_samples(
    a: &[f64],
    b: &[f64],
    max_regression: f64,
    confidence: f64,
) -> (Option<f64>, Option<Welch>, bool) {
    let (ma, mb) = (mean(a), mean(b));
    let pct = (!a.is_empty() && !b.is_empty() && ma != 0.0).then(|| 100.0 * (mb - ma) / ma);
    let welch = welch_greater(a, b);
    let flagged = matches!((pct, welch), (Some(pct), Some(w)) if pct > max_regression && w.p < 1.0 - confidence);
    (pct, welch, flagged)
}

/// Tests every region of `candidate` against `baseline` (each run read as
/// [`Metric::reading`] says).
pub fn noise_check(
    baseline: &[Run],
    candidate: &[Run],
    options: &NoiseOptions,
) -> Result<NoiseOutcome, NoiseError> {
    for (side, runs) in [("baseline", baseline), ("candidate", candidate)] {
        if runs.len() < 2 {
            return Err(NoiseError::TooFewRuns(side, runs.len()));
        }
    }
    if !(options.confidence > 0.0 && options.confidence < 1.0) {
        return Err(NoiseError::Confidence(options.confidence));
    }
    if options.max_regression < 0.0 {
        return Err(NoiseError::Budget(options.max_regression));
    }
    let key = options.group_by.as_deref();
    let group_of = |r: &Run| key.and_then(|k| r.meta(k)).map(str::to_string);
    let mut groups: Vec<Option<String>> = Vec::new();
    for run in baseline {
        let g = group_of(run);
        if !groups.contains(&g) && candidate.iter().any(|c| group_of(c) == g) {
            groups.push(g);
        }
    }
    if groups.is_empty() {
        return Err(NoiseError::NoCommonGroup(key.unwrap_or("").to_string()));
    }
    let mut rows = Vec::new();
    for group in groups {
        let side = |runs: &[Run]| {
            let mut samples: BTreeMap<String, Vec<f64>> = BTreeMap::new();
            for run in runs.iter().filter(|r| group_of(r) == group) {
                for row in &run.rows {
                    if let Some(v) = options.metric.of(row).filter(|v| v.is_finite()) {
                        samples.entry(row.name.clone()).or_default().push(v);
                    }
                }
            }
            samples
        };
        let (a, b) = (side(baseline), side(candidate));
        for (name, a) in &a {
            let Some(b) = b.get(name) else { continue };
            let (pct, welch, flagged) =
                test_samples(a, b, options.max_regression, options.confidence);
            rows.push(RegionTest {
                group: group.clone(),
                name: name.clone(),
                baseline_runs: a.len(),
                candidate_runs: b.len(),
                baseline_mean: Some(mean(a)),
                candidate_mean: Some(mean(b)),
                pct,
                welch,
                flagged,
            });
        }
    }
    if rows.is_empty() {
        return Err(NoiseError::NoCommonRegion);
    }
    let key = |r: &RegionTest| match (r.welch, r.pct) {
        (Some(_), Some(p)) => p,
        _ => f64::NEG_INFINITY,
    };
    rows.sort_stable_by(|x, y| key(y).total_cmp(&key(x)));
    let files = |runs: &[Run]| runs.iter().map(|r| r.file.clone()).collect();
    Ok(NoiseOutcome {
        options: options.clone(),
        baseline: files(baseline),
        candidate: files(candidate),
        rows,
    })
}

/// Writes `outcome` as a text report, JSON or CSV.
///
/// JSON: `{"metric", "max_regression", "confidence", "group_by", "baseline": [file…],
/// "candidate": [file…], "passed", "flagged": [name…], "rows": [{("<key>"), "region",
/// "baseline_runs", "candidate_runs", "baseline_mean", "candidate_mean", "pct", "t", "df",
/// "p", "flagged"}]}`; CSV: one line per row with those keys.
pub fn write_noise(
    out: &mut impl Write,
    format: Format,
    show: Show,
    outcome: &NoiseOutcome,
) -> io::Result<()> {
    let o = &outcome.options;
    let table = format == Format::Table;
    let records: Vec<Record> = (outcome.rows.iter())
        .map(|r| {
            let mut rec: Record = Vec::new();
            if let Some(key) = &o.group_by {
                rec.push((key.clone(), opt_str(r.group.as_deref())));
            }
            let w = r.welch;
            rec.push(("region".into(), Json::String(r.name.clone())));
            rec.push(("baseline_runs".into(), json!(r.baseline_runs)));
            rec.push(("candidate_runs".into(), json!(r.candidate_runs)));
            rec.push(("baseline_mean".into(), opt(r.baseline_mean)));
            rec.push(("candidate_mean".into(), opt(r.candidate_mean)));
            rec.push(match (table, r.pct) {
                (true, Some(p)) => ("change".into(), Json::String(signed_pct(p))),
                _ => ("pct".into(), opt(r.pct)),
            });
            rec.push(("t".into(), opt(w.map(|w| w.t))));
            rec.push(("df".into(), opt(w.map(|w| w.df))));
            rec.push(("p".into(), opt(w.map(|w| w.p))));
            rec.push(match (table, w) {
                (true, None) => ("verdict".into(), json!("untested")),
                (true, _) => (
                    "verdict".into(),
                    json!(if r.flagged { "SLOWER" } else { "ok" }),
                ),
                _ => ("flagged".into(), json!(r.flagged)),
            });
            rec
        })
        .collect();
    let flagged: Vec<&str> = outcome.flagged().map(|r| r.name.as_str()).collect();
    let mut head = Map::new();
    if table {
        let verdict = if outcome.passed() { "PASS" } else { "FAIL" };
        let mut s = format!(
            "Baseline: {} runs\nCandidate: {} runs\n",
            outcome.baseline.len(),
            outcome.candidate.len()
        );
        s.push_str(&format!(
            "Noise-aware check: {verdict} ({}: fails above +{}% when Welch's test puts the slowdown at {}% confidence)\n",
            o.metric.name(),
            python_g(o.max_regression, 6),
            python_g(100.0 * o.confidence, 6)
        ));
        out.write_all(s.as_bytes())?;
        write_records(out, format, show, head, "rows", &records)?;
        if !flagged.is_empty() {
            let names: Vec<_> = flagged.iter().map(|n| show.text(n)).collect();
            writeln!(out, "Regressions: {}", names.join(", "))?;
        }
        return Ok(());
    }
    head.insert("metric".into(), json!(o.metric.name()));
    head.insert("max_regression".into(), num(o.max_regression));
    head.insert("confidence".into(), num(o.confidence));
    head.insert("group_by".into(), opt_str(o.group_by.as_deref()));
    head.insert("baseline".into(), json!(outcome.baseline));
    head.insert("candidate".into(), json!(outcome.candidate));
    head.insert("passed".into(), json!(outcome.passed()));
    head.insert("flagged".into(), json!(flagged));
    write_records(out, format, show, head, "rows", &records)
}

#[cfg(test)]
mod tests;
