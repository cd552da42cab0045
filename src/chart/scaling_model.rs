//! The scaling models' chart (`sp plot scaling_model`, sp's own kind): each region's time
//! per rank (its total over its ranks, what `sp scaling --model` fits) at every point of
//! the runs' axis as dots, and its fitted model (Extra-P's PMNF, from
//! [`ScalingTable::models`]) as a line through them, with the model's text and adjusted R²
//! listed under the plot. Regions with fewer than [`MIN_POINTS`] points have dots only.

use super::axis::{label, Scale, Ticks};
use super::color::region;
use super::font;
use super::frame::{header, x_axis, y_axis, Axis, Furniture, PAD, TEXT};
use super::plot::PlotOptions;
use super::scaling::{regions_line, top_regions};
use super::scene::{Anchor, Scene, Shape, Style};
use super::text::fit_middle;
use crate::analysis::runs::Run;
use crate::analysis::scaling::model::MIN_POINTS;
use crate::analysis::scaling::{Fitted, RegionCurve, ScalingTable};
use crate::analysis::units::python_g;
use crate::analysis::{Error, Result};

/// Points each model's line is drawn through, evenly spaced on the x scale.
const CURVE_POINTS: usize = 64;

/// Values spanning more than this factor are drawn on a log scale.
const LOG_SPAN: f64 = 20.0;

/// The chart of `runs`' time per rank and models, whose region ids (their colours) are
/// `id(name)`.
pub fn scene(runs: &[Run], id: &dyn Fn(&str) -> u32, opts: &PlotOptions) -> Result<Scene> {
    let table =
        ScalingTable::new(runs, &opts.axis).map_err(|e| Error::Unavailable(e.to_string()))?;
    let Some(xs) = table
        .keys
        .iter()
        .map(|k| k.number())
        .collect::<Option<Vec<f64>>>()
    else {
        return Err(Error::Unavailable(format!(
            "models need a numeric axis, and {} is not one",
            table.axis.label()
        )));
    };
    let models = table.models();
    let curves: Vec<(&RegionCurve, &Fitted)> = (top_regions(&table, opts.top_n).into_iter())
        .map(|i| (&table.regions[i], &models[i]))
        .collect();

    let theme = opts.theme;
    let width = opts.width.clamp(400.0, 20_000.0);
    let mut scene = Scene::new(width, 0.0, theme.ink().bg);
    let f = Furniture::new(&mut scene, theme);
    let title = format!("Scaling models: time per rank over {}", table.axis.label());
    scene.title = title.clone();
    scene.desc = opts.command.clone();
    let sub = regions_line(runs.len(), curves.len(), table.regions.len());
    let fitted = curves.iter().filter(|c| c.1.model.is_some()).count();
    let mut lines = vec![
        sub,
        format!(
            "dots: each region's total over its ranks per rank; lines: its fitted model (sp scaling --model, {MIN_POINTS} points at least; {fitted} fitted)"
        ),
    ];
    let n = xs.len();
    let x_log = xs[0] > 0.0 && xs[n - 1] / xs[0] >= 4.0;
    let values: Vec<f64> = (curves.iter())
        .flat_map(|c| c.0.points.iter().map(|p| p.per_rank))
        .filter(|v| v.is_finite() && *v > 0.0)
        .collect();
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values
        .iter()
        .copied()
        .fold(0.0, f64::max)
        .max(f64::MIN_POSITIVE);
    let y_log = lo.is_finite() && hi / lo > LOG_SPAN;
    let mut scales = Vec::new();
    if x_log {
        scales.push("x on a log2 scale");
    }
    if y_log {
        scales.push("y on a log scale");
    }
    if !scales.is_empty() {
        lines.push(scales.join(", "));
    }
    let top = header(&mut scene, &f, &title, &lines);

    let (y_lo, y_hi, y_ticks) = if y_log {
        let (a, b) = (lo / 1.5, hi * 1.5);
        (a, b, Ticks::log(a, b))
    } else {
        let (up, ticks) = Ticks::rounded_up(0.0, hi * 1.05);
        (0.0, up, ticks)
    };
    let y_step = y_ticks.step;
    let y_fmt = move |v: f64| {
        if y_step > 0.0 {
            label(v, y_step)
        } else {
            python_g(v, 3)
        }
    };
    let y_fmt_ref: &dyn Fn(f64) -> String = &y_fmt;
    let left = PAD + 22.0 + super::frame::widest(&y_ticks, y_fmt_ref) + 8.0;
    let right = width - PAD - 24.0;
    let bottom = top + 360.0;
    let y_scale = if y_log {
        Scale::log(y_lo, y_hi, bottom, top)
    } else {
        Scale::linear(y_lo, y_hi, bottom, top)
    };
    let x_scale = if x_log {
        Scale::log(xs[0], xs[n - 1], left + 20.0, right - 20.0)
    } else {
        Scale::linear(xs[0], xs[n - 1], left + 20.0, right - 20.0)
    };
    y_axis(
        &mut scene,
        &f,
        &Axis {
            scale: y_scale,
            ticks: y_ticks.clone(),
            title: "time per rank (s)".to_string(),
            format: y_fmt_ref,
        },
        left,
        Some(right),
        PAD + 10.0,
    );
    let x_fmt = |v: f64| label(v, 1.0);
    let mut below = x_axis(
        &mut scene,
        &f,
        &Axis {
            scale: x_scale,
            ticks: Ticks {
                values: xs.clone(),
                step: 1.0,
            },
            title: table.axis.label().to_string(),
            format: &x_fmt,
        },
        bottom,
        Some(top),
    );

    // Under the plot, a row per region: its dot, its name, and its model.
    let name_w = (curves.iter())
        .map(|c| font::room(&c.0.name, TEXT, false))
        .fold(0.0, f32::max)
        .min(260.0);
    below += 6.0;
    for (curve, fit) in &curves {
        let rid = id(&curve.name);
        let dot = f.region(&mut scene, rid, false);
        if let Some(model) = &fit.model {
            // The model's line over the measured span, under the dots.
            let line = scene.class(
                &format!("l{rid}"),
                Style::stroke(region(rid, theme, false), 2.0).opacity(0.8),
            );
            let (a, b) = (xs[0], xs[n - 1]);
            // On a log scale the line ends where the model falls to zero or below.
            let points: Vec<(f32, f32)> = (0..CURVE_POINTS)
                .map(|k| {
                    let t = k as f64 / (CURVE_POINTS - 1) as f64;
                    let x = if x_log {
                        a * (b / a).powf(t)
                    } else {
                        a + (b - a) * t
                    };
                    (x, model.at(x))
                })
                .take_while(|&(_, v)| !y_log || v > 0.0)
                .map(|(x, v)| (x_scale.at(x), y_scale.at(v).clamp(top, bottom)))
                .collect();
            scene.push(Shape::Path {
                points,
                closed: false,
                class: line,
            });
        }
        for p in &curve.points {
            let (Some(x), v) = (p.x.number(), p.per_rank) else {
                continue;
            };
            if !v.is_finite() || (y_log && v <= 0.0) {
                continue;
            }
            let tip = format!(
                "{} · {} = {}: {} s per rank",
                curve.name,
                table.axis.label(),
                label(x, 1.0),
                python_g(v, 4)
            );
            scene.push(Shape::Circle {
                cx: x_scale.at(x),
                cy: y_scale.at(v),
                r: 3.5,
                class: dot,
                tip: Some(tip),
            });
        }
        below += TEXT + 7.0;
        let y = below;
        scene.push(Shape::Circle {
            cx: PAD + 4.0,
            cy: y - font::cap_height(TEXT) / 2.0,
            r: 4.0,
            class: dot,
            tip: None,
        });
        let shown = fit_middle(&curve.name, TEXT, name_w).into_owned();
        scene.text_tip(
            PAD + 12.0,
            y,
            shown,
            Anchor::Start,
            f.text,
            curve.name.clone(),
        );
        let model_text = match &fit.model {
            Some(m) => format!("{} · adjusted R² {}", m.text(), python_g(m.adjusted_r2, 4)),
            None => format!(
                "no model: {} points, {MIN_POINTS} needed",
                curve.points.len()
            ),
        };
        let room = width - (PAD + 12.0 + name_w + 16.0) - PAD;
        let model_shown = fit_middle(&model_text, TEXT, room).into_owned();
        scene.text(
            PAD + 12.0 + name_w + 16.0,
            y,
            model_shown,
            Anchor::Start,
            f.muted,
        );
    }
    scene.height = below + PAD;
    Ok(scene)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::scaling::Axis as ScalingAxis;
    use crate::analysis::selection::Selection;
    use crate::schema::{Depth, Profile, ProfileLayout, RankCalls, Region};

    /// A run of `ranks` ranks whose one region takes `seconds(ranks)` on each rank, in one call.
    fn run(ranks: u32, seconds: f64) -> Run {
        let ns = (seconds * 1e9).round() as i64;
        let rows = (0..ranks)
            .map(|rank| RankCalls {
                calls: crate::schema::Calls {
                    starts: vec![0],
                    ends: vec![ns],
                    ..Default::default()
                }
                .into(),
                rank,
                ..RankCalls::default()
            })
            .collect();
        let profile = Profile {
            regions: vec![Region {
                name: "solve".into(),
                ranks: rows,
            }],
            schema: 3,
            layout: ProfileLayout::Columnar,
            metadata: Default::default(),
            num_ranks: u64::from(ranks),
            region_names: vec!["solve".into()],
            depth: Depth::Events,
            summary_statistics: false,
        };
        Run::of(&format!("run{ranks}.h5"), &profile, &Selection::all())
    }

    #[test]
    fn a_series_following_a_law_is_drawn_with_its_model() {
        // Time per rank 1 + 0.5·log2(p) ms over six doublings: Extra-P's log term.
        let runs: Vec<Run> = [1u32, 2, 4, 8, 16, 32]
            .iter()
            .map(|&p| run(p, 1e-3 + 0.5e-3 * f64::from(p).log2()))
            .collect();
        let opts = PlotOptions {
            axis: ScalingAxis::Auto,
            ..PlotOptions::default()
        };
        let scene = scene(&runs, &|_| 0, &opts).unwrap();
        let texts: Vec<&str> = (scene.shapes().iter())
            .filter_map(|s| match s {
                Shape::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        let model = texts.iter().find(|t| t.contains("adjusted R²")).unwrap();
        assert!(model.contains("log2(p)"), "{model}");
        assert!(model.ends_with("adjusted R² 1"), "{model}");
        // Six measured dots, and the model's line from the first to the last of them.
        let dots: Vec<(f32, f32)> = (scene.shapes().iter())
            .filter_map(|s| match s {
                Shape::Circle {
                    cx,
                    cy,
                    tip: Some(_),
                    ..
                } => Some((*cx, *cy)),
                _ => None,
            })
            .collect();
        assert_eq!(dots.len(), 6);
        let line = (scene.shapes().iter())
            .find_map(|s| match s {
                Shape::Path { points, .. } if points.len() == CURVE_POINTS => Some(points),
                _ => None,
            })
            .unwrap();
        for end in [(line[0], dots[0]), (line[CURVE_POINTS - 1], dots[5])] {
            assert!((end.0 .0 - end.1 .0).abs() < 0.01, "{end:?}");
            assert!((end.0 .1 - end.1 .1).abs() < 0.5, "{end:?}");
        }
    }

    #[test]
    fn too_few_points_draw_dots_and_say_why() {
        let runs: Vec<Run> = [1u32, 2, 4].iter().map(|&p| run(p, 1e-3)).collect();
        let scene = scene(&runs, &|_| 0, &PlotOptions::default()).unwrap();
        assert!(scene.shapes().iter().any(|s| matches!(
            s,
            Shape::Text { text, .. } if text == "no model: 3 points, 5 needed"
        )));
        assert!(!scene
            .shapes()
            .iter()
            .any(|s| matches!(s, Shape::Path { points, .. } if points.len() == CURVE_POINTS)));
    }
}
