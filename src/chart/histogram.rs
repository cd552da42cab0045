//! The histogram chart: each region's calls counted in the data's shared duration bins
//! ([`crate::analysis::plot_data::histogram`]), one line per region through the bin
//! centres, the count axis linear or (`--log-scale`) in decades; regions named in a legend.

use super::aggregate::{data_options, run, scope, seconds_axis, x_seconds, Colors};
use super::axis::{Scale, Ticks};
use super::frame::{header, legend, widest, y_axis, Axis, Furniture, PAD};
use super::plot::PlotOptions;
use super::scene::{Scene, Shape};
use crate::analysis::events::RowSource;
use crate::analysis::plot_data::histogram;
use crate::analysis::Result;
use crate::schema::Profile;

/// The histogram chart of `profile` (named `label`).
pub fn scene(
    profile: &Profile,
    source: &dyn RowSource,
    label: &str,
    opts: &PlotOptions,
) -> Result<Scene> {
    let data = data_options(opts, 30);
    let h = histogram::histogram(&run(profile, source, label), &data)?;
    let width = opts.width.clamp(400.0, 20_000.0);
    let mut scene = Scene::new(width, 0.0, opts.theme.ink().bg);
    let f = Furniture::new(&mut scene, opts.theme);
    let colors = Colors::new(profile);
    let title = format!("Call duration distribution of {label}");
    scene.title = title.clone();
    scene.desc = opts.command.clone();
    let line = format!(
        "{} regions {} · {} bins shared by every region; a point is the calls in a bin",
        h.series.len(),
        scope(profile, opts),
        h.edges.len() - 1
    );
    let top = header(
        &mut scene,
        &f,
        &title,
        &super::aggregate::wrap(&line, width),
    );
    let entries: Vec<_> = (h.series.iter())
        .map(|(name, _)| (colors.fill(&mut scene, &f, name, &[]), name.clone()))
        .collect();
    let top = legend(&mut scene, &f, &entries, PAD, top + 8.0, width - 2.0 * PAD) + 8.0;

    let max = h
        .series
        .iter()
        .flat_map(|(_, c)| c)
        .copied()
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let plot_h = 360.0;
    let (y0, y1) = (top + plot_h, top);
    let (yscale, yticks) = if opts.log_scale {
        let hi = 10f64.powf(max.log10().ceil()).max(10.0);
        (Scale::log(1.0, hi, y0, y1), Ticks::log(1.0, hi))
    } else {
        let (hi, t) = Ticks::rounded_up(0.0, max);
        (Scale::linear(0.0, hi, y0, y1), t)
    };
    let step = yticks.step;
    let count = move |v: f64| match opts.log_scale {
        true => crate::analysis::units::count_text(v as u64),
        false => super::axis::label(v, step),
    };
    let x0 = PAD + 40.0 + widest(&yticks, &count);
    let x1 = width - PAD;
    let (lo, hi) = (h.edges[0], h.edges[h.edges.len() - 1]);
    let (xscale, xticks, xtitle, unit) =
        seconds_axis(lo.max(0.0), hi, x0, x1, false, "Duration per call");
    let axis = Axis {
        scale: yscale,
        ticks: yticks,
        title: "Number of calls".into(),
        format: &count,
    };
    y_axis(&mut scene, &f, &axis, x0, Some(x1), PAD + 8.0);
    let bottom = x_seconds(&mut scene, &f, xscale, xticks, xtitle, unit, y0, y1);
    for (name, counts) in &h.series {
        let stroke = colors.stroke(&mut scene, &f, name, 2.0);
        let dot = colors.fill(&mut scene, &f, name, &[]);
        let mut points = Vec::new();
        for (i, &c) in counts.iter().enumerate() {
            let centre = 0.5 * (h.edges[i] + h.edges[i + 1]);
            let (x, y) = (
                xscale.at(centre),
                yscale.at((c as f64).max(if opts.log_scale { 1.0 } else { 0.0 })),
            );
            points.push((x, y));
            if c > 0 {
                let tip = format!(
                    "{name}: {c} calls of {} to {}",
                    dur(h.edges[i]),
                    dur(h.edges[i + 1])
                );
                scene.push(Shape::Circle {
                    cx: x,
                    cy: y,
                    r: 2.5,
                    class: dot,
                    tip: Some(tip),
                });
            }
        }
        scene.push(Shape::Path {
            points,
            closed: false,
            class: stroke,
        });
    }
    scene.height = bottom + PAD;
    Ok(scene)
}

fn dur(s: f64) -> String {
    crate::analysis::units::duration_text(Some(s))
}
