//! What the aggregate charts (durations, histogram, rank heatmap, imbalance, timeseries,
//! density) share: their data from [`crate::analysis::plot_data`] with the plot's options,
//! region colours by region id, the subtitle naming what was kept, and value axes in the
//! time unit that suits them.

use std::collections::HashMap;

use super::axis::{time_unit, Scale, Ticks};
use super::flamegraph::scope_text;
use super::frame::{in_unit, Axis, Furniture};
use super::plot::PlotOptions;
use super::scene::{Class, Scene, Style};
use crate::analysis::events::RowSource;
use crate::analysis::lanes;
use crate::analysis::plot_data::{Options, Run};
use crate::schema::Profile;

/// The data options of `opts`; `bins` the kind's default when none was given.
pub fn data_options(opts: &PlotOptions, bins: usize) -> Options {
    let w = &opts.window;
    Options {
        selection: opts.selection.clone(),
        metric: opts.metric,
        sort_by: opts.sort_by.clone(),
        top_n: opts.top_n,
        combine: opts.combine.clone(),
        stack_children: opts.stack_children,
        bins: opts.bins.unwrap_or(bins),
        start_time: w.start_ns.map(|ns| ns as f64 / 1e9),
        end_time: w.end_ns.map(|ns| ns as f64 / 1e9),
        min_duration: w.min_duration_ns as f64 / 1e9,
    }
}

/// The run the data is computed for.
pub fn run<'a>(profile: &'a Profile, source: &'a dyn RowSource, label: &str) -> Run<'a> {
    Run {
        profile,
        source,
        label: label.to_string(),
    }
}

/// Region colours by name: each region's id in the profile (its colour everywhere), a
/// combined bar the colour of its first member.
pub struct Colors {
    ids: HashMap<String, u32>,
}

impl Colors {
    pub fn new(profile: &Profile) -> Colors {
        let ids = (profile.regions.iter().enumerate())
            .map(|(i, r)| (r.name.clone(), i as u32))
            .collect();
        Colors { ids }
    }

    /// The id of region `name` (or of `members[0]` for a combined bar).
    pub fn id(&self, name: &str, members: &[String]) -> u32 {
        let first = members.first().map_or(name, String::as_str);
        self.ids
            .get(name)
            .or(self.ids.get(first))
            .copied()
            .unwrap_or(0)
    }

    /// A fill class of region `name`'s colour.
    pub fn fill(&self, scene: &mut Scene, f: &Furniture, name: &str, members: &[String]) -> Class {
        f.region(scene, self.id(name, members), false)
    }

    /// A stroke class of region `name`'s colour, `width` pixels.
    pub fn stroke(&self, scene: &mut Scene, f: &Furniture, name: &str, width: f32) -> Class {
        let id = self.id(name, &[]);
        let color = super::color::region(id, f.theme, false);
        scene.class(&format!("s{id}"), Style::stroke(color, width))
    }
}

/// "over all 8 ranks" and the filters: the scope line of a subtitle.
pub fn scope(profile: &Profile, opts: &PlotOptions) -> String {
    let ranks = lanes::ranks(profile, &opts.selection);
    let mut s = format!("over {}", scope_text(&ranks, profile.num_ranks));
    if opts.selection.filtered() {
        s.push_str(" · regions filtered by --include/--exclude");
    }
    s
}

/// A value axis of seconds from `lo` to `hi` (log: decades) between pixels `p0` and `p1`,
/// in the unit that suits `hi`; the title is `what (unit)`.
pub fn seconds_axis(
    lo: f64,
    hi: f64,
    p0: f32,
    p1: f32,
    log: bool,
    what: &str,
) -> (Scale, Ticks, String, f64) {
    let unit = time_unit(hi.abs().max(lo.abs()));
    let (scale, ticks) = if log && lo > 0.0 && hi > 0.0 {
        let lo = 10f64.powf(lo.log10().floor());
        let hi = 10f64.powf(hi.log10().ceil()).max(lo * 10.0);
        (Scale::log(lo, hi, p0, p1), Ticks::log(lo, hi))
    } else {
        let (top, ticks) = Ticks::rounded_up(lo.min(0.0), hi.max(lo + 1e-12));
        (Scale::linear(lo.min(0.0), top, p0, p1), ticks)
    };
    (
        scale,
        ticks,
        format!("{what} ({})", unit.name),
        unit.seconds,
    )
}

/// Draws a horizontal seconds axis at `y` with grid lines up to `top`; returns the y below.
#[allow(clippy::too_many_arguments)]
pub fn x_seconds(
    scene: &mut Scene,
    f: &Furniture,
    scale: Scale,
    ticks: Ticks,
    title: String,
    unit: f64,
    y: f32,
    top: f32,
) -> f32 {
    let format = tick_format(unit, &ticks, scale.log);
    let axis = Axis {
        scale,
        ticks,
        title,
        format: &format,
    };
    super::frame::x_axis(scene, f, &axis, y, Some(top))
}

/// How a tick of seconds in `unit` is written: by the step on a linear axis, shortest on a
/// log one.
pub fn tick_format(unit: f64, ticks: &Ticks, log: bool) -> Box<dyn Fn(f64) -> String> {
    if log {
        Box::new(move |v: f64| crate::analysis::units::python_g(v / unit, 3))
    } else {
        Box::new(in_unit(unit, ticks.step))
    }
}

/// A subtitle as lines that fit `width`: broken at its ` · ` separators.
pub fn wrap(line: &str, width: f32) -> Vec<String> {
    let room = width - 2.0 * super::frame::PAD;
    let mut out: Vec<String> = Vec::new();
    for part in line.split(" · ") {
        match out.last_mut() {
            Some(last)
                if super::font::room(
                    &format!("{last} · {part}"),
                    super::frame::SUBTITLE,
                    false,
                ) <= room =>
            {
                last.push_str(" · ");
                last.push_str(part);
            }
            _ => out.push(part.to_string()),
        }
    }
    out
}
