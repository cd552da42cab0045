//! `sp runs`: the runs table over many profiles ([`sp::analysis::runs`]).

use clap::Args;
use sp::analysis::compare::Metric;
use sp::analysis::runs::{self, RunsOptions, RunsTable};
use sp::analysis::Selection;

use super::{many, Failure};

/// One row per run: file, label, host, start, ranks, nodes, threads, cores, wall time
///
/// Reads only each profile's index (its stored statistics), so thousands of files take
/// seconds. The wall-time change is against the first run, or --baseline. Files that
/// cannot be read are named on stderr and left out, unless --strict.
///
/// Examples:
///   sp runs sweep/                      (every .h5 under sweep/)
///   sp runs run_*.h5 --region solve 'mpi_.*' --metric avg
///   sp runs runs/ --group-by git_commit --format csv
///   sp runs before.h5 after.h5 --changes 5
///
/// JSON (--format json) is {"metric", "baseline", "regions", "group_by", "failed",
/// "runs": [{"file", "label", "host", "start", "ranks", "nodes", "threads", "cores",
/// "wall", "wall_pct", "<region> <metric>"...}]}; with --group-by "groups" instead of
/// "runs", each with the key's value, "runs" and the mean, median, min, max and cv of
/// the wall time and of each region. CSV has one line per record, the same keys.
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct Opts {
    /// Profiles, directories of profiles, or quoted patterns (`'runs/*.h5'`).
    #[arg(required = true)]
    files: Vec<String>,
    /// The run the others are compared with (default: the first).
    #[arg(long, value_name = "FILE")]
    baseline: Option<String>,
    /// One column per region whose name matches one of these regexes.
    #[arg(long, num_args = 1.., value_name = "NAME|PATTERN")]
    region: Option<Vec<String>>,
    /// Statistic of the --region columns (any sp diff metric).
    #[arg(long, default_value = "total", value_parser = super::options::named(&Metric::ALL))]
    metric: Metric,
    /// Pool runs that share this metadata field (mean, median, min, max, cv).
    #[arg(long, value_name = "KEY")]
    group_by: Option<String>,
    /// "What changed": each run's N largest own-time improvements and regressions.
    #[arg(long, value_name = "N")]
    changes: Option<usize>,
    /// Fail on the first file that cannot be read.
    #[arg(long)]
    strict: bool,
    #[command(flatten)]
    format: super::options::FormatArg,
}

pub fn run(opts: Opts) -> Result<(), Failure> {
    let regions = opts
        .region
        .as_deref()
        .map(|r| Selection::new(Some(r), None, None))
        .transpose()?;
    let mut files = sp::io::inputs::expand(&opts.files)?;
    // A baseline that is not among the files is read first.
    let base = opts.baseline.as_ref().map(std::path::PathBuf::from);
    if let Some(b) = base.as_ref().filter(|b| !files.contains(b)) {
        files.insert(0, b.clone());
    }
    let (runs, failed) = many::read(&files, &Selection::all(), opts.metric, opts.strict)?;
    if runs.is_empty() {
        return Err(Failure::new("no profile could be read"));
    }
    let base_file = base.as_ref().unwrap_or(&files[0]).display().to_string();
    let options = RunsOptions {
        baseline: runs.iter().position(|r| r.file == base_file).unwrap_or(0),
        regions,
        metric: opts.metric,
        group_by: opts.group_by,
    };
    let table = RunsTable::new(&runs, &options);
    let changes = opts
        .changes
        .map(|n| runs::changes::changes(&runs, options.baseline, n));
    let format = opts.format.format;
    super::terminal::print(|out, show| {
        runs::write_runs(out, format, show, &table, &failed, changes.as_deref())
    })
}
