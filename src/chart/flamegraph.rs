//! A flame graph of aggregated call stacks ([`Stacks`]): the root at the bottom, each
//! path a frame above its caller as wide as its time, children side by side sorted by name
//! (as `flamegraph.pl` sorts them) or in the order their first calls started (the
//! reference's `flame_graph` plot). Every frame has a `<title>` tooltip with its time,
//! share, calls and path; frames under the threshold share are left out and the subtitle
//! says how many. No script.

use super::color::Theme;
use super::font;
use super::frame::{header, Furniture, PAD, TEXT};
use super::scene::{Anchor, Scene, Style};
use super::text::fit_end;
use crate::analysis::events::RowSource;
use crate::analysis::stacks::{self, Stacks};
use crate::analysis::units::{count_text, duration_text};
use crate::analysis::{Error, Result, Selection};
use crate::schema::{Profile, ProfileLayout};
use crate::sort::SortSlice;

/// The order of frames that share a caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// By name, as `flamegraph.pl` does.
    Name,
    /// By their first call.
    FirstCall,
}

/// How a flame graph is drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Width of the document, pixels.
    pub width: f32,
    /// Frames with less than this share of the total time (0 to 1) are left out.
    pub threshold: f64,
    pub order: Order,
    pub theme: Theme,
    /// The chart's title, and what the root frame stands for (`run, all 8 ranks`).
    pub title: String,
    pub scope: String,
    /// The `<desc>`: what drew it.
    pub desc: String,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            width: 1200.0,
            threshold: 0.001,
            order: Order::Name,
            theme: Theme::Light,
            title: String::new(),
            scope: String::new(),
            desc: String::new(),
        }
    }
}

/// The flame graphs of `profile` (labelled `label`) over the selection's ranks (all of the
/// run's when it names none): one document of every rank merged, or with `per_rank` one
/// per rank that has calls, each with its rank. [`Error::Unavailable`] when the profile
/// stores no calls, or a rank's calls do not nest.
pub fn scenes(
    profile: &Profile,
    source: &dyn RowSource,
    selection: &Selection,
    label: &str,
    per_rank: bool,
    opts: &Options,
) -> Result<Vec<(Option<u32>, Scene)>> {
    let groups = stack_groups(profile, source, selection, per_rank)?;
    let mut out = Vec::with_capacity(groups.len());
    for (rank, stacks) in groups {
        let scope = format!("{label}, {}", scope_text(&stacks.ranks, profile.num_ranks));
        let opts = Options {
            title: format!("Flame graph of {scope}"),
            scope,
            ..opts.clone()
        };
        out.push((rank, scene(&stacks, &opts)));
    }
    Ok(out)
}

/// What `sp export flamegraph` or `folded` writes of the stacks.
#[derive(Debug, Clone)]
pub enum Rendering {
    /// Collapsed stacks, one line per call path with its own time (`main;solve 1234`).
    Folded,
    /// The flame graph, as SVG sized so or as PNG.
    Picture {
        options: Options,
        format: super::Format,
        sizing: super::svg::Sizing,
    },
}

/// Why [`render`] failed: the profile's calls, or the encoding of a picture.
#[derive(Debug)]
pub enum RenderError {
    Data(Error),
    Encode(super::EncodeError),
}

/// One output's rank (`None` for every rank merged) and bytes.
pub type Output = (Option<u32>, Vec<u8>);

/// The bytes of each output of `profile`'s stacks over the selection: one of every rank
/// merged (rank `None`), or with `per_rank` one per rank that has calls.
pub fn render(
    profile: &Profile,
    source: &dyn RowSource,
    selection: &Selection,
    label: &str,
    per_rank: bool,
    rendering: &Rendering,
) -> std::result::Result<Vec<Output>, RenderError> {
    let Rendering::Picture {
        options,
        format,
        sizing,
    } = rendering
    else {
        let groups =
            stack_groups(profile, source, selection, per_rank).map_err(RenderError::Data)?;
        return groups
            .into_iter()
            .map(|(rank, stacks)| {
                let mut text = Vec::new();
                stacks.write_folded(&mut text).map(|()| (rank, text))
            })
            .collect::<std::io::Result<_>>()
            .map_err(|e| RenderError::Data(e.into()));
    };
    let pictures =
        scenes(profile, source, selection, label, per_rank, options).map_err(RenderError::Data)?;
    pictures
        .into_iter()
        .map(|(rank, scene)| {
            let bytes = match format {
                super::Format::Svg => super::svg::write_sized(&scene, *sizing).into_bytes(),
                #[cfg(feature = "png")]
                super::Format::Png { .. } => {
                    super::encode(&scene, *format).map_err(RenderError::Encode)?
                }
            };
            Ok((rank, bytes))
        })
        .collect()
}

/// The aggregated stacks of the selection's ranks: merged, or one per rank with calls.
pub fn stack_groups(
    profile: &Profile,
    source: &dyn RowSource,
    selection: &Selection,
    per_rank: bool,
) -> Result<Vec<(Option<u32>, Stacks)>> {
    if profile.layout == ProfileLayout::Aggregate {
        return Err(Error::Unavailable(
            "the profile stores no calls (it is an aggregate profile), and call stacks are made of calls".into(),
        ));
    }
    let ranks: Vec<u32> = match &selection.ranks {
        Some(r) => r.clone(),
        None => (0..profile.num_ranks)
            .filter_map(|r| u32::try_from(r).ok())
            .collect(),
    };
    let has_calls = |rank: u32| {
        profile
            .regions
            .iter()
            .any(|r| selection.keeps(&r.name) && r.rank(rank).is_some_and(|x| x.calls() > 0))
    };
    let ranks: Vec<u32> = ranks.into_iter().filter(|&r| has_calls(r)).collect();
    if ranks.is_empty() {
        return Err(Error::Unavailable(
            "the selected regions have no calls on the selected ranks".into(),
        ));
    }
    if per_rank {
        ranks
            .iter()
            .map(|&r| Ok((Some(r), stacks::read(profile, source, selection, &[r])?)))
            .collect()
    } else {
        Ok(vec![(
            None,
            stacks::read(profile, source, selection, &ranks)?,
        )])
    }
}

/// `rank 3`, `ranks 0–7`, `all 8 ranks`, `ranks 0, 2, 5`.
pub fn scope_text(ranks: &[u32], num_ranks: u64) -> String {
    match ranks {
        [] => "no ranks".into(),
        [r] => format!("rank {r}"),
        _ => {
            let (lo, hi) = (ranks[0], ranks[ranks.len() - 1]);
            let contiguous = u64::from(hi - lo) + 1 == ranks.len() as u64;
            if contiguous && lo == 0 && u64::from(hi) + 1 == num_ranks {
                match ranks.len() {
                    2 => "both ranks".into(),
                    n => format!("all {n} ranks"),
                }
            } else if contiguous {
                format!("ranks {lo}–{hi}")
            } else if ranks.len() <= 6 {
                let list: Vec<String> = ranks.iter().map(u32::to_string).collect();
                format!("ranks {}", list.join(", "))
            } else {
                format!("{} ranks from {lo} to {hi}", ranks.len())
            }
        }
    }
}

/// Height of one frame's row, and the gap above each.
const ROW: f32 = 17.0;
/// Frames narrower than this (pixels) are not drawn, whatever the threshold.
const MIN_WIDTH: f32 = 0.1;

/// One frame placed: its index in the stacks, x and width in pixels, depth.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placed {
    pub frame: usize,
    pub x: f32,
    pub w: f32,
    pub depth: usize,
}

/// The frames drawn and how many were left out, for `stacks` over `width` pixels: a
/// frame is kept if its share reaches `threshold` and it is at least [`MIN_WIDTH`] wide.
pub fn layout(stacks: &Stacks, width: f32, threshold: f64, order: Order) -> (Vec<Placed>, usize) {
    let total = stacks.total_ns();
    let mut kids = stacks.children();
    if order == Order::Name {
        for list in &mut kids {
            list.sort_stable_by(|&a, &b| {
                stacks
                    .name(a)
                    .cmp(stacks.name(b))
                    .then(stacks.frames[a].region.cmp(&stacks.frames[b].region))
            });
        }
    }
    let px = |ns: i64| {
        if total > 0 {
            (ns as f64 / total as f64 * f64::from(width)) as f32
        } else {
            0.0
        }
    };
    let kept = |ns: i64| total > 0 && ns as f64 >= threshold * total as f64 && px(ns) >= MIN_WIDTH;
    let mut placed = Vec::new();
    let mut dropped = 0usize;
    // Depth first with an explicit stack: a deeply recursive profile cannot overflow ours.
    let mut todo: Vec<(usize, f32)> = Vec::new();
    let top = kids.len() - 1;
    let push_children =
        |list: &[usize], x0: f32, todo: &mut Vec<(usize, f32)>, dropped: &mut usize| {
            let mut x = x0;
            let mut batch = Vec::with_capacity(list.len());
            for &k in list {
                let t = stacks.frames[k].total_ns;
                if kept(t) {
                    batch.push((k, x));
                } else {
                    *dropped += 1;
                }
                x += px(t);
            }
            todo.extend(batch.into_iter().rev());
        };
    push_children(&kids[top], 0.0, &mut todo, &mut dropped);
    while let Some((k, x)) = todo.pop() {
        let f = &stacks.frames[k];
        placed.push(Placed {
            frame: k,
            x,
            w: px(f.total_ns),
            depth: f.depth,
        });
        push_children(&kids[k], x, &mut todo, &mut dropped);
    }
    (placed, dropped)
}

/// The flame graph of `stacks` as a scene.
pub fn scene(stacks: &Stacks, opts: &Options) -> Scene {
    let width = opts.width.clamp(200.0, 20_000.0);
    let plot_w = width - 2.0 * PAD;
    let (placed, dropped) = layout(stacks, plot_w, opts.threshold, opts.order);
    let depth = placed.iter().map(|p| p.depth + 1).max().unwrap_or(0);

    let mut probe = Scene::new(width, 0.0, opts.theme.ink().bg);
    let f = Furniture::new(&mut probe, opts.theme);
    let total = stacks.total_ns();
    let calls: u64 = stacks
        .frames
        .iter()
        .filter(|f| f.parent.is_none())
        .map(|f| f.calls)
        .sum();
    let secs = |ns: i64| duration_text(Some(ns as f64 / 1e9));
    let mut lines = vec![format!(
        "{} in {} at the top level · {} call paths · {}",
        secs(total),
        plural_calls(calls),
        count_text(stacks.frames.len() as u64),
        match opts.order {
            Order::Name => "callees sorted by name",
            Order::FirstCall => "callees in the order of their first call",
        }
    )];
    if dropped > 0 {
        lines.push(format!(
            "{} paths under {} of the time, or under a tenth of a pixel, are not drawn",
            count_text(dropped as u64),
            share_text(opts.threshold * 100.0)
        ));
    }
    let top = header(&mut probe, &f, &opts.title, &lines);
    let height = top + (depth + 1) as f32 * ROW + PAD;
    let mut scene = probe;
    scene.height = height;
    scene.title = opts.title.clone();
    scene.desc = opts.desc.clone();
    let root = scene.class("root", Style::fill(f.ink.faint.over(f.ink.bg, 0.5)));
    let bottom = height - PAD;
    let row_y = |d: usize| bottom - (d + 2) as f32 * ROW + 1.0;
    // The root: everything.
    let all = opts.scope.clone();
    scene.rect_tip(
        PAD,
        bottom - ROW + 1.0,
        plot_w,
        ROW - 1.0,
        root,
        format!("{all} · {} · 100 %", secs(total)),
    );
    label(
        &mut scene,
        &f,
        f.text,
        &all,
        PAD,
        bottom - ROW + 1.0,
        plot_w,
    );
    for p in &placed {
        let fr = &stacks.frames[p.frame];
        let class = f.region(&mut scene, fr.region, false);
        let name = stacks.name(p.frame);
        let share = if total > 0 {
            100.0 * fr.total_ns as f64 / total as f64
        } else {
            0.0
        };
        let tip = format!(
            "{name} · {} ({} of the time) in {} · own {} · {}",
            secs(fr.total_ns),
            share_text(share),
            plural_calls(fr.calls),
            secs(fr.own_ns),
            stacks.path(p.frame).join(" > ")
        );
        let (x, y) = (PAD + p.x, row_y(p.depth));
        // A pixel between neighbours once they are wide enough to show one.
        let w = if p.w > 3.0 { p.w - 0.5 } else { p.w };
        scene.rect_tip(x, y, w, ROW - 1.0, class, tip);
        label(&mut scene, &f, f.on_region, name, x, y, p.w);
    }
    scene
}

/// A frame's name inside it, cut to its width, when three letters fit.
fn label(
    scene: &mut Scene,
    _f: &Furniture,
    class: super::scene::Class,
    name: &str,
    x: f32,
    y: f32,
    w: f32,
) {
    if w < 20.0 {
        return;
    }
    let text = fit_end(name, TEXT, w - 6.0);
    if text.is_empty() {
        return;
    }
    let baseline = y + (ROW - 1.0) / 2.0 + font::cap_height(TEXT) / 2.0;
    scene.text(x + 3.0, baseline, text.into_owned(), Anchor::Start, class);
}

/// A share in percent with the digits that show it (`45.6 %`, `0.12 %`).
fn share_text(percent: f64) -> String {
    if percent >= 10.0 || percent == 0.0 {
        format!("{percent:.1} %")
    } else if percent >= 1.0 {
        format!("{percent:.2} %")
    } else {
        format!("{} %", crate::analysis::units::python_g(percent, 2))
    }
}

fn plural_calls(n: u64) -> String {
    if n == 1 {
        "1 call".into()
    } else {
        format!("{} calls", count_text(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::scene::Shape;
    use crate::schema::{RankCalls, Region};

    fn region(name: &str, calls: &[(i64, i64)]) -> Region {
        Region {
            name: name.into(),
            ranks: vec![RankCalls {
                calls: crate::schema::Calls {
                    starts: calls.iter().map(|c| c.0).collect(),
                    ends: calls.iter().map(|c| c.1).collect(),
                    ..Default::default()
                }
                .into(),
                rank: 0,
                ..RankCalls::default()
            }],
        }
    }

    /// main [0, 1000] calls zeta [0, 600] then alpha [600, 990]; tiny [995, 996].
    fn stacks() -> Stacks {
        let main = region("main", &[(0, 1000)]);
        let zeta = region("zeta", &[(0, 600)]);
        let alpha = region("alpha", &[(600, 990)]);
        let tiny = region("<tiny>", &[(995, 996)]);
        let mut s = Stacks::new(vec![
            "main".into(),
            "zeta".into(),
            "alpha".into(),
            "<tiny>".into(),
        ]);
        s.add_rank(&[&main, &zeta, &alpha, &tiny], &[0, 1, 2, 3], 0)
            .unwrap();
        s
    }

    #[test]
    fn children_sort_by_name_and_small_frames_drop() {
        let s = stacks();
        let (placed, dropped) = layout(&s, 1000.0, 0.01, Order::Name);
        let names: Vec<(&str, f32, f32)> =
            placed.iter().map(|p| (s.name(p.frame), p.x, p.w)).collect();
        assert_eq!(
            names,
            // `<tiny>` sorts first: left out, it still takes its place.
            vec![
                ("main", 0.0, 1000.0),
                ("alpha", 1.0, 390.0),
                ("zeta", 391.0, 600.0)
            ]
        );
        assert_eq!(dropped, 1);
        let (placed, dropped) = layout(&s, 1000.0, 0.0, Order::FirstCall);
        let order: Vec<&str> = placed.iter().map(|p| s.name(p.frame)).collect();
        assert_eq!(order, vec!["main", "zeta", "alpha", "<tiny>"]);
        assert_eq!(dropped, 0);
    }

    #[test]
    fn every_frame_is_a_rect_with_its_time_and_the_xml_parses() {
        let s = stacks();
        let opts = Options {
            threshold: 0.0,
            title: "Flame graph of run.h5".into(),
            scope: "rank 0".into(),
            ..Options::default()
        };
        let scene = scene(&s, &opts);
        let tips: Vec<&str> = scene
            .shapes()
            .iter()
            .filter_map(|sh| match sh {
                Shape::Rect { tip: Some(t), .. } => Some(t.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(tips.len(), 5, "{tips:?}");
        assert!(tips
            .iter()
            .any(|t| t.starts_with("zeta · 600 ns (60.0 % of the time) in 1 call")));
        let svg = crate::chart::svg::write(&scene);
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let titled = doc
            .descendants()
            .filter(|n| n.has_tag_name("rect") && n.children().any(|c| c.has_tag_name("title")))
            .count();
        assert_eq!(titled, 5);
        assert!(svg.contains("&lt;tiny&gt;"));
        assert!(!svg.contains("<script"));
    }
}
