//! The rank heatmap: one row per region, one column per rank in order, each cell the
//! region's total time on that rank ([`crate::analysis::plot_data::rank_heatmap`]) on a
//! diverging scale around the region's mean over the ranks (cold below, hot above, as the
//! page's heatmap), the slowest rank of each region outlined, the legend in percent.

use super::aggregate::{data_options, run, scope};
use super::axis::Ticks;
use super::color::diverging;
use super::font;
use super::frame::{header, Furniture, PAD, TEXT};
use super::plot::PlotOptions;
use super::scene::{Anchor, Scene, Style};
use super::timeline::row_label;
use crate::analysis::events::RowSource;
use crate::analysis::numeric;
use crate::analysis::plot_data::rank_heatmap;
use crate::analysis::rank_distribution::{bins, distribution, MANY_RANKS};
use crate::analysis::units::{count_text, duration_text, signed_pct};
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
    if h.ranks.len() > MANY_RANKS {
        return Ok(binned(profile, &h, label, opts));
    }
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

    let mut y = legend(&mut scene, &f, top);

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

/// The legend: the scale from −100 % to +100 % of the mean, at `top`; returns the y below.
fn legend(scene: &mut Scene, f: &Furniture, top: f32) -> f32 {
    let y = top;
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
        let class = scene.class(&format!("lg{i}"), Style::fill(diverging(*s, f.theme)));
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
    y + 26.0
}

/// The heatmap of more ranks than fit as cells: consecutive ranks pooled into columns of a
/// few pixels ([`bins`]), each shaded by its mean against the region's mean, the column of
/// each region's slowest rank outlined and that rank named at the row's end; rank numbers
/// only as axis ticks.
fn binned(profile: &Profile, h: &rank_heatmap::Heatmap, label: &str, opts: &PlotOptions) -> Scene {
    let width = opts.width.clamp(400.0, 20_000.0);
    let theme = opts.theme;
    let mut scene = Scene::new(width, 0.0, theme.ink().bg);
    let f = Furniture::new(&mut scene, theme);
    let title = format!("Total time by rank and region of {label}");
    scene.title = title.clone();
    scene.desc = opts.command.clone();
    let widest = h
        .regions
        .iter()
        .map(|n| font::room(n, TEXT, false))
        .fold(60.0, f32::max);
    let label_w = widest.min(width * 0.25);
    let x0 = PAD + label_w + 8.0;
    let note_w = font::room("slowest: rank 0000000 (+000.0%)", TEXT, false);
    let x1 = (width - PAD - note_w - 8.0).max(x0 + 100.0);
    // At most one column per two pixels.
    let columns = (((x1 - x0) / 2.0) as usize).max(1);
    let per = h.ranks.len().div_ceil(columns);
    let line = format!(
        "{} regions × {} ranks {} · about {} ranks a column · each column's slowest rank (top third), mean (middle) and fastest rank (bottom) against the region's mean over the ranks · outlined: the column of the slowest rank, named on the right",
        h.regions.len(),
        count_text(h.ranks.len() as u64),
        scope(profile, opts),
        count_text(per as u64),
    );
    let top = header(
        &mut scene,
        &f,
        &title,
        &super::aggregate::wrap(&line, width),
    );
    let mut y = legend(&mut scene, &f, top);

    // Rank ticks above the columns: a rank's x is the middle of its place in the order.
    let n = h.ranks.len();
    let edge = |i: usize| x0 + i as f32 / n as f32 * (x1 - x0);
    let at = |i: usize| x0 + (i as f32 + 0.5) / n as f32 * (x1 - x0);
    let (lo, hi) = (h.ranks[0], h.ranks[n - 1]);
    let mut ticks = Ticks::linear(f64::from(lo), f64::from(hi));
    ticks
        .values
        .retain(|v| v.fract() == 0.0 && *v >= f64::from(lo) && *v <= f64::from(hi));
    for v in &ticks.values {
        let i = h.ranks.partition_point(|&r| f64::from(r) < *v);
        let x = at(i.min(n - 1));
        scene.line(x, y + 11.0, x, y + 15.0, f.axis);
        scene.text(x, y + 8.0, count_text(*v as u64), Anchor::Middle, f.muted);
    }
    scene.text(x0 - 8.0, y + 8.0, "rank", Anchor::End, f.muted);
    y += 16.0;
    let cell_h = if h.regions.len() <= 40 {
        28.0
    } else {
        (880.0 / h.regions.len() as f32).max(3.0)
    };
    let slow = scene.class("slow", Style::stroke(theme.ink().fg, 2.0));
    for (name, values) in h.regions.iter().zip(&h.values) {
        if cell_h >= TEXT + 2.0 {
            row_label(&mut scene, &f, name, x0 - 8.0, y + cell_h / 2.0, label_w);
        }
        let Some(d) = distribution(&h.ranks, values, 0) else {
            continue;
        };
        let mean = d.mean;
        let pooled = bins(&h.ranks, values, columns);
        let mut slowest = None;
        let mut left = 0;
        let third = ((cell_h - 1.0) / 3.0).max(0.5);
        for b in &pooled {
            let (bx, bw) = (edge(left), edge(left + b.count) - edge(left));
            left += b.count;
            // Top: the column's slowest rank, middle: its mean, bottom: its fastest rank.
            for (k, v) in [b.max, b.mean, b.min].into_iter().enumerate() {
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
                let ty = y + k as f32 * third;
                if k == 1 {
                    let tip = format!(
                        "{name} on ranks {}–{}: mean {}, min {}, max {} on rank {} (mean over all ranks {})",
                        b.first,
                        b.last,
                        duration_text(Some(b.mean)),
                        duration_text(Some(b.min)),
                        duration_text(Some(b.max)),
                        b.max_rank,
                        duration_text(Some(mean))
                    );
                    scene.rect_tip(bx, ty, bw.max(0.5), third, class, tip);
                } else {
                    scene.rect(bx, ty, bw.max(0.5), third, class);
                }
            }
            if b.max_rank == d.max_rank {
                slowest = Some((bx, bw));
            }
        }
        if let Some((bx, bw)) = slowest.filter(|_| mean > 0.0) {
            let w = bw.max(3.0);
            let p = [
                (bx, y),
                (bx + w, y),
                (bx + w, y + cell_h - 1.0),
                (bx, y + cell_h - 1.0),
            ];
            scene.push(super::scene::Shape::Path {
                points: p.to_vec(),
                closed: true,
                class: slow,
            });
        }
        if cell_h >= TEXT + 2.0 && mean > 0.0 {
            let note = format!(
                "slowest: rank {} ({})",
                d.max_rank,
                signed_pct(100.0 * (d.max - mean) / mean)
            );
            let tip = format!(
                "{name}: min {} · quartiles {} {} {} · max {} on rank {} · mean {}",
                duration_text(Some(d.min)),
                duration_text(Some(d.q1)),
                duration_text(Some(d.median)),
                duration_text(Some(d.q3)),
                duration_text(Some(d.max)),
                d.max_rank,
                duration_text(Some(mean))
            );
            let base = y + cell_h / 2.0 + font::cap_height(TEXT) / 2.0;
            scene.text_tip(x1 + 8.0, base, note, Anchor::Start, f.text, tip);
        }
        y += cell_h;
    }
    scene.height = y + PAD;
    scene
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::events::Loaded;
    use crate::schema::{Depth, ProfileLayout, RankCalls, Region};

    /// 20,000 ranks in two regions, one call each; rank 12,345 is far the slowest in
    /// `solve`.
    fn many_ranks() -> Profile {
        let ranks = 20_000u32;
        let region = |name: &str, slow: Option<u32>| Region {
            name: name.into(),
            ranks: (0..ranks)
                .map(|rank| RankCalls {
                    calls: crate::schema::Calls {
                        starts: vec![0],
                        ends: vec![if Some(rank) == slow {
                            50_000
                        } else {
                            1_000 + i64::from(rank * 7_919 % 101)
                        }],
                        ..Default::default()
                    }
                    .into(),
                    rank,
                    ..RankCalls::default()
                })
                .collect(),
        };
        Profile {
            schema: 3,
            layout: ProfileLayout::Columnar,
            metadata: Default::default(),
            num_ranks: u64::from(ranks),
            region_names: vec!["solve".into(), "halo".into()],
            regions: vec![region("solve", Some(12_345)), region("halo", None)],
            depth: Depth::Events,
            summary_statistics: false,
        }
    }

    #[test]
    fn many_ranks_draw_their_distribution_not_a_label_each() {
        let p = many_ranks();
        let opts = PlotOptions::default();
        for kind in ["rank_heatmap", "imbalance"] {
            let scene = match kind {
                "rank_heatmap" => scene(&p, &Loaded, "w.h5", &opts),
                _ => super::super::imbalance::scene(&p, &Loaded, "w.h5", &opts),
            }
            .unwrap();
            let texts = scene.texts();
            assert!(texts.len() < 60, "{kind}: {} texts", texts.len());
            assert!(
                texts.iter().any(|t| t.contains("rank 12345")),
                "{kind}: {texts:?}"
            );
            // Bounded by the width (three shapes a column of two pixels), not by the ranks.
            assert!(
                scene.shapes().len() < 4_000,
                "{kind}: {}",
                scene.shapes().len()
            );
        }
    }
}
