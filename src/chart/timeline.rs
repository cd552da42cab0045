//! What the gantt and the flame chart share: a time axis from the run's first call, rank
//! bands, and a lane's level-of-detail shapes ([`lod::shapes`]) painted as rectangles — a
//! call at least a pixel wide in its region's colour, a block of narrower calls merged in
//! the paler colour of its dominant region with a band of the full colour on top.

use super::axis::{time_unit, Scale, Ticks};
use super::font;
use super::frame::{in_unit, x_axis, Axis, Furniture, TEXT};
use super::scene::{Anchor, Scene, Shape};
use super::text::fit_end;
use crate::analysis::lod::{shapes, Drawn, Lane, LaneStream};
use crate::analysis::units::{count_text, duration_text};

/// The time span drawn and where it lies in the scene.
pub struct TimeFrame {
    /// The absolute ns of the left and right edge.
    pub t0: i64,
    pub t1: i64,
    /// The run's first call (times in tooltips are from it), ns.
    pub origin: i64,
    /// Pixels of the left and right edge.
    pub x0: f32,
    pub x1: f32,
}

impl TimeFrame {
    /// Pixels per ns.
    pub fn scale(&self) -> f64 {
        let span = (self.t1 - self.t0).max(1) as f64;
        f64::from(self.x1 - self.x0) / span
    }

    /// Draws the time axis below `y` and returns the y below its title; its grid lines go
    /// up to `grid_top`, painted under the shapes from the `under`-th on (the calls).
    pub fn axis(
        &self,
        scene: &mut Scene,
        f: &Furniture,
        y: f32,
        grid_top: f32,
        under: usize,
    ) -> f32 {
        let lo = (self.t0 - self.origin) as f64 / 1e9;
        let hi = (self.t1 - self.origin) as f64 / 1e9;
        let unit = time_unit(hi.abs().max(lo.abs()));
        let ticks = Ticks::linear(lo, hi);
        let format = in_unit(unit.seconds, ticks.step);
        let axis = Axis {
            scale: Scale::linear(lo, hi, self.x0, self.x1),
            ticks,
            title: format!("Time from the first call ({})", unit.name),
            format: &format,
        };
        let bottom = x_axis(scene, f, &axis, y, None);
        let grid: Vec<Shape> = (axis.ticks.values.iter())
            .map(|&v| {
                let x = axis.scale.at(v);
                Shape::Line {
                    x1: x,
                    y1: grid_top,
                    x2: x,
                    y2: y,
                    class: f.grid,
                }
            })
            .collect();
        let at = under.min(scene.shapes.len());
        scene.shapes.splice(at..at, grid);
        bottom
    }
}

fn secs(ns: i64) -> String {
    duration_text(Some(ns as f64 / 1e9))
}

/// Paints `lane` into the row `[y, y + h)`: one shape per call wide enough, one merged
/// block per run of narrower calls; `names` by region id give the tooltips (with `who`,
/// the rank), and calls wider than their name are labelled inside when `label` is set.
/// Marks the region ids painted in `seen`, for a legend.
#[allow(clippy::too_many_arguments)]
pub fn paint_lane(
    scene: &mut Scene,
    f: &Furniture,
    frame: &TimeFrame,
    lane: &Lane,
    y: f32,
    h: f32,
    names: &[String],
    who: &str,
    label: bool,
    seen: &mut [bool],
) {
    let mut cursors = Vec::new();
    shapes(lane, frame.t0 as f64, frame.t1 as f64, frame.scale(), |s| {
        let d = Drawn::of(lane, &s, &mut cursors);
        paint_drawn(scene, f, frame, &d, y, h, names, who, label, seen);
        true
    });
}

/// Where a [`LaneStream`] of `frame` starts: the lane's calls then come one at a time
/// (`regions`: the profile's count, or 0 for a lane that keeps no table of them).
pub fn lane_stream(frame: &TimeFrame, regions: usize) -> LaneStream {
    LaneStream::new(frame.t0 as f64, frame.t1 as f64, frame.scale(), regions)
}

/// Paints one shape of a lane into the row `[y, y + h)`, as [`paint_lane`] does.
#[allow(clippy::too_many_arguments)]
pub fn paint_drawn(
    scene: &mut Scene,
    f: &Furniture,
    frame: &TimeFrame,
    drawn: &Drawn,
    y: f32,
    h: f32,
    names: &[String],
    who: &str,
    label: bool,
    seen: &mut [bool],
) {
    let name = |r: u32| names.get(r as usize).map_or("?", String::as_str);
    let band = (h / 5.0).clamp(1.0, 3.0);
    let clip = |sx0: f32, sx1: f32| {
        let x0 = frame.x0 + sx0.max(0.0);
        (x0, (frame.x0 + sx1).min(frame.x1).max(x0 + 0.5))
    };
    match *drawn {
        Drawn::Call {
            x0,
            x1,
            start,
            end: stop,
            region,
        } => {
            let (x0, x1) = clip(x0, x1);
            if let Some(v) = seen.get_mut(region as usize) {
                *v = true;
            }
            let class = f.region(scene, region, false);
            let tip = format!(
                "{} · {who} · at {} · {}",
                name(region),
                secs(start - frame.origin),
                secs(stop - start)
            );
            // A hair between neighbours once a call is wide enough to show one.
            let w = if x1 - x0 > 3.0 {
                x1 - x0 - 0.5
            } else {
                x1 - x0
            };
            scene.rect_tip(x0, y, w, h, class, tip);
            if label && x1 - x0 >= 24.0 && h >= TEXT + 2.0 {
                let text = fit_end(name(region), TEXT, x1 - x0 - 6.0);
                if !text.is_empty() {
                    let base = y + h / 2.0 + font::cap_height(TEXT) / 2.0;
                    scene.text(
                        x0 + 3.0,
                        base,
                        text.into_owned(),
                        Anchor::Start,
                        f.on_region,
                    );
                }
            }
        }
        Drawn::Block {
            x0,
            x1,
            start,
            calls,
            region,
            region_ns: time,
            busy_ns: busy,
        } => {
            let (x0, x1) = clip(x0, x1);
            if let Some(v) = seen.get_mut(region as usize) {
                *v = true;
            }
            let pale = f.region(scene, region, true);
            let full = f.region(scene, region, false);
            let share = if busy > 0 {
                100.0 * time as f64 / busy as f64
            } else {
                100.0
            };
            let tip = format!(
                "{} calls merged · {who} · at {} · mostly {} ({share:.0} % of {} busy)",
                count_text(calls),
                secs(start - frame.origin),
                name(region),
                secs(busy)
            );
            scene.rect_tip(x0, y, x1 - x0, h, pale, tip);
            scene.rect(x0, y, x1 - x0, band, full);
        }
    }
}

/// The row label `text` at the left of a row, cut to `room`, with its full text as a tooltip.
pub fn row_label(scene: &mut Scene, f: &Furniture, text: &str, x: f32, mid_y: f32, room: f32) {
    let shown = super::text::fit_middle(text, TEXT, room).into_owned();
    let base = mid_y + font::cap_height(TEXT) / 2.0;
    scene.text_tip(x, base, shown, Anchor::End, f.text, text.to_string());
}
