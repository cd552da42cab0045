//! The data behind the aggregate charts: for each kind, the rows the reference's
//! `scope-profiler export plot-data` writes (its columns, row order and numbers, pooled with
//! numpy's reductions), so `sp export plot-data` and the charts of `sp plot` draw from the
//! same table. One module per kind; [`write`] turns a [`Table`] into the reference's CSV or
//! JSON.
//!
//! ```
//! use sp::analysis::plot_data::{py_float, Kind};
//! assert_eq!(Kind::parse("rank_heatmap").unwrap().file_stem(), "rank_heatmap_data");
//! assert_eq!(py_float(1e-9), "1e-09");
//! ```

#[cfg(feature = "cli")]
pub mod args;
pub mod callgraph;
pub mod density;
pub mod durations;
pub mod files;
pub mod flame;
pub mod gantt;
pub mod histogram;
pub mod imbalance;
pub mod rank_heatmap;
pub mod scaling;
pub mod statistics;
pub mod timeseries;
pub mod write;

pub use write::{py_float, write_csv, write_json};

use crate::sort::SortSlice;
use std::borrow::Cow;
use std::collections::HashMap;

use super::events::RowSource;
use super::selection::Selection;
use super::{Error, Result};
use crate::schema::{Profile, RankCalls, Region};

/// A kind with data behind it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Gantt,
    FlameChart,
    FlameGraph,
    Durations,
    Speedup,
    ScalingEfficiency,
    WeakScaling,
    WeakScalingEfficiency,
    Histogram,
    RankHeatmap,
    Imbalance,
    Timeseries,
    Density,
    Callgraph,
}

/// Every kind, by its name on the command line.
pub const KINDS: [(Kind, &str); 14] = [
    (Kind::Gantt, "gantt"),
    (Kind::FlameChart, "flame_chart"),
    (Kind::FlameGraph, "flame_graph"),
    (Kind::Durations, "durations"),
    (Kind::Histogram, "histogram"),
    (Kind::RankHeatmap, "rank_heatmap"),
    (Kind::Imbalance, "imbalance"),
    (Kind::Timeseries, "timeseries"),
    (Kind::Density, "density"),
    (Kind::Speedup, "speedup"),
    (Kind::ScalingEfficiency, "scaling_efficiency"),
    (Kind::WeakScaling, "weak_scaling"),
    (Kind::WeakScalingEfficiency, "weak_scaling_efficiency"),
    (Kind::Callgraph, "callgraph"),
];

impl Kind {
    /// The kind named `name` (the reference's `--plots` names).
    pub fn parse(name: &str) -> Option<Kind> {
        KINDS.iter().find(|(_, n)| *n == name).map(|(k, _)| *k)
    }

    /// The kind named `name`, or the sentence naming the kinds there are.
    pub fn named(name: &str) -> std::result::Result<Kind, String> {
        let names: Vec<&str> = KINDS.iter().map(|(_, n)| *n).collect();
        Kind::parse(name)
            .ok_or_else(|| format!("plot-data has no kind {name:?}: {}", names.join(", ")))
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        KINDS
            .iter()
            .find(|(k, _)| *k == self)
            .map_or("", |(_, n)| n)
    }

    /// The `plot` of its JSON document (the flame chart's is `flame`).
    pub fn plot(self) -> &'static str {
        match self {
            Kind::FlameChart => "flame",
            _ => self.name(),
        }
    }

    /// The stem of the reference's file for it (`durations_data` …).
    pub fn file_stem(self) -> &'static str {
        match self {
            Kind::Gantt => "gantt_data",
            Kind::FlameChart => "flame_chart_data",
            Kind::FlameGraph => "flame_graph_data",
            Kind::Speedup => "speedup_data",
            Kind::ScalingEfficiency => "scaling_efficiency_data",
            Kind::WeakScaling => "weak_scaling_data",
            Kind::WeakScalingEfficiency => "weak_scaling_efficiency_data",
            Kind::Durations => "durations_data",
            Kind::Histogram => "histogram_data",
            Kind::RankHeatmap => "rank_heatmap_data",
            Kind::Imbalance => "imbalance_data",
            Kind::Timeseries => "duration_timeseries_data",
            Kind::Density => "timeline_density_data",
            Kind::Callgraph => "callgraph_data",
        }
    }
}

/// A duration statistic (`--metric`, `--sort-by`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    Avg,
    Min,
    Max,
    Total,
    First,
    Last,
}

impl Metric {
    /// `avg`, `min`, `max`, `total`, `first` or `last`.
    pub fn parse(name: &str) -> Option<Metric> {
        Some(match name {
            "avg" => Metric::Avg,
            "min" => Metric::Min,
            "max" => Metric::Max,
            "total" => Metric::Total,
            "first" => Metric::First,
            "last" => Metric::Last,
            _ => return None,
        })
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Avg => "avg",
            Metric::Min => "min",
            Metric::Max => "max",
            Metric::Total => "total",
            Metric::First => "first",
            Metric::Last => "last",
        }
    }

    /// The axis title of the reference's chart for it.
    pub fn title(self) -> &'static str {
        match self {
            Metric::Avg => "Average duration per call",
            Metric::Min => "Minimum duration per call",
            Metric::Max => "Maximum duration per call",
            Metric::Total => "Total duration",
            Metric::First => "First call duration",
            Metric::Last => "Last call duration",
        }
    }
}

/// The options of the aggregate kinds (each reads those it has), with the reference's
/// defaults.
#[derive(Debug, Clone)]
pub struct Options {
    /// `--include`, `--exclude`, `--ranks`.
    pub selection: Selection,
    /// Durations: the statistic of each bar; imbalance: per rank (avg, min, max, total).
    pub metric: Metric,
    /// Durations: `name` or a statistic (descending); `None` keeps the profile's order.
    pub sort_by: Option<String>,
    pub top_n: Option<usize>,
    /// `--combine-regions NAME=PATTERN,…`: bars pooling the regions the patterns match.
    pub combine: Vec<(String, Vec<String>)>,
    /// Durations: split each bar into own time and children ([`durations::stacked`]).
    pub stack_children: bool,
    /// Histogram: duration bins; density: time bins.
    pub bins: usize,
    /// Density: the window, seconds from the first call.
    pub start_time: Option<f64>,
    pub end_time: Option<f64>,
    /// Density: calls shorter than this (seconds) are left out.
    pub min_duration: f64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            selection: Selection::all(),
            metric: Metric::Total,
            sort_by: None,
            top_n: None,
            combine: Vec::new(),
            stack_children: false,
            bins: 30,
            start_time: None,
            end_time: None,
            min_duration: 0.0,
        }
    }
}

/// One profile: its index, where its calls are read from, and its label (the `file` column).
pub struct Run<'a> {
    pub profile: &'a Profile,
    pub source: &'a dyn RowSource,
    pub label: String,
}

impl<'a> From<&crate::chart::plot::Input<'a>> for Run<'a> {
    fn from(input: &crate::chart::plot::Input<'a>) -> Run<'a> {
        Run {
            profile: input.profile,
            source: input.source,
            label: input.label.clone(),
        }
    }
}

/// A cell of a table.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// Python's `None`: empty in CSV, `null` in JSON.
    Null,
    Text(String),
    Int(i64),
    Float(f64),
}

/// A header of fixed names.
fn fixed_header(list: &[&'static str]) -> Vec<Cow<'static, str>> {
    list.iter().map(|&n| Cow::Borrowed(n)).collect()
}

/// What a kind exports: the CSV's header and rows, and the JSON document's other keys.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub kind: Kind,
    pub header: Vec<Cow<'static, str>>,
    pub rows: Vec<Vec<Cell>>,
    /// The key of the rows in the JSON document (`bars`, `bins`, `points`).
    pub rows_key: &'static str,
    /// Keys after the rows in the JSON document, in order.
    pub extra: Vec<(&'static str, serde_json::Value)>,
}

impl Table {
    /// The table as the bytes of the reference's JSON document (`json`) or CSV file.
    pub fn bytes(&self, json: bool) -> Vec<u8> {
        let mut out = Vec::new();
        // Writing to a Vec cannot fail.
        let _ = if json {
            write_json(self, &mut out)
        } else {
            write_csv(self, &mut out)
        };
        out
    }
}

/// The table of `kind` for `run`. A profile that cannot give it is [`Error::Unavailable`],
/// one sentence (the reference's) saying why.
pub fn table(kind: Kind, run: &Run, opts: &Options) -> Result<Table> {
    match kind {
        Kind::Gantt => gantt::table(run, opts, false),
        Kind::FlameChart | Kind::FlameGraph => flame::table(
            kind,
            std::slice::from_ref(run),
            std::slice::from_ref(&run.label),
            opts,
        ),
        Kind::Speedup
        | Kind::ScalingEfficiency
        | Kind::WeakScaling
        | Kind::WeakScalingEfficiency => {
            scaling::table(kind, std::slice::from_ref(run), opts, "num_ranks")
        }
        Kind::Durations => durations::table(run, opts),
        Kind::Histogram => histogram::table(run, opts),
        Kind::RankHeatmap => rank_heatmap::table(run, opts),
        Kind::Imbalance => imbalance::table(run, opts),
        Kind::Timeseries => timeseries::table(run, opts),
        Kind::Density => density::table(run, opts),
        Kind::Callgraph => callgraph::table(run, opts, false),
    }
}

/// The selected regions in the reference's order (`get_regions`: by earliest start over
/// their rows, stably); an error when none is.
pub fn regions<'p>(profile: &'p Profile, selection: &Selection) -> Result<Vec<&'p Region>> {
    let mut kept: Vec<&Region> = (profile.regions.iter())
        .filter(|r| selection.keeps(&r.name))
        .collect();
    kept.sort_stable_by(|a, b| a.sort_key().total_cmp(&b.sort_key()));
    if kept.is_empty() {
        return Err(Error::Unavailable(
            "no regions matched the selected filters".into(),
        ));
    }
    Ok(kept)
}

/// The rows of `region` on the selected ranks: every row in the file's order, or the
/// ranks asked for in their order.
pub fn rows<'p>(region: &'p Region, ranks: &Option<Vec<u32>>) -> Vec<&'p RankCalls> {
    match ranks {
        None => region.ranks.iter().collect(),
        Some(ranks) => ranks.iter().filter_map(|&r| region.rank(r)).collect(),
    }
}

/// `region`'s rows by rank (each rank's first row, as [`Region::rank`] finds it), so that
/// picking the rows of 100,000 selected ranks is linear rather than quadratic.
pub fn rows_by_rank(region: &Region) -> HashMap<u32, &RankCalls> {
    let mut map = HashMap::with_capacity(region.ranks.len());
    for row in &region.ranks {
        map.entry(row.rank).or_insert(row);
    }
    map
}

/// The durations of a row's calls in seconds (the reference's `durations`).
pub fn durations(source: &dyn RowSource, row: &RankCalls) -> Result<Vec<f64>> {
    let mut all = Vec::new();
    each_duration(source, row, |d| all.push(d))?;
    Ok(all)
}

/// `f` called with each of a row's call durations in seconds, in order, as [`durations`]
/// gives them, without keeping them.
pub fn each_duration(
    source: &dyn RowSource,
    row: &RankCalls,
    mut f: impl FnMut(f64),
) -> Result<()> {
    let ev = source.events(row)?;
    for (s, e) in ev.starts.iter().zip(&ev.ends) {
        f(e.wrapping_sub(*s) as f64 / 1e9);
    }
    Ok(())
}

/// The durations of `rows` laid end to end (the reference's pooled array).
pub fn pooled(source: &dyn RowSource, rows: &[&RankCalls]) -> Result<Vec<f64>> {
    let mut all = Vec::new();
    for row in rows {
        all.extend(durations(source, row)?);
    }
    Ok(all)
}

/// The earliest start (seconds) of any call of the profile: the reference's
/// `minimum_start_time`, the origin of its time axes (0 with no calls).
pub fn first_start(profile: &Profile) -> f64 {
    profile.minimum_start_s()
}

/// The selected ranks of a per-rank kind: those asked for, else `0..num_ranks`.
pub fn ranks_or_all(profile: &Profile, selection: &Selection) -> Vec<u32> {
    super::lanes::ranks(profile, selection)
}

/// `np.linspace(start, stop, num)` (endpoint included), to numpy's bits.
pub fn linspace(start: f64, stop: f64, num: usize) -> Vec<f64> {
    if num == 0 {
        return Vec::new();
    }
    if num == 1 {
        return vec![start];
    }
    let div = (num - 1) as f64;
    let delta = stop - start;
    let step = delta / div;
    let mut y: Vec<f64> = (0..num)
        .map(|i| {
            let i = i as f64;
            if step == 0.0 {
                i / div * delta + start
            } else {
                i * step + start
            }
        })
        .collect();
    y[num - 1] = stop;
    y
}

/// The statistic `metric` of pooled durations (NaN when there are none; first and last
/// are not statistics of the values, see [`durations::first_last`]).
pub fn statistic(values: &[f64], metric: Metric) -> f64 {
    use super::numeric;
    if values.is_empty() {
        return f64::NAN;
    }
    match metric {
        Metric::Avg => numeric::mean(values).unwrap_or(f64::NAN),
        Metric::Min => values.iter().copied().fold(f64::INFINITY, f64::min),
        Metric::Max => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        Metric::Total => numeric::sum(values),
        Metric::First | Metric::Last => f64::NAN,
    }
}

/// The `tab20` colours the reference gives `n` things (`np.linspace(0, 1, n)` sampled).
pub fn tab20(n: usize) -> Vec<&'static str> {
    const TAB20: [&str; 20] = [
        "#1f77b4", "#aec7e8", "#ff7f0e", "#ffbb78", "#2ca02c", "#98df8a", "#d62728", "#ff9896",
        "#9467bd", "#c5b0d5", "#8c564b", "#c49c94", "#e377c2", "#f7b6d2", "#7f7f7f", "#c7c7c7",
        "#bcbd22", "#dbdb8d", "#17becf", "#9edae5",
    ];
    linspace(0.0, 1.0, n.max(1))
        .into_iter()
        .map(|x| TAB20[((x * 20.0) as usize).min(19)])
        .take(n)
        .collect()
}

/// The reference's `colors` map of region names: tab20 over the names sorted.
pub fn region_colors(names: &[&str]) -> serde_json::Value {
    let mut sorted: Vec<&str> = names.to_vec();
    sorted.sort_ord_unstable();
    sorted.dedup();
    let colors = tab20(sorted.len());
    let map: serde_json::Map<String, serde_json::Value> = (sorted.iter().zip(colors))
        .map(|(n, c)| (n.to_string(), c.into()))
        .collect();
    serde_json::Value::Object(map)
}

/// [`region_colors`] with the names in the order they first come, as the gantt's JSON
/// lists them (the colours are still those of the sorted names).
pub fn region_colors_in_order(names: &[&str]) -> serde_json::Value {
    let sorted = region_colors(names);
    let mut map = serde_json::Map::new();
    for name in names {
        if let (false, Some(color)) = (map.contains_key(*name), sorted.get(*name)) {
            map.insert(name.to_string(), color.clone());
        }
    }
    serde_json::Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_in_the_order_of_first_use_keep_the_sorted_colours() {
        let sorted = region_colors(&["b", "a", "b"]);
        let in_order = region_colors_in_order(&["b", "a", "b"]);
        let keys: Vec<&String> = in_order.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["b", "a"]);
        assert_eq!(in_order["a"], sorted["a"]);
        assert_eq!(in_order["b"], sorted["b"]);
    }

    #[test]
    fn linspace_and_colours_as_numpy_and_matplotlib() {
        assert_eq!(linspace(0.0, 1.0, 3), vec![0.0, 0.5, 1.0]);
        assert_eq!(linspace(2.0, 2.0, 2), vec![2.0, 2.0]);
        assert_eq!(tab20(1), vec!["#1f77b4"]);
        assert_eq!(tab20(3), vec!["#1f77b4", "#8c564b", "#9edae5"]);
        for (k, n) in KINDS {
            assert_eq!(Kind::parse(n), Some(k));
            assert_eq!(k.name(), n);
        }
    }
}
