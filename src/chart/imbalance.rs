//! The imbalance chart: for each region, its `--metric` on each rank that called it
//! ([`crate::analysis::plot_data::imbalance`]) as points joined in rank order, a faint line
//! at its mean over the ranks, and its slowest rank ringed; regions named in a legend.

use super::aggregate::{data_options, run, scope, seconds_axis, tick_format, Colors};
use super::axis::{Scale, Ticks};
use super::frame::{header, legend, widest, x_axis, y_axis, Axis, Furniture, PAD};
use super::plot::PlotOptions;
use super::scene::{Scene, Shape, Style};
use crate::analysis::events::RowSource;
use crate::analysis::plot_data::imbalance;
use crate::analysis::units::duration_text;
use crate::analysis::Result;
use crate::schema::Profile;

/// The imbalance chart of `profile` (named `label`).
pub fn scene(
    profile: &Profile,
    source: &dyn RowSource,
    label: &str,
    opts: &PlotOptions,
) -> Result<Scene> {
    let lines = imbalance::lines(&run(profile, source, label), &data_options(opts, 30))?;
    let width = opts.width.clamp(400.0, 20_000.0);
    let mut scene = Scene::new(width, 0.0, opts.theme.ink().bg);
    let f = Furniture::new(&mut scene, opts.theme);
    let colors = Colors::new(profile);
    let title = format!("Per-rank load imbalance of {label}");
    scene.title = title.clone();
    scene.desc = opts.command.clone();
    let line = format!(
        "{} of {} regions per rank {} · faint line: the mean over the ranks; ringed: the slowest rank",
        opts.metric.title(),
        lines.len(),
        scope(profile, opts)
    );
    let top = header(
        &mut scene,
        &f,
        &title,
        &super::aggregate::wrap(&line, width),
    );
    let entries: Vec<_> = (lines.iter())
        .map(|l| {
            (
                colors.fill(&mut scene, &f, &l.region, &[]),
                l.region.clone(),
            )
        })
        .collect();
    let top = legend(&mut scene, &f, &entries, PAD, top + 8.0, width - 2.0 * PAD) + 8.0;

    let values = lines.iter().flat_map(|l| &l.values).copied();
    let hi = values.clone().fold(0.0, f64::max);
    let lo_pos = values.filter(|v| *v > 0.0).fold(f64::INFINITY, f64::min);
    let log = opts.log_scale && lo_pos.is_finite();
    let plot_h = 360.0;
    let (y0, y1) = (top + plot_h, top);
    let (yscale, yticks, ytitle, unit) = seconds_axis(
        if log { lo_pos } else { 0.0 },
        hi.max(1e-12),
        y0,
        y1,
        log,
        opts.metric.title(),
    );
    let format = tick_format(unit, &yticks, yscale.log);
    let x0 = PAD + 40.0 + widest(&yticks, &*format);
    let x1 = width - PAD;
    let ranks = lines.iter().flat_map(|l| &l.ranks).copied();
    let (rlo, rhi) = (ranks.clone().min().unwrap_or(0), ranks.max().unwrap_or(0));
    let pad = 0.5;
    let xscale = Scale::linear(f64::from(rlo) - pad, f64::from(rhi) + pad, x0, x1);
    let mut xticks = Ticks::linear(f64::from(rlo), f64::from(rhi).max(f64::from(rlo) + 1.0));
    xticks
        .values
        .retain(|v| v.fract() == 0.0 && *v <= f64::from(rhi));
    if xticks.values.is_empty() {
        xticks.values.push(f64::from(rlo));
    }
    let rank_text = |v: f64| format!("{}", v as i64);
    let axis = Axis {
        scale: yscale,
        ticks: yticks,
        title: ytitle,
        format: &*format,
    };
    y_axis(&mut scene, &f, &axis, x0, Some(x1), PAD + 8.0);
    let xaxis = Axis {
        scale: xscale,
        ticks: xticks,
        title: "Rank".into(),
        format: &rank_text,
    };
    let bottom = x_axis(&mut scene, &f, &xaxis, y0, None);
    let ring = scene.class("ring", Style::stroke(f.ink.fg, 1.5));
    for l in &lines {
        let stroke = colors.stroke(&mut scene, &f, &l.region, 1.5);
        let dot = colors.fill(&mut scene, &f, &l.region, &[]);
        let faint = scene.class(
            &format!("{}f", scene.class_name(stroke)),
            Style {
                opacity: 0.5,
                ..*scene.style(stroke)
            },
        );
        let my = yscale.at(l.mean);
        scene.line(x0, my, x1, my, faint);
        let points: Vec<(f32, f32)> = (l.ranks.iter().zip(&l.values))
            .map(|(&r, &v)| (xscale.at(f64::from(r)), yscale.at(v)))
            .collect();
        if points.len() > 1 {
            scene.push(Shape::Path {
                points: points.clone(),
                closed: false,
                class: stroke,
            });
        }
        let r = if points.len() > 200 { 1.5 } else { 3.0 };
        let mut slowest = 0;
        for (i, ((&rank, &v), &(x, y))) in l.ranks.iter().zip(&l.values).zip(&points).enumerate() {
            let tip = format!(
                "{} on rank {rank}: {} (mean {})",
                l.region,
                duration_text(Some(v)),
                duration_text(Some(l.mean))
            );
            scene.push(Shape::Circle {
                cx: x,
                cy: y,
                r,
                class: dot,
                tip: Some(tip),
            });
            if v > l.values[slowest] {
                slowest = i;
            }
        }
        if l.values.len() > 1 {
            let (x, y) = points[slowest];
            scene.push(Shape::Circle {
                cx: x,
                cy: y,
                r: r + 3.0,
                class: ring,
                tip: None,
            });
        }
    }
    scene.height = bottom + PAD;
    Ok(scene)
}
