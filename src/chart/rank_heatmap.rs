//! The rank heatmap: one row per region, one column per rank in order, each cell the
//! region's total time on that rank ([`crate::analysis::plot_data::rank_heatmap`]) on a
//! diverging scale around the region's mean over the ranks (cold below, hot above, as the
//! page's heatmap), the slowest rank of each region outlined, the legend in percent.

use super::aggregate::{data_options, run, scope};
use super::color::diverging;
use super::font;
use super::frame::{header, Furniture, PAD, TEXT};
use super::plot::PlotOptions;
use super::scene::{Anchor, Scene, Style};
use super::timeline::row_label;
use crate::analysis::events::RowSource;
use crate::analysis::numeric;
use crate::analysis::plot_data::rank_heatmap;
use crate::analysis::units::duration_text;
use crate::analysis::Result;
use crate::schema::Profile;

/// The rank heatmap of `profile` (named `label`).
pub fn scene(
    profile: &Profile,
    source: &dyn RowSource,
    label: &str,
    opts: &PlotOptions,
) -> Result<Scene> {
    let h = rank_heatmap::heatmap(&run(profile, source, label), &data_options(opts, 30))?;
    let width = opts.width.clamp(400.0, 20_000.0);
    let theme = opts.theme;
    let mut scene = Scene::new(width, 0.0, theme.ink().bg);
    let f = Furniture::new(&mut scene, theme);
    let title = format!("Total time by rank and region of {label}");
    scene.title = title.clone();
    scene.desc = opts.command.clone();
    let line = format!(
        "{} regions × {} ranks {} · colour: a rank's total against the region's mean over the ranks; outlined: its slowest rank",
        h.regions.len(),
        h.ranks.len(),
        scope(profile, opts)
    );
    let top = header(
        &mut scene,
        &f,
        &title,
        &super::aggregate::wrap(&line, width),
    );

    // The legend: the scale from −100 % to +100 % of the mean.
    let mut y = top;
    let steps = [-1.0, -0.5, 0.0, 0.5, 1.0];
    let mut x = PAD;
    scene.text(
        x,
        y + 9.0,
        "against the region's mean:",
        Anchor::Start,
        f.muted,
    );
    x += font::room("against the region's mean:", TEXT, false) + 8.0;
    for (i, s) in steps.iter().enumerate() {
        let class = scene.class(&format!("lg{i}"), Style::fill(diverging(*s, theme)));
        scene.rect(x, y, 28.0, 12.0, class);
        let t = match *s {
            0.0 => "mean".to_string(),
            v => format!(
                "{}{} %",
                if v > 0.0 { "+" } else { "−" },
                (v.abs() * 100.0) as i32
            ),
        };
        scene.text(x + 32.0, y + 10.0, t.clone(), Anchor::Start, f.muted);
        x += 36.0 + font::room(&t, TEXT, false) + 10.0;
    }
    y += 26.0;

    let widest = h
        .regions
        .iter()
        .map(|n| font::room(n, TEXT, false))
        .fold(60.0, f32::max);
    let label_w = widest.min(width * 0.3);
    let x0 = PAD + label_w + 8.0;
    let x1 = width - PAD;
    let n = h.ranks.len().max(1);
    let cell_w = (x1 - x0) / n as f32;
    let cell_h = if h.regions.len() <= 40 {
        22.0
    } else {
        (880.0 / h.regions.len() as f32).max(3.0)
    };
    // Rank labels above the columns, as many as fit.
    let every = ((font::room("0000", TEXT, false) + 6.0) / cell_w)
        .ceil()
        .max(1.0) as usize;
    for (i, rank) in h.ranks.iter().enumerate() {
        if i % every == 0 {
            let cx = x0 + (i as f32 + 0.5) * cell_w;
            scene.text(cx, y + 8.0, rank.to_string(), Anchor::Middle, f.muted);
        }
    }
    scene.text(x0 - 8.0, y + 8.0, "rank", Anchor::End, f.muted);
    y += 14.0;
    let slow = scene.class("slow", Style::stroke(theme.ink().fg, 2.0));
    let gap = if cell_w >= 6.0 { 1.0 } else { 0.0 };
    for (name, values) in h.regions.iter().zip(&h.values) {
        if cell_h >= TEXT + 2.0 {
            row_label(&mut scene, &f, name, x0 - 8.0, y + cell_h / 2.0, label_w);
        }
        let mean = numeric::mean(values).unwrap_or(0.0);
        let slowest = (values.iter().enumerate())
            .fold(None, |best: Option<(usize, f64)>, (i, &v)| match best {
                Some((_, b)) if b >= v => best,
                _ => Some((i, v)),
            })
            .map(|(i, _)| i);
        for (i, (&v, rank)) in values.iter().zip(&h.ranks).enumerate() {
            let shade = if mean > 0.0 {
                ((v - mean) / mean).clamp(-1.0, 1.0)
            } else {
                0.0
            };
            let bucket = (shade * 10.0).round() as i32;
            let class = scene.class(
                &format!("d{}", bucket + 10),
                Style::fill(diverging(bucket as f64 / 10.0, theme)),
            );
            let tip = format!(
                "{name} on rank {rank}: {} (mean over ranks {})",
                duration_text(Some(v)),
                duration_text(Some(mean))
            );
            let cx = x0 + i as f32 * cell_w;
            scene.rect_tip(
                cx,
                y,
                (cell_w - gap).max(0.5),
                (cell_h - gap).max(0.5),
                class,
                tip,
            );
            if cell_w >= 64.0 && cell_h >= TEXT + 4.0 {
                let base = y + cell_h / 2.0 + font::cap_height(TEXT) / 2.0;
                scene.text(
                    cx + cell_w / 2.0,
                    base,
                    duration_text(Some(v)),
                    Anchor::Middle,
                    f.text,
                );
            }
        }
        if let Some(i) = slowest.filter(|_| values.len() > 1 && mean > 0.0) {
            let cx = x0 + i as f32 * cell_w;
            let p = [
                (cx + 1.0, y + 1.0),
                (cx + cell_w - gap - 1.0, y + 1.0),
                (cx + cell_w - gap - 1.0, y + cell_h - gap - 1.0),
                (cx + 1.0, y + cell_h - gap - 1.0),
            ];
            scene.push(super::scene::Shape::Path {
                points: p.to_vec(),
                closed: true,
                class: slow,
            });
        }
        y += cell_h;
    }
    scene.height = y + PAD;
    Ok(scene)
}
