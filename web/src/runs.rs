//! The runs table over the open profiles, as `sp runs` makes it: every number and text comes
//! from [`sp::analysis::runs`]. Each run is the one the page keeps of its profile: read at
//! a series' open from the stored statistics alone, as `sp runs` reads it, else computed
//! once from the index or the whole read; the percentile metrics need the calls, so they
//! take profiles whose call tree is loaded.
//!
//! Request: `runs {files, baseline, region, metric, group_by, changes}`: the open files in
//! the table's order, the baseline's id (default the first), the region patterns given a
//! column (`sp runs --region`), the metric, the metadata key runs are pooled by, and how
//! many changes "what changed" lists per run (`null`: none), and `order` (`delta`, `pct` or
//! `name`) of the regions compared across the runs.
//! Answer: `header` and `rows` (the text table's cells), `changed` (the lines of "what
//! changed"), `keys` (the metadata keys the runs share, for group-by), `metrics`, and
//! `downloads.csv`/`downloads.json`: the bytes `sp runs FILES… --format csv|json` prints
//! for the same options, the files named as they were dropped. `diff` is the runs' regions
//! compared with the baseline's, as `sp diff FILES… --baseline B --metric M --sort O`
//! compares them ([`sp::analysis::compare::nway`]): its `header`, `rows` and downloads.

use serde_json::{json, Value as Json};
use sp::analysis::compare::{nway, DiffOptions, DiffOrder, Metric};
use sp::analysis::report::{Format, Reading};
use sp::analysis::runs::{self, Run, RunsOptions, RunsTable};
use sp::analysis::scaling::{metadata_axes, write_scaling, Axis, Mode, ScalingTable};
use sp::analysis::Selection;
use sp::chart::color::Theme;
use sp::chart::plot::{self, PlotOptions};
use sp::text::Show;

use crate::profile::Opened;
use crate::session::Answer;

/// The runs table of `files` (in the table's order) a request asks for.
pub fn runs(files: &[(u64, &Opened)], req: &Json) -> Answer {
    let metric_name = req["metric"].as_str().unwrap_or("total");
    let metric = Metric::from_name(metric_name)
        .ok_or_else(|| format!("There is no metric {metric_name:?} for the runs table."))?;
    let patterns: Option<Vec<String>> = req["region"].as_array().map(|list| {
        list.iter()
            .filter_map(Json::as_str)
            .map(String::from)
            .collect()
    });
    let regions = patterns
        .filter(|p| !p.is_empty())
        .map(|p| Selection::new(Some(&p), None, None))
        .transpose()
        .map_err(|e| format!("The regions cannot be matched: {e}."))?;
    let runs = files
        .iter()
        .map(|(_, f)| run_of(f, metric))
        .collect::<Result<Vec<Run>, String>>()?;
    let baseline = req["baseline"].as_u64();
    let options = RunsOptions {
        baseline: files
            .iter()
            .position(|(id, _)| Some(*id) == baseline)
            .unwrap_or(0),
        regions,
        metric,
        group_by: req["group_by"]
            .as_str()
            .filter(|k| !k.is_empty())
            .map(String::from),
    };
    let table = RunsTable::new(&runs, &options);
    let changes = req["changes"]
        .as_u64()
        .map(|n| runs::changes::changes(&runs, options.baseline, n as usize));
    let text = |format: Format| -> Result<String, String> {
        let mut out = Vec::new();
        runs::write_runs(
            &mut out,
            format,
            Show::AsIs,
            &table,
            &[],
            changes.as_deref(),
        )
        .map_err(|e| format!("The runs table could not be written: {e}."))?;
        String::from_utf8(out).map_err(|e| format!("The runs table is not text: {e}."))
    };
    let (header, rows) = runs::cells(&table);
    let diff = diff_json(&runs, options.baseline, metric, req)?;
    Ok(json!({
        "metric": metric.name(),
        "metrics": Metric::ALL.iter().map(|(m, n)| json!([n, m.label()])).collect::<Vec<_>>(),
        "baseline": files.get(options.baseline).map(|(id, _)| id),
        "regions": table.regions,
        "header": header,
        "rows": rows,
        "changed": changes.as_deref().map(|c| runs::changed_lines(&table, c, Show::AsIs)),
        "keys": shared_keys(&runs),
        "downloads": { "csv": text(Format::Csv)?, "json": text(Format::Json)? },
        "diff": diff,
    }))
}

/// The runs' regions compared with the baseline's (`null` for a single run).
fn diff_json(runs: &[Run], baseline: usize, metric: Metric, req: &Json) -> Answer {
    let order_name = req["order"].as_str().unwrap_or("delta");
    let order = DiffOrder::from_name(order_name)
        .ok_or_else(|| format!("There is no order {order_name:?} for a comparison."))?;
    let options = DiffOptions {
        metric,
        order,
        threshold: None,
    };
    let Ok(table) = nway::diff_runs(runs, baseline, &options) else {
        return Ok(Json::Null);
    };
    let text = |format: Format| -> Result<String, String> {
        let mut out = Vec::new();
        nway::write_many(&mut out, format, Show::AsIs, runs, &table)
            .map_err(|e| format!("The comparison could not be written: {e}."))?;
        String::from_utf8(out).map_err(|e| format!("The comparison is not text: {e}."))
    };
    let (header, rows) = nway::grid(&table, Show::AsIs);
    Ok(json!({
        "order": order.name(),
        "header": header,
        "rows": rows,
        "downloads": { "csv": text(Format::Csv)?, "json": text(Format::Json)? },
    }))
}

/// The scaling study of `files` (in the table's order), as `sp scaling FILES…` and `sp plot
/// KIND FILES…` make it. Request: `scaling {files, mode, x, model, predict, kind, theme}`.
/// Answer: `axes` (the metadata keys the runs can be scaled over, beside ranks, nodes,
/// threads and cores), `text` (the table `sp scaling` prints), `downloads.csv`/`downloads.json` (its
/// `--format csv|json` bytes) and `svg`, the chart of `kind` (`speedup`,
/// `scaling_efficiency`, `weak_scaling`, `weak_scaling_efficiency` or `scaling_model`, the
/// fitted models' curves), `sp plot`'s bytes.
pub fn scaling(files: &[(u64, &Opened)], req: &Json) -> Answer {
    let runs = (files.iter().map(|(_, f)| run_of(f, Metric::Total)))
        .collect::<Result<Vec<Run>, String>>()?;
    let axis = Axis::from_name(req["x"].as_str().unwrap_or("auto"));
    let table = ScalingTable::new(&runs, &axis).map_err(|e| format!("No scaling study: {e}."))?;
    let mode = (Mode::ALL.iter().find(|(_, n)| req["mode"] == *n)).map_or(Mode::Both, |m| m.0);
    let predict = req["predict"].as_f64();
    let models =
        (req["model"].as_bool() == Some(true) || predict.is_some()).then(|| table.models());
    let prediction = predict
        .zip(models.as_deref())
        .map(|(x, m)| table.predict(m, x));
    let text = |format: Format| -> Result<String, String> {
        let mut out = Vec::new();
        let models = models.as_deref();
        write_scaling(
            &mut out,
            format,
            Show::AsIs,
            &table,
            mode,
            models,
            prediction.as_ref(),
        )
        .map_err(|e| format!("The scaling table could not be written: {e}."))?;
        String::from_utf8(out).map_err(|e| format!("The scaling table is not text: {e}."))
    };
    let kind = (req["kind"].as_str().and_then(plot::Kind::parse))
        .filter(|k| k.is_scaling())
        .ok_or("There is no such scaling chart.")?;
    // The first run's region table colours the regions, as `sp plot` colours them.
    let (_, region_names) = files.first().ok_or("There are no runs.")?.1.run()?;
    let theme = Theme::ALL.iter().find(|(_, n)| req["theme"] == *n);
    let opts = PlotOptions {
        theme: theme.map_or(Theme::Light, |t| t.0),
        axis,
        predict,
        ..PlotOptions::default()
    };
    let svg = plot::render_runs(kind, &runs, region_names, &opts, "chart.svg")
        .map_err(|e| format!("No {} chart: {e}.", kind.name()))?;
    Ok(json!({
        "axes": metadata_axes(&runs),
        "text": text(Format::Table)?,
        "downloads": { "csv": text(Format::Csv)?, "json": text(Format::Json)? },
        "svg": String::from_utf8_lossy(&svg),
        "name": format!("{}.svg", kind.file_stem()),
    }))
}

/// The run of one open profile, read as `sp runs` reads it for `metric`: the run kept of
/// it, or for the percentile metrics the run of its calls.
fn run_of(file: &Opened, metric: Metric) -> Result<Run, String> {
    let profile = match metric.reading() {
        Reading::Full => file.whole().ok_or_else(|| {
            format!(
                "{} is read from its index only; the {} metric needs its calls (sp runs --metric {} reads them).",
                file.name(),
                metric.name(),
                metric.name()
            )
        })?,
        _ => return Ok(file.run()?.0.clone()),
    };
    Ok(Run::of(file.name(), profile, &Selection::all()))
}

/// The metadata keys every run records, in the first run's order: what runs can be pooled
/// by.
fn shared_keys(runs: &[Run]) -> Vec<&str> {
    let Some(first) = runs.first() else {
        return Vec::new();
    };
    first
        .metadata
        .iter()
        .map(|(k, _)| k.as_str())
        .filter(|k| runs.iter().all(|r| r.meta(k).is_some()))
        .collect()
}
