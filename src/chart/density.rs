//! The density chart: one row per region, one column per time bin, each cell the seconds
//! the region's calls occupy in the bin ([`crate::analysis::plot_data::density`]) on the
//! sequential scale (viridis), with its numbers in the legend.

use super::aggregate::{data_options, run, scope, seconds_axis, x_seconds};
use super::color::sequential;
use super::font;
use super::frame::{header, Furniture, PAD, TEXT};
use super::gantt::window_note;
use super::plot::PlotOptions;
use super::scene::{Anchor, Scene, Style};
use super::timeline::row_label;
use crate::analysis::events::RowSource;
use crate::analysis::plot_data::density;
use crate::analysis::units::duration_text;
use crate::analysis::Result;
use crate::schema::Profile;

/// Shades of the scale a cell is painted in (one class each).
const SHADES: usize = 32;

/// The density chart of `profile` (named `label`).
pub fn scene(
    profile: &Profile,
    source: &dyn RowSource,
    label: &str,
    opts: &PlotOptions,
) -> Result<Scene> {
    let d = density::density(&run(profile, source, label), &data_options(opts, 200))?;
    let width = opts.width.clamp(400.0, 20_000.0);
    let theme = opts.theme;
    let mut scene = Scene::new(width, 0.0, theme.ink().bg);
    let f = Furniture::new(&mut scene, theme);
    let title = format!("Timeline density of {label}");
    scene.title = title.clone();
    scene.desc = opts.command.clone();
    let bins = d.edges.len() - 1;
    let mut lines = super::aggregate::wrap(
        &format!(
        "{} regions {} · {bins} time bins; a cell is the time the region's calls occupy in its bin",
        d.series.len(),
        scope(profile, opts)
    ),
        width,
    );
    lines.extend(window_note(opts));
    let top = header(&mut scene, &f, &title, &lines);
    let max = d
        .series
        .iter()
        .flat_map(|(_, v)| v)
        .copied()
        .fold(0.0, f64::max);

    // The legend: the scale with its ends and middle in numbers.
    let mut x = PAD;
    let y = top;
    let what = "occupied per bin (blank: none):";
    scene.text(x, y + 10.0, what, Anchor::Start, f.muted);
    x += font::room(what, TEXT, false) + 8.0;
    let shade = |i: usize| sequential(i as f64 / (SHADES - 1) as f64, theme);
    for i in 0..SHADES {
        let class = scene.class(&format!("q{i}"), Style::fill(shade(i)));
        scene.rect(x + i as f32 * 5.0, y, 5.0, 12.0, class);
    }
    for (t, at) in [(0.0, 0.0), (0.5, 0.5), (1.0, 1.0)] {
        let tx = x + at * (SHADES as f32 * 5.0);
        scene.text(
            tx,
            y + 26.0,
            duration_text(Some(max * t)),
            Anchor::Middle,
            f.muted,
        );
    }
    let top = y + 40.0;

    let widest = d
        .series
        .iter()
        .map(|(n, _)| font::room(n, TEXT, false))
        .fold(60.0, f32::max);
    let label_w = widest.min(width * 0.3);
    let x0 = PAD + label_w + 8.0;
    let x1 = width - PAD;
    let cell_w = (x1 - x0) / bins as f32;
    let rows = d.series.len();
    let cell_h = if rows <= 40 {
        22.0
    } else {
        (880.0 / rows as f32).max(3.0)
    };
    let mut yy = top;
    for (name, values) in &d.series {
        if cell_h >= TEXT + 2.0 {
            row_label(&mut scene, &f, name, x0 - 8.0, yy + cell_h / 2.0, label_w);
        }
        // Runs of equal shade become one rectangle.
        let mut k = 0;
        while k < bins {
            let q = |v: f64| {
                if max > 0.0 {
                    ((v / max) * (SHADES - 1) as f64).round() as usize
                } else {
                    0
                }
            };
            let s = q(values[k]);
            let mut e = k + 1;
            while e < bins && q(values[e]) == s && (values[e] == 0.0) == (values[k] == 0.0) {
                e += 1;
            }
            // No time at all: the background, so empty bins read as empty.
            let class = match values[k] == 0.0 && s == 0 {
                true => f.band,
                false => scene.class(&format!("q{s}"), Style::fill(shade(s))),
            };
            let tip = format!(
                "{name}: {} occupied in {} to {}",
                duration_text(Some(values[k])),
                duration_text(Some(d.edges[k])),
                duration_text(Some(d.edges[e]))
            );
            let tip = if e - k > 1 {
                format!("{tip} ({} bins)", e - k)
            } else {
                tip
            };
            scene.rect_tip(
                x0 + k as f32 * cell_w,
                yy,
                (e - k) as f32 * cell_w,
                cell_h - 1.0,
                class,
                tip,
            );
            k = e;
        }
        yy += cell_h;
    }
    let (lo, hi) = (d.edges[0], d.edges[bins]);
    let (scale, ticks, title_x, unit) =
        seconds_axis(lo, hi, x0, x1, false, "Time from the first call");
    let scale = super::axis::Scale { lo, hi, ..scale };
    let mut ticks = ticks;
    ticks
        .values
        .retain(|v| *v >= lo - 1e-12 && *v <= hi + 1e-12);
    let bottom = x_seconds(
        &mut scene,
        &f,
        scale,
        ticks,
        title_x,
        unit,
        yy + 2.0,
        yy + 2.0,
    );
    scene.height = bottom + PAD;
    Ok(scene)
}
