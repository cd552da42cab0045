//! `sp diff` and `sp check`: the shell over [`sp::analysis::compare`] — arguments, the two
//! files (read on two threads), and the exit status of a check.

use std::path::{Path, PathBuf};

use clap::Args;
use sp::analysis::compare::{self, Budget, DiffOptions, DiffOrder, Metric, Side};
use sp::schema::Profile;

use super::local_file::open_profile;
use super::options::{named, FormatArg, RegionFilter};
use super::terminal::print;
use super::Failure;

/// Compare region statistics between two profiles, or more
///
/// One row per region either profile has: the metric in a (the baseline) and b, the
/// delta b − a and the change in percent of a; then the regions only one side has.
/// With three files or more (or --baseline), one column per run and each run's change
/// against the baseline (#0 unless --baseline), which equal `sp diff BASELINE RUN`.
///
/// Examples:
///   sp diff before.h5 after.h5
///   sp diff before.h5 after.h5 --metric p95 --sort pct --threshold 5
///   sp diff before.h5 after.h5 --ranks 0-3 --format json
///   sp diff a.h5 b.h5 c.h5 --baseline 1 --format csv
///
/// JSON (--format json) is one document: {"a": side, "b": side, "metric", "sort",
/// "threshold", "rows": [{"name", "a", "b", "delta", "pct"}], "only_in_a", "only_in_b",
/// "warnings"}, each side {"file", "label", "num_ranks"}; values at full precision in the
/// metric's unit, null where there is none. CSV (--format csv) has one line per row.
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct DiffOpts {
    #[command(flatten)]
    common: Common,
    /// Row order: descending |delta|, descending |delta %|, or by name.
    #[arg(long, default_value = "delta", value_parser = named(&DiffOrder::ALL))]
    sort: DiffOrder,
    /// Only show regions whose absolute percent change is at least this.
    #[arg(long, value_name = "PCT")]
    threshold: Option<f64>,
    /// The run the others are compared with: its index (0 = first), file or label.
    #[arg(long, value_name = "INDEX|LABEL")]
    baseline: Option<String>,
}

/// Fail when a candidate profile exceeds a regression budget
///
/// Exits 0 when every region of b is within the budget of a, 1 when one is not (or a
/// file cannot be read, or the budget is negative), 2 on a usage error.
///
/// Examples:
///   sp check baseline.h5 candidate.h5 --max-regression 5
///   sp check baseline.h5 candidate.h5 --max-regression 10 --metric p99 --fail-on-new
///   sp check --baseline 'main/*.h5' --candidate 'pr/*.h5' --max-regression 5
///
/// With repeated runs (--baseline A… --candidate B…), each region's metric per run is
/// tested with Welch's unequal-variance t-test (one-sided: is the candidate slower?). A
/// region fails only when its mean is more than --max-regression slower AND the test is
/// significant at --confidence. Runs needed (seeded noise, 10 regions, --max-regression
/// 5, docs/runs.md): at 2 % run-to-run noise 5 runs a side catch a 10 % slowdown with no
/// false failures; at 5 % noise 5 runs give false failures in 28 % of checks and miss 15 %,
/// 11 runs 10 % and 2 %, 20 runs under 1 %.
///
/// JSON (--format json) is the document of sp diff with "max_regression",
/// "fail_on_new", "passed" and "violations" (names) instead of "threshold", and a
/// "violation" flag on every row; CSV has a violation column.
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct CheckOpts {
    #[command(flatten)]
    common: Common,
    /// Maximum allowed increase, in percent.
    #[arg(
        long,
        value_name = "PCT",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    max_regression: f64,
    /// Treat regions absent from the baseline as failures.
    #[arg(long)]
    fail_on_new: bool,
    #[command(flatten)]
    noise: super::compare_many::NoiseArgs,
}

/// The arguments diff and check share.
#[derive(Debug, Args)]
struct Common {
    /// The baseline profile (a), then the profile compared with it (b); diff takes more.
    files: Vec<PathBuf>,
    #[command(flatten)]
    filter: RegionFilter,
    /// Statistic to compare.
    #[arg(long, default_value = "total", value_parser = named(&Metric::ALL))]
    metric: Metric,
    #[command(flatten)]
    format: FormatArg,
}

/// Both profiles, read as the metric needs (on two threads), with the names they go by.
struct Loaded {
    profiles: [Profile; 2],
    names: [String; 2],
}

impl Common {
    fn load(&self) -> Result<Loaded, Failure> {
        let [file_a, file_b] = self.files.as_slice() else {
            return Err(Failure::usage(
                "give two profiles: the baseline, the candidate",
            ));
        };
        let metric = self.metric;
        let (a, b) = std::thread::scope(|scope| {
            let a = scope.spawn(|| read(file_a, metric));
            let b = read(file_b, metric);
            let a = a.join();
            (
                a.unwrap_or_else(|_| Err(Failure::new("a reader thread panicked"))),
                b,
            )
        });
        let names = [file_a, file_b].map(|f| sp::paths::relative_to_cwd(f));
        Ok(Loaded {
            profiles: [a?, b?],
            names,
        })
    }
}

/// Reads `path` as `metric` needs.
fn read(path: &Path, metric: Metric) -> Result<Profile, Failure> {
    (open_profile(path)?)
        .into_profile(metric.reading())
        .map_err(|e| Failure::analysis(path, e))
}

pub fn run_diff(opts: DiffOpts) -> Result<(), Failure> {
    let c = &opts.common;
    let options = DiffOptions {
        metric: c.metric,
        order: opts.sort,
        threshold: opts.threshold,
    };
    if c.files.len() != 2 || opts.baseline.is_some() {
        let (b, sel) = (opts.baseline.as_deref(), c.filter.selection()?);
        return super::compare_many::run_diff(&c.files, &sel, b, &options, c.format.format);
    }
    let (selection, format) = (c.filter.selection()?, c.format.format);
    let loaded = c.load()?;
    let [a, b] = &loaded.profiles;
    let comparison = compare::diff(a, b, &selection, &options);
    let (a, b) = Side::pair(&loaded.names, &loaded.profiles);
    let printed =
        print(|out, show| compare::write_diff_shown(out, format, show, &a, &b, &comparison));
    std::mem::forget(loaded); // the process ends: freeing 2 x 10^6 rows took 0.15 s
    printed
}

/// Runs the check; `Ok(false)` when the budget is broken.
pub fn run_check(opts: CheckOpts) -> Result<bool, Failure> {
    let c = &opts.common;
    if !opts.noise.baseline.is_empty() {
        let (files, sel) = (&c.files, c.filter.selection()?);
        let (m, f) = (c.metric, c.format.format);
        return super::compare_many::run_check(&opts.noise, files, &sel, m, opts.max_regression, f);
    }
    // After the reads, as the reference refuses a negative budget (exit 1, nothing on
    // stdout) only once both files are read.
    let (selection, format) = (c.filter.selection()?, c.format.format);
    let loaded = c.load()?;
    let budget = Budget::new(opts.max_regression, opts.fail_on_new)
        .map_err(|e| Failure::new(format!("--max-regression: {e}")))?;
    let [a, b] = &loaded.profiles;
    let outcome = compare::check(a, b, &selection, c.metric, budget);
    let (a, b) = Side::pair(&loaded.names, &loaded.profiles);
    print(|out, show| compare::write_check_shown(out, format, show, &a, &b, &outcome))?;
    Ok(outcome.passed())
}
