//! `sp scaling`: strong and weak scaling over many profiles, with models
//! ([`sp::analysis::scaling`]).

use clap::Args;
use sp::analysis::compare::Metric;
use sp::analysis::scaling::{self, Axis, Mode, ScalingTable};

use super::options::RegionFilter;
use super::{many, Failure};

/// Speedup and efficiency per region over a scaling series
///
/// Per region in every run: its mean call duration at each point of the axis (runs at
/// one point pooled), the speedup and parallel efficiency against the smallest point
/// (strong), and the normalized runtime and weak-scaling efficiency (weak): the numbers
/// of `scope-profiler export plot-data --plots speedup scaling_efficiency weak_scaling
/// weak_scaling_efficiency`. Reads only each profile's index.
///
/// --model fits each region's time per rank (its total over its ranks) as Extra-P's
/// c0 + c1 · p^i · log2(p)^j, chosen by leave-one-out cross-validation (5 points at
/// least); --predict X ranks the regions by their modelled share at X.
///
/// Examples:
///   sp scaling strong/*.h5 --mode strong
///   sp scaling runs/ --x cores --format csv
///   sp scaling sweep/ --model --predict 1024 --format json
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct Opts {
    /// Profiles, directories of profiles, or quoted patterns.
    #[arg(required = true)]
    files: Vec<String>,
    /// Strong scaling (speedup, efficiency), weak (normalized runtime, efficiency) or both.
    #[arg(long, default_value = "both", value_parser = super::options::named(&Mode::ALL))]
    mode: Mode,
    /// The axis: auto (ranks when they vary, else threads), ranks, nodes, threads,
    /// cores, or a metadata key.
    #[arg(long, default_value = "auto", value_name = "AXIS")]
    x: String,
    #[command(flatten)]
    filter: RegionFilter,
    /// Fit a scaling model per region.
    #[arg(long)]
    model: bool,
    /// Rank the regions by their modelled share at this scale (implies --model).
    #[arg(long, value_name = "X")]
    predict: Option<f64>,
    /// Fail on the first file that cannot be read.
    #[arg(long)]
    strict: bool,
    #[command(flatten)]
    format: super::options::FormatArg,
}

pub fn run(opts: Opts) -> Result<(), Failure> {
    let selection = opts.filter.selection()?;
    let files = sp::io::inputs::expand(&opts.files)?;
    let (runs, _) = many::read(&files, &selection, Metric::Total, opts.strict)?;
    let table = ScalingTable::new(&runs, &Axis::from_name(&opts.x))
        .map_err(|e| Failure::new(e.to_string()))?;
    let models = (opts.model || opts.predict.is_some()).then(|| table.models());
    let prediction = opts
        .predict
        .zip(models.as_deref())
        .map(|(x, m)| table.predict(m, x));
    let (format, mode, models) = (opts.format.format, opts.mode, models.as_deref());
    super::terminal::print(|out, show| {
        scaling::write_scaling(out, format, show, &table, mode, models, prediction.as_ref())
    })
}
