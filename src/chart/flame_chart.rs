//! The flame chart: each rank's calls in time order, stacked by nesting depth (the top level
//! first), ranks in order. One rank's calls are read at a time and drawn through the level
//! of detail, so the picture's size does not grow with the calls; a legend names the
//! regions drawn.

use super::flamegraph::scope_text;
use super::frame::{header, legend, Furniture, PAD, TEXT};
use super::gantt::{time_frame, window_note};
use super::plot::PlotOptions;
use super::scene::Scene;
use super::timeline::{paint_lane, row_label};
use crate::analysis::events::RowSource;
use crate::analysis::lanes::{self, depth_lanes, needs_events};
use crate::analysis::Result;
use crate::schema::Profile;

/// Height of a depth's row.
const ROW: f32 = 17.0;
/// Space between ranks.
const GAP: f32 = 8.0;
/// At most this many regions in the legend (the rest are named in their tooltips).
const LEGEND: usize = 24;

/// The flame chart of `profile` (named `label`).
pub fn scene(
    profile: &Profile,
    source: &dyn RowSource,
    label: &str,
    opts: &PlotOptions,
) -> Result<Scene> {
    needs_events(profile)?;
    let width = opts.width.clamp(400.0, 20_000.0);
    let theme = opts.theme;
    let mut scene = Scene::new(width, 0.0, theme.ink().bg);
    let f = Furniture::new(&mut scene, theme);
    let names: Vec<String> = profile.regions.iter().map(|r| r.name.clone()).collect();
    let label_w = 64.0;
    let frame = time_frame(profile, source, opts, PAD + label_w, width - PAD)?;
    let ranks = lanes::ranks(profile, &opts.selection);
    let title = format!("Flame chart of {label}");
    scene.title = title.clone();
    scene.desc = opts.command.clone();
    let mut lines = vec![format!(
        "{} · calls in time order, callees below their caller · paler blocks merge calls narrower than a pixel",
        scope_text(&ranks, profile.num_ranks)
    )];
    lines.extend(window_note(opts));
    let top = header(&mut scene, &f, &title, &lines);
    let under = scene.shapes().len();

    let mut seen = vec![false; names.len()];
    let mut improper = Vec::new();
    let mut y = top;
    for (k, &rank) in ranks.iter().enumerate() {
        let (lanes, bad) = depth_lanes(
            profile,
            source,
            &opts.selection,
            rank,
            &opts.window,
            frame.origin,
        )?;
        if lanes.iter().all(|l| l.is_empty()) {
            continue;
        }
        if bad {
            improper.push(rank);
        }
        // Deep stacks of many ranks: rows thin down so the chart stays a page or two.
        let h = if lanes.len() * ranks.len() > 60 {
            (900.0 / (lanes.len() * ranks.len()) as f32).clamp(3.0, ROW)
        } else {
            ROW
        };
        let block = lanes.len() as f32 * h;
        if k % 2 == 1 {
            scene.rect(PAD, y - GAP / 2.0, width - 2.0 * PAD, block + GAP, f.band);
        }
        let who = format!("rank {rank}");
        row_label(
            &mut scene,
            &f,
            &who,
            PAD + label_w - 8.0,
            y + block.min(ROW) / 2.0,
            label_w - 8.0,
        );
        for (depth, lane) in lanes.iter().enumerate() {
            let ry = y + depth as f32 * h;
            let gap = if h >= 8.0 { 1.0 } else { 0.0 };
            paint_lane(
                &mut scene,
                &f,
                &frame,
                lane,
                ry,
                h - gap,
                &names,
                &who,
                h >= TEXT + 2.0,
                &mut seen,
            );
        }
        y += block + GAP;
    }
    scene.line(frame.x0, top, frame.x0, y, f.axis);
    let mut bottom = frame.axis(&mut scene, &f, y, top, under);
    let mut entries = Vec::new();
    for (id, _) in seen.iter().enumerate().filter(|(_, s)| **s).take(LEGEND) {
        entries.push((f.region(&mut scene, id as u32, false), names[id].clone()));
    }
    let shown = entries.len();
    bottom = legend(
        &mut scene,
        &f,
        &entries,
        PAD,
        bottom + 8.0,
        width - 2.0 * PAD,
    );
    let more = seen.iter().filter(|s| **s).count() - shown;
    if more > 0 {
        let text = format!("and {more} more regions (the SVG names each call on hover)");
        footnote(&mut scene, &f, &mut bottom, text);
    }
    if !improper.is_empty() {
        let list: Vec<String> = improper.iter().map(u32::to_string).collect();
        let text = format!(
            "calls of rank {} do not nest: drawn in one row",
            list.join(", ")
        );
        footnote(&mut scene, &f, &mut bottom, text);
    }
    scene.height = bottom + PAD;
    Ok(scene)
}

/// One muted line under the chart, at `bottom`, which moves down past it.
fn footnote(scene: &mut Scene, f: &Furniture, bottom: &mut f32, text: String) {
    scene.text(
        PAD,
        *bottom + 8.0,
        text,
        super::scene::Anchor::Start,
        f.muted,
    );
    *bottom += 16.0;
}
