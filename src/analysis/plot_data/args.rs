//! The options of `export plot-data` as the command line spells them (the reference's
//! names and defaults), for the `cli` feature's parser, and the [`Request`] and [`Options`]
//! they ask for.

use clap::Args;

use super::files::{plots, Companion, Request};
use super::{Metric, Options};
use crate::analysis::Selection;

fn metric(s: &str) -> Result<Metric, &'static str> {
    Metric::parse(s).ok_or("avg, min, max, total, first or last")
}

/// The options of `sp export plot-data` (the reference's, with its defaults).
#[derive(Debug, Args)]
pub struct PlotDataArgs {
    /// plot-data: the kinds (default: durations gantt); bare --plots: none.
    #[arg(short, long, num_args = 0.., value_name = "KIND")]
    plots: Option<Vec<String>>,
    /// plot-data: csv or json files (parquet is not supported).
    #[arg(long = "format", default_value = "csv", value_parser = ["csv", "json", "parquet"])]
    data_format: String,
    /// plot-data: a name for each file, once per file in order (default: label or stem).
    #[arg(long)]
    label: Vec<String>,
    /// plot-data durations: the statistics (avg, min, max, total, first, last).
    #[arg(long, num_args = 1.., default_value = "total", value_parser = metric)]
    metrics: Vec<Metric>,
    /// plot-data imbalance: the statistic per rank (avg, min, max, total).
    #[arg(long, default_value = "total", value_parser = metric)]
    imbalance_metric: Metric,
    /// plot-data durations: order by name or a statistic, descending; --top-n: keep N bars.
    #[arg(long, value_parser = ["name", "avg", "min", "max", "total"])]
    sort_by: Option<String>,
    #[arg(long, value_name = "N")]
    top_n: Option<usize>,
    /// plot-data durations: merge regions into bars, NAME=PATTERN[,PATTERN…].
    #[arg(long, num_args = 1.., value_name = "NAME=PATTERN", value_parser = |s: &str| crate::chart::plot::parse_combine(s).ok_or("expected NAME=PATTERN[,PATTERN…]"))]
    combine_regions: Vec<(String, Vec<String>)>,
    /// plot-data durations: split each bar into own time and the regions it calls (total, avg).
    #[arg(long)]
    stack_children: bool,
    /// plot-data histogram, density: the number of bins.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    bins: u32,
    /// plot-data gantt, density: the window, seconds from the first call; calls shorter
    /// than --min-duration left out; --aggregate-calls N: one bar per N calls;
    /// --collapse-depth N: calls at depth N or shallower.
    #[arg(long, value_name = "SECONDS")]
    start_time: Option<f64>,
    #[arg(long, value_name = "SECONDS")]
    end_time: Option<f64>,
    #[arg(long, value_name = "SECONDS", default_value_t = 0.0)]
    min_duration: f64,
    #[arg(long, value_name = "N", default_value_t = 1)]
    aggregate_calls: u32,
    #[arg(long, value_name = "N")]
    collapse_depth: Option<u32>,
    /// plot-data callgraph: one node per region (--fluid-callgraph too: its layout is no data).
    #[arg(long)]
    compact_callgraph: bool,
    #[arg(long)]
    fluid_callgraph: bool,
    /// plot-data speedup and scaling kinds: the x axis (num_ranks, num_nodes,
    /// omp_num_threads, total_cores or a metadata field).
    #[arg(long, default_value = "num_ranks", value_name = "FIELD")]
    x: String,
    /// plot-data: also the non-plot exports: prof (profile_rank<N>.prof), speedscope
    /// (profile.speedscope.json) or all; bare --with: all. flamegraph is not written.
    #[arg(long = "with", num_args = 0.., value_name = "KIND")]
    companions: Option<Vec<String>>,
    /// prof: one entry per region (all its calls), instead of one per call path
    /// (`parent > child`).
    #[arg(long)]
    no_call_paths: bool,
}

impl PlotDataArgs {
    /// What the options ask for over `selection`, for the files at `paths` (absolute); a
    /// usage error as one sentence.
    pub fn request(
        &self,
        selection: Selection,
        paths: Vec<String>,
    ) -> Result<(Request, Options), String> {
        if self.data_format == "parquet" {
            return Err("--format parquet is not supported by sp: use csv or json".into());
        }
        let companions = companions(self.companions.as_deref())?;
        let request = Request {
            plots: plots(self.plots.as_deref())?,
            json: self.data_format == "json",
            metrics: self.metrics.clone(),
            imbalance_metric: self.imbalance_metric,
            labels: (!self.label.is_empty()).then(|| self.label.clone()),
            paths,
            x: self.x.clone(),
            compact_callgraph: self.compact_callgraph || self.fluid_callgraph,
            companions,
            call_paths: !self.no_call_paths,
        };
        let opts = Options {
            selection,
            metric: self.metrics[0],
            sort_by: self.sort_by.clone(),
            top_n: self.top_n,
            combine: self.combine_regions.clone(),
            stack_children: self.stack_children,
            bins: self.bins as usize,
            start_time: self.start_time,
            end_time: self.end_time,
            min_duration: self.min_duration,
        };
        Ok((request, opts))
    }
}

/// `--with`'s kinds: bare or `all` is every one sp writes (the reference skips flameprof's
/// flame graph too when flameprof is missing); `flamegraph` by name is a usage error.
fn companions(asked: Option<&[String]>) -> Result<Vec<Companion>, String> {
    let Some(asked) = asked else {
        return Ok(Vec::new());
    };
    if asked.is_empty() || asked.iter().any(|k| k == "all") {
        return Ok(vec![Companion::Prof, Companion::Speedscope]);
    }
    let mut out = Vec::new();
    for kind in asked {
        let companion = match kind.as_str() {
            "prof" => Companion::Prof,
            "speedscope" => Companion::Speedscope,
            "flamegraph" => {
                return Err(
                    "--with flamegraph is flameprof's SVG, which sp does not write: \
                            run `sp export flamegraph` for sp's own"
                        .into(),
                )
            }
            other => {
                return Err(format!(
                    "--with {other}: not an export (choose from prof, speedscope, flamegraph, all)"
                ))
            }
        };
        if !out.contains(&companion) {
            out.push(companion);
        }
    }
    Ok(out)
}
