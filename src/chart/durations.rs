//! The durations chart: one horizontal bar per region (or `--combine-regions` group) of the
//! statistic `--metric` pooled over the selected ranks, in the order of the data
//! ([`crate::analysis::plot_data::durations`]), each labelled with its name on the left and
//! its value at its end. With `--stack-children` each bar is split ([`durations::stacked`]):
//! the region's own time first, in its colour, then the time of each region it calls, in
//! theirs, named in a legend.

use super::aggregate::{data_options, run, scope, seconds_axis, x_seconds, Colors};
use super::font;
use super::frame::{header, legend, Furniture, PAD, TEXT};
use super::plot::PlotOptions;
use super::scene::{Anchor, Scene};
use super::timeline::row_label;
use crate::analysis::events::RowSource;
use crate::analysis::plot_data::{durations, regions};
use crate::analysis::units::duration_text;
use crate::analysis::Result;
use crate::schema::Profile;

/// The durations chart of `profile` (named `label`).
pub fn scene(
    profile: &Profile,
    source: &dyn RowSource,
    label: &str,
    opts: &PlotOptions,
) -> Result<Scene> {
    let data = data_options(opts, 30);
    let r = run(profile, source, label);
    let bars = durations::bars(&r, &data)?;
    let stacked = (opts.stack_children)
        .then(|| durations::stacked(&r, &data, &bars))
        .transpose()?;
    let value = |i: usize| stacked.as_ref().map_or(bars[i].value, |s| s.total(i));
    let all = regions(profile, &opts.selection)?.len();
    let width = opts.width.clamp(400.0, 20_000.0);
    let mut scene = Scene::new(width, 0.0, opts.theme.ink().bg);
    let f = Furniture::new(&mut scene, opts.theme);
    let colors = Colors::new(profile);

    let mut title = format!("{} per region of {label}", opts.metric.title());
    if stacked.is_some() {
        title.push_str(", children stacked");
    }
    scene.title = title.clone();
    scene.desc = opts.command.clone();
    let mut line = format!("{} bars {}", bars.len(), scope(profile, opts));
    if let Some(by) = &opts.sort_by {
        line.push_str(&format!(" · sorted by {by}"));
    }
    if bars.len() < all && opts.combine.is_empty() {
        line.push_str(&format!(" · the top {} of {all} regions", bars.len()));
    }
    if stacked.is_some() {
        line.push_str(" · each bar: the region's own time, then the regions it calls");
    }
    let mut top = header(
        &mut scene,
        &f,
        &title,
        &super::aggregate::wrap(&line, width),
    );
    // A child's colour is its region's (a group's: its first member's, when it is a bar).
    let members = |name: &str| {
        let bar = bars.iter().find(|b| b.name == name);
        bar.map_or_else(Vec::new, |b| b.members.clone())
    };
    let mut segment_class = Vec::new();
    if let Some(s) = &stacked {
        for name in &s.segments[1..] {
            segment_class.push(colors.fill(&mut scene, &f, name, &members(name)));
        }
        let entries: Vec<_> = (segment_class.iter().zip(&s.segments[1..]))
            .map(|(class, name)| (*class, format!("in {name}")))
            .collect();
        if !entries.is_empty() {
            top = legend(&mut scene, &f, &entries, PAD, top + 8.0, width - 2.0 * PAD) + 8.0;
        }
    }

    let widest = (bars.iter())
        .map(|b| font::room(&b.name, TEXT, false))
        .fold(60.0, f32::max);
    let label_w = widest.min(width * 0.32);
    let x0 = PAD + label_w + 8.0;
    let x1 = width - PAD - 64.0;
    let finite = (0..bars.len()).map(value).filter(|v| v.is_finite());
    let hi = finite.clone().fold(0.0, f64::max);
    let lo_pos = finite.filter(|v| *v > 0.0).fold(f64::INFINITY, f64::min);
    let log = opts.log_scale && lo_pos.is_finite();
    let lo = if log { lo_pos } else { 0.0 };
    let (scale, ticks, axis_title, unit) =
        seconds_axis(lo, hi.max(1e-12), x0, x1, log, opts.metric.title());

    let row_h = if bars.len() <= 40 {
        22.0
    } else {
        (880.0 / bars.len() as f32).max(4.0)
    };
    let labelled = row_h >= TEXT + 3.0;
    // The axis first, so its grid lies under the bars.
    let end = top + 4.0 + row_h * bars.len() as f32;
    let bottom = x_seconds(
        &mut scene,
        &f,
        scale,
        ticks,
        axis_title,
        unit,
        end + 4.0,
        top,
    );
    let mut y = top + 4.0;
    for (i, b) in bars.iter().enumerate() {
        let class = colors.fill(&mut scene, &f, &b.name, &b.members);
        let total = value(i);
        let mid = y + row_h / 2.0;
        if labelled {
            row_label(&mut scene, &f, &b.name, x0 - 8.0, mid, label_w);
        }
        let tip = format!(
            "{}: {}",
            b.name,
            duration_text(total.is_finite().then_some(total))
        );
        let tip = if b.members.len() > 1 {
            format!("{tip} (combines {})", b.members.join(", "))
        } else {
            tip
        };
        if total.is_finite() {
            let end = scale.at(total).max(x0 + 1.0);
            let h = (row_h * 0.7).max(2.0);
            match &stacked {
                None => scene.rect_tip(x0, mid - h / 2.0, end - x0, h, class, tip),
                Some(s) => {
                    let classes = std::iter::once(class).chain(segment_class.iter().copied());
                    let (mut sum, mut from) = (0.0, x0);
                    for ((name, v), class) in s.segments.iter().zip(&s.values[i]).zip(classes) {
                        if *v <= 0.0 {
                            continue;
                        }
                        sum += v;
                        let to = scale.at(sum).clamp(x0, end);
                        let share = 100.0 * v / total;
                        let time = duration_text(Some(*v));
                        let tip = match name.as_str() {
                            durations::SELF => {
                                format!("{}: own time {time} ({share:.0} %)", b.name)
                            }
                            _ => format!("{} in {name}: {time} ({share:.0} %)", b.name),
                        };
                        // A hairline of background between segments.
                        let w = if to - from > 3.0 {
                            to - from - 1.0
                        } else {
                            to - from
                        };
                        scene.rect_tip(from, mid - h / 2.0, w.max(0.5), h, class, tip);
                        from = to;
                    }
                }
            }
            if labelled {
                let text = duration_text(Some(total));
                let base = mid + font::cap_height(TEXT) / 2.0;
                scene.text(end + 4.0, base, text, Anchor::Start, f.muted);
            }
        } else if labelled {
            let base = mid + font::cap_height(TEXT) / 2.0;
            scene.text_tip(x0 + 4.0, base, "no calls", Anchor::Start, f.muted, tip);
        }
        y += row_h;
    }
    scene.height = bottom + PAD;
    Ok(scene)
}
