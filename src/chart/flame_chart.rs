//! The flame chart: each rank's calls in time order, stacked by nesting depth (the top level
//! first), ranks in order. One rank's calls are streamed at a time in start order
//! ([`RankIndex::each_call`]) into a level of detail per depth ([`LaneStream`]), so neither
//! memory nor the picture's size grows with the calls; a legend names the regions drawn.
//! Ranks the stream cannot take (thread lanes, rows out of start order) are stacked whole
//! ([`depth_lanes`]) and drawn the same way.

use super::flamegraph::scope_text;
use super::frame::{header, legend, Furniture, PAD, TEXT};
use super::gantt::{time_frame, window_note};
use super::plot::PlotOptions;
use super::scene::Scene;
use super::timeline::{lane_stream, paint_drawn, row_label, TimeFrame};
use crate::analysis::events::RowSource;
use crate::analysis::lanes::{self, bounds, depth_lanes, kept, needs_events};
use crate::analysis::lod::{shapes, Drawn, LaneStream};
use crate::analysis::timeline::{RankIndex, Streamed};
use crate::analysis::Result;
use crate::schema::Profile;

/// Height of a depth's row.
const ROW: f32 = 17.0;
/// Space between ranks.
const GAP: f32 = 8.0;
/// Lanes (depths) that tally merged blocks in a table by region, each as long as the
/// profile's regions; deeper ones search a list.
const TABLES: usize = 64;
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
        let Some((lanes, bad)) = rank_shapes(profile, source, opts, rank, &frame)? else {
            continue;
        };
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
            for drawn in lane {
                paint_drawn(
                    &mut scene,
                    &f,
                    &frame,
                    drawn,
                    ry,
                    h - gap,
                    &names,
                    &who,
                    h >= TEXT + 2.0,
                    &mut seen,
                );
            }
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

/// `rank`'s shapes in `frame`, a list per depth (the top first), and whether its calls
/// failed to nest (then they all lie in one lane, in start order); `None` when the options
/// keep none of its calls.
fn rank_shapes(
    profile: &Profile,
    source: &dyn RowSource,
    opts: &PlotOptions,
    rank: u32,
    frame: &TimeFrame,
) -> Result<Option<(Vec<Vec<Drawn>>, bool)>> {
    let window = &opts.window;
    let (lo, hi) = bounds(window, frame.origin);
    let max_depth = window.max_depth.unwrap_or(usize::MAX);
    let regions = profile.regions.len();
    let push = |lanes: &mut Vec<LaneStream>, depth: usize, s: i64, e: i64, region: u32| {
        if depth <= max_depth && kept(window, lo, hi, s, e) {
            while lanes.len() <= depth {
                // A table per region for the lanes a picture has room for.
                let table = if lanes.len() < TABLES { regions } else { 0 };
                lanes.push(lane_stream(frame, table));
            }
            lanes[depth].push(s, e, region);
        }
    };
    let done = |lanes: Vec<LaneStream>, improper: bool| {
        let any = lanes.iter().any(|l| !l.is_empty());
        any.then(|| {
            (
                lanes.into_iter().map(LaneStream::finish).collect(),
                improper,
            )
        })
    };
    let mut index = RankIndex::new(profile, rank, |name| opts.selection.keeps(name));
    let mut lanes = Vec::new();
    let streamed = index.each_call(profile, source, |depth, s, e, region| {
        push(&mut lanes, depth, s, e, region)
    })?;
    match streamed {
        Some(Streamed::Nested) => return Ok(done(lanes, false)),
        Some(Streamed::Improper) => {
            lanes = Vec::new();
            let flat = index.each_call_flat(profile, source, |s, e, region| {
                push(&mut lanes, 0, s, e, region)
            })?;
            if flat {
                return Ok(done(lanes, true));
            }
        }
        Some(Streamed::Unsorted) | None => {}
    }
    // Thread lanes, or rows out of start order: the rank stacked whole.
    whole_shapes(profile, source, opts, rank, frame)
}

/// `rank`'s shapes as [`rank_shapes`] gives them, from the rank stacked whole.
fn whole_shapes(
    profile: &Profile,
    source: &dyn RowSource,
    opts: &PlotOptions,
    rank: u32,
    frame: &TimeFrame,
) -> Result<Option<(Vec<Vec<Drawn>>, bool)>> {
    let (whole, bad) = depth_lanes(
        profile,
        source,
        &opts.selection,
        rank,
        &opts.window,
        frame.origin,
    )?;
    if whole.iter().all(|l| l.is_empty()) {
        return Ok(None);
    }
    let drawn = (whole.iter())
        .map(|lane| {
            let mut out = Vec::new();
            let mut cursors = Vec::new();
            shapes(lane, frame.t0 as f64, frame.t1 as f64, frame.scale(), |s| {
                out.push(Drawn::of(lane, &s, &mut cursors));
                true
            });
            out
        })
        .collect();
    Ok(Some((drawn, bad)))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::events::Loaded;
    use crate::analysis::lanes::Window;
    use crate::analysis::Selection;

    /// The golden profiles with calls (one of them with calls that do not nest).
    const PROFILES: [&str; 8] = [
        "tests/golden/c_trace/expected/profiling_data.h5",
        "tests/golden/fortran/expected/profiling_data.h5",
        "tests/golden/synthetic/expected/golden.h5",
        "tests/golden/h5_python_rich/expected/rich_import.h5",
        "tests/golden/mixed/expected/merged.h5",
        "tests/golden/h5_gzip_with_traces/expected/h5_gzip_with_traces.h5",
        "tests/golden/h5_lzf_with_traces/expected/lzf_with_traces.h5",
        "tests/golden/chunked/expected/big.h5",
    ];

    #[test]
    fn streamed_ranks_draw_what_ranks_stacked_whole_draw() {
        let mut compared = 0;
        let mut improper = 0;
        for path in PROFILES {
            let at = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
            let bytes = std::fs::read(&at).unwrap();
            let file = crate::hdf5lite::reader::File::open(&bytes[..]).unwrap();
            let profile = crate::analysis::load::read_full(&file).unwrap();
            let windows = [
                Window::default(),
                Window {
                    min_duration_ns: 2_000,
                    ..Window::default()
                },
                Window {
                    max_depth: Some(1),
                    ..Window::default()
                },
                Window {
                    start_ns: Some(1_000),
                    end_ns: Some(200_000),
                    ..Window::default()
                },
            ];
            for (window, width) in windows.into_iter().zip([1200.0, 400.0, 2000.0, 900.0]) {
                let opts = PlotOptions {
                    window,
                    width,
                    selection: Selection::all(),
                    ..PlotOptions::default()
                };
                let Ok(frame) = time_frame(&profile, &Loaded, &opts, 80.0, width - 10.0) else {
                    continue;
                };
                for rank in lanes::ranks(&profile, &opts.selection) {
                    let streamed = rank_shapes(&profile, &Loaded, &opts, rank, &frame).unwrap();
                    let whole = whole_shapes(&profile, &Loaded, &opts, rank, &frame).unwrap();
                    if let (Some((a, x)), Some((b, y))) = (&streamed, &whole) {
                        let first = (0..a.len().max(b.len())).find_map(|d| {
                            let (u, v) = (a.get(d), b.get(d));
                            let n = u.map_or(0, Vec::len).max(v.map_or(0, Vec::len));
                            (0..n)
                                .find(|&k| u.and_then(|l| l.get(k)) != v.and_then(|l| l.get(k)))
                                .map(|k| (d, k, u.and_then(|l| l.get(k)), v.and_then(|l| l.get(k))))
                        });
                        assert_eq!((first, x), (None, y), "{path} rank {rank} {window:?}");
                    }
                    assert_eq!(streamed, whole, "{path} rank {rank} {window:?}");
                    if let Some((lanes, bad)) = &streamed {
                        compared += lanes.iter().map(Vec::len).sum::<usize>();
                        improper += usize::from(*bad);
                    }
                }
            }
        }
        assert!(compared > 500, "{compared} shapes compared");
        assert!(improper > 0, "no rank that does not nest was compared");
    }
}
