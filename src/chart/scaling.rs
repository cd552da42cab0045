//! The scaling charts (`sp plot speedup|scaling_efficiency|weak_scaling|
//! weak_scaling_efficiency`): one line per region over the runs' axis (ranks, threads …),
//! drawn from [`crate::analysis::scaling`]'s numbers, which equal the reference's `export
//! plot-data`; the ideal line; the x axis on a log2 scale when the points double. Each
//! point carries its value as a tooltip, and as a label when few regions are drawn.

use super::axis::{label, Scale, Ticks};
use super::color::region;
use super::font;
use super::frame::{header, x_axis, y_axis, Axis, Furniture, PAD, TEXT};
use super::plot::PlotOptions;
use super::scene::{Anchor, Scene, Shape, Style};
use super::text::fit_middle;
use crate::analysis::runs::Run;
use crate::analysis::scaling::{self, Kind, ScalingTable};
use crate::analysis::{Error, Result};
use crate::sort::SortSlice;

/// Regions drawn when `--top-n` is not given: the ones with most time at the baseline.
pub const DEFAULT_REGIONS: usize = 10;

/// Regions whose points are labelled with their values (more would overlap).
const LABELLED: usize = 3;

/// The chart of `kind` over `runs`, whose region ids (their colours) are `id(name)`.
pub fn scene(
    kind: Kind,
    runs: &[Run],
    id: &dyn Fn(&str) -> u32,
    opts: &PlotOptions,
) -> Result<Scene> {
    let table =
        ScalingTable::new(runs, &opts.axis).map_err(|e| Error::Unavailable(e.to_string()))?;
    let numeric: Option<Vec<f64>> = table.keys.iter().map(|k| k.number()).collect();
    if kind == Kind::ScalingEfficiency && !table.axis.is_scaling() {
        return Err(Error::Unavailable(
            "scaling efficiency needs a count of ranks, threads or cores on the x axis".into(),
        ));
    }
    let shown = top_regions(&table, opts.top_n);
    let curves: Vec<&scaling::RegionCurve> = shown.iter().map(|&i| &table.regions[i]).collect();

    let theme = opts.theme;
    let width = opts.width.clamp(400.0, 20_000.0);
    let mut scene = Scene::new(width, 0.0, theme.ink().bg);
    let f = Furniture::new(&mut scene, theme);
    let title = table.title(kind);
    scene.title = title.clone();
    scene.desc = opts.command.clone();
    let sub = regions_line(runs.len(), curves.len(), table.regions.len());
    let mut lines = vec![sub, ideal_note(kind).to_string()];
    let x_is_log = numeric.as_ref().is_some_and(|xs| doubles(xs));
    if x_is_log {
        lines.push("x axis on a log2 scale".into());
    }
    let top = header(&mut scene, &f, &title, &lines);

    // The y span: 0 to the largest value or ideal, rounded up.
    let ideal = |x: f64| match kind {
        Kind::Speedup => x / table.baseline.number().unwrap_or(1.0),
        _ => 1.0,
    };
    let xs_num = numeric.clone().unwrap_or_default();
    let mut hi = curves
        .iter()
        .flat_map(|c| c.points.iter().filter_map(|p| p.value(kind)))
        .filter(|v| v.is_finite())
        .fold(1.0, f64::max);
    hi = xs_num.iter().map(|&x| ideal(x)).fold(hi, f64::max);
    let (y_top, y_ticks) = Ticks::rounded_up(0.0, hi * 1.05);
    let y_step = y_ticks.step;
    let y_fmt = move |v: f64| label(v, y_step);
    let y_fmt_ref: &dyn Fn(f64) -> String = &y_fmt;
    let left = PAD + 22.0 + super::frame::widest(&y_ticks, y_fmt_ref) + 8.0;
    let names_w = curves
        .iter()
        .map(|c| font::room(&c.name, TEXT, false))
        .chain([font::room(kind.ideal_label(), TEXT, false)])
        .fold(0.0, f32::max)
        .min(220.0);
    let right = width - PAD - names_w - 24.0;
    let bottom = top + 360.0;
    let y_scale = Scale::linear(0.0, y_top, bottom, top);

    // The x scale: log2 of the numbers when they double, linear numbers, or categories.
    let n = table.keys.len();
    let cat = |i: usize| if n > 1 { i as f64 } else { 0.5 };
    let x_scale = match &numeric {
        Some(xs) if x_is_log => Scale::log(xs[0], xs[n - 1], left + 20.0, right - 20.0),
        Some(xs) => Scale::linear(xs[0], xs[n - 1], left + 20.0, right - 20.0),
        None => Scale::linear(0.0, (n.max(2) - 1) as f64, left + 20.0, right - 20.0),
    };
    let x_of = |i: usize| match &numeric {
        Some(xs) => x_scale.at(xs[i]),
        None => x_scale.at(cat(i)),
    };
    let keys_text: Vec<String> = table.keys.iter().map(|k| k.to_string()).collect();
    let x_ticks = Ticks {
        values: match &numeric {
            Some(xs) => xs.clone(),
            None => (0..n).map(cat).collect(),
        },
        step: 1.0,
    };
    let x_fmt = |v: f64| match &numeric {
        Some(_) => label(v, 1.0),
        None => keys_text.get(v as usize).cloned().unwrap_or_default(),
    };
    y_axis(
        &mut scene,
        &f,
        &Axis {
            scale: y_scale,
            ticks: y_ticks.clone(),
            title: kind.y_label().to_string(),
            format: y_fmt_ref,
        },
        left,
        Some(right),
        PAD + 10.0,
    );
    let below = x_axis(
        &mut scene,
        &f,
        &Axis {
            scale: x_scale,
            ticks: x_ticks,
            title: table.axis.label().to_string(),
            format: &x_fmt,
        },
        bottom,
        Some(top),
    );
    // Line ends: (y, name, the dot's class: none for the ideal line).
    let mut ends: Vec<(f32, String, Option<super::scene::Class>)> = Vec::new();

    // The ideal line, grey and wider, under the regions.
    let ideal_class = scene.class("ideal", Style::stroke(f.ink.muted, 2.0).opacity(0.8));
    let ideal_pts: Vec<(f32, f32)> = match &numeric {
        Some(xs) => xs
            .iter()
            .enumerate()
            .map(|(i, &x)| (x_of(i), y_scale.at(ideal(x))))
            .collect(),
        None => vec![(x_of(0), y_scale.at(1.0)), (x_of(n - 1), y_scale.at(1.0))],
    };
    if let Some(&(_, y)) = ideal_pts.last() {
        ends.push((y, kind.ideal_label().to_string(), None));
    }
    scene.push(Shape::Path {
        points: ideal_pts,
        closed: false,
        class: ideal_class,
    });

    let label_points = curves.len() <= LABELLED;
    // The value labels placed at each point of the axis: a label that would overlap one goes
    // below its dot instead, or is left out.
    let mut placed: Vec<Vec<f32>> = vec![Vec::new(); n];
    // The dots at each point of the axis, which labels must not cover either.
    let mut dots: Vec<Vec<f32>> = vec![Vec::new(); n];
    for c in &curves {
        for p in &c.points {
            if let (Some(i), Some(v)) = (table.keys.iter().position(|k| *k == p.x), p.value(kind)) {
                dots[i].push(y_scale.at(v));
            }
        }
    }
    for curve in &curves {
        let rid = id(&curve.name);
        let color = region(rid, theme, false);
        let line = scene.class(&format!("l{rid}"), Style::stroke(color, 2.0));
        let dot = f.region(&mut scene, rid, false);
        let pts: Vec<(usize, f64)> = curve
            .points
            .iter()
            .filter_map(|p| Some((table.keys.iter().position(|k| *k == p.x)?, p.value(kind)?)))
            .filter(|(_, v)| v.is_finite())
            .collect();
        let path: Vec<(f32, f32)> = pts.iter().map(|&(i, v)| (x_of(i), y_scale.at(v))).collect();
        scene.push(Shape::Path {
            points: path.clone(),
            closed: false,
            class: line,
        });
        for (&(i, v), &(px, py)) in pts.iter().zip(&path) {
            let tip = format!(
                "{} · {} = {}: {} {}",
                curve.name,
                table.axis.label(),
                keys_text[i],
                kind.y_key(),
                crate::analysis::units::python_g(v, 4)
            );
            scene.push(Shape::Circle {
                cx: px,
                cy: py,
                r: 3.5,
                class: dot,
                tip: Some(tip),
            });
            // Every line is 1 at the baseline: its value is labelled by the axis.
            if label_points && i != 0 {
                let text = crate::analysis::units::python_g(v, 3);
                let clear = |y: f32| {
                    placed[i].iter().all(|p| (p - y).abs() >= TEXT + 1.0)
                        && (dots[i].iter()).all(|&d| {
                            (d - py).abs() < 0.5 || d + 4.0 < y - TEXT || d - 4.0 > y + 1.0
                        })
                };
                // Above the dot, else below it while inside the plot (under the axis it
                // would cover the tick labels); with no room, the tooltip alone.
                let spot = [py - 7.0, py + 7.0 + TEXT]
                    .into_iter()
                    .find(|&y| y < bottom && clear(y));
                if let Some(y) = spot {
                    placed[i].push(y);
                    scene.text(px, y, text, Anchor::Middle, f.muted);
                }
            }
        }
        if let Some(&(_, y)) = path.last() {
            ends.push((y, curve.name.clone(), Some(dot)));
        }
    }
    // Names at the lines' ends, pushed apart so that they do not overlap.
    ends.sort_stable_by(|a, b| a.0.total_cmp(&b.0));
    let gap = TEXT + 3.0;
    let mut last = f32::NEG_INFINITY;
    for (y, _, _) in &mut ends {
        *y = y.max(last + gap);
        last = *y;
    }
    let overflow = (last - (bottom + 4.0)).max(0.0);
    for (y, name, class) in ends {
        let shown = fit_middle(&name, TEXT, names_w).into_owned();
        let y = y - overflow + font::cap_height(TEXT) / 2.0;
        // The name in the text colour (legible on both themes), after a dot of the line's.
        if let Some(dot) = class {
            let cy = y - font::cap_height(TEXT) / 2.0;
            scene.push(Shape::Circle {
                cx: right + 12.0,
                cy,
                r: 4.0,
                class: dot,
                tip: None,
            });
        }
        scene.text_tip(right + 20.0, y, shown, Anchor::Start, f.text, name);
    }
    scene.height = below + PAD;
    Ok(scene)
}

/// The regions drawn (their indices in `table`): those with most time per rank at the
/// baseline, largest first, at most `top_n` (else [`DEFAULT_REGIONS`]).
pub(super) fn top_regions(table: &ScalingTable, top_n: Option<usize>) -> Vec<usize> {
    let at_base = |i: &usize| table.regions[*i].points.first().map_or(0.0, |p| p.per_rank);
    let mut shown: Vec<usize> = (0..table.regions.len()).collect();
    shown.sort_stable_by(|a, b| at_base(b).total_cmp(&at_base(a)));
    shown.truncate(top_n.unwrap_or(DEFAULT_REGIONS).max(1));
    shown
}

/// The subtitle's line of how many runs and regions are drawn, and which when some are not.
pub(super) fn regions_line(runs: usize, shown: usize, regions: usize) -> String {
    let mut line = format!("{runs} runs · {shown} of {regions} regions common to every run");
    if shown < regions {
        line.push_str(&format!(
            " (the {shown} with most time per rank at the baseline)"
        ));
    }
    line
}

/// The subtitle's words for the ideal line.
fn ideal_note(kind: Kind) -> &'static str {
    match kind {
        Kind::Speedup => "speedup of each region's mean call against the smallest run; grey: ideal (linear) speedup",
        Kind::ScalingEfficiency => "speedup over the ideal speedup; grey: ideal efficiency (1)",
        Kind::WeakScaling => "mean call time over the smallest run's; grey: ideal (constant time)",
        Kind::WeakScalingEfficiency => "the smallest run's mean call time over each run's; grey: ideal (1)",
    }
}

/// Whether positive, ascending `xs` span a factor of four or more, as doubling series do.
fn doubles(xs: &[f64]) -> bool {
    xs.len() >= 2 && xs[0] > 0.0 && xs[xs.len() - 1] / xs[0] >= 4.0
}
