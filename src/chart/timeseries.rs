//! The timeseries chart: each region's i-th call matched across ranks
//! ([`crate::analysis::plot_data::timeseries`]) over run time: the mean duration as a line
//! (points while there are few), the min–max over the ranks as a band. Calls closer than a
//! pixel share one column (mean of the means, the band's outer edges), so the chart's size
//! does not grow with the calls.

use super::aggregate::{data_options, run, scope, seconds_axis, tick_format, x_seconds, Colors};
use super::frame::{header, legend, widest, y_axis, Axis, Furniture, PAD};
use super::plot::PlotOptions;
use super::scene::{Scene, Shape, Style};
use crate::analysis::events::RowSource;
use crate::analysis::plot_data::timeseries::{self, Point};
use crate::analysis::units::duration_text;
use crate::analysis::Result;
use crate::schema::Profile;

/// Points merged into pixel columns `px(time)`: mean of the means, min of the minima, max
/// of the maxima, the ranks' largest count.
fn columns(points: &[Point], px: impl Fn(f64) -> f32) -> Vec<(f32, Point, usize)> {
    let mut out: Vec<(f32, Point, usize)> = Vec::new();
    for p in points {
        let x = px(p.time).round();
        match out.last_mut() {
            Some((cx, acc, n)) if *cx == x => {
                acc.mean += p.mean;
                acc.min = acc.min.min(p.min);
                acc.max = acc.max.max(p.max);
                acc.ranks = acc.ranks.max(p.ranks);
                *n += 1;
            }
            _ => out.push((x, *p, 1)),
        }
    }
    for (_, p, n) in &mut out {
        p.mean /= *n as f64;
    }
    out
}

/// The timeseries chart of `profile` (named `label`).
pub fn scene(
    profile: &Profile,
    source: &dyn RowSource,
    label: &str,
    opts: &PlotOptions,
) -> Result<Scene> {
    let series = timeseries::series(&run(profile, source, label), &data_options(opts, 30))?;
    let width = opts.width.clamp(400.0, 20_000.0);
    let mut scene = Scene::new(width, 0.0, opts.theme.ink().bg);
    let f = Furniture::new(&mut scene, opts.theme);
    let colors = Colors::new(profile);
    let title = format!("Duration per call over time of {label}");
    scene.title = title.clone();
    scene.desc = opts.command.clone();
    let line = format!(
        "{} regions {} · the i-th call of a region matched across ranks: line the mean duration, band the min–max over the ranks",
        series.len(),
        scope(profile, opts)
    );
    let top = header(
        &mut scene,
        &f,
        &title,
        &super::aggregate::wrap(&line, width),
    );
    let entries: Vec<_> = (series.iter())
        .map(|(name, _)| (colors.fill(&mut scene, &f, name, &[]), name.clone()))
        .collect();
    let top = legend(&mut scene, &f, &entries, PAD, top + 8.0, width - 2.0 * PAD) + 8.0;

    let all = || series.iter().flat_map(|(_, p)| p);
    let hi = all().map(|p| p.max).fold(0.0, f64::max);
    let lo_pos = all()
        .map(|p| p.min)
        .filter(|v| *v > 0.0)
        .fold(f64::INFINITY, f64::min);
    let log = opts.log_scale && lo_pos.is_finite();
    let (t_lo, t_hi) = (
        all().map(|p| p.time).fold(f64::INFINITY, f64::min),
        all().map(|p| p.time).fold(0.0, f64::max),
    );
    let plot_h = 360.0;
    let (y0, y1) = (top + plot_h, top);
    let (yscale, yticks, ytitle, unit) = seconds_axis(
        if log { lo_pos } else { 0.0 },
        hi.max(1e-12),
        y0,
        y1,
        log,
        "Duration per call",
    );
    let format = tick_format(unit, &yticks, yscale.log);
    let x0 = PAD + 40.0 + widest(&yticks, &*format);
    let x1 = width - PAD;
    let (xscale, xticks, xtitle, xunit) = seconds_axis(
        t_lo.min(0.0),
        t_hi.max(1e-12),
        x0,
        x1,
        false,
        "Time from the first call",
    );
    let axis = Axis {
        scale: yscale,
        ticks: yticks,
        title: ytitle,
        format: &*format,
    };
    y_axis(&mut scene, &f, &axis, x0, Some(x1), PAD + 8.0);
    let bottom = x_seconds(&mut scene, &f, xscale, xticks, xtitle, xunit, y0, y1);
    for (name, points) in &series {
        let cols = columns(points, |t| xscale.at(t));
        let fill = colors.fill(&mut scene, &f, name, &[]);
        let band = scene.class(
            &format!("{}b", scene.class_name(fill)),
            Style {
                opacity: 0.3,
                ..*scene.style(fill)
            },
        );
        let stroke = colors.stroke(&mut scene, &f, name, 1.5);
        let y = |v: f64| yscale.at(v);
        if cols.len() > 1 {
            let mut outline: Vec<(f32, f32)> =
                cols.iter().map(|(x, p, _)| (*x, y(p.max))).collect();
            outline.extend(cols.iter().rev().map(|(x, p, _)| (*x, y(p.min))));
            scene.push(Shape::Path {
                points: outline,
                closed: true,
                class: band,
            });
            let mean = cols.iter().map(|(x, p, _)| (*x, y(p.mean))).collect();
            scene.push(Shape::Path {
                points: mean,
                closed: false,
                class: stroke,
            });
        }
        if cols.len() <= 400 {
            for (x, p, n) in &cols {
                let tip = format!(
                    "{name}: {} at {} ({} calls; min {}, max {} over {} ranks)",
                    duration_text(Some(p.mean)),
                    duration_text(Some(p.time)),
                    n,
                    duration_text(Some(p.min)),
                    duration_text(Some(p.max)),
                    p.ranks
                );
                scene.push(Shape::Circle {
                    cx: *x,
                    cy: y(p.mean),
                    r: 2.5,
                    class: fill,
                    tip: Some(tip),
                });
            }
        }
    }
    scene.height = bottom + PAD;
    Ok(scene)
}
