//! What every chart has around its data: the title and subtitle, the axes with their
//! ticks, grid lines and titles, and a legend where direct labels cannot go. The classes
//! are named once here so every chart's style sheet reads the same.

use super::axis::{label, tick_anchor, Scale, Ticks};
use super::color::{region, Ink, Theme};
use super::font;
use super::scene::{Anchor, Class, Scene, Style};
use super::text::fit_middle;

/// Text sizes, in pixels: nothing below 11 at the default size.
pub const TITLE: f32 = 16.0;
pub const SUBTITLE: f32 = 12.0;
pub const TEXT: f32 = 11.0;

/// The classes of a chart's furniture.
#[derive(Debug, Clone, Copy)]
pub struct Furniture {
    pub theme: Theme,
    pub ink: Ink,
    pub title: Class,
    pub subtitle: Class,
    pub text: Class,
    pub muted: Class,
    pub axis: Class,
    pub grid: Class,
    pub band: Class,
    /// Text over a region's colour.
    pub on_region: Class,
}

impl Furniture {
    pub fn new(scene: &mut Scene, theme: Theme) -> Furniture {
        let ink = theme.ink();
        Furniture {
            theme,
            ink,
            title: scene.class("title", Style::text(ink.fg, TITLE).bold()),
            subtitle: scene.class("sub", Style::text(ink.muted, SUBTITLE)),
            text: scene.class("t", Style::text(ink.fg, TEXT)),
            muted: scene.class("tm", Style::text(ink.muted, TEXT)),
            axis: scene.class("ax", Style::stroke(ink.border, 1.0)),
            grid: scene.class("gr", Style::stroke(ink.grid, 1.0)),
            band: scene.class("band", Style::fill(ink.bg_alt)),
            on_region: scene.class("tr", Style::text(ink.on_region, TEXT)),
        }
    }

    /// The class of region `id`'s colour (`merged`: the paler one of merged blocks).
    pub fn region(&self, scene: &mut Scene, id: u32, merged: bool) -> Class {
        let name = format!("{}{id}", if merged { "m" } else { "r" });
        scene.class(&name, Style::fill(region(id, self.theme, merged)))
    }
}

/// The left margin of the chart and the top of its plot after the header.
pub const PAD: f32 = 16.0;

/// Writes the title and subtitle lines (each cut to the width) and returns the y below.
pub fn header(scene: &mut Scene, f: &Furniture, title: &str, subtitles: &[String]) -> f32 {
    let room = scene.width - 2.0 * PAD;
    let mut y = PAD + font::cap_height(TITLE);
    let t = fit_middle(title, TITLE * 1.05, room).into_owned();
    scene.text_tip(PAD, y, t, Anchor::Start, f.title, title.to_string());
    for line in subtitles {
        y += SUBTITLE + 6.0;
        let s = fit_middle(line, SUBTITLE, room).into_owned();
        scene.text(PAD, y, s, Anchor::Start, f.subtitle);
    }
    y + 14.0
}

/// An axis: its scale, ticks, title, and how a tick is written.
pub struct Axis<'a> {
    pub scale: Scale,
    pub ticks: Ticks,
    pub title: String,
    pub format: &'a dyn Fn(f64) -> String,
}

/// Draws `axis` horizontally along `y` (its pixels are x): ticks, labels, grid lines up to
/// `grid_top` (none if `None`), and the title centred below. Returns the y below it.
pub fn x_axis(scene: &mut Scene, f: &Furniture, axis: &Axis, y: f32, grid_top: Option<f32>) -> f32 {
    let scale = &axis.scale;
    scene.line(scale.p0, y, scale.p1, y, f.axis);
    let (left, right) = (scale.p0.min(scale.p1), scale.p0.max(scale.p1));
    for &v in &axis.ticks.values {
        let x = scale.at(v);
        if let Some(top) = grid_top {
            scene.line(x, top, x, y, f.grid);
        }
        scene.line(x, y, x, y + 4.0, f.axis);
        let text = (axis.format)(v);
        let half = font::room(&text, TEXT, false) / 2.0;
        let anchor = tick_anchor(x, left - 20.0, right + 20.0, half);
        scene.text(
            x,
            y + 6.0 + font::cap_height(TEXT) + 2.0,
            text,
            anchor,
            f.muted,
        );
    }
    let below = y + 6.0 + TEXT + 2.0 + 8.0 + font::cap_height(TEXT);
    scene.text(
        (left + right) / 2.0,
        below,
        axis.title.clone(),
        Anchor::Middle,
        f.text,
    );
    below + 6.0
}

/// Draws `axis` vertically along `x` (its pixels are y): ticks and labels on the left,
/// grid lines to `grid_right`, the title turned along it at `title_x`.
pub fn y_axis(
    scene: &mut Scene,
    f: &Furniture,
    axis: &Axis,
    x: f32,
    grid_right: Option<f32>,
    title_x: f32,
) {
    let scale = &axis.scale;
    scene.line(x, scale.p0, x, scale.p1, f.axis);
    for &v in &axis.ticks.values {
        let y = scale.at(v);
        if let Some(right) = grid_right {
            scene.line(x, y, right, y, f.grid);
        }
        scene.line(x - 4.0, y, x, y, f.axis);
        let baseline = y + font::cap_height(TEXT) / 2.0;
        scene.text(x - 6.0, baseline, (axis.format)(v), Anchor::End, f.muted);
    }
    let mid = (scale.p0 + scale.p1) / 2.0;
    scene.push(super::scene::Shape::VText {
        x: title_x,
        y: mid,
        text: axis.title.clone(),
        class: f.text,
    });
}

/// The widest tick label of `ticks` as `format` writes them, in pixels.
pub fn widest(ticks: &Ticks, format: &dyn Fn(f64) -> String) -> f32 {
    ticks
        .values
        .iter()
        .map(|&v| font::room(&format(v), TEXT, false))
        .fold(0.0, f32::max)
}

/// A tick formatter for values in `unit` seconds with the ticks' step.
pub fn in_unit(unit: f64, step: f64) -> impl Fn(f64) -> String {
    move |v: f64| label(v / unit, step / unit)
}

/// A legend of `(class, name)` swatches in rows from `(x, y)` within `width`; returns the y
/// below it. Long names are cut in the middle, with the full name as the tooltip.
pub fn legend(
    scene: &mut Scene,
    f: &Furniture,
    entries: &[(Class, String)],
    x: f32,
    y: f32,
    width: f32,
) -> f32 {
    let (mut cx, mut cy) = (x, y);
    let max_name = 180.0;
    for (class, name) in entries {
        let shown = fit_middle(name, TEXT, max_name).into_owned();
        let w = 12.0 + 4.0 + font::room(&shown, TEXT, false) + 14.0;
        if cx > x && cx + w > x + width {
            cx = x;
            cy += TEXT + 8.0;
        }
        scene.rect_tip(cx, cy - 9.0, 10.0, 10.0, *class, name.clone());
        scene.text_tip(cx + 14.0, cy, shown, Anchor::Start, f.text, name.clone());
        cx += w;
    }
    cy + 10.0
}
