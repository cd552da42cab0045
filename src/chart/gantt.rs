//! The gantt chart: one row per rank and region (the reference's `gantt_data` rows), ranks
//! in order, each row its region's calls on that rank in time order. Drawn through the
//! level of detail ([`crate::analysis::lanes`]), so its size does not grow with the calls.

use super::color::Theme;
use super::flamegraph::scope_text;
use super::font;
use super::frame::{header, Furniture, PAD, TEXT};
use super::plot::PlotOptions;
use super::scene::Scene;
use super::timeline::{paint_lane, row_label, TimeFrame};
use crate::analysis::events::RowSource;
use crate::analysis::lanes::{self, extent, needs_events, region_lanes};
use crate::analysis::{Error, Result};
use crate::schema::Profile;

/// The rows the chart will have: `(rank, region id)` with calls, ranks in order.
fn rows(profile: &Profile, opts: &PlotOptions) -> Vec<(u32, u32)> {
    let mut rows = Vec::new();
    for rank in lanes::ranks(profile, &opts.selection) {
        for (id, region) in profile.regions.iter().enumerate() {
            if opts.selection.keeps(&region.name)
                && region.rank(rank).is_some_and(|r| r.calls() > 0)
            {
                rows.push((rank, id as u32));
            }
        }
    }
    rows
}

/// A row's height for `n` rows: 20 px while they fit, thinner down to 3 px for many.
pub fn row_height(n: usize) -> f32 {
    if n <= 36 {
        20.0
    } else {
        (720.0 / n as f32).clamp(3.0, 20.0)
    }
}

/// The time window drawn: the selected calls' span cut to the options' window, and the
/// first call's time.
pub fn time_frame(
    profile: &Profile,
    source: &dyn RowSource,
    opts: &PlotOptions,
    x0: f32,
    x1: f32,
) -> Result<TimeFrame> {
    let Some((lo, hi)) = extent(profile, source, &opts.selection)? else {
        return Err(Error::Unavailable(
            "the selected regions have no calls on the selected ranks".into(),
        ));
    };
    let w = &opts.window;
    let t0 = w.start_ns.map_or(lo, |s| lo.saturating_add(s)).max(lo);
    let t1 = w.end_ns.map_or(hi, |e| lo.saturating_add(e)).min(hi);
    if t1 <= t0 && (w.start_ns.is_some() || w.end_ns.is_some()) {
        return Err(Error::Unavailable(
            "the time window holds no calls (--start-time/--end-time are from the first call)"
                .into(),
        ));
    }
    Ok(TimeFrame {
        t0,
        t1: t1.max(t0 + 1),
        origin: lo,
        x0,
        x1,
    })
}

/// The subtitle line naming what the window dropped, if it dropped anything.
pub fn window_note(opts: &PlotOptions) -> Option<String> {
    let w = &opts.window;
    let mut parts = Vec::new();
    let s = |ns: i64| crate::analysis::units::duration_text(Some(ns as f64 / 1e9));
    if w.start_ns.is_some() || w.end_ns.is_some() {
        parts.push(format!(
            "time window {} to {}",
            s(w.start_ns.unwrap_or(0)),
            w.end_ns.map_or("the end".into(), s)
        ));
    }
    if w.min_duration_ns > 0 {
        parts.push(format!(
            "calls shorter than {} hidden",
            s(w.min_duration_ns)
        ));
    }
    if let Some(d) = w.max_depth {
        parts.push(format!("depths 0–{d} only"));
    }
    (!parts.is_empty()).then(|| parts.join(" · "))
}

/// The gantt chart of `profile` (named `label`).
pub fn scene(
    profile: &Profile,
    source: &dyn RowSource,
    label: &str,
    opts: &PlotOptions,
) -> Result<Scene> {
    needs_events(profile)?;
    let rows = rows(profile, opts);
    if rows.is_empty() {
        return Err(Error::Unavailable(
            "the selected regions have no calls on the selected ranks".into(),
        ));
    }
    let theme: Theme = opts.theme;
    let width = opts.width.clamp(400.0, 20_000.0);
    let mut scene = Scene::new(width, 0.0, theme.ink().bg);
    let f = Furniture::new(&mut scene, theme);
    let names: Vec<String> = profile.regions.iter().map(|r| r.name.clone()).collect();
    let h = row_height(rows.len());
    let labelled = h >= TEXT + 2.0;
    let widest = rows
        .iter()
        .map(|&(_, id)| font::room(&names[id as usize], TEXT, false))
        .fold(font::room("rank 0000", TEXT, false), f32::max);
    let label_w = (widest + 64.0).min(width * 0.3);
    let frame = time_frame(profile, source, opts, PAD + label_w, width - PAD)?;

    let all_ranks = lanes::ranks(profile, &opts.selection);
    let scope = scope_text(&all_ranks, profile.num_ranks);
    let title = format!("Gantt chart of {label}");
    scene.title = title.clone();
    scene.desc = opts.command.clone();
    let mut lines = vec![format!(
        "{} rows (rank × region) over {scope} · each call in its region's colour; paler blocks merge calls narrower than a pixel, coloured by the region with most time",
        rows.len()
    )];
    lines.extend(window_note(opts));
    let top = header(&mut scene, &f, &title, &lines);
    let under = scene.shapes().len();

    let mut seen = vec![false; names.len()];
    let mut y = top;
    let mut row = 0usize;
    for &rank in &all_ranks {
        let first = row;
        while row < rows.len() && rows[row].0 == rank {
            row += 1;
        }
        if row == first {
            continue;
        }
        let n = (row - first) as f32;
        let band_h = n * h;
        let rank_index = all_ranks.iter().position(|&r| r == rank).unwrap_or(0);
        // Every other rank on the alternate background.
        if rank_index % 2 == 1 {
            scene.rect(PAD, y, width - 2.0 * PAD, band_h, f.band);
        }
        let who = format!("rank {rank}");
        if labelled {
            row_label(&mut scene, &f, &who, PAD + 44.0, y + h / 2.0, 44.0);
        } else {
            row_label(
                &mut scene,
                &f,
                &who,
                PAD + label_w - 6.0,
                y + band_h / 2.0,
                label_w - 8.0,
            );
        }
        let slots: Vec<u32> = rows[first..row].iter().map(|r| r.1).collect();
        let window = opts.window;
        let pad = if h >= 6.0 { 2.0 } else { 0.0 };
        region_lanes(
            profile,
            source,
            &opts.selection,
            rank,
            &window,
            frame.origin,
            |id, lane| {
                let Some(k) = slots.iter().position(|&s| s == id) else {
                    return;
                };
                let ry = y + k as f32 * h;
                if labelled {
                    let room = label_w - 58.0;
                    row_label(
                        &mut scene,
                        &f,
                        &names[id as usize],
                        PAD + label_w - 6.0,
                        ry + h / 2.0,
                        room,
                    );
                }
                paint_lane(
                    &mut scene,
                    &f,
                    &frame,
                    &lane,
                    ry + pad / 2.0,
                    h - pad,
                    &names,
                    &who,
                    false,
                    &mut seen,
                );
            },
        )?;
        y += band_h;
    }
    scene.line(frame.x0, top, frame.x0, y, f.axis);
    let bottom = frame.axis(&mut scene, &f, y + 2.0, top, under);
    scene.height = bottom + PAD;
    Ok(scene)
}
