//! The plot kinds of `sp plot` (the reference's names, descriptions and presets) and the
//! options every kind shares, so the CLI and the page ask for a chart the same way.

use super::color::Theme;
use super::scene::Scene;
use crate::analysis::events::RowSource;
use crate::analysis::lanes::Window;
use crate::analysis::runs::Run;
use crate::analysis::{Error, Result, Selection};
use crate::schema::Profile;

/// A plot kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Gantt,
    Density,
    FlameChart,
    FlameGraph,
    Durations,
    Timeseries,
    Speedup,
    WeakScaling,
    WeakScalingEfficiency,
    RankHeatmap,
    ScalingEfficiency,
    Histogram,
    Imbalance,
    /// sp's own: time per rank over the runs with each region's fitted model.
    ScalingModel,
}

/// The names `sp plot` takes: `list`, the presets, and every kind.
pub const NAMES: [&str; 18] = [
    "list",
    "default",
    "quick",
    "all",
    "gantt",
    "density",
    "flame_chart",
    "flame_graph",
    "durations",
    "timeseries",
    "speedup",
    "weak_scaling",
    "weak_scaling_efficiency",
    "rank_heatmap",
    "scaling_efficiency",
    "histogram",
    "imbalance",
    "scaling_model",
];

/// Every kind, in the reference's `plot list` order, then sp's own.
pub const KINDS: [Kind; 14] = [
    Kind::Gantt,
    Kind::Density,
    Kind::FlameChart,
    Kind::FlameGraph,
    Kind::Durations,
    Kind::Timeseries,
    Kind::Speedup,
    Kind::WeakScaling,
    Kind::WeakScalingEfficiency,
    Kind::RankHeatmap,
    Kind::ScalingEfficiency,
    Kind::Histogram,
    Kind::Imbalance,
    Kind::ScalingModel,
];

impl Kind {
    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Gantt => "gantt",
            Kind::Density => "density",
            Kind::FlameChart => "flame_chart",
            Kind::FlameGraph => "flame_graph",
            Kind::Durations => "durations",
            Kind::Timeseries => "timeseries",
            Kind::Speedup => "speedup",
            Kind::WeakScaling => "weak_scaling",
            Kind::WeakScalingEfficiency => "weak_scaling_efficiency",
            Kind::RankHeatmap => "rank_heatmap",
            Kind::ScalingEfficiency => "scaling_efficiency",
            Kind::Histogram => "histogram",
            Kind::Imbalance => "imbalance",
            Kind::ScalingModel => "scaling_model",
        }
    }

    /// The kind named `name`.
    pub fn parse(name: &str) -> Option<Kind> {
        KINDS.iter().copied().find(|k| k.name() == name)
    }

    /// What it shows (the reference's help line).
    pub fn about(self) -> &'static str {
        match self {
            Kind::Gantt => "per-rank timeline of every call",
            Kind::Density => "binned timeline occupancy heatmap",
            Kind::FlameChart => "time-based nested call-stack flame chart",
            Kind::FlameGraph => "aggregated call-stack flame graph",
            Kind::Durations => "bar chart of duration statistics per region",
            Kind::Timeseries => "duration per call over wall-clock time",
            Kind::Speedup => "scaling across multiple files (2+ files only)",
            Kind::WeakScaling => "weak scaling across multiple files (2+ files only)",
            Kind::WeakScalingEfficiency => {
                "weak-scaling efficiency, for runs of constant work per rank"
            }
            Kind::RankHeatmap => "total duration by rank and region",
            Kind::ScalingEfficiency => "measured versus ideal parallel efficiency",
            Kind::Histogram => "call-duration distribution per region",
            Kind::Imbalance => "per-rank duration comparison, to spot stragglers",
            Kind::ScalingModel => "time per rank with each region's fitted model (sp's own)",
        }
    }

    /// The stem of its file in a preset's directory (the reference's `*_plot` names).
    pub fn file_stem(self) -> &'static str {
        match self {
            Kind::Gantt => "gantt_plot",
            Kind::Density => "timeline_density_plot",
            Kind::FlameChart => "flame_chart_plot",
            Kind::FlameGraph => "flame_graph_plot",
            Kind::Durations => "durations_plot",
            Kind::Timeseries => "duration_timeseries_plot",
            Kind::Speedup => "speedup_plot",
            Kind::WeakScaling => "weak_scaling_plot",
            Kind::WeakScalingEfficiency => "weak_scaling_efficiency_plot",
            Kind::RankHeatmap => "rank_heatmap_plot",
            Kind::ScalingEfficiency => "scaling_efficiency_plot",
            Kind::Histogram => "histogram_plot",
            Kind::Imbalance => "imbalance_plot",
            Kind::ScalingModel => "scaling_model_plot",
        }
    }

    /// Whether it compares several runs (it needs two files or more).
    pub fn is_scaling(self) -> bool {
        matches!(
            self,
            Kind::Speedup
                | Kind::WeakScaling
                | Kind::WeakScalingEfficiency
                | Kind::ScalingEfficiency
                | Kind::ScalingModel
        )
    }

    /// Whether it is drawn from the calls in time order (it needs the events).
    pub fn needs_events(self) -> bool {
        !matches!(self, Kind::Durations | Kind::RankHeatmap | Kind::Imbalance) && !self.is_scaling()
    }

    /// The kind of its data in [`crate::analysis::plot_data`], if it is one of those.
    pub fn data(self) -> Option<crate::analysis::plot_data::Kind> {
        use crate::analysis::plot_data::Kind as D;
        Some(match self {
            Kind::Durations => D::Durations,
            Kind::Histogram => D::Histogram,
            Kind::RankHeatmap => D::RankHeatmap,
            Kind::Imbalance => D::Imbalance,
            Kind::Timeseries => D::Timeseries,
            Kind::Density => D::Density,
            _ => return None,
        })
    }
}

/// A preset: several kinds written into one directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preset {
    Default,
    Quick,
    All,
}

impl Preset {
    pub fn parse(name: &str) -> Option<Preset> {
        match name {
            "default" => Some(Preset::Default),
            "quick" => Some(Preset::Quick),
            "all" => Some(Preset::All),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Preset::Default => "default",
            Preset::Quick => "quick",
            Preset::All => "all",
        }
    }

    /// Its kinds, as the reference lists them; the scaling kinds only with `files` ≥ 2.
    pub fn kinds(self, files: usize) -> Vec<Kind> {
        let kinds: Vec<Kind> = match self {
            Preset::Default => vec![Kind::Durations, Kind::Gantt],
            Preset::Quick => vec![
                Kind::Durations,
                Kind::RankHeatmap,
                Kind::ScalingEfficiency,
                Kind::Speedup,
                Kind::WeakScaling,
            ],
            // The reference's kinds: `all` writes the files its `all` writes.
            Preset::All => (KINDS.iter().copied())
                .filter(|&k| k != Kind::ScalingModel)
                .collect(),
        };
        kinds
            .into_iter()
            .filter(|k| files >= 2 || !k.is_scaling())
            .collect()
    }
}

/// The text of `plot list`: the presets, then every kind with what it shows.
pub fn list_text() -> String {
    let mut out = String::from("presets:\n");
    out.push_str("  default    durations, gantt\n");
    out.push_str(
        "  quick      durations, rank_heatmap, scaling_efficiency, speedup, weak_scaling\n",
    );
    out.push_str("  all        every plot kind below (scaling kinds with 2+ files)\n\nplots:\n");
    for k in KINDS {
        let tag = if Preset::Default.kinds(2).contains(&k) {
            "default"
        } else {
            "optional"
        };
        out.push_str(&format!("  {:<24} {} ({tag})\n", k.name(), k.about()));
    }
    out
}

pub use crate::analysis::plot_data::Metric;

/// The window of the command line's seconds: `--start-time`, `--end-time` (from the first
/// call), `--min-duration` and `--collapse-depth`.
pub fn window(
    start: Option<f64>,
    end: Option<f64>,
    min_duration: Option<f64>,
    depth: Option<usize>,
) -> Window {
    let ns = |s: Option<f64>| {
        s.filter(|s| s.is_finite())
            .map(|s| (s * 1e9).round() as i64)
    };
    Window {
        start_ns: ns(start),
        end_ns: ns(end),
        min_duration_ns: ns(min_duration).unwrap_or(0).max(0),
        max_depth: depth,
    }
}

/// What `sp plot NAME` writes: one kind to `output`, or a preset's kinds into the directory
/// `output` as `STEM.ext` (nothing for a name that is neither).
pub fn jobs(name: &str, files: usize, output: &str, ext: &str) -> Vec<(Kind, String)> {
    if let Some(kind) = Kind::parse(name) {
        return vec![(kind, output.to_string())];
    }
    let dir = output.trim_end_matches('/');
    let kinds = Preset::parse(name).map_or_else(Vec::new, |p| p.kinds(files));
    kinds
        .into_iter()
        .map(|k| (k, format!("{dir}/{}.{ext}", k.file_stem())))
        .collect()
}

/// The `<desc>` of a chart: sp's version and the command, the files by name alone (so the
/// bytes do not depend on where the files lie).
pub fn describe(kind: Kind, inputs: &[Input]) -> String {
    command(kind, inputs.iter().map(|i| i.file.as_str()))
}

/// [`describe`] of the files `names`.
fn command<'a>(kind: Kind, names: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.collect();
    format!(
        "Drawn by sp {}: sp plot {} {}",
        env!("CARGO_PKG_VERSION"),
        kind.name(),
        names.join(" ")
    )
}

/// The options every kind shares (each kind reads those it has).
#[derive(Debug, Clone)]
pub struct PlotOptions {
    pub selection: Selection,
    pub window: Window,
    /// Histogram: duration bins (30 unless given); density: time bins (200).
    pub bins: Option<usize>,
    pub metric: Metric,
    /// `name`, `avg`, `min`, `max`, `total`; `None` keeps the profile's order.
    pub sort_by: Option<String>,
    pub top_n: Option<usize>,
    pub log_scale: bool,
    pub stack_children: bool,
    /// `--combine-regions NAME=PATTERN,…`.
    pub combine: Vec<(String, Vec<String>)>,
    pub theme: Theme,
    /// Document width in pixels.
    pub width: f32,
    /// The scaling kinds' x axis (default: ranks when they vary, else threads).
    pub axis: crate::analysis::scaling::Axis,
    /// `scaling_model`: each model's time at this scale too (`sp scaling --predict X`).
    pub predict: Option<f64>,
    /// What drew it, for the `<desc>` (set by [`render`]).
    pub command: String,
}

impl Default for PlotOptions {
    fn default() -> PlotOptions {
        PlotOptions {
            selection: Selection::all(),
            window: Window::default(),
            bins: None,
            metric: Metric::Total,
            sort_by: None,
            top_n: None,
            log_scale: false,
            stack_children: false,
            combine: Vec::new(),
            theme: Theme::Light,
            width: 1200.0,
            axis: crate::analysis::scaling::Axis::Auto,
            predict: None,
            command: String::new(),
        }
    }
}

/// Parses one `--combine-regions` item, `NAME=PATTERN[,PATTERN…]`.
pub fn parse_combine(item: &str) -> Option<(String, Vec<String>)> {
    let (name, patterns) = item.split_once('=')?;
    let patterns: Vec<String> = patterns
        .split(',')
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect();
    (!name.is_empty() && !patterns.is_empty()).then(|| (name.to_string(), patterns))
}

/// One profile to draw: its index, where its calls are read from, and its name.
pub struct Input<'a> {
    pub profile: &'a Profile,
    pub source: &'a dyn RowSource,
    pub label: String,
    /// The file's name (without its directory), for the `<desc>`.
    pub file: String,
}

impl<'a> Input<'a> {
    /// A profile read to its index, with the reader of its events if it stores them by row.
    pub fn new<R: crate::io::ReadAt>(
        file: &str,
        profile: &'a Profile,
        reader: Option<&'a crate::schema::EventReader<'a, R>>,
        label: &str,
    ) -> Input<'a> {
        Input {
            profile,
            source: crate::analysis::events::source(reader),
            label: label.to_string(),
            file: file.rsplit(['/', '\\']).next().unwrap_or("").to_string(),
        }
    }
}

/// The bytes of the chart of `kind` over `inputs` as the file `path` asks (`.png`: a PNG,
/// else SVG), its `<desc>` naming the command.
pub fn render(kind: Kind, inputs: &[Input], opts: &PlotOptions, path: &str) -> Result<Vec<u8>> {
    let opts = PlotOptions {
        command: describe(kind, inputs),
        ..opts.clone()
    };
    let scene = draw(kind, inputs, &opts)?;
    encode_for(&scene, path)
}

/// [`render`] of a scaling kind over runs already read, each named by its file, the first
/// run's region table (`region_names`) giving the regions their colours: the page keeps
/// each run of a series, not its profile (issue 37).
pub fn render_runs(
    kind: Kind,
    runs: &[Run],
    region_names: &[String],
    opts: &PlotOptions,
    path: &str,
) -> Result<Vec<u8>> {
    let opts = PlotOptions {
        command: command(kind, runs.iter().map(|r| r.file.as_str())),
        ..opts.clone()
    };
    encode_for(&draw_runs(kind, runs, region_names, &opts)?, path)
}

/// The bytes of `scene` in the format `path` names (SVG without the `png` feature).
fn encode_for(scene: &Scene, path: &str) -> Result<Vec<u8>> {
    #[cfg(feature = "png")]
    let format = super::Format::of_path(path, 1.0);
    #[cfg(not(feature = "png"))]
    let format = {
        let _ = path;
        super::Format::Svg
    };
    super::encode(scene, format).map_err(|e| Error::Unavailable(e.to_string()))
}

/// The chart of `kind` over `inputs` (the single-run kinds draw the first). A kind the
/// profiles cannot give is [`Error::Unavailable`] with one sentence saying what is missing.
pub fn draw(kind: Kind, inputs: &[Input], opts: &PlotOptions) -> Result<Scene> {
    let Some(first) = inputs.first() else {
        return Err(Error::Unavailable("no profile to draw".into()));
    };
    if kind.is_scaling() && inputs.len() < 2 {
        return Err(one_run(kind));
    }
    if kind.is_scaling() {
        let runs: Vec<Run> = (inputs.iter())
            .map(|i| Run::of(&i.file, i.profile, &opts.selection))
            .collect();
        return draw_runs(kind, &runs, &first.profile.region_names, opts);
    }
    let (p, src, label) = (first.profile, first.source, first.label.as_str());
    match kind {
        Kind::Gantt => super::gantt::scene(p, src, label, opts),
        Kind::FlameChart => super::flame_chart::scene(p, src, label, opts),
        Kind::FlameGraph => {
            let fg = super::flamegraph::Options {
                width: opts.width,
                theme: opts.theme,
                desc: opts.command.clone(),
                ..super::flamegraph::Options::default()
            };
            let mut scenes = super::flamegraph::scenes(p, src, &opts.selection, label, false, &fg)?;
            Ok(scenes.remove(0).1)
        }
        Kind::Durations => super::durations::scene(p, src, label, opts),
        Kind::Histogram => super::histogram::scene(p, src, label, opts),
        Kind::RankHeatmap => super::rank_heatmap::scene(p, src, label, opts),
        Kind::Imbalance => super::imbalance::scene(p, src, label, opts),
        Kind::Timeseries => super::timeseries::scene(p, src, label, opts),
        Kind::Density => super::density::scene(p, src, label, opts),
        _ => Err(Error::Unavailable(format!(
            "sp cannot draw {} yet",
            kind.name()
        ))),
    }
}

/// The scaling chart of `kind` over `runs`; `region_names` (the first run's region table)
/// gives each region its colour.
fn draw_runs(
    kind: Kind,
    runs: &[Run],
    region_names: &[String],
    opts: &PlotOptions,
) -> Result<Scene> {
    if runs.len() < 2 {
        return Err(one_run(kind));
    }
    let id = |n: &str| region_names.iter().position(|x| x == n).unwrap_or(0) as u32;
    match crate::analysis::scaling::Kind::from_name(kind.name()) {
        Some(scaling) => super::scaling::scene(scaling, runs, &id, opts),
        None => super::scaling_model::scene(runs, &id, opts),
    }
}

fn one_run(kind: Kind) -> Error {
    Error::Unavailable(format!(
        "{} compares runs, so it needs two profiles or more, and was given one",
        kind.name()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_presets_skip_scaling_with_one_file() {
        for k in KINDS {
            assert_eq!(Kind::parse(k.name()), Some(k));
        }
        assert_eq!(
            Preset::Quick.kinds(1),
            vec![Kind::Durations, Kind::RankHeatmap]
        );
        assert_eq!(Preset::All.kinds(1).len(), 9);
        assert_eq!(
            parse_combine("mpi=MPI_.*,comm"),
            Some(("mpi".into(), vec!["MPI_.*".into(), "comm".into()]))
        );
        assert_eq!(parse_combine("bad"), None);
        assert!(list_text().contains("flame_chart"));
    }
}
