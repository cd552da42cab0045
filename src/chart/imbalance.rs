//! The imbalance chart: for each region, its `--metric` on each rank that called it
//! ([`crate::analysis::plot_data::imbalance`]) as points joined in rank order, a faint line
//! at its mean over the ranks, and its slowest rank ringed; regions named in a legend.

use super::aggregate::{data_options, run, scope, seconds_axis, tick_format, Colors};
use super::axis::{Scale, Ticks};
use super::font;
use super::frame::{header, legend, widest, x_axis, y_axis, Axis, Furniture, PAD, TEXT};
use super::plot::PlotOptions;
use super::scene::{Anchor, Scene, Shape, Style};
use super::text::fit_middle;
use crate::analysis::events::RowSource;
use crate::analysis::plot_data::imbalance;
use crate::analysis::rank_distribution::{distribution, RankValue, MANY_RANKS};
use crate::analysis::units::{count_text, duration_text};
use crate::analysis::Result;
use crate::schema::Profile;
use crate::sort::SortSlice;

/// The imbalance chart of `profile` (named `label`).
pub fn scene(
    profile: &Profile,
    source: &dyn RowSource,
    label: &str,
    opts: &PlotOptions,
) -> Result<Scene> {
    let lines = imbalance::lines(&run(profile, source, label), &data_options(opts, 30))?;
    if lines.iter().map(|l| l.ranks.len()).max().unwrap_or(0) > MANY_RANKS {
        return Ok(boxes(profile, &lines, label, opts));
    }
    let Start {
        mut scene,
        f,
        colors,
        width,
        top,
    } = start(
        profile,
        &lines,
        label,
        opts,
        "faint line: the mean over the ranks; ringed: the slowest rank",
    );

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

/// How many outlier ranks of a region are named beside their dots.
const NAMED: usize = 3;

/// The imbalance chart of more ranks than fit as points: a box and whiskers per region over
/// its ranks ([`distribution`]): the box from the first to the third quartile, the median
/// across it, whiskers to the last ranks within 1.5 IQR, a dot per pixel holding outlier
/// ranks, the farthest outliers and the slowest rank named.
/// What both forms of the chart start with: the scene, its furniture and colours, the title,
/// the line saying what is drawn (`how`), and the regions' legend, whose bottom is `top`.
struct Start {
    scene: Scene,
    f: Furniture,
    colors: Colors,
    width: f32,
    top: f32,
}

fn start(
    profile: &Profile,
    lines: &[imbalance::Line],
    label: &str,
    opts: &PlotOptions,
    how: &str,
) -> Start {
    let width = opts.width.clamp(400.0, 20_000.0);
    let mut scene = Scene::new(width, 0.0, opts.theme.ink().bg);
    let f = Furniture::new(&mut scene, opts.theme);
    let colors = Colors::new(profile);
    let title = format!("Per-rank load imbalance of {label}");
    scene.title = title.clone();
    scene.desc = opts.command.clone();
    let line = format!(
        "{} of {} regions per rank {} · {how}",
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
    Start {
        scene,
        f,
        colors,
        width,
        top,
    }
}

fn boxes(profile: &Profile, lines: &[imbalance::Line], label: &str, opts: &PlotOptions) -> Scene {
    let Start {
        mut scene,
        f,
        colors,
        width,
        top,
    } = start(
        profile,
        lines,
        label,
        opts,
        "box: the middle half of the ranks, line: the median, diamond: the mean · whiskers: ranks within 1.5 × the box; dots: outlier ranks, the farthest and the slowest named",
    );

    let dists: Vec<_> = (lines.iter())
        .map(|l| distribution(&l.ranks, &l.values, NAMED))
        .collect();
    let values = dists.iter().flatten().flat_map(|d| [d.min, d.max]);
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
    let axis = Axis {
        scale: yscale,
        ticks: yticks,
        title: ytitle,
        format: &*format,
    };
    y_axis(&mut scene, &f, &axis, x0, Some(x1), PAD + 8.0);
    scene.line(x0, y0, x1, y0, f.axis);
    let slot = (x1 - x0) / lines.len().max(1) as f32;
    let half = (slot * 0.22).min(40.0);
    let ink = scene.class("bx", Style::stroke(f.ink.fg, 1.0));
    let median = scene.class("md", Style::stroke(f.ink.fg, 2.5));
    let ring = scene.class("ring", Style::stroke(f.ink.fg, 1.5));
    let mean_dot = scene.class("mn", Style::fill(f.ink.fg));
    let time = |v: f64| duration_text(Some(v));
    for (i, (l, d)) in lines.iter().zip(&dists).enumerate() {
        let Some(d) = d else { continue };
        let cx = x0 + (i as f32 + 0.5) * slot;
        let fill = colors.fill(&mut scene, &f, &l.region, &[]);
        let (wlo, whi) = d.whiskers(&l.values);
        let (ylo, yhi) = (yscale.at(wlo), yscale.at(whi));
        scene.line(cx, ylo, cx, yhi, ink);
        scene.line(cx - half / 2.0, ylo, cx + half / 2.0, ylo, ink);
        scene.line(cx - half / 2.0, yhi, cx + half / 2.0, yhi, ink);
        let (bq1, bq3) = (yscale.at(d.q1), yscale.at(d.q3));
        let tip = format!(
            "{} over {} ranks: min {} (rank {}) · first quartile {} · median {} · third quartile {} · max {} (rank {}) · mean {} · {} outlier ranks",
            l.region,
            count_text(d.count as u64),
            time(d.min),
            d.min_rank,
            time(d.q1),
            time(d.median),
            time(d.q3),
            time(d.max),
            d.max_rank,
            time(d.mean),
            count_text(d.outlier_count as u64)
        );
        scene.rect_tip(cx - half, bq3, 2.0 * half, (bq1 - bq3).max(1.0), fill, tip);
        let p = [
            (cx - half, bq3),
            (cx + half, bq3),
            (cx + half, bq1.max(bq3 + 1.0)),
            (cx - half, bq1.max(bq3 + 1.0)),
        ];
        scene.push(Shape::Path {
            points: p.to_vec(),
            closed: true,
            class: ink,
        });
        let my = yscale.at(d.median);
        scene.line(cx - half, my, cx + half, my, median);
        let (mx, mny) = (cx, yscale.at(d.mean));
        scene.push(Shape::Path {
            points: vec![
                (mx - 4.0, mny),
                (mx, mny - 4.0),
                (mx + 4.0, mny),
                (mx, mny + 4.0),
            ],
            closed: true,
            class: mean_dot,
        });
        // Outliers: one dot per pixel row that holds any (their count is bounded by the
        // plot's height however many ranks there are).
        let mut rows: Vec<i32> = (l.values.iter())
            .filter(|&&v| v < d.low_fence || v > d.high_fence)
            .map(|&v| yscale.at(v).round() as i32)
            .collect();
        rows.sort_ord_unstable();
        rows.dedup();
        for y in rows {
            scene.push(Shape::Circle {
                cx,
                cy: y as f32,
                r: 2.0,
                class: fill,
                tip: None,
            });
        }
        // Named: the farthest outliers and the slowest rank, without overlapping.
        let mut named: Vec<RankValue> = d.outliers.clone();
        if !named.iter().any(|o| o.rank == d.max_rank) {
            named.insert(
                0,
                RankValue {
                    rank: d.max_rank,
                    value: d.max,
                },
            );
        }
        let mut placed: Vec<f32> = Vec::new();
        for o in &named {
            let y = yscale.at(o.value);
            if o.rank == d.max_rank {
                scene.push(Shape::Circle {
                    cx,
                    cy: y,
                    r: 5.0,
                    class: ring,
                    tip: None,
                });
            }
            if placed.iter().any(|p| (p - y).abs() < TEXT + 1.0) {
                continue;
            }
            placed.push(y);
            let tip = format!("{} on {}: {}", l.region, o.name(), time(o.value));
            scene.text_tip(
                cx + 8.0,
                y + font::cap_height(TEXT) / 2.0,
                o.name(),
                Anchor::Start,
                f.text,
                tip,
            );
        }
        // The region's name under its box, cut to the slot.
        let shown = fit_middle(&l.region, TEXT, slot - 6.0).into_owned();
        scene.text_tip(
            cx,
            y0 + 6.0 + font::cap_height(TEXT) + 2.0,
            shown,
            Anchor::Middle,
            f.text,
            l.region.clone(),
        );
    }
    let below = y0 + 6.0 + TEXT + 2.0 + 8.0 + font::cap_height(TEXT);
    scene.text((x0 + x1) / 2.0, below, "Region", Anchor::Middle, f.muted);
    scene.height = below + 6.0 + PAD;
    scene
}
