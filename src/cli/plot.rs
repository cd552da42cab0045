//! `sp plot`: the shell over [`sp::chart::plot`] — arguments, the profiles opened, and each
//! chart drawn in full before its file is written atomically.

use std::path::PathBuf;

use clap::Args;
use sp::chart::color::Theme;
use sp::chart::plot::{self, Input, Metric, PlotOptions};

use super::local_file::{open_profile, profile_index};
use super::options::RegionFilter;
use super::output::{prepare, AtomicOutput};
use super::Failure;

/// Draw charts of profiles as SVG or PNG, with no Python (`sp plot list` names the kinds)
///
/// One kind writes OUT.svg or OUT.png; a preset (default, quick, all) writes one file per
/// kind into the directory OUT (`gantt_plot.svg` …). Times are in seconds from the first call.
///
/// Examples:
///   sp plot gantt run.h5 -o gantt.svg --ranks 0-3
///   sp plot durations run.h5 -o durations.png --sort-by avg --top-n 10
///   sp plot all run.h5 -o charts/ --theme dark
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct Opts {
    /// The plot kind or preset, or `list`.
    #[arg(value_parser = clap::builder::PossibleValuesParser::new(plot::NAMES))]
    kind: String,
    /// Profiles, directories of profiles or quoted patterns (scaling kinds: two or more).
    files: Vec<String>,
    /// Output file (one kind: .svg or .png) or directory (a preset).
    #[arg(short, long)]
    output: Option<PathBuf>,
    #[command(flatten)]
    filter: RegionFilter,
    #[arg(long, value_name = "SECONDS")]
    start_time: Option<f64>,
    #[arg(long, value_name = "SECONDS")]
    end_time: Option<f64>,
    /// Hide calls shorter than this.
    #[arg(long, value_name = "SECONDS")]
    min_duration: Option<f64>,
    /// Flame chart: only calls at nesting depth N or shallower (0 = top level).
    #[arg(long, value_name = "N")]
    collapse_depth: Option<usize>,
    /// Histogram: duration bins (default 30); density: time bins (default 200).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    bins: Option<u32>,
    /// Durations: the statistic drawn; imbalance: per rank (avg, min, max, total).
    #[arg(long, default_value = "total", value_parser = |s: &str| Metric::parse(s).ok_or("avg, min, max, total, first or last"))]
    metric: Metric,
    /// Durations: order by name or a statistic, descending (default: the profile's order).
    #[arg(long, value_parser = ["name", "avg", "min", "max", "total"])]
    sort_by: Option<String>,
    #[arg(long, value_name = "N")]
    top_n: Option<usize>,
    #[arg(long)]
    log_scale: bool,
    /// Durations: split each bar into own time and the regions it calls (total, avg).
    #[arg(long)]
    stack_children: bool,
    /// Merge regions into named bars: NAME=PATTERN[,PATTERN…].
    #[arg(long, num_args = 1.., value_name = "NAME=PATTERN", value_parser = |s: &str| plot::parse_combine(s).ok_or("expected NAME=PATTERN[,PATTERN…]"))]
    combine_regions: Vec<(String, Vec<String>)>,
    #[arg(long, default_value = "light", value_parser = super::options::named(&Theme::ALL))]
    theme: Theme,
    /// Document width in pixels.
    #[arg(long, default_value_t = 1200, value_parser = clap::value_parser!(u32).range(400..=20000))]
    width: u32,
    /// scaling_model: each model's time at this scale too, as `sp scaling --predict X`.
    #[arg(long, value_name = "X")]
    predict: Option<f64>,
    /// A preset's file format.
    #[arg(long, default_value = "svg", value_parser = ["svg", "png"])]
    format: String,
}

pub fn run(o: Opts) -> Result<(), Failure> {
    if o.kind == "list" {
        print!("{}", plot::list_text());
        return Ok(());
    }
    let (Some(output), false) = (&o.output, o.files.is_empty()) else {
        return Err(Failure::usage("sp plot needs profiles and -o OUTPUT"));
    };
    let opts = PlotOptions {
        selection: o.filter.selection()?,
        window: plot::window(o.start_time, o.end_time, o.min_duration, o.collapse_depth),
        bins: o.bins.map(|b| b as usize),
        metric: o.metric,
        sort_by: o.sort_by.clone(),
        top_n: o.top_n,
        log_scale: o.log_scale,
        stack_children: o.stack_children,
        combine: o.combine_regions.clone(),
        theme: o.theme,
        width: o.width as f32,
        predict: o.predict,
        ..PlotOptions::default()
    };
    let paths = sp::io::inputs::expand(&o.files)?;
    let files = (paths.iter().map(|p| open_profile(p))).collect::<Result<Vec<_>, _>>()?;
    let loaded = (paths.iter().zip(&files))
        .map(|(path, h5)| profile_index(path, h5))
        .collect::<Result<Vec<_>, _>>()?;
    let inputs: Vec<Input> = (paths.iter().zip(&loaded))
        .map(|(f, (p, r, l))| Input::new(&f.to_string_lossy(), p, r.as_ref(), l))
        .collect();
    let preset = plot::Kind::parse(&o.kind).is_none();
    if preset {
        std::fs::create_dir_all(output).map_err(|e| Failure::io(output, "cannot create", e))?;
    }
    // Every chart is drawn before any file is published.
    let mut done = Vec::new();
    for (kind, out) in plot::jobs(&o.kind, paths.len(), &output.to_string_lossy(), &o.format) {
        let out = PathBuf::from(out);
        prepare(&out)?;
        match plot::render(kind, &inputs, &opts, &out.to_string_lossy()) {
            Ok(bytes) => done.push(AtomicOutput::with_bytes(&out, &bytes)?),
            Err(e) if preset => eprintln!("sp: {}: no {}: {e}", paths[0].display(), kind.name()),
            Err(e) => return Err(Failure::analysis(&paths[0], e)),
        }
    }
    Ok(done.into_iter().try_for_each(AtomicOutput::commit)?)
}
