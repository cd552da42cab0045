//! `sp export plot-data KIND FILE -o OUT.csv|OUT.json`: the options of
//! [`sp::analysis::plot_data`] parsed, the table computed and written atomically.

use std::path::Path;

use clap::Args;
use sp::analysis::plot_data::{self, Kind, Metric, Options, Run};
use sp::analysis::Selection;

use super::local_file::{open_profile, profile_index};
use super::Failure;

/// The options of `sp export plot-data` (the reference's; the other formats ignore them).
#[derive(Debug, Args)]
pub struct PlotDataOpts {
    /// plot-data durations: the statistic (avg, min, max, total, first, last); imbalance:
    /// per rank (avg, min, max, total).
    #[arg(long, default_value = "total", value_parser = |s: &str| Metric::parse(s).ok_or("avg, min, max, total, first or last"))]
    metric: Metric,
    /// plot-data durations: order by name or a statistic, descending; --top-n: keep N bars.
    #[arg(long, value_parser = ["name", "avg", "min", "max", "total"])]
    sort_by: Option<String>,
    #[arg(long, value_name = "N")]
    top_n: Option<usize>,
    /// plot-data durations: merge regions into bars, NAME=PATTERN[,PATTERN…].
    #[arg(long, num_args = 1.., value_name = "NAME=PATTERN", value_parser = |s: &str| sp::chart::plot::parse_combine(s).ok_or("expected NAME=PATTERN[,PATTERN…]"))]
    combine_regions: Vec<(String, Vec<String>)>,
    /// plot-data durations: split each bar into own time and the regions it calls (total, avg).
    #[arg(long)]
    stack_children: bool,
    /// plot-data histogram, density: the number of bins.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    bins: u32,
    /// plot-data density: the window, seconds from the first call (--min-duration: drop shorter).
    #[arg(long, value_name = "SECONDS")]
    start_time: Option<f64>,
    #[arg(long, value_name = "SECONDS")]
    end_time: Option<f64>,
    #[arg(long, value_name = "SECONDS", default_value_t = 0.0)]
    min_duration: f64,
}

impl PlotDataOpts {
    /// Writes the table of `kind` (a name) for `file` over `selection` to `out` (`.json`:
    /// JSON, else CSV).
    pub fn run(
        &self,
        kind: &Path,
        file: Option<&Path>,
        selection: Selection,
        out: &Path,
    ) -> Result<(), Failure> {
        let kind = Kind::named(&kind.to_string_lossy()).map_err(Failure::usage)?;
        let path = file.ok_or_else(|| Failure::usage("sp export plot-data KIND FILE: no FILE"))?;
        let opts = Options {
            selection,
            metric: self.metric,
            sort_by: self.sort_by.clone(),
            top_n: self.top_n,
            combine: self.combine_regions.clone(),
            stack_children: self.stack_children,
            bins: self.bins as usize,
            start_time: self.start_time,
            end_time: self.end_time,
            min_duration: self.min_duration,
        };
        let h5 = open_profile(path)?;
        let (profile, reader, label) = profile_index(path, &h5)?;
        let input = sp::chart::plot::Input::new("", &profile, reader.as_ref(), &label);
        let run = Run {
            profile: &profile,
            source: input.source,
            label,
        };
        let table = plot_data::table(kind, &run, &opts).map_err(|e| Failure::analysis(path, e))?;
        let json = out
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        super::options::write_atomically(out, &table.bytes(json))
    }
}
