//! The scaling models' chart (`sp plot scaling_model`, sp's own kind): each region's time
//! per rank (its total over its ranks, what `sp scaling --model` fits) at every point of
//! the runs' axis as dots, and its fitted model (Extra-P's PMNF, from
//! [`ScalingTable::models`]) as a line through them, with the model's text and adjusted R²
//! listed under the plot. Regions with fewer than [`MIN_POINTS`] points have dots only.
//! With a prediction (`--predict X`, [`ScalingTable::predict`]) the axis reaches X, each
//! model's line goes on to it, fainter past the runs, and ends in a ring at its predicted
//! time; the header names the region that stops scaling first.

use super::axis::{label, Scale, Ticks};
use super::color::region;
use super::font;
use super::frame::{header, x_axis, y_axis, Axis, Furniture, PAD, TEXT};
use super::plot::PlotOptions;
use super::scaling::{regions_line, top_regions};
use super::scene::{Anchor, Scene, Shape, Style};
use super::text::fit_middle;
use crate::analysis::runs::Run;
use crate::analysis::scaling::model::Model;
use crate::analysis::scaling::model::MIN_POINTS;
use crate::analysis::scaling::{Fitted, Prediction, RegionCurve, ScalingTable};
use crate::analysis::units::python_g;
use crate::analysis::{Error, Result};
use crate::sort::SortSlice;

/// Points each model's line is drawn through, evenly spaced on the x scale.
const CURVE_POINTS: usize = 64;

/// Points of a model's line past the runs, to a prediction.
const PREDICTED_POINTS: usize = 32;

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
    let prediction = (opts.predict)
        .filter(|x| x.is_finite() && *x > 0.0)
        .map(|x| table.predict(&models, x));
    if let Some(p) = &prediction {
        lines.push(prediction_line(p, &table));
    }
    // The x span: the runs', and the prediction's scale.
    let (x_lo, x_hi) = match &prediction {
        Some(p) => (xs[0].min(p.x), xs[n - 1].max(p.x)),
        None => (xs[0], xs[n - 1]),
    };
    let x_log = x_lo > 0.0 && x_hi / x_lo >= 4.0;
    let predicted = |m: &Model| prediction.as_ref().map(|p| (p.x, m.at(p.x)));
    let values: Vec<f64> = (curves.iter())
        .flat_map(|c| {
            let at = c.1.model.as_ref().and_then(predicted).map(|(_, v)| v);
            c.0.points.iter().map(|p| p.per_rank).chain(at)
        })
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
        Scale::log(x_lo, x_hi, left + 20.0, right - 20.0)
    } else {
        Scale::linear(x_lo, x_hi, left + 20.0, right - 20.0)
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
                values: x_ticks(&xs, prediction.as_ref()),
                step: 1.0,
            },
            title: table.axis.label().to_string(),
            format: &x_fmt,
        },
        bottom,
        Some(top),
    );

    if let Some(p) = &prediction {
        // A guide at the predicted scale, named at its top.
        let x = x_scale.at(p.x);
        let guide = scene.class("guide", Style::stroke(f.ink.muted, 1.0).opacity(0.6));
        scene.line(x, top, x, bottom, guide);
        let anchor = if p.x >= xs[n - 1] {
            Anchor::End
        } else {
            Anchor::Start
        };
        let dx = if anchor == Anchor::End { -4.0 } else { 4.0 };
        let text = format!("predicted at {}", label(p.x, 1.0));
        scene.text(x + dx, top + TEXT, text, anchor, f.muted);
    }

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
            let draw = |from: f64, to: f64, count: usize| -> Vec<(f32, f32)> {
                // On a log scale the line ends where the model falls to zero or below.
                (0..count)
                    .map(|k| {
                        let t = k as f64 / (count - 1) as f64;
                        let x = if x_log {
                            from * (to / from).powf(t)
                        } else {
                            from + (to - from) * t
                        };
                        (x, model.at(x))
                    })
                    .take_while(|&(_, v)| !y_log || v > 0.0)
                    .map(|(x, v)| (x_scale.at(x), y_scale.at(v).clamp(top, bottom)))
                    .collect()
            };
            scene.push(Shape::Path {
                points: draw(xs[0], xs[n - 1], CURVE_POINTS),
                closed: false,
                class: line,
            });
            if let Some((px, pv)) = predicted(model) {
                if px < xs[0] || px > xs[n - 1] {
                    // Past the runs the line is the model's alone: fainter, to a ring at X.
                    let beyond = scene.class(
                        &format!("p{rid}"),
                        Style::stroke(region(rid, theme, false), 2.0).opacity(0.35),
                    );
                    let from = if px < xs[0] { xs[0] } else { xs[n - 1] };
                    scene.push(Shape::Path {
                        points: draw(from, px, PREDICTED_POINTS),
                        closed: false,
                        class: beyond,
                    });
                }
                if pv.is_finite() && (!y_log || pv > 0.0) {
                    let ring = scene.class(
                        &format!("ring{rid}"),
                        Style {
                            fill: Some(theme.ink().bg),
                            ..Style::stroke(region(rid, theme, false), 2.0)
                        },
                    );
                    let share = (prediction.iter().flat_map(|p| &p.regions))
                        .find(|r| r.0 == curve.name)
                        .map_or(0.0, |r| r.2);
                    let tip = format!(
                        "{} · {} = {}: {} s per rank predicted, {:.1} % of the regions' time",
                        curve.name,
                        table.axis.label(),
                        label(px, 1.0),
                        python_g(pv, 4),
                        share * 100.0
                    );
                    scene.push(Shape::Circle {
                        cx: x_scale.at(px),
                        cy: y_scale.at(pv).clamp(top, bottom),
                        r: 4.5,
                        class: ring,
                        tip: Some(tip),
                    });
                }
            }
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
            Some(m) => {
                let fit = format!("{} · adjusted R² {}", m.text(), python_g(m.adjusted_r2, 4));
                match predicted(m) {
                    Some((px, pv)) if pv > 0.0 => {
                        format!("{fit} · at {}: {} s", label(px, 1.0), python_g(pv, 3))
                    }
                    Some((px, _)) => format!(
                        "{fit} · at {}: none (the model is 0 or below)",
                        label(px, 1.0)
                    ),
                    None => fit,
                }
            }
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

/// The header's line for a prediction: the region that stops scaling first, with its
/// share of the regions' time at the largest run and at X.
fn prediction_line(p: &Prediction, table: &ScalingTable) -> String {
    let at = format!("{} = {}", table.axis.label(), label(p.x, 1.0));
    let first = (p.first_to_stop.as_ref()).and_then(|name| p.regions.iter().find(|r| &r.0 == name));
    match first {
        Some((name, _, share, measured)) => format!(
            "rings: the models at {at}; {name} stops scaling first ({:.1} % of the time at the largest run, {:.1} % there)",
            measured * 100.0,
            share * 100.0
        ),
        None => format!("rings: the models at {at}; no region's share grows"),
    }
}

/// The x axis's ticks: the runs' points, and the prediction's scale among them.
fn x_ticks(xs: &[f64], prediction: Option<&Prediction>) -> Vec<f64> {
    let mut ticks = xs.to_vec();
    if let Some(p) = prediction {
        if !ticks.contains(&p.x) {
            ticks.push(p.x);
            ticks.sort_stable_by(f64::total_cmp);
        }
    }
    ticks
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

    /// Time per rank 1 + 0.5·log2(p) ms over six doublings (1 to 32 ranks): Extra-P's log
    /// term.
    fn log_law() -> Vec<Run> {
        [1u32, 2, 4, 8, 16, 32]
            .iter()
            .map(|&p| run(p, 1e-3 + 0.5e-3 * f64::from(p).log2()))
            .collect()
    }

    #[test]
    fn a_series_following_a_law_is_drawn_with_its_model() {
        let runs = log_law();
        let opts = PlotOptions {
            axis: ScalingAxis::Auto,
            ..PlotOptions::default()
        };
        let scene = scene(&runs, &|_| 0, &opts).unwrap();
        let texts = scene.texts();
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
    fn a_prediction_extends_each_model_to_a_ring_at_its_scale() {
        // Measured to 32 ranks; at 1,024 the model gives 6 ms.
        let runs = log_law();
        let opts = PlotOptions {
            predict: Some(1024.0),
            ..PlotOptions::default()
        };
        let scene = scene(&runs, &|_| 0, &opts).unwrap();
        let texts = scene.texts();
        assert!(texts.contains(&"predicted at 1,024"), "{texts:?}");
        assert!(
            texts.contains(&"1,024"),
            "the axis has a tick at X: {texts:?}"
        );
        let model = texts.iter().find(|t| t.contains("adjusted R²")).unwrap();
        assert!(model.ends_with("· at 1,024: 0.006 s"), "{model}");
        let ring = (scene.shapes().iter())
            .find_map(|s| match s {
                Shape::Circle {
                    tip: Some(t), cx, ..
                } if t.contains("predicted") => Some((t.clone(), *cx)),
                _ => None,
            })
            .unwrap();
        assert_eq!(
            ring.0,
            "solve · MPI ranks = 1,024: 0.006 s per rank predicted, 100.0 % of the regions' time"
        );
        // The faint line runs from the last run's dot to the ring.
        let beyond = (scene.shapes().iter())
            .find_map(|s| match s {
                Shape::Path { points, .. } if points.len() == PREDICTED_POINTS => Some(points),
                _ => None,
            })
            .unwrap();
        assert!((beyond[PREDICTED_POINTS - 1].0 - ring.1).abs() < 0.01);
        // Without a prediction the chart is what it was: no ring, no guide.
        let plain = super::scene(&runs, &|_| 0, &PlotOptions::default()).unwrap();
        assert!(!(plain.shapes().iter())
            .any(|s| matches!(s, Shape::Circle { tip: Some(t), .. } if t.contains("predicted"))));
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
