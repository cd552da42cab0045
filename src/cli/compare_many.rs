//! `sp diff A B C …` and `sp check --baseline A… --candidate B…`: the shell over
//! [`sp::analysis::compare::nway`] and [`sp::analysis::compare::noise`].

use std::path::PathBuf;

use clap::Args;
use sp::analysis::compare::noise::{self, NoiseOptions};
use sp::analysis::compare::{nway, DiffOptions, Format, Metric};
use sp::analysis::Selection;

use super::terminal::print;
use super::{many, Failure};

/// The noise-aware check's options.
#[derive(Debug, Args)]
pub struct NoiseArgs {
    /// Repeated runs of the baseline build (files, directories or quoted patterns).
    #[arg(long, num_args = 1.., value_name = "FILES", requires = "candidate")]
    pub baseline: Vec<String>,
    /// Repeated runs of the candidate build.
    #[arg(long, num_args = 1.., value_name = "FILES", requires = "baseline")]
    candidate: Vec<String>,
    /// With --baseline/--candidate: how sure a flagged slowdown must be, in (0, 1).
    #[arg(long, default_value_t = 0.95, requires = "baseline")]
    confidence: f64,
    /// With --baseline/--candidate: test the runs of each value of this metadata key apart.
    #[arg(long, value_name = "KEY", requires = "baseline")]
    group_by: Option<String>,
}

/// `sp diff` of three files or more (or two with `--baseline`), directories expanded.
pub fn run_diff(
    files: &[PathBuf],
    sel: &Selection,
    baseline: Option<&str>,
    options: &DiffOptions,
    format: Format,
) -> Result<(), Failure> {
    let args: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let (runs, _) = many::read(&sp::io::inputs::expand(&args)?, sel, options.metric, true)?;
    let fail = |e: nway::NwayError| Failure::usage(e.to_string());
    let base = baseline.map_or(Ok(0), |b| nway::resolve_baseline(b, &runs));
    let table = nway::diff_runs(&runs, base.map_err(fail)?, options).map_err(fail)?;
    print(|out, show| nway::write_many(out, format, show, &runs, &table))
}

/// The noise-aware check; `Ok(false)` when a region is flagged.
pub fn run_check(
    args: &NoiseArgs,
    files: &[PathBuf],
    sel: &Selection,
    metric: Metric,
    max_regression: f64,
    format: Format,
) -> Result<bool, Failure> {
    if !files.is_empty() {
        return Err(Failure::usage(
            "give the runs with --baseline and --candidate only",
        ));
    }
    let read = |side: &[String]| {
        Ok::<_, Failure>(many::read(&sp::io::inputs::expand(side)?, sel, metric, true)?.0)
    };
    let options = NoiseOptions {
        metric,
        max_regression,
        confidence: args.confidence,
        group_by: args.group_by.clone(),
    };
    let outcome = noise::noise_check(&read(&args.baseline)?, &read(&args.candidate)?, &options)
        .map_err(|e| Failure::new(e.to_string()))?;
    print(|out, show| noise::write_noise(out, format, show, &outcome))?;
    Ok(outcome.passed())
}
